package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/secure/precis"
)

// Accounts
//
// A player is an account: the name, normalised (NormalizeName), is unique by its
// case-mapped key (players.name_key), and the account's secret (players.secret)
// is a hash string the game server makes and checks; the store only keeps it.
// Players saved before accounts existed have neither: the first login under the
// new rules claims such a player (Claim sets its key and its secret).

// ErrClaimed is returned by Claim when the account already has a secret: the
// login must present it instead.
var ErrClaimed = errors.New("store: account already has a secret")

// maxRawNameBytes bounds the name a client sends before normalisation (which
// can shorten it, e.g. a decomposed accent composes): normalising is not free.
const maxRawNameBytes = 4 * MaxNameBytes

// NormalizeName returns the name as stored and shown (display) and the key
// names are unique by (key), or ErrBadName.
//
// A name is one or more parts separated by single spaces; each part must pass
// the PRECIS UsernameCasePreserved profile (RFC 8265): width-mapped (fullwidth
// letters become ASCII), NFC, no spaces, controls, format characters (zero-width
// space, soft hyphen, bidi overrides), compatibility characters (ligatures,
// Roman numerals), nor a zero-width joiner outside its Indic context, and the
// Bidi rule must hold (no mixing right-to-left and left-to-right parts). The key
// is the same under UsernameCaseMapped (lower case), so "Bob", "bob" and "ＢＯＢ"
// are one account.
//
// PRECIS does not catch confusable letters of different scripts (Cyrillic "а"
// for Latin "a"): a name may not mix scripts, except the combinations Unicode
// TS #39 calls highly restrictive (Latin with Han, Hiragana and Katakana; Latin
// with Han and Bopomofo; Latin with Han and Hangul). Whole-script confusables
// (a name entirely in Cyrillic that looks like a Latin one) remain possible, as
// do "Straße" and "strasse" (PRECIS lower-cases, it does not case-fold to "ss").
func NormalizeName(name string) (display, key string, err error) {
	bad := func(why string) (string, string, error) {
		return "", "", fmt.Errorf("%w: %q (%s)", ErrBadName, name, why)
	}
	if name == "" || len(name) > maxRawNameBytes || !utf8.ValidString(name) {
		return bad(fmt.Sprintf("1..%d bytes of UTF-8", MaxNameBytes))
	}
	parts := strings.Split(name, " ")
	shown := make([]string, len(parts))
	keys := make([]string, len(parts))
	for i, p := range parts {
		if p == "" {
			return bad("space at an end or two in a row")
		}
		if shown[i], err = precis.UsernameCasePreserved.String(p); err != nil {
			return bad(err.Error())
		}
		if keys[i], err = precis.UsernameCaseMapped.String(p); err != nil {
			return bad(err.Error())
		}
	}
	display, key = strings.Join(shown, " "), strings.Join(keys, " ")
	if len(display) > MaxNameBytes {
		return bad(fmt.Sprintf("over %d bytes", MaxNameBytes))
	}
	if !singleScript(display) {
		return bad("mixes scripts")
	}
	return display, key, nil
}

// allowedMixes are the script combinations of Unicode TS #39's highly
// restrictive level; any single script is allowed too.
var allowedMixes = [][]*unicode.RangeTable{
	{unicode.Latin, unicode.Han, unicode.Hiragana, unicode.Katakana},
	{unicode.Latin, unicode.Han, unicode.Bopomofo},
	{unicode.Latin, unicode.Han, unicode.Hangul},
}

// singleScript reports whether the letters of s (Common and Inherited
// characters aside: digits, punctuation, combining marks) come from one script
// or an allowed mix.
func singleScript(s string) bool {
	var used []*unicode.RangeTable
	for _, r := range s {
		if unicode.In(r, unicode.Common, unicode.Inherited) {
			continue
		}
		t := scriptOf(r)
		if t == nil {
			return false
		}
		if !containsTable(used, t) {
			used = append(used, t)
		}
	}
	if len(used) <= 1 {
		return true
	}
	for _, mix := range allowedMixes {
		ok := true
		for _, t := range used {
			ok = ok && containsTable(mix, t)
		}
		if ok {
			return true
		}
	}
	return false
}

