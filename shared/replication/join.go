package replication

import (
	"io/fs"
	"math"
	"slices"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
)

// What a client is sent besides its frame packets is built here, once, for the
// real server and the scripted one (replicationtest): the protocol test vectors
// (docs/PROTOCOL.md §13) come from the scripted server, so they are the real
// server's bytes only if both run this code.

// PacketLimits bound the packets a server builds: a whole region change (every
// configuration table) fits one.
var PacketLimits = protocol.Limits{MaxPacketSize: protocol.HeaderSize + protocol.MaxBodySize, MaxMessageSize: 4 << 20}

// Tables are the configuration files a server runs, as every region change
// carries them, with their hash (protocol.HashConfigFiles).
type Tables struct {
	Files []*pb.NetStructConfigFile
	Hash  []byte
}

// NewTables returns files with their hash. The slice is kept, not copied.
func NewTables(files []*pb.NetStructConfigFile) Tables {
	sum := protocol.HashConfigFiles(files)
	return Tables{Files: files, Hash: sum[:]}
}

// ReadTables reads the *.config files of fsys in name order: the order the hash,
// and every client's world, depend on.
func ReadTables(fsys fs.FS) (Tables, error) {
	names, err := fs.Glob(fsys, "*.config")
	if err != nil {
		return Tables{}, err
	}
	slices.Sort(names)
	var files []*pb.NetStructConfigFile
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return Tables{}, err
		}
		files = append(files, &pb.NetStructConfigFile{Name: n, Text: string(b)})
	}
	return NewTables(files), nil
}

// RegionChange returns the message that puts a client in region, whose game is
// at frame; node names the cluster node that runs it ("" for a single server,
// docs/ARCHITECTURE.md §10).
func (t Tables) RegionChange(region int32, frame uint64, node string) *pb.NetMessageRegionChange {
	return &pb.NetMessageRegionChange{RegionId: region, Tables: t.Files, TablesHash: t.Hash, ServerFrame: frame, Node: node}
}

// Join is what a client is told when it holds nothing of its region's game: at
// its login, in the answer to its resync request, and when its avatar came back
// under a new id.
type Join struct {
	Avatar sim.EntityID
	Role   pb.Role
	// Token is the login token issued to a new player, in its login's answer
	// only.
	Token string
	// Region is the region change (Tables.RegionChange); the login result's
	// frame is its frame.
	Region *pb.NetMessageRegionChange
}

// WriteJoin resets pk and builds j's packet: the login result, then the region
// change (docs/PROTOCOL.md §5, §9). The creates of the client's view follow in
// its next frame packet.
func WriteJoin(pk *protocol.Packet, j Join) error {
	pk.Reset(protocol.MuxGame, protocol.CommandData)
	lr := &pb.NetMessageLoginResult{PlayerEntityId: uint64(j.Avatar), Role: j.Role, ServerFrame: j.Region.GetServerFrame(),
		ProtocolVersion: protocol.Version, IssuedToken: j.Token}
	if err := pk.Append(lr); err != nil {
		return err
	}
	return pk.Append(j.Region)
}

// PlayerOwner returns the simulation owner of a player's entities, what entity
// creates carry as owner: the player's id in the account store (≥ 1), or −1 (no
// owner) when it does not fit an int32.
func PlayerOwner(player int64) int32 {
	if player <= 0 || player > math.MaxInt32 {
		return -1
	}
	return int32(player)
}
