package gameserver

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twinframe/twinframe/shared/protocol/pb"
	"github.com/twinframe/twinframe/shared/world"
	"google.golang.org/protobuf/proto"
)

// lockedBuffer is a log destination safe for the loop and the test at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestWatchWorld: a server loads its world from a directory; WatchWorld sends
// each saved version of the directory through the live-edit path. A bad
// version (a bad value, a changed const field, a row verification refuses, a
// game-state table) is refused with the directory's file and line, in the log
// and to the deity, and leaves the world as it was; a good one applies. A
// changed file is the truth for its tables: the deity's earlier edit of one of
// them is dropped, the deity's edit of another table stays.
func TestWatchWorld(t *testing.T) {
	checkLeaks(t)
	dir, orig := worldDir(t)
	logs := &lockedBuffer{}
	s := startServer(t, "", func(c *Config) {
		c.NoPopulation = true
		c.Files = os.DirFS(dir)
		c.Logger = slog.New(slog.NewTextHandler(logs, nil))
	})
	watchWorld(t, s.Server, dir)
	deity := dial(t, s.url, dialOpt{})
	deity.login("god", proto.String(testToken))
	rd := newReceived()
	for rd.frames < 2 {
		rd.apply(t, deity.next(wait))
	}
	write := func(name, text string) { t.Helper(); writeWhole(t, dir, name, text) }
	answer := func() *pb.NetMessageLiveEditResponse {
		t.Helper()
		for {
			p := deity.next(wait)
			rd.apply(t, p)
			for _, m := range p {
				if r, ok := m.(*pb.NetMessageLiveEditResponse); ok {
					if r.RequestId != 0 {
						t.Fatalf("a world directory's answer has request id %d", r.RequestId)
					}
					return r
				}
			}
		}
	}
	type state struct {
		tables  []*pb.NetStructConfigFile
		edited  []string
		radius  float32
		density float32
	}
	snapshot := func() (st state) {
		s.inLoop(t, func() {
			st = state{slices.Clone(s.tables), slices.Clone(s.edited), -1, -1}
			if z := s.hub().World().BlackoutZones(s.hubID()); len(z) > 0 {
				st.radius = z[0].Radius
			}
			st.density = s.hub().World().Populations[0].Density
		})
		return st
	}
	const blackout = " 1 park    blackout      20    160      6"
	if !strings.Contains(orig["40-marker.config"], blackout) {
		t.Fatalf("the default markers changed; no %q", blackout)
	}
	const downtown = ` 0 "downtown"        0      0    192    192`
	if !strings.Contains(orig["10-region.config"], downtown) {
		t.Fatalf("the default regions changed; no %q", downtown)
	}
	marker := func(from, to string) map[string]string {
		return map[string]string{"40-marker.config": strings.Replace(orig["40-marker.config"], from, to, 1)}
	}
	dw, err := world.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	var ents strings.Builder
	if err := dw.Registry().WriteConfig(&ents, dw.Registry().Table("entity")); err != nil {
		t.Fatal(err)
	}
	before := snapshot()
	for _, tc := range []struct {
		name  string
		files map[string]string // file contents differing from the default world
		want  string
	}{
		{"bad value", marker(blackout, " 1 park    blackout      20    160      x"), "40-marker.config:10:41: "},
		{"const field", map[string]string{"10-region.config": strings.Replace(orig["10-region.config"], downtown, ` 4 "downtown"        0      0    192    192`, 1)},
			"10-region.config:13:2: value for field 1 must be 0"},
		{"verification", marker(blackout, " 1 park    blackout     500    500      6"), "40-marker.config:10: marker row 1: "},
		{"game-state table", map[string]string{"70-entity.config": ents.String()},
			"70-entity.config:3: live edit of the game-state table \"entity\""},
	} {
		for n, text := range orig {
			if _, ok := tc.files[n]; !ok {
				if b, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(b) != text {
					write(n, text)
				}
			}
		}
		for n, text := range tc.files {
			write(n, text)
		}
		r := answer()
		if !strings.Contains(r.Error, tc.want) {
			t.Errorf("%s: answered %q, want %q", tc.name, r.Error, tc.want)
		}
		if !strings.Contains(logs.String(), strings.Split(tc.want, ": ")[0]) {
			t.Errorf("%s: the log does not name %q:\n%s", tc.name, tc.want, logs)
		}
		if after := snapshot(); !slices.EqualFunc(after.tables, before.tables, func(a, b *pb.NetStructConfigFile) bool { return proto.Equal(a, b) }) ||
			after.radius != before.radius || len(after.edited) != 0 {
			t.Errorf("%s: a refused version changed the server: radius %v, edited %v", tc.name, after.radius, after.edited)
		}
		for n := range tc.files {
			if _, ok := orig[n]; !ok {
				if err := os.Remove(filepath.Join(dir, n)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for n, text := range orig {
		write(n, text)
	}

	// The deity edits the blackout zones and the populations; then the marker
	// file is saved with another radius: the file wins for the markers, the
	// deity's populations stay.
	pops := strings.Replace(orig["50-population.config"], " 0 streets wanderer  2", " 0 streets wanderer  3", 1)
	if pops == orig["50-population.config"] {
		t.Fatal("the default populations changed: no density 2 for population 0")
	}
	for _, rec := range []string{marker(blackout, " 1 park    blackout      20    160      7")["40-marker.config"], pops} {
		if err := deity.send(&pb.NetMessageLiveEditRequest{RequestId: 5, Records: rec}); err != nil {
			t.Fatal(err)
		}
		for {
			p := deity.next(wait)
			rd.apply(t, p)
			if i := slices.IndexFunc(p, func(m proto.Message) bool { _, ok := m.(*pb.NetMessageLiveEditResponse); return ok }); i >= 0 {
				if e := p[i].(*pb.NetMessageLiveEditResponse).Error; e != "" {
					t.Fatalf("deity edit refused: %s", e)
				}
				break
			}
		}
	}
	if st := snapshot(); st.radius != 7 || st.density != 3 || !slices.Equal(st.edited, []string{"marker", "population"}) {
		t.Fatalf("after the deity's edits: radius %v, density %v, edited %v", st.radius, st.density, st.edited)
	}
	write("40-marker.config", marker(blackout, " 1 park    blackout      20    160      9")["40-marker.config"])
	if r := answer(); r.Error != "" {
		t.Fatalf("good version refused: %s", r.Error)
	}
	st := snapshot()
	if st.radius != 9 || st.density != 3 || !slices.Equal(st.edited, []string{"population"}) {
		t.Errorf("after the saved file: radius %v (want 9), density %v (want 3), edited %v (want the populations)", st.radius, st.density, st.edited)
	}
	if i := slices.IndexFunc(st.tables, func(f *pb.NetStructConfigFile) bool { return f.Name == "40-marker.config" }); i < 0 ||
		!strings.Contains(st.tables[i].Text, " 1 park    blackout      20    160      9") {
		t.Error("the tables clients get do not hold the saved marker file")
	}
	if !strings.Contains(logs.String(), "world directory applied") {
		t.Errorf("the log does not say the directory applied:\n%s", logs)
	}
}

// worldDir writes the default world's files into a new directory and returns
// it, with the files' contents by name.
func worldDir(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	orig := map[string]string{}
	names, err := fs.Glob(world.DefaultFiles(), "*.config")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := fs.ReadFile(world.DefaultFiles(), n)
		if err != nil {
			t.Fatal(err)
		}
		orig[n] = string(b)
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, orig
}

// watchWorld runs s.WatchWorld on dir, polling every 5 ms, until the test ends.
func watchWorld(t *testing.T, s *Server, dir string) {
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan error, 1)
	go func() { watched <- s.WatchWorld(ctx, dir, 5*time.Millisecond) }()
	t.Cleanup(func() {
		cancel()
		if err := <-watched; err != nil {
			t.Errorf("WatchWorld: %v", err)
		}
	})
}

// lastMtime makes every writeWhole's modification time later than the last.
var (
	mtimeMu   sync.Mutex
	lastMtime = time.Now()
)

// writeWhole saves file name of dir as editors do, whole (a rename), so that
// the watcher never reads half a file, and with a later modification time, so
// that the watcher rereads it even on a file system with coarse times.
func writeWhole(t *testing.T, dir, name, text string) {
	t.Helper()
	tmp := filepath.Join(dir, name+".tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	mtimeMu.Lock()
	lastMtime = lastMtime.Add(time.Second)
	m := lastMtime
	mtimeMu.Unlock()
	if err := os.Chtimes(tmp, m, m); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}
