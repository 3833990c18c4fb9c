package archive_test

import (
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/archive/archivetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestEntityGolden pins the bytes of the benchmark entity in every mode, so that
// work on the packer's speed cannot change what it writes.
func TestEntityGolden(t *testing.T) {
	t.Parallel()
	for _, mode := range archivetest.AllModes {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			p := archive.NewPacker(mode, archive.AllChannels)
			p.TransferObject(sampleEntity())
			if err := p.Err(); err != nil {
				t.Fatal(err)
			}
			got := p.Bytes()
			path := filepath.Join("testdata", "entity."+strings.ToLower(mode.String())+".hex")
			if *update {
				if err := os.WriteFile(path, []byte(hex.EncodeToString(got)+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := hex.DecodeString(strings.TrimSpace(string(text)))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s:\n got % X\nwant % X", path, got, want)
			}
		})
	}
}

// TestEntityAllocations holds the speed contract of the benchmarks: packing into a
// reused packer allocates nothing, and unpacking allocates only the name.
func TestEntityAllocations(t *testing.T) {
	e := sampleEntity()
	p := archive.NewPacker(archive.Replication, archive.AllChannels)
	p.TransferObject(e)
	data := bytes.Clone(p.Bytes())
	pack := testing.AllocsPerRun(100, func() {
		p.Reset(archive.Replication, archive.AllChannels)
		p.TransferObject(e)
	})
	var u archive.Archive
	var out testEntity
	unpack := testing.AllocsPerRun(100, func() {
		if err := u.ResetUnpacker(archive.Replication, data); err != nil {
			t.Fatal(err)
		}
		u.TransferObject(&out)
	})
	if err := u.Done(); err != nil {
		t.Fatal(err)
	}
	if pack != 0 || unpack != 1 {
		t.Errorf("allocations: pack %v, want 0; unpack %v, want 1 (the name)", pack, unpack)
	}
}
