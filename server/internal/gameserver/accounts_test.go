package gameserver

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twinframe/twinframe/shared/protocol/pb"
)

var closeBadSecret = websocket.StatusCode(CloseCodeBase + int(pb.ErrorCode_ERROR_CODE_BAD_SECRET))

// joinAs logs c in and returns its login result once it has played two frames.
func joinAs(t *testing.T, c *client, name, secret string) *pb.NetMessageLoginResult {
	t.Helper()
	c.loginSecret(name, secret, nil)
	r := newReceived()
	for r.frames < 2 {
		r.apply(t, c.next(wait))
	}
	return r.loginResult
}

// stillPlaying checks that c keeps receiving frames (it was not replaced).
func stillPlaying(t *testing.T, c *client) {
	t.Helper()
	for range 3 {
		for _, m := range c.next(wait) {
			if e, ok := m.(*pb.NetMessageError); ok {
				t.Fatalf("the first session got %v", e)
			}
		}
	}
}

// TestAccountsKeepTheAvatar: the first login of a name is issued a token; a
// second connection under that name (in any case or width) without it, or with
// a wrong one, is refused with BAD_SECRET (4016) and the first session plays on;
// with the token it takes over the avatar (REPLACED, as before accounts).
func TestAccountsKeepTheAvatar(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.Period = 10 * time.Millisecond; c.NoPopulation = true })
	a := dial(t, s.url, dialOpt{})
	lr := joinAs(t, a, "Mallory", "")
	if len(lr.IssuedToken) < 43 {
		t.Fatalf("first login issued %q, want a 256-bit token", lr.IssuedToken)
	}
	for _, tc := range []struct{ name, secret string }{
		{"Mallory", ""},
		{"mallory", "guess"},
		{"ＭＡＬＬＯＲＹ", lr.IssuedToken + "x"},
		{"Mallory", strings.ToUpper(lr.IssuedToken)},
	} {
		b := dial(t, s.url, dialOpt{})
		b.loginSecret(tc.name, tc.secret, nil)
		if code, msg := b.closedWith(wait); code != closeBadSecret || msg.GetCode() != pb.ErrorCode_ERROR_CODE_BAD_SECRET {
			t.Fatalf("login as %q with %q: closed with %d, %v", tc.name, tc.secret, code, msg)
		}
		stillPlaying(t, a)
	}
	// The stored hash is not the token.
	acc, err := s.cfg.Store.Account(context.Background(), "mallory")
	if err != nil || !strings.HasPrefix(acc.Secret, "$sha256$") || strings.Contains(acc.Secret, lr.IssuedToken) {
		t.Fatalf("stored secret %q, %v", acc.Secret, err)
	}
	b := dial(t, s.url, dialOpt{})
	lrb := joinAs(t, b, "mallory", lr.IssuedToken)
	if code, msg := a.closedWith(wait); code != websocket.StatusCode(CloseCodeBase+int(pb.ErrorCode_ERROR_CODE_REPLACED)) || msg == nil {
		t.Fatalf("first session closed with %d, %v", code, msg)
	}
	if lrb.PlayerEntityId != lr.PlayerEntityId || lrb.IssuedToken != "" {
		t.Fatalf("takeover: %v, first %v", lrb, lr)
	}
}

// TestAccountPassword: a first login with a secret sets it as the account's
// password (an argon2id hash with its parameters); later logins need it.
func TestAccountPassword(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.Period = 10 * time.Millisecond; c.NoPopulation = true })
	a := dial(t, s.url, dialOpt{})
	if lr := joinAs(t, a, "peggy", "correct horse"); lr.IssuedToken != "" {
		t.Fatalf("a password login was issued a token: %v", lr)
	}
	acc, err := s.cfg.Store.Account(context.Background(), "peggy")
	if err != nil || !strings.HasPrefix(acc.Secret, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(acc.Secret, "horse") {
		t.Fatalf("stored secret %q, %v", acc.Secret, err)
	}
	b := dial(t, s.url, dialOpt{})
	b.loginSecret("peggy", "wrong horse", nil)
	if code, _ := b.closedWith(wait); code != closeBadSecret {
		t.Fatalf("wrong password: closed with %d", code)
	}
	stillPlaying(t, a)
	c := dial(t, s.url, dialOpt{})
	joinAs(t, c, "Peggy", "correct horse")
	if code, _ := a.closedWith(wait); code != websocket.StatusCode(CloseCodeBase+int(pb.ErrorCode_ERROR_CODE_REPLACED)) {
		t.Fatalf("first session closed with %d", code)
	}
}

