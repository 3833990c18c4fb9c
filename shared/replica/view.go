package replica

import (
	"github.com/twinframe/twinframe/shared/geom"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/sim/locomotion"
)

// View is an entity as the client should draw it at a moment.
type View struct {
	ID         uint64
	Prototype  int32
	Owner      int32
	Pos        mgl32.Vec2
	Yaw        float32
	Moving     bool
	Own        bool // the predicted own avatar (smoothed)
	Projectile bool
	// Extrapolated: drawn past the newest server frame (true) or held after the
	// extrapolation limit (and Held).
	Extrapolated, Held bool
	// Server is the last authoritative state (for the own avatar too): the path to
	// draw, and what the server says.
	Server locomotion.State
}

// View appends every entity as it should be drawn at now to dst, in id order:
// remote entities InterpDelay frames behind the estimated server frame, the own
// avatar at its predicted position plus the smoothing offset.
func (r *Replica) View(now time.Duration, dst []View) []View {
	t := r.clock.ServerFrame(now) - r.opt.InterpDelay
	for _, e := range r.ents {
		v := View{ID: e.id, Prototype: e.proto, Owner: e.owner, Projectile: e.projectile,
			Moving: e.state().Fields&locomotion.Moving != 0, Server: *e.state()}
		if e.id == r.player && r.pred.active() {
			v.Own = true
			v.Pos, v.Yaw = r.ownPose(now)
		} else {
			v.Pos, v.Yaw, v.Extrapolated, v.Held = e.interpolate(t, r.frame, r.opt.MaxExtrapolation)
		}
		dst = append(dst, v)
	}
	return dst
}

// ownPose is the predicted avatar between its two newest predicted frames, plus
// the smoothing offset.
func (r *Replica) ownPose(now time.Duration) (mgl32.Vec2, float32) {
	p := &r.pred
	cur, cy, _ := p.pos(p.frame)
	prev, py, ok := p.pos(p.frame - 1)
	if !ok {
		prev, py = cur, cy
	}
	alpha := r.clock.TargetFrame(now) - float64(p.frame)
	alpha = min(max(alpha, 0), 1)
	pos := lerp2(prev, cur, float32(alpha))
	yaw := lerpAngle(py, cy, float32(alpha))
	return pos.Add(p.offset), geom.WrapAngle(yaw + p.yawOff)
}

// interpolate returns the entity's pose at fractional server frame t; newest is the
// newest frame received (the entity is known to hold its last sample up to it).
func (e *entity) interpolate(t float64, newest uint64, maxExtra float64) (pos mgl32.Vec2, yaw float32, extra, held bool) {
	n := len(e.samples)
	if n == 0 {
		return mgl32.Vec2{e.state().Position[0], e.state().Position[1]}, e.state().Yaw, false, false
	}
	if t <= float64(e.samples[0].frame) {
		return e.samples[0].pos, e.samples[0].yaw, false, false
	}
	if t > float64(newest) {
		last := e.samples[n-1]
		dt := t - float64(newest)
		if dt > maxExtra {
			dt, held = maxExtra, true
		}
		vel, ok := e.velocity(newest)
		if !ok || !last.moving {
			return last.pos, last.yaw, false, held
		}
		return last.pos.Add(vel.Mul(float32(float64(newest-last.frame) + dt))), last.yaw, true, held
	}
	f := uint64(math.Floor(t))
	a := e.at(f)
	b := e.at(f + 1)
	alpha := float32(t - float64(f))
	if f+1 > newest {
		b = a
	}
	return lerp2(a.pos, b.pos, alpha), lerpAngle(a.yaw, b.yaw, alpha), false, false
}

// at returns the sample that holds at frame f (the newest at or before it).
func (e *entity) at(f uint64) sample {
	i := len(e.samples) - 1
	for i > 0 && e.samples[i].frame > f {
		i--
	}
	return e.samples[i]
}

// velocity is the motion per frame between the frame before the newest sample and
// that sample.
func (e *entity) velocity(newest uint64) (mgl32.Vec2, bool) {
	n := len(e.samples)
	if n < 2 {
		return mgl32.Vec2{}, false
	}
	last := e.samples[n-1]
	prev := e.at(last.frame - 1)
	if prev.frame == last.frame || last.frame+1 < newest && !last.moving {
		return mgl32.Vec2{}, false
	}
	return last.pos.Sub(prev.pos), true
}

func lerp2(a, b mgl32.Vec2, t float32) mgl32.Vec2 {
	return mgl32.Vec2{a[0] + float32((b[0]-a[0])*t), a[1] + float32((b[1]-a[1])*t)}
}

func lerpAngle(a, b, t float32) float32 {
	return geom.WrapAngle(a + float32(geom.WrapAngle(b-a)*t))
}
