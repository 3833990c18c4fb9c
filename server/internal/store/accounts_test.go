package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormalizeName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, display, key string // display "": rejected
	}{
		{"Bob", "Bob", "bob"},
		{"bob", "bob", "bob"},
		{"ＢＯＢ", "BOB", "bob"}, // fullwidth letters: width-mapped
		{"Dark Knight", "Dark Knight", "dark knight"},
		{"O\u0308rn", "Örn", "örn"},       // decomposed: composed (NFC)
		{"Örn", "Örn", "örn"},             // precomposed: the same account
		{"ΣΑΣ", "ΣΑΣ", "σασ"},             // Greek, one script
		{"名前", "名前", "名前"},                // Han
		{"ゲーム名前", "ゲーム名前", "ゲーム名前"},       // Katakana with Han: an allowed mix
		{"Straße", "Straße", "straße"},    // not case-folded to "strasse"
		{"bob!", "bob!", "bob!"},          // ASCII punctuation is allowed
		{"العربية", "العربية", "العربية"}, // right to left, one script
		{"b\u200dob", "", ""},             // zero-width joiner outside its Indic context
		{"b\u200bob", "", ""},             // zero-width space
		{"b\u00adob", "", ""},             // soft hyphen
		{"\u202ebob", "", ""},             // right-to-left override
		{"bob\u2066", "", ""},             // left-to-right isolate
		{"b\u043eb", "", ""},              // Cyrillic о among Latin letters
		{"a\u0627", "", ""},               // Latin and Arabic: Bidi rule
		{"\ufb01sh", "", ""},              // ligature fi (compatibility character)
		{"Ⅻ", "", ""},                     // Roman numeral (compatibility character)
		{"", "", ""},
		{" lead", "", ""},
		{"trail ", "", ""},
		{"two  spaces", "", ""},
		{"tab\there", "", ""},
		{"nul\x00", "", ""},
		{"\xff", "", ""},
		{"\u3000bob", "", ""}, // ideographic space
		{strings.Repeat("x", 33), "", ""},
		{strings.Repeat("é", 17), "", ""}, // 34 bytes
	} {
		display, key, err := NormalizeName(tc.name)
		if tc.display == "" {
			if !errors.Is(err, ErrBadName) {
				t.Errorf("NormalizeName(%q) = %q, %q, %v; want ErrBadName", tc.name, display, key, err)
			}
			if CheckName(tc.name) == nil {
				t.Errorf("CheckName(%q) accepted it", tc.name)
			}
			continue
		}
		if err != nil || display != tc.display || key != tc.key {
			t.Errorf("NormalizeName(%q) = %q, %q, %v; want %q, %q", tc.name, display, key, err, tc.display, tc.key)
		}
	}
	// What it does not catch: a name wholly in Cyrillic that looks Latin.
	if _, key, err := NormalizeName("\u0441\u043e\u0440"); err != nil || key == "cop" {
		t.Errorf("whole-script Cyrillic: %q %v", key, err)
	}
}

func TestClaim(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openTemp(t)
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
	if err != nil || !created || o.Secret != "" {
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
}

// TestPreAccountPlayers: players saved by a server from before accounts (schema
// version 1) keep their saves; the first login after the upgrade claims them.
func TestPreAccountPlayers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{migrations[0], "PRAGMA user_version = 1",
		`INSERT INTO players(name, avatar, saved_frame, saves) VALUES ('Bob', x'010203', 5, 1), ('ｗｉｄｅ', NULL, 0, 0)`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old, err := s.Account(ctx, "bob")
	if err != nil || old.Name != "Bob" || old.Key != "" || old.Secret != "" || !bytes.Equal(old.Avatar, []byte{1, 2, 3}) {
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
	if v, err := s.SchemaVersion(ctx); err != nil || v != SchemaVersion {
		t.Fatalf("schema version %d %v", v, err)
	}
}
