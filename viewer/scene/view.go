package scene

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/viewer/draw"
)

// togglePause is the pause key: Pause when running, Resume when paused.
const togglePause CommandKind = 255

// dragThreshold is how far (pixels) the pointer moves with the button down before a press
// is a drag (pan) rather than a click.
const dragThreshold = 4

// Input is one frame of user input, in screen pixels. The platform layer (ebiten) fills it.
type Input struct {
	X, Y       float32 // pointer position
	LeftDown   bool    // left button held
	LeftPress  bool    // left button went down this frame
	LeftUp     bool    // left button went up this frame
	RightPress bool    // right button went down this frame
	Shift      bool    // shift held
	Wheel      float32 // wheel steps (positive: away from the user, zoom in)
	Keys       []string
	FPS        float64 // frames per second the platform reports
}

// KeyBindings maps key names (as Input.Keys carries them) to actions: an overlay name,
// or one of "pause", "step", "back" (one frame back: seek), "fit", "follow", "fire".
var KeyBindings = map[string]string{
	"n": "navmesh", "e": "edges", "c": "constraints", "b": "blackout", "m": "spawns",
	"o": "props", "t": "entities", "l": "labels", "p": "paths", "w": "sweeps", "v": "events",
	"h": "hotspots", "a": "aoi", "r": "prediction", "g": "graphs", "k": "portals",
	"space": "pause", "period": "step", "comma": "back", "0": "fit", "f": "follow", "x": "fire",
}

// Snapshot is the view's state for the page (window.twinframe) and tests.
type Snapshot struct {
	Status
	FPS       float64    `json:"fps"`
	Overlays  []string   `json:"overlays"`
	Selected  uint64     `json:"selected"`
	Follow    bool       `json:"following"`
	Camera    [3]float32 `json:"camera"` // centre x, y and zoom (pixels per metre)
	Triangles int        `json:"triangles"`
	Ticks     uint64     `json:"ticks"`  // frames drawn
	Graphs    []string   `json:"graphs"` // the graphs drawn (with the graphs overlay), top to bottom, then the page's frame split beside them
	Page      PageCosts  `json:"page"`   // the viewer's own frame split (the last frame)
}

// View is a Source seen through a camera with overlays, a selection and graphs. Its
// control methods (MoveTo, Toggle, Snapshot, ...) are safe from any goroutine; Tick and
// Build run on the viewer's.
type View struct {
	mu       sync.Mutex
	src      Source
	cam      draw.Camera
	camReady bool
	ov       Overlay
	follow   bool
	selected uint64
	pending  []Command
	snap     Snapshot
	fields   []Field
	frameMS  *Series
	graphs   []string // names of the graphs, top to bottom
	last     time.Duration
	region   int32 // the region the source was in at the last Tick
	tl       timelineSelection

	press        [2]float32 // where the left button went down
	pressed      bool
	dragging     bool
	lastX, lastY float32
	graphText    map[*Series]graphText
	page         pageCosts

	list draw.List
}

// NewView returns a view of src with the default overlays, following the avatar.
func NewView(src Source) *View {
	return &View{src: src, ov: defaultOverlays, follow: true, frameMS: newSeries("frame", "ms", graphFrames), page: newPageCosts()}
}

// Source returns the view's source.
func (v *View) Source() Source { return v.src }

// MoveTo asks the avatar to walk to world point (x, y).
func (v *View) MoveTo(x, y float32) { v.queue(Command{Kind: cmdMoveTo, Point: mgl32.Vec2{x, y}}) }

// Fire asks the avatar to fire towards world point (x, y).
func (v *View) Fire(x, y float32) { v.queue(Command{Kind: cmdFire, Point: mgl32.Vec2{x, y}}) }

// Seek replays the sandbox's recording to frame and pauses there.
func (v *View) Seek(frame uint64) { v.queue(Command{Kind: cmdSeek, Frame: frame}) }