func containsTable(ts []*unicode.RangeTable, t *unicode.RangeTable) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// scriptOf returns the script table holding r (each rune is in at most one).
func scriptOf(r rune) *unicode.RangeTable {
	if r < utf8.RuneSelf && unicode.Is(unicode.Latin, r) {
		return unicode.Latin
	}
	for _, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			return t
		}
	}
	return nil
}

// Account is a player with its account fields.
type Account struct {
	Player
	Key    string // the normalised, case-mapped name (NormalizeName)
	Secret string // the secret's hash string; empty: not claimed yet
}

const selectAccount = `SELECT id, name, avatar, saved_frame, saves, name_key, secret FROM players`

func scanAccount(row *sql.Row) (Account, error) {
	var a Account
	var frame int64
	var key, secret sql.NullString
	err := row.Scan(&a.ID, &a.Name, &a.Avatar, &frame, &a.Saves, &key, &secret)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, ErrNotFound
	}
	a.SavedFrame = uint64(frame)
	a.Key, a.Secret = key.String, secret.String
	return a, err
}

// findAccount looks up the account of name: by its key, else a player saved
// before accounts (no key yet) under the name as sent, as normalised, or the key
// ignoring ASCII case; the closest of several such players wins.
func findAccount(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name, display, key string) (Account, error) {
	a, err := scanAccount(q.QueryRowContext(ctx, selectAccount+` WHERE name_key = ?`, key))
	if !errors.Is(err, ErrNotFound) {
		return a, err
	}
	// SQLite's NOCASE folds ASCII letters only: a pre-account name with other
	// letters in another case (or width) is found under the name it was saved with.
	return scanAccount(q.QueryRowContext(ctx, selectAccount+` WHERE name_key IS NULL AND (name IN (?, ?) OR name = ? COLLATE NOCASE)
		ORDER BY name = ? DESC, name = ? DESC, id LIMIT 1`, name, display, key, name, display))
}

// Account returns the account of name (any form that normalises to its key),
// or ErrNotFound.
func (s *SQLite) Account(ctx context.Context, name string) (Account, error) {
	display, key, err := NormalizeName(name)
	if err != nil {
		return Account{}, err
	}
	a, err := findAccount(ctx, s.db, name, display, key)
	if err != nil {
		return Account{}, fmt.Errorf("store: account %q: %w", name, err)
	}
	return a, nil
}

// accountTx is what Claim's rule needs of a store's transaction; each store
// speaks its own SQL.
type accountTx interface {
	find(ctx context.Context, name, display, key string) (Account, error)
	insert(ctx context.Context, display, key string) (id int64, err error)
	setKey(ctx context.Context, id int64, key string) error
	setSecret(ctx context.Context, id int64, secret string) error
	clearSecret(ctx context.Context, id int64) error
}

// accountStore is a store that runs account transactions: fn runs in one, with
// other claims of the same name key kept out until it ends.
type accountStore interface {
	inAccountTx(ctx context.Context, key string, fn func(accountTx) error) error
}

// claim is Claim for every store.
func claim(ctx context.Context, st accountStore, name, secret string) (a Account, created bool, err error) {
	display, key, err := NormalizeName(name)
	if err != nil {
		return Account{}, false, err
	}
	err = st.inAccountTx(ctx, key, func(tx accountTx) error {
		a, created, err = claimIn(ctx, tx, name, display, key, secret)
		return err
	})
	if errors.Is(err, ErrClaimed) {
		return a, false, ErrClaimed
	}
	if err != nil {
		return Account{}, false, fmt.Errorf("store: claim %q: %w", name, err)
	}
	return a, created, nil
}

// resetSecret is ResetSecret for every store.
func resetSecret(ctx context.Context, st accountStore, name string) (Account, error) {
	display, key, err := NormalizeName(name)
	if err != nil {
		return Account{}, err
	}
	var a Account
	err = st.inAccountTx(ctx, key, func(tx accountTx) error {
		a, err = resetIn(ctx, tx, name, display, key)
		return err
	})
	if err != nil {
		return Account{}, fmt.Errorf("store: reset secret of %q: %w", name, err)
	}
	return a, nil
}

