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
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/twinframe/twinframe/internal/pgtest"
)

// backend is one Store implementation as the conformance suite sees it: where a
// new store lives, and the few things done to it behind the store's back.
type backend struct {
	name string
	// fresh returns the location (OpenURL) of a new, empty store.
	fresh func(t testing.TB) string
	// where is how Open's errors name the store at loc.
	where func(loc string) string
	// exec runs SQL on the store at loc directly, bypassing its checks.
	exec func(t testing.TB, loc string, stmts ...string)
	// setVersion writes a schema version, as a newer server would.
	setVersion func(t testing.TB, loc string, v int)
	// migrations is the backend's list, for building old schemas.
	migrations []string
}

var backends = []backend{
	{
		name:  "sqlite",
		fresh: func(t testing.TB) string { return "sqlite:" + filepath.Join(t.TempDir(), "twinframe.db") },
		where: func(loc string) string { return strings.TrimPrefix(loc, "sqlite:") },
		exec: func(t testing.TB, loc string, stmts ...string) {
			rawDB(t, strings.TrimPrefix(loc, "sqlite:"), stmts...)
		},
		setVersion: func(t testing.TB, loc string, v int) {
			rawDB(t, strings.TrimPrefix(loc, "sqlite:"), fmt.Sprintf("PRAGMA user_version = %d", v))
		},
		migrations: migrations,
	},
	{
		name:  "postgres",
		fresh: func(t testing.TB) string { return pgtest.DB(t) },
		where: Redact,
		exec:  pgExec,
		setVersion: func(t testing.TB, loc string, v int) {
			pgExec(t, loc, fmt.Sprintf("UPDATE twinframe_schema SET version = %d", v))
		},
		migrations: pgMigrations,
	},
}

// pgExec runs statements on the PostgreSQL database at dsn.
func pgExec(t testing.TB, dsn string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range stmts {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestConformance runs the store's behaviour against every implementation.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			runConformance(t, b)
		})
	}
}

// open opens the store at loc and closes it at cleanup.
func open(t testing.TB, loc string) Store {
	t.Helper()
	s, err := OpenURL(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// runConformance is the suite: every Store method and its edge cases.
func runConformance(t *testing.T, b backend) {
	for _, tc := range []struct {
		name string
		test func(t *testing.T, b backend)
	}{
		{"LoginSaveLoad", testLoginSaveLoad},
		{"RegionSaves", testRegionSaves},
		{"BadInput", testBadInput},
		{"PlayerExactName", testPlayerExactName},
		{"SaveAllIsAtomic", testSaveAllIsAtomic},
		{"SaveAllEmptyAndRepeated", testSaveAllEmptyAndRepeated},
		{"RefusesNewerSchema", testRefusesNewerSchema},
		{"Claim", testClaim},
		{"ConcurrentClaims", testConcurrentClaims},
		{"ResetSecret", testResetSecret},
		{"PreAccountPlayers", testPreAccountPlayers},
		{"KilledDuringSaves", testKilledDuringSaves},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.test(t, b)
		})
	}
}

