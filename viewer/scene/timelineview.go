package scene

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/sim"
)

// timelineSource is a source with an event timeline (both of this package's).
type timelineSource interface {
	timeline() *timeline
}

// contactExplainer is a source that can explain a collision of the frame it shows
// (the sandbox, which has the game; a networked viewer's rows carry the server's
// explanation instead).
type contactExplainer interface {
	explainContact(a uint64, frame uint64) (sim.Contact, error)
}

// timelineSelection is the timeline row the user picked and the explanation of its
// contact, made once the source shows the row's frame.
type timelineSelection struct {
	row       TimelineRow
	ok        bool
	explained bool
	contact   sim.Contact
	hasC      bool
	err       string
}

// contactZoom is the least zoom (pixels per metre) SelectRow shows a row's point at.
const contactZoom = 60

// errNoTimeline is returned by the timeline calls of a source without one.
var errNoTimeline = errors.New("scene: the source has no event timeline")

func (v *View) timeline() *timeline {
	if ts, ok := v.src.(timelineSource); ok {
		return ts.timeline()
	}
	return nil
}

// Timeline returns the rows of the source's event timeline that f selects, oldest
// first, at most limit of the newest (limit ≤ 0: all).
func (v *View) Timeline(f TimelineFilter, limit int) []TimelineRow {
	v.mu.Lock()
	t := v.timeline()
	v.mu.Unlock()
	if t == nil {
		return []TimelineRow{}
	}
	return t.rowsMatching(f, limit)
}

// SelectRow picks the timeline row numbered index: the source seeks to the row's
// frame (the sandbox pauses there; a networked source shows the recorded frame),
// its entity A (else B) is selected, and the camera stops following to look at the
// row's point. A collision's contact is explained once the frame is shown.
func (v *View) SelectRow(index int) (TimelineRow, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	t := v.timeline()
	if t == nil {
		return TimelineRow{}, errNoTimeline
	}
	r, ok := t.row(index)
	if !ok {
		return TimelineRow{}, fmt.Errorf("scene: no timeline row %d (dropped, or not yet added)", index)
	}
	v.pending = append(v.pending, Command{Kind: cmdSeek, Frame: r.Frame}) // a seek pauses
	v.selected = r.A
	if r.A == 0 {
		v.selected = r.B
	}
	v.tl = timelineSelection{row: r, ok: true}
	if r.Point != [2]float32{} {
		// Close enough to see the contact's discs, the skin and the slide.
		v.follow = false
		v.cam.Center = mgl32.Vec2{r.Point[0], r.Point[1]}
		v.cam.Zoom = max(v.cam.Zoom, contactZoom)
	}
	return r, nil
}

// TimelineSelection is the picked row, its entities and, for a collision, the
// numbers of its contact.
type TimelineSelection struct {
	Row      *TimelineRow `json:"row"` // nil: none picked
	Entities []uint64     `json:"entities"`
	Contact  []Field      `json:"-"`
	Error    string       `json:"error"` // why there is no contact explanation
}

// Selection returns the picked timeline row as of the last Tick.
func (v *View) Selection() TimelineSelection {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := TimelineSelection{Entities: []uint64{}, Error: v.tl.err}
	if !v.tl.ok {
		return s
	}
	r := v.tl.row
	s.Row = &r
	for _, id := range []uint64{r.A, r.B} {
		if id != 0 {
			s.Entities = append(s.Entities, id)
		}
	}
	if v.tl.hasC {
		s.Contact = contactFields(&v.tl.contact)
	} else {
		s.Contact = []Field{
			{"frame", strconv.FormatUint(r.Frame, 10)},
			{"point", vec2(mgl32.Vec2(r.Point))},
			{"normal", vec2(mgl32.Vec2(r.Normal))},
		}
	}
	return s
}

// tickTimeline explains the picked collision once the source shows its frame, and
// forgets the explanation when it shows another.
func (v *View) tickTimeline(st Status) {
	if !v.tl.ok || v.tl.row.Kind != KindCollide {
		return
	}
	if st.Frame != v.tl.row.Frame {
		v.tl.explained, v.tl.hasC = false, false
		return
	}
	if v.tl.explained {
		return
	}
	v.tl.explained = true
	r := &v.tl.row
	var c sim.Contact
	switch ce, ok := v.src.(contactExplainer); {
	case r.contact != nil:
		c = *r.contact // the server's, made right after the step that produced the row
	case r.why != "":
		v.tl.err = r.why
		return
	case !ok || r.Origin != OriginLocal:
		v.tl.err = "the contact's sweep is the server's: its row's point and normal only"
		return
	default:
		var err error
		if c, err = ce.explainContact(r.A, r.Frame); err != nil {
			v.tl.err = err.Error()
			return
		}
	}
	v.tl.contact, v.tl.hasC, v.tl.err = c, true, ""
}

// drawContact draws the explained contact of the picked row, while its frame is shown.
func (v *View) drawContact() {
	if v.tl.hasC {
		sim.DebugDrawContact(&v.list, &v.tl.contact)
	}
}

func vec2(p mgl32.Vec2) string { return fmt.Sprintf("(%.3f, %.3f)", p[0], p[1]) }

// contactFields are the numbers of c for the panel.
func contactFields(c *sim.Contact) []Field {
	other := "wall"
	if c.B != 0 {
		other = fmt.Sprintf("%d (r %.3f) at %s", c.B, c.RadiusB, vec2(c.BAt))
	}
	hit := "none"
	if c.Hit >= 0 {
		e := c.Edges[c.Hit]
		hit = vec2(e.A) + "–" + vec2(e.B)
	}
	return []Field{
		{"frame", strconv.FormatUint(c.Frame, 10)},
		{"mover", fmt.Sprintf("%d (r %.3f)", c.A, c.RadiusA)},
		{"hit", other},
		{"start", vec2(c.Start)},
		{"motion wanted", vec2(c.Motion)},
		{"motion swept", vec2(c.Swept)},
		{"time of impact", fmt.Sprintf("%.4f", c.TOI)},
		{"contact at", vec2(c.At)},
		{"hit point", vec2(c.Point)},
		{"normal", vec2(c.Normal)},
		{"slide", vec2(c.Slide)},
		{"end", vec2(c.End)},
		{"edges tested", strconv.Itoa(len(c.Edges))},
		{"edge hit", hit},
	}
}
