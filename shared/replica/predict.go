package replica

import (
	"fmt"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
	"google.golang.org/protobuf/proto"
)

// input is one command of the player, kept until the server acknowledges it.
type input struct {
	seq   uint32
	frame uint64 // the frame it is predicted to apply in
	stamp uint64 // the client frame it carries
	cmd   sim.Command
	point mgl32.Vec2
}

// predState is the predicted avatar after a frame.
type predState struct {
	frame   uint64 // 0: empty
	st      locomotion.State
	contact bool // the avatar touched another entity in the frame's step
}

// predictor runs the own avatar ahead of the server in a private game.
type predictor struct {
	opt    *Options
	game   *sim.Game
	local  sim.EntityID // the avatar in game (0: none)
	id     uint64       // its server id
	proto  int32
	region int32
	owner  int32

	frame      uint64 // newest predicted frame
	reconciled uint64 // newest server frame compared
	ring       []predState
	inputs     []input // unacknowledged, ascending seq
	seq        uint32  // last sequence number handed out; survives resets

	within int // consecutive frames with a disagreement within the tolerance

	offset mgl32.Vec2 // smoothing: what is drawn minus what is simulated
	yawOff float32

	packer   *archive.Archive
	unpacker *archive.Archive
	rewind   locomotion.State // what correct rewinds to
	blockers []blocker        // remote entities standing in the game, ascending server id
	scratch  []blocker
	doomed   []sim.EntityID
}

func (p *predictor) init(opt *Options) {
	seq := p.seq
	*p = predictor{opt: opt, seq: seq, ring: make([]predState, opt.History)}
}

func (p *predictor) reset(g *sim.Game) {
	p.init(p.opt)
	p.game = g
}

// travel restarts prediction in g, the game of the region the avatar travelled
// to, keeping the inputs the server has not acknowledged (ack): it received them
// after the handoff, or will, and applies them there.
func (p *predictor) travel(g *sim.Game, ack uint32) {
	var keep []input
	for _, in := range p.inputs {
		if in.seq > ack {
			keep = append(keep, in)
		}
	}
	p.reset(g)
	p.inputs = append(p.inputs, keep...)
}

func (p *predictor) active() bool { return p.local != 0 }

func (p *predictor) drop() {
	if p.local != 0 && p.game != nil {
		_ = p.game.Destroy(p.local) // the avatar may already be gone; nothing to undo
	}
	p.syncBlockers(nil, 0)
	g := p.game
	p.reset(g)
}

func (p *predictor) at(f uint64) *predState { return &p.ring[f%uint64(len(p.ring))] }

// spawn creates the avatar in the prediction game with the server's state at frame.
func (p *predictor) spawn(e *entity, frame uint64) error {
	if p.local != 0 {
		p.drop()
	}
	if p.game == nil {
		return ErrNoRegion
	}
	if e.projectile {
		return fmt.Errorf("the player entity is a projectile")
	}
	id, err := p.game.Spawn(e.proto, e.region, mgl32.Vec2{e.state().Position[0], e.state().Position[1]}, e.state().Yaw)
	if err != nil {
		return err
	}
	p.local, p.id, p.proto, p.region, p.owner = id, e.id, e.proto, e.region, e.owner
	if err := p.set(e.state()); err != nil {
		p.drop()
		return err
	}
	p.rebase(frame)
	return nil
}

// set puts the server's state into the simulated avatar, through the entity's own
// replication archive (Entity.Serialize), so that every field the server sends is
// taken exactly as the simulation would take it from a create.
func (p *predictor) set(st *locomotion.State) error {
	e := p.game.Entity(p.local)
	if e == nil {
		return fmt.Errorf("prediction avatar %d is gone", p.local)
	}
	if p.packer == nil {
		p.packer = archive.NewPacker(archive.Replication, archive.Owner)
	} else {
		p.packer.Reset(archive.Replication, archive.Owner)
	}
	a := p.packer
	writeEntityHeader(a, uint64(p.local), p.proto, p.region, p.owner)
	a.TransferObject(st)
	notProjectile := false
	a.TransferBool(&notProjectile)
	if err := a.Err(); err != nil {
		return err
	}
	if p.unpacker == nil {
		u, err := archive.NewUnpacker(archive.Replication, a.Bytes())
		if err != nil {
			return err
		}
		p.unpacker = u
	} else if err := p.unpacker.ResetUnpacker(archive.Replication, a.Bytes()); err != nil {
		return err
	}
	p.unpacker.TransferObject(e)
	return p.unpacker.Done()
}

