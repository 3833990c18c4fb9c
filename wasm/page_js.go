//go:build js

package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/viewer/scene"
)

// inBrowser says whether the page (and its HTML panel) hosts the viewer.
const inBrowser = true

// pageMode reads ?mode=, ?seed=, ?server=, ?name= and the deity token (#token= or
// ?token=) from the page's URL, and the account's secret from localStorage.
func pageMode() page {
	loc := js.Global().Get("location")
	q, _ := url.ParseQuery(trimQuery(loc.Get("search").String()))
	p := page{mode: q.Get("mode"), server: q.Get("server"), name: q.Get("name"), xdump: q.Get("xdump") != "off", replay: q.Get("replay")}
	if p.mode == "" {
		p.mode = modeNetwork
	}
	var err error
	if p.seed, err = strconv.ParseUint(q.Get("seed"), 10, 64); err != nil {
		p.seed = 1
	}
	if p.server == "" {
		scheme := "ws://"
		if loc.Get("protocol").String() == "https:" {
			scheme = "wss://"
		}
		p.server = scheme + loc.Get("host").String() + "/ws"
	}
	if p.name == "" {
		p.name = "viewer"
	}
	p.token = deityToken(loc, q)
	key := secretKey(p.server, p.name)
	p.secret = storageGet("localStorage", key)
	p.onIssued = func(tok string) { storageSet("localStorage", key, tok) }
	return p
}

// tokenKey is the sessionStorage key of the deity token.
const tokenKey = "twinframe.deityToken"

// deityToken takes the deity token from the URL's fragment (#token=, which the
// browser never sends to a server) or query (?token=), removes it from the
// address bar and the history entry (history.replaceState), and keeps it in
// sessionStorage for reloads of this tab; without one in the URL it returns the
// kept one.
func deityToken(loc js.Value, q url.Values) string {
	frag, _ := url.ParseQuery(strings.TrimPrefix(loc.Get("hash").String(), "#"))
	tok := frag.Get("token")
	if tok == "" {
		tok = q.Get("token")
	}
	if !frag.Has("token") && !q.Has("token") {
		return storageGet("sessionStorage", tokenKey)
	}
	storageSet("sessionStorage", tokenKey, tok)
	frag.Del("token")
	q.Del("token")
	clean := loc.Get("pathname").String()
	if len(q) > 0 {
		clean += "?" + q.Encode()
	}
	if len(frag) > 0 {
		clean += "#" + frag.Encode()
	}
	hist := js.Global().Get("history")
	if hist.Type() == js.TypeObject {
		safeJS(func() { hist.Call("replaceState", js.Null(), "", clean) })
	}
	return tok
}

// secretKey is the localStorage key of the account secret for a name on a
// server: the server's origin (scheme and host) and the name.
func secretKey(server, name string) string {
	origin := server
	if u, err := url.Parse(server); err == nil {
		origin = u.Scheme + "://" + u.Host
	}
	return "twinframe.secret " + origin + " " + name
}

// storageGet reads key from window[store] (localStorage, sessionStorage): ""
// when it is missing or storage is unavailable (a private window, a sandbox).
func storageGet(store, key string) (v string) {
	safeJS(func() {
		if st := js.Global().Get(store); st.Type() == js.TypeObject {
			if x := st.Call("getItem", key); x.Type() == js.TypeString {
				v = x.String()
			}
		}
	})
	return v
}

// storageSet writes key to window[store], if storage is available.
func storageSet(store, key, value string) {
	safeJS(func() {
		if st := js.Global().Get(store); st.Type() == js.TypeObject {
			st.Call("setItem", key, value)
		}
	})
}

// safeJS runs f, turning a JavaScript exception (storage denied, quota) into a
// console warning instead of a crash of the viewer.
func safeJS(f func()) {
	defer func() {
		if r := recover(); r != nil {
			js.Global().Get("console").Call("warn", "twinframe: ", fmt.Sprint(r))
		}
	}()
	f()
}

