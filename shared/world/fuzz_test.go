package world

import (
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/twinframe/twinframe/shared/xdump"
)

// FuzzLoad replaces one file of the default world with mutated text: Load must return
// a world or an error naming a file and line, never panic; a world it returns verifies.
func FuzzLoad(f *testing.F) {
	base := fstest.MapFS{}
	names, err := fs.Glob(DefaultFiles(), "*.config")
	if err != nil || len(names) == 0 {
		f.Fatal(names, err)
	}
	for i, n := range names {
		data, err := fs.ReadFile(DefaultFiles(), n)
		if err != nil {
			f.Fatal(err)
		}
		base[n] = &fstest.MapFile{Data: data}
		f.Add(uint8(i), data)
	}
	f.Add(uint8(3), []byte("config marker\nid area kind pos(0) pos(1) radius rot prop-set\n0 park spawn 1e38 -1e38 0 0 -1\n/config\n"))
	f.Add(uint8(1), []byte("config vertex\npolygon seq pos(0) pos(1)\nfp-van 0 nan inf\n/config\n"))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		m := fstest.MapFS{}
		for n, file := range base {
			m[n] = file
		}
		m[names[int(which)%len(names)]] = &fstest.MapFile{Data: data}
		w, err := Load(m)
		if err != nil {
			var pe *xdump.ParseError
			var we *Error
			if !errors.As(err, &pe) && !errors.As(err, &we) {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		if err := w.Verify(); err != nil {
			t.Fatalf("Load returned a world that does not verify: %v", err)
		}
	})
}
