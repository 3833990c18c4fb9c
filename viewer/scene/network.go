package scene

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/navi"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/sim"
	"google.golang.org/protobuf/proto"
)

// Reconnection back-off of the networked source.
const (
	MinRedial = 500 * time.Millisecond
	MaxRedial = 8 * time.Second
	// DialTimeout bounds one connection attempt (dial, login, first region). It is
	// generous because in a browser the attempt shares one thread with the page: a
	// page starved of CPU (a loaded machine, a background tab) runs the login and the
	// navmesh build of the region in slices between its frames.
	DialTimeout = 30 * time.Second
)

// NetworkOptions configure a Network source.
type NetworkOptions struct {
	// URL is the server's websocket endpoint, e.g. ws://127.0.0.1:8080/ws.
	URL string
	// Name is the player name to log in with (default "viewer").
	Name string
	// DeityToken, when set, logs in as the deity (pause, step and resume the region).
	DeityToken string
	// Secret is the account's password or the token the server issued at the
	// name's first login. The source keeps a token it is issued and logs in
	// with it when it reconnects.
	Secret string
	// OnIssuedToken, if set, is called (in Update) with a token the server
	// issued, for the caller to keep for later sessions (the page's localStorage).
	OnIssuedToken func(token string)
	// Net is the initial simulated network condition, both ways (SetNet changes it).
	Net netsim.Conditions
	// NoXdump keeps the inspector from asking the server for entity rows (for servers
	// that do not answer xdump requests, such as test servers).
	NoXdump bool
}

// Network is the networked source: a client.Client connected to a server, with its
// replica's prediction and drift. It reconnects when the connection is lost.
type Network struct {
	opt     NetworkOptions
	c       *client.Client
	dialing bool
	results chan dialResult
	redial  time.Duration // back-off of the next attempt
	nextAt  time.Duration // clock time of the next attempt
	now     time.Duration
	cancel  context.CancelFunc

	gd     *GameDrawer
	views  []replica.View
	drifts []replica.DriftSample
	seenDF int // drift samples graphed from the current replica (its Compared count)
	powers []sim.PowerResult
	st     Status
	aoi    replica.AOI

	log        []LogEntry
	drift, rtt *Series
	in, out    *Series
	srvFrame   *Series // the server loop's frame durations
	srvLate    *Series // and start lateness
	graphs     []*Series
	fstats     []client.FrameStat
	nextStat   uint64 // the next server loop frame to graph
	srv        serverTimings
	replay     *netReplay // non-nil: showing a recorded frame instead of the live state
	fullGen    int        // the recording whose filling up was logged
	stats      client.Stats
	statsAt    time.Duration
	lastErr    string

	// What the reader goroutine hands over (OnMessage): the server's latest debug
	// draw (deity) and its error messages.
	mu        sync.Mutex
	serverDD  *pb.NetMessageDebugDraw
	serverErr []string
	xdNames   []string           // columns of the entity table (xdump meta entity)
	xdRows    map[uint64][]Field // the latest dumped row of inspected entities
	xdAsked   map[uint64]time.Duration
	rec       netRecording // everything received, for replay
}

// serverTimings are the server loop's figures the status reports.
type serverTimings struct {
	frameMS, lateMS float32
	dropped         uint64
	timed           int
}

// XdumpEvery is how often the inspector asks the server for the selected entity's row.
const XdumpEvery = 500 * time.Millisecond

type dialResult struct {
	c   *client.Client
	err error
}

var _ Source = (*Network)(nil)

// NewNetwork returns a source that connects to opt.URL at its first Update.
func NewNetwork(opt NetworkOptions) *Network {
	if opt.Name == "" {
		opt.Name = "viewer"
	}
	n := &Network{
		opt: opt, results: make(chan dialResult, 1), redial: MinRedial, aoi: replica.DefaultAOI,
		drift: NewSeries("drift", "m", GraphFrames),
		rtt:   NewSeries("rtt", "ms", GraphFrames),
		in:    NewSeries("in", "kB/s", GraphFrames),
		out:   NewSeries("out", "kB/s", GraphFrames),
		// One sample per server loop frame: 30 s, as the others.
		srvFrame: NewSeries("server frame", "ms", GraphFrames),
		srvLate:  NewSeries("server late", "ms", GraphFrames),
	}
	n.graphs = []*Series{n.drift, n.rtt, n.in, n.out, n.srvFrame, n.srvLate}
	n.st = Status{Mode: "network"}
	return n
}