// writeEntityHeader writes what sim.Entity.Serialize writes before the locomotion
// state in Replication mode: id, prototype, region, owner.
func writeEntityHeader(a *archive.Archive, id uint64, proto, region, owner int32) {
	a.TransferUint64(&id)
	a.TransferInt32(&proto)
	a.TransferInt32(&region)
	a.TransferInt32(&owner)
}

// rebase restarts prediction at frame from the avatar's current simulated state.
func (p *predictor) rebase(frame uint64) {
	clear(p.ring)
	p.frame = frame
	p.reconciled = frame
	p.record(frame)
	for i := range p.inputs {
		p.inputs[i].frame = max(p.inputs[i].frame, frame+1)
	}
}

func (p *predictor) record(f uint64) {
	ps := p.at(f)
	ps.frame, ps.contact = f, false
	if e := p.game.Entity(p.local); e != nil {
		e.LocomotionState(&ps.st, f)
		ps.st.Entity = p.id
	}
}

// step predicts frame p.frame+1: the inputs stamped with it, then one game step.
func (p *predictor) step() {
	f := p.frame + 1
	for _, in := range p.inputs {
		if in.frame != f {
			continue
		}
		// Enqueue refuses only what can never apply (checked when the input was made).
		_ = p.game.Enqueue(sim.Input{Entity: p.local, Command: in.cmd, Point: in.point, ClientFrame: in.stamp})
	}
	_ = p.game.Step() // an error means only that scripted events were capped
	p.removeProjectiles()
	p.frame = f
	p.record(f)
	for _, ev := range p.game.Events() {
		if ev.Kind == sim.OnCollide && ev.B != 0 && (ev.A == p.local || ev.B == p.local) {
			p.at(f).contact = true
		}
	}
}

// removeProjectiles destroys the bolts the avatar fired: the server replicates the
// real ones; prediction needs only the shooter's turn.
func (p *predictor) removeProjectiles() {
	p.doomed = p.doomed[:0]
	for _, e := range p.game.Entities() {
		if e.Prototype() == sim.ProtoProjectile {
			p.doomed = append(p.doomed, e.ID())
		}
	}
	for _, id := range p.doomed {
		_ = p.game.Destroy(id)
	}
}

func (p *predictor) pos(f uint64) (mgl32.Vec2, float32, bool) {
	ps := p.at(f)
	if ps.frame != f || f == 0 && p.frame != 0 {
		return mgl32.Vec2{}, 0, false
	}
	return mgl32.Vec2{ps.st.Position[0], ps.st.Position[1]}, ps.st.Yaw, true
}

// Advance predicts the own avatar up to the frame the clock says the client should
// be at, at most MaxCatchUp frames per call, and returns the number of frames
// predicted. Prediction waits while the server is paused or the client is ahead.
func (r *Replica) Advance(now time.Duration) int {
	p := &r.pred
	if !p.active() || r.paused || !r.clock.Started() {
		return 0
	}
	target := uint64(max(r.clock.TargetFrame(now), 0))
	if target <= p.frame {
		return 0
	}
	if target-p.frame > uint64(len(p.ring)/2) || p.frame+1 < r.frame {
		// Too far behind to catch up in steps: restart from the server's state.
		if own := r.entity(r.player); own != nil && p.set(own.state()) == nil {
			p.rebase(r.frame)
			r.stats.Rebases++
		}
	}
	// Never run further ahead of the newest server frame than the ring can reconcile.
	limit := r.frame + uint64(len(p.ring)) - 2
	if p.frame < target && p.frame < limit {
		p.syncBlockers(r.ents, r.player)
	}
	n := 0
	for p.frame < target && p.frame < limit && n < r.opt.MaxCatchUp {
		p.step()
		p.decay(r.opt.Smoothing)
		n++
	}
	return n
}

func (p *predictor) decay(k float32) {
	p.offset = mgl32.Vec2{float32(p.offset[0] * k), float32(p.offset[1] * k)}
	p.yawOff = float32(p.yawOff * k)
	if p.offset[0]*p.offset[0]+p.offset[1]*p.offset[1] < 1e-6 {
		p.offset = mgl32.Vec2{}
	}
	if p.yawOff > -1e-4 && p.yawOff < 1e-4 {
		p.yawOff = 0
	}
}

// PredictedFrame returns the newest predicted frame (0 without an avatar).
func (r *Replica) PredictedFrame() uint64 { return r.pred.frame }

