package sim

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/archive"
)

// ProtoProjectile is the prototype id of projectiles, which the world tables do not
// describe: the simulation defines the one power it has.
const ProtoProjectile int32 = -2

// The bolt: the one power, a fast small projectile.
const (
	PowerBolt       int32   = 1
	BoltSpeed       float32 = 40  // metres per second: 2 m per frame, five times its diameter
	BoltRadius      float32 = 0.2 // metres
	BoltRange       float32 = 30  // metres before it fizzles
	BoltDamage      int32   = 10
	boltSpawnMargin float32 = 0.05
)

// projectile is the power data of a projectile entity (power 0: not a projectile).
type projectile struct {
	power  int32
	source EntityID // who fired it; never hit by its own projectile
	dir    mgl32.Vec2
	left   float32 // range left
}

func (p *projectile) serialize(a *archive.Archive) {
	a.TransferInt32(&p.power)
	transferID(a, &p.source)
	transferVec2(a, &p.dir)
	a.TransferFloat32(&p.left)
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
// see PowerResults) or has flown BoltRange. It returns the projectile's id.
func (g *Game) Fire(id EntityID, at mgl32.Vec2) (EntityID, error) {
	e, err := g.live(id)
	if err != nil {
		return 0, err
	}
	if !finite2(at) {
		return 0, ErrNotFinite
	}
	dir, l := unit2(sub2(at, e.pos))
	if l == 0 {
		return 0, ErrZeroDirection
	}
	r := g.regionOf(e)
	start := axpy2(e.pos, dir, e.radius+BoltRadius+boltSpawnMargin)
	if r == nil || !r.mesh.Contains(start, BoltRadius, walkFlags) {
		start = e.pos // too close to a wall: start inside the shooter
	}
	p := &Entity{
		proto: ProtoProjectile, region: e.region, pos: start, yaw: yawTo(dir, e.yaw),
		radius: BoltRadius, speed: BoltSpeed, collision: CollideNone, owner: e.owner,
		population: -1,
		power:      projectile{power: PowerBolt, source: id, dir: dir, left: BoltRange},
	}
	p.loco.mode = Direct
	p.loco.path = []mgl32.Vec2{start, axpy2(start, dir, BoltRange)}
	p.loco.next = 1
	g.insert(p)
	e.yaw = yawTo(dir, e.yaw)
	e.changed = g.frame
	return p.id, nil
}

// PowerResults returns the power results of the last step, in the order they happened.
// The slice is reused by the next step.
func (g *Game) PowerResults() []PowerResult { return g.results }
