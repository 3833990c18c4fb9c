package protocol_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/shared/protocol"
	"github.com/twinframe/twinframe/shared/protocol/pb"
)

const protocolDoc = "../../docs/PROTOCOL.md"

// TestProtocolDoc keeps docs/PROTOCOL.md equal to the code where the two can be
// compared: its title's version, its version range, the message id table
// (ids, directions, names, deity flags, payload caps), the error code table
// (codes, close codes, names), and each worked example's bytes, which must
// occur in the test vector it cites.
func TestProtocolDoc(t *testing.T) {
	b, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{
		fmt.Sprintf("(protocol version %d, API twinframe.v1)", protocol.Version),
		fmt.Sprintf("accepts versions %d to %d", protocol.MinVersion, protocol.Version),
		fmt.Sprintf("`protocol_version` (this document: **%d**)", protocol.Version),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("%s lacks %q", protocolDoc, want)
		}
	}

	// | 1 | c→s | NetMessageLogin | | 1 KiB | ... |
	rows := regexp.MustCompile(`(?m)^\| (\d+) \| (c→s|s→c) \| (NetMessage\w+) \| (deity)? ?\| ([^|]+?) \|`).FindAllStringSubmatch(doc, -1)
	msgs := protocol.Messages()
	if len(rows) != len(msgs) {
		t.Errorf("%s: %d rows in the message table, the Go table has %d", protocolDoc, len(rows), len(msgs))
	}
	for i, m := range msgs {
		if i >= len(rows) {
			break
		}
		dir := map[protocol.Direction]string{protocol.ClientToServer: "c→s", protocol.ServerToClient: "s→c"}[m.Dir]
		deity := ""
		if m.Deity {
			deity = "deity"
		}
		want := []string{strconv.Itoa(int(m.ID)), dir, m.Name(), deity, size(m.MaxPayload)}
		if got := rows[i][1:]; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s message table row %d: %q, want %q", protocolDoc, i+1, got, want)
		}
	}

	// | 1 | 4001 | BAD_PACKET | ... |
	codes := regexp.MustCompile(`(?m)^\| (\d+) \| (\d+|—) \| ([A-Z_]+) \|`).FindAllStringSubmatch(doc, -1)
	n := len(pb.ErrorCode_name) - 1 // not UNSPECIFIED
	if len(codes) != n {
		t.Errorf("%s: %d rows in the error table, the .proto has %d codes", protocolDoc, len(codes), n)
	}
	for _, c := range codes {
		v, _ := strconv.Atoi(c[1])
		name, ok := pb.ErrorCode_name[int32(v)]
		if !ok || name != "ERROR_CODE_"+c[3] {
			t.Errorf("%s error table: %s %s is not a code of the .proto (%s)", protocolDoc, c[1], c[3], name)
		}
		close := strconv.Itoa(4000 + v)
		if pb.ErrorCode(v) == pb.ErrorCode_ERROR_CODE_SLOW_CONSUMER {
			close = "—" // dropped without a close frame
		}
		if c[2] != close {
			t.Errorf("%s error table: %s closes with %s, want %s", protocolDoc, c[3], c[2], close)
		}
	}

	// Example (`NAME.hex`): ... `05 | 02 00 ...` : the bytes must be in the vector.
	examples := regexp.MustCompile("Example \\(`(\\w+)\\.hex`[^)]*\\):[^`]*`([0-9a-f |…]+)`").FindAllStringSubmatch(doc, -1)
	if len(examples) < 5 {
		t.Errorf("%s: %d worked examples found; the document has one for each layout", protocolDoc, len(examples))
	}
	for _, e := range examples {
		vec, err := os.ReadFile(filepath.Join(vectorDir, e[1]+".hex"))
		if err != nil {
			t.Errorf("%s cites vector %s: %v", protocolDoc, e[1], err)
			continue
		}
		hex := strings.Join(strings.Fields(string(vec)), "")
		ex := strings.NewReplacer(" ", "", "|", "", "…", "").Replace(e[2])
		if !strings.Contains(hex, ex) {
			t.Errorf("%s: the example of %s.hex, %s, is not in the vector:\n%s", protocolDoc, e[1], e[2], hex)
		}
	}
}

func size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// TestProtocolDocContactTable keeps the NetStructDebugContact table of
// docs/PROTOCOL.md §12.1 equal to the .proto: every field once, in number order,
// with its name and type, so the section a client is written from cannot drift
// from the message it describes.
func TestProtocolDocContactTable(t *testing.T) {
	b, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start, end := strings.Index(doc, "\n### 12.1 "), strings.Index(doc, "\n## 13. ")
	if start < 0 || end < start {
		t.Fatalf("%s: no section 12.1 before section 13", protocolDoc)
	}
	// | 5, 6 | `start_x`, `start_y` | float | ... |
	row := regexp.MustCompile("(?m)^\\| (\\d+)(?:, (\\d+))? \\| `(\\w+)`(?:, `(\\w+)`)? \\| ([a-z0-9 ]+) \\|")
	type field struct {
		num  string
		name string
		typ  string
	}
	var got []field
	for _, m := range row.FindAllStringSubmatch(doc[start:end], -1) {
		got = append(got, field{m[1], m[3], m[5]})
		if m[2] != "" || m[4] != "" {
			got = append(got, field{m[2], m[4], m[5]})
		}
	}
	var want []field
	fs := pb.File_shared_protocol_pb_twinframe_proto.Messages().ByName("NetStructDebugContact").Fields()
	for i := range fs.Len() {
		f := fs.Get(i)
		typ := f.Kind().String()
		if f.IsList() {
			typ = "packed " + typ
		}
		want = append(want, field{strconv.Itoa(int(f.Number())), string(f.Name()), typ})
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s §12.1 NetStructDebugContact table:\n got  %v\n want %v (the .proto)", protocolDoc, got, want)
	}
}
