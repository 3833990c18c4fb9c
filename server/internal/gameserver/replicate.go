package gameserver

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"github.com/twinframe/twinframe/shared/world"
	"google.golang.org/protobuf/proto"
)

// tracked is the replication state of one entity: what its owner and the other
// clients hold of its locomotion, and this frame's updates.
type tracked struct {
	id          sim.EntityID
	region      int32
	state       locomotion.State // last state sent to the owner (absolute)
	own         locomotion.State // this frame's update for the owner: the difference from state
	ownChanged  bool             // own goes to the owner this frame
	walked      replica.Remote   // what the other clients hold: the last update, walked
	upd         locomotion.State // this frame's correction of walked, for every other client
	prox        []byte           // upd as a NetMessageLocomotionStateUpdate payload, Proximity policy
	shared      bool             // upd goes to the clients other than the owner this frame
	sentCmd     uint64           // CommandFrame when upd was last shared
	sharedFrame uint64           // frame upd was last shared
	// holders counts the sessions holding the entity; walked is kept only while
	// some do. It may over-count (a session that ended is subtracted at the next
	// recount), never under-count.
	holders int
	// rejoin: a session started holding the entity while its walked copy was off
	// the wire's grid, so its create rounded the copy; the next update re-sends the
	// copy to every holder, after which all hold the same copy, bit for bit.
	rejoin    bool
	lastPos   mgl32.Vec2 // the entity's position when updateOthers last ran
	lastFrame uint64     // and the frame
}

// replBuffers are the replication step's buffers, reused across clients and
// frames so that a frame allocates nothing per client in the steady state.
type replBuffers struct {
	changes [][]byte                // one client's locomotion payloads
	own     []byte                  // the owner's update of one client's avatar
	creates map[sim.EntityID][]byte // create payloads shared between clients this frame
	packer  archive.Archive         // encodes each locomotion archive
	loco    pb.NetMessageLocomotionStateUpdate
	frame   pb.NetMessageServerFrame
}

// recountEvery is the period, in frames, of the exact recount of holders.
const recountEvery = 64

type encodedResult struct {
	r       sim.PowerResult
	payload []byte
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
		panic("gameserver: message without id")
	}
	return id
}

// replicate builds and queues every session's packet for the frame just run.
func (s *Server) replicate(stepped bool) {
	f := s.game.Frame()
	ents := s.game.Entities()
	// Created and destroyed since the last replication.
	s.curIDs = s.curIDs[:0]
	for _, e := range ents {
		s.curIDs = append(s.curIDs, uint64(e.ID()))
	}
	s.created, s.destroyed = diffSorted(s.prevIDs, s.curIDs, s.created[:0], s.destroyed[:0])
	s.prevIDs, s.curIDs = s.curIDs, s.prevIDs
	for _, id := range s.destroyed {
		if t := s.last[sim.EntityID(id)]; t != nil {
			s.addLost(world.Lost{ID: int64(id), Region: t.region, Timestamp: int64(f)})
			delete(s.last, sim.EntityID(id))
		}
	}
	// Each changed entity's update, computed once.
	s.updates = s.updates[:0]
	if f%recountEvery == 0 {
		s.recountHolders()
	}
	for k := range s.cands {
		s.cands[k] = s.cands[k][:0]
	}
	for _, e := range ents {
		s.cands[e.Region()] = append(s.cands[e.Region()], replica.Candidate{ID: uint64(e.ID()), Pos: e.Pos()})
		t := s.last[e.ID()]
		if t == nil {
			t = &tracked{id: e.ID(), region: e.Region()}
			e.LocomotionState(&t.state, f)
			s.last[e.ID()] = t
			continue
		}
		t.region = e.Region()
		if e.Policy()&archive.ClientIndependent != 0 {
			continue // the client simulates it from its create
		}
		held := t.holders > 0
		if max(e.ChangedFrame(), e.CommandFrame()) < s.replFrame && !(held && (t.walked.Walking() || t.rejoin)) {
			continue // neither the entity nor what the clients hold of it moved
		}
		e.LocomotionState(&s.scratch, f)
		s.updateOwner(t)
		t.shared = false
		if held {
			s.updateOthers(t, e, f)
		}
		if t.ownChanged || t.shared {
			s.updates = append(s.updates, t)
		}
	}
	s.replFrame = f
	s.results = s.results[:0]
	if stepped {
		for _, r := range s.game.PowerResults() {
			a := archive.NewPacker(archive.Replication, archive.Proximity)
			a.TransferObject(&r)
			if a.Err() != nil {
				s.log.Error("pack power result", "err", a.Err())
				continue
			}
			_, payload, err := protocol.Marshal(&pb.NetMessagePowerResult{ArchiveData: a.Bytes()})
			if err == nil {
				s.results = append(s.results, encodedResult{r, payload})
			}
		}
	}
	var draw *pb.NetMessageDebugDraw
	if s.rb.creates == nil {
		s.rb.creates = map[sim.EntityID][]byte{}
	}
	creates := s.rb.creates
	clear(creates)
	for _, c := range s.sessions {
		if c.closed() {
			continue
		}
		if c.draw && draw == nil {
			draw = s.debugDraw()
		}
		s.replicateTo(c, f, creates, draw)
	}
}

