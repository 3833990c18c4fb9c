package game

import (
	"fmt"
	"image/color"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"
	"github.com/twinframe/twinframe/viewer/scene"
)

// Panel layout: text lines of lineH pixels; overlay rows start at overlayTop.
const (
	lineH      = 16
	overlayTop = 7 * lineH
	// panelChars is how many characters fit a panel line between 8 px margins.
	panelChars = (PanelWidth - 16) / glyphW
)

var panelBG = color.RGBA{12, 13, 16, 235}

// overlayKeys maps an overlay name to its key, for the panel.
func overlayKey(name string) string {
	for k, v := range scene.KeyBindings {
		if v == name {
			return k
		}
	}
	return " "
}

// panelClick toggles the overlay row at panel position (x, y).
func (g *Game) panelClick(_, y int) {
	row := (y - overlayTop) / lineH
	all := scene.AllOverlays()
	if y >= overlayTop && row < len(all) {
		g.view.Toggle(all[row].Name())
	}
}

// drawPanel draws status, overlays (click or key to toggle), the inspector and the log.
func (g *Game) drawPanel(screen *ebiten.Image) {
	x0 := g.worldWidth()
	vector.DrawFilledRect(screen, float32(x0), 0, PanelWidth, float32(g.h), panelBG, false)
	s := g.view.Snapshot()
	x := x0 + 8
	status := "connected"
	if !s.Connected {
		status = "DISCONNECTED"
	}
	lines := []string{
		fmt.Sprintf("Twinframe  %s  %s  region %s", s.Mode, status, s.Region),
		fmt.Sprintf("frame %d/%d  server %d  fps %.0f", s.Frame, s.Recorded, s.ServerFrame, s.FPS),
		fmt.Sprintf("entities %d  avatar %d  drift %.3f m", s.Entities, s.AvatarID, s.Drift),
		serverLine(s),
		"click move  shift-click select  right fire",
		"drag pan  wheel zoom  space pause  . , step",
	}
	if s.Error != "" {
		lines[5] = "error: " + s.Error
	}
	for i, l := range lines {
		g.text.draw(screen, clip(l, panelChars), x, 4+i*lineH)
	}
	on := g.view.Overlays()
	y := overlayTop
	for _, o := range scene.AllOverlays() {
		box := "[ ]"
		if on.Has(o) {
			box = "[x]"
		}
		g.text.draw(screen, fmt.Sprintf("%s %s  (%s)", box, o.Name(), overlayKey(o.Name())), x, y)
		y += lineH
	}
	y += lineH / 2
	if f := g.view.Inspect(); len(f) > 0 {
		g.text.draw(screen, fmt.Sprintf("entity %d", s.Selected), x, y)
		y += lineH
		for _, fl := range f {
			if y > g.h-10*lineH {
				break
			}
			g.text.draw(screen, clip(fl.Name+" = "+fl.Value, panelChars), x, y)
			y += lineH
		}
	} else {
		g.text.draw(screen, "shift-click an entity to inspect it", x, y)
		y += lineH
	}
	y += lineH / 2
	n := max((g.h-y)/lineH-1, 0)
	for _, e := range g.view.LogTail(n) {
		g.text.draw(screen, clip(fmt.Sprintf("%d %s", e.Frame, e.Text), panelChars), x, y)
		y += lineH
	}
}

// serverLine says whether the view is a replay, and the server loop's timings.
func serverLine(s scene.Snapshot) string {
	mode := "live"
	if s.Replaying {
		mode = fmt.Sprintf("REPLAY %d-%d", s.RecordedFrom, s.Recorded)
	}
	if s.Mode != "network" || s.ServerTimed == 0 {
		return mode
	}
	return fmt.Sprintf("%s  loop %.2f ms late %.2f  dropped %d", mode, s.ServerFrameMS, s.ServerLateMS, s.ServerDropped)
}

// clip cuts s to n characters, the last a "~" (the face has no "…").
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(s[:n-1]) + "~"
}
