package nativetest

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/twinframe/twinframe/internal/testenv"
)

// TestNativeViewerUnderXvfb opens the native viewer (-local) in a virtual X display,
// lets it run, has it write its screen to a PNG and exit, and checks the picture: the
// world on the left, the panel on the right.
func TestNativeViewerUnderXvfb(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the native viewer; make test runs it")
	}
	xvfb, err := exec.LookPath("xvfb-run")
	if err != nil {
		testenv.Missing(t, "xvfb-run not found (make setup installs xvfb)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "viewer")
	if out, err := exec.Command("go", "build", "-o", bin, "../..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	shot := filepath.Join(dir, "native.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, xvfb, "-a", "-s", "-screen 0 1400x900x24", bin, "-local", "-after", "3s", "-screenshot", shot)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("native viewer: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	if b.Dx() < 640 || b.Dy() < 400 {
		t.Fatalf("screenshot of %v", b)
	}
	// The world and the panel both drew something: many distinct colours on each side.
	colours := func(r image.Rectangle) int {
		seen := map[uint32]bool{}
		for y := r.Min.Y; y < r.Max.Y; y += 3 {
			for x := r.Min.X; x < r.Max.X; x += 3 {
				cr, cg, cb, _ := img.At(x, y).RGBA()
				seen[cr>>11<<10|cg>>11<<5|cb>>11] = true
			}
		}
		return len(seen)
	}
	world := image.Rect(b.Min.X, b.Min.Y, b.Max.X-320, b.Max.Y)
	panel := image.Rect(b.Max.X-320, b.Min.Y, b.Max.X, b.Max.Y)
	if n := colours(world); n < 8 {
		t.Errorf("the world area has %d colours", n)
	}
	if n := colours(panel); n < 2 {
		t.Errorf("the panel has %d colours", n)
	}
	if d := os.Getenv("TWINFRAME_ARTIFACTS"); d != "" {
		data, _ := os.ReadFile(shot)
		os.WriteFile(filepath.Join(d, "native.png"), data, 0o644)
	}
}