// updateOwner computes the owner's update of t from s.scratch, the entity's state
// this frame: every change of its quantized state, relative to the last one sent.
func (s *Server) updateOwner(t *tracked) {
	d := locomotion.Diff(&t.state, &s.scratch)
	t.ownChanged = d.Fields&^(locomotion.Relative|locomotion.Moving) != 0 ||
		d.Fields&locomotion.Moving != t.state.Fields&locomotion.Moving
	if !t.ownChanged {
		return
	}
	own := append(t.own.Path[:0], d.Path...) // d.Path is s.scratch's
	t.own = d
	t.own.Path = own
	path := append(t.state.Path[:0], s.scratch.Path...)
	t.state = s.scratch
	t.state.Path = path
}

// recountHolders sets every tracked entity's holders from the open sessions'
// views.
func (s *Server) recountHolders() {
	for _, t := range s.last {
		t.holders = 0
	}
	for _, c := range s.sessions {
		if c.closed() {
			continue
		}
		for _, id := range c.visible {
			if t := s.last[sim.EntityID(id)]; t != nil {
				t.holders++
			}
		}
	}
}

// startWalk starts the walked copy of t (e's) from e's state at frame f, unless
// some session holds it already: then the copy is what that session holds.
func (s *Server) startWalk(t *tracked, e *sim.Entity, f uint64) {
	if t == nil || t.holders > 0 {
		return
	}
	e.LocomotionState(&s.scratch, f)
	t.walked.Correction(&s.scratch, &t.upd, true)
	t.walked.Reset(&t.upd, f)
	t.sentCmd, t.sharedFrame = e.CommandFrame(), f
	t.holders, t.rejoin = 0, false
}

// updateOthers walks what the other clients hold of e to frame f and decides
// whether they need a correction: when the command changed, when the walked copy
// is off (by the tolerances, or at all with EveryFrameUpdates), or in its refresh
// slot while it moves. The correction is encoded once here and shared by every
// client that holds the entity.
func (s *Server) updateOthers(t *tracked, e *sim.Entity, f uint64) {
	t.walked.AdvanceTo(f)
	// An entity that moved less than a quarter of its step this frame is blocked
	// (by the locomotor's own measure): its clients hold it still rather than walk
	// it into what blocks it, until it moves again.
	cur := &s.scratch
	pos := mgl32.Vec2{cur.Position[0], cur.Position[1]}
	blocked := cur.Fields&locomotion.Moving != 0 && t.lastFrame+1 == f &&
		pos.Sub(t.lastPos).Len() < 0.25*cur.Speed*sim.FrameSeconds
	if blocked {
		cur.Fields &^= locomotion.Moving
	}
	t.lastPos, t.lastFrame = pos, f
	cmd := e.CommandFrame() != t.sentCmd
	posTol, yawTol := replica.WalkTolerance, replica.YawTolerance
	switch {
	case s.cfg.EveryFrameUpdates:
		posTol, yawTol = 0, 0
	case blocked:
		yawTol = math.Pi // the facing of a crawl along a wall is noise
	}
	moving := s.scratch.Fields&locomotion.Moving != 0 || t.walked.Walking()
	t.shared = cmd || t.rejoin || moving && f >= t.sharedFrame+s.cfg.RefreshFrames || t.walked.Off(&s.scratch, posTol, yawTol)
	if !t.shared {
		return
	}
	t.walked.Correction(&s.scratch, &t.upd, cmd)
	if err := t.walked.Apply(&t.upd); err != nil {
		// A non-finite state: the simulation never makes one; keep the clients'
		// copy as it is rather than send it.
		s.log.Error("correct locomotion", "entity", t.id, "err", err)
		t.shared = false
		return
	}
	t.sentCmd, t.sharedFrame, t.rejoin = e.CommandFrame(), f, false
	t.prox = s.appendLocoPayload(t.prox[:0], &t.upd, archive.Proximity)
	t.shared = t.prox != nil
}

