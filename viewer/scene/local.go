package scene

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
	"github.com/twinframe/twinframe/shared/world"
	"github.com/twinframe/twinframe/shared/xdump"
	"google.golang.org/protobuf/proto"
)

// Frame timing of the local simulation.
const (
	frameDuration = sim.FrameMillis * time.Millisecond
	// maxCatchUp is the most frames one Update steps; a longer backlog is dropped.
	maxCatchUp = 8
	// logSize is how many events the log keeps.
	logSize = 200
	// graphFrames is how many frames the graphs keep (30 s).
	graphFrames = 30 * sim.FrameRate
)

// LocalOptions configure a Local source.
type LocalOptions struct {
	// Seed seeds the simulation (0 is a valid seed).
	Seed uint64
	// World is the world to simulate; nil loads the embedded default world.
	World *world.World
	// NoAvatar leaves the avatar out (benchmarks).
	NoAvatar bool
	// NoPopulation turns population top-up off.
	NoPopulation bool
}

// local is the sandbox source: it runs the simulation in-process, with the user's
// avatar, and no server. Like the server it runs one game per region, all stepped
// every frame (so that their frames agree), and hands the avatar off to the target
// region's game when it enters a portal; the view shows the avatar's region.
type local struct {
	w       *world.World
	games   []*sim.Game // one per region, in the world's order
	g       *sim.Game   // the avatar's region's: the one shown
	gd      *gameDrawer
	avatar  sim.EntityID
	travels int

	started   bool
	paused    bool
	base      time.Duration // clock time at which frame baseFrame was due
	baseFrame uint64
	now       time.Duration

	log     eventLog
	tl      timeline
	fromReg string // the region the avatar left in the last step ("": none)
	stepMS  *Series
	lateMS  *Series
	drift   *Series
	graphs  []*Series
	lastErr string

	inspect  *world.World // holds one entity row for xdump
	buf      bytes.Buffer
	corridor locomotion.State // the selected entity's path, for drawing

	// The recording: the user's commands by the frame they were issued at, snapshots
	// every keyframeEvery frames, and the furthest frame reached. The simulation is
	// deterministic, so these replay the session exactly.
	simOpt  sim.Options
	rec     []recorded
	keys    []keyframe
	recEnd  uint64
	seeking bool
}

// keyframeEvery is how many frames apart the recording keeps snapshots to seek from.
const keyframeEvery = 100

type recorded struct {
	frame uint64 // the frame the game was at: the command applies before the next Step
	cmd   Command
}

type keyframe struct {
	frame   uint64
	data    [][]byte // each region's snapshot, in the world's order
	shown   int      // the index of the avatar's region
	travels int
}

var _ Source = (*local)(nil)

// NewLocal returns the sandbox source: the simulation runs in-process, with the user's
// avatar spawned at the first spawn marker, and no server.
func NewLocal(opt LocalOptions) (Source, error) {
	l, err := newLocal(opt)
	if err != nil {
		return nil, err // not a nil *local in a non-nil Source
	}
	return l, nil
}

func newLocal(opt LocalOptions) (*local, error) {
	w := opt.World
	if w == nil {
		var err error
		if w, err = world.LoadDefault(); err != nil {
			return nil, err
		}
	}
	simOpt := sim.Options{Seed: opt.Seed, NoPopulation: opt.NoPopulation}
	var games []*sim.Game
	for i := range w.Regions {
		g, err := sim.New(w, regionOptions(simOpt, w.Regions[i].ID))
		if err != nil {
			return nil, err
		}
		games = append(games, g)
	}
	if len(games) == 0 {
		return nil, errors.New("scene: the world has no region")
	}
	l := &local{
		w: w, games: games, g: games[0], gd: newGameDrawer(w), inspect: world.New(),
		stepMS: newSeries("step", "ms", graphFrames),
		lateMS: newSeries("lateness", "ms", graphFrames),
		drift:  newSeries("drift", "m", graphFrames),
	}
	l.graphs = []*Series{l.drift, l.stepMS, l.lateMS}
	l.simOpt = simOpt
	if !opt.NoAvatar {
		if err := l.spawnAvatar(); err != nil {
			return nil, err
		}
	}
	l.keyframe()
	return l, nil
}

