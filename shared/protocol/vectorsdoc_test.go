package protocol_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestProtocolDocListsVectors keeps the table of docs/PROTOCOL.md §13 equal to
// the vector directory: every vector is named in a row (so a client author
// learns what it is and how to check it), and every name a row gives is a
// vector.
func TestProtocolDocListsVectors(t *testing.T) {
	b, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## 13. ")
	if start < 0 {
		t.Fatalf("%s: no section 13", protocolDoc)
	}
	sec := doc[start:]
	if end := strings.Index(sec[1:], "\n## "); end >= 0 {
		sec = sec[:end+1]
	}
	// | `entity_create_avatar`, `entity_create_prop` | ... |: the first column.
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| (`[a-z0-9_]+`(?:, `[a-z0-9_]+`)*) \\|").FindAllStringSubmatch(sec, -1) {
		for _, n := range strings.Split(m[1], ", ") {
			listed[strings.Trim(n, "`")] = true
		}
	}
	ents, err := os.ReadDir(vectorDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".hex"); ok {
			names = append(names, n)
			if !listed[n] {
				t.Errorf("%s §13 has no row naming the vector %s", protocolDoc, n)
			}
		}
	}
	for n := range listed {
		if !slices.Contains(names, n) {
			t.Errorf("%s §13 names %s, which is not in %s", protocolDoc, n, vectorDir)
		}
	}
}
