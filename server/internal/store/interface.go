package store

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// Store is a store of players, their accounts and their saved avatars. Every
// implementation is safe for concurrent use and keeps the same rules: names are
// normalised and unique by key (NormalizeName), an account's secret is set once
// until ResetSecret, and SaveAll commits a whole batch or nothing.
type Store interface {
	// Login returns the player called name, creating it on first login, without
	// claiming its account (Claim with no secret).
	Login(ctx context.Context, name string) (p Player, created bool, err error)
	// Player returns the player stored under exactly that name, or ErrNotFound.
	Player(ctx context.Context, name string) (Player, error)
	// Account returns the account of name (any form that normalises to its
	// key), or ErrNotFound.
	Account(ctx context.Context, name string) (Account, error)
	// Claim returns the account of name, creating it on first login, and sets
	// its secret if it has none; ErrClaimed (with the account) if it has one.
	Claim(ctx context.Context, name, secret string) (a Account, created bool, err error)
	// ResetSecret clears the secret of name's account, or returns ErrNotFound.
	ResetSecret(ctx context.Context, name string) (Account, error)
	// SaveAll stores every save in one transaction: all commit, or none.
	SaveAll(ctx context.Context, saves []Save) error
	// SaveAvatar stores one player's avatar.
	SaveAvatar(ctx context.Context, playerID int64, avatar []byte, frame uint64) error
	// SaveRegion stores a region's state unless a save with a higher fence is
	// stored (ErrFenced): a node that lost a region's lease cannot overwrite the
	// save of the node that took it over.
	SaveRegion(ctx context.Context, r RegionSave) error
	// Region returns the last save of the region called name, or ErrNoRegion.
	Region(ctx context.Context, name string) (RegionSave, error)
	// SchemaVersion returns the stored schema's version.
	SchemaVersion(ctx context.Context) (int, error)
	// Close releases the store.
	Close() error
}

var (
	_ Store = (*SQLite)(nil)
	_ Store = (*Postgres)(nil)
)

// scheme matches the scheme of a URL ("postgres://"); a plain path has none.
var scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://`)

// OpenURL opens the store at location: "postgres://..." or "postgresql://..." is
// a PostgreSQL database (OpenPostgres), "sqlite:PATH" or a plain path an SQLite
// file (Open). Any other URL scheme is an error rather than a file of that name.
func OpenURL(ctx context.Context, location string) (Store, error) {
	if path, ok := SQLitePath(location); ok {
		s, err := Open(ctx, path)
		if err != nil {
			return nil, err // a nil *SQLite in a Store would not be nil
		}
		return s, nil
	}
	if strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://") {
		s, err := OpenPostgres(ctx, location)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("store: %s: unknown kind of store; use postgres://USER@HOST:PORT/DATABASE, sqlite:PATH or a file path", Redact(location))
}

// SQLitePath returns the file of an SQLite location ("sqlite:PATH" or a plain
// path) and whether location is one.
func SQLitePath(location string) (string, bool) {
	if path, ok := strings.CutPrefix(location, "sqlite:"); ok && !strings.HasPrefix(path, "//") {
		return path, path != ""
	}
	if scheme.MatchString(location) || location == "" {
		return "", false
	}
	return location, true
}
