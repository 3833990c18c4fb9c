package xdumptest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/shared/xdump"
	"github.com/twinframe/twinframe/shared/xdump/xdumptest"
)

type prop struct {
	ID     int32
	Name   string
	Radius float32
	Kind   int32
	Flags  uint8
}

func registry(props *[]prop) *xdump.Registry {
	r := xdump.NewRegistry(xdump.DefaultMetaUIDs)
	r.Register(xdump.SymbolTable(10, "kind", []xdump.Symbol{{Value: 0, Name: "none"}, {Value: 1, Name: "blocking"}}))
	r.Register(xdump.SymbolTable(11, "prop-flags", []xdump.Symbol{{Value: 1, Name: "static"}, {Value: 2, Name: "lit"}}))
	r.Register(xdump.NewTable(xdump.Schema{UID: 12, Name: "prop", Key: xdump.KeyID}, props,
		xdump.Int("id", func(p *prop) *int32 { return &p.ID }).Ref("prop"),
		xdump.String("name", func(p *prop) *string { return &p.Name }),
		xdump.Float("radius", func(p *prop) *float32 { return &p.Radius }),
		xdump.Int("kind", func(p *prop) *int32 { return &p.Kind }).Ref("kind"),
		xdump.Int("flags", func(p *prop) *uint8 { return &p.Flags }).BitsOf("prop-flags"),
	))
	return r
}

type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCheckRoundTrip(t *testing.T) {
	props := []prop{{0, "car", 2.25, 1, 3}, {3, "crate \"x\"", 0.1, 0, 0}}
	xdumptest.CheckRoundTrip(t, registry(&props))

	props[1].Kind = 7 // a dangling reference
	var rec recorder
	xdumptest.CheckRoundTrip(&rec, registry(&props))
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "row 1 field kind: value 7") {
		t.Errorf("got %q", rec.errs)
	}
}
