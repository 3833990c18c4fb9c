package xdump

import (
	"bytes"
	"io"
	"testing"
)

// world10k fills the test world with 10k entity rows (values derived from the index;
// no random source).
func world10k(b *testing.B) *world {
	w := newWorld(b)
	w.ents = make([]ent, 10000)
	for i := range w.ents {
		f := float32(i)
		w.ents[i] = ent{ID: int32(i), Proto: int16(i % 50), Owner: int32(i % 7), Pos: [3]float32{f * 0.25, -f / 3, 1.5},
			Speed: float64(i) / 7, State: uint32(i % 16), Kind: int8(i % 4), Name: "npc wanderer", Label: "crowd",
			Secret: int32(i), Stealth: int32(i % 3), Timestamp: int64(i)}
	}
	return w
}

func BenchmarkDump10k(b *testing.B) {
	w := world10k(b)
	t := w.reg.Table("entity")
	var n countWriter
	w.reg.WriteTable(&n, t, Options{Viewer: Viewer{Deity: true}})
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.reg.WriteTable(io.Discard, t, Options{Viewer: Viewer{Deity: true}}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse10k(b *testing.B) {
	w := world10k(b)
	var buf bytes.Buffer
	w.reg.WriteTable(&buf, w.reg.Table("entity"), Options{Viewer: Viewer{Deity: true}})
	src := buf.Bytes()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		ds, err := w.reg.Parse("bench", src, Viewer{Deity: true})
		if err != nil || len(ds[0].Rows) != 10000 {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoad10k(b *testing.B) {
	w := world10k(b)
	var buf bytes.Buffer
	w.reg.WriteTable(&buf, w.reg.Table("entity"), Options{Viewer: Viewer{Deity: true}, Export: true})
	src := buf.Bytes()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.reg.Load("bench", src); err != nil {
			b.Fatal(err)
		}
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