// resetIn is ResetSecret's rule in the store's transaction: the account keeps its
// save and loses its secret.
func resetIn(ctx context.Context, tx accountTx, name, display, key string) (Account, error) {
	a, err := tx.find(ctx, name, display, key)
	if err != nil {
		return Account{}, err
	}
	if err := tx.clearSecret(ctx, a.ID); err != nil {
		return Account{}, err
	}
	a.Secret = ""
	return a, nil
}

// claimIn is Claim's rule, the same for every store, in the store's transaction:
// find the account or create it, give a player from before accounts its key, and
// set the secret when one is given and the account has none (ErrClaimed when it
// has one).
func claimIn(ctx context.Context, tx accountTx, name, display, key, secret string) (a Account, created bool, err error) {
	a, err = tx.find(ctx, name, display, key)
	if errors.Is(err, ErrNotFound) {
		id, err := tx.insert(ctx, display, key)
		if err != nil {
			return Account{}, false, err
		}
		created = true
		a = Account{Player: Player{ID: id, Name: display}}
	} else if err != nil {
		return Account{}, false, err
	}
	if a.Key == "" {
		// A player from before accounts: it takes its key now.
		if err := tx.setKey(ctx, a.ID, key); err != nil {
			return Account{}, false, err
		}
		a.Key = key
	}
	if secret == "" {
		return a, created, nil
	}
	if a.Secret != "" {
		return a, created, ErrClaimed
	}
	if err := tx.setSecret(ctx, a.ID, secret); err != nil {
		return Account{}, false, err
	}
	a.Secret = secret
	return a, created, nil
}

// sqliteAccounts is an SQLite transaction as an accountTx.
type sqliteAccounts struct{ tx *sql.Tx }

func (t sqliteAccounts) find(ctx context.Context, name, display, key string) (Account, error) {
	return findAccount(ctx, t.tx, name, display, key)
}

func (t sqliteAccounts) insert(ctx context.Context, display, key string) (int64, error) {
	res, err := t.tx.ExecContext(ctx, `INSERT INTO players(name, name_key) VALUES (?, ?)`, display, key)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

func (t sqliteAccounts) setKey(ctx context.Context, id int64, key string) error {
	_, err := t.tx.ExecContext(ctx, `UPDATE players SET name_key = ? WHERE id = ?`, key, id)
	return err
}

func (t sqliteAccounts) clearSecret(ctx context.Context, id int64) error {
	_, err := t.tx.ExecContext(ctx, `UPDATE players SET secret = NULL WHERE id = ?`, id)
	return err
}

func (t sqliteAccounts) setSecret(ctx context.Context, id int64, secret string) error {
	_, err := t.tx.ExecContext(ctx, `UPDATE players SET secret = ? WHERE id = ? AND secret IS NULL`, secret, id)
	return err
}

// Claim returns the account of name, creating it on first login, and, when
// secret is not empty, sets the account's secret if it has none: a new account,
// a player saved before accounts, or one created by an open login. It returns
// ErrClaimed (and the account) when the account already has a secret. An empty
// secret creates or finds the account without claiming it (open login).
func (s *SQLite) Claim(ctx context.Context, name, secret string) (Account, bool, error) {
	return claim(ctx, s, name, secret)
}

// ResetSecret clears the secret of name's account, so that the next login under
// that name claims it with a new password or issued token: the way back for a
// player who lost the secret (or never received the token issued at the first
// login). The save is kept. It returns ErrNotFound when there is no such account.
func (s *SQLite) ResetSecret(ctx context.Context, name string) (Account, error) {
	return resetSecret(ctx, s, name)
}

// inAccountTx runs fn in a transaction (SQLite's single writer serialises claims
// of one name).
func (s *SQLite) inAccountTx(ctx context.Context, _ string, fn func(accountTx) error) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return fn(sqliteAccounts{tx}) })
}