func trimQuery(s string) string {
	if len(s) > 0 && s[0] == '?' {
		return s[1:]
	}
	return s
}

// twinframe returns window.twinframe, creating it.
func twinframe() js.Value {
	tf := js.Global().Get("twinframe")
	if tf.Type() != js.TypeObject {
		tf = js.Global().Get("Object").New()
		js.Global().Set("twinframe", tf)
	}
	return tf
}

// fail shows err in window.twinframe and on the console.
func fail(mode string, err error) {
	tf := twinframe()
	tf.Set("mode", mode)
	tf.Set("connected", false)
	tf.Set("error", err.Error())
	tf.Set("ready", false)
	js.Global().Get("console").Call("warn", "twinframe: "+err.Error())
	if f := js.Global().Get("twinframeError"); f.Type() == js.TypeFunction {
		f.Invoke(err.Error())
	}
}

// publish installs window.twinframe's functions and returns the function that copies the
// view's state into it after every update.
func publish(v *scene.View) func() {
	tf := twinframe()
	fn := func(name string, f func(args []js.Value) any) {
		tf.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) any { return f(args) }))
	}
	num := func(args []js.Value, i int) float32 {
		if i < len(args) && args[i].Type() == js.TypeNumber {
			return float32(args[i].Float())
		}
		return 0
	}
	str := func(args []js.Value, i int) string {
		if i < len(args) && args[i].Type() == js.TypeString {
			return args[i].String()
		}
		return ""
	}
	fn("moveTo", func(a []js.Value) any { v.MoveTo(num(a, 0), num(a, 1)); return true })
	fn("fire", func(a []js.Value) any { v.Fire(num(a, 0), num(a, 1)); return true })
	fn("pause", func([]js.Value) any { v.Do(scene.Pause); return true })
	fn("resume", func([]js.Value) any { v.Do(scene.Resume); return true })
	fn("step", func([]js.Value) any { v.Do(scene.Step); return true })
	fn("seek", func(a []js.Value) any { v.Seek(uint64(max(num(a, 0), 0))); return true })
	fn("select", func(a []js.Value) any { v.Select(uint64(num(a, 0))); return true })
	fn("follow", func(a []js.Value) any { v.SetFollow(len(a) == 0 || a[0].Truthy()); return true })
	warn := func(err error) any {
		js.Global().Get("console").Call("warn", "twinframe: "+err.Error())
		return nil
	}
	fn("toggle", func(a []js.Value) any {
		on, err := v.Toggle(str(a, 0))
		if err != nil {
			return warn(err) // null: no such overlay
		}
		return on
	})
	fn("setOverlay", func(a []js.Value) any {
		if err := v.SetOverlay(str(a, 0), len(a) > 1 && a[1].Truthy()); err != nil {
			return warn(err)
		}
		return true
	})
	fn("worldToScreen", func(a []js.Value) any {
		cam := v.Camera()
		x, y := cam.ToScreen(mgl32.Vec2{num(a, 0), num(a, 1)})
		return map[string]any{"x": x, "y": y}
	})
	fn("screenToWorld", func(a []js.Value) any {
		cam := v.Camera()
		p := cam.ToWorld(num(a, 0), num(a, 1))
		return map[string]any{"x": p[0], "y": p[1]}
	})
	fn("inspect", func([]js.Value) any {
		out := []any{}
		for _, f := range v.Inspect() {
			out = append(out, map[string]any{"name": f.Name, "value": f.Value})
		}
		return out
	})
	fn("log", func(a []js.Value) any {
		n := int(num(a, 0))
		if n <= 0 {
			n = 50
		}
		out := []any{}
		for _, e := range v.LogTail(n) {
			out = append(out, map[string]any{"frame": float64(e.Frame), "text": e.Text})
		}
		return out
	})
	// setNetwork({latency, jitter (ms), bandwidth (bytes/s, 0: unlimited), loss (% of
	// TCP segments)}) returns "" or the reason it did nothing.
	fn("setNetwork", func(a []js.Value) any {
		var c netsim.Conditions
		if len(a) > 0 && a[0].Type() == js.TypeObject {
			ms := func(k string) time.Duration {
				if x := a[0].Get(k); x.Type() == js.TypeNumber {
					return time.Duration(x.Float() * float64(time.Millisecond))
				}
				return 0
			}
			c.Latency, c.Jitter = ms("latency"), ms("jitter")
			if x := a[0].Get("bandwidth"); x.Type() == js.TypeNumber {
				c.Bandwidth = x.Int()
			}
			if x := a[0].Get("loss"); x.Type() == js.TypeNumber {
				c.Loss = x.Float() / 100
			}
		}
		if err := v.SetNetwork(c); err != nil {
			return err.Error()
		}
		// The conditions are in force now: show them now, not at the next update's
		// copy of the state, or the panel's sliders, which follow these fields,
		// would fall back to the old ones until then.
		var st scene.Status
		scene.ReportNet(&st, c)
		tf.Set("netLatency", st.NetLatencyMS)
		tf.Set("netJitter", st.NetJitterMS)
		tf.Set("netBandwidth", st.NetBandwidth)
		tf.Set("netLoss", st.NetLossPct)
		return ""
	})
	publishTimeline(v, fn)
	// The deity tools (the debug commands and live edit of docs/ARCHITECTURE.md
	// §5): each returns "" once sent, or why it was refused (no deity token, not
	// connected, the sandbox). The server's answer arrives in deityReplies,
	// deityReply and deityReplyError.
	deity := func(op scene.DeityOp) any {
		if err := v.Deity(op); err != nil {
			return err.Error()
		}
		return ""
	}
	fn("teleport", func(a []js.Value) any {
		return deity(scene.DeityOp{Kind: scene.DeityTeleport, Player: str(a, 0), Region: int32(num(a, 1)), Marker: int32(num(a, 2))})
	})
	fn("spawn", func(a []js.Value) any {
		return deity(scene.DeityOp{Kind: scene.DeitySpawn, Prototype: int32(num(a, 0)), Point: mgl32.Vec2{num(a, 1), num(a, 2)}})
	})
	fn("kill", func(a []js.Value) any {
		id := 0.0
		if len(a) > 0 && a[0].Type() == js.TypeNumber {
			id = a[0].Float() // entity ids pass 2^24: not through num's float32
		}
		return deity(scene.DeityOp{Kind: scene.DeityKill, Entity: uint64(max(id, 0))})
	})
	fn("editTable", func(a []js.Value) any { return deity(scene.DeityOp{Kind: scene.DeityEdit, Records: str(a, 0)}) })
	fn("serverPause", func([]js.Value) any { return deity(scene.DeityOp{Kind: scene.DeityPause}) })
	fn("serverStep", func([]js.Value) any { return deity(scene.DeityOp{Kind: scene.DeityStep}) })
	fn("serverResume", func([]js.Value) any { return deity(scene.DeityOp{Kind: scene.DeityResume}) })
	fn("tableText", func(a []js.Value) any {
		text, err := v.TableText(str(a, 0))
		if err != nil {
			return warn(err)
		}
		return text
	})
	fn("entityList", func([]js.Value) any {
		out := []any{}
		for _, e := range v.Entities() {
			out = append(out, map[string]any{"id": float64(e.ID), "prototype": e.Prototype, "x": e.X, "y": e.Y, "own": e.Own})
		}
		return out
	})
	tables := []any{}
	for _, t := range scene.EditableTables() {
		tables = append(tables, t)
	}
	tf.Set("editableTables", tables)
	// saveRecording() returns the recording as a file (a Uint8Array), or why not;
	// openRecording(bytes) shows a file instead of the source and returns a promise
	// of "" or why not.
	fn("saveRecording", func([]js.Value) any {
		b, err := v.SaveRecording()
		if err != nil {
			return err.Error()
		}
		arr := js.Global().Get("Uint8Array").New(len(b))
		js.CopyBytesToJS(arr, b)
		return arr
	})
	fn("openRecording", func(a []js.Value) any {
		if len(a) == 0 || !a[0].InstanceOf(js.Global().Get("Uint8Array")) {
			return "openRecording takes the file's bytes as a Uint8Array"
		}
		b := make([]byte, a[0].Length())
		js.CopyBytesToGo(b, a[0])
		// Decoding and restoring the first frame take a while and take the view's
		// lock, which a callback must not wait for (it would hold up the event loop
		// the viewer's own goroutine waits on): the work runs in a goroutine and
		// the page gets a promise of "" or why not.
		var executor js.Func
		executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
			resolve := args[0]
			go func() {
				msg := ""
				if err := v.OpenRecording(b); err != nil {
					msg = err.Error()
				}
				resolve.Invoke(msg)
				executor.Release()
			}()
			return nil
		})
		return js.Global().Get("Promise").New(executor)
	})
	names := []any{}
	for _, o := range scene.AllOverlays() {
		names = append(names, o.Name())
	}
	tf.Set("overlayNames", names)
	jsonParse := js.Global().Get("JSON").Get("parse")
	assign := js.Global().Get("Object").Get("assign")
	var buf []byte
	return func() {
		s := v.Snapshot()
		var err error
		buf, err = json.Marshal(s)
		if err != nil {
			return
		}
		assign.Invoke(tf, jsonParse.Invoke(string(buf)))
		tf.Set("ready", true)
	}
}

