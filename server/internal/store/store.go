// Package store keeps players and their saved avatars in an embedded SQLite
// database (modernc.org/sqlite, pure Go). Saves are transactional: a save either
// commits whole or leaves the previous one in place, even if the process is killed.
//
// # Design note
//
// The database runs in WAL mode with synchronous=FULL, so a commit that returned is
// on disk. The schema is versioned with PRAGMA user_version and upgraded by an
// ordered list of migrations when the store opens. An avatar is an opaque blob —
// a Database-mode archive, which carries its own format version and build number so
// the simulation migrates old saves while unpacking; the store only records which
// frame it was saved at and how many times.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Errors.
var (
	ErrBadName  = errors.New("store: invalid player name")
	ErrNotFound = errors.New("store: no such player")
	ErrTooLarge = errors.New("store: avatar too large")
)

// MaxAvatarBytes caps a saved avatar.
const MaxAvatarBytes = 1 << 20

// MaxNameBytes caps a player name.
const MaxNameBytes = 32

// Player is a stored player.
type Player struct {
	ID         int64
	Name       string
	Avatar     []byte // Database-mode archive, nil before the first save
	SavedFrame uint64 // game frame of the last save
	Saves      int64  // number of saves so far
}

// Save is one avatar to store.
type Save struct {
	PlayerID int64
	Avatar   []byte
	Frame    uint64
}

// Store is an open database. It is safe for concurrent use.
type Store struct {
	db *sql.DB
}

// migrations upgrade the schema; entry i takes user_version i to i+1. Never edit
// an entry that has shipped: append a new one.
var migrations = []string{
	`CREATE TABLE players (
		id          INTEGER PRIMARY KEY AUTOINCREMENT,
		name        TEXT    NOT NULL UNIQUE,
		avatar      BLOB,
		saved_frame INTEGER NOT NULL DEFAULT 0,
		saves       INTEGER NOT NULL DEFAULT 0
	)`,
	// Accounts (accounts.go): the normalised name's key, unique, and the secret's
	// hash; both NULL for players saved before accounts until their next login.
	`ALTER TABLE players ADD COLUMN name_key TEXT;
	ALTER TABLE players ADD COLUMN secret TEXT;
	CREATE UNIQUE INDEX players_name_key ON players(name_key)`,
}

// SchemaVersion is the user_version a fully migrated database has.
var SchemaVersion = len(migrations)

// Open opens (creating if needed) the database at path and migrates it.
func Open(ctx context.Context, path string) (*Store, error) {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; SQLite serializes writes anyway
	s := &Store{db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	var version int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("reading schema version: %w", err)
	}
	if version > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this server (%d)", version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1))
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// SchemaVersion returns the database's schema version.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// CheckName reports whether name can be a player name (NormalizeName): at most
// 32 bytes once normalised, PRECIS usernames separated by single spaces.
func CheckName(name string) error {
	_, _, err := NormalizeName(name)
	return err
}

// Login returns the player called name, creating it on first login.
func (s *Store) Login(ctx context.Context, name string) (p Player, created bool, err error) {
	if err := CheckName(name); err != nil {
		return Player{}, false, err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO players(name) VALUES (?) ON CONFLICT(name) DO NOTHING`, name)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		created = n == 1
		p, err = scanPlayer(tx.QueryRowContext(ctx, selectPlayer+` WHERE name = ?`, name))
		return err
	})
	if err != nil {
		return Player{}, false, fmt.Errorf("store: login %q: %w", name, err)
	}
	return p, created, nil
}

const selectPlayer = `SELECT id, name, avatar, saved_frame, saves FROM players`

func scanPlayer(row *sql.Row) (Player, error) {
	var p Player
	var frame int64
	err := row.Scan(&p.ID, &p.Name, &p.Avatar, &frame, &p.Saves)
	if errors.Is(err, sql.ErrNoRows) {
		return Player{}, ErrNotFound
	}
	p.SavedFrame = uint64(frame)
	return p, err
}

// Player returns the player called name.
func (s *Store) Player(ctx context.Context, name string) (Player, error) {
	p, err := scanPlayer(s.db.QueryRowContext(ctx, selectPlayer+` WHERE name = ?`, name))
	if err != nil {
		return Player{}, fmt.Errorf("store: player %q: %w", name, err)
	}
	return p, nil
}

// SaveAll stores every save in one transaction: all commit, or none.
func (s *Store) SaveAll(ctx context.Context, saves []Save) error {
	for _, sv := range saves {
		if len(sv.Avatar) > MaxAvatarBytes {
			return fmt.Errorf("%w: player %d, %d bytes > %d", ErrTooLarge, sv.PlayerID, len(sv.Avatar), MaxAvatarBytes)
		}
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx,
			`UPDATE players SET avatar = ?, saved_frame = ?, saves = saves + 1 WHERE id = ?`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, sv := range saves {
			res, err := stmt.ExecContext(ctx, sv.Avatar, int64(sv.Frame), sv.PlayerID)
			if err != nil {
				return fmt.Errorf("store: save player %d: %w", sv.PlayerID, err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return fmt.Errorf("store: save player %d: %w", sv.PlayerID, ErrNotFound)
			}
		}
		return nil
	})
}

// SaveAvatar stores one player's avatar.
func (s *Store) SaveAvatar(ctx context.Context, playerID int64, avatar []byte, frame uint64) error {
	return s.SaveAll(ctx, []Save{{PlayerID: playerID, Avatar: avatar, Frame: frame}})
}

func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
