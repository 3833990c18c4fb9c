package gameserver

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/sim"
	"github.com/twinframe/twinframe/shared/world"
	"github.com/twinframe/twinframe/shared/xdump"
)

// Live dumps cost the frame loop one copy of the entity rows per frame at most,
// whatever the number of requests: requests of a frame (sessions' and HTTP) are
// collected, and after replication the loop copies the rows into an immutable
// snapshot that every request of that frame shares. Filtering a player's view,
// parsing the command and encoding run on encoder goroutines, at most
// Config.DumpWorkers at a time. A session's answer comes back through its dump
// mailbox and goes out in the next frame's packet; an HTTP answer is written by
// its handler. Requests are rate limited (ratelimit.go) before they reach the loop's
// queue.

// maxDump caps an xdump response (the NetMessageXDumpResponse payload cap is 4 MiB).
const maxDump = 4<<20 - 1024

// maxDumpJobs caps the dumps waiting for an encoder; a request beyond it is
// refused as rate limited (the server is busy).
const maxDumpJobs = 64

// dumpSnap is the live state of one frame as the dump tables show it. It is
// never changed once the loop has made it.
type dumpSnap struct {
	frame    int64
	config   world.Config   // the game's world's configuration (its slices are never written)
	entities []world.Entity // ascending id
	lost     []world.Lost
}

// dumpJob is one dump request: who asks, what, and where the answer goes.
type dumpJob struct {
	command string
	viewer  xdump.Viewer
	// ids, for a player, are the entities it may see (ascending): what
	// replication sent it (its visible set) and its avatar. Nil with anonymous
	// set: no entity rows at all.
	ids       []uint64
	anonymous bool
	// The answer goes to session c (as a NetMessageXDumpResponse with requestID),
	// or to reply (an HTTP handler).
	c         *session
	requestID uint32
	reply     chan dumpResult
}

type dumpResult struct {
	text string
	err  error
}

// dumpStats counts the loop's own dump work, for tests and metrics.
type dumpStats struct {
	snapshots  uint64 // snapshots taken
	rowsCopied uint64 // entity and lost rows copied into snapshots
	jobs       uint64 // dump requests dispatched
	maxPerSnap int    // most requests that shared one snapshot
}

// dumpWorlds are worlds an encoder borrows to run a command over a snapshot:
// their registry reads their Config and State, which the encoder points at the
// snapshot's rows.
var dumpWorlds = sync.Pool{New: func() any { return world.New() }}

// queueDump adds a request to this frame's dumps (in the loop).
func (s *Server) queueDump(j *dumpJob) {
	s.dumpJobs = append(s.dumpJobs, j)
}

// dispatchDumps takes this frame's snapshot, if any request wants one, and
// hands every request to an encoder (in the loop, after replication, so that a
// player's visible set is the one its client holds at this frame).
func (s *Server) dispatchDumps() {
	if len(s.dumpJobs) == 0 {
		return
	}
	snap := &dumpSnap{frame: int64(s.frameNumber()), config: s.world.Config}
	n := 0
	for _, r := range s.regions {
		n += len(r.game.Entities())
	}
	snap.entities = make([]world.Entity, 0, n)
	for _, r := range s.regions { // region blocks of ids ascend with the regions
		for _, e := range r.game.Entities() {
			snap.entities = append(snap.entities, entityRow(e))
		}
	}
	slices.SortFunc(snap.entities, func(a, b world.Entity) int { return cmp.Compare(a.ID, b.ID) })
	snap.lost = slices.Clone(s.lost)
	s.dumpStats.snapshots++
	s.dumpStats.rowsCopied += uint64(len(snap.entities) + len(snap.lost))
	s.dumpStats.jobs += uint64(len(s.dumpJobs))
	s.dumpStats.maxPerSnap = max(s.dumpStats.maxPerSnap, len(s.dumpJobs))
	for _, j := range s.dumpJobs {
		if j.c != nil && !j.anonymous && !j.viewer.Deity {
			j.ids = s.playerView(j.c)
		}
		s.dumpWG.Add(1)
		go s.encodeJob(snap, j)
	}
	clear(s.dumpJobs)
	s.dumpJobs = s.dumpJobs[:0]
}

