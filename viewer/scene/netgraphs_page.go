package scene

import (
	"fmt"
	"strconv"
	"time"

	"github.com/twinframe/twinframe/shared/debugdraw"
	"github.com/twinframe/twinframe/viewer/draw"
)

// PageCosts is the viewer's own frame split, in milliseconds: what the page spends
// besides the network, which a round trip or a drift figure must not be confused with.
type PageCosts struct {
	SimMS     float32 `json:"simMs"`     // the simulation: the sandbox's game, or the client's prediction
	ReplicaMS float32 `json:"replicaMs"` // reading the replica (entities, drift, events) under its lock
	BuildMS   float32 `json:"buildMs"`   // building the draw list (Build)
	SubmitMS  float32 `json:"submitMs"`  // handing the list to the renderer (Submitted)
}

// simSplitter is a source whose Update time is partly its simulation (the networked
// source: the prediction), the rest being its replica; a source without it (the
// sandbox) spends all of Update on the simulation.
type simSplitter interface {
	simTime() time.Duration // of the last Update
}

// pageCosts keeps the frame split, one sample per Tick, for one graph of four lines.
type pageCosts struct {
	series      [4]*Series // sim, replica, build, submit
	build, sub  time.Duration
	last        PageCosts
	text        string // the label, formatted when a value changes
	textOf      PageCosts
	labelFormed bool
}

// pageGraphName is the frame split graph's name in Snapshot.Graphs.
const pageGraphName = "page frame"

var pageColors = [4]debugdraw.Color{
	{R: 120, G: 230, B: 120, A: 255}, // sim
	{R: 255, G: 170, B: 60, A: 255},  // replica
	{R: 120, G: 230, B: 255, A: 255}, // build
	{R: 240, G: 110, B: 240, A: 255}, // submit
}

func newPageCosts() pageCosts {
	var p pageCosts
	for i, name := range []string{"sim", "replica", "build", "submit"} {
		p.series[i] = newSeries(name, "ms", graphFrames)
	}
	return p
}

// tick samples a frame: its update (split by src) and the previous frame's build and
// submit, the newest there are.
func (p *pageCosts) tick(src Source, update time.Duration) {
	sim, replica := update, time.Duration(0)
	if s, ok := src.(simSplitter); ok {
		sim = min(s.simTime(), update)
		replica = update - sim
	}
	ms := func(d time.Duration) float32 { return float32(d.Seconds() * 1000) }
	p.last = PageCosts{SimMS: ms(sim), ReplicaMS: ms(replica), BuildMS: ms(p.build), SubmitMS: ms(p.sub)}
	for i, v := range [4]float32{p.last.SimMS, p.last.ReplicaMS, p.last.BuildMS, p.last.SubmitMS} {
		p.series[i].Add(v)
	}
}

// drawPageCosts draws the frame split's four series in one graph at screen (x, y),
// on a common scale.
func (v *View) drawPageCosts(x, y float32) {
	p := &v.page
	v.list.ScreenRect(x, y, graphW, graphH, colorGraphBG)
	top := float32(1e-3)
	for _, s := range p.series {
		top = max(top, s.Max())
	}
	for k, s := range p.series {
		v.drawLine(s, x, y, top, pageColors[k])
	}
	if !p.labelFormed || p.textOf != p.last {
		f := func(v float32) string { return strconv.FormatFloat(float64(v), 'f', 2, 32) }
		p.text = fmt.Sprintf("%s ms: sim %s replica %s build %s submit %s", pageGraphName,
			f(p.last.SimMS), f(p.last.ReplicaMS), f(p.last.BuildMS), f(p.last.SubmitMS))
		p.textOf, p.labelFormed = p.last, true
	}
	v.list.ScreenText(x+4, y-draw.LabelHeight-1, p.text, debugdraw.White)
}
