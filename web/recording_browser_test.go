//go:build !js

package web_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twinframe/twinframe/client/clienttest"
	"github.com/twinframe/twinframe/internal/testenv"
	"github.com/twinframe/twinframe/shared/recording"
	"github.com/twinframe/twinframe/shared/replica"
	"github.com/twinframe/twinframe/shared/replication/replicationtest"
	"github.com/twinframe/twinframe/web"
	"github.com/twinframe/twinframe/web/webtest"
)

// TestBrowserRecording: in real Chromium, the page saves the networked session's
// recording and opens it again through the file picker; and ?replay= opens a failed
// headless run's recording at its first violation with its entities selected.
func TestBrowserRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: browser test; make test runs it")
	}
	if _, err := os.Stat(webtest.ChromiumPath); err != nil {
		testenv.Missing(t, "browser test: %s not found (make setup installs chromium)", webtest.ChromiumPath)
	}
	dir := webtest.BuildWasm(t, "../wasm")
	// A browser each: one that hangs does not take the other down.
	t.Run("SaveAndReopen", func(t *testing.T) { testSaveAndReopen(t, webtest.StartBrowser(t, pageW, pageH), dir) })
	t.Run("CIRecording", func(t *testing.T) { testCIRecording(t, webtest.StartBrowser(t, pageW, pageH), dir) })
}

func testSaveAndReopen(t *testing.T, bctx context.Context, wasmDir string) {
	cs, err := clienttest.NewServer(&replicationtest.Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	cs.Listen()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); cs.Run(ctx, replica.FrameDuration) }()
	defer func() { cancel(); <-done; cs.Close() }()
	target, err := url.Parse(cs.HTTP.URL)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/ws", httputil.NewSingleHostReverseProxy(target))
	mux.Handle("/", web.Handler(web.Options{WasmDir: wasmDir}))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	b := webtest.NewTab(t, bctx)
	b.Do(t, chromedp.EmulateViewport(pageW, pageH), chromedp.Navigate(srv.URL+"/?name=recorder"))
	b.Poll(t, "the connection", "window.twinframe && twinframe.ready && twinframe.connected && twinframe.avatarId > 0", 90*time.Second)
	a := avatar(t, b)
	goal := vec{a.X + 5, a.Y - 3}
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("twinframe.moveTo(%v, %v)", goal.X, goal.Y)))
	waitArrive(t, b, goal)
	// A frame in the middle of the walk, with the avatar's authoritative position
	// the live replay shows there.
	mid := webtest.Eval[float64](t, b, "Math.floor((twinframe.recordedFrom + twinframe.recorded) / 2)")
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("twinframe.seek(%v)", mid)))
	b.Poll(t, "the live replay", fmt.Sprintf("twinframe.replaying && twinframe.frame === %v", mid), 10*time.Second)
	liveAt := webtest.Eval[[]float64](t, b, "twinframe.avatarServer")
	liveID := webtest.Eval[float64](t, b, "twinframe.avatarId")

	// The save button downloads the file; the file itself is taken through the API.
	b.Do(t, chromedp.Click(chromedp.ID("b-save")))
	b.Poll(t, "the save button's message", `document.getElementById("rec-status").textContent.startsWith("saved twinframe-network-")`, 10*time.Second)
	enc := webtest.Eval[string](t, b, `(() => { const b = twinframe.saveRecording(); if (typeof b === "string") return "error: " + b;
		let s = ""; for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode(...b.subarray(i, i + 8192)); return btoa(s); })()`)
	data, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatalf("saveRecording: %.200s", enc)
	}
	rec, err := recording.Decode(data)
	if err != nil || rec.Header.Kind != recording.Client {
		t.Fatalf("the saved file: %v", err)
	}
	path := filepath.Join(t.TempDir(), "session.rec")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}

	// Open it with the file picker: the page shows the file, not the server.
	b.Do(t, chromedp.SetUploadFiles(chromedp.ID("f-open"), []string{path}, chromedp.NodeReady))
	b.Poll(t, "the recording opened", `twinframe.mode === "recording" && twinframe.recording && twinframe.recording.kind === "client"`, 20*time.Second)
	b.Do(t, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("twinframe.seek(%v)", mid)))
	b.Poll(t, "the seek", fmt.Sprintf("twinframe.frame === %v", mid), 10*time.Second)
	got := webtest.Eval[[]float64](t, b, "twinframe.avatarServer")
	if id := webtest.Eval[float64](t, b, "twinframe.avatarId"); id != liveID || got[0] != liveAt[0] || got[1] != liveAt[1] {
		t.Errorf("frame %v from the file: avatar %v at %v; the live replay had %v at %v", mid, id, got, liveID, liveAt)
	}
	if msg := webtest.Eval[string](t, b, `document.getElementById("rec-status").textContent`); msg != "opened session.rec" {
		t.Errorf("status line %q", msg)
	}
	b.Screenshot(t, "reopened")
}

// testCIRecording runs `server headless` with a fault only a test sets (an AOI
// remove radius of 5 m, which the server's 50 m breaks at once), serves its
// recording beside the page and opens it with ?replay=.
func testCIRecording(t *testing.T, bctx context.Context, wasmDir string) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "headless.rec")
	cmd := exec.Command(gocmd, "run", "../server", "headless", "-frames", "40", "-bots", "2", "-travel", "0",
		"-check-aoi-remove", "5", "-record", path)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("the faulty headless run: %v, want exit 1\n%.2000s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := recording.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	first, ok := rec.FirstViolation()
	if !ok || len(first.Entities) == 0 {
		t.Fatalf("the run recorded no violation with entities: %+v", rec.Violations)
	}
	mux := http.NewServeMux()
	mux.Handle("/out/", http.StripPrefix("/out/", http.FileServer(http.Dir(dir))))
	mux.Handle("/", web.Handler(web.Options{WasmDir: wasmDir}))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	b := webtest.NewTab(t, bctx)
	b.Do(t, chromedp.EmulateViewport(pageW, pageH), chromedp.Navigate(srv.URL+"/?replay=/out/headless.rec"))
	b.Poll(t, "the recording", `window.twinframe && twinframe.ready && twinframe.mode === "recording" && twinframe.ticks > 3`, 90*time.Second)
	want := fmt.Sprintf(`twinframe.frame === %d && twinframe.selected === %d && twinframe.recording.violation.frame === %d &&
		JSON.stringify(twinframe.recording.marked) === %q && twinframe.inspect().length > 0`,
		first.Frame, first.Entities[0], first.Frame, fmt.Sprint(jsonInts(first.Entities)))
	if !webtest.Eval[bool](t, b, want) {
		t.Fatalf("want the page at frame %d with %v selected: %s", first.Frame, first.Entities,
			webtest.Eval[string](t, b, "JSON.stringify({frame: twinframe.frame, selected: twinframe.selected, recording: twinframe.recording})"))
	}
	b.Poll(t, "the violation shown in the panel", fmt.Sprintf(`document.getElementById("rec-violation").textContent.includes("first at frame %d: %s")`, first.Frame, first.Check), 5*time.Second)
	// Step and seek through the file.
	b.Do(t, chromedp.Evaluate[chromedp.Void]("twinframe.step()"))
	b.Poll(t, "a step", fmt.Sprintf("twinframe.frame === %d", first.Frame+1), 10*time.Second)
	b.Screenshot(t, "ci-violation")
}

// jsonInts formats ids as a JSON array.
func jsonInts(ids []uint64) string {
	s := "["
	for i, id := range ids {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(id)
	}
	return s + "]"
}