// playerView returns the entity ids a player's dump may show (in the loop): its
// visible set and its avatar, ascending.
func (s *Server) playerView(c *session) []uint64 {
	ids := make([]uint64, 0, len(c.view.Visible())+1)
	ids = append(ids, c.view.Visible()...)
	if c.avatar != 0 {
		if i, found := slices.BinarySearch(ids, uint64(c.avatar)); !found {
			ids = slices.Insert(ids, i, uint64(c.avatar))
		}
	}
	return ids
}

// encodeJob runs a dump job on an encoder goroutine and delivers its answer.
func (s *Server) encodeJob(snap *dumpSnap, j *dumpJob) {
	defer s.dumpWG.Done()
	s.dumpSem <- struct{}{}
	text, err := encodeDump(snap, j)
	<-s.dumpSem
	s.dumpsInFlight.Add(-1)
	if j.reply != nil {
		j.reply <- dumpResult{text, err}
		return
	}
	r := &pb.NetMessageXDumpResponse{RequestId: j.requestID}
	switch {
	case err != nil:
		r.Code, r.Error = pb.ErrorCode_ERROR_CODE_BAD_PACKET, err.Error()
	case len(text) > maxDump:
		r.Code, r.Error = pb.ErrorCode_ERROR_CODE_TOO_LARGE, "xdump: response too large; narrow it with RECORDS or ?COND"
	default:
		r.Text = text
	}
	j.c.mu.Lock()
	j.c.dumped = append(j.c.dumped, r)
	j.c.mu.Unlock()
}

// encodeDump runs a job's command over a snapshot, showing the viewer what it
// may see: a deity everything, a player the entities of its view and no lost
// rows (replication tells it of no entity beyond its view), an anonymous viewer
// no entity rows at all.
func encodeDump(snap *dumpSnap, j *dumpJob) (string, error) {
	w := dumpWorlds.Get().(*world.World)
	defer func() {
		w.Config, w.State = world.Config{}, world.State{}
		dumpWorlds.Put(w)
	}()
	w.Config = snap.config
	w.Frame = snap.frame
	switch {
	case j.viewer.Deity:
		w.State = world.State{Entities: snap.entities, Lost: snap.lost}
	case j.anonymous:
		w.State = world.State{}
	default:
		rows := make([]world.Entity, 0, len(j.ids))
		k := 0
		for _, id := range j.ids {
			for k < len(snap.entities) && uint64(snap.entities[k].ID) < id {
				k++
			}
			if k < len(snap.entities) && uint64(snap.entities[k].ID) == id {
				rows = append(rows, snap.entities[k])
			}
		}
		w.State = world.State{Entities: rows}
	}
	var out bytes.Buffer
	err := w.Xdump(&out, j.command, j.viewer)
	return out.String(), err
}

// takeDumped moves a session's finished dumps into its replies (in the loop).
func (c *session) takeDumped() {
	c.mu.Lock()
	d := c.dumped
	c.dumped = nil
	c.mu.Unlock()
	for _, r := range d {
		c.replies = append(c.replies, r)
	}
}

// dumpCommand normalizes a request's command to start with "xdump".
func dumpCommand(cmd string) string {
	if !strings.HasPrefix(strings.TrimSpace(cmd), "xdump") {
		return "xdump " + cmd
	}
	return cmd
}

