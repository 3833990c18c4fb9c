package protocol_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/twinframe/twinframe/shared/protocol"
	"google.golang.org/protobuf/proto"
)

var update = flag.Bool("update", false, "rewrite the seed corpus under testdata/fuzz")

// fuzzLimits keep the fuzzers' packets small enough to explore.
var fuzzLimits = protocol.Limits{MaxPacketSize: 1 << 16, MaxMessageSize: 1 << 14, MaxMessages: 64}

// readerSeeds are packets for FuzzReader: well-formed ones and every malformed case.
func readerSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	var p protocol.Packet
	for i, m := range samples() {
		p.Reset(protocol.MuxGame, protocol.CommandData)
		if err := p.Append(m); err != nil {
			t.Fatal(err)
		}
		seeds[fmt.Sprintf("sample-%02d", i)] = bytes.Clone(p.Bytes())
	}
	p.Reset(protocol.MuxGame, protocol.CommandData)
	for _, m := range framePacket() {
		if err := p.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	seeds["frame"] = bytes.Clone(p.Bytes())
	p.Reset(protocol.MuxGame, protocol.CommandConnect)
	seeds["connect"] = bytes.Clone(p.Bytes())
	for i, tc := range malformed() {
		seeds[fmt.Sprintf("malformed-%02d", i)] = tc.pkt
	}
	return seeds
}

// FuzzReader decodes arbitrary packets. It must never panic; a packet it accepts
// must rebuild, through Packet, into a packet that decodes to the same messages
// and rebuilds to itself.
func FuzzReader(f *testing.F) {
	for _, s := range readerSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		r := protocol.Reader{Limits: fuzzLimits}
		h, err := r.Reset(pkt)
		if err != nil {
			if r.Next() {
				t.Fatal("Next after a failed Reset")
			}
			return
		}
		type msg struct {
			id      protocol.ID
			payload []byte
		}
		var got []msg
		for r.Next() {
			got = append(got, msg{r.ID(), r.Payload()})
			if m, err := r.Message(); err == nil {
				checkStable(t, r.ID(), m)
			}
		}
		if r.Err() != nil {
			return
		}
		rebuild := func(msgs []msg) []byte {
			p := protocol.Packet{Limits: fuzzLimits}
			p.Reset(h.Mux, h.Command)
			for _, m := range msgs {
				if err := p.AppendRaw(m.id, m.payload); err != nil {
					t.Fatalf("rebuilding an accepted packet: %v", err)
				}
			}
			return bytes.Clone(p.Bytes())
		}
		again := rebuild(got)
		var r2 protocol.Reader
		r2.Limits = fuzzLimits
		if _, err := r2.Reset(again); err != nil {
			t.Fatalf("rebuilt packet refused: %v", err)
		}
		var got2 []msg
		for r2.Next() {
			got2 = append(got2, msg{r2.ID(), r2.Payload()})
		}
		if r2.Err() != nil || len(got2) != len(got) {
			t.Fatalf("rebuilt packet: %d of %d messages, %v", len(got2), len(got), r2.Err())
		}
		for i := range got {
			if got[i].id != got2[i].id || !bytes.Equal(got[i].payload, got2[i].payload) {
				t.Fatalf("message %d changed in the rebuild", i)
			}
		}
		if !bytes.Equal(rebuild(got2), again) {
			t.Fatal("rebuilding is not stable")
		}
	})
}

// FuzzUnmarshal unmarshals arbitrary payloads under every id. It must never
// panic; an accepted message must marshal under the same id, and that encoding
// must unmarshal and marshal back to itself.
func FuzzUnmarshal(f *testing.F) {
	for _, m := range append(samples(), maximal()...) {
		id, b, err := protocol.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(id), b)
	}
	f.Add(uint8(66), []byte{0x08, 0x05, 0x78, 0x01}) // an unknown field
	f.Add(uint8(63), []byte{})                       // an unknown id
	f.Fuzz(func(t *testing.T, id uint8, payload []byte) {
		m, err := protocol.Unmarshal(protocol.ID(id), payload)
		if err != nil {
			if m != nil {
				t.Fatal("a message and an error")
			}
			return
		}
		checkStable(t, protocol.ID(id), m)
	})
}

// checkStable checks that an accepted message re-encodes stably under its id.
func checkStable(t *testing.T, id protocol.ID, m proto.Message) {
	t.Helper()
	id1, b1, err := protocol.Marshal(m)
	if err != nil {
		t.Fatalf("marshalling an accepted %v: %v", id, err)
	}
	if id1 != id {
		t.Fatalf("accepted as %v, marshals as %v", id, id1)
	}
	m2, err := protocol.Unmarshal(id, b1)
	if err != nil {
		t.Fatalf("unmarshalling a re-encoded %v: %v", id, err)
	}
	if _, b2, err := protocol.Marshal(m2); err != nil || !bytes.Equal(b1, b2) {
		t.Fatalf("%v re-encodes unstably:\n% x\n% x (%v)", id, b1, b2, err)
	}
	if n := protocol.SizeMessage(m); n != protocol.SizeRawMessage(id, len(b1)) {
		t.Fatalf("%v: SizeMessage %d for a %d-byte payload", id, n, len(b1))
	}
}

// TestWriteSeedCorpus rewrites testdata/fuzz from the seeds above with -update.
func TestWriteSeedCorpus(t *testing.T) {
	if !*update {
		t.Skip("not a check: run with -update to rewrite testdata/fuzz (every test run reads it as the fuzz targets' seeds)")
	}
	write := func(target, name, body string) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("go test fuzz v1\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, pkt := range readerSeeds(t) {
		write("FuzzReader", name, fmt.Sprintf("[]byte(%q)\n", pkt))
	}
	for i, m := range append(samples(), maximal()...) {
		id, b, err := protocol.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		write("FuzzUnmarshal", fmt.Sprintf("msg-%02d-%v", i, id), fmt.Sprintf("byte(%q)\n[]byte(%q)\n", byte(id), b))
	}
}