// regionOptions returns the options of region id's game: opt with the region and
// its seed (sim.RegionSeed, as the server seeds it).
func regionOptions(opt sim.Options, id int32) *sim.Options {
	opt.Region, opt.Seed = id, sim.RegionSeed(opt.Seed, id)
	return &opt
}

func (l *local) spawnAvatar() error {
	proto := int32(-1)
	for _, p := range l.w.Prototypes {
		if p.Flags&world.FlagPlayer != 0 {
			proto = p.ID
			break
		}
	}
	if proto < 0 {
		return errors.New("scene: the world has no player prototype")
	}
	regions := l.g.Regions()
	if len(regions) == 0 {
		return errors.New("scene: the world has no region")
	}
	r := regions[0]
	at := r.Mesh().Bounds()
	pos := at.Min.Add(at.Max).Mul(0.5)
	if sp := r.SpawnPoints(); len(sp) > 0 {
		pos = sp[0]
	}
	id, err := l.g.Spawn(proto, r.ID(), pos, 0)
	if err != nil {
		return fmt.Errorf("scene: spawning the avatar: %w", err)
	}
	// The sandbox's player owns its avatar, as a logged-in player does: it takes portals.
	if err := l.g.SetOwner(id, 0); err != nil {
		return err
	}
	l.avatar = id
	return nil
}

// travel hands the avatar off when it entered a portal in the last step: packed
// from its game (Emigrate), unpacked into the target region's (Immigrate), the
// same entity, as the server does.
func (l *local) travel() error {
	for _, d := range l.g.Departures() {
		if d.Entity != l.avatar {
			continue
		}
		to := l.regionIndex(d.Region)
		if to < 0 {
			return fmt.Errorf("scene: travel to region %d: no such region", d.Region)
		}
		b, err := l.g.Emigrate(l.avatar)
		if err != nil {
			return fmt.Errorf("scene: travel: %w", err)
		}
		if _, err := l.games[to].Immigrate(b, d.Marker); err != nil {
			return fmt.Errorf("scene: travel to region %d: %w", d.Region, err)
		}
		from := l.g
		l.g = l.games[to]
		l.travels++
		if !l.seeking {
			l.gd.flashes = l.gd.flashes[:0]
			l.log.travelled(from.Home().Name(), l.g.Home().Name(), l.g.Frame())
			l.fromReg = from.Home().Name()
		}
		return nil
	}
	return nil
}

func (l *local) regionIndex(id int32) int {
	for i, g := range l.games {
		if g.Home().ID() == id {
			return i
		}
	}
	return -1
}

// Game returns the simulated game. Use it from the viewer's goroutine only.
func (l *local) Game() *sim.Game { return l.g }

// Update steps the frames that are due at now: one per 50 ms since the clock started,
// at most maxCatchUp per call (the rest of a backlog is dropped).
func (l *local) Update(now time.Duration) error {
	l.now = now
	if !l.started {
		l.started, l.base, l.baseFrame = true, now, l.g.Frame()
		return nil
	}
	if l.paused {
		return nil
	}
	due := l.baseFrame + uint64(max(now-l.base, 0)/frameDuration)
	n := 0
	for l.g.Frame() < due && n < maxCatchUp {
		late := now - l.base - time.Duration(l.g.Frame()+1-l.baseFrame)*frameDuration
		if err := l.step(late); err != nil {
			return err
		}
		n++
	}
	if l.g.Frame() < due { // too far behind: drop the backlog
		l.base, l.baseFrame = now, l.g.Frame()
	}
	return nil
}

func (l *local) keyframe() {
	f := l.g.Frame()
	if n := len(l.keys); n > 0 && l.keys[n-1].frame >= f {
		return
	}
	k := keyframe{frame: f, travels: l.travels}
	for i, g := range l.games {
		data, err := g.Snapshot()
		if err != nil {
			l.addLog("recording: " + err.Error())
			return
		}
		k.data = append(k.data, data)
		if g == l.g {
			k.shown = i
		}
	}
	l.keys = append(l.keys, k)
}

