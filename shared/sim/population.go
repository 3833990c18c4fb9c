package sim

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/twinframe/twinframe/shared/world"

	"github.com/twinframe/twinframe/shared/geom"
)

// spawnGap is the extra distance between the discs of entities spawned together.
const spawnGap float32 = 0.2

// topUp spawns the entities each population misses: density per 1000 m² of the
// spawnable area (walkable, not blacked out) of its area, counting the live entities it
// spawned before.
func (g *Game) topUp() {
	for _, r := range g.regions {
		for ai := range r.areas {
			a := &r.areas[ai]
			for _, p := range a.pops {
				want := g.PopulationTarget(r, a.id, p.ID)
				have := 0
				for _, e := range g.ents {
					if !e.dead && e.population == p.ID {
						have++
					}
				}
				if have < want {
					g.spawnInArea(r, a, p.Prototype, p.ID, want-have)
				}
			}
		}
	}
}

// PopulationTarget returns how many entities population pop keeps in area of region r:
// its density times the area's spawnable area, the sum of the spawnable areas of the
// cells' parts in it (kept per cell, recomputed when a blackout zone switches).
func (g *Game) PopulationTarget(r *Region, areaID, pop int32) int {
	a := r.area(areaID)
	if a == nil {
		return 0
	}
	for _, p := range a.pops {
		if p.ID == pop {
			return int(float32(p.Density*r.areaSpawnable(areaID)) / 1000)
		}
	}
	return 0
}

// SpawnInArea spawns up to n entities of prototype proto in the named area of region,
// at spawn points drawn like a population's, and returns how many it placed.
func (g *Game) SpawnInArea(region int32, areaName string, proto int32, n int) (int, error) {
	r := g.Region(region)
	if r == nil {
		return 0, fmt.Errorf("%w: %d", ErrNoRegion, region)
	}
	if g.proto(proto) == nil {
		return 0, fmt.Errorf("%w: %d", ErrNoPrototype, proto)
	}
	for i := range r.areas {
		if r.areas[i].name == areaName {
			return g.spawnInArea(r, &r.areas[i], proto, -1, n), nil
		}
	}
	return 0, fmt.Errorf("%w: no area %q in region %d", ErrNoRegion, areaName, region)
}

// spawnInArea places n entities on a seeded, shuffled grid over the area: grid points
// are drawn in a random order (a Fisher-Yates shuffle done lazily, one draw per point
// tried) and a point is taken when the disc fits on walkable ground, lies outside every
// blackout zone and touches no blocking entity. Grid spacing is the disc's diameter
// plus spawnGap, so entities placed together never touch.
func (g *Game) spawnInArea(r *Region, a *area, proto, pop int32, n int) int {
	pr := g.proto(proto)
	if pr == nil || n <= 0 {
		return 0
	}
	rad := pr.Radius
	step := float32(2*rad) + spawnGap
	nx := int((a.max[0] - a.min[0]) / step)
	ny := int((a.max[1] - a.min[1]) / step)
	total := nx * ny
	if total <= 0 {
		return 0
	}
	r.grid.build(g.ents, r.id)
	if cap(r.perm) < total {
		r.perm = make([]int32, total)
	}
	perm := r.perm[:total]
	for i := range perm {
		perm[i] = int32(i)
	}
	placed := 0
	for i := 0; i < total && placed < n; i++ {
		j := i + g.rng.IntN(total-i)
		perm[i], perm[j] = perm[j], perm[i]
		k := int(perm[i])
		p := mgl32.Vec2{
			a.min[0] + float32((float32(k%nx)+0.5)*step),
			a.min[1] + float32((float32(k/nx)+0.5)*step),
		}
		if !r.mesh.Contains(p, rad, walkFlags) || r.mesh.InBlackOutZone(p, rad) {
			continue
		}
		if pr.Collision != world.CollideNone && g.blocked(r, p, rad, 0) {
			continue
		}
		e := g.fromProto(pr, r.id, p, float32((g.rng.Float32()*2-1)*3.14159274))
		e.population = pop
		e.seed = g.rng.Uint32()
		g.insert(e)
		if e.flags&world.FlagWander != 0 {
			g.setWake(e, g.frame+1+uint64(g.rng.IntN(2*FrameRate)))
		}
		placed++
	}
	return placed
}

// blocked reports whether a disc at p touches a blocking entity of r's grid (built from
// current positions), other than except.
func (g *Game) blocked(r *Region, p mgl32.Vec2, rad float32, except EntityID) bool {
	eg := &r.grid
	reach := rad + eg.maxR + spawnGap
	x0, y0, x1, y1 := eg.span(mgl32.Vec2{p[0] - reach, p[1] - reach}, mgl32.Vec2{p[0] + reach, p[1] + reach})
	for y := y0; y <= y1; y++ {
		for _, o := range eg.row(y, x0, x1) {
			if o.dead || o.collision != Blocking || o.id == except {
				continue
			}
			rr := rad + o.radius + Skin
			if geom.LenSq(geom.Sub(o.pos, p)) < float32(rr*rr) {
				return true
			}
		}
	}
	return false
}

// findSpot returns the free spot nearest to p on a spiral of candidate points spaced by
// the radius, up to maxDist away: walkable for the radius and, for colliding entities,
// touching no blocking entity.
func (g *Game) findSpot(r *Region, p mgl32.Vec2, rad float32, c Collision, maxDist float32) (mgl32.Vec2, bool) {
	r.grid.build(g.ents, r.id)
	free := func(q mgl32.Vec2) bool {
		return r.mesh.Contains(q, rad, walkFlags) && (c == CollideNone || !g.blocked(r, q, rad, 0))
	}
	if free(p) {
		return p, true
	}
	step := max(rad, 0.25)
	rings := int(maxDist / step)
	for k := 1; k <= rings; k++ {
		// The square ring at Chebyshev distance k, in a fixed order; the first free point
		// nearest p wins.
		var best mgl32.Vec2
		bestD := float32(-1)
		for dy := -k; dy <= k; dy++ {
			for dx := -k; dx <= k; dx++ {
				if max(abs(dx), abs(dy)) != k {
					continue
				}
				q := mgl32.Vec2{p[0] + float32(float32(dx)*step), p[1] + float32(float32(dy)*step)}
				if !free(q) {
					continue
				}
				if d := geom.LenSq(geom.Sub(q, p)); bestD < 0 || d < bestD {
					best, bestD = q, d
				}
			}
		}
		if bestD >= 0 {
			return best, true
		}
	}
	return mgl32.Vec2{}, false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