// graphDrift graphs and logs the drift samples compared since the last call.
// Samples are counted, not keyed by frame: a frame can be compared twice (a
// rewind, a resync) and a new connection's replica counts from zero again.
func (n *Network) graphDrift(compared int) {
	if compared < n.seenDF {
		n.seenDF = 0
	}
	fresh := min(compared-n.seenDF, len(n.drifts))
	n.seenDF = compared
	for _, s := range n.drifts[len(n.drifts)-fresh:] {
		n.drift.Add(s.PosError)
		if s.Corrected {
			n.addLog(s.Frame, fmt.Sprintf("correction %.3f m after %d replayed frames", s.Correction, s.Replayed))
		}
	}
}

func (n *Network) addLog(frame uint64, text string) {
	if len(n.log) >= LogSize {
		k := copy(n.log, n.log[len(n.log)-LogSize/2:])
		n.log = n.log[:k]
	}
	n.log = append(n.log, LogEntry{Frame: frame, Text: text})
}

func (n *Network) dial() {
	n.dialing = true
	ctx, cancel := context.WithTimeout(context.Background(), DialTimeout)
	n.cancel = cancel
	up, down := n.opt.Net, n.opt.Net
	opt := &client.Options{Name: n.opt.Name, DeityToken: n.opt.DeityToken, Secret: n.opt.Secret, Up: &up, Down: &down, OnMessage: n.onMessage}
	deity := n.opt.DeityToken != ""
	n.mu.Lock()
	n.rec.restart() // before the new connection's first message
	n.mu.Unlock()
	go func() {
		defer cancel()
		c, err := client.Dial(ctx, n.opt.URL, opt)
		if err == nil {
			if err = c.WaitReady(ctx); err != nil {
				c.Close()
				c = nil
			} else if deity {
				// The deity sees the server's own sweeps and contacts (Sweeps overlay).
				c.DebugDraw(true)
			}
		}
		n.results <- dialResult{c, err}
	}()
}