// replayInputs applies the recorded commands issued at the current frame, when the game
// is behind the recording's end.
func (l *local) replayInputs() {
	f := l.g.Frame()
	if f >= l.recEnd {
		return
	}
	for _, r := range l.rec {
		if r.frame == f {
			l.apply(r.cmd)
		}
	}
}

func (l *local) step(late time.Duration) error {
	l.replayInputs()
	t0 := time.Now()
	var err error
	for _, g := range l.games {
		if e := g.Step(); e != nil && err == nil {
			err = e
		}
	}
	if e := l.travel(); e != nil && err == nil {
		err = e
	}
	if f := l.g.Frame(); f > l.recEnd {
		l.recEnd = f
	}
	if l.g.Frame()%keyframeEvery == 0 {
		l.keyframe()
	}
	if l.seeking {
		return nil
	}
	l.stepMS.Add(float32(time.Since(t0).Seconds() * 1000))
	l.lateMS.Add(float32(max(late, 0).Seconds() * 1000))
	l.drift.Add(0) // the sandbox predicts nothing: no drift
	l.gd.Observe(l.g)
	l.logEvents()
	l.timelineStep()
	if err != nil {
		l.lastErr = err.Error()
		l.addLog(err.Error())
	}
	return nil
}

func (l *local) addLog(text string) { l.log.add(l.g.Frame(), text) }

func (l *local) who(id sim.EntityID) string {
	if id == 0 {
		return "wall"
	}
	if e := l.g.Entity(id); e != nil {
		return l.gd.label(e)
	}
	return "#" + strconv.FormatUint(uint64(id), 10)
}

func (l *local) logEvents() {
	for _, ev := range l.g.Events() {
		switch ev.Kind {
		case sim.OnCollide:
			l.addLog(fmt.Sprintf("collide %s → %s at (%.2f, %.2f) n=(%.2f, %.2f)",
				l.who(ev.A), l.who(ev.B), ev.Point[0], ev.Point[1], ev.Normal[0], ev.Normal[1]))
		case sim.OnOverlapBegin, sim.OnOverlapEnd:
			l.addLog(fmt.Sprintf("%v %s / %s", ev.Kind, l.who(ev.A), l.who(ev.B)))
		case sim.OnHotspotEnter, sim.OnHotspotLeave:
			l.addLog(fmt.Sprintf("%v %s hotspot %d", ev.Kind, l.who(ev.A), ev.Marker))
		}
	}
	for _, r := range l.g.PowerResults() {
		l.addLog(fmt.Sprintf("bolt %d of %s hit %s at (%.2f, %.2f) damage %d",
			r.Projectile, l.who(r.Source), l.who(r.Target), r.Point[0], r.Point[1], r.Damage))
	}
	for _, r := range l.g.Rejected() {
		l.addLog(fmt.Sprintf("rejected input for %s: %v", l.who(r.Input.Entity), r.Err))
	}
}

// Status describes the sandbox.
func (l *local) Status() Status {
	st := Status{
		Connected: true, Mode: "local", Frame: l.g.Frame(), ServerFrame: l.g.Frame(),
		Entities: len(l.g.Entities()), Paused: l.paused, Error: l.lastErr, Recorded: l.recEnd,
		Region: l.g.Home().Name(), RegionID: l.g.Home().ID(), RegionChanges: l.travels,
	}
	if a := l.g.Entity(l.avatar); a != nil {
		st.AvatarID = uint64(a.ID())
		st.Avatar = [2]float32{a.Pos()[0], a.Pos()[1]}
		st.Moving = a.Mode() != sim.Idle
	}
	return st
}

// Bounds returns the bounds of the region shown (the one the avatar is in).
func (l *local) Bounds() (min, max mgl32.Vec2) {
	id := l.g.Home().ID()
	for _, r := range l.w.Regions {
		if r.ID == id {
			return r.Min, r.Max
		}
	}
	return mgl32.Vec2{}, mgl32.Vec2{1, 1}
}

