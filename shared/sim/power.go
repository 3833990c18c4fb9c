package sim

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
)

// ProtoProjectile is the prototype id of projectiles, which the world tables do not
// describe: the simulation defines the one power it has.
const ProtoProjectile int32 = -2

// The bolt: the one power, a fast small projectile.
const (
	PowerBolt       int32   = world.PowerBolt
	BoltSpeed       float32 = 40  // metres per second: 2 m per frame, five times its diameter
	BoltRadius      float32 = 0.2 // metres
	BoltRange       float32 = 30  // metres before it fizzles
	BoltDamage      int32   = 10
	boltSpawnMargin float32 = 0.05
	// BoltFlightFrames is the number of frames a bolt that hits nothing flies:
	// BoltRange at BoltSpeed, rounded up to whole frames (flightFrames). It dies at the
	// end of the last of them.
	BoltFlightFrames uint64 = 15
)

// Fire errors.
var (
	ErrCooldown   = errors.New("sim: the entity fired too recently (fire cooldown)")
	ErrCannotFire = errors.New("sim: a projectile cannot fire")
)

// flightFrames returns the frames a projectile of speed flies rng metres in, at least
// one. Frames, not a distance counted down in float32, end a flight: a count of
// rounded steps can stop a hair short of the range, and a projectile stopped,
// slowed or moved by a command would never count down at all.
func flightFrames(rng, speed float32) uint64 {
	step := float64(speed) * float64(FrameSeconds)
	if !(rng > 0) || !(step > 0) {
		return 1
	}
	return uint64(max(math.Ceil(float64(rng)/step), 1))
}

// projectile is the power data of a projectile entity (power 0: not a projectile).
type projectile struct {
	power  int32
	source EntityID // who fired it; never hit by its own projectile
	dir    mgl32.Vec2
	end    uint64 // the last frame of its flight: physics ends it then, hit or not
}

func (p *projectile) serialize(a *archive.Archive) {
	a.TransferInt32(&p.power)
	transferID(a, &p.source)
	transferVec2(a, &p.dir)
	a.TransferUint64(&p.end)
}

// PowerResult is what a power did when it hit: the archive inside
// NetMessagePowerResult. Target is 0 when the projectile hit a wall.
type PowerResult struct {
	Power      int32
	Frame      uint64
	Source     EntityID
	Projectile EntityID
	Target     EntityID
	Point      mgl32.Vec2
	Normal     mgl32.Vec2
	Damage     int32
}

// Serialize packs or unpacks the result; the hit point travels at position precision
// and the normal at orientation precision in Replication, exactly otherwise.
// The Replication layout is docs/PROTOCOL.md §4.5.
func (r *PowerResult) Serialize(a *archive.Archive) error {
	a.TransferInt32(&r.Power)
	a.TransferUint64(&r.Frame)
	transferID(a, &r.Source)
	transferID(a, &r.Projectile)
	transferID(a, &r.Target)
	if a.IsReplication() {
		for i := range 2 {
			a.TransferFloatFixed(&r.Point[i], 3)
		}
		for i := range 2 {
			a.TransferFloatFixed(&r.Normal[i], 6)
		}
	} else {
		transferVec2(a, &r.Point)
		transferVec2(a, &r.Normal)
	}
	a.TransferInt32(&r.Damage)
	return a.Err()
}

// Fire makes entity id fire a bolt towards at: a projectile entity appears just in front
// of it and flies straight at BoltSpeed until it hits a wall or an entity (a PowerResult,
// see PowerResults) or has flown BoltRange, BoltFlightFrames frames after the frame it
// was fired in (from a Step's inputs: that frame; between steps: the next). It returns
// the projectile's id. An entity fires at most once per cooldown (the world's power
// table, world.DefaultFireCooldown frames without one): a fire within the cooldown of
// the last is ErrCooldown, and the input that asked for it is Rejected. Projectiles do
// not fire (ErrCannotFire).
func (g *Game) Fire(id EntityID, at mgl32.Vec2) (EntityID, error) {
	e, err := g.live(id)
	if err != nil {
		return 0, err
	}
	if !geom.Finite2(at) {
		return 0, ErrNotFinite
	}
	if e.power.power != 0 {
		return 0, fmt.Errorf("%w: %d", ErrCannotFire, id)
	}
	dir, l := geom.Unit(geom.Sub(at, e.pos))
	if l == 0 {
		return 0, ErrZeroDirection
	}
	// The first frame of the flight: a bolt fired by a Step's input flies in that
	// frame's physics, one fired between steps from the next.
	first := g.frame
	if !g.inStep {
		first++
	}
	if first < e.nextFire {
		return 0, fmt.Errorf("%w: entity %d may fire again at frame %d, not %d", ErrCooldown, id, e.nextFire, first)
	}
	e.nextFire = first + g.world.FireCooldown(PowerBolt)
	r := g.regionOf(e)
	start := geom.Axpy(e.pos, dir, e.radius+BoltRadius+boltSpawnMargin)
	if r == nil || !r.mesh.Contains(start, BoltRadius, walkFlags) {
		start = e.pos // too close to a wall: start inside the shooter
	}
	p := &Entity{
		proto: ProtoProjectile, region: e.region, pos: start, yaw: yawTo(dir, e.yaw),
		radius: BoltRadius, speed: BoltSpeed, collision: CollideNone, owner: e.owner,
		population: -1,
		power:      projectile{power: PowerBolt, source: id, dir: dir, end: first + flightFrames(BoltRange, BoltSpeed) - 1},
	}
	p.loco.mode = Direct
	p.loco.path = []mgl32.Vec2{start, geom.Axpy(start, dir, BoltRange)}
	p.loco.next = 1
	g.insert(p)
	e.yaw = yawTo(dir, e.yaw)
	e.changed = g.frame
	return p.id, nil
}

// PowerResults returns the power results of the last step, in the order they happened.
// The slice is reused by the next step.
func (g *Game) PowerResults() []PowerResult { return g.results }