// Update connects or reconnects as needed, advances the client's prediction and
// samples the graphs.
func (n *Network) Update(now time.Duration) error {
	n.now = now
	if n.c == nil && !n.dialing && now >= n.nextAt {
		n.dial()
	}
	select {
	case r := <-n.results:
		n.dialing = false
		if r.err != nil {
			n.lastErr = fmt.Sprintf("cannot connect to %s: %v (retrying in %v)", n.opt.URL, r.err, n.redial)
			n.addLog(0, n.lastErr)
			n.nextAt = now + n.redial
			n.redial = min(2*n.redial, MaxRedial)
		} else {
			n.c, n.redial, n.lastErr = r.c, MinRedial, ""
			if t := r.c.IssuedToken(); t != "" {
				n.opt.Secret = t
				n.addLog(0, "account created for "+n.opt.Name+": the server issued its token")
				if n.opt.OnIssuedToken != nil {
					n.opt.OnIssuedToken(t)
				}
			}
			n.stats, n.statsAt = client.Stats{}, now
			n.nextStat, n.srv = 0, serverTimings{}
			n.addLog(0, "connected to "+n.opt.URL)
		}
	default:
	}
	n.mu.Lock()
	for _, e := range n.serverErr {
		n.addLog(n.st.ServerFrame, e)
	}
	n.serverErr = n.serverErr[:0]
	n.mu.Unlock()
	if n.c == nil {
		n.st.Connected = false
		n.st.Error = n.lastErr
		n.showReplay()
		return nil
	}
	select {
	case <-n.c.Done():
		err := n.c.Err()
		n.c.Close()
		n.c = nil
		n.lastErr = fmt.Sprintf("connection lost: %v (reconnecting)", err)
		n.addLog(n.st.ServerFrame, n.lastErr)
		n.st.Connected, n.st.Error = false, n.lastErr
		n.nextAt = now + n.redial
		n.showReplay()
		return nil
	default:
	}
	if err := n.c.Update(); err != nil {
		n.lastErr = err.Error()
	}
	cnow := n.c.Now()
	n.c.With(func(r *replica.Replica) {
		if n.gd == nil && r.World() != nil {
			n.gd = NewGameDrawer(r.World())
		}
		n.views = r.View(cnow, n.views[:0])
		n.st = Status{
			Connected: true, Mode: "network", Frame: r.PredictedFrame(), ServerFrame: r.ServerFrame(),
			Entities: r.Len(), AvatarID: r.Player(), Paused: r.Paused(), Error: n.lastErr,
		}
		d := r.Drift()
		n.drifts = r.DriftLog(n.drifts[:0])
		n.graphDrift(d.Compared)
		if len(n.drifts) > 0 {
			n.st.Drift = n.drifts[len(n.drifts)-1].PosError
		}
		n.st.DriftMax, n.st.Corrections = d.MaxPosError, d.Corrections
		n.st.RTT = float32(r.Clock().RTT().Seconds() * 1000)
		n.rttSample(r.Clock().RTT())
		n.powers = r.TakePowerResults(n.powers[:0])
		for _, pr := range n.powers {
			n.addLog(pr.Frame, fmt.Sprintf("bolt %d hit %d at (%.2f, %.2f)", pr.Projectile, pr.Target, pr.Point[0], pr.Point[1]))
		}
		if err := r.ResyncReason(); err != nil {
			n.st.Error = "replica: " + err.Error()
		}
	})
	for _, v := range n.views {
		if v.Own {
			n.st.Avatar = [2]float32{v.Pos[0], v.Pos[1]}
			n.st.AvatarServer = [2]float32{v.Server.Position[0], v.Server.Position[1]}
			n.st.Moving = v.Moving
		}
	}
	n.serverStats()
	n.st.NetLatencyMS = float32(n.opt.Net.Latency.Seconds() * 1000)
	n.st.NetJitterMS = float32(n.opt.Net.Jitter.Seconds() * 1000)
	n.st.NetBandwidth = n.opt.Net.Bandwidth
	n.mu.Lock()
	n.st.RecordedFrom, n.st.Recorded = n.rec.span()
	full, gen := n.rec.full, n.rec.gen
	n.mu.Unlock()
	if full && n.fullGen != gen {
		n.fullGen = gen
		n.addLog(n.st.Recorded, fmt.Sprintf("recording full at frame %d: replay covers %d–%d", n.st.Recorded, n.st.RecordedFrom, n.st.Recorded))
	}
	n.showReplay()
	if now-n.statsAt >= time.Second {
		s := n.c.Stats()
		dt := float32((now - n.statsAt).Seconds())
		n.in.Add(float32(s.BytesIn-n.stats.BytesIn) / 1024 / dt)
		n.out.Add(float32(s.BytesOut-n.stats.BytesOut) / 1024 / dt)
		n.stats, n.statsAt = s, now
	}
	return nil
}

// serverStats graphs the server loop's frames timed since the last call.
func (n *Network) serverStats() {
	n.fstats, n.srv.dropped = n.c.ServerFrameStats(n.fstats[:0], n.nextStat)
	for _, f := range n.fstats {
		n.srvFrame.Add(float32(f.Duration.Seconds() * 1000))
		n.srvLate.Add(float32(f.Lateness.Seconds() * 1000))
		n.nextStat = f.Frame + 1
		n.srv.timed++
	}
	if len(n.fstats) > 0 {
		n.srv.frameMS, n.srv.lateMS = n.srvFrame.Last(), n.srvLate.Last()
	}
	n.st.ServerFrameMS, n.st.ServerLateMS, n.st.ServerFrameMaxMS = n.srv.frameMS, n.srv.lateMS, n.srvFrame.Max()
	n.st.ServerDropped, n.st.ServerTimed = n.srv.dropped, n.srv.timed
}

// showReplay puts the replayed frame in the status while replaying.
func (n *Network) showReplay() {
	if n.replay != nil {
		n.st = n.replayStatus(n.st)
	}
}

// shown returns the entities on screen: the replayed frame's or the live ones.
func (n *Network) shown() []replica.View {
	if n.replay != nil {
		return n.replay.views
	}
	return n.views
}

// withReplica runs fn with the replica on screen: the replay's, or the live client's
// under its lock. It does nothing before there is one.
func (n *Network) withReplica(fn func(r *replica.Replica)) {
	switch {
	case n.replay != nil:
		fn(n.replay.rep)
	case n.c != nil:
		n.c.With(fn)
	}
}