// Do queues a command for the next Tick.
func (v *View) Do(kind CommandKind) { v.queue(Command{Kind: kind}) }

func (v *View) queue(c Command) {
	v.mu.Lock()
	v.pending = append(v.pending, c)
	v.mu.Unlock()
}

// Toggle flips the overlay called name and returns whether it is now on.
func (v *View) Toggle(name string) (bool, error) {
	o, err := parseOverlay(name)
	if err != nil {
		return false, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.ov ^= o
	v.snap.Overlays = v.overlayNames()
	return v.ov.Has(o), nil
}

// SetOverlay turns the overlay called name on or off.
func (v *View) SetOverlay(name string, on bool) error {
	o, err := parseOverlay(name)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if on {
		v.ov |= o
	} else {
		v.ov &^= o
	}
	v.snap.Overlays = v.overlayNames()
	return nil
}

// Overlays returns the enabled overlays.
func (v *View) Overlays() Overlay {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.ov
}

func (v *View) overlayNames() []string {
	var out []string
	for _, o := range AllOverlays() {
		if v.ov.Has(o) {
			out = append(out, o.Name())
		}
	}
	return out
}

// Select selects an entity for the inspector (0: none).
func (v *View) Select(id uint64) {
	v.mu.Lock()
	v.selected = id
	v.mu.Unlock()
}

// SetFollow makes the camera follow the avatar, or not.
func (v *View) SetFollow(on bool) {
	v.mu.Lock()
	v.follow = on
	v.mu.Unlock()
}

// netShaper is a source whose network conditions can be changed (Network).
type netShaper interface {
	SetNet(c netsim.Conditions) error
}

// errNoNetwork is returned by SetNetwork for a source without a network (the sandbox).
var errNoNetwork = errors.New("scene: network conditions apply to the networked mode only")

// SetNetwork changes the simulated network conditions of a networked source.
func (v *View) SetNetwork(c netsim.Conditions) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	ns, ok := v.src.(netShaper)
	if !ok {
		return errNoNetwork
	}
	return ns.SetNet(c)
}

// Snapshot returns the state as of the last Tick.
func (v *View) Snapshot() Snapshot {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.snap
	s.Overlays = append([]string(nil), s.Overlays...)
	s.Graphs = append([]string(nil), s.Graphs...)
	return s
}

// Inspect returns the selected entity's fields as of the last Tick.
func (v *View) Inspect() []Field {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]Field(nil), v.fields...)
}

// LogTail returns up to n of the newest log entries, oldest first.
func (v *View) LogTail(n int) []LogEntry {
	v.mu.Lock()
	defer v.mu.Unlock()
	log := v.src.Log()
	if len(log) > n {
		log = log[len(log)-n:]
	}
	return append([]LogEntry(nil), log...)
}

// Camera returns the camera as of the last Tick.
func (v *View) Camera() draw.Camera {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cam
}

