// Package store keeps players and their saved avatars. Store is what the game
// server and the commands use; it has two implementations: SQLite, an embedded
// database file (modernc.org/sqlite, pure Go), the default of a single server, and
// Postgres (github.com/jackc/pgx/v5), the store several server processes share in
// cluster mode. OpenURL picks one by its location. Both keep the same rules (names,
// accounts, atomic batches), and one conformance suite runs against both.
//
// Saves are transactional: a save either commits whole or leaves the previous one
// in place, even if the process is killed.
//
// # Design note
//
// The SQLite database runs in WAL mode with synchronous=FULL, so a commit that
// returned is on disk. Its schema is versioned with PRAGMA user_version, the
// PostgreSQL one in the table twinframe_schema; both are upgraded by an ordered list
// of migrations when the store opens. An avatar is an opaque blob — a Database-mode
// archive, which carries its own format version and build number so the simulation
// migrates old saves while unpacking; the store only records which frame it was
// saved at and how many times.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

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

// SQLite is a store in an embedded SQLite database file. It is safe for concurrent use.
type SQLite struct {
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
	// Regions (regions.go): each region's last saved state, and the fence (the
	// lease revision) of the node that saved it.
	`CREATE TABLE regions (
		name  TEXT    PRIMARY KEY,
		state BLOB    NOT NULL,
		frame INTEGER NOT NULL,
		fence INTEGER NOT NULL,
		saves INTEGER NOT NULL DEFAULT 1
	)`,
}

// SchemaVersion is the user_version a fully migrated database has.
var SchemaVersion = len(migrations)

// Open opens (creating if needed) the database at path, checks it and migrates it.
// It refuses a database it cannot trust or write, rather than serve logins that
// would fail or, worse, misbehave: a file that is not SQLite or fails the integrity
// check (a damaged name index would let a login create a second player of the
// same name), a schema newer than this server or not the one its version should
// have, and a file or directory it cannot write. The error says what is wrong
// and what to do.
func Open(ctx context.Context, path string) (*SQLite, error) {
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
	s := &SQLite{db: db}
	if err := s.check(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	return s, nil
}

// Advice for an operator facing a store Open refuses.
const (
	adviceRestore = "restore a backup or run sqlite3 .recover"
	adviceForeign = "point -db at a Twinframe database or a new file"
)

// check verifies, before anything is written, that the database is sound, that
// its schema is the one its version says, and that it is writable.
func (s *SQLite) check(ctx context.Context) error {
	// The quick check reads every page: a damaged b-tree, a truncated file or a
	// file that is not SQLite stops here.
	rows, err := s.db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return fmt.Errorf("cannot read the database: %v; %s", sqliteText(err), adviceRestore)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return fmt.Errorf("cannot read the database: %v; %s", sqliteText(err), adviceRestore)
		}
		problems = append(problems, line)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return fmt.Errorf("integrity check failed: %v; %s", sqliteText(err), adviceRestore)
	}
	rows.Close()
	if len(problems) != 1 || problems[0] != "ok" {
		return fmt.Errorf("integrity check failed: %s; %s", summarize(problems), adviceRestore)
	}
	version, err := s.SchemaVersion(ctx)
	if err != nil {
		return fmt.Errorf("reading schema version: %v; %s", sqliteText(err), adviceRestore)
	}
	if version > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this server's (%d); run the server version that wrote it, or restore a backup", version, len(migrations))
	}
	if err := s.checkSchema(ctx, version); err != nil {
		return err
	}
	if version > 0 {
		// The quick check does not compare indexes with their tables: check the
		// players table and its name index fully (its cost grows with the players).
		if p, err := s.column(ctx, "PRAGMA integrity_check(players)"); err != nil {
			return fmt.Errorf("integrity check failed: %v; %s", sqliteText(err), adviceRestore)
		} else if len(p) != 1 || p[0] != "ok" {
			return fmt.Errorf("integrity check failed: %s; %s", summarize(p), adviceRestore)
		}
	}
	// A write transaction proves the file, its journal and its directory writable.
	if err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version))
		return err
	}); err != nil {
		return fmt.Errorf("not writable: %v; check the permissions and free space of the file and its directory", sqliteText(err))
	}
	return nil
}

