package store

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/internal/pgtest"
	"github.com/twinframe/twinframe/shared/archive"
)

// TestMain stops the package's PostgreSQL server, if a test started one.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// avatarBlob is a Database-mode archive holding a save counter and a payload whose
// size varies, so that saves span different numbers of pages.
func avatarBlob(i int64) []byte {
	a := archive.NewPacker(archive.Database, archive.AllChannels)
	a.TransferInt64(&i)
	payload := strings.Repeat(strconv.FormatInt(i, 36), int(i%97)*40)
	a.TransferString(&payload)
	return bytes.Clone(a.Bytes())
}

func readAvatar(blob []byte) (int64, error) {
	a, err := archive.NewUnpacker(archive.Database, blob)
	if err != nil {
		return 0, err
	}
	var i int64
	var payload string
	a.TransferInt64(&i)
	a.TransferString(&payload)
	if err := a.Done(); err != nil {
		return 0, err
	}
	if want := strings.Repeat(strconv.FormatInt(i, 36), int(i%97)*40); payload != want {
		return 0, fmt.Errorf("save %d: payload corrupt", i)
	}
	return i, nil
}