// Tick handles a frame of input on a w×h screen at clock now and advances the source.
func (v *View) Tick(now time.Duration, in Input, w, h int) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.camReady || v.cam.W == 0 {
		min, max := v.src.Bounds()
		v.cam = draw.NewCamera(w, h, min, max)
		v.camReady = true
	}
	v.cam.Resize(w, h)
	if v.last != 0 {
		v.frameMS.Add(float32((now - v.last).Seconds() * 1000))
	}
	v.last = now
	v.handleInput(in)
	for i, c := range v.pending {
		if c.Kind == cmdSeek && i+1 < len(v.pending) && v.pending[i+1].Kind == cmdSeek {
			continue // a scrub bar's run of seeks: only the last one shows (a seek back replays from the start)
		}
		if c.Kind == togglePause {
			c.Kind = Pause
			if v.src.Status().Paused {
				c.Kind = Resume
			}
		}
		v.src.Do(c) // errors go to the source's log
	}
	v.pending = v.pending[:0]
	start := time.Now()
	err := v.src.Update(now)
	v.page.tick(v.src, time.Since(start))
	st := v.src.Status()
	v.tickTimeline(st)
	if st.RegionID != v.region && !v.follow {
		// The avatar travelled while the user looked around: show the region it is
		// in now (a following camera keeps its zoom and goes with the avatar).
		min, max := v.src.Bounds()
		v.cam.Fit(min, max)
	}
	v.region = st.RegionID
	if v.follow && st.AvatarID != 0 {
		v.cam.Center = mgl32.Vec2{st.Avatar[0], st.Avatar[1]}
	}
	if v.selected != 0 {
		v.fields = v.src.Inspect(v.selected)
		if v.fields == nil {
			v.selected = 0
		}
	} else {
		v.fields = nil
	}
	v.snap = Snapshot{
		Status: st, FPS: in.FPS, Overlays: v.overlayNames(), Selected: v.selected, Follow: v.follow,
		Camera: [3]float32{v.cam.Center[0], v.cam.Center[1], v.cam.Zoom}, Triangles: v.snap.Triangles,
		Ticks: v.snap.Ticks, Graphs: v.graphNames(), Page: v.page.last,
	}
	if err != nil {
		v.snap.Error = err.Error()
	}
	return nil
}

// graphNames returns the names of the graphs Build draws, top to bottom (the
// source's graphs are fixed, so they are listed once).
func (v *View) graphNames() []string {
	if v.graphs == nil {
		for _, s := range append(v.src.Graphs(), v.frameMS) {
			v.graphs = append([]string{s.Name}, v.graphs...)
		}
		v.graphs = append(v.graphs, pageGraphName)
	}
	return v.graphs
}