// Draw draws the game, and the path corridor of the selected entity.
func (l *local) Draw(d debugdraw.Drawer, ov Overlay, selected uint64) {
	if e := l.g.Entity(sim.EntityID(selected)); e != nil && ov.Has(ovPaths) {
		e.LocomotionState(&l.corridor, l.g.Frame())
		drawCorridor(d, &l.corridor, e.Radius(), ov.Has(ovLabels))
	}
	l.gd.Draw(d, l.g, ov, uint64(l.avatar), selected)
}

// apply applies a move, shot or stop of the avatar.
func (l *local) apply(c Command) error {
	if l.g.Entity(l.avatar) == nil {
		return errNoAvatar
	}
	// The sandbox's player sends what a client sends, and the game gets what the
	// server would make of it (shared/replication), so the sandbox plays by the
	// server's rules.
	var m proto.Message
	f := l.g.Frame()
	switch c.Kind {
	case cmdMoveTo:
		m = replication.MoveTo(0, f, c.Point)
	case cmdFire:
		m = replication.Fire(0, f, c.Point)
	case cmdStop:
		m = replication.Stop(0, f)
	default:
		return nil
	}
	in, _ := replication.DecodeInput(m)
	in.Sim.Entity = l.avatar
	return l.g.Enqueue(in.Sim)
}

// Recorded returns the furthest frame of the recording: Seek reaches any frame up to it.
func (l *local) Recorded() uint64 { return l.recEnd }

// Seek replays the recording to frame (at most Recorded) from the nearest snapshot
// before it and pauses there. A command given in the past discards the recording after
// it.
func (l *local) Seek(frame uint64) error {
	frame = min(frame, l.recEnd)
	k := 0
	for i, kf := range l.keys {
		if kf.frame <= frame {
			k = i
		}
	}
	if len(l.keys) == 0 {
		return errors.New("scene: nothing recorded")
	}
	games := make([]*sim.Game, len(l.games))
	for i, data := range l.keys[k].data {
		g, err := sim.Restore(l.w, data, regionOptions(l.simOpt, l.w.Regions[i].ID))
		if err != nil {
			return fmt.Errorf("scene: seek: %w", err)
		}
		games[i] = g
	}
	l.games, l.g, l.travels = games, games[l.keys[k].shown], l.keys[k].travels
	l.gd.flashes = l.gd.flashes[:0]
	l.seeking = true
	for l.g.Frame() < frame {
		l.step(0)
	}
	l.seeking = false
	l.paused = true
	return nil
}

// Do runs a command. Moves and shots are queued as if from a client (they apply at the
// start of the next frame) and recorded; Step runs one frame at once; Seek replays the
// recording to Command.Frame.
func (l *local) Do(c Command) error {
	var err error
	switch c.Kind {
	case cmdMoveTo, cmdFire, cmdStop:
		if f := l.g.Frame(); f < l.recEnd { // acting in the past: a new future
			keep := l.rec[:0]
			for _, r := range l.rec {
				if r.frame < f {
					keep = append(keep, r)
				}
			}
			l.rec, l.recEnd = keep, f
			l.tl.truncate(f)
			for len(l.keys) > 1 && l.keys[len(l.keys)-1].frame > f {
				l.keys = l.keys[:len(l.keys)-1]
			}
		}
		if err = l.apply(c); err == nil {
			l.rec = append(l.rec, recorded{l.g.Frame(), c})
		}
	case cmdSeek:
		err = l.Seek(c.Frame)
	case Pause:
		l.paused = true
	case Resume:
		if l.paused {
			l.paused = false
			l.base, l.baseFrame = l.now, l.g.Frame()
		}
	case Step:
		l.paused = true
		err = l.step(0)
	default:
		err = errCommand
	}
	if err != nil {
		l.addLog(err.Error())
	}
	return err
}

