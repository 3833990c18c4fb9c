// Package navi is the navigation mesh of a region: it triangulates walkable
// ground and obstacles, and answers where an agent may stand, walk, see and
// spawn. Paths, sweeps and line-of-sight queries run on it without
// allocating, through a reusable Query.
//
// Design note. Build makes a constrained Delaunay triangulation (CDT) of the
// bounds rectangle with every polygon edge as a constraint. Points are
// merged within a tolerance; orientation and in-circle tests are exact (a
// float64 filter with a fallback to floating-point expansions on the
// stack, which allocates nothing), so near-degenerate input cannot break
// the topology and native and wasm builds produce the same mesh.
// Constraint edges are inserted by flipping the edges they cross (Sloan);
// where two constraints cross, both are split at the intersection point
// (rounded to float32). Each constraint edge carries, per side, how many
// polygons of each Kind it enters; a breadth-first fill from outside the
// bounds adds these up, so every triangle knows how many walkable, obstacle
// and hole polygons cover it, and its Flags follow. Zone circles
// (Geometry.Zones) become polygons of constraint edges that change no
// content, so blackout zones can follow them. Point location walks from a
// grid hint; every walk and search has an explicit bound.
//
// Paths are A* over triangles with Demyen's channel widths (the heuristic
// weighted by 1.05, which keeps the search near the corridor; see
// hWeight; a triangle keeps the route whose polyline to it plus the
// straight rest to the goal is shortest, see search), then a funnel over portals shrunk by the agent's radius, then
// legs tangent to discs of that radius around the obstacle vertices the
// path turns at (tighten.go), so every leg keeps the radius from the walls
// of its corridor. A corner point beside an obstacle vertex with two walls
// is checked against that vertex's clearance, computed at build
// (vertwall.go), rather than by a point location and a disc search.
//
// Determinism: no map iteration affects results, products are rounded
// explicitly (float32(a*b)+c) so no fused multiply-add changes a result on
// arm64, and nothing reads the clock or a global random source; a golden
// hash test checks it natively, under wasm and with GOAMD64=v3.
package navi