func testLoginSaveLoad(t *testing.T, b backend) {
	ctx := context.Background()
	loc := b.fresh(t)
	s := open(t, loc)
	p, created, err := s.Login(ctx, "Ororo")
	if err != nil || !created || p.Avatar != nil || p.Name != "Ororo" || p.Saves != 0 {
		t.Fatalf("first login: %+v %v %v", p, created, err)
	}
	if err := s.SaveAvatar(ctx, p.ID, []byte{1, 2, 3}, 77); err != nil {
		t.Fatal(err)
	}
	again, created, err := s.Login(ctx, "Ororo")
	if err != nil || created || again.ID != p.ID || !bytes.Equal(again.Avatar, []byte{1, 2, 3}) || again.SavedFrame != 77 || again.Saves != 1 {
		t.Fatalf("second login: %+v %v %v", again, created, err)
	}
	// The frame is a uint64: the top bit survives the signed column.
	if err := s.SaveAvatar(ctx, p.ID, []byte{4}, 1<<63+5); err != nil {
		t.Fatal(err)
	}
	s.Close()
	reopened := open(t, loc)
	got, err := reopened.Player(ctx, "Ororo")
	if err != nil || !bytes.Equal(got.Avatar, []byte{4}) || got.SavedFrame != 1<<63+5 || got.Saves != 2 || got.ID != p.ID {
		t.Fatalf("after reopen: %+v %v", got, err)
	}
	if v, err := reopened.SchemaVersion(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d %v, want %d", v, err, SchemaVersion)
	}
	other, created, err := reopened.Login(ctx, "Kitty")
	if err != nil || !created || other.ID == p.ID {
		t.Fatalf("another player: %+v %v %v", other, created, err)
	}
}

