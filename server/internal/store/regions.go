package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// RegionSave is the saved state of one region of the world: its game's snapshot
// (a sim Disk archive, opaque here) at Frame, saved by the holder of the region's
// lease whose revision is Fence.
type RegionSave struct {
	Name  string
	State []byte
	Frame uint64
	Fence uint64
	Saves int64 // how many times the region was saved (read only)
}

// MaxRegionState caps a region's saved state.
const MaxRegionState = 64 << 20

// ErrFenced: a region save from a node whose fence is older than the stored
// save's, which a newer lease holder wrote.
var ErrFenced = errors.New("store: a newer lease holder saved the region")

// ErrNoRegion: no save of the region.
var ErrNoRegion = errors.New("store: no save of the region")

func checkRegionSave(r RegionSave) error {
	switch {
	case r.Name == "":
		return errors.New("store: region save without a name")
	case len(r.State) == 0:
		return fmt.Errorf("store: region %q: empty state", r.Name)
	case len(r.State) > MaxRegionState:
		return fmt.Errorf("store: region %q: state of %d bytes: %w (%d)", r.Name, len(r.State), ErrTooLarge, MaxRegionState)
	case r.Frame > 1<<63-1 || r.Fence > 1<<63-1:
		return fmt.Errorf("store: region %q: frame or fence beyond int64", r.Name)
	}
	return nil
}

// The upsert keeps the stored row when its fence is higher: the update's WHERE
// makes it a no-op, which RowsAffected reports as 0.
const upsertRegion = `INSERT INTO regions (name, state, frame, fence) VALUES ($1, $2, $3, $4)
	ON CONFLICT (name) DO UPDATE SET state = excluded.state, frame = excluded.frame,
	fence = excluded.fence, saves = regions.saves + 1 WHERE regions.fence <= excluded.fence`

const selectRegion = `SELECT name, state, frame, fence, saves FROM regions WHERE name = $1`

func (s *SQLite) SaveRegion(ctx context.Context, r RegionSave) error {
	if err := checkRegionSave(r); err != nil {
		return err
	}
	res, err := s.db.ExecContext(ctx, upsertRegion, r.Name, r.State, int64(r.Frame), int64(r.Fence))
	if err != nil {
		return fmt.Errorf("store: save region %q: %v", r.Name, sqliteText(err))
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("store: region %q with fence %d: %w", r.Name, r.Fence, ErrFenced)
	}
	return nil
}

func (s *SQLite) Region(ctx context.Context, name string) (RegionSave, error) {
	var r RegionSave
	var frame, fence int64
	err := s.db.QueryRowContext(ctx, selectRegion, name).Scan(&r.Name, &r.State, &frame, &fence, &r.Saves)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNoRegion
	}
	if err != nil {
		return RegionSave{}, fmt.Errorf("store: region %q: %w", name, err)
	}
	r.Frame, r.Fence = uint64(frame), uint64(fence)
	return r, nil
}

func (s *Postgres) SaveRegion(ctx context.Context, r RegionSave) error {
	if err := checkRegionSave(r); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, upsertRegion, r.Name, r.State, int64(r.Frame), int64(r.Fence))
	if err != nil {
		return fmt.Errorf("store: save region %q: %w", r.Name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: region %q with fence %d: %w", r.Name, r.Fence, ErrFenced)
	}
	return nil
}

func (s *Postgres) Region(ctx context.Context, name string) (RegionSave, error) {
	var r RegionSave
	var frame, fence int64
	err := s.pool.QueryRow(ctx, selectRegion, name).Scan(&r.Name, &r.State, &frame, &fence, &r.Saves)
	if errors.Is(err, pgx.ErrNoRows) {
		err = ErrNoRegion
	}
	if err != nil {
		return RegionSave{}, fmt.Errorf("store: region %q: %w", name, err)
	}
	r.Frame, r.Fence = uint64(frame), uint64(fence)
	return r, nil
}