func (v *View) handleInput(in Input) {
	if in.Wheel != 0 {
		f := float32(1.15)
		if in.Wheel < 0 {
			f = 1 / f
		}
		steps := int(min(max(in.Wheel, -5), 5))
		if steps == 0 {
			steps = 1
			if in.Wheel < 0 {
				steps = -1
			}
		}
		for range abs(steps) {
			v.cam.ZoomAt(in.X, in.Y, f)
		}
	}
	if in.LeftPress {
		v.press, v.pressed, v.dragging = [2]float32{in.X, in.Y}, true, false
	}
	if v.pressed && in.LeftDown {
		dx, dy := in.X-v.press[0], in.Y-v.press[1]
		if v.dragging || dx*dx+dy*dy > dragThreshold*dragThreshold {
			if !v.dragging {
				v.dragging, v.follow = true, false
				v.cam.Pan(dx, dy)
			} else {
				v.cam.Pan(in.X-v.lastX, in.Y-v.lastY)
			}
		}
	}
	if in.LeftUp && v.pressed {
		if !v.dragging {
			p := v.cam.ToWorld(in.X, in.Y)
			if in.Shift {
				v.selected = v.src.Pick(p)
			} else {
				v.pending = append(v.pending, Command{Kind: cmdMoveTo, Point: p})
			}
		}
		v.pressed, v.dragging = false, false
	}
	if in.RightPress {
		v.pending = append(v.pending, Command{Kind: cmdFire, Point: v.cam.ToWorld(in.X, in.Y)})
	}
	v.lastX, v.lastY = in.X, in.Y
	for _, k := range in.Keys {
		switch action := KeyBindings[k]; action {
		case "":
		case "pause":
			v.pending = append(v.pending, Command{Kind: togglePause})
		case "step":
			v.pending = append(v.pending, Command{Kind: Step})
		case "back":
			if f := v.snap.Frame; f > 0 {
				v.pending = append(v.pending, Command{Kind: cmdSeek, Frame: f - 1})
			}
		case "fit":
			v.follow = false
			min, max := v.src.Bounds()
			v.cam.Fit(min, max)
		case "follow":
			v.follow = !v.follow
		case "fire":
			v.pending = append(v.pending, Command{Kind: cmdFire, Point: v.cam.ToWorld(in.X, in.Y)})
		default:
			if o, err := parseOverlay(action); err == nil {
				v.ov ^= o
			}
		}
	}
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// Graph layout in screen pixels.
const (
	graphW, graphH, graphGap = 240, 48, 18
)

// Build draws the frame into the view's list: the world through the camera, then the
// graphs in screen space. The list is valid until the next Build.
func (v *View) Build() *draw.List {
	v.mu.Lock()
	defer v.mu.Unlock()
	start := time.Now()
	v.list.Reset(v.cam)
	v.src.Draw(&v.list, v.ov, v.selected)
	v.drawContact()
	if v.ov.Has(ovGraphs) {
		y := v.cam.H - graphGap
		for _, s := range append(v.src.Graphs(), v.frameMS) {
			y -= graphH + graphGap
			v.drawGraph(s, 12, y)
		}
		v.drawPageCosts(12+graphW+graphGap, v.cam.H-graphGap-graphH-graphGap)
	}
	v.snap.Triangles = v.list.Triangles()
	v.snap.Ticks++
	v.page.build = time.Since(start)
	return &v.list
}

// Submitted records how long the platform took to hand the last Build's list to the
// renderer, for the page's frame split.
func (v *View) Submitted(d time.Duration) {
	v.mu.Lock()
	v.page.sub = d
	v.mu.Unlock()
}

var (
	colorGraphBG   = debugdraw.Color{R: 0, G: 0, B: 0, A: 150}
	colorGraphLine = debugdraw.Color{R: 120, G: 230, B: 255, A: 255}
)

// drawGraph draws series s as a line graph at screen (x, y), scaled to its maximum.
func (v *View) drawGraph(s *Series, x, y float32) {
	v.list.ScreenRect(x, y, graphW, graphH, colorGraphBG)
	top := max(s.Max(), 1e-3)
	v.drawLine(s, x, y, top, colorGraphLine)
	v.graphLabel(s, top, x, y)
}

// drawLine draws series s in the graph at screen (x, y) whose top is worth top. A
// graph has fewer pixel columns (graphW) than samples (graphFrames): each column
// draws the largest of its samples, so that a spike stays visible and the list holds
// a segment per column rather than per sample (the graphs were a third of the page's
// draw-list build).
func (v *View) drawLine(s *Series, x, y, top float32, c debugdraw.Color) {
	n, first := s.Len(), s.Cap()-s.Len()
	dx := float32(graphW) / float32(max(s.Cap()-1, 1))
	var px, py float32
	for i := 0; i < n; {
		col := int(float32(first+i) * dx)
		peak := s.At(i)
		j := i + 1
		for ; j < n && int(float32(first+j)*dx) == col; j++ {
			peak = max(peak, s.At(j))
		}
		qx, qy := x+float32(col), y+graphH-graphH*peak/top
		if i > 0 {
			v.list.ScreenSegment(px, py, qx, qy, 1, c)
		}
		px, py, i = qx, qy, j
	}
}

func (v *View) graphLabel(s *Series, top, x, y float32) {
	// The label is formatted only when its value changes, so a steady graph does not
	// allocate every frame.
	key := graphKey{s, s.Last(), top}
	text, ok := v.graphText[key.series]
	if !ok || text.key != key {
		text = graphText{key, fmt.Sprintf("%s %s %s (max %s)", s.Name, strconv.FormatFloat(float64(s.Last()), 'f', 2, 32), s.Unit, strconv.FormatFloat(float64(top), 'f', 2, 32))}
		if v.graphText == nil {
			v.graphText = map[*Series]graphText{}
		}
		v.graphText[key.series] = text
	}
	v.list.ScreenText(x+4, y-draw.LabelHeight-1, text.text, debugdraw.White)
}

type graphKey struct {
	series    *Series
	last, top float32
}

type graphText struct {
	key  graphKey
	text string
}
