package loadtest

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/twinframe/twinframe/client"
	"github.com/twinframe/twinframe/server/internal/harness"
	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/world"
	"google.golang.org/protobuf/proto"
)

// -regions: the bots log in to the first region (where every new avatar starts);
// once all have joined, a deity connection of the load test teleports them
// (DEBUG_OP_TELEPORT, the same handoff as a portal) round-robin over the world's
// regions, bot i to region i mod R, onto that region's spawn and arrival markers in
// turn, then asks for the region list (DEBUG_OP_REGIONS) to report where they are.
// Teleporting rather than walking them through portals puts a known share in
// every region at once, however far its portals are. The per-region frame times
// are the server's own timing ring as every session receives it once a second
// (NetMessageServerFrameStats.regions), kept by the deity connection over the
// measured window.

// deityName is the load test's deity connection.
const deityName = "loadtest-deity"

// regionsReport is the report's section of a -regions run.
type regionsReport struct {
	Spread    string         `json:"spread"`    // how the bots were put in the regions
	Teleports int            `json:"teleports"` // commands sent
	Refused   []string       `json:"refused,omitempty"`
	Regions   []regionFigure `json:"regions"`
}

// regionFigure is one region's share of the measured window.
type regionFigure struct {
	ID       int32             `json:"id"`
	Name     string            `json:"name"`
	Players  int               `json:"players"`  // by the region list after the spread
	Entities uint32            `json:"entities"` // likewise
	Samples  int               `json:"frames"`   // frames timed over the window
	Duration harness.Durations `json:"frameDuration"`
	Lateness harness.Durations `json:"frameLateness"`
}

// spreader is the deity connection of a -regions run.
type spreader struct {
	c      *client.Client
	mu     sync.Mutex
	record bool
	dur    map[int32][]time.Duration
	late   map[int32][]time.Duration
	list   chan *pb.NetMessageRegionList
	errs   []string
}

func (s *spreader) onMessage(m proto.Message) {
	switch m := m.(type) {
	case *pb.NetMessageServerFrameStats:
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.record {
			return
		}
		for _, r := range m.GetRegions() {
			for _, us := range r.GetDurationMicros() {
				s.dur[r.GetRegionId()] = append(s.dur[r.GetRegionId()], time.Duration(us)*time.Microsecond)
			}
			for _, us := range r.GetLatenessMicros() {
				s.late[r.GetRegionId()] = append(s.late[r.GetRegionId()], time.Duration(us)*time.Microsecond)
			}
		}
	case *pb.NetMessageRegionList:
		select {
		case s.list <- m:
		default:
		}
	case *pb.NetMessageError:
		s.mu.Lock()
		s.errs = append(s.errs, m.GetText())
		s.mu.Unlock()
	}
}

// spreadTargets returns, for bot i of n, the region and marker it is teleported
// to (region -1: it stays where it joined, the first region), round-robin over
// w's regions and, within a region, over its spawn and arrival markers.
func spreadTargets(w *world.World, n int) (regions, markers []int32) {
	areaRegion := map[int32]int32{}
	for _, a := range w.Areas {
		areaRegion[a.ID] = a.Region
	}
	byRegion := map[int32][]int32{}
	for _, m := range w.Markers {
		if m.Kind == world.Spawn || m.Kind == world.Arrival {
			r := areaRegion[m.Area]
			byRegion[r] = append(byRegion[r], m.ID)
		}
	}
	for i := range n {
		r := w.Regions[i%len(w.Regions)].ID
		ms := byRegion[r]
		if i%len(w.Regions) == 0 || len(ms) == 0 {
			regions, markers = append(regions, -1), append(markers, 0)
			continue
		}
		regions, markers = append(regions, r), append(markers, ms[(i/len(w.Regions))%len(ms)])
	}
	return regions, markers
}

// spread connects the deity to url and teleports the n bots (named as joinBots
// names them) over the regions; it returns the connection, which records the
// region timings from startRecording, and the report section.
func spread(ctx context.Context, url, token string, n int) (*spreader, *regionsReport, error) {
	w, err := world.LoadDefault()
	if err != nil {
		return nil, nil, err
	}
	s := &spreader{dur: map[int32][]time.Duration{}, late: map[int32][]time.Duration{}, list: make(chan *pb.NetMessageRegionList, 1)}
	s.c, err = client.Dial(ctx, url, &client.Options{Name: deityName, DeityToken: token, OnMessage: s.onMessage})
	if err != nil {
		return nil, nil, err
	}
	if err := s.c.WaitReady(ctx); err != nil {
		_ = s.c.Close()
		return nil, nil, err
	}
	rep := &regionsReport{Spread: "deity teleport once joined: bot i to region i mod R (the first region: stays), onto its spawn and arrival markers in turn"}
	regions, markers := spreadTargets(w, n)
	for i, r := range regions {
		if r < 0 {
			continue
		}
		if err := s.c.Send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_TELEPORT, PlayerName: botName(i), RegionId: r, MarkerId: markers[i]}); err != nil {
			_ = s.c.Close()
			return nil, nil, err
		}
		rep.Teleports++
	}
	// The server answers in order: the list comes after every teleport.
	if err := s.c.Send(&pb.NetMessageDebugCommand{Op: pb.DebugOp_DEBUG_OP_REGIONS}); err != nil {
		_ = s.c.Close()
		return nil, nil, err
	}
	select {
	case l := <-s.list:
		for _, r := range l.GetRegions() {
			rep.Regions = append(rep.Regions, regionFigure{ID: r.GetRegionId(), Name: r.GetName(), Players: countBots(r.GetPlayerNames()), Entities: r.GetEntities()})
		}
	case <-ctx.Done():
		_ = s.c.Close()
		return nil, nil, fmt.Errorf("loadtest: no region list from the server: %w", ctx.Err())
	}
	s.mu.Lock()
	rep.Refused = append(rep.Refused, s.errs...)
	s.mu.Unlock()
	return s, rep, nil
}

// countBots counts the players of a region list that are bots (not the deity).
func countBots(players []string) int {
	n := 0
	for _, p := range players {
		if p != deityName {
			n++
		}
	}
	return n
}

func (s *spreader) startRecording() {
	s.mu.Lock()
	s.record = true
	s.mu.Unlock()
}

// finish stops the recording and fills rep's regions with their frame times.
func (s *spreader) finish(rep *regionsReport) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record = false
	for i := range rep.Regions {
		r := &rep.Regions[i]
		r.Duration, r.Lateness = harness.Percentiles(s.dur[r.ID]), harness.Percentiles(s.late[r.ID])
		r.Samples = len(s.dur[r.ID])
	}
	_ = s.c.Close()
}

// summary prints the regions' lines of the report.
func (r *regionsReport) summary(w io.Writer) {
	fmt.Fprintf(w, "loadtest: regions: %d teleports, %d refused\n", r.Teleports, len(r.Refused))
	for _, g := range r.Regions {
		fmt.Fprintf(w, "loadtest:   region %s: %d bots, %d entities; frame p50 %.2f ms p99 %.2f ms max %.2f ms; lateness p99 %.2f ms\n",
			g.Name, g.Players, g.Entities, g.Duration.P50Ms, g.Duration.P99Ms, g.Duration.MaxMs, g.Lateness.P99Ms)
	}
}
