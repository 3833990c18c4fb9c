package protocol

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// renderTable renders the message table as it appears in doc.go.
func renderTable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "//\t%-4s %-14s %-32s %-6s %s\n", "id", "direction", "message", "deity", "max payload")
	for _, m := range Messages() {
		deity := ""
		if m.Deity {
			deity = "deity"
		}
		fmt.Fprintf(&b, "//\t%-4d %-14s %-32s %-6s %s\n", m.ID, m.Dir, m.Name(), deity, sizeString(m.MaxPayload))
	}
	return b.String()
}

func sizeString(n int) string {
	switch {
	case n >= miB && n%miB == 0:
		return fmt.Sprintf("%d MiB", n/miB)
	case n >= kiB && n%kiB == 0:
		return fmt.Sprintf("%d KiB", n/kiB)
	}
	return fmt.Sprintf("%d B", n)
}

// TestDocTable keeps the id table in the package doc equal to the Go table.
func TestDocTable(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	want := renderTable()
	if !strings.Contains(string(doc), want) {
		t.Errorf("doc.go's message table differs from the Go table; it should read:\n%s", want)
	}
}
