package game

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	"github.com/twinframe/twinframe/viewer/draw"
	"github.com/twinframe/twinframe/viewer/scene"
)

// PanelWidth is the width in pixels of the side panel drawn when Options.Panel is set.
const PanelWidth = 320

// Options configure a Game.
type Options struct {
	// Panel draws the side panel (status, overlays, inspector, log) in ebiten; the web
	// page leaves it off and shows its HTML panel instead.
	Panel bool
	// Title is the window title (native only).
	Title string
	// AfterUpdate, when set, runs on the game's goroutine after every Update (the page
	// publishes window.twinframe from it).
	AfterUpdate func()
	// Screenshot, when set, is a PNG file the game writes the screen to once
	// ScreenshotAfter has passed; then it ends (for docs and smoke tests under Xvfb).
	Screenshot      string
	ScreenshotAfter time.Duration
}

// Game is the ebiten.Game that shows a scene.View.
type Game struct {
	view  *scene.View
	opt   Options
	start time.Time
	white *ebiten.Image
	text  *bitmapText
	verts []ebiten.Vertex
	keys  []ebiten.Key
	names []string
	w, h  int
	shot  error // set once the screenshot is written (ebiten.Termination) or failed
	done  bool
}

var _ ebiten.Game = (*Game)(nil)

// New returns a game showing view.
func New(view *scene.View, opt Options) *Game {
	white := ebiten.NewImage(3, 3)
	white.Fill(color.White)
	return &Game{view: view, opt: opt, start: time.Now(), white: white.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image), text: newBitmapText()}
}

// Run opens the window (or takes over the page's canvas) and runs the game until the
// window closes.
func Run(view *scene.View, opt Options) error {
	if opt.Title == "" {
		opt.Title = "Twinframe viewer"
	}
	ebiten.SetWindowTitle(opt.Title)
	ebiten.SetWindowSize(1280, 800)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetRunnableOnUnfocused(true) // keep simulating when the page or window loses focus
	err := ebiten.RunGame(New(view, opt))
	if err == ebiten.Termination {
		err = nil
	}
	return err
}

// worldWidth is the width of the screen the world is drawn in (left of the panel).
func (g *Game) worldWidth() int {
	if g.opt.Panel {
		return max(g.w-PanelWidth, 1)
	}
	return g.w
}

// keyName returns the name scene.KeyBindings uses for k.
func keyName(k ebiten.Key) string {
	s := k.String()
	switch {
	case len(s) == 1:
		return strings.ToLower(s)
	case strings.HasPrefix(s, "Digit"):
		return s[len("Digit"):]
	}
	return strings.ToLower(s)
}

// Update reads the input and ticks the view.
func (g *Game) Update() error {
	x, y := ebiten.CursorPosition()
	in := scene.Input{
		X: float32(x), Y: float32(y),
		LeftDown:   ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft),
		LeftPress:  inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft),
		LeftUp:     inpututil.IsMouseButtonJustReleased(ebiten.MouseButtonLeft),
		RightPress: inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonRight),
		Shift:      ebiten.IsKeyPressed(ebiten.KeyShift),
		FPS:        ebiten.ActualFPS(),
	}
	_, wy := ebiten.Wheel()
	in.Wheel = float32(wy)
	g.keys = inpututil.AppendJustPressedKeys(g.keys[:0])
	g.names = g.names[:0]
	for _, k := range g.keys {
		g.names = append(g.names, keyName(k))
	}
	in.Keys = g.names
	if g.opt.Panel && x >= g.worldWidth() {
		if in.LeftPress {
			g.panelClick(x-g.worldWidth(), y)
		}
		in.LeftPress, in.RightPress, in.Wheel = false, false, 0
	}
	w := g.worldWidth()
	if g.w == 0 {
		w = 1280
	}
	h := max(g.h, 1)
	if g.done {
		return g.shot
	}
	err := g.view.Tick(time.Since(g.start), in, w, h)
	if g.opt.AfterUpdate != nil {
		g.opt.AfterUpdate()
	}
	return err
}

var background = color.RGBA{24, 26, 30, 255}

// Draw draws the view's list: triangle batches, then labels.
func (g *Game) Draw(screen *ebiten.Image) {
	screen.Fill(background)
	list := g.view.Build()
	start := time.Now()
	g.drawList(screen, list)
	g.view.Submitted(time.Since(start))
	if g.opt.Panel {
		g.drawPanel(screen)
	}
	if g.opt.Screenshot != "" && !g.done && time.Since(g.start) >= g.opt.ScreenshotAfter {
		g.shot, g.done = writeScreenshot(screen, g.opt.Screenshot), true
	}
}

func writeScreenshot(screen *ebiten.Image, path string) error {
	b := screen.Bounds()
	img := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	screen.ReadPixels(img.Pix)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return ebiten.Termination
}

func (g *Game) drawList(screen *ebiten.Image, list *draw.List) {
	op := &ebiten.DrawTrianglesOptions{}
	for _, b := range list.Batches() {
		if len(b.Indices) == 0 {
			continue
		}
		if cap(g.verts) < len(b.Vertices) {
			g.verts = make([]ebiten.Vertex, len(b.Vertices), len(b.Vertices)*5/4)
		}
		g.verts = g.verts[:len(b.Vertices)]
		for i, v := range b.Vertices {
			g.verts[i] = ebiten.Vertex(v)
		}
		screen.DrawTriangles(g.verts, b.Indices, g.white, op)
	}
	for _, l := range list.Labels() {
		g.text.draw(screen, l.Text, int(l.X), int(l.Y)-2) // the face has 2 px above its capitals
	}
}

// Layout uses the outside size as the screen size.
func (g *Game) Layout(outsideWidth, outsideHeight int) (int, int) {
	g.w, g.h = outsideWidth, outsideHeight
	return outsideWidth, outsideHeight
}
