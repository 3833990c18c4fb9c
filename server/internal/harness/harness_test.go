package harness

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestPercentiles(t *testing.T) {
	t.Parallel()
	ms := func(n ...int) []time.Duration {
		var d []time.Duration
		for _, v := range n {
			d = append(d, time.Duration(v)*time.Millisecond)
		}
		return d
	}
	var hundred []int
	for i := 100; i >= 1; i-- {
		hundred = append(hundred, i)
	}
	cases := []struct {
		name string
		in   []time.Duration
		want Durations
	}{
		{"empty", nil, Durations{}},
		{"one", ms(7), Durations{7, 7, 7, 7}},
		{"unsorted", ms(3, 1, 2), Durations{2, 3, 3, 3}},
		{"hundred", ms(hundred...), Durations{51, 91, 100, 100}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := slices.Clone(tc.in)
			if got := Percentiles(tc.in); got != tc.want {
				t.Errorf("Percentiles(%v) = %+v, want %+v", tc.in, got, tc.want)
			}
			if !slices.Equal(in, tc.in) {
				t.Errorf("Percentiles changed its argument: %v, was %v", tc.in, in)
			}
		})
	}
}

// A report path in a folder that does not exist yet works (-report out/run.json
// in a fresh checkout).
func TestWriteJSONCreatesFolder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out", "sub", "run.json")
	if err := WriteJSON(path, map[string]int{"frames": 3}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"frames\": 3\n}\n"; string(b) != want {
		t.Errorf("file %q, want %q", b, want)
	}
}
