package protocol

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"github.com/twinframe/twinframe/shared/protocol/pb"
	"google.golang.org/protobuf/encoding/protowire"
)

// HashConfigFiles returns the SHA-256 that NetMessageRegionChange.tablesHash
// carries: over each file in order, the varint length and bytes of its name,
// then the varint length and bytes of its text. It does not depend on how
// protobuf orders or encodes fields.
func HashConfigFiles(files []*pb.NetStructConfigFile) [sha256.Size]byte {
	h := sha256.New()
	var n [2 * binaryMaxVarint]byte
	for _, f := range files {
		name, text := f.GetName(), f.GetText()
		h.Write(protowire.AppendVarint(n[:0], uint64(len(name))))
		h.Write([]byte(name))
		h.Write(protowire.AppendVarint(n[:0], uint64(len(text))))
		h.Write([]byte(text))
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

const binaryMaxVarint = 10

// CheckRegionChange reports whether m's tablesHash matches its tables.
func CheckRegionChange(m *pb.NetMessageRegionChange) error {
	sum := HashConfigFiles(m.GetTables())
	if !bytes.Equal(sum[:], m.GetTablesHash()) {
		return &Error{Offset: -1, What: "region change", Err: ErrConfigHash,
			Detail: fmt.Sprintf("tables hash %x, sent %x", sum[:], m.GetTablesHash())}
	}
	return nil
}
