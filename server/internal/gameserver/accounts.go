package gameserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/argon2"
)

// Accounts
//
// A name's first login creates its account. A login that carries a secret sets
// it as the account's password, stored as an argon2id hash; one without gets a
// random 256-bit token, returned once in NetMessageLoginResult.issuedToken, of
// which only a SHA-256 hash is stored. Later logins must present the password or
// the token, else they end with ERROR_CODE_BAD_SECRET and the session playing
// under the name is not touched. Config.OpenLogin turns this off (any login
// takes the name, as before accounts) for local debugging.
//
// Hashes are stored as PHC strings ($argon2id$v=19$m=...,t=...,p=...$salt$hash,
// $sha256$hash) so that parameters can change: a hash is checked with the
// parameters it was made with.

// argonParams are argon2id's cost parameters (the OWASP minimum: 19 MiB, 2
// passes, 1 lane).
type argonParams struct {
	memKiB  uint32
	time    uint32
	threads uint8
}

var defaultArgon = argonParams{memKiB: 19 * 1024, time: 2, threads: 1}

const (
	saltBytes   = 16
	keyBytes    = 32
	tokenBytes  = 32 // 256 bits
	maxSecret   = 256
	argonSlots  = 2 // hashes at once: 2 × 19 MiB, whatever the number of logins
	failBurst   = 5 // failed logins an address may make before it must wait
	failRefill  = 10 * time.Second
	maxFailAddr = 4096 // addresses the limiter remembers
)

// accounts hashes and checks secrets, and limits failed logins per address.
type accounts struct {
	argon argonParams
	slots chan struct{} // argon2 runs holding a slot: each takes memKiB of memory
	now   func() time.Time

	mu    sync.Mutex
	fails map[string]*failBucket
}

// failBucket is a token bucket of failed logins: it holds up to failBurst
// tokens, refilled one per failRefill; a login from an address without a token
// is refused before its secret is checked.
type failBucket struct {
	tokens float64
	at     time.Time
}

func newAccounts() *accounts {
	return &accounts{argon: defaultArgon, slots: make(chan struct{}, argonSlots), now: time.Now,
		fails: map[string]*failBucket{}}
}

var (
	errBadSecret = errors.New("wrong secret")
	errBusy      = errors.New("password hashing busy")
)

// newToken returns a random token to issue and the hash to store.
func newToken() (token, stored string) {
	var b [tokenBytes]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, hashToken(token)
}

// hashToken hashes an issued token. A fast hash is enough: the token is 256
// random bits, so no guess list or brute force can find it from the hash, and a
// slow hash would only cost every reconnect (200 bots) memory and time.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "$sha256$" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// hashPassword hashes a password with argon2id and a random salt, holding one
// of the hashing slots (waiting for one until ctx ends).
func (a *accounts) hashPassword(ctx context.Context, password string) (string, error) {
	var salt [saltBytes]byte
	_, _ = rand.Read(salt[:])
	p := a.argon
	key, err := a.argon2(ctx, password, salt[:], p, keyBytes)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.memKiB, p.time, p.threads,
		base64.RawStdEncoding.EncodeToString(salt[:]), base64.RawStdEncoding.EncodeToString(key)), nil
}

func (a *accounts) argon2(ctx context.Context, password string, salt []byte, p argonParams, n uint32) ([]byte, error) {
	select {
	case a.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, errBusy
	}
	defer func() { <-a.slots }()
	return argon2.IDKey([]byte(password), salt, p.time, p.memKiB, p.threads, n), nil
}

// verify checks secret against a stored hash in constant time (for a given
// hash): nil, errBadSecret, errBusy, or an error for a hash it cannot read.
func (a *accounts) verify(ctx context.Context, stored, secret string) error {
	switch {
	case strings.HasPrefix(stored, "$sha256$"):
		if subtle.ConstantTimeCompare([]byte(hashToken(secret)), []byte(stored)) != 1 {
			return errBadSecret
		}
		return nil
	case strings.HasPrefix(stored, "$argon2id$"):
		p, salt, want, err := parseArgon(stored)
		if err != nil {
			return err
		}
		if p.memKiB > 4*defaultArgon.memKiB || p.time > 16*defaultArgon.time {
			// The slots bound memory by the default cost: refuse a hash that
			// would take much more (the database is not a trusted input).
			return fmt.Errorf("argon2id cost m=%d t=%d out of bounds", p.memKiB, p.time)
		}
		got, err := a.argon2(ctx, secret, salt, p, uint32(len(want)))
		if err != nil {
			return err
		}
		if subtle.ConstantTimeCompare(got, want) != 1 {
			return errBadSecret
		}
		return nil
	}
	return errors.New("unknown secret hash format")
}

// parseArgon reads $argon2id$v=19$m=M,t=T,p=P$salt$hash.
func parseArgon(s string) (argonParams, []byte, []byte, error) {
	var p argonParams
	f := strings.Split(s, "$")
	if len(f) != 6 || f[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return p, nil, nil, errors.New("malformed argon2id hash")
	}
	if _, err := fmt.Sscanf(f[3], "m=%d,t=%d,p=%d", &p.memKiB, &p.time, &p.threads); err != nil || p.memKiB == 0 || p.time == 0 || p.threads == 0 {
		return p, nil, nil, errors.New("malformed argon2id parameters")
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(f[4])
	key, err2 := base64.RawStdEncoding.DecodeString(f[5])
	if err1 != nil || err2 != nil || len(key) < 16 || len(key) > 64 {
		return p, nil, nil, errors.New("malformed argon2id salt or hash")
	}
	return p, salt, key, nil
}

// limited reports whether the address has used up its failed logins.
func (a *accounts) limited(addr string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.fails[addr]
	return b != nil && a.refill(b) < 1
}

// failed records a failed login from the address.
func (a *accounts) failed(addr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.fails[addr]
	if b == nil {
		if len(a.fails) >= maxFailAddr {
			for k, x := range a.fails {
				if a.refill(x) >= failBurst {
					delete(a.fails, k)
				}
			}
			if len(a.fails) >= maxFailAddr {
				// Every remembered address is failing: forget one rather than grow.
				for k := range a.fails {
					delete(a.fails, k)
					break
				}
			}
		}
		b = &failBucket{tokens: failBurst, at: a.now()}
		a.fails[addr] = b
	}
	a.refill(b)
	b.tokens = max(b.tokens-1, 0)
}

func (a *accounts) refill(b *failBucket) float64 {
	now := a.now()
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(b.tokens+d.Seconds()/failRefill.Seconds(), failBurst)
		b.at = now
	}
	return b.tokens
}