// checkSchema compares the database's tables and indexes with those the
// migrations up to version create, built afresh in memory.
func (s *SQLite) checkSchema(ctx context.Context, version int) error {
	want, err := schemaAt(ctx, version)
	if err != nil {
		return fmt.Errorf("building the reference schema: %w", err)
	}
	got, err := schemaOf(ctx, s.db)
	if err != nil {
		return fmt.Errorf("reading the schema: %v; %s", sqliteText(err), adviceRestore)
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		w := want[name]
		g, ok := got[name]
		switch {
		case !ok && version == 0:
		case !ok:
			return fmt.Errorf("schema version %d but %s %s is missing; %s", version, w.kind, name, adviceRestore)
		case g != w:
			return fmt.Errorf("schema version %d but %s %s differs from this server's (%s); %s", version, w.kind, name, g.sql, adviceRestore)
		}
	}
	var extra []string
	for name, g := range got {
		if _, ok := want[name]; !ok {
			extra = append(extra, g.kind+" "+name)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		if version == 0 {
			return fmt.Errorf("not a Twinframe database (no schema version, but it has %s); %s", strings.Join(extra, ", "), adviceForeign)
		}
		return fmt.Errorf("schema version %d but unknown %s; %s", version, strings.Join(extra, ", "), adviceForeign)
	}
	return nil
}

type schemaObject struct{ kind, table, sql string }

func schemaOf(ctx context.Context, db *sql.DB) (map[string]schemaObject, error) {
	rows, err := db.QueryContext(ctx, `SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema
		WHERE name NOT LIKE 'sqlite_stat%'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]schemaObject{}
	for rows.Next() {
		var name string
		var o schemaObject
		if err := rows.Scan(&o.kind, &name, &o.table, &o.sql); err != nil {
			return nil, err
		}
		out[name] = o
	}
	return out, rows.Err()
}

// schemaAt returns the schema the first version migrations create.
func schemaAt(ctx context.Context, version int) (map[string]schemaObject, error) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, m := range migrations[:version] {
		if _, err := db.ExecContext(ctx, m); err != nil {
			return nil, err
		}
	}
	return schemaOf(ctx, db)
}

func (s *SQLite) column(ctx context.Context, query string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// summarize joins the first problems an integrity check reported, on one line.
func summarize(problems []string) string {
	var lines []string
	for _, p := range problems {
		for l := range strings.SplitSeq(p, "\n") {
			if l != "" && !strings.HasPrefix(l, "*** in database") {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) > 3 {
		return fmt.Sprintf("%s (and %d more)", strings.Join(lines[:3], "; "), len(lines)-3)
	}
	return strings.Join(lines, "; ")
}

// sqliteText is the SQLite error message without the driver's result code.
func sqliteText(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, " ("); i > 0 && strings.HasSuffix(msg, ")") {
		if _, err := strconv.Atoi(msg[i+2 : len(msg)-1]); err == nil {
			return msg[:i]
		}
	}
	return msg
}

func (s *SQLite) migrate(ctx context.Context) error {
	version, err := s.SchemaVersion(ctx)
	if err != nil {
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
func (s *SQLite) Close() error { return s.db.Close() }

// SchemaVersion returns the database's schema version.
func (s *SQLite) SchemaVersion(ctx context.Context) (int, error) {
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

// Login returns the player called name, creating it on first login, without
// claiming its account (Claim with no secret).
func (s *SQLite) Login(ctx context.Context, name string) (p Player, created bool, err error) {
	// One rule creates players: Claim's, which normalises the name and keys it.
	a, created, err := s.Claim(ctx, name, "")
	if err != nil {
		return Player{}, false, err
	}
	return a.Player, created, nil
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
func (s *SQLite) Player(ctx context.Context, name string) (Player, error) {
	p, err := scanPlayer(s.db.QueryRowContext(ctx, selectPlayer+` WHERE name = ?`, name))
	if err != nil {
		return Player{}, fmt.Errorf("store: player %q: %w", name, err)
	}
	return p, nil
}

// SaveError is a save the store refuses for good (ErrNotFound, ErrTooLarge):
// retrying it cannot help, unlike a full disk or a busy database.
type SaveError struct {
	PlayerID int64
	Err      error
}

func (e *SaveError) Error() string {
	return fmt.Sprintf("store: save player %d: %v", e.PlayerID, e.Err)
}
func (e *SaveError) Unwrap() error { return e.Err }

// SaveAll stores every save in one transaction: all commit, or none. A save the
// store refuses for good fails the batch with a *SaveError naming it.
func (s *SQLite) SaveAll(ctx context.Context, saves []Save) error {
	for _, sv := range saves {
		if len(sv.Avatar) > MaxAvatarBytes {
			return &SaveError{sv.PlayerID, fmt.Errorf("%w: %d bytes > %d", ErrTooLarge, len(sv.Avatar), MaxAvatarBytes)}
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
				return &SaveError{sv.PlayerID, ErrNotFound}
			}
		}
		return nil
	})
}

// LimitPages caps the database at pages pages on this connection (PRAGMA
// max_page_count; never below its current size) and returns the cap in force:
// writes that would grow it fail with SQLITE_FULL, as on a full disk. Zero
// lifts the cap. It is a quota for operators and how tests fill the store.
func (s *SQLite) LimitPages(ctx context.Context, pages int64) (int64, error) {
	if pages <= 0 {
		pages = 0xfffffffe // SQLite's largest page count
	}
	var got int64
	err := s.db.QueryRowContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)).Scan(&got)
	return got, err
}

// SaveAvatar stores one player's avatar.
func (s *SQLite) SaveAvatar(ctx context.Context, playerID int64, avatar []byte, frame uint64) error {
	return s.SaveAll(ctx, []Save{{PlayerID: playerID, Avatar: avatar, Frame: frame}})
}

func (s *SQLite) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
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
