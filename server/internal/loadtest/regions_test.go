package loadtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/shared/world"
	"go.uber.org/goleak"
)

// TestSpreadTargets: bot i goes to region i mod R (the first: stays), onto the
// spawn and arrival markers of that region in turn.
func TestSpreadTargets(t *testing.T) {
	t.Parallel()
	w, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	areaRegion := map[int32]int32{}
	for _, a := range w.Areas {
		areaRegion[a.ID] = a.Region
	}
	markerRegion := map[int32]int32{}
	for _, m := range w.Markers {
		if m.Kind == world.Spawn || m.Kind == world.Arrival {
			markerRegion[m.ID] = areaRegion[m.Area]
		}
	}
	for _, n := range []int{1, 3, 7, 40} {
		regions, markers := spreadTargets(w, n)
		if len(regions) != n || len(markers) != n {
			t.Fatalf("n=%d: %d regions, %d markers", n, len(regions), len(markers))
		}
		seen := map[int32]map[int32]bool{}
		for i, r := range regions {
			want := w.Regions[i%len(w.Regions)].ID
			switch {
			case i%len(w.Regions) == 0:
				if r != -1 {
					t.Errorf("n=%d: bot %d sent to region %d, want it to stay", n, i, r)
				}
			case r != want:
				t.Errorf("n=%d: bot %d to region %d, want %d", n, i, r, want)
			case markerRegion[markers[i]] != r:
				t.Errorf("n=%d: bot %d to marker %d, not a spawn or arrival of region %d", n, i, markers[i], r)
			default:
				if seen[r] == nil {
					seen[r] = map[int32]bool{}
				}
				seen[r][markers[i]] = true
			}
		}
		if n == 40 && len(seen[1]) < 2 {
			t.Errorf("n=40: the wilds' bots all on %v: markers are not taken in turn", seen[1])
		}
	}
}

// TestLoadtestRegions runs -regions for real: the bots end up spread over the
// regions (by the server's region list) and every region's frames are timed.
func TestLoadtestRegions(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the server in real time for about 3 s; make test runs it")
	}
	path := filepath.Join(t.TempDir(), "load.json")
	defer checkNoLeak(t, goleak.IgnoreCurrent())
	code, out, errs := runArgs("-bots", "4", "-duration", "2s", "-regions", "-report", path)
	t.Logf("exit %d\n%s%s", code, out, errs)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, "loadtest: regions: 2 teleports, 0 refused") {
		t.Errorf("summary: %q", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep loadReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	g := rep.Regions
	if g == nil || g.Teleports != 2 || len(g.Refused) != 0 || len(g.Regions) != 3 {
		t.Fatalf("regions %+v", g)
	}
	for i, want := range []int{2, 1, 1} { // bots 0 and 3 stay in the first region
		r := g.Regions[i]
		if r.Players != want || r.Samples == 0 || r.Duration.MaxMs <= 0 {
			t.Errorf("region %d: %+v, want %d bots and timed frames", i, r, want)
		}
	}
}
