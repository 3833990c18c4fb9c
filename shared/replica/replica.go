package replica

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"github.com/twinframe/twinframe/shared/world"
	"google.golang.org/protobuf/proto"

	"github.com/twinframe/twinframe/shared/geom"
)

// Options configure a Replica. The zero value gives the defaults.
type Options struct {
	// InterpDelay is how many frames behind the estimated server frame remote
	// entities are drawn (default 2).
	InterpDelay float64
	// MaxExtrapolation is how many frames past the newest received frame a remote
	// entity is extrapolated before it is held (default 2; negative: none).
	MaxExtrapolation float64
	// History is the number of predicted frames kept (default 256): the longest
	// round trip, in frames, that prediction can reconcile.
	History int
	// MaxPendingInputs caps the unacknowledged inputs (default 256).
	MaxPendingInputs int
	// PositionTolerance and YawTolerance are the disagreements, in quantization
	// units (1/8 m per axis, 1/64 rad), that are measured but not corrected
	// (defaults 1 and 8; negative: 0, correct every disagreement). After a
	// correction the avatar walks on from the quantized state, a sub-quantum off
	// the server's exact one; its yaw, which follows its motion, may then differ by
	// a few units without any effect on where it goes.
	PositionTolerance, YawTolerance int
	// Persist is how many consecutive frames a disagreement within the tolerance
	// may last while the avatar rests before it is corrected anyway (default 10),
	// so that a resting avatar ends exactly on the server's state.
	Persist int
	// Smoothing is the fraction of a visible correction left after each frame
	// (default 0.8; 0 snaps).
	Smoothing float32
	// SnapDistance: corrections larger than this (metres) are not smoothed
	// (default 4).
	SnapDistance float32
	// MaxCatchUp caps the frames Advance predicts in one call (default 8); a client
	// further behind skips ahead to the server's state.
	MaxCatchUp int
	// Logger receives inconsistencies (default: discarded).
	Logger *slog.Logger
}