// onMessage runs on the client's reader goroutine.
func (n *Network) onMessage(m proto.Message) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.rec.record(m)
	switch m := m.(type) {
	case *pb.NetMessageDebugDraw:
		n.serverDD = m
	case *pb.NetMessageXDumpResponse:
		n.xdumpResponse(m)
	case *pb.NetMessageError:
		if len(n.serverErr) < 64 {
			n.serverErr = append(n.serverErr, fmt.Sprintf("server: %v %s", m.Code, m.Text))
		}
	}
}

// xdumpResponse keeps the entity table's columns or rows from a response (n.mu held).
func (n *Network) xdumpResponse(m *pb.NetMessageXDumpResponse) {
	if m.Error != "" {
		if len(n.serverErr) < 64 {
			n.serverErr = append(n.serverErr, "xdump: "+m.Error)
		}
		return
	}
	switch {
	case strings.HasPrefix(m.Text, "XDUMP meta entity "):
		n.xdNames = metaNames(m.Text)
	case strings.HasPrefix(m.Text, "XDUMP entity "):
		if n.xdRows == nil {
			n.xdRows = map[uint64][]Field{}
		}
		for _, line := range dataLines(m.Text) {
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if id, err := strconv.ParseUint(f[0], 10, 64); err == nil {
				n.xdRows[id] = rowFields(n.xdNames, line, "xdump ")
			}
		}
	}
}

// askXdump requests the entity's row (and the table's columns, once) every XdumpEvery.
func (n *Network) askXdump(id uint64) []Field {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.xdAsked == nil {
		n.xdAsked = map[uint64]time.Duration{}
	}
	if at, ok := n.xdAsked[id]; n.c != nil && !n.opt.NoXdump && (!ok || n.now-at >= XdumpEvery) {
		n.xdAsked[id] = n.now
		if n.xdNames == nil {
			n.c.Xdump("xdump meta entity")
		}
		n.c.Xdump("xdump entity " + strconv.FormatUint(id, 10))
	}
	return n.xdRows[id]
}

func (n *Network) rttSample(rtt time.Duration) {
	n.rtt.Add(float32(rtt.Seconds() * 1000))
}

// Status describes the connection and the replica.
func (n *Network) Status() Status { return n.st }

// Bounds returns the bounds of the replicated region (a placeholder before it arrives).
func (n *Network) Bounds() (min, max mgl32.Vec2) {
	if n.c != nil {
		n.c.With(func(r *replica.Replica) {
			if w := r.World(); w != nil {
				for _, reg := range w.Regions {
					if reg.ID == r.RegionID() {
						min, max = reg.Min, reg.Max
					}
				}
			}
		})
	}
	if max == min {
		return mgl32.Vec2{}, mgl32.Vec2{192, 192}
	}
	return min, max
}

// Draw draws the replicated region: the replica's navmesh and zones, the entities as
// the client shows them (interpolated, the own avatar predicted), and the prediction
// overlay: predicted against authoritative avatar with the error vector.
func (n *Network) Draw(d debugdraw.Drawer, ov Overlay, selected uint64) {
	if n.gd == nil {
		return
	}
	n.withReplica(func(r *replica.Replica) {
		g := r.Game()
		if g == nil {
			return
		}
		for _, reg := range g.Regions() {
			if ov&(Navmesh|Edges|Constraints) != 0 {
				navi.DebugDraw(d, reg.Mesh(), navi.DrawOptions{
					Triangles: ov.Has(Navmesh), Edges: ov.Has(Edges), Constraints: ov.Has(Constraints),
				})
			}
		}
		// The prediction game holds the props and the own avatar: its sweeps, path and
		// events are the client's own.
		sim.DebugDraw(d, g, sim.DrawOptions{
			Paths: ov.Has(Paths), Sweeps: ov.Has(Sweeps), Events: ov.Has(Events),
			Hotspots: ov.Has(Hotspots), Blackouts: ov.Has(Blackout), Spawns: ov.Has(Spawns), Region: -1,
		})
		if ov.Has(Props) {
			for _, e := range g.Entities() {
				if e.Owner() < 0 && e.Prototype() != sim.ProtoProjectile && uint64(e.ID()) != r.Player() {
					n.gd.drawEntity(d, e, true, ov.Has(Labels), false, uint64(e.ID()) == selected)
				}
			}
		}
	})
	if ov.Has(Sweeps) {
		n.mu.Lock()
		dd := n.serverDD
		if n.replay != nil {
			dd = n.replay.draw
		}
		if dd != nil {
			protocol.ReplayDraw(d, dd) // the server's sweeps and contacts (deity)
		}
		n.mu.Unlock()
	}
	views := n.shown()
	for i := range views {
		if v := &views[i]; v.ID == selected && ov.Has(Paths) {
			DrawCorridor(d, &v.Server, n.radius(v.Prototype), ov.Has(Labels))
		}
	}
	for i := range views {
		v := &views[i]
		if ov.Has(Entities) {
			n.drawView(d, v, ov, v.ID == selected)
		}
		if v.Own && ov.Has(Prediction) {
			auth := mgl32.Vec2{v.Server.Position[0], v.Server.Position[1]}
			DrawPrediction(d, v.Pos, auth, n.radius(v.Prototype))
		}
		if v.Own && ov.Has(AOI) {
			d.Circle(v.Pos, n.aoi.Add, ColorAOIAdd, false)
			d.Circle(v.Pos, n.aoi.Remove, ColorAOIRemove, false)
		}
	}
}