// Predicted returns the prediction for frame f while the history holds it: the
// own avatar's exact (unquantized) state after that frame (after reconciliation,
// once the server's frame f has arrived), and whether the avatar touched another
// entity in the frame's step. For checks that compare it with the server's own.
func (r *Replica) Predicted(f uint64) (st locomotion.State, contact, ok bool) {
	p := &r.pred
	ps := p.at(f)
	if !p.active() || ps.frame != f || f > p.frame {
		return locomotion.State{}, false, false
	}
	st = ps.st
	st.Path = append([]locomotion.PathNode(nil), st.Path...)
	return st, ps.contact, true
}

// IsProjectile reports whether the replica holds entity id and it is a
// projectile (which the server sends once, at its creation; see View).
func (r *Replica) IsProjectile(id uint64) bool {
	e := r.entity(id)
	return e != nil && e.projectile
}

// PendingInputs returns the number of inputs the server has not acknowledged.
func (r *Replica) PendingInputs() int { return len(r.pred.inputs) }

// LastInputSeq returns the sequence number of the last input made.
func (r *Replica) LastInputSeq() uint32 { return r.pred.seq }

// Ready reports whether the replica has an avatar to control.
func (r *Replica) Ready() bool { return r.pred.active() }

// newInput makes input number seq+1 at target pt (zero when the input has none):
// msg builds its message, and the replica predicts the simulation input the server
// makes of that message (replication.DecodeInput), so the two cannot differ.
func newInput[M proto.Message](r *Replica, now time.Duration, pt mgl32.Vec2, msg func(seq uint32, stamp uint64) M) (M, error) {
	var none M
	p := &r.pred
	if !p.active() {
		return none, ErrNotReady
	}
	if !geom.Finite(pt[0]) || !geom.Finite(pt[1]) {
		return none, ErrNotFinite
	}
	if len(p.inputs) >= r.opt.MaxPendingInputs {
		return none, ErrTooManyInputs
	}
	r.Advance(now)
	p.seq++
	m := msg(p.seq, p.frame+1)
	d, ok := replication.DecodeInput(m)
	if !ok {
		return none, fmt.Errorf("replica: %T is not an input", m)
	}
	p.inputs = append(p.inputs, input{seq: p.seq, frame: p.frame + 1, stamp: p.frame + 1, cmd: d.Sim.Command, point: d.Sim.Point})
	return m, nil
}

// MoveTo makes an input that walks the avatar to target: it is predicted from the
// next frame on; send the returned message to the server.
func (r *Replica) MoveTo(now time.Duration, target mgl32.Vec2) (*pb.NetMessageMoveTo, error) {
	return newInput(r, now, target, func(seq uint32, stamp uint64) *pb.NetMessageMoveTo {
		return replication.MoveTo(seq, stamp, target)
	})
}

// Stop makes an input that stops the avatar.
func (r *Replica) Stop(now time.Duration) (*pb.NetMessageStop, error) {
	return newInput(r, now, mgl32.Vec2{}, replication.Stop)
}

// Fire makes an input that fires a bolt at target. Prediction turns the avatar; the
// bolt itself is the server's (it replicates it).
func (r *Replica) Fire(now time.Duration, target mgl32.Vec2) (*pb.NetMessageFire, error) {
	return newInput(r, now, target, func(seq uint32, stamp uint64) *pb.NetMessageFire {
		return replication.Fire(seq, stamp, target)
	})
}

// Ping makes a ping carrying now; the pong feeds the clock estimate.
func (r *Replica) Ping(now time.Duration) *pb.NetMessagePing {
	return &pb.NetMessagePing{ClientTimeMicros: uint64(max(now, 0) / time.Microsecond), ClientFrame: r.pred.frame}
}

// reconcile compares the avatar's authoritative state for the frame just received
// with its prediction, and rewinds and replays on a mismatch.
func (r *Replica) reconcile(now time.Duration, own *entity) {
	p := &r.pred
	f := r.frame
	// Acknowledged inputs leave the buffer.
	n := 0
	for _, in := range p.inputs {
		if in.seq <= r.lastAck {
			if in.stamp < f {
				r.stats.LateInputs++
			}
			continue
		}
		p.inputs[n] = in
		n++
	}
	p.inputs = p.inputs[:n]
	if f < p.reconciled {
		return // compared already
	}
	// Inputs the server has not applied by f will apply after it at the earliest.
	for i := range p.inputs {
		p.inputs[i].frame = max(p.inputs[i].frame, f+1)
	}
	ps := p.at(f)
	if f > p.frame || ps.frame != f {
		// No prediction for f: the client is behind the server (or was far ahead).
		if err := p.set(own.state()); err != nil {
			r.fail(nil, own.id, ErrBadArchive, err.Error())
			return
		}
		p.rebase(f)
		r.stats.Rebases++
		return
	}
	p.reconciled = f
	s := compare(&ps.st, own.state())
	s.Frame, s.At = f, now
	s.AfterTravel = r.travelled && f <= r.travelFrame+TravelWindow
	resting := (ps.st.Fields|own.state().Fields)&locomotion.Moving == 0
	if s.Fields == 0 || !resting {
		p.within = 0
	}
	if s.Fields != 0 && resting {
		p.within++
	}
	if s.Fields != 0 && (p.within > r.opt.Persist || r.mustCorrect(&ps.st, own.state(), s.Fields)) {
		p.within = 0
		r.correct(own, &s)
	}
	r.drift.add(s)
}

