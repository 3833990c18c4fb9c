//go:build !linux

package gameserver

import (
	"time"

	"github.com/twinframe/twinframe/shared/sim/frameclock"
)

// newWallClock: elsewhere the frame clock spins through the last stretch.
func newWallClock(start time.Time) frameclock.Clock { return wallClock{start} }