// Pick returns the entity nearest to p whose disc (grown by half a metre) holds p;
// props come after everything else.
func (l *local) Pick(p mgl32.Vec2) uint64 {
	var best uint64
	bestD, bestProp := float32(math.Inf(1)), true
	for _, e := range l.g.Entities() {
		d := e.Pos().Sub(p).Len()
		if d > e.Radius()+0.5 {
			continue
		}
		prop := e.Flags()&world.FlagProp != 0
		if (bestProp && !prop) || (prop == bestProp && d < bestD) {
			best, bestD, bestProp = uint64(e.ID()), d, prop
		}
	}
	return best
}

// Inspect returns the entity's row of the xdump table entity (deity view), then the
// simulation's own fields.
func (l *local) Inspect(id uint64) []Field {
	e := l.g.Entity(sim.EntityID(id))
	if e == nil {
		return nil
	}
	fields := l.xdumpRow(e)
	path, next := e.Path()
	fields = append(fields,
		Field{"prototype name", l.gd.ProtoName(e.Prototype())},
		Field{"collision", e.Collision().String()},
		Field{"radius", ftoa(e.Radius())},
		Field{"speed", ftoa(e.Speed())},
		Field{"mode", e.Mode().String()},
		Field{"path", fmt.Sprintf("%d corners, next %d", len(path), next)},
		Field{"created frame", strconv.FormatUint(e.CreatedFrame(), 10)},
		Field{"changed frame", strconv.FormatUint(e.ChangedFrame(), 10)},
		Field{"command frame", strconv.FormatUint(e.CommandFrame(), 10)},
		Field{"policy", fmt.Sprintf("%#x", uint64(e.Policy()))},
	)
	if s, ok := e.LastSweep(); ok {
		v := fmt.Sprintf("frame %d (%.2f,%.2f)→(%.2f,%.2f)", s.Frame, s.Start[0], s.Start[1], s.End[0], s.End[1])
		if s.Hit {
			v += fmt.Sprintf(" hit %s at (%.2f,%.2f) n=(%.2f,%.2f)", l.who(s.Other), s.Point[0], s.Point[1], s.Normal[0], s.Normal[1])
		}
		fields = append(fields, Field{"last sweep", v})
	}
	return fields
}

// xdumpRow dumps e as a row of the world's entity table through the xdump machinery,
// pairing the meta table's field names with the row's values.
func (l *local) xdumpRow(e *sim.Entity) []Field {
	row := world.Entity{
		ID: int64(e.ID()), Prototype: e.Prototype(), Region: e.Region(), Pos: e.Pos(), Yaw: e.Yaw(),
		Owner: e.Owner(), Timestamp: int64(e.ChangedFrame()),
	}
	if path, _ := e.Path(); e.Mode() != sim.Idle {
		row.State |= world.StateMoving
		s, k := math.Sincos(float64(e.Yaw()))
		row.Vel = mgl32.Vec2{e.Speed() * float32(k), e.Speed() * float32(s)}
		if len(path) > 0 {
			row.Goal = path[len(path)-1]
		}
	}
	if e.Flags()&world.FlagStatic != 0 {
		row.State |= world.StateStatic
	}
	l.inspect.State.Entities = append(l.inspect.State.Entities[:0], row)
	l.inspect.Frame = int64(l.g.Frame())
	deity := xdump.Viewer{Deity: true}
	l.buf.Reset()
	if err := l.inspect.Xdump(&l.buf, "xdump meta entity", deity); err != nil {
		return []Field{{"xdump", err.Error()}}
	}
	names := metaNames(l.buf.String())
	l.buf.Reset()
	if err := l.inspect.Xdump(&l.buf, "xdump entity *", deity); err != nil {
		return []Field{{"xdump", err.Error()}}
	}
	var out []Field
	for _, line := range dataLines(l.buf.String()) {
		out = append(out, rowFields(names, line, "")...)
	}
	return out
}

// Log returns the event log, oldest first.
func (l *local) Log() []LogEntry { return l.log.entries }

// Graphs returns drift (always 0 in the sandbox), step cost and lateness.
func (l *local) Graphs() []*Series { return l.graphs }

// Close does nothing.
func (l *local) Close() error { return nil }
