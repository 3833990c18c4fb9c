package sim

import (
	"testing"

	"github.com/twinframe/twinframe/shared/archive"
)

// FuzzEntity unpacks arbitrary bytes as an entity in every mode: an error or an entity
// that packs again, never a panic.
func FuzzEntity(f *testing.F) {
	for _, m := range []archive.Mode{archive.Migration, archive.Database, archive.Replication, archive.Disk} {
		p := archive.NewPacker(m, archive.AllChannels)
		p.TransferObject(sampleEntity())
		f.Add(byte(m), p.Bytes())
	}
	f.Fuzz(func(t *testing.T, mode byte, data []byte) {
		m := archive.Mode(mode%4 + 1)
		u, err := archive.NewUnpacker(m, data)
		if err != nil {
			return
		}
		var e Entity
		u.TransferObject(&e)
		if u.Done() != nil {
			return
		}
		p := archive.NewPacker(m, archive.AllChannels)
		p.TransferObject(&e)
		if err := p.Err(); err != nil {
			t.Fatalf("repacking an unpacked entity: %v", err)
		}
	})
}
