package scene

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twinframe/twinframe/viewer/draw"
)

// collide returns the collisions of a scripted pair: a into b at each of frames (b
// into a too when both).
func scripted(a, b uint64, both bool, frames ...uint64) []TimelineRow {
	var out []TimelineRow
	for _, f := range frames {
		out = append(out, TimelineRow{Frame: f, Kind: KindCollide, A: a, B: b})
		if both {
			out = append(out, TimelineRow{Frame: f, Kind: KindCollide, A: b, B: a})
		}
	}
	return out
}

func span(from, to, every uint64) []uint64 {
	var out []uint64
	for f := from; f <= to; f += every {
		out = append(out, f)
	}
	return out
}

// The repeated-contact rule: a pair colliding in repeatMinFrames frames, no two more
// than repeatGapFrames apart, is flagged once, at the frame it reaches the threshold.
func TestRepeatedContacts(t *testing.T) {
	t.Parallel()
	n := uint64(repeatMinFrames)
	tests := []struct {
		name    string
		rows    []TimelineRow
		flagged uint64 // the frame of the repeat row (0: none)
	}{
		{"pushing every frame", scripted(3, 9, false, span(100, 100+2*n, 1)...), 100 + n - 1},
		{"pushing each other (both ways) every frame", scripted(3, 9, true, span(100, 100+2*n, 1)...), 100 + n - 1},
		{"every third frame", scripted(3, 9, false, span(100, 100+3*n, repeatGapFrames)...), 100 + (n-1)*repeatGapFrames},
		{"one frame short", scripted(3, 9, true, span(100, 100+n-2, 1)...), 0},
		{"brushing past now and then", scripted(3, 9, false, span(100, 100+10*n, repeatGapFrames+1)...), 0},
		{"two bouts with a break", append(scripted(3, 9, false, span(100, 100+n/2, 1)...),
			scripted(9, 3, false, span(100+n/2+repeatGapFrames+1, 100+n+repeatGapFrames, 1)...)...), 0},
		{"against a wall", scripted(3, 0, false, span(100, 100+2*n, 1)...), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var tl timeline
			for _, r := range tc.rows {
				tl.add(r)
			}
			reps := tl.rowsMatching(TimelineFilter{Kinds: []string{KindRepeat}}, 0)
			switch {
			case tc.flagged == 0 && len(reps) != 0:
				t.Fatalf("flagged at frame %d (%s), want no flag", reps[0].Frame, reps[0].Value)
			case tc.flagged != 0 && len(reps) != 1:
				t.Fatalf("%d repeat rows, want 1 at frame %d", len(reps), tc.flagged)
			case tc.flagged != 0 && (reps[0].Frame != tc.flagged || reps[0].A != 3 || reps[0].B != 9 || reps[0].Repeat != repeatMinFrames):
				t.Fatalf("repeat row %+v, want frame %d, pair 3/9, %d frames", reps[0], tc.flagged, repeatMinFrames)
			}
			for _, r := range tl.rowsMatching(TimelineFilter{Kinds: []string{KindCollide}}, 0) {
				if want := tc.flagged != 0 && r.Frame >= tc.flagged; (r.Repeat != 0) != want {
					t.Fatalf("collision at frame %d marked repeat %d, want marked %v", r.Frame, r.Repeat, want)
				}
			}
		})
	}
}

func TestTimelineFilterAndTrim(t *testing.T) {
	t.Parallel()
	var tl timeline
	tl.add(TimelineRow{Frame: 1, Kind: KindCollide, A: 1, B: 2})
	tl.add(TimelineRow{Frame: 2, Kind: KindOverlapBegin, A: 2, B: 3})
	tl.add(TimelineRow{Frame: 3, Kind: KindPower, A: 4, B: 0})
	tl.add(TimelineRow{Frame: 4, Kind: KindRegion, A: 1})
	indices := func(rows []TimelineRow) (out []int) {
		for _, r := range rows {
			out = append(out, r.Index)
		}
		return out
	}
	tests := []struct {
		f     TimelineFilter
		limit int
		want  []int
	}{
		{TimelineFilter{}, 0, []int{0, 1, 2, 3}},
		{TimelineFilter{}, 2, []int{2, 3}},
		{TimelineFilter{Entity: 2}, 0, []int{0, 1}},
		{TimelineFilter{Entity: 1, Kinds: []string{KindRegion}}, 0, []int{3}},
		{TimelineFilter{Kinds: []string{KindCollide, KindPower}}, 0, []int{0, 2}},
		{TimelineFilter{Entity: 7}, 0, nil},
	}
	for _, tc := range tests {
		if got := indices(tl.rowsMatching(tc.f, tc.limit)); !slices.Equal(got, tc.want) {
			t.Errorf("%+v limit %d: rows %v, want %v", tc.f, tc.limit, got, tc.want)
		}
	}
	tl.truncate(2)
	if got := indices(tl.rowsMatching(TimelineFilter{}, 0)); !slices.Equal(got, []int{0, 1}) || tl.covered(3) {
		t.Errorf("after truncating to frame 2: rows %v, frame 3 covered %v", got, tl.covered(3))
	}
	for f := range uint64(timelineSize) {
		tl.add(TimelineRow{Frame: 10 + f, Kind: KindOverlapEnd, A: 5, B: 6})
	}
	rows := tl.rowsMatching(TimelineFilter{}, 0)
	if len(rows) > timelineSize || rows[len(rows)-1].Index != timelineSize+3 {
		t.Fatalf("after overfilling: %d rows, last %d", len(rows), rows[len(rows)-1].Index)
	}
	if r, ok := tl.row(rows[0].Index); !ok || r != rows[0] {
		t.Errorf("row(%d) = %+v, %v", rows[0].Index, r, ok)
	}
	if _, ok := tl.row(0); ok {
		t.Error("a dropped row is still found")
	}
}