// readRecording fetches the recording at rawURL (relative to the page) with the page's
// fetch: net/http's client would link its transport, TLS and x509 into the wasm (about
// 4 MB of code) for this one request.
func readRecording(rawURL string) ([]byte, error) {
	base, err := url.Parse(js.Global().Get("location").Get("href").String())
	if err != nil {
		return nil, err
	}
	u, err := base.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	res, err := await(js.Global().Call("fetch", u.String()))
	if err != nil {
		return nil, err
	}
	if st := res.Get("status").Int(); st != 200 {
		return nil, fmt.Errorf("%s", strings.TrimSpace(fmt.Sprintf("%d %s", st, res.Get("statusText").String())))
	}
	// Refuse an oversized file before reading its body when its length is declared.
	if n, err := strconv.ParseInt(res.Get("headers").Call("get", "Content-Length").String(), 10, 64); err == nil && n > maxRecordingFile {
		return nil, fmt.Errorf("%d bytes, more than the %d a recording may have", n, maxRecordingFile)
	}
	buf, err := await(res.Call("arrayBuffer"))
	if err != nil {
		return nil, err
	}
	n := buf.Get("byteLength").Int()
	if n > maxRecordingFile {
		return nil, fmt.Errorf("%d bytes, more than the %d a recording may have", n, maxRecordingFile)
	}
	b := make([]byte, n)
	js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(buf))
	return b, nil
}

// await blocks until the promise p settles, and gives its value or its rejection
// (the wasm's other goroutines and the page's event loop run meanwhile).
func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- result{v: args[0]}
		return nil
	})
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := args[0].String()
		if args[0].Type() == js.TypeObject && args[0].Get("message").Type() == js.TypeString {
			msg = args[0].Get("message").String()
		}
		done <- result{err: fmt.Errorf("%s", msg)}
		return nil
	})
	defer onOK.Release()
	defer onErr.Release()
	p.Call("then", onOK, onErr)
	r := <-done
	return r.v, r.err
}

// maxRecordingFile caps a recording the page fetches (a 1,200-frame headless run
// of the default world is about 3 MB).
const maxRecordingFile = 1 << 30
