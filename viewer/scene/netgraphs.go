package scene

import (
	"fmt"
	"time"

	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/world"
)

// netGraphs are the networked source's graphs: the prediction's drift, the round
// trip, the traffic each way and the server loop's frame timings, with what they are
// sampled from.
type netGraphs struct {
	drift, rtt, in, out *Series
	srvFrame            *Series // the server loop's frame durations
	srvLate             *Series // and start lateness
	all                 []*Series

	drifts   []replica.DriftSample // the replica's drift log as of the last poll
	seenDF   int                   // drift samples graphed from the current replica (its Compared count)
	fstats   []client.FrameStat
	nextStat uint64 // the next server loop frame to graph
	// One series per region the server times (NetMessageServerFrameStats.regions),
	// made as they first appear, after the others in all.
	regions    []regionSeries
	rstats     []client.RegionFrameStat
	nextRegion uint64       // the next server loop frame to graph per region
	world      *world.World // names the regions
	srv        serverTimings
	stats      client.Stats // the traffic counters at statsAt
	statsAt    time.Duration
}

type regionSeries struct {
	id int32
	s  *Series
}

// regionSeries returns the series of region id, made at its first sample.
func (g *netGraphs) regionSeries(id int32) *Series {
	for _, r := range g.regions {
		if r.id == id {
			return r.s
		}
	}
	name := fmt.Sprint(id)
	if g.world != nil {
		for _, r := range g.world.Regions {
			if r.ID == id {
				name = r.Name
			}
		}
	}
	s := newSeries("region "+name, "ms", graphFrames)
	g.regions = append(g.regions, regionSeries{id, s})
	g.all = append(g.all, s)
	return s
}

// regionStats graphs each region's step time in the server loop's frames timed
// since the last call.
func (g *netGraphs) regionStats(c *client.Client) {
	g.rstats = c.ServerRegionStats(g.rstats[:0], g.nextRegion)
	for _, f := range g.rstats {
		g.regionSeries(f.Region).Add(float32(f.Duration.Seconds() * 1000))
		g.nextRegion = f.Frame + 1
	}
}

// serverTimings are the server loop's figures the status reports.
type serverTimings struct {
	frameMS, lateMS float32
	dropped         uint64
	timed           int
}

func newNetGraphs() netGraphs {
	g := netGraphs{
		drift: newSeries("drift", "m", graphFrames),
		rtt:   newSeries("rtt", "ms", graphFrames),
		in:    newSeries("in", "kB/s", graphFrames),
		out:   newSeries("out", "kB/s", graphFrames),
		// One sample per server loop frame: 30 s, as the others.
		srvFrame: newSeries("server frame", "ms", graphFrames),
		srvLate:  newSeries("server late", "ms", graphFrames),
	}
	g.all = []*Series{g.drift, g.rtt, g.in, g.out, g.srvFrame, g.srvLate}
	return g
}

// connected starts sampling a new connection, whose counters start from zero.
func (g *netGraphs) connected(now time.Duration) {
	g.stats, g.statsAt = client.Stats{}, now
	g.nextStat, g.srv, g.nextRegion = 0, serverTimings{}, 0
}

// graphDrift graphs the drift samples compared since the last call and logs the
// corrections. Samples are counted, not keyed by frame: a frame can be compared twice
// (a rewind, a resync) and a new connection's replica counts from zero again.
func (g *netGraphs) graphDrift(compared int, log *eventLog) {
	if compared < g.seenDF {
		g.seenDF = 0
	}
	fresh := min(compared-g.seenDF, len(g.drifts))
	g.seenDF = compared
	for _, s := range g.drifts[len(g.drifts)-fresh:] {
		g.drift.Add(s.PosError)
		switch {
		case s.Corrected && s.AfterTravel:
			// Counted apart (Status.CorrectionsAfterTravel), and logged apart.
			log.add(s.Frame, fmt.Sprintf("travel correction %.3f m after %d replayed frames", s.Correction, s.Replayed))
		case s.Corrected:
			log.add(s.Frame, fmt.Sprintf("correction %.3f m after %d replayed frames", s.Correction, s.Replayed))
		}
	}
}

// serverStats graphs the server loop's frames timed since the last call and puts
// the figures in the status.
func (g *netGraphs) serverStats(c *client.Client, st *Status) {
	g.fstats, g.srv.dropped = c.ServerFrameStats(g.fstats[:0], g.nextStat)
	for _, f := range g.fstats {
		g.srvFrame.Add(float32(f.Duration.Seconds() * 1000))
		g.srvLate.Add(float32(f.Lateness.Seconds() * 1000))
		g.nextStat = f.Frame + 1
		g.srv.timed++
	}
	if len(g.fstats) > 0 {
		g.srv.frameMS, g.srv.lateMS = g.srvFrame.Last(), g.srvLate.Last()
	}
	st.ServerFrameMS, st.ServerLateMS, st.ServerFrameMaxMS = g.srv.frameMS, g.srv.lateMS, g.srvFrame.Max()
	st.ServerDropped, st.ServerTimed = g.srv.dropped, g.srv.timed
	g.regionStats(c)
}

// traffic graphs the bytes per second each way, once a second.
func (g *netGraphs) traffic(now time.Duration, c *client.Client) {
	if now-g.statsAt < time.Second {
		return
	}
	s := c.Stats()
	dt := float32((now - g.statsAt).Seconds())
	g.in.Add(float32(s.BytesIn-g.stats.BytesIn) / 1024 / dt)
	g.out.Add(float32(s.BytesOut-g.stats.BytesOut) / 1024 / dt)
	g.stats, g.statsAt = s, now
}
