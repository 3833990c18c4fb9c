package scene

import (
	"fmt"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication"
	"github.com/twinframe/twinframe/shared/sim"
	"google.golang.org/protobuf/proto"
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

// network is the networked source: a client.Client connected to a server, with its
// replica's prediction and drift. It reconnects when the connection is lost.
// It is made of one part per job: the connection (dial, redial, the client), the
// network conditions it simulates, the recording of the session and its replay, the
// drawing, the graphs, and what the client's reader hands over (the inbox and the
// inspector's xdump rows).
type network struct {
	conn    connection
	net     netConditions
	rec     recorder
	drawing netDrawing
	graphs  netGraphs
	inbox   inbox
	xdump   xdumpRows
	log     eventLog
	tl      timeline
	// corrected is the server frame of the last correction in the timeline.
	corrected uint64
	deity     deityReplies

	now     time.Duration
	views   []replica.View // the live entities as the client shows them
	powers  []sim.PowerResult
	changes []replica.RegionChange
	st      Status
	sim     time.Duration // the client's prediction in the last Update (the page's frame split)
}

var _ Source = (*network)(nil)

// NewNetwork returns the networked source: a client of the server at opt.URL, which
// it connects to at its first Update and reconnects to when the connection is lost,
// with its replica's prediction and drift, and a recording of the session to replay.
func NewNetwork(opt NetworkOptions) Source { return newNetwork(opt) }

func newNetwork(opt NetworkOptions) *network {
	if opt.Name == "" {
		opt.Name = "viewer"
	}
	n := &network{
		net:     netConditions{opt.Net},
		drawing: netDrawing{aoi: replication.DefaultAOI},
		graphs:  newNetGraphs(),
		xdump:   xdumpRows{off: opt.NoXdump},
		st:      Status{Mode: "network"},
	}
	n.conn = connection{
		url: opt.URL, name: opt.Name, deityToken: opt.DeityToken, secret: opt.Secret,
		onIssuedToken: opt.OnIssuedToken, onMessage: n.onMessage, onDial: n.rec.restart, log: &n.log,
		results: make(chan dialResult, 1), redial: minRedial,
	}
	return n
}

// Update connects or reconnects as needed, advances the client's prediction and
// samples the graphs.
func (n *network) Update(now time.Duration) error {
	n.now, n.sim = now, 0
	if n.conn.poll(now, n.net.c) {
		n.graphs.connected(now)
	}
	n.inbox.logErrors(&n.log, n.st.ServerFrame)
	if n.conn.c == nil || n.conn.lost(now, n.st.ServerFrame) {
		n.st.Connected, n.st.Error = false, n.conn.lastErr
		n.st = n.rec.status(n.st)
		n.deity.report(&n.st, n.conn.deity())
		return nil
	}
	c := n.conn.c
	start := time.Now()
	if err := c.Update(); err != nil {
		n.conn.lastErr = err.Error()
	}
	n.sim = time.Since(start)
	cnow := c.Now()
	c.With(func(r *replica.Replica) {
		n.drawing.setWorld(r.World())
		n.views = r.View(cnow, n.views[:0])
		n.st = Status{
			Connected: true, Mode: "network", Frame: r.PredictedFrame(), ServerFrame: r.ServerFrame(),
			Entities: r.Len(), AvatarID: r.Player(), Paused: r.Paused(), Error: n.conn.lastErr,
		}
		d := r.Drift()
		n.graphs.drifts = r.DriftLog(n.graphs.drifts[:0])
		n.graphs.graphDrift(d.Compared, &n.log)
		if drifts := n.graphs.drifts; len(drifts) > 0 {
			n.st.Drift = drifts[len(drifts)-1].PosError
		}
		n.st.DriftMax, n.st.Corrections = d.MaxPosError, d.Corrections
		n.st.RegionID, n.st.Region, n.st.RegionNode = r.RegionID(), r.RegionName(r.RegionID()), r.RegionNode()
		n.st.RegionChanges, n.st.CorrectionsAfterTravel = r.Stats().RegionChanges, d.CorrectionsAfterTravel
		n.changes = r.TakeRegionChanges(n.changes[:0])
		for _, ch := range n.changes {
			if ch.Travel {
				n.log.travelled(r.RegionName(ch.From), r.RegionName(ch.To), ch.Frame)
			}
		}
		n.graphs.world = r.World() // never changed once loaded: read outside the lock
		n.st.RTT = float32(r.Clock().RTT().Seconds() * 1000)
		n.graphs.rtt.Add(n.st.RTT)
		n.powers = r.TakePowerResults(n.powers[:0])
		for _, pr := range n.powers {
			n.log.add(pr.Frame, fmt.Sprintf("bolt %d hit %d at (%.2f, %.2f)", pr.Projectile, pr.Target, pr.Point[0], pr.Point[1]))
		}
		n.clientRows(r)
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
	n.graphs.serverStats(c, &n.st)
	n.net.report(&n.st)
	n.rec.report(&n.st, &n.log)
	n.st = n.rec.status(n.st)
	n.deity.report(&n.st, n.conn.deity())
	n.graphs.traffic(now, c)
	return nil
}

func (n *network) simTime() time.Duration { return n.sim }

// shown returns the entities on screen: the replayed frame's or the live ones.
func (n *network) shown() []replica.View {
	if n.rec.replay != nil {
		return n.rec.replay.views
	}
	return n.views
}

// withReplica runs fn with the replica on screen: the replay's, or the live client's
// under its lock. It does nothing before there is one.
func (n *network) withReplica(fn func(r *replica.Replica)) {
	switch {
	case n.rec.replay != nil:
		fn(n.rec.replay.rep)
	case n.conn.c != nil:
		n.conn.c.With(fn)
	}
}

// onMessage runs on the client's reader goroutine.
func (n *network) onMessage(m proto.Message) {
	n.rec.record(m)
	if text, ok := n.deity.answer(m); ok {
		n.inbox.addError("deity: " + text)
		return
	}
	switch m := m.(type) {
	case *pb.NetMessageDebugDraw:
		n.inbox.setDraw(m)
		events, contacts, err := n.tl.serverEvents(m)
		if events > 0 {
			n.inbox.addError(fmt.Sprintf("server: %d events of frame %d beyond the timeline's cap", events, m.Frame))
		}
		if contacts > 0 {
			n.inbox.addError(fmt.Sprintf("server: %d contacts of frame %d beyond the explanations' cap", contacts, m.Frame))
		}
		if err != nil {
			n.inbox.addError(fmt.Sprintf("server: frame %d: %v", m.Frame, err))
		}
	case *pb.NetMessageXDumpResponse:
		if err := n.xdump.answer(m); err != "" {
			n.inbox.addError("xdump: " + err)
		}
	case *pb.NetMessageError:
		n.inbox.addError(fmt.Sprintf("server: %v %s", m.Code, m.Text))
	}
}

// Status describes the connection and the replica.
func (n *network) Status() Status { return n.st }

// Bounds returns the bounds of the replicated region (a placeholder before it arrives).
func (n *network) Bounds() (min, max mgl32.Vec2) {
	if n.conn.c != nil {
		n.conn.c.With(func(r *replica.Replica) {
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
func (n *network) Draw(d debugdraw.Drawer, ov Overlay, selected uint64) {
	if !n.drawing.ready() {
		return
	}
	n.withReplica(func(r *replica.Replica) { n.drawing.drawGame(d, r, ov, selected) })
	if ov.Has(ovSweeps) {
		dd := n.inbox.draw()
		if n.rec.replay != nil {
			dd = n.rec.replay.draw
		}
		if dd != nil {
			protocol.ReplayDraw(d, dd) // the server's sweeps and contacts (deity)
		}
	}
	n.drawing.drawViews(d, n.shown(), ov, selected)
}

// Do sends a command to the server: moves and shots as the player; pause, step and
// resume as the deity (the server refuses them otherwise).
func (n *network) Do(c Command) error {
	if done, err := n.doReplay(c); done {
		if err != nil {
			n.log.add(n.st.ServerFrame, err.Error())
		}
		return err
	}
	cl := n.conn.c
	if cl == nil {
		return fmt.Errorf("scene: not connected to %s", n.conn.url)
	}
	var err error
	switch c.Kind {
	case cmdMoveTo:
		err = cl.MoveTo(c.Point)
	case cmdFire:
		err = cl.Fire(c.Point)
	case cmdStop:
		err = cl.Stop()
	case Pause:
		err = cl.Pause()
	case Resume:
		err = cl.Resume()
	case Step:
		err = cl.Step(1)
	default:
		err = errCommand
	}
	if err != nil {
		n.log.add(n.st.ServerFrame, err.Error())
	}
	return err
}

// doReplay runs the commands that act on the recording: Seek replays a recorded
// frame; while replaying, Step shows the next one and Resume goes back to the live
// state. A player's Pause or Step freezes the view at the newest frame (only a
// deity pauses and steps the server). Moves and shots go back to the live state and then to the server.
func (n *network) doReplay(c Command) (done bool, err error) {
	deity := n.conn.deity()
	replaying := n.rec.replay != nil
	switch {
	case c.Kind == cmdSeek:
		return true, n.rec.seek(c.Frame, &n.log)
	case c.Kind == Step && replaying:
		return true, n.rec.step(&n.log)
	case c.Kind == Resume && replaying:
		n.rec.replay = nil
		n.log.add(n.st.ServerFrame, "live")
		return true, nil
	case (c.Kind == Pause || c.Kind == Step) && !deity:
		if !replaying {
			return true, n.rec.seek(math.MaxUint64, &n.log)
		}
		return true, nil
	case c.Kind == Resume && !deity:
		return true, nil // live already; the server would refuse a player's resume
	case c.Kind == cmdMoveTo || c.Kind == cmdFire || c.Kind == cmdStop:
		n.rec.replay = nil
	}
	return false, nil
}

// SetNet changes the simulated network conditions of the connection (both ways) and of
// later connections.
func (n *network) SetNet(c netsim.Conditions) error {
	if err := n.net.set(c, n.conn.c); err != nil {
		return err
	}
	n.log.add(n.st.ServerFrame, "network: "+c.String())
	return nil
}

// Pick returns the entity nearest p within its radius plus half a metre.
func (n *network) Pick(p mgl32.Vec2) uint64 {
	var best uint64
	bestD := float32(math.Inf(1))
	for _, v := range n.shown() {
		if d := v.Pos.Sub(p).Len(); d <= n.drawing.radius(v.Prototype)+0.5 && d < bestD {
			best, bestD = v.ID, d
		}
	}
	return best
}

// Log returns connection events, corrections and power results, oldest first.
func (n *network) Log() []LogEntry { return n.log.entries }

// Graphs returns drift, RTT, bytes per second in and out, and the server loop's frame
// durations and lateness.
func (n *network) Graphs() []*Series { return n.graphs.all }

// Close closes the connection and stops dialling.
func (n *network) Close() error { return n.conn.close() }