func testBadInput(t *testing.T, b backend) {
	ctx := context.Background()
	s := open(t, b.fresh(t))
	for _, name := range []string{"", " lead", "trail ", "tab\there", "\xff", "nul\x00", strings.Repeat("x", 33)} {
		if _, _, err := s.Login(ctx, name); !errors.Is(err, ErrBadName) {
			t.Errorf("Login(%q) = %v, want ErrBadName", name, err)
		}
		if _, _, err := s.Claim(ctx, name, "h"); !errors.Is(err, ErrBadName) {
			t.Errorf("Claim(%q) = %v, want ErrBadName", name, err)
		}
		if _, err := s.Account(ctx, name); !errors.Is(err, ErrBadName) {
			t.Errorf("Account(%q) = %v, want ErrBadName", name, err)
		}
		if _, err := s.ResetSecret(ctx, name); !errors.Is(err, ErrBadName) {
			t.Errorf("ResetSecret(%q) = %v, want ErrBadName", name, err)
		}
	}
	for _, name := range []string{"nobody", "", "\xff", "nul\x00"} {
		if _, err := s.Player(ctx, name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Player(%q) = %v, want ErrNotFound", name, err)
		}
	}
	var se *SaveError
	if err := s.SaveAvatar(ctx, 999, nil, 0); !errors.Is(err, ErrNotFound) || !errors.As(err, &se) || se.PlayerID != 999 {
		t.Errorf("save for missing player: %v", err)
	}
	p, _, err := s.Login(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveAvatar(ctx, p.ID, make([]byte, MaxAvatarBytes+1), 0); !errors.Is(err, ErrTooLarge) || !errors.As(err, &se) || se.PlayerID != p.ID {
		t.Errorf("huge avatar: %v", err)
	}
	if err := s.SaveAvatar(ctx, p.ID, make([]byte, MaxAvatarBytes), 3); err != nil {
		t.Errorf("avatar of the largest size: %v", err)
	}
	if got, err := s.Player(ctx, "big"); err != nil || len(got.Avatar) != MaxAvatarBytes {
		t.Errorf("largest avatar read back: %d bytes, %v", len(got.Avatar), err)
	}
}

// Player looks a name up as stored, not normalised: the display name.
func testPlayerExactName(t *testing.T, b backend) {
	ctx := context.Background()
	s := open(t, b.fresh(t))
	if _, _, err := s.Login(ctx, "Ｂob"); err != nil { // stored as "Bob"
		t.Fatal(err)
	}
	if p, err := s.Player(ctx, "Bob"); err != nil || p.Name != "Bob" {
		t.Errorf("Player(Bob) = %+v %v", p, err)
	}
	for _, name := range []string{"bob", "BOB", "Ｂob"} {
		if _, err := s.Player(ctx, name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Player(%q) = %v, want ErrNotFound", name, err)
		}
	}
	// Login under any form of the name is the same player.
	for _, name := range []string{"bob", "ＢＯＢ"} {
		if p, created, err := s.Login(ctx, name); err != nil || created || p.Name != "Bob" {
			t.Errorf("Login(%q) = %+v %v %v", name, p, created, err)
		}
	}
}

func testSaveAllIsAtomic(t *testing.T, b backend) {
	ctx := context.Background()
	s := open(t, b.fresh(t))
	a, _, _ := s.Login(ctx, "a")
	c, _, _ := s.Login(ctx, "c")
	if err := s.SaveAll(ctx, []Save{{PlayerID: a.ID, Avatar: []byte("a1"), Frame: 1}, {PlayerID: c.ID, Avatar: []byte("c1"), Frame: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, batch := range [][]Save{
		{{PlayerID: a.ID, Avatar: []byte("a2"), Frame: 2}, {PlayerID: 12345, Avatar: []byte("x")}},
		{{PlayerID: a.ID, Avatar: []byte("a2"), Frame: 2}, {PlayerID: c.ID, Avatar: make([]byte, MaxAvatarBytes+1)}},
	} {
		err := s.SaveAll(ctx, batch)
		var se *SaveError
		if !errors.As(err, &se) || se.PlayerID != batch[1].PlayerID {
			t.Fatalf("got %v, want a SaveError of player %d", err, batch[1].PlayerID)
		}
		if got, _ := s.Player(ctx, "a"); string(got.Avatar) != "a1" || got.SavedFrame != 1 || got.Saves != 1 {
			t.Fatalf("a failed batch changed a's save to %q frame %d saves %d", got.Avatar, got.SavedFrame, got.Saves)
		}
	}
}

func testSaveAllEmptyAndRepeated(t *testing.T, b backend) {
	ctx := context.Background()
	s := open(t, b.fresh(t))
	if err := s.SaveAll(ctx, nil); err != nil {
		t.Fatalf("empty batch: %v", err)
	}
	p, _, _ := s.Login(ctx, "rep")
	// The same player twice in a batch: both count, the last one stays.
	if err := s.SaveAll(ctx, []Save{{PlayerID: p.ID, Avatar: []byte("1"), Frame: 1}, {PlayerID: p.ID, Avatar: []byte("2"), Frame: 2}}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Player(ctx, "rep"); err != nil || string(got.Avatar) != "2" || got.SavedFrame != 2 || got.Saves != 2 {
		t.Fatalf("after a batch with the player twice: %+v %v", got, err)
	}
	// An empty avatar is a save, not "no save".
	if err := s.SaveAvatar(ctx, p.ID, []byte{}, 3); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Player(ctx, "rep"); err != nil || len(got.Avatar) != 0 || got.SavedFrame != 3 || got.Saves != 3 {
		t.Fatalf("after an empty save: %+v %v", got, err)
	}
}

func testRefusesNewerSchema(t *testing.T, b backend) {
	ctx := context.Background()
	loc := b.fresh(t)
	open(t, loc).Close()
	b.setVersion(t, loc, SchemaVersion+1)
	s, err := OpenURL(ctx, loc)
	want := fmt.Sprintf("store: %s: schema version %d is newer than this server's (%d); run the server version that wrote it, or restore a backup",
		b.where(loc), SchemaVersion+1, SchemaVersion)
	if err == nil || err.Error() != want {
		if s != nil {
			s.Close()
		}
		t.Fatalf("opened a newer schema: %v\nwant %s", err, want)
	}
}

func testClaim(t *testing.T, b backend) {
	ctx := context.Background()
	s := open(t, b.fresh(t))
	a, created, err := s.Claim(ctx, "Ｂob", "hash-1")
	if err != nil || !created || a.Name != "Bob" || a.Key != "bob" || a.Secret != "hash-1" {
		t.Fatalf("first claim: %+v %v %v", a, created, err)
	}
	for _, name := range []string{"bob", "BOB", "ＢＯＢ"} {
		got, err := s.Account(ctx, name)
		if err != nil || got.ID != a.ID || got.Secret != "hash-1" {
			t.Errorf("Account(%q) = %+v, %v", name, got, err)
		}
		got, created, err := s.Claim(ctx, name, "hash-2")
		if !errors.Is(err, ErrClaimed) || created || got.ID != a.ID || got.Secret != "hash-1" {
			t.Errorf("Claim(%q) again = %+v %v %v, want ErrClaimed and the first secret", name, got, created, err)
		}
	}
	// An open login (no secret) finds the account and leaves its secret.
	if got, created, err := s.Claim(ctx, "bob", ""); err != nil || created || got.ID != a.ID || got.Secret != "hash-1" {
		t.Errorf("open claim: %+v %v %v", got, created, err)
	}
	// An account made by an open login is claimed by the next login with a secret.
	o, created, err := s.Claim(ctx, "Open", "")
	if err != nil || !created || o.Secret != "" || o.Key != "open" {
		t.Fatalf("open account: %+v %v %v", o, created, err)
	}
	if got, created, err := s.Claim(ctx, "open", "hash-3"); err != nil || created || got.ID != o.ID || got.Secret != "hash-3" {
		t.Errorf("claiming the open account: %+v %v %v", got, created, err)
	}
	if _, err := s.Account(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Account(nobody) = %v", err)
	}
	if _, _, err := s.Claim(ctx, "b\u200bob", "x"); !errors.Is(err, ErrBadName) {
		t.Errorf("Claim with a zero-width space = %v", err)
	}
	// Names that differ beyond case and width are different accounts.
	for _, name := range []string{"Straße", "strasse", "Örn", "Orn"} {
		if _, created, err := s.Claim(ctx, name, "h"); err != nil || !created {
			t.Errorf("Claim(%q) = %v %v, want a new account", name, created, err)
		}
	}
}

// testConcurrentClaims: logins of one new name at once (several servers of a
// cluster, or one server's sessions) make one account with one secret.
func testConcurrentClaims(t *testing.T, b backend) {
	ctx := context.Background()
	s := open(t, b.fresh(t))
	const n = 8
	type result struct {
		a       Account
		created bool
		err     error
		sent    string // the secret the login sent
	}
	for _, name := range []string{"Newcomer", "Open Door"} {
		res := make([]result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				secret := fmt.Sprintf("hash-%d", i)
				if name == "Open Door" && i%2 == 0 {
					secret = "" // open logins race with claiming ones
				}
				forms := []string{name, strings.ToLower(name), strings.ToUpper(name)}
				a, created, err := s.Claim(ctx, forms[i%3], secret)
				res[i] = result{a, created, err, secret}
			})
		}
		wg.Wait()
		var creators, claimers int
		var secret string
		for i, r := range res {
			if r.err != nil && !errors.Is(r.err, ErrClaimed) {
				t.Fatalf("%s: claim %d: %v", name, i, r.err)
			}
			if r.created {
				creators++
			}
			if r.err == nil && r.sent != "" {
				claimers++
				secret = r.a.Secret
				if r.a.Secret != r.sent {
					t.Errorf("%s: claim %d succeeded with secret %q, sent %q", name, i, r.a.Secret, r.sent)
				}
			}
			if r.a.ID != res[0].a.ID {
				t.Errorf("%s: claim %d got player %d, claim 0 player %d", name, i, r.a.ID, res[0].a.ID)
			}
		}
		if creators != 1 || claimers != 1 {
			t.Fatalf("%s: %d logins created the account and %d set its secret; want 1 and 1: %+v", name, creators, claimers, res)
		}
		for i, r := range res {
			if errors.Is(r.err, ErrClaimed) && r.a.Secret != secret {
				t.Errorf("%s: claim %d refused with secret %q, the account's is %q", name, i, r.a.Secret, secret)
			}
		}
		if a, err := s.Account(ctx, name); err != nil || a.Secret != secret {
			t.Errorf("%s: stored %+v %v, want secret %q", name, a, err, secret)
		}
	}
}

func testResetSecret(t *testing.T, b backend) {
	ctx := context.Background()
	s := open(t, b.fresh(t))
	a, _, err := s.Claim(ctx, "Rogue", "old")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveAvatar(ctx, a.ID, []byte("kept"), 9); err != nil {
		t.Fatal(err)
	}
	got, err := s.ResetSecret(ctx, "ROGUE")
	if err != nil || got.ID != a.ID || got.Secret != "" || got.Name != "Rogue" {
		t.Fatalf("ResetSecret = %+v %v", got, err)
	}
	if acc, err := s.Account(ctx, "rogue"); err != nil || acc.Secret != "" || string(acc.Avatar) != "kept" || acc.Saves != 1 {
		t.Fatalf("after reset: %+v %v", acc, err)
	}
	if c, created, err := s.Claim(ctx, "rogue", "new"); err != nil || created || c.ID != a.ID || c.Secret != "new" {
		t.Fatalf("claim after reset: %+v %v %v", c, created, err)
	}
	if _, err := s.ResetSecret(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ResetSecret(nobody) = %v", err)
	}
}

// testPreAccountPlayers: players saved by a server from before accounts (schema
// version 1) keep their saves; the first login after the upgrade claims them.
func testPreAccountPlayers(t *testing.T, b backend) {
	ctx := context.Background()
	loc := b.fresh(t)
	version1 := map[string]string{"sqlite": "PRAGMA user_version = 1",
		"postgres": "CREATE TABLE twinframe_schema (version integer NOT NULL); INSERT INTO twinframe_schema VALUES (1)"}
	b.exec(t, loc, b.migrations[0], version1[b.name],
		`INSERT INTO players(name, avatar, saved_frame, saves) VALUES ('Bob', '\x010203', 5, 1), ('ｗｉｄｅ', NULL, 0, 0), ('MiXed', NULL, 0, 0), ('mixed', NULL, 0, 0)`)
	if b.name == "sqlite" { // SQLite takes '\x..' literally: write the blob as a blob
		b.exec(t, loc, `UPDATE players SET avatar = x'010203' WHERE name = 'Bob'`)
	}
	s := open(t, loc)
	old, err := s.Account(ctx, "bob")
	if err != nil || old.Name != "Bob" || old.Key != "" || old.Secret != "" || !bytes.Equal(old.Avatar, []byte{1, 2, 3}) || old.SavedFrame != 5 {
		t.Fatalf("pre-account player: %+v %v", old, err)
	}
	got, created, err := s.Claim(ctx, "Bob", "hash")
	if err != nil || created || got.ID != old.ID || got.Key != "bob" || got.Secret != "hash" || !bytes.Equal(got.Avatar, []byte{1, 2, 3}) {
		t.Fatalf("claiming it: %+v %v %v", got, created, err)
	}
	// A name stored before normalisation is found under the name it was saved
	// with, and takes the key of its normal form.
	w, created, err := s.Claim(ctx, "ｗｉｄｅ", "hash")
	if err != nil || created || w.Name != "ｗｉｄｅ" || w.Key != "wide" {
		t.Fatalf("fullwidth pre-account name: %+v %v %v", w, created, err)
	}
	if again, err := s.Account(ctx, "WIDE"); err != nil || again.ID != w.ID {
		t.Fatalf("claimed fullwidth name by its key: %+v %v", again, err)
	}
	// Of two pre-account players equal but for ASCII case, the name as sent wins;
	// the other is found by its key, ignoring ASCII case, once the first has it.
	m, _, err := s.Claim(ctx, "MiXed", "")
	if err != nil || m.Name != "MiXed" {
		t.Fatalf("MiXed: %+v %v", m, err)
	}
	if acc, err := s.Account(ctx, "MIXED"); err != nil || acc.ID != m.ID {
		t.Fatalf("MIXED after MiXed took the key: %+v %v", acc, err)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d %v", v, err)
	}
}

// TestCrashChild is the process testKilledDuringSaves kills: it saves in a loop and
// prints each save number after its commit returned.
func TestCrashChild(t *testing.T) {
	loc := os.Getenv("TWINFRAME_STORE_CRASH_DB")
	if loc == "" {
		t.Skip("not a test of its own: the process TestConformance/*/KilledDuringSaves starts and kills")
	}
	ctx := context.Background()
	s, err := OpenURL(ctx, loc)
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
func testKilledDuringSaves(t *testing.T, b backend) {
	if testing.Short() {
		t.Skip("-short: spawns processes; make test runs it")
	}
	seed := uint64(20261201)
	rng := rand.New(rand.NewPCG(seed, 7))
	loc := b.fresh(t)
	next := int64(1)
	for round := range 12 {
		killAfter := 1 + rng.IntN(25)
		last := runAndKill(t, loc, next, killAfter)
		s, err := OpenURL(context.Background(), loc)
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
func runAndKill(t *testing.T, loc string, start int64, killAfter int) int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TWINFRAME_STORE_CRASH_DB="+loc,
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
			cmd.Process.Kill()
			cmd.Wait()
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

// testRegionSaves: a region's save round-trips; a save with a lower fence than the
// stored one is refused (ErrFenced) and leaves it; an equal or higher fence
// replaces it; an unknown region is ErrNoRegion; bad saves are refused.
func testRegionSaves(t *testing.T, b backend) {
	ctx := context.Background()
	s := open(t, b.fresh(t))
	if _, err := s.Region(ctx, "wilds"); !errors.Is(err, ErrNoRegion) {
		t.Fatalf("unsaved region: %v, want ErrNoRegion", err)
	}
	steps := []struct {
		save RegionSave
		err  error
		want RegionSave // what the store holds after
	}{
		{RegionSave{Name: "wilds", State: []byte{1, 2, 3}, Frame: 100, Fence: 7}, nil,
			RegionSave{Name: "wilds", State: []byte{1, 2, 3}, Frame: 100, Fence: 7, Saves: 1}},
		{RegionSave{Name: "wilds", State: []byte{4}, Frame: 140, Fence: 7}, nil,
			RegionSave{Name: "wilds", State: []byte{4}, Frame: 140, Fence: 7, Saves: 2}},
		{RegionSave{Name: "wilds", State: []byte{5}, Frame: 150, Fence: 6}, ErrFenced,
			RegionSave{Name: "wilds", State: []byte{4}, Frame: 140, Fence: 7, Saves: 2}},
		{RegionSave{Name: "wilds", State: []byte{6}, Frame: 20, Fence: 9}, nil,
			RegionSave{Name: "wilds", State: []byte{6}, Frame: 20, Fence: 9, Saves: 3}},
	}
	for i, st := range steps {
		if err := s.SaveRegion(ctx, st.save); !errors.Is(err, st.err) || (err == nil) != (st.err == nil) {
			t.Fatalf("step %d: SaveRegion: %v, want %v", i, err, st.err)
		}
		got, err := s.Region(ctx, "wilds")
		if err != nil || !reflect.DeepEqual(got, st.want) {
			t.Fatalf("step %d: Region: %+v %v, want %+v", i, got, err, st.want)
		}
	}
	for _, bad := range []RegionSave{{State: []byte{1}}, {Name: "x"}, {Name: "x", State: make([]byte, MaxRegionState+1)}, {Name: "x", State: []byte{1}, Frame: 1 << 63}} {
		if err := s.SaveRegion(ctx, bad); err == nil {
			t.Errorf("SaveRegion(%q, %d bytes, frame %d) succeeded", bad.Name, len(bad.State), bad.Frame)
		}
	}
	if _, err := s.Region(ctx, "x"); !errors.Is(err, ErrNoRegion) {
		t.Errorf("a refused save was stored: %v", err)
	}
}