// xdumpRequest takes a session's xdump request (in the loop, from drain): it is
// refused at once when over the rate limits, else queued for this frame's
// snapshot.
func (s *Server) xdumpRequest(c *session, m *pb.NetMessageXDumpRequest) {
	deity := c.role == pb.Role_ROLE_DEITY
	if !deity {
		if ok, why := s.dumpLimits.allowSession(&c.dumpBucket, c.addr); !ok {
			s.metrics.xdumps.WithLabelValues("rate_limited").Inc()
			c.dumpRefused++
			c.replies = append(c.replies, &pb.NetMessageXDumpResponse{RequestId: m.GetRequestId(),
				Code: pb.ErrorCode_ERROR_CODE_RATE_LIMITED, Error: pb.ErrorCode_ERROR_CODE_RATE_LIMITED.String() + ": " + why})
			if c.dumpRefused >= maxDumpRefusals {
				c.fail(pb.ErrorCode_ERROR_CODE_RATE_LIMITED,
					fmt.Sprintf("xdump requests refused %d times in a row", maxDumpRefusals))
			}
			return
		}
	}
	if !s.reserveDump() {
		s.metrics.xdumps.WithLabelValues("busy").Inc()
		c.replies = append(c.replies, &pb.NetMessageXDumpResponse{RequestId: m.GetRequestId(),
			Code: pb.ErrorCode_ERROR_CODE_RATE_LIMITED, Error: pb.ErrorCode_ERROR_CODE_RATE_LIMITED.String() + ": " + errDumpBusy.Error()})
		return
	}
	c.dumpRefused = 0
	s.metrics.xdumps.WithLabelValues("ok").Inc()
	v := xdump.Viewer{ID: int(c.playerID)}
	if deity {
		v = xdump.Viewer{Deity: true}
	}
	s.queueDump(&dumpJob{command: dumpCommand(m.GetCommand()), viewer: v, c: c, requestID: m.GetRequestId()})
}

var errDumpBusy = errors.New("the server is busy with other dumps; retry later")

// maxDumpRefusals is how many xdump requests in a row a session may have
// refused before it is disconnected (ERROR_CODE_RATE_LIMITED).
const maxDumpRefusals = 64

// reserveDump counts one more dump waiting for an encoder, unless maxDumpJobs wait.
func (s *Server) reserveDump() bool {
	if s.dumpsInFlight.Add(1) > maxDumpJobs {
		s.dumpsInFlight.Add(-1)
		return false
	}
	return true
}

// httpDump runs an HTTP dump: a snapshot at the next frame, encoded on the
// calling goroutine's encoder turn.
func (s *Server) httpDump(ctx context.Context, command string, deity bool) (string, error) {
	if !s.reserveDump() {
		return "", errDumpBusy
	}
	j := &dumpJob{command: command, viewer: xdump.Viewer{ID: -1}, anonymous: !deity, reply: make(chan dumpResult, 1)}
	if deity {
		j.viewer = xdump.Viewer{Deity: true}
	}
	if err := s.do(ctx, func() { s.queueDump(j) }); err != nil {
		s.dumpsInFlight.Add(-1)
		return "", err
	}
	select {
	case r := <-j.reply:
		return r.text, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func entityRow(e *sim.Entity) world.Entity {
	row := world.Entity{ID: int64(e.ID()), Prototype: e.Prototype(), Region: e.Region(), Pos: e.Pos(),
		Yaw: e.Yaw(), Owner: e.Owner(), Timestamp: int64(e.ChangedFrame())}
	if e.Mode() != sim.Idle {
		row.State |= world.StateMoving
		path, next := e.Path()
		if len(path) > 0 {
			row.Goal = path[len(path)-1]
		}
		if next >= 0 && next < len(path) {
			if d := path[next].Sub(e.Pos()); d.Len() > 0 {
				row.Vel = d.Normalize().Mul(e.Speed())
			}
		}
	}
	if e.Flags()&world.FlagStatic != 0 {
		row.State |= world.StateStatic
	}
	return row
}

// dropDumps answers the requests of a frame that will not run (at shutdown).
func (s *Server) dropDumps() {
	for _, j := range s.dumpJobs {
		s.dumpsInFlight.Add(-1)
		if j.reply != nil {
			j.reply <- dumpResult{err: ErrStopped}
		}
	}
	clear(s.dumpJobs)
	s.dumpJobs = s.dumpJobs[:0]
}