// TestOpenLogin: with Config.OpenLogin any login takes the name, as before
// accounts, and no token is issued.
func TestOpenLogin(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.Period = 10 * time.Millisecond; c.NoPopulation = true; c.OpenLogin = true })
	a := dial(t, s.url, dialOpt{})
	lr := joinAs(t, a, "trent", "")
	if lr.IssuedToken != "" {
		t.Fatalf("open login issued %q", lr.IssuedToken)
	}
	b := dial(t, s.url, dialOpt{})
	if lrb := joinAs(t, b, "Trent", "anything"); lrb.PlayerEntityId != lr.PlayerEntityId {
		t.Fatalf("takeover got avatar %d, want %d", lrb.PlayerEntityId, lr.PlayerEntityId)
	}
	if code, _ := a.closedWith(wait); code != websocket.StatusCode(CloseCodeBase+int(pb.ErrorCode_ERROR_CODE_REPLACED)) {
		t.Fatalf("first session closed with %d", code)
	}
}

// TestBadSecretsRateLimited: an address that keeps presenting wrong secrets is
// refused (RATE_LIMITED) before its secret is hashed, until its budget refills;
// the frame loop runs on while passwords are checked.
func TestBadSecretsRateLimited(t *testing.T) {
	checkLeaks(t)
	s := startServer(t, "", func(c *Config) { c.Period = 10 * time.Millisecond; c.NoPopulation = true })
	var mu sync.Mutex
	now := time.Unix(1e9, 0)
	s.acct.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	a := dial(t, s.url, dialOpt{})
	joinAs(t, a, "victor", "pa55word")
	startFrame := uint64(0)
	s.inLoop(t, func() { startFrame = s.hub().Frame() })
	for i := range failBurst {
		b := dial(t, s.url, dialOpt{})
		b.loginSecret("victor", "guess", nil)
		if code, _ := b.closedWith(wait); code != closeBadSecret {
			t.Fatalf("guess %d: closed with %d", i, code)
		}
	}
	limited := websocket.StatusCode(CloseCodeBase + int(pb.ErrorCode_ERROR_CODE_RATE_LIMITED))
	b := dial(t, s.url, dialOpt{})
	b.loginSecret("victor", "pa55word", nil) // even the right one, from this address
	if code, _ := b.closedWith(wait); code != limited {
		t.Fatalf("after %d guesses: closed with %d, want %d", failBurst, code, limited)
	}
	stillPlaying(t, a)
	// Frames kept coming to the player while the guesses were hashed.
	s.inLoop(t, func() {
		if s.hub().Frame() <= startFrame {
			t.Errorf("the loop stalled at frame %d", startFrame)
		}
	})
	mu.Lock()
	now = now.Add(failRefill)
	mu.Unlock()
	c := dial(t, s.url, dialOpt{})
	joinAs(t, c, "victor", "pa55word")
}

// TestArgonParamsTravelWithTheHash: a hash made with other parameters (an older
// or newer default) still verifies; a damaged or costly one is refused.
func TestArgonParamsTravelWithTheHash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	old := newAccounts()
	old.argon = argonParams{memKiB: 8 * 1024, time: 1, threads: 2}
	h, err := old.hashPassword(ctx, "s3cret")
	if err != nil || !strings.HasPrefix(h, "$argon2id$v=19$m=8192,t=1,p=2$") {
		t.Fatalf("hash %q %v", h, err)
	}
	cur := newAccounts()
	if err := cur.verify(ctx, h, "s3cret"); err != nil {
		t.Errorf("right password: %v", err)
	}
	if err := cur.verify(ctx, h, "s3cre"); !errors.Is(err, errBadSecret) {
		t.Errorf("wrong password: %v", err)
	}
	for _, bad := range []string{
		strings.Replace(h, "m=8192", "m=9999999", 1), // would take 9.5 GiB
		strings.Replace(h, "v=19", "v=16", 1),
		h[:len(h)-10],
		"$md5$abc",
		"",
	} {
		if err := cur.verify(ctx, bad, "s3cret"); err == nil || errors.Is(err, errBadSecret) {
			t.Errorf("verify(%q) = %v, want a format error", bad, err)
		}
	}
	// Every hashing slot taken: a login waits, and gives up with its context.
	for range argonSlots {
		cur.slots <- struct{}{}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := cur.hashPassword(cctx, "x"); !errors.Is(err, errBusy) {
		t.Errorf("hash with no slot: %v", err)
	}
}