// The sandbox's timeline: the default world's crowd collides, a picked collision seeks
// there, pauses, selects its entities and explains the contact; the replay after the
// seek adds no row twice; two NPCs pushing each other are flagged.
func TestTimelineSandbox(t *testing.T) {
	t.Parallel()
	v, l := newView(t)
	var now time.Duration
	ticks(v, &now, 60*25, Input{}) // 25 s
	all := v.Timeline(TimelineFilter{}, 0)
	collides := v.Timeline(TimelineFilter{Kinds: []string{KindCollide}}, 0)
	t.Logf("%d rows after frame %d, %d collisions, %d repeat flags", len(all), l.Status().Frame, len(collides),
		len(v.Timeline(TimelineFilter{Kinds: []string{KindRepeat}}, 0)))
	var pick *TimelineRow
	for i := range collides {
		if r := &collides[i]; r.B != 0 && r.Frame > 100 {
			pick = r
			break
		}
	}
	if pick == nil {
		t.Fatal("no collision between entities in 25 s of the default world")
	}
	if _, err := v.SelectRow(pick.Index); err != nil {
		t.Fatal(err)
	}
	ticks(v, &now, 2, Input{})
	st := v.Snapshot()
	if !st.Paused || st.Frame != pick.Frame || st.Selected != pick.A {
		t.Fatalf("after picking %+v: paused %v, frame %d, selected %d", *pick, st.Paused, st.Frame, st.Selected)
	}
	sel := v.Selection()
	if sel.Row == nil || sel.Row.Index != pick.Index || len(sel.Entities) != 2 || sel.Error != "" {
		t.Fatalf("selection %+v", sel)
	}
	fields := map[string]string{}
	for _, f := range sel.Contact {
		fields[f.Name] = f.Value
	}
	if want := vec2(pick.Point); fields["hit point"] != want || fields["time of impact"] == "" {
		t.Fatalf("contact fields %v: want hit point %s and a time of impact", fields, want)
	}
	if !hasLabel(v.Build().Labels(), "toi ") {
		t.Error("the picked contact is not drawn (no time-of-impact label)")
	}
	v.Do(Resume)
	ticks(v, &now, 60*2, Input{})
	if got := v.Timeline(TimelineFilter{}, 0); !slices.Equal(got[:len(all)], all) {
		t.Fatal("resuming after the seek changed the rows recorded before it")
	}
	after := v.Timeline(TimelineFilter{}, 0)
	for i := 1; i < len(after); i++ {
		if after[i].Frame < after[i-1].Frame {
			t.Fatalf("row %d at frame %d after row %d at frame %d: the replay added rows again",
				after[i].Index, after[i].Frame, after[i-1].Index, after[i-1].Frame)
		}
	}
	if !strings.Contains(sel.Contact[0].Name, "frame") {
		t.Errorf("contact fields start with %q", sel.Contact[0].Name)
	}
}

func hasLabel(labels []draw.Label, prefix string) bool {
	for _, l := range labels {
		if strings.HasPrefix(l.Text, prefix) {
			return true
		}
	}
	return false
}

// Two NPCs of the default world that push each other for long are flagged (with the
// sandbox's seed 7, a pair in downtown after about 90 s).
func TestTimelineFlagsDefaultWorldPushers(t *testing.T) {
	t.Parallel()
	l := testLocal(t)
	for range 120 * 20 {
		if err := l.step(0); err != nil {
			t.Fatal(err)
		}
	}
	reps := l.tl.rowsMatching(TimelineFilter{Kinds: []string{KindRepeat}}, 0)
	if len(reps) == 0 {
		t.Fatal("no pair flagged for repeated contacts in 2 minutes of the default world")
	}
	for _, r := range reps {
		t.Logf("frame %d: %s", r.Frame, r.Value)
		n := 0
		for _, c := range l.tl.rowsMatching(TimelineFilter{Entity: r.A, Kinds: []string{KindCollide}}, 0) {
			if c.Has(r.B) && c.Repeat > 0 {
				n++
			}
		}
		if n == 0 {
			t.Errorf("the collisions of the flagged pair %d/%d are not marked", r.A, r.B)
		}
	}
}