func (n *Network) radius(proto int32) float32 {
	if proto == sim.ProtoProjectile {
		return sim.BoltRadius
	}
	if n.gd != nil {
		for _, p := range n.protoRadii() {
			if p.id == proto {
				return p.r
			}
		}
	}
	return 0.5
}

type protoRadius struct {
	id int32
	r  float32
}

func (n *Network) protoRadii() []protoRadius {
	if n.gd.radii == nil {
		n.withReplica(func(r *replica.Replica) {
			if w := r.World(); w != nil {
				for _, p := range w.Prototypes {
					n.gd.radii = append(n.gd.radii, protoRadius{p.ID, p.Radius})
				}
			}
		})
	}
	return n.gd.radii
}

func (n *Network) drawView(d debugdraw.Drawer, v *replica.View, ov Overlay, selected bool) {
	c := sim.ColorBlocking
	switch {
	case v.Projectile:
		c = sim.ColorProjectile
	case v.Own:
		c = ColorAvatar
	case v.Held:
		c = sim.ColorNone
	}
	r := n.radius(v.Prototype)
	if v.Own || v.Projectile {
		d.Circle(v.Pos, r, c.WithAlpha(110), true)
	}
	d.Circle(v.Pos, r, c, false)
	if selected {
		d.Circle(v.Pos, r+0.35, sim.ColorSelected, false)
	}
	s, k := math.Sincos(float64(v.Yaw))
	d.Segment(v.Pos, mgl32.Vec2{v.Pos[0] + 1.6*r*float32(k), v.Pos[1] + 1.6*r*float32(s)}, c)
	if ov.Has(Paths) && v.Moving && !v.Own {
		prev := v.Pos
		for _, p := range v.Server.Path[min(int(v.Server.Goal), len(v.Server.Path)):] {
			q := mgl32.Vec2{p.Point[0], p.Point[1]}
			d.Segment(prev, q, sim.ColorPath)
			prev = q
		}
	}
	if ov.Has(Labels) {
		d.Text(mgl32.Vec2{v.Pos[0] + r, v.Pos[1] + r}, n.gd.viewLabel(v.ID, v.Prototype), ColorLabel)
	}
}

// Do sends a command to the server: moves and shots as the player; pause, step and
// resume as the deity (the server refuses them otherwise).
func (n *Network) Do(c Command) error {
	if done, err := n.doReplay(c); done {
		if err != nil {
			n.addLog(n.st.ServerFrame, err.Error())
		}
		return err
	}
	if n.c == nil {
		return fmt.Errorf("scene: not connected to %s", n.opt.URL)
	}
	var err error
	switch c.Kind {
	case MoveTo:
		err = n.c.MoveTo(c.Point)
	case Fire:
		err = n.c.Fire(c.Point)
	case Stop:
		err = n.c.Stop()
	case Pause:
		err = n.c.Pause()
	case Resume:
		err = n.c.Resume()
	case Step:
		err = n.c.Step(1)
	default:
		err = ErrCommand
	}
	if err != nil {
		n.addLog(n.st.ServerFrame, err.Error())
	}
	return err
}

