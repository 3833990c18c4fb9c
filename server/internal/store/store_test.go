package store

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/shared/archive"
)

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "twinframe.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func TestLoginSaveLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := openTemp(t)
	p, created, err := s.Login(ctx, "Ororo")
	if err != nil || !created || p.Avatar != nil {
		t.Fatalf("first login: %+v %v %v", p, created, err)
	}
	if err := s.SaveAvatar(ctx, p.ID, []byte{1, 2, 3}, 77); err != nil {
		t.Fatal(err)
	}
	again, created, err := s.Login(ctx, "Ororo")
	if err != nil || created || again.ID != p.ID || !bytes.Equal(again.Avatar, []byte{1, 2, 3}) || again.SavedFrame != 77 || again.Saves != 1 {
		t.Fatalf("second login: %+v %v %v", again, created, err)
	}
	s.Close()
	reopened, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	got, err := reopened.Player(ctx, "Ororo")
	if err != nil || !bytes.Equal(got.Avatar, []byte{1, 2, 3}) {
		t.Fatalf("after reopen: %+v %v", got, err)
	}
	if v, err := reopened.SchemaVersion(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d %v", v, err)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openTemp(t)
	for _, name := range []string{"", " lead", "trail ", "tab\there", "\xff", strings.Repeat("x", 33)} {
		if _, _, err := s.Login(ctx, name); !errors.Is(err, ErrBadName) {
			t.Errorf("Login(%q) = %v, want ErrBadName", name, err)
		}
	}
	if _, err := s.Player(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing player: %v", err)
	}
	if err := s.SaveAvatar(ctx, 999, nil, 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("save for missing player: %v", err)
	}
	if err := s.SaveAvatar(ctx, 1, make([]byte, MaxAvatarBytes+1), 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge avatar: %v", err)
	}
}

func TestSaveAllIsAtomic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openTemp(t)
	a, _, _ := s.Login(ctx, "a")
	b, _, _ := s.Login(ctx, "b")
	if err := s.SaveAll(ctx, []Save{{PlayerID: a.ID, Avatar: []byte("a1")}, {PlayerID: b.ID, Avatar: []byte("b1")}}); err != nil {
		t.Fatal(err)
	}
	err := s.SaveAll(ctx, []Save{{PlayerID: a.ID, Avatar: []byte("a2")}, {PlayerID: 12345, Avatar: []byte("x")}})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v", err)
	}
	if got, _ := s.Player(ctx, "a"); string(got.Avatar) != "a1" {
		t.Fatalf("a failed batch changed a's save to %q", got.Avatar)
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := openTemp(t)
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("opened a newer schema: %v", err)
	}
}

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

// TestCrashChild is the process TestKilledDuringSaves kills: it saves in a loop and
// prints each save number after its commit returned.
func TestCrashChild(t *testing.T) {
	path := os.Getenv("TWINFRAME_STORE_CRASH_DB")
	if path == "" {
		t.Skip("not a test of its own: the process TestKilledDuringSaves starts and kills")
	}
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	p, _, err := s.Login(ctx, "crash")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	start, _ := strconv.ParseInt(os.Getenv("TWINFRAME_STORE_CRASH_START"), 10, 64)
	for i := start; ; i++ {
		if err := s.SaveAvatar(ctx, p.ID, avatarBlob(i), uint64(i)); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		fmt.Println("committed", i)
	}
}

// Kill a saving process (SIGKILL) many times: every save whose commit returned is
// intact and loads.
func TestKilledDuringSaves(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: spawns processes; make test runs it")
	}
	t.Parallel()
	seed := uint64(20261201)
	rng := rand.New(rand.NewPCG(seed, 7))
	path := filepath.Join(t.TempDir(), "crash.db")
	next := int64(1)
	for round := range 12 {
		killAfter := 1 + rng.IntN(25)
		last := runAndKill(t, path, next, killAfter)
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("seed %d round %d: reopen after kill: %v", seed, round, err)
		}
		p, err := s.Player(context.Background(), "crash")
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		got, err := readAvatar(p.Avatar)
		s.Close()
		if err != nil {
			t.Fatalf("seed %d round %d: saved avatar does not load: %v", seed, round, err)
		}
		if got < last || got > last+1 {
			t.Fatalf("seed %d round %d: last committed save %d, stored save %d", seed, round, last, got)
		}
		next = got + 1
	}
}

// runAndKill starts TestCrashChild, waits for killAfter commits, kills it with
// SIGKILL and returns the last save it reported committed.
func runAndKill(t *testing.T, path string, start int64, killAfter int) int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TWINFRAME_STORE_CRASH_DB="+path,
		"TWINFRAME_STORE_CRASH_START="+strconv.FormatInt(start, 10))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	last := start - 1
	sc := bufio.NewScanner(out)
	for n := 0; n < killAfter && sc.Scan(); {
		line := sc.Text()
		if i, ok := strings.CutPrefix(line, "committed "); ok {
			last, _ = strconv.ParseInt(i, 10, 64)
			n++
		} else if strings.HasPrefix(line, "error") {
			t.Fatalf("child: %s", line)
		}
	}
	cmd.Process.Kill()
	for sc.Scan() { // lines written before the kill landed
		if i, ok := strings.CutPrefix(sc.Text(), "committed "); ok {
			last, _ = strconv.ParseInt(i, 10, 64)
		}
	}
	cmd.Wait()
	return last
}
