package sim

import "github.com/go-gl/mathgl/mgl32"

// Walker moves an entity along its path the way the locomotor moves it when
// nothing blocks it: speed × 50 ms a frame through as many corners as that
// reaches, facing its motion. A client walks the entities the server replicates
// with it between their updates, and the server walks its own copy of what the
// clients hold, so that it knows when they need an update (collisions, slides and
// new commands are the server's alone).
//
// Step runs the code a Step of the Game runs for an unobstructed mover (plan, the
// physics' unblocked move, yawTo), so a walker started from an entity's exact
// state stays on it bit for bit until something gets in its way.
type Walker struct {
	Pos   mgl32.Vec2
	Yaw   float32
	Speed float32      // metres per second
	Path  []mgl32.Vec2 // the corners (the first is where the move started)
	Next  int          // index in Path of the corner walked to
}

// Walking reports whether a Step would move the walker: it has a corner left to
// walk to and a positive speed.
func (w *Walker) Walking() bool {
	return w.Next >= 0 && w.Next < len(w.Path) && w.Speed > 0 && finite(w.Speed)
}

// Step advances the walker one frame and reports whether it is still walking
// afterwards (false once it reached the end of its path, where the locomotor
// would stop the entity).
func (w *Walker) Step() bool {
	if !w.Walking() {
		return false
	}
	from := w.Pos
	p, next := plan(from, w.Path, int32(w.Next), min(w.Speed, MaxSpeed))
	w.Pos = add2(from, sub2(p, from)) // what physics does with an unblocked motion
	w.Next = int(next)
	if moved := sub2(w.Pos, from); moved[0] != 0 || moved[1] != 0 {
		w.Yaw = yawTo(moved, w.Yaw)
	}
	return w.Walking()
}