// doReplay runs the commands that act on the recording: Seek replays a recorded
// frame; while replaying, Step shows the next one and Resume goes back to the live
// state. A player's Pause or Step freezes the view at the newest frame (only a
// deity pauses and steps the server). Moves and shots go back to the live state and then to the server.
func (n *Network) doReplay(c Command) (done bool, err error) {
	deity := n.opt.DeityToken != ""
	switch {
	case c.Kind == Seek:
		return true, n.seek(c.Frame)
	case c.Kind == Step && n.replay != nil:
		return true, n.stepReplay()
	case c.Kind == Resume && n.replay != nil:
		n.replay = nil
		n.addLog(n.st.ServerFrame, "live")
		return true, nil
	case (c.Kind == Pause || c.Kind == Step) && !deity:
		if n.replay == nil {
			return true, n.seek(math.MaxUint64)
		}
		return true, nil
	case c.Kind == Resume && !deity:
		return true, nil // live already; the server would refuse a player's resume
	case c.Kind == MoveTo || c.Kind == Fire || c.Kind == Stop:
		n.replay = nil
	}
	return false, nil
}

// SetNet changes the simulated network conditions of the connection (both ways) and of
// later connections.
func (n *Network) SetNet(c netsim.Conditions) error {
	if err := c.Validate(); err != nil {
		return err
	}
	n.opt.Net = c
	if n.c != nil {
		n.c.SetNet(c, c)
	}
	n.addLog(n.st.ServerFrame, "network: "+c.String())
	return nil
}

// Pick returns the entity nearest p within its radius plus half a metre.
func (n *Network) Pick(p mgl32.Vec2) uint64 {
	var best uint64
	bestD := float32(math.Inf(1))
	for _, v := range n.shown() {
		if d := v.Pos.Sub(p).Len(); d <= n.radius(v.Prototype)+0.5 && d < bestD {
			best, bestD = v.ID, d
		}
	}
	return best
}

// Inspect returns what the client knows of an entity: how it is drawn and the last
// authoritative locomotion state; for the own avatar, the drift statistics too; then
// its row of the server's entity table (xdump, refreshed every XdumpEvery; deity fields
// when logged in as the deity).
func (n *Network) Inspect(id uint64) []Field {
	for _, v := range n.shown() {
		if v.ID != id {
			continue
		}
		var xd []Field
		if n.replay == nil {
			xd = n.askXdump(id) // the live row: not the replayed frame's
		}
		s := v.Server
		f := []Field{
			{"id", strconv.FormatUint(v.ID, 10)},
			{"prototype", strconv.Itoa(int(v.Prototype))},
			{"prototype name", n.gd.ProtoName(v.Prototype)},
			{"owner", strconv.Itoa(int(v.Owner))},
			{"pos(0)", ftoa(v.Pos[0])}, {"pos(1)", ftoa(v.Pos[1])},
			{"yaw", ftoa(v.Yaw)},
			{"moving", strconv.FormatBool(v.Moving)},
			{"own (predicted)", strconv.FormatBool(v.Own)},
			{"extrapolated", strconv.FormatBool(v.Extrapolated)},
			{"held", strconv.FormatBool(v.Held)},
			{"server frame", strconv.FormatUint(s.Frame, 10)},
			{"server pos", fmt.Sprintf("(%s, %s)", ftoa(s.Position[0]), ftoa(s.Position[1]))},
			{"server yaw", ftoa(s.Yaw)},
			{"server speed", ftoa(s.Speed)},
			{"server path", fmt.Sprintf("%d nodes, goal %d", len(s.Path), s.Goal)},
		}
		if v.Own && n.c != nil && n.replay == nil {
			n.c.With(func(r *replica.Replica) {
				d := r.Drift()
				f = append(f,
					Field{"drift compared", strconv.Itoa(d.Compared)},
					Field{"drift corrections", strconv.Itoa(d.Corrections)},
					Field{"drift max error", ftoa(d.MaxPosError)},
					Field{"pending inputs", strconv.Itoa(r.PendingInputs())},
					Field{"rtt", r.Clock().RTT().String()})
				if len(n.drifts) > 0 {
					f = append(f, Field{"last comparison", n.drifts[len(n.drifts)-1].String()})
				}
			})
		}
		return append(f, xd...)
	}
	return nil
}

// Log returns connection events, corrections and power results, oldest first.
func (n *Network) Log() []LogEntry { return n.log }

// Graphs returns drift, RTT, bytes per second in and out, and the server loop's frame
// durations and lateness.
func (n *Network) Graphs() []*Series { return n.graphs }

// Close closes the connection and stops dialling.
func (n *Network) Close() error {
	if n.cancel != nil {
		n.cancel()
	}
	if n.c != nil {
		err := n.c.Close()
		n.c = nil
		return err
	}
	return nil
}
