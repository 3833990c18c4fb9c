//go:build js

package main

import (
	"encoding/json"
	"net/url"
	"strconv"
	"syscall/js"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/client/netsim"
	"github.com/twinframe/twinframe/viewer/scene"
)

// inBrowser says whether the page (and its HTML panel) hosts the viewer.
const inBrowser = true

// pageMode reads ?mode=, ?seed=, ?server=, ?name= and ?token= from the page's URL.
func pageMode() page {
	loc := js.Global().Get("location")
	q, _ := url.ParseQuery(trimQuery(loc.Get("search").String()))
	p := page{mode: q.Get("mode"), server: q.Get("server"), name: q.Get("name"), token: q.Get("token"), xdump: q.Get("xdump") != "off"}
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
	return p
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
	// setNetwork({latency, jitter (ms), bandwidth (bytes/s, 0: unlimited)}) returns "" or
	// the reason it did nothing.
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
		}
		if err := v.SetNetwork(c); err != nil {
			return err.Error()
		}
		return ""
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
