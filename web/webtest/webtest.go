//go:build !js

// Package webtest drives the viewer page in headless Chromium for tests: it builds the
// wasm viewer, starts Chromium with the flags that work on these machines, and fails the
// test on any console error. The web package's own tests and the server's use it.
package webtest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twinframe/twinframe/internal/testenv"
	"github.com/twinframe/twinframe/web"
	"github.com/twinframe/twinframe/web/precompress"
)

// ChromiumPath is Debian's chromium, which make setup installs.
const ChromiumPath = "/usr/bin/chromium"

// BuildWasm builds the viewer (the wasm main at pkg, a path relative to the test) for GOOS=js into a temporary directory with Go's
// wasm_exec.js beside it, as `make wasm` does into web/.
func BuildWasm(t *testing.T, pkg string) string {
	t.Helper()
	dir := t.TempDir()
	start := time.Now()
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, web.WasmFile), pkg)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the wasm viewer: %v\n%s", err, out)
	}
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), "lib", "wasm", web.WasmExecFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, web.WasmExecFile), js, 0o644); err != nil {
		t.Fatal(err)
	}
	// Precompress it as a build step would, so the handler does not compress 12 MB under
	// the race detector.
	if gz, err := exec.LookPath("gzip"); err == nil {
		if out, err := exec.Command(gz, "-k", "-6", filepath.Join(dir, web.WasmFile)).CombinedOutput(); err != nil {
			t.Fatalf("gzip: %v\n%s", err, out)
		}
	}
	// And the brotli copy that make wasm writes (at a fast quality: the tests need a
	// valid file, not its size), which the page gets natively or decodes itself.
	if _, err := precompress.Brotli(filepath.Join(dir, web.WasmFile), precompress.Fast); err != nil {
		t.Fatalf("brotli: %v", err)
	}
	t.Logf("wasm built in %v", time.Since(start).Round(time.Millisecond))
	return dir
}

// ArtifactDir is where screenshots go: $TWINFRAME_ARTIFACTS/<test>, or a temporary
// directory.
func ArtifactDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("TWINFRAME_ARTIFACTS"); d != "" {
		d = filepath.Join(d, t.Name())
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// Tab is a browser tab whose console errors fail the test. StartBrowser starts headless Chromium with the flags of TOOLCHAIN.md and a fresh profile, and
// collects the page's console errors.
type Tab struct {
	Ctx    context.Context
	mu     sync.Mutex
	errors []string
	Shots  string // where Screenshot writes
}

func StartBrowser(t *testing.T, width, height int) context.Context {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		testenv.Missing(t, "browser test: %s not found (make setup installs chromium)", ChromiumPath)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(ChromiumPath),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.WindowSize(width, height),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx); err != nil { // start the browser
		t.Fatal(err)
	}
	return bctx
}

// NewTab opens a tab of the browser whose console errors fail t.
func NewTab(t *testing.T, bctx context.Context) *Tab {
	t.Helper()
	tctx, cancel := chromedp.NewContext(bctx)
	t.Cleanup(cancel)
	b := &Tab{Ctx: tctx, Shots: ArtifactDir(t)}
	msgs := chromedp.Console(tctx) // opens the tab; subscribes before any navigation
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.mu.Lock()
				b.errors = append(b.errors, m.String())
				b.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, e := range b.errors {
			t.Errorf("console: %s", e)
		}
	})
	return b
}

func (b *Tab) Do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.Ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// Eval evaluates js in the tab.
func Eval[T any](t *testing.T, b *Tab, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.Ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// Poll waits until js is true.
func (b *Tab) Poll(t *testing.T, what, js string, timeout time.Duration) {
	t.Helper()
	_, err := chromedp.Run(b.Ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil {
		t.Fatalf("waiting for %s (%s): %v", what, js, err)
	}
}

// WaitTicks waits until the viewer has drawn n more frames.
func (b *Tab) WaitTicks(t *testing.T, n int) {
	t.Helper()
	t0 := Eval[float64](t, b, "twinframe.ticks")
	b.Poll(t, "frames", fmt.Sprintf("twinframe.ticks >= %v", t0+float64(n)), 10*time.Second)
}

// Screenshot saves the page as name.png in the artifact folder and decodes it.
func (b *Tab) Screenshot(t *testing.T, name string) image.Image {
	t.Helper()
	buf, err := chromedp.Run(b.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.Shots, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// WaitTravel waits until the page's player is in region to (id), then checks that
// the avatar is the same, the event log has "region from → to at frame F" and the
// portals overlay is on.
func WaitTravel(t *testing.T, b *Tab, from, to string, id int) {
	t.Helper()
	avatarID := Eval[float64](t, b, "twinframe.avatarId")
	// A travel that acts at once (a deity's teleport) may show before this reads the
	// region on a page ticking slowly: the event log's line below still names where it
	// started, and regionChanges says it was the first.
	if got := Eval[string](t, b, "twinframe.region"); got != from && got != to {
		t.Fatalf("twinframe.region = %q before travel, want %q", got, from)
	}
	b.Poll(t, "region "+to, fmt.Sprintf("twinframe.region === %q && twinframe.regionId === %d && twinframe.regionChanges === 1", to, id), 90*time.Second)
	line := Eval[string](t, b, fmt.Sprintf(`(twinframe.log(200).find(e => e.text.startsWith("region %s → %s at frame ")) || {text: ""}).text`, from, to))
	var f uint64
	if _, err := fmt.Sscanf(line, "region "+from+" → "+to+" at frame %d", &f); err != nil || f == 0 {
		t.Errorf("no travel line in the event log (%q): %s", line, Eval[string](t, b, "JSON.stringify(twinframe.log(20))"))
	}
	if got := Eval[float64](t, b, "twinframe.avatarId"); got != avatarID {
		t.Errorf("avatar %v after travel, want %v", got, avatarID)
	}
	if !Eval[bool](t, b, "twinframe.overlays.includes('portals')") {
		t.Error("the portals overlay is not on")
	}
	b.WaitTicks(t, 5)
	b.Screenshot(t, "travel-"+to)
}
