package headless

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twinframe/twinframe/server/internal/gameserver"
)

// runClusterTest runs a cluster run of cfg and decodes its report.
func runClusterTest(t *testing.T, cfg clusterConfig) (int, clusterReport) {
	t.Helper()
	cfg.report = filepath.Join(t.TempDir(), "cluster.json")
	var out, errb bytes.Buffer
	start := time.Now()
	code := clusterCommand(cfg, &out, &errb)
	t.Logf("cluster run: exit %d in %v\n%s%s", code, time.Since(start), out.String(), errb.String())
	var rep clusterReport
	b, err := os.ReadFile(cfg.report)
	if err != nil {
		t.Fatalf("no report: %v", err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return code, rep
}

// clusterTestConfig is a short run of three nodes whose bots head for a portal
// at every decision, so that players cross between nodes within it.
func clusterTestConfig() clusterConfig {
	return clusterConfig{nodes: 3, frames: 300, bots: 6, seed: 3, travel: 1, timeout: 20 * time.Second}
}

// TestHeadlessCluster: a short cluster run (real nats-server and PostgreSQL, three
// nodes) passes every check, hands players between nodes and measures them.
func TestHeadlessCluster(t *testing.T) {
	t.Parallel() // real time: the runs mostly wait
	code, rep := runClusterTest(t, clusterTestConfig())
	if code != 0 || !rep.OK || rep.Violations != 0 {
		t.Fatalf("exit %d, ok %v, %d violations: %+v", code, rep.OK, rep.Violations, rep.Listed)
	}
	h, c := rep.Handoffs, rep.Checks
	if h.CrossNode == 0 || h.Compared == 0 || h.Measured == 0 || h.Latency.P50Ms <= 0 || h.Latency.P99Ms < h.Latency.P50Ms {
		t.Errorf("handoffs %+v", h)
	}
	if rep.Frames != 300 || rep.Nodes != 3 || len(rep.Layout) != 3 {
		t.Errorf("frames %d, nodes %d, layout %v", rep.Frames, rep.Nodes, rep.Layout)
	}
	if c.OwnerChecks == 0 || c.Rendezvous == 0 || c.RendezvousHold.MaxMs <= 0 || c.AOIChecks != 6*300 || c.AOIRegionChecks == 0 {
		t.Errorf("checks %+v", c)
	}
}

// TestHeadlessClusterFault: a node that keeps a copy of an avatar it sends away
// (the copy immigrates back into the region it left, under the same id) breaks
// the cluster's invariants, and the run must say so: the id in two nodes' games
// and the player with two avatars at a rendezvous, and the copy on a node the
// players bucket does not name.
func TestHeadlessClusterFault(t *testing.T) {
	t.Parallel()
	cfg := clusterTestConfig()
	var injected atomic.Bool
	cfg.fault = func(node string, v gameserver.FrameView) {
		for _, h := range v.Handoffs {
			if !h.Away || injected.Load() {
				continue
			}
			for _, g := range v.Games {
				if g.Home().ID() != h.From {
					continue
				}
				// An arrival marker of the region the avatar left.
				for _, tr := range g.World().Transitions {
					if tr.Region != h.From {
						continue
					}
					if _, err := g.Immigrate(h.Emigrated, tr.Marker); err == nil {
						injected.Store(true)
						t.Logf("fault: node %s keeps entity %d in region %d", node, h.Entity, h.From)
						break
					}
				}
			}
		}
	}
	code, rep := runClusterTest(t, cfg)
	if !injected.Load() {
		t.Fatal("no handoff to inject the fault into")
	}
	if code != 1 || rep.OK {
		t.Fatalf("exit %d, ok %v: the kept copy went unnoticed", code, rep.OK)
	}
	var checks []string
	for _, v := range rep.Listed {
		if !slices.Contains(checks, v.Check) {
			checks = append(checks, v.Check)
		}
	}
	for _, want := range []string{"ids", "region", "owner"} {
		if !slices.Contains(checks, want) {
			t.Errorf("no %q violation; found %v", want, checks)
		}
	}
	for _, v := range rep.Listed {
		if v.Check == "ids" && !strings.Contains(v.What, "at the same instant") {
			t.Errorf("ids violation: %q", v.What)
		}
	}
}