// replicateTo builds and queues one session's packet.
func (s *Server) replicateTo(c *session, f uint64, creates map[sim.EntityID][]byte, draw *pb.NetMessageDebugDraw) {
	pk := &s.pk
	pk.Reset(protocol.MuxGame, protocol.CommandData)
	fm := &s.rb.frame
	fm.Frame, fm.LastInputSeq, fm.Paused = f, c.ack, s.paused
	_ = pk.Append(fm)
	for i, m := range c.replies {
		if err := pk.Append(m); err != nil {
			_ = pk.Append(&pb.NetMessageError{Code: protocol.Code(err), Text: err.Error()})
		}
		c.replies[i] = nil
	}
	c.replies = c.replies[:0]
	av := s.game.Entity(c.avatar)
	if av == nil {
		s.queue(c, pk)
		return
	}
	center := av.Pos()
	cands := s.cands[av.Region()]
	self := uint64(c.avatar)
	c.add, c.rem = c.add[:0], c.rem[:0]
	if !c.aoiValid || center.Sub(c.aoiCenter).Len() >= s.cfg.AOIMove || f >= c.aoiFrame+uint64(s.cfg.AOIRefresh) {
		c.add, c.rem = s.cfg.AOI.Update(center, self, c.visible, cands, c.add, c.rem)
		c.aoiCenter, c.aoiFrame, c.aoiValid = center, f, true
	} else {
		c.rem = intersectSorted(c.visible, s.destroyed, c.rem)
		// Between full recomputations adds may wait, but removes may not: a held
		// entity that moved (or that the avatar walked away from) beyond the remove
		// radius leaves the view this frame, so no client ever holds one outside it.
		// Positions come from the region's candidates (ascending ids, like visible):
		// each search starts where the last one ended, and most find their id
		// right there when the view holds most of the region.
		lo := 0
		for _, id := range c.visible {
			i := lo
			if i < len(cands) && cands[i].ID < id { // not the next candidate
				i, _ = searchCands(cands, i, id)
			}
			lo = i
			if i == len(cands) || cands[i].ID != id {
				continue // gone: a destroy, or the next recomputation
			}
			lo = i + 1
			if id != self && !s.cfg.AOI.Sees(center, cands[i].Pos, true) {
				c.rem = append(c.rem, id)
			}
		}
		for _, id := range s.created {
			e := s.game.Entity(sim.EntityID(id))
			if e != nil && e.Region() == av.Region() && (id == self || s.cfg.AOI.Sees(center, e.Pos(), false)) {
				if _, held := slices.BinarySearch(c.visible, id); !held {
					c.add = append(c.add, id)
				}
			}
		}
	}
	// Removes.
	for _, id := range c.rem {
		var b [12]byte
		m := &pb.NetMessageEntityDestroy{IdEntity: id}
		payload, _ := proto.MarshalOptions{}.MarshalAppend(b[:0], m)
		if pk.AppendRaw(idDestroy, payload) != nil {
			c.aoiValid = false
			break
		}
		if i, ok := slices.BinarySearch(c.visible, id); ok {
			c.visible = slices.Delete(c.visible, i, i+1)
			if t := s.last[sim.EntityID(id)]; t != nil {
				t.holders--
			}
		}
	}
	// Changes of entities held before this frame (appended after the adds).
	changes := s.rb.changes[:0]
	defer func() { clear(changes); s.rb.changes = changes[:0] }()
	vi := 0
	for _, t := range s.updates {
		id := uint64(t.id)
		for vi < len(c.visible) && c.visible[vi] < id {
			vi++
		}
		if vi == len(c.visible) {
			break
		}
		if c.visible[vi] != id {
			continue
		}
		if t.id == c.avatar {
			if t.ownChanged {
				s.rb.own = s.appendLocoPayload(s.rb.own[:0], &t.own, archive.Proximity|archive.Owner)
				if s.rb.own != nil {
					changes = append(changes, s.rb.own)
				}
			}
			continue
		}
		if t.shared {
			changes = append(changes, t.prox)
		}
	}
	// Adds.
	for _, id := range c.add {
		e := s.game.Entity(sim.EntityID(id))
		if e == nil {
			continue
		}
		own := id == self
		t := s.last[e.ID()]
		s.startWalk(t, e, f)
		payload := creates[e.ID()]
		if own || payload == nil {
			var err error
			payload, err = packCreate(e, t, own)
			if err != nil {
				s.log.Error("pack entity", "entity", id, "err", err)
				continue
			}
			if !own {
				creates[e.ID()] = payload
			}
		}
		if pk.AppendRaw(idCreate, payload) != nil {
			c.aoiValid = false // the rest next frame
			break
		}
		i, _ := slices.BinarySearch(c.visible, id)
		c.visible = slices.Insert(c.visible, i, id)
		if t != nil {
			if t.holders > 0 && walkedCreate(e, t, own) && !t.walked.OnWire() {
				t.rejoin = true
			}
			t.holders++
		}
	}
	for _, p := range changes {
		if pk.AppendRaw(idLoco, p) != nil {
			c.fail(pb.ErrorCode_ERROR_CODE_INTERNAL, "frame packet over its size limit")
			return
		}
	}
	for _, r := range s.results {
		if s.resultVisible(c, center, &r.r) {
			_ = pk.AppendRaw(idPower, r.payload)
		}
	}
	if draw != nil && c.draw {
		_ = pk.Append(draw)
	}
	s.queue(c, pk)
}

