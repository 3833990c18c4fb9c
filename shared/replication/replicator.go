package replication

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"google.golang.org/protobuf/proto"
)

// Config is how a Replicator decides what each client gets. The zero value is the
// defaults given in parentheses.
type Config struct {
	AOI        AOI     // (DefaultAOI)
	AOIMove    float32 // metres an avatar moves before its AOI is recomputed (2)
	AOIRefresh int     // frames between AOI recomputations regardless (10)
	// MaxInputLead is how many frames ahead of the next one an input may be
	// scheduled (40): see Inputs.Queue.
	MaxInputLead uint64
	// Other clients' entities (Proximity policy) are corrected when the command
	// changes, when they start, stop or are blocked, when the clients' walked copy
	// strays beyond WalkTolerance or YawTolerance, and every RefreshFrames while
	// they move (40). EveryFrameUpdates corrects them instead every frame the
	// walked copy is not exactly the entity as the wire carries it.
	RefreshFrames     uint64
	EveryFrameUpdates bool
	// Logger receives what should never happen: an entity that cannot be packed.
	Logger *slog.Logger // (discard)
}

// ErrConfig is returned for a Config that cannot work.
var ErrConfig = errors.New("replication: bad config")

// Defaults fills in the zero fields and checks the rest.
func (c *Config) Defaults() error {
	if c.AOI == (AOI{}) {
		c.AOI = DefaultAOI
	}
	if !c.AOI.Valid() {
		return fmt.Errorf("%w: AOI %+v", ErrConfig, c.AOI)
	}
	if c.AOIMove == 0 {
		c.AOIMove = 2
	}
	if c.AOIRefresh == 0 {
		c.AOIRefresh = 10
	}
	if c.MaxInputLead == 0 {
		c.MaxInputLead = 40
	}
	if c.RefreshFrames == 0 {
		c.RefreshFrames = 40
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// View is one client's side of replication: its avatar, its scheduled inputs, and
// the entities it holds. Attach it to the Replicator of its avatar's game.
type View struct {
	Inputs
	avatar    sim.EntityID
	visible   []uint64 // ascending
	aoiCenter mgl32.Vec2
	aoiFrame  uint64
	aoiValid  bool
	add, rem  []uint64
	r         *Replicator
}

// SetAvatar sets the entity the view follows.
func (v *View) SetAvatar(id sim.EntityID) { v.avatar = id }

// Avatar returns the entity the view follows.
func (v *View) Avatar() sim.EntityID { return v.avatar }

// Visible returns the ids the client holds (ascending). The slice is the view's.
func (v *View) Visible() []uint64 { return v.visible }

// tracked is the replication state of one entity: what its owner and the other
// clients hold of its locomotion, and this frame's updates.
type tracked struct {
	id          sim.EntityID
	region      int32
	state       locomotion.State // last state sent to the owner (absolute)
	own         locomotion.State // this frame's update for the owner: the difference from state
	ownChanged  bool             // own goes to the owner this frame
	ownStale    bool             // state was not kept up while no view had the entity as its avatar
	walked      Remote           // what the other clients hold: the last update, walked
	upd         locomotion.State // this frame's correction of walked, for every other client
	prox        []byte           // upd as a NetMessageLocomotionStateUpdate payload, Proximity policy
	shared      bool             // upd goes to the clients other than the owner this frame
	sentCmd     uint64           // CommandFrame when upd was last shared
	sharedFrame uint64           // frame upd was last shared
	// holders counts the views holding the entity; walked is kept only while some
	// do.
	holders int
	// rejoin: a view started holding the entity while its walked copy was off the
	// wire's grid, so its create rounded the copy; the next update re-sends the copy
	// to every holder, after which all hold the same copy, bit for bit.
	rejoin    bool
	lastPos   mgl32.Vec2 // the entity's position when updateOthers last ran
	lastFrame uint64     // and the frame
}

type encodedResult struct {
	r       sim.PowerResult
	payload []byte
}

// Gone is an entity that left the game since the last Prepare, with the region it
// was last replicated in.
type Gone struct {
	ID     sim.EntityID
	Region int32
}

// Replicator is the server side of replication for one game: once per frame,
// Prepare computes each entity's update once; Write then builds each client's
// packet from its View. It is not safe for concurrent use.
type Replicator struct {
	cfg       Config
	game      *sim.Game
	views     []*View
	tracks    []*tracked // every entity of the game, ascending id (as of the last Prepare)
	spare     []*tracked // the previous frame's tracks slice, reused
	created   []uint64   // entity ids new this frame, ascending
	destroyed []uint64   // entity ids gone this frame, ascending
	gone      []Gone
	cands     map[int32][]Candidate
	updates   []*tracked     // entities with an update this frame, ascending id
	avatars   []sim.EntityID // the attached views' avatars, ascending (this Prepare)
	results   []encodedResult
	scratch   locomotion.State
	replFrame uint64 // the game frame prepared last
	// Buffers reused across clients and frames, so that a frame allocates nothing
	// per client in the steady state.
	changes [][]byte                // one client's locomotion payloads
	own     []byte                  // the owner's update of one client's avatar
	creates map[sim.EntityID][]byte // create payloads shared between clients this frame
	packer  archive.Archive
	loco    pb.NetMessageLocomotionStateUpdate
	frame   pb.NetMessageServerFrame
}

// New returns the replicator of g. The entities g holds now count as known: only
// later ones are reported created.
func New(g *sim.Game, cfg Config) (*Replicator, error) {
	if err := cfg.Defaults(); err != nil {
		return nil, err
	}
	r := &Replicator{cfg: cfg, game: g, cands: map[int32][]Candidate{}, creates: map[sim.EntityID][]byte{}}
	for _, e := range g.Entities() {
		r.tracks = append(r.tracks, newTracked(e, g.Frame()))
	}
	return r, nil
}

// Config returns the configuration in force (with defaults filled in).
func (r *Replicator) Config() *Config { return &r.cfg }

// Game returns the game r replicates.
func (r *Replicator) Game() *sim.Game { return r.game }

// Attach starts replicating to v: it holds nothing yet, so its next packet creates
// everything in its view.
func (r *Replicator) Attach(v *View) {
	if v.r == r {
		return
	}
	if v.r != nil {
		v.r.Detach(v)
	}
	v.r = r
	r.views = append(r.views, v)
	v.visible, v.aoiValid = v.visible[:0], false
}

// Detach stops replicating to v and forgets what it held.
func (r *Replicator) Detach(v *View) {
	if v.r != r {
		return
	}
	r.Forget(v)
	if i := slices.Index(r.views, v); i >= 0 {
		r.views = slices.Delete(r.views, i, i+1)
	}
	v.r = nil
}

// Forget empties v as if it held nothing (a resync): its next packet creates
// everything in its view again.
func (r *Replicator) Forget(v *View) {
	for _, id := range v.visible {
		if t := r.track(sim.EntityID(id)); t != nil {
			t.holders--
		}
	}
	v.visible, v.aoiValid = v.visible[:0], false
}

// Views returns the attached views in attach order. The slice is r's.
func (r *Replicator) Views() []*View { return r.views }

// Created returns the ids of the entities new since the previous Prepare
// (ascending). The slice is r's until the next Prepare.
func (r *Replicator) Created() []uint64 { return r.created }

// Gone returns the entities that left the game since the previous Prepare, in id
// order. The slice is r's until the next Prepare.
func (r *Replicator) Gone() []Gone { return r.gone }

// Tracked returns how many entities r keeps replication state for.
func (r *Replicator) Tracked() int { return len(r.tracks) }

// track returns the replication state of entity id, or nil.
func (r *Replicator) track(id sim.EntityID) *tracked {
	i, ok := slices.BinarySearchFunc(r.tracks, id, func(t *tracked, id sim.EntityID) int { return cmp.Compare(t.id, id) })
	if !ok {
		return nil
	}
	return r.tracks[i]
}

// newTracked starts tracking e at frame f: its owner holds it as it is now.
func newTracked(e *sim.Entity, f uint64) *tracked {
	t := &tracked{id: e.ID(), region: e.Region()}
	e.LocomotionState(&t.state, f)
	return t
}

// Updates returns how many entities have an update this frame.
func (r *Replicator) Updates() int { return len(r.updates) }

// Prepare computes, once for every client, the frame just run: the entities
// created and destroyed, each changed entity's update for its owner and for the
// other clients, and (when the game stepped) the power results.
func (r *Replicator) Prepare(stepped bool) {
	g := r.game
	f := g.Frame()
	ents := g.Entities()
	r.created, r.destroyed, r.gone = r.created[:0], r.destroyed[:0], r.gone[:0]
	r.updates = r.updates[:0]
	r.avatars = r.avatars[:0]
	for _, v := range r.views {
		r.avatars = append(r.avatars, v.avatar)
	}
	slices.Sort(r.avatars)
	for k := range r.cands {
		r.cands[k] = r.cands[k][:0]
	}
	// The entities and the tracks both ascend by id: one merge finds the created,
	// the destroyed and each entity's replication state.
	old, next := r.tracks, r.spare[:0]
	j := 0
	gone := func(t *tracked) {
		r.destroyed = append(r.destroyed, uint64(t.id))
		r.gone = append(r.gone, Gone{ID: t.id, Region: t.region})
	}
	for _, e := range ents {
		r.cands[e.Region()] = append(r.cands[e.Region()], Candidate{ID: uint64(e.ID()), Pos: e.Pos()})
		for j < len(old) && old[j].id < e.ID() {
			gone(old[j])
			j++
		}
		if j == len(old) || old[j].id != e.ID() {
			next = append(next, newTracked(e, f))
			r.created = append(r.created, uint64(e.ID()))
			continue
		}
		t := old[j]
		j++
		next = append(next, t)
		t.region = e.Region()
		if e.Policy()&archive.ClientIndependent != 0 {
			continue // the client simulates it from its create
		}
		held := t.holders > 0
		if max(e.ChangedFrame(), e.CommandFrame()) < r.replFrame && !(held && (t.walked.Walking() || t.rejoin)) {
			continue // neither the entity nor what the clients hold of it moved
		}
		owned := r.isAvatar(e.ID())
		t.ownChanged, t.shared = false, false
		if !owned && !held {
			// Nobody gets its updates: most of a crowd, most of the time. What the
			// owner was last sent is refreshed if it ever becomes an avatar.
			t.ownStale = true
			continue
		}
		e.LocomotionState(&r.scratch, f)
		if owned {
			r.updateOwner(t)
		} else {
			t.ownStale = true
		}
		if held {
			r.updateOthers(t, e, f)
		}
		if t.ownChanged || t.shared {
			r.updates = append(r.updates, t)
		}
	}
	for ; j < len(old); j++ {
		gone(old[j])
	}
	clear(old)
	r.tracks, r.spare = next, old[:0]
	r.replFrame = f
	r.results = r.results[:0]
	if stepped {
		for _, pr := range g.PowerResults() {
			a := archive.NewPacker(archive.Replication, archive.Proximity)
			a.TransferObject(&pr)
			if a.Err() != nil {
				r.cfg.Logger.Error("pack power result", "err", a.Err())
				continue
			}
			_, payload, err := protocol.Marshal(&pb.NetMessagePowerResult{ArchiveData: a.Bytes()})
			if err == nil {
				r.results = append(r.results, encodedResult{pr, payload})
			}
		}
	}
	clear(r.creates)
}

// isAvatar reports whether id is the avatar of an attached view.
func (r *Replicator) isAvatar(id sim.EntityID) bool {
	_, ok := slices.BinarySearch(r.avatars, id)
	return ok
}

// updateOwner computes the owner's update of t from r.scratch, the entity's state
// this frame: every change of its quantized state, relative to the last one sent.
func (r *Replicator) updateOwner(t *tracked) {
	if t.ownStale {
		// Its view's create carried the entity as it is now: updates start from
		// here.
		t.ownStale = false
		t.state.Path = append(t.state.Path[:0], r.scratch.Path...)
		path := t.state.Path
		t.state = r.scratch
		t.state.Path = path
		return
	}
	d := locomotion.Diff(&t.state, &r.scratch)
	t.ownChanged = d.Fields&^(locomotion.Relative|locomotion.Moving) != 0 ||
		d.Fields&locomotion.Moving != t.state.Fields&locomotion.Moving
	if !t.ownChanged {
		return
	}
	own := append(t.own.Path[:0], d.Path...) // d.Path is r.scratch's
	t.own = d
	t.own.Path = own
	path := append(t.state.Path[:0], r.scratch.Path...)
	t.state = r.scratch
	t.state.Path = path
}

// startWalk starts the walked copy of t (e's) from e's state at frame f, unless
// some view holds it already: then the copy is what that view holds.
func (r *Replicator) startWalk(t *tracked, e *sim.Entity, f uint64) {
	if t == nil || t.holders > 0 {
		return
	}
	e.LocomotionState(&r.scratch, f)
	t.walked.Correction(&r.scratch, &t.upd, true)
	t.walked.Reset(&t.upd, f)
	t.sentCmd, t.sharedFrame = e.CommandFrame(), f
	t.holders, t.rejoin = 0, false
}

// updateOthers walks what the other clients hold of e to frame f and decides
// whether they need a correction: when the command changed, when the walked copy
// is off (by the tolerances, or at all with EveryFrameUpdates), or in its refresh
// slot while it moves. The correction is encoded once here and shared by every
// client that holds the entity.
func (r *Replicator) updateOthers(t *tracked, e *sim.Entity, f uint64) {
	t.walked.AdvanceTo(f)
	// An entity that moved less than a quarter of its step this frame is blocked
	// (by the locomotor's own measure): its clients hold it still rather than walk
	// it into what blocks it, until it moves again.
	cur := &r.scratch
	pos := mgl32.Vec2{cur.Position[0], cur.Position[1]}
	blocked := cur.Fields&locomotion.Moving != 0 && t.lastFrame+1 == f &&
		pos.Sub(t.lastPos).Len() < 0.25*cur.Speed*sim.FrameSeconds
	if blocked {
		cur.Fields &^= locomotion.Moving
	}
	t.lastPos, t.lastFrame = pos, f
	cmd := e.CommandFrame() != t.sentCmd
	posTol, yawTol := WalkTolerance, YawTolerance
	switch {
	case r.cfg.EveryFrameUpdates:
		posTol, yawTol = 0, 0
	case blocked:
		yawTol = math.Pi // the facing of a crawl along a wall is noise
	}
	moving := cur.Fields&locomotion.Moving != 0 || t.walked.Walking()
	t.shared = cmd || t.rejoin || moving && f >= t.sharedFrame+r.cfg.RefreshFrames || t.walked.Off(cur, posTol, yawTol)
	if !t.shared {
		return
	}
	t.walked.Correction(cur, &t.upd, cmd)
	if err := t.walked.Apply(&t.upd); err != nil {
		// A non-finite state: the simulation never makes one; keep the clients'
		// copy as it is rather than send it.
		r.cfg.Logger.Error("correct locomotion", "entity", t.id, "err", err)
		t.shared = false
		return
	}
	t.sentCmd, t.sharedFrame, t.rejoin = e.CommandFrame(), f, false
	t.prox = r.appendLocoPayload(t.prox[:0], &t.upd, archive.Proximity)
	t.shared = t.prox != nil
}

// Frame is what a client's packet carries besides what Write computes: whether
// the game is paused, and the replies to its requests of the last frame.
type Frame struct {
	Paused  bool
	Replies []proto.Message
}

// ErrPacketFull is returned by Write when the client's changes do not fit one
// packet: the client cannot be kept in step and must be disconnected.
var ErrPacketFull = errors.New("replication: frame packet over its size limit")

// Write resets pk and builds v's packet for the frame prepared last, in the order
// docs/ARCHITECTURE.md §3 gives: NetMessageServerFrame (acknowledging the last
// input applied), the replies, then AOI removes, adds (creates) and changes of the
// entities held before, and the power results the client can see. Creates that do
// not fit wait for the next frame; changes that do not fit return ErrPacketFull.
// A view whose avatar is not in the game gets the frame and replies only.
func (r *Replicator) Write(pk *protocol.Packet, v *View, fr Frame) error {
	g := r.game
	f := g.Frame()
	pk.Reset(protocol.MuxGame, protocol.CommandData)
	fm := &r.frame
	fm.Frame, fm.LastInputSeq, fm.Paused = f, v.ack, fr.Paused
	_ = pk.Append(fm)
	for _, m := range fr.Replies {
		if err := pk.Append(m); err != nil {
			_ = pk.Append(&pb.NetMessageError{Code: protocol.Code(err), Text: err.Error()})
		}
	}
	av := g.Entity(v.avatar)
	if av == nil {
		return nil
	}
	center := av.Pos()
	cands := r.cands[av.Region()]
	self := uint64(v.avatar)
	aoi := r.cfg.AOI
	v.add, v.rem = v.add[:0], v.rem[:0]
	if !v.aoiValid || center.Sub(v.aoiCenter).Len() >= r.cfg.AOIMove || f >= v.aoiFrame+uint64(r.cfg.AOIRefresh) {
		v.add, v.rem = aoi.Update(center, self, v.visible, cands, v.add, v.rem)
		v.aoiCenter, v.aoiFrame, v.aoiValid = center, f, true
	} else {
		v.rem = intersectSorted(v.visible, r.destroyed, v.rem)
		// Between full recomputations adds may wait, but removes may not: a held
		// entity that moved (or that the avatar walked away from) beyond the remove
		// radius leaves the view this frame, so no client ever holds one outside it.
		// Positions come from the region's candidates (ascending ids, like visible):
		// each search starts where the last one ended, and most find their id
		// right there when the view holds most of the region.
		lo := 0
		for _, id := range v.visible {
			i := lo
			if i < len(cands) && cands[i].ID < id { // not the next candidate
				i, _ = searchCands(cands, i, id)
			}
			lo = i
			if i == len(cands) || cands[i].ID != id {
				continue // gone: a destroy, or the next recomputation
			}
			lo = i + 1
			if id != self && !aoi.Sees(center, cands[i].Pos, true) {
				v.rem = append(v.rem, id)
			}
		}
		for _, id := range r.created {
			e := g.Entity(sim.EntityID(id))
			if e != nil && e.Region() == av.Region() && (id == self || aoi.Sees(center, e.Pos(), false)) {
				if _, held := slices.BinarySearch(v.visible, id); !held {
					v.add = append(v.add, id)
				}
			}
		}
	}
	// Removes.
	for _, id := range v.rem {
		var b [12]byte
		m := &pb.NetMessageEntityDestroy{EntityId: id}
		payload, _ := proto.MarshalOptions{}.MarshalAppend(b[:0], m)
		if pk.AppendRaw(idDestroy, payload) != nil {
			v.aoiValid = false
			break
		}
		if i, ok := slices.BinarySearch(v.visible, id); ok {
			v.visible = slices.Delete(v.visible, i, i+1)
			if t := r.track(sim.EntityID(id)); t != nil {
				t.holders--
			}
		}
	}
	// Changes of entities held before this frame (appended after the adds).
	changes := r.changes[:0]
	defer func() { clear(changes); r.changes = changes[:0] }()
	vi := 0
	for _, t := range r.updates {
		id := uint64(t.id)
		for vi < len(v.visible) && v.visible[vi] < id {
			vi++
		}
		if vi == len(v.visible) {
			break
		}
		if v.visible[vi] != id {
			continue
		}
		if t.id == v.avatar {
			if t.ownChanged {
				r.own = r.appendLocoPayload(r.own[:0], &t.own, archive.Proximity|archive.Owner)
				if r.own != nil {
					changes = append(changes, r.own)
				}
			}
			continue
		}
		if t.shared {
			changes = append(changes, t.prox)
		}
	}
	// Adds.
	for _, id := range v.add {
		e := g.Entity(sim.EntityID(id))
		if e == nil {
			continue
		}
		own := id == self
		t := r.track(e.ID())
		r.startWalk(t, e, f)
		payload := r.creates[e.ID()]
		if own || payload == nil {
			var err error
			payload, err = packCreate(e, t, own)
			if err != nil {
				r.cfg.Logger.Error("pack entity", "entity", id, "err", err)
				continue
			}
			if !own {
				r.creates[e.ID()] = payload
			}
		}
		if pk.AppendRaw(idCreate, payload) != nil {
			v.aoiValid = false // the rest next frame
			break
		}
		i, _ := slices.BinarySearch(v.visible, id)
		v.visible = slices.Insert(v.visible, i, id)
		if t != nil {
			if t.holders > 0 && walkedCreate(e, t, own) && !t.walked.OnWire() {
				t.rejoin = true
			}
			t.holders++
		}
	}
	for _, p := range changes {
		if pk.AppendRaw(idLoco, p) != nil {
			return ErrPacketFull
		}
	}
	for _, res := range r.results {
		if v.sees(aoi, center, &res.r) {
			_ = pk.AppendRaw(idPower, res.payload)
		}
	}
	return nil
}

// sees reports whether a client sees a power result: it holds the source, the
// target or the projectile, or the result's point is in its view.
func (v *View) sees(aoi AOI, center mgl32.Vec2, pr *sim.PowerResult) bool {
	for _, id := range [...]sim.EntityID{pr.Source, pr.Target, pr.Projectile} {
		if _, ok := slices.BinarySearch(v.visible, uint64(id)); ok && id != 0 {
			return true
		}
	}
	return aoi.Sees(center, pr.Point, false)
}

var (
	idCreate  = mustID(&pb.NetMessageEntityCreate{})
	idDestroy = mustID(&pb.NetMessageEntityDestroy{})
	idLoco    = mustID(&pb.NetMessageLocomotionStateUpdate{})
	idPower   = mustID(&pb.NetMessagePowerResult{})
)

func mustID(m proto.Message) protocol.ID {
	id, ok := protocol.IDOf(m)
	if !ok {
		panic("replication: message without id")
	}
	return id
}

// appendLocoPayload appends st as a NetMessageLocomotionStateUpdate payload with
// policy pol to dst; it returns nil (and logs) when st cannot be packed.
func (r *Replicator) appendLocoPayload(dst []byte, st *locomotion.State, pol archive.Policy) []byte {
	a := &r.packer
	a.Reset(archive.Replication, pol)
	a.TransferObject(st)
	if a.Err() != nil {
		r.cfg.Logger.Error("pack locomotion", "entity", st.Entity, "err", a.Err())
		return nil
	}
	m := &r.loco
	m.ArchiveData = a.Bytes()
	dst, err := locoMarshal.MarshalAppend(dst, m)
	m.ArchiveData = nil
	if err != nil {
		return nil
	}
	return dst
}

// locoMarshal encodes locomotion updates as protocol.Marshal does.
var locoMarshal = proto.MarshalOptions{Deterministic: true}

// packCreate returns the NetMessageEntityCreate payload of e: its replication
// archive, with the Owner policy for a client's own avatar. For other clients a
// walking entity's state is its walked copy in t (what every client holding it
// has), not its own.
func packCreate(e *sim.Entity, t *tracked, own bool) ([]byte, error) {
	pol := e.Policy()
	if own {
		pol |= archive.Owner
	}
	a := archive.NewPacker(archive.Replication, pol)
	if walkedCreate(e, t, own) {
		t.walked.PackCreate(a, e)
	} else {
		a.TransferObject(e)
	}
	if err := a.Err(); err != nil {
		return nil, err
	}
	_, payload, err := protocol.Marshal(&pb.NetMessageEntityCreate{ArchiveData: a.Bytes()})
	return payload, err
}

// walkedCreate reports whether e's create for a client carries the walked copy in t
// rather than e's own state: for every client but the owner, when e is replicated by
// proximity (dead reckoning).
func walkedCreate(e *sim.Entity, t *tracked, own bool) bool {
	return !own && t != nil && e.Policy() == archive.Proximity
}

// searchCands returns the index of id in cands[lo:] (ascending ids) and whether it
// is there; otherwise the index where it would be. It gallops from lo (1, 2, 4 ...
// ahead) before it bisects: the callers look up ascending ids, usually a few
// candidates apart, so a search costs the log of the gap, not of the region.
func searchCands(cands []Candidate, lo int, id uint64) (int, bool) {
	hi, step := lo, 1
	for hi < len(cands) && cands[hi].ID < id {
		lo = hi + 1
		hi += step
		step <<= 1
	}
	hi = min(hi, len(cands))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cands[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(cands) && cands[lo].ID == id
}

// intersectSorted appends to dst the ids in both a and b (ascending).
func intersectSorted(a, b, dst []uint64) []uint64 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			dst = append(dst, a[i])
			i++
			j++
		}
	}
	return dst
}

// PackEntity returns the replication archive of e's create (sim.Entity.Serialize),
// with the Owner policy for the client's own avatar: the ArchiveData of a
// NetMessageEntityCreate.
func PackEntity(e *sim.Entity, own bool) ([]byte, error) {
	pol := e.Policy()
	if own {
		pol |= archive.Owner
	}
	a := archive.NewPacker(archive.Replication, pol)
	a.TransferObject(e)
	return a.Bytes(), a.Err()
}

// PackLocomotion returns the replication archive of a locomotion update: the
// ArchiveData of a NetMessageLocomotionStateUpdate.
func PackLocomotion(st *locomotion.State) ([]byte, error) {
	a := archive.NewPacker(archive.Replication, archive.Proximity)
	a.TransferObject(st)
	return a.Bytes(), a.Err()
}
