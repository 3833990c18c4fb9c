//go:build js

package main

import (
	"encoding/json"
	"syscall/js"

	"github.com/twinframe/twinframe/viewer/scene"
)

// publishTimeline installs the event timeline's calls on window.twinframe:
//
//	timeline({entity, kinds, limit}) — the rows, oldest first: {index, frame, kind, a, b,
//	    point, normal, value, origin, repeat}; entity 0 and kinds [] select all, limit
//	    (default 200) keeps the newest
//	selectRow(index) — seek to the row's frame (pausing), select its entities; returns
//	    the row, or null (and a console warning) when there is no such row
//	selection() — {row (null: none), entities, contact: [{name, value}], error}
func publishTimeline(v *scene.View, fn func(name string, f func(args []js.Value) any)) {
	parse := js.Global().Get("JSON").Get("parse")
	toJS := func(x any) any {
		b, err := json.Marshal(x)
		if err != nil {
			return nil
		}
		return parse.Invoke(string(b))
	}
	fn("timeline", func(a []js.Value) any {
		f, limit := scene.TimelineFilter{}, 200
		if len(a) > 0 && a[0].Type() == js.TypeObject {
			o := a[0]
			if x := o.Get("entity"); x.Type() == js.TypeNumber {
				f.Entity = uint64(max(x.Float(), 0))
			}
			if x := o.Get("kinds"); x.Type() == js.TypeObject {
				for i := range x.Length() {
					if k := x.Index(i); k.Type() == js.TypeString {
						f.Kinds = append(f.Kinds, k.String())
					}
				}
			}
			if x := o.Get("limit"); x.Type() == js.TypeNumber {
				limit = x.Int()
			}
		}
		return toJS(v.Timeline(f, limit))
	})
	fn("selectRow", func(a []js.Value) any {
		if len(a) == 0 || a[0].Type() != js.TypeNumber {
			js.Global().Get("console").Call("warn", "twinframe: selectRow(index) wants a row index")
			return nil
		}
		r, err := v.SelectRow(a[0].Int())
		if err != nil {
			js.Global().Get("console").Call("warn", "twinframe: "+err.Error())
			return nil
		}
		return toJS(r)
	})
	fn("selection", func([]js.Value) any {
		s := v.Selection()
		contact := []map[string]string{}
		for _, f := range s.Contact {
			contact = append(contact, map[string]string{"name": f.Name, "value": f.Value})
		}
		return toJS(map[string]any{"row": s.Row, "entities": s.Entities, "contact": contact, "error": s.Error})
	})
}