func (s *Server) resultVisible(c *session, center [2]float32, r *sim.PowerResult) bool {
	for _, id := range [...]sim.EntityID{r.Source, r.Target, r.Projectile} {
		if _, ok := slices.BinarySearch(c.visible, uint64(id)); ok && id != 0 {
			return true
		}
	}
	return s.cfg.AOI.Sees(center, r.Point, false)
}

// appendLocoPayload appends st as a NetMessageLocomotionStateUpdate payload with
// policy pol to dst; it returns nil (and logs) when st cannot be packed.
func (s *Server) appendLocoPayload(dst []byte, st *locomotion.State, pol archive.Policy) []byte {
	a := &s.rb.packer
	a.Reset(archive.Replication, pol)
	a.TransferObject(st)
	if a.Err() != nil {
		s.log.Error("pack locomotion", "entity", st.Entity, "err", a.Err())
		return nil
	}
	m := &s.rb.loco
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

// debugDraw records the sweeps of the frame just stepped.
func (s *Server) debugDraw() *pb.NetMessageDebugDraw {
	f := s.game.Frame()
	var r protocol.DrawRecorder
	sweep := debugdraw.RGBA(51, 153, 255, 255)
	hit := debugdraw.RGBA(255, 51, 51, 255)
	for _, e := range s.game.Entities() {
		sw, ok := e.LastSweep()
		if !ok || sw.Frame != f {
			continue
		}
		r.Segment(sw.Start, sw.End, sweep)
		r.Circle(sw.End, sw.Radius, sweep, false)
		if sw.Hit {
			r.Point(sw.Point, 6, hit)
			r.Segment(sw.Point, sw.Point.Add(sw.Normal), hit)
		}
	}
	if r.Msg == nil {
		r.Msg = &pb.NetMessageDebugDraw{}
	}
	r.Msg.Frame = f
	return r.Msg
}

func (s *Server) addLost(l world.Lost) {
	const maxLost = 4096
	if len(s.lost) >= maxLost {
		s.lost = slices.Delete(s.lost, 0, len(s.lost)-maxLost+1)
	}
	s.lost = append(s.lost, l)
}

// diffSorted appends to created the ids in cur but not prev, and to destroyed
// those in prev but not cur (both inputs ascending).
func diffSorted(prev, cur, created, destroyed []uint64) ([]uint64, []uint64) {
	i, j := 0, 0
	for i < len(prev) || j < len(cur) {
		switch {
		case j == len(cur) || i < len(prev) && prev[i] < cur[j]:
			destroyed = append(destroyed, prev[i])
			i++
		case i == len(prev) || cur[j] < prev[i]:
			created = append(created, cur[j])
			j++
		default:
			i++
			j++
		}
	}
	return created, destroyed
}

// searchCands returns the index of id in cands[lo:] (ascending ids) and whether it
// is there; otherwise the index where it would be. It gallops from lo (1, 2, 4 ...
// ahead) before it bisects: the callers look up ascending ids, usually a few
// candidates apart, so a search costs the log of the gap, not of the region.
func searchCands(cands []replica.Candidate, lo int, id uint64) (int, bool) {
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