func (o *Options) defaults() {
	if o.InterpDelay <= 0 {
		o.InterpDelay = 2
	}
	if o.MaxExtrapolation == 0 {
		o.MaxExtrapolation = 2
	}
	o.MaxExtrapolation = max(o.MaxExtrapolation, 0)
	if o.History <= 0 {
		o.History = 256
	}
	o.History = max(o.History, 8)
	if o.MaxPendingInputs <= 0 {
		o.MaxPendingInputs = 256
	}
	if o.PositionTolerance == 0 {
		o.PositionTolerance = 1
	}
	if o.YawTolerance == 0 {
		o.YawTolerance = 8
	}
	o.PositionTolerance, o.YawTolerance = max(o.PositionTolerance, 0), max(o.YawTolerance, 0)
	if o.Persist <= 0 {
		o.Persist = 10
	}
	if o.Smoothing == 0 {
		o.Smoothing = 0.8
	}
	o.Smoothing = min(max(o.Smoothing, 0), 0.99)
	if o.SnapDistance <= 0 {
		o.SnapDistance = 4
	}
	if o.MaxCatchUp <= 0 {
		o.MaxCatchUp = 8
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Stats counts what a Replica received and did with it.
type Stats struct {
	Packets      int // server frames received
	StalePackets int // frames received after a newer one (ignored)
	MissedFrames int // gaps in the server frame sequence
	StaleUpdates int // locomotion updates older than the state they would change
	Errors       int // inconsistencies (see Error)
	LateInputs   int // inputs the server applied after the frame they were stamped with
	Rebases      int // prediction restarted from the server's state (too far behind or ahead)
	PowerResults int
	ServerErrors int // NetMessageError received
	// ResyncRequests counts TakeResyncRequest's requests; Resyncs the region
	// changes that answered one.
	ResyncRequests, Resyncs int
	// RegionChanges counts travel: region changes to another region while logged
	// in, without a resync asked for (see RegionChange).
	RegionChanges int
	// WorldLoads counts the tables loaded into a world (world.Load); a region
	// change whose tables hash is the loaded world's reuses it.
	WorldLoads    int
	LastServerErr string
}

// RegionChange is a change of the region the replica is in.
type RegionChange struct {
	From, To int32
	Frame    uint64 // the server frame of the change
	// Travel: the avatar went from one region to another (a portal, a teleport);
	// otherwise the first region after login, or a resync.
	Travel bool
}

// TravelWindow is how many server frames after a travel the prediction's
// corrections are counted apart (DriftStats.CorrectionsAfterTravel): the new
// region starts prediction afresh, and what it gets wrong then is the handoff's,
// not steady prediction's.
const TravelWindow = 20

// Replica is a client's copy of the region: remote entities as the server sent
// them, and the predicted own avatar. It is not safe for concurrent use.
type Replica struct {
	opt Options

	world  *world.World
	hash   []byte    // the tables hash of world
	game   *sim.Game // prediction: the region's navmesh, props and the own avatar
	region int32
	node   string // the cluster node that runs the region ("" on a single server)

	changes     []RegionChange // since the last TakeRegionChanges
	travelFrame uint64         // server frame of the last travel (0: none)
	travelled   bool

	player    uint64 // the own avatar's server id (0: none)
	role      pb.Role
	ents      []*entity // sorted by id
	frame     uint64    // last server frame received
	inFrame   bool      // a packet's messages are being received
	repeat    bool      // the current packet repeats the newest frame (the server is paused)
	stale     bool      // the current packet is older than the newest one
	paused    bool
	lastAck   uint32
	clock     Clock
	resync    error
	requested bool // a resync request for resync is out (TakeResyncRequest)
	stats     Stats
	drift     driftLog
	results   []sim.PowerResult // of the last packet
	pending   []sim.PowerResult // since the last TakePowerResults
	pred      predictor
	unpacker  *archive.Archive
}

// entity is a replicated entity: its identity and its last known state.
type entity struct {
	id         uint64
	proto      int32
	region     int32
	owner      int32
	projectile bool
	// remote is absolute: the last update received, and for a remote entity walked
	// along its path to the newest server frame.
	remote  replication.Remote
	samples []sample // positions by frame, ascending, for interpolation
}

// state returns the entity's state (see remote).
func (e *entity) state() *locomotion.State { return e.remote.State() }

type sample struct {
	frame  uint64
	pos    mgl32.Vec2
	yaw    float32
	moving bool
}

// maxSamples bounds each remote entity's interpolation history.
const maxSamples = 32

// New returns an empty replica; it fills from Receive.
func New(opt *Options) *Replica {
	r := &Replica{}
	if opt != nil {
		r.opt = *opt
	}
	r.opt.defaults()
	r.pred.init(&r.opt)
	return r
}

// Reset forgets the region, the entities and the prediction (before logging in
// again); options, statistics, the drift log and the loaded world (reused when
// the next region change has the same tables) are kept.
func (r *Replica) Reset() {
	opt, stats, drift, w, hash := r.opt, r.stats, r.drift, r.world, r.hash
	*r = Replica{opt: opt, stats: stats, drift: drift, world: w, hash: hash}
	r.pred.init(&r.opt)
}

// maxChanges caps the region changes kept for TakeRegionChanges.
const maxChanges = 64

// TakeRegionChanges appends the region changes since the last call (at most the
// newest 64), oldest first, to dst, and forgets them.
func (r *Replica) TakeRegionChanges(dst []RegionChange) []RegionChange {
	dst = append(dst, r.changes...)
	r.changes = r.changes[:0]
	return dst
}

// World returns the world built from the last region change, or nil.
func (r *Replica) World() *world.World { return r.world }

// Game returns the prediction game (the region's navmesh and props, and the own
// avatar), or nil before a region change. Read it; do not step or command it.
func (r *Replica) Game() *sim.Game { return r.game }

// RegionID returns the region the client is in.
func (r *Replica) RegionID() int32 { return r.region }

// RegionNode returns the node of a cluster that runs the region (docs/ARCHITECTURE.md
// §10), "" on a single server.
func (r *Replica) RegionNode() string { return r.node }

// RegionName returns the name of region id in the loaded world, or "" (no world,
// no such region).
func (r *Replica) RegionName(id int32) string {
	if r.world == nil {
		return ""
	}
	for i := range r.world.Regions {
		if r.world.Regions[i].ID == id {
			return r.world.Regions[i].Name
		}
	}
	return ""
}

// Player returns the own avatar's entity id (0 before login).
func (r *Replica) Player() uint64 { return r.player }

// Role returns the session's role from the login result.
func (r *Replica) Role() pb.Role { return r.role }

// ServerFrame returns the newest server frame received.
func (r *Replica) ServerFrame() uint64 { return r.frame }

// Paused reports whether the server said it is paused.
func (r *Replica) Paused() bool { return r.paused }

// Clock returns the clock estimate.
func (r *Replica) Clock() *Clock { return &r.clock }

// Stats returns the counters.
func (r *Replica) Stats() Stats { return r.stats }

// Drift returns the prediction accuracy summary.
func (r *Replica) Drift() DriftStats { return r.drift.stats }

// DriftLog appends the rolling drift log (the last 30 s of compared frames), oldest
// first, to dst.
func (r *Replica) DriftLog(dst []DriftSample) []DriftSample { return r.drift.samples(dst) }

// PowerResults returns the power results received with the last packet. A caller
// that polls less often than packets arrive (or more often) should use
// TakePowerResults, which neither loses nor repeats a result.
func (r *Replica) PowerResults() []sim.PowerResult { return r.results }

// maxPending caps the power results kept for TakePowerResults.
const maxPending = 256

// TakePowerResults appends the power results received since the last call
// (at most the newest 256) to dst, oldest first, and forgets them.
func (r *Replica) TakePowerResults(dst []sim.PowerResult) []sim.PowerResult {
	dst = append(dst, r.pending...)
	r.pending = r.pending[:0]
	return dst
}

// ResyncReason returns the first inconsistency since the last Reset or region
// change, or nil: when it is not nil the client should get a fresh copy of the
// world (TakeResyncRequest).
func (r *Replica) ResyncReason() error { return r.resync }

// Len returns the number of replicated entities.
func (r *Replica) Len() int { return len(r.ents) }

// IDs appends the ids of the replicated entities, ascending, to dst.
func (r *Replica) IDs(dst []uint64) []uint64 {
	for _, e := range r.ents {
		dst = append(dst, e.id)
	}
	return dst
}

// State returns the locomotion state of entity id at the newest server frame: for
// the own avatar the last one the server sent, for a remote entity the last one
// walked along its path to that frame (see Remote). The path is the replica's own:
// do not modify it.
func (r *Replica) State(id uint64) (locomotion.State, bool) {
	if e := r.entity(id); e != nil {
		return *e.remote.State(), true
	}
	return locomotion.State{}, false
}

func (r *Replica) entity(id uint64) *entity {
	i, ok := r.find(id)
	if !ok {
		return nil
	}
	return r.ents[i]
}

func (r *Replica) find(id uint64) (int, bool) {
	return slices.BinarySearchFunc(r.ents, id, func(e *entity, id uint64) int {
		switch {
		case e.id < id:
			return -1
		case e.id > id:
			return 1
		}
		return 0
	})
}

// fail records an inconsistency: logged, counted, and a resync requested.
func (r *Replica) fail(msg proto.Message, entity uint64, err error, detail string) {
	e := &Error{Frame: r.frame, Entity: entity, Detail: detail, Err: err}
	if msg != nil {
		e.Message = string(msg.ProtoReflect().Descriptor().Name())
	}
	r.stats.Errors++
	if r.resync == nil {
		r.resync = e
	}
	r.opt.Logger.Error("replica: inconsistent server data", "err", e)
}

// Receive applies the messages of one server packet (one frame), in order, at
// client time now. A NetMessageServerFrame starts a frame packet; the login and
// resync answers (a login result and a region change) carry none, their
// NetMessageRegionChange.server_frame places them. When Receive returns,
// the frame is complete and the own avatar's prediction has been reconciled with
// it. Inconsistent data is dropped and reported (ResyncReason), never panics.
func (r *Replica) Receive(now time.Duration, msgs ...proto.Message) {
	r.results = r.results[:0]
	r.rebaseFor(now, msgs)
	for _, m := range msgs {
		r.handle(now, m)
	}
	r.endFrame(now)
}

// rebaseFrames is how far (frames) a travel's region frame may be from the clock's
// estimate and still count as the same count: a region of the same server is at
// most a frame or two off (the change arrives with the frame's packet).
const rebaseFrames = 4

// rebaseFor starts a new frame count for a packet that carries travel to a region
// whose frames count from elsewhere: the regions of one server step together, but
// a region on another node (docs/ARCHITECTURE.md §10) has its own count. The
// packet's frame header, which comes before the region change, is then read in the
// new count, neither stale nor a gap.
func (r *Replica) rebaseFor(now time.Duration, msgs []proto.Message) {
	if r.game == nil || r.player == 0 || r.requested || !r.clock.Started() {
		return
	}
	for _, m := range msgs {
		rc, ok := m.(*pb.NetMessageRegionChange)
		if !ok || rc.GetRegionId() == r.region {
			continue
		}
		// A count behind the frames seen (even by one) would make the region's
		// packets stale.
		if f := rc.GetServerFrame(); f > 0 && (f <= r.frame || math.Abs(float64(f)-r.clock.ServerFrame(now)) > rebaseFrames) {
			r.frame = f - 1
			r.clock.Rebase(now, f)
		}
		return
	}
}

func (r *Replica) handle(now time.Duration, m proto.Message) {
	switch m := m.(type) {
	case *pb.NetMessageServerFrame:
		r.endFrame(now)
		r.beginFrame(now, m)
	case *pb.NetMessageLoginResult:
		r.login(m)
	case *pb.NetMessageRegionChange:
		r.regionChange(now, m)
	case *pb.NetMessageEntityCreate:
		if !r.stale {
			r.create(m)
		}
	case *pb.NetMessageEntityDestroy:
		if !r.stale {
			r.destroy(m)
		}
	case *pb.NetMessageLocomotionStateUpdate:
		if !r.stale {
			r.update(m)
		}
	case *pb.NetMessagePowerResult:
		if !r.stale {
			r.powerResult(m)
		}
	case *pb.NetMessagePong:
		r.clock.Pong(time.Duration(m.GetClientTimeMicros())*time.Microsecond, now, m.GetServerFrame())
	case *pb.NetMessageError:
		r.stats.ServerErrors++
		r.stats.LastServerErr = fmt.Sprintf("%v: %s", m.GetCode(), m.GetText())
		r.opt.Logger.Warn("replica: server error", "code", m.GetCode(), "text", m.GetText())
	case nil:
	default:
		// Responses the replica does not use (xdump, live edit, debug draw) are the
		// caller's business; client→server messages are a server bug.
		if isClientMessage(m) {
			r.fail(m, 0, ErrUnexpectedType, "")
		}
	}
}

func isClientMessage(m proto.Message) bool {
	switch m.(type) {
	case *pb.NetMessageLogin, *pb.NetMessageMoveTo, *pb.NetMessageStop, *pb.NetMessageFire,
		*pb.NetMessagePing, *pb.NetMessageXDumpRequest, *pb.NetMessageLiveEditRequest, *pb.NetMessageDebugCommand, *pb.NetMessageResyncRequest:
		return true
	}
	return false
}

// login takes an accepted login; a refused one arrives as a NetMessageError.
func (r *Replica) login(m *pb.NetMessageLoginResult) {
	r.player = m.GetPlayerEntityId()
	r.role = m.GetRole()
}

// regionChange replaces the region: the world (reused when the tables hash is the
// loaded world's), the prediction game of the new region, and the entities, which
// the creates that follow fill again. A change to another region while logged in,
// with no resync asked for, is travel (docs/ARCHITECTURE.md §7): the server
// dropped and acknowledged the inputs it had not applied, so the ones it had not
// received yet (sent after the ack of this packet) apply in the new region and are
// predicted there; the input numbering, the clock estimate and the drift log go on.
func (r *Replica) regionChange(now time.Duration, m *pb.NetMessageRegionChange) {
	w := r.world
	if w == nil || !bytes.Equal(m.GetTablesHash(), r.hash) {
		w = nil
	}
	w, g, err := buildWorld(m, w)
	if err != nil {
		kind := ErrBadTables
		if errors.Is(err, ErrHashMismatch) {
			kind = ErrHashMismatch
		}
		r.fail(m, 0, kind, strings.TrimPrefix(err.Error(), kind.Error()+": "))
		return
	}
	if w != r.world {
		r.stats.WorldLoads++
	}
	from := r.region
	travel := r.game != nil && r.player != 0 && m.GetRegionId() != from && !r.requested
	r.world, r.hash, r.game, r.region = w, slices.Clone(m.GetTablesHash()), g, m.GetRegionId()
	r.node = m.GetNode()
	r.ents = r.ents[:0]
	if travel {
		r.pred.travel(g, r.lastAck)
		r.stats.RegionChanges++
		r.travelFrame, r.travelled = max(m.GetServerFrame(), r.frame), true
	} else {
		r.pred.reset(g)
	}
	r.resynced()
	if f := m.GetServerFrame(); f > r.frame {
		r.frame = f
	}
	r.clock.Frame(now, m.GetServerFrame())
	if len(r.changes) == maxChanges {
		r.changes = append(r.changes[:0], r.changes[1:]...)
	}
	r.changes = append(r.changes, RegionChange{From: from, To: r.region, Frame: r.frame, Travel: travel})
}

func (r *Replica) beginFrame(now time.Duration, m *pb.NetMessageServerFrame) {
	f := m.GetFrame()
	r.inFrame = true
	// A paused server sends its frame again, with what happened meanwhile (spawns,
	// edits, view changes): such a packet is taken, any other older one is not.
	r.repeat = f == r.frame && m.GetPaused() && r.stats.Packets > 0
	if f <= r.frame && r.stats.Packets > 0 && !r.repeat {
		r.stale = true
		r.stats.StalePackets++
		return
	}
	if r.stats.Packets > 0 && f > r.frame+1 {
		r.stats.MissedFrames += int(f - r.frame - 1)
	}
	r.stale = false
	if !r.repeat {
		r.stats.Packets++
	}
	r.frame = f
	r.paused = m.GetPaused()
	if r.paused {
		r.clock.Paused(now, f)
	} else {
		r.clock.Frame(now, f)
	}
	if ack := m.GetLastInputSeq(); ack > r.lastAck {
		r.lastAck = ack
	}
	// Remote entities walk to this frame; the packet's updates then correct them.
	for _, e := range r.ents {
		if e.id != r.player {
			e.remote.AdvanceTo(f)
		}
	}
}

// endFrame completes the current packet's frame: the avatar is reconciled with it.
func (r *Replica) endFrame(now time.Duration) {
	if !r.inFrame {
		return
	}
	r.inFrame = false
	if r.stale {
		r.stale = false
		return
	}
	for _, e := range r.ents {
		e.addSample(r.frame)
	}
	if own := r.entity(r.player); own != nil && r.pred.active() && !r.repeat {
		r.reconcile(now, own)
	}
}

func (r *Replica) unpack(data []byte) (*archive.Archive, error) {
	if r.unpacker == nil {
		u, err := archive.NewUnpacker(archive.Replication, data)
		if err != nil {
			return nil, err
		}
		r.unpacker = u
	} else if err := r.unpacker.ResetUnpacker(archive.Replication, data); err != nil {
		return nil, err
	}
	r.unpacker.SetLimits(archive.Limits{MaxCount: locomotion.MaxPathNodes, MaxString: 1 << 10})
	return r.unpacker, nil
}

func (r *Replica) create(m *pb.NetMessageEntityCreate) {
	if r.game == nil {
		r.fail(m, 0, ErrNoRegion, "entity create before the region change")
		return
	}
	u, err := r.unpack(m.GetArchiveData())
	if err != nil {
		r.fail(m, 0, ErrBadArchive, err.Error())
		return
	}
	var se sim.Entity
	u.TransferObject(&se)
	if err := u.Done(); err != nil {
		r.fail(m, uint64(se.ID()), ErrBadArchive, err.Error())
		return
	}
	id := uint64(se.ID())
	if id == 0 {
		r.fail(m, 0, ErrBadArchive, "entity id 0")
		return
	}
	e := &entity{id: id, proto: se.Prototype(), region: se.Region(), owner: se.Owner(),
		projectile: se.Prototype() == sim.ProtoProjectile}
	var st locomotion.State
	se.LocomotionState(&st, se.ChangedFrame())
	if !geom.Finite3(st.Position) || !geom.Finite(st.Yaw) || !geom.Finite(st.Speed) {
		r.fail(m, id, ErrBadArchive, "non-finite position, yaw or speed")
		return
	}
	at := uint64(0)
	if id != r.player {
		// The state is the entity's as of this packet's frame (the frame it last
		// changed may be older): it walks on from here.
		at = r.frame
	}
	e.remote.Reset(&st, at)
	i, found := r.find(id)
	if found {
		// A create for an entity the replica holds: the server lost track of what it
		// sent. Take the new state, and ask for a resync.
		r.fail(m, id, ErrDuplicate, "")
		r.ents[i] = e
	} else {
		r.ents = slices.Insert(r.ents, i, e)
	}
	e.addSample(max(r.frame, e.remote.State().Frame))
	if id == r.player {
		if err := r.pred.spawn(e, r.frame); err != nil {
			r.fail(m, id, ErrBadArchive, err.Error())
		}
	}
}

func (r *Replica) destroy(m *pb.NetMessageEntityDestroy) {
	id := m.GetEntityId()
	i, ok := r.find(id)
	if !ok {
		r.fail(m, id, ErrUnknownEntity, "destroy")
		return
	}
	r.ents = slices.Delete(r.ents, i, i+1)
	if id == r.player {
		r.pred.drop()
	}
}

func (r *Replica) update(m *pb.NetMessageLocomotionStateUpdate) {
	u, err := r.unpack(m.GetArchiveData())
	if err != nil {
		r.fail(m, 0, ErrBadArchive, err.Error())
		return
	}
	var st locomotion.State
	u.TransferObject(&st)
	if err := u.Done(); err != nil {
		r.fail(m, st.Entity, ErrBadArchive, err.Error())
		return
	}
	e := r.entity(st.Entity)
	if e == nil {
		r.fail(m, st.Entity, ErrUnknownEntity, "locomotion update before create")
		return
	}
	if st.Frame < e.remote.State().Frame {
		r.stats.StaleUpdates++
		return
	}
	if err := e.remote.Apply(&st); err != nil {
		r.fail(m, st.Entity, ErrBadArchive, err.Error())
	}
}

func (r *Replica) powerResult(m *pb.NetMessagePowerResult) {
	u, err := r.unpack(m.GetArchiveData())
	if err != nil {
		r.fail(m, 0, ErrBadArchive, err.Error())
		return
	}
	var pr sim.PowerResult
	u.TransferObject(&pr)
	if err := u.Done(); err != nil {
		r.fail(m, 0, ErrBadArchive, err.Error())
		return
	}
	r.stats.PowerResults++
	r.results = append(r.results, pr)
	if len(r.pending) == maxPending {
		r.pending = append(r.pending[:0], r.pending[1:]...)
	}
	r.pending = append(r.pending, pr)
}

// addSample records the entity's state at frame f for interpolation.
func (e *entity) addSample(f uint64) {
	st := e.remote.State()
	s := sample{frame: f, pos: mgl32.Vec2{st.Position[0], st.Position[1]}, yaw: st.Yaw,
		moving: st.Fields&locomotion.Moving != 0}
	if n := len(e.samples); n > 0 {
		last := &e.samples[n-1]
		switch {
		case last.frame == f:
			*last = s
			return
		case last.frame > f:
			return
		case last.pos == s.pos && last.yaw == s.yaw && last.moving == s.moving:
			return // unchanged: the last sample holds
		}
	}
	if len(e.samples) == maxSamples {
		copy(e.samples, e.samples[1:])
		e.samples = e.samples[:maxSamples-1]
	}
	e.samples = append(e.samples, s)
}