// mustCorrect reports whether a disagreement is beyond the tolerance.
func (r *Replica) mustCorrect(pred, auth *locomotion.State, fields FieldMask) bool {
	if fields&^(1<<FieldPosition|1<<FieldYaw) != 0 {
		return true
	}
	tol := int64(r.opt.PositionTolerance)
	for k := range 2 {
		if d := units(pred.Position[k], auth.Position[k], locomotion.PositionPrecision); d > tol || d < -tol {
			return true
		}
	}
	d := units(pred.Yaw, auth.Yaw, locomotion.YawPrecision)
	if full := int64(archive.FixedFromFloat(2*math.Pi, locomotion.YawPrecision)); d > full/2 || d < -full/2 {
		d = full - max(d, -d) // the short way round
	}
	tol = int64(r.opt.YawTolerance)
	return d > tol || d < -tol
}

// correct rewinds the avatar to the server's state for the frame received and
// replays the newer predicted frames with the unacknowledged inputs.
func (r *Replica) correct(own *entity, s *DriftSample) {
	p := &r.pred
	f := r.frame
	before, beforeYaw, _ := p.pos(p.frame)
	newest := p.frame
	rewindTo(&p.rewind, &p.at(f).st, own.state())
	if err := p.game.SetLocomotion(p.local, &p.rewind); err != nil {
		r.fail(nil, own.id, ErrBadArchive, err.Error())
		return
	}
	contact := p.at(f).contact // what the mispredicted step ran into
	p.frame = f
	p.record(f)
	p.at(f).contact = contact
	p.syncBlockers(r.ents, r.player)
	for p.frame < newest {
		p.step()
		s.Replayed++
	}
	after, afterYaw, _ := p.pos(p.frame)
	d := before.Sub(after)
	s.Corrected = true
	s.Correction = float32(mgl32.Vec2{d[0], d[1]}.Len())
	if s.Correction > r.opt.SnapDistance || r.opt.Smoothing == 0 {
		p.offset, p.yawOff = mgl32.Vec2{}, 0
		return
	}
	p.offset = p.offset.Add(d)
	p.yawOff = geom.WrapAngle(p.yawOff + geom.WrapAngle(beforeYaw-afterYaw))
}

// rewindTo fills dst with the state a correction rewinds to: the server's state for
// the frame, except that each value whose prediction quantizes to what the server
// sent keeps the prediction's exact value. The wire carries the avatar on a grid
// (1/8 m, 1/64 rad); the server simulates off it. Rewinding a correct prediction's
// values onto the grid would start the replay up to a quantum away from the server,
// and at a wall, a path corner or a stop a quantum decides where the avatar goes and
// which way it faces (an avatar jittering against a wall vertex reverses its yaw
// every frame: the replay from the grid ran in the opposite phase, ≈ π off).
//
// A point (the position, a path node) that does not match its counterpart may
// match another predicted point: an avatar that arrived a frame before or after
// its prediction stands on, or walks to, the goal the prediction walks to or
// stands on (a server avatar at rest is first tried on the predicted path's end).
// Only a point that matches none takes the server's grid value.
func rewindTo(dst, pred, auth *locomotion.State) {
	path := dst.Path[:0]
	*dst = *auth
	dst.Path = append(path, auth.Path...)
	same := pred.Position
	if auth.Fields&locomotion.Moving == 0 && pred.Fields&locomotion.Moving != 0 && len(pred.Path) > 0 {
		// The server's avatar has stopped where the prediction was still
		// walking: most likely it arrived, a frame early, at the path's end.
		same = pred.Path[len(pred.Path)-1].Point
	}
	dst.Position = rewindPoint(auth.Position, same, pred)
	dst.Yaw = keep(pred.Yaw, auth.Yaw, locomotion.YawPrecision)
	dst.Speed = keep(pred.Speed, auth.Speed, locomotion.SpeedPrecision)
	for i := range dst.Path {
		same := auth.Path[i].Point // no counterpart: only another predicted point can match
		if i < len(pred.Path) {
			same = pred.Path[i].Point
		}
		dst.Path[i].Point = rewindPoint(auth.Path[i].Point, same, pred)
	}
}

