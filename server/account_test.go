package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twinframe/twinframe/server/internal/store"
)

// TestAccountReset: `server account reset NAME` clears a claimed account's secret
// while another connection (the running server's) holds the store open, so that
// the next login claims the name again; its save stays. Bad arguments are refused.
func TestAccountReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "twinframe.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, _, err := st.Claim(ctx, "Ororo", "first secret")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SaveAvatar(ctx, a.ID, []byte("avatar"), 7); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Claim(ctx, "ororo", "another"); !errors.Is(err, store.ErrClaimed) {
		t.Fatalf("claim of a claimed account: %v, want ErrClaimed", err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no name", []string{"-db", path, "reset"}, 2, "", "usage: server account"},
		{"unknown verb", []string{"-db", path, "delete", "Ororo"}, 2, "", "usage: server account"},
		{"missing file", []string{"-db", path + ".typo", "reset", "Ororo"}, 1, "", "no such file"},
		{"unknown name", []string{"-db", path, "reset", "Logan"}, 1, "", "no such player"},
		{"bad name", []string{"-db", path, "reset", "a\u200db"}, 1, "", "invalid player name"},
		{"reset", []string{"-db", path, "reset", "ORORO"}, 0, `the secret of "Ororo" is cleared`, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := accountCommand(tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, %q, %q",
				tc.name, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
	b, _, err := st.Claim(ctx, "ororo", "new secret")
	if err != nil || b.ID != a.ID || b.Secret != "new secret" {
		t.Fatalf("claim after the reset: %+v, %v; want account %d with the new secret", b, err, a.ID)
	}
	p, err := st.Player(ctx, "Ororo")
	if err != nil || string(p.Avatar) != "avatar" {
		t.Fatalf("save after the reset: %q, %v", p.Avatar, err)
	}
}