// rewindPoint returns the predicted point that quantizes to auth: same (its
// counterpart) if it does, else the predicted position or path node that does,
// else same's coordinates that agree with auth's and auth's grid values for the
// others.
func rewindPoint(auth, same mgl32.Vec3, pred *locomotion.State) mgl32.Vec3 {
	q := quantize3(auth)
	if same != auth && quantize3(same) == q {
		return same
	}
	if quantize3(pred.Position) == q {
		return pred.Position
	}
	for _, n := range pred.Path {
		if quantize3(n.Point) == q {
			return n.Point
		}
	}
	var out mgl32.Vec3
	for k := range 3 {
		out[k] = keep(same[k], auth[k], locomotion.PositionPrecision)
	}
	return out
}

func quantize3(v mgl32.Vec3) [3]int32 {
	p := locomotion.PositionPrecision
	return [3]int32{archive.FixedFromFloat(v[0], p), archive.FixedFromFloat(v[1], p), archive.FixedFromFloat(v[2], p)}
}

// keep returns pred when it quantizes to auth at precision p (the server's exact
// value may be pred), else auth: on the grid, where spawn points, stops at a
// configured point and the quantized state the client started from are exact.
func keep(pred, auth float32, p int) float32 {
	if archive.FixedFromFloat(pred, p) == archive.FixedFromFloat(auth, p) {
		return pred
	}
	return auth
}

// blocker is a remote entity standing in the prediction game.
type blocker struct {
	server uint64
	local  sim.EntityID
}

// blockerRange is how far from the avatar remote entities stand in the prediction
// game: farther than the avatar and a remote entity can close in the frames
// prediction runs ahead (6 m/s and 2.5 m/s for 8 frames is 3.4 m, plus radii).
const blockerRange = 8

// syncBlockers puts the remote entities that can block the avatar (blocking,
// not static: the world's props are in the game already; not projectiles) within
// blockerRange into the prediction game, where the server last said they are,
// standing still: at zero latency a bump into a resting NPC or avatar is then
// predicted to within the wire's quantization, where the avatar used to walk
// through it and be corrected. A moving one is where it was at the newest
// server frame, a frame or a few behind where the server has it; still a better
// guess than nowhere. ents must be ascending by id (nil removes every blocker).
func (p *predictor) syncBlockers(ents []*entity, self uint64) {
	if p.game == nil {
		p.blockers = p.blockers[:0]
		return
	}
	own := p.game.Entity(p.local)
	next := p.scratch[:0]
	old := p.blockers
	for _, e := range ents {
		for len(old) > 0 && old[0].server < e.id {
			_ = p.game.Destroy(old[0].local) // gone from the replica
			old = old[1:]
		}
		var b blocker
		if len(old) > 0 && old[0].server == e.id {
			b, old = old[0], old[1:]
		}
		pos := mgl32.Vec2{e.state().Position[0], e.state().Position[1]}
		if own == nil || e.id == self || e.projectile || !p.blocks(e.proto) || pos.Sub(own.Pos()).Len() > blockerRange {
			if b.local != 0 {
				_ = p.game.Destroy(b.local)
			}
			continue
		}
		if b.local == 0 {
			id, err := p.game.Spawn(e.proto, e.region, pos, e.state().Yaw)
			if err != nil {
				continue // no room where the server has it: the avatar cannot get there either
			}
			_ = p.game.SetSpeed(id, 0) // it must not wander off in the prediction
			b = blocker{server: e.id, local: id}
		}
		st := locomotion.State{Position: e.state().Position, Yaw: e.state().Yaw}
		if err := p.game.SetLocomotion(b.local, &st); err != nil {
			_ = p.game.Destroy(b.local)
			continue
		}
		next = append(next, b)
	}
	for _, b := range old {
		_ = p.game.Destroy(b.local)
	}
	p.scratch, p.blockers = p.blockers[:0], next
}

// blocks reports whether entities of prototype proto can stop the avatar and are
// not in the prediction game already.
func (p *predictor) blocks(proto int32) bool {
	w := p.game.World()
	for i := range w.Prototypes {
		if pr := &w.Prototypes[i]; pr.ID == proto {
			return pr.Collision == world.Blocking && pr.Flags&world.FlagStatic == 0
		}
	}
	return false
}
