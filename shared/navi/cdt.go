package navi

import (
	"math"

	"github.com/twinframe/twinframe/shared/geom"
)

// content counts, per Kind, how many polygons of that kind cover a triangle.
type content [numKinds]int16

func (c content) add(d content) content {
	for i := range c {
		c[i] += d[i]
	}
	return c
}

func (c content) neg() content {
	for i := range c {
		c[i] = -c[i]
	}
	return c
}

// btri is a triangle of the triangulation under construction. Edge i runs
// from v[i] to v[(i+1)%3]; n[i] is the triangle across it (-1 on the hull);
// d[i] is the content change when crossing edge i outward; bit i of con
// marks edge i as a constraint.
type btri struct {
	v   [3]int32
	n   [3]int32
	d   [3]content
	con uint8
}

type segment struct {
	a, b int32
	d    content // content change crossing from the right of a→b to its left
}

type builder struct {
	bounds geom.AABB
	tol    float64
	pts    []vec2
	vtri   []int32 // one triangle incident to each inserted vertex, -1 before insertion
	tris   []btri
	last   int32
	hash   map[[2]int64][]int32
	flips  [][2]int32
	work   []segment

	// scratch for constraint insertion
	xedges   [][2]int32
	newEdges [][2]int32
	steiner  int
	maxStei  int
}

func next(i int) int { return (i + 1) % 3 }
func prev(i int) int { return (i + 2) % 3 }

// nextTab[i] is next(i).
var nextTab = [3]int8{1, 2, 0}

// addPoint returns the id of the point merged with p (first one within tol).
func (b *builder) addPoint(p vec2) int32 {
	if b.tol > 0 {
		cx, cy := int64(math.Floor(p.x/b.tol)), int64(math.Floor(p.y/b.tol))
		best := int32(-1)
		tol2 := float64(b.tol * b.tol)
		for dx := int64(-1); dx <= 1; dx++ {
			for dy := int64(-1); dy <= 1; dy++ {
				for _, id := range b.hash[[2]int64{cx + dx, cy + dy}] {
					q := b.pts[id]
					if float64((q.x-p.x)*(q.x-p.x))+float64((q.y-p.y)*(q.y-p.y)) <= tol2 && (best < 0 || id < best) {
						best = id
					}
				}
			}
		}
		if best >= 0 {
			return best
		}
		id := int32(len(b.pts))
		b.pts = append(b.pts, p)
		b.vtri = append(b.vtri, -1)
		k := [2]int64{cx, cy}
		b.hash[k] = append(b.hash[k], id)
		return id
	}
	for id, q := range b.pts {
		if q == p {
			return int32(id)
		}
	}
	id := int32(len(b.pts))
	b.pts = append(b.pts, p)
	b.vtri = append(b.vtri, -1)
	return id
}

// steinerPoint returns the id for the intersection point p of two
// constraints: one of the four segment end points when p is within the
// merge tolerance of it (the nearest), an existing point at exactly p, or a
// new point. Merging only with the segments' own end points keeps each
// split piece within the tolerance of its segment; merging with unrelated
// nearby points would bend constraints, and bends cascade along
// near-parallel constraints.
func (b *builder) steinerPoint(p vec2, ends [4]int32) int32 {
	best, bestD := int32(-1), b.tol*b.tol
	for _, e := range ends {
		q := b.pts[e]
		if d := float64((q.x-p.x)*(q.x-p.x)) + float64((q.y-p.y)*(q.y-p.y)); d <= bestD {
			best, bestD = e, d
		}
	}
	if best >= 0 {
		return best
	}
	cx, cy := int64(math.Floor(p.x/b.tol)), int64(math.Floor(p.y/b.tol))
	k := [2]int64{cx, cy}
	for _, id := range b.hash[k] {
		if b.pts[id] == p {
			return id
		}
	}
	id := int32(len(b.pts))
	b.pts = append(b.pts, p)
	b.vtri = append(b.vtri, -1)
	b.hash[k] = append(b.hash[k], id)
	return id
}

// initBounds creates the four bounds corners and two triangles covering them.
func (b *builder) initBounds() {
	mn, mx := b.bounds.Min, b.bounds.Max
	c := [4]vec2{{float64(mn[0]), float64(mn[1])}, {float64(mx[0]), float64(mn[1])},
		{float64(mx[0]), float64(mx[1])}, {float64(mn[0]), float64(mx[1])}}
	for _, p := range c {
		b.addPoint(p)
	}
	b.tris = append(b.tris,
		btri{v: [3]int32{0, 1, 2}, n: [3]int32{-1, -1, 1}},
		btri{v: [3]int32{0, 2, 3}, n: [3]int32{0, -1, -1}})
	b.vtri[0], b.vtri[1], b.vtri[2], b.vtri[3] = 0, 0, 0, 1
}

func (b *builder) edgeOf(t int32, a, c int32) int {
	v := &b.tris[t].v
	for i := 0; i < 3; i++ {
		if v[i] == a && v[next(i)] == c {
			return i
		}
	}
	return -1
}

// relink makes triangle nb (if any) point at nt across its edge c→a (the
// reverse of edge a→c of nt).
func (b *builder) relink(nb int32, a, c int32, nt int32) {
	if nb < 0 {
		return
	}
	if j := b.edgeOf(nb, c, a); j >= 0 {
		b.tris[nb].n[j] = nt
	}
}

// locate finds the triangle containing p. It returns the triangle, and the
// edge p lies on (or -1), or a vertex p coincides with (or -1).
func (b *builder) locate(p vec2) (t int32, edge int, vert int32) {
	t = b.last
	limit := len(b.tris) + 16
	start := 0
	for step := 0; step < limit; step++ {
		tr := &b.tris[t]
		moved := false
		zero := -1
		zeros := 0
		for k := 0; k < 3; k++ {
			i := (start + k) % 3
			o := orient(b.pts[tr.v[i]], b.pts[tr.v[next(i)]], p)
			if o < 0 && tr.n[i] >= 0 {
				t = tr.n[i]
				moved = true
				break
			}
			if o == 0 {
				zero = i
				zeros++
			}
		}
		start = (start + 1) % 3 // vary the first edge tried: no cycles
		if moved {
			continue
		}
		switch zeros {
		case 0:
			return t, -1, -1
		case 1:
			return t, zero, -1
		default:
			for i := 0; i < 3; i++ {
				if b.pts[tr.v[i]] == p {
					return t, -1, tr.v[i]
				}
			}
			return t, zero, -1
		}
	}
	// The walk did not settle (cannot happen with exact predicates); scan.
	for i := range b.tris {
		tr := &b.tris[i]
		inside := true
		for k := 0; k < 3; k++ {
			if orient(b.pts[tr.v[k]], b.pts[tr.v[next(k)]], p) < 0 {
				inside = false
				break
			}
		}
		if inside {
			b.last = int32(i)
			return b.locate(p)
		}
	}
	return -1, -1, -1
}

// insertVertex inserts point id into the triangulation and restores the
// Delaunay property around it (constraint edges are never flipped).
func (b *builder) insertVertex(id int32) error {
	p := b.pts[id]
	t, e, v := b.locate(p)
	if t < 0 {
		return ErrInternal
	}
	if v >= 0 {
		// Same coordinates as an existing vertex (possible only for rounded
		// intersection points); callers merge ids before inserting.
		return ErrInternal
	}
	b.flips = b.flips[:0]
	if e < 0 {
		b.splitTriangle(t, id)
	} else {
		b.splitEdge(t, e, id)
	}
	b.legalize()
	b.last = b.vtri[id]
	return nil
}

func (b *builder) newTri() int32 {
	b.tris = append(b.tris, btri{})
	return int32(len(b.tris) - 1)
}

func (b *builder) splitTriangle(t int32, p int32) {
	old := b.tris[t]
	t1, t2, t3 := t, b.newTri(), b.newTri()
	a, bb, c := old.v[0], old.v[1], old.v[2]
	b.tris[t1] = btri{v: [3]int32{a, bb, p}, n: [3]int32{old.n[0], t2, t3}}
	b.tris[t2] = btri{v: [3]int32{bb, c, p}, n: [3]int32{old.n[1], t3, t1}}
	b.tris[t3] = btri{v: [3]int32{c, a, p}, n: [3]int32{old.n[2], t1, t2}}
	for k, nt := range [3]int32{t1, t2, t3} {
		b.tris[nt].d[0] = old.d[k]
		b.tris[nt].con = old.con >> k & 1
		b.relink(old.n[k], b.tris[nt].v[0], b.tris[nt].v[1], nt)
		b.flips = append(b.flips, [2]int32{nt, 0})
	}
	b.vtri[a], b.vtri[bb], b.vtri[c], b.vtri[p] = t1, t2, t3, t1
}

// splitEdge inserts p on edge e of t (and of its neighbour).
func (b *builder) splitEdge(t int32, e int, p int32) {
	old := b.tris[t]
	a, c, o := old.v[e], old.v[next(e)], old.v[prev(e)]
	u := old.n[e]
	con := old.con >> e & 1
	d := old.d[e]
	// t: (a,c,o) becomes t=(a,p,o) and t2=(p,c,o)
	t2 := b.newTri()
	b.tris[t] = btri{v: [3]int32{a, p, o}, n: [3]int32{-1, t2, old.n[prev(e)]}}
	b.tris[t].d[0], b.tris[t].d[2] = d, old.d[prev(e)]
	b.tris[t].con = con | (old.con>>prev(e)&1)<<2
	b.tris[t2] = btri{v: [3]int32{p, c, o}, n: [3]int32{-1, old.n[next(e)], t}}
	b.tris[t2].d[0], b.tris[t2].d[1] = d, old.d[next(e)]
	b.tris[t2].con = con | (old.con>>next(e)&1)<<1
	b.relink(old.n[next(e)], c, o, t2)
	b.vtri[a], b.vtri[c], b.vtri[o], b.vtri[p] = t, t2, t, t
	b.flips = append(b.flips, [2]int32{t, 2}, [2]int32{t2, 1})
	if u < 0 {
		return
	}
	uo := b.tris[u]
	j := b.edgeOf(u, c, a)
	w := uo.v[prev(j)]
	ud := uo.d[j]
	// u: (c,a,w) becomes u=(c,p,w) and u2=(p,a,w)
	u2 := b.newTri()
	b.tris[u] = btri{v: [3]int32{c, p, w}, n: [3]int32{t2, u2, uo.n[prev(j)]}}
	b.tris[u].d[0], b.tris[u].d[2] = ud, uo.d[prev(j)]
	b.tris[u].con = con | (uo.con>>prev(j)&1)<<2
	b.tris[u2] = btri{v: [3]int32{p, a, w}, n: [3]int32{t, uo.n[next(j)], u}}
	b.tris[u2].d[0], b.tris[u2].d[1] = ud, uo.d[next(j)]
	b.tris[u2].con = con | (uo.con>>next(j)&1)<<1
	b.relink(uo.n[next(j)], a, w, u2)
	b.tris[t].n[0] = u2
	b.tris[t2].n[0] = u
	b.vtri[w] = u
	b.flips = append(b.flips, [2]int32{u, 2}, [2]int32{u2, 1})
}

// flip replaces the diagonal of the quad formed by t and its neighbour
// across edge i. It returns the two triangles; the first keeps slot t.
func (b *builder) flip(t int32, i int) (int32, int32) {
	tt := b.tris[t]
	u := tt.n[i]
	a, bb, c := tt.v[i], tt.v[next(i)], tt.v[prev(i)]
	uu := b.tris[u]
	j := b.edgeOf(u, bb, a)
	d := uu.v[prev(j)]
	// T1=(c,a,d) in t, T2=(d,b,c) in u
	nca, dca, cca := tt.n[prev(i)], tt.d[prev(i)], tt.con>>prev(i)&1
	nbc, dbc, cbc := tt.n[next(i)], tt.d[next(i)], tt.con>>next(i)&1
	nad, dad, cad := uu.n[next(j)], uu.d[next(j)], uu.con>>next(j)&1
	ndb, ddb, cdb := uu.n[prev(j)], uu.d[prev(j)], uu.con>>prev(j)&1
	b.tris[t] = btri{v: [3]int32{c, a, d}, n: [3]int32{nca, nad, u}, d: [3]content{dca, dad}, con: cca | cad<<1}
	b.tris[u] = btri{v: [3]int32{d, bb, c}, n: [3]int32{ndb, nbc, t}, d: [3]content{ddb, dbc}, con: cdb | cbc<<1}
	b.relink(nad, a, d, t)
	b.relink(nbc, bb, c, u)
	b.vtri[a], b.vtri[c], b.vtri[bb], b.vtri[d] = t, t, u, u
	return t, u
}

func (b *builder) legalize() {
	guard := 0
	for len(b.flips) > 0 && guard < 1<<20 {
		guard++
		f := b.flips[len(b.flips)-1]
		b.flips = b.flips[:len(b.flips)-1]
		t, i := f[0], int(f[1])
		tt := &b.tris[t]
		u := tt.n[i]
		if u < 0 || tt.con>>i&1 != 0 {
			continue
		}
		j := b.edgeOf(u, tt.v[next(i)], tt.v[i])
		if j < 0 {
			continue
		}
		d := b.tris[u].v[prev(j)]
		if inCircle(b.pts[tt.v[0]], b.pts[tt.v[1]], b.pts[tt.v[2]], b.pts[d]) <= 0 {
			continue
		}
		// t is (a,b,p) with p opposite edge i; after the flip the edges to
		// check are a-d (T1 edge 1) and d-b (T2 edge 0).
		t1, t2 := b.flip(t, i)
		b.flips = append(b.flips, [2]int32{t1, 0}, [2]int32{t1, 1}, [2]int32{t2, 0}, [2]int32{t2, 1})
	}
}

// setConstraint marks edge a→b (which must exist) as a constraint and adds
// d to its content change (d applies when crossing from the right of a→b to
// its left).
func (b *builder) setConstraint(t int32, i int, d content) {
	tt := &b.tris[t]
	a, c := tt.v[i], tt.v[next(i)]
	// Seen from t (left of a→c), crossing outward goes left→right: -d.
	tt.con |= 1 << i
	tt.d[i] = tt.d[i].add(d.neg())
	if u := tt.n[i]; u >= 0 {
		j := b.edgeOf(u, c, a)
		b.tris[u].con |= 1 << j
		b.tris[u].d[j] = b.tris[u].d[j].add(d)
	}
}

// findEdge returns the triangle with directed edge a→c and the edge index,
// or -1 when there is none (no edge, or a→c is a hull edge seen from outside).
func (b *builder) findEdge(a, c int32) (int32, int) {
	t0 := b.vtri[a]
	t := t0
	for step := 0; step < 1<<16 && t >= 0; step++ {
		k := b.vertIndex(t, a)
		if b.tris[t].v[next(k)] == c {
			return t, k
		}
		t = b.tris[t].n[prev(k)] // counter-clockwise around a
		if t == t0 {
			return -1, -1
		}
	}
	t = t0 // hull vertex: go clockwise from the start
	for step := 0; step < 1<<16 && t >= 0; step++ {
		k := b.vertIndex(t, a)
		if b.tris[t].v[next(k)] == c {
			return t, k
		}
		t = b.tris[t].n[k]
	}
	return -1, -1
}

// constrainEdge marks the existing edge between a and c as a constraint with
// content change d for a→c; it reports false when there is no such edge.
func (b *builder) constrainEdge(a, c int32, d content) bool {
	if t, i := b.findEdge(a, c); t >= 0 {
		b.setConstraint(t, i, d)
		return true
	}
	if t, i := b.findEdge(c, a); t >= 0 {
		b.setConstraint(t, i, d.neg())
		return true
	}
	return false
}

func (b *builder) vertIndex(t int32, a int32) int {
	v := &b.tris[t].v
	if v[0] == a {
		return 0
	}
	if v[1] == a {
		return 1
	}
	return 2
}

func (b *builder) dot(o, p, q int32) float64 {
	return float64((b.pts[p].x-b.pts[o].x)*(b.pts[q].x-b.pts[o].x)) + float64((b.pts[p].y-b.pts[o].y)*(b.pts[q].y-b.pts[o].y))
}

// insertSegments inserts the queued constraint segments, splitting them at
// vertices they pass through and where they cross other constraints.
func (b *builder) insertSegments() error {
	guard := 0
	for len(b.work) > 0 {
		guard++
		if guard > 1<<22 {
			return ErrTooComplex
		}
		s := b.work[len(b.work)-1]
		b.work = b.work[:len(b.work)-1]
		if err := b.insertSegment(s); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) insertSegment(s segment) error {
	a, z := s.a, s.b
	if a == z {
		return nil
	}
	if b.constrainEdge(a, z, s.d) {
		return nil
	}
	pa, pz := b.pts[a], b.pts[z]
	// Find the triangle around a whose wedge contains the direction to z.
	t0 := b.vtri[a]
	t := t0
	found := int32(-1)
	dirs := 0
	for step := 0; step < 8192; step++ {
		k := b.vertIndex(t, a)
		v1, v2 := b.tris[t].v[next(k)], b.tris[t].v[prev(k)]
		o1 := orient(pa, b.pts[v1], pz)
		o2 := orient(pa, b.pts[v2], pz)
		if o1 == 0 && b.dot(a, v1, z) > 0 {
			// v1 lies on a→z: constrain a→v1, continue from v1.
			b.work = append(b.work, segment{v1, z, s.d}, segment{a, v1, s.d})
			return nil
		}
		if o2 == 0 && b.dot(a, v2, z) > 0 {
			b.work = append(b.work, segment{v2, z, s.d}, segment{a, v2, s.d})
			return nil
		}
		if o1 > 0 && o2 < 0 {
			found = t
			break
		}
		var nt int32
		if dirs == 0 {
			nt = b.tris[t].n[prev(k)] // counter-clockwise
		} else {
			nt = b.tris[t].n[k] // clockwise
		}
		if nt < 0 {
			if dirs == 1 {
				break
			}
			dirs = 1
			t = t0
			continue
		}
		t = nt
		if t == t0 {
			break
		}
	}
	if found < 0 {
		return ErrInternal
	}
	// Walk along a→z collecting crossed triangles and the two vertex chains.
	k := b.vertIndex(found, a)
	R, L := b.tris[found].v[next(k)], b.tris[found].v[prev(k)]
	b.xedges = append(b.xedges[:0], [2]int32{R, L})
	t = found
	ei := next(k) // edge R→L of t
	for step := 0; ; step++ {
		if step > len(b.tris)+8 {
			return ErrInternal
		}
		tt := &b.tris[t]
		if tt.con>>ei&1 != 0 {
			return b.splitCrossing(s, t, ei)
		}
		u := tt.n[ei]
		if u < 0 {
			return ErrInternal
		}
		j := b.edgeOf(u, L, R)
		if j < 0 {
			return ErrInternal
		}
		w := b.tris[u].v[prev(j)]

		if w == z {
			break
		}
		o := orient(pa, pz, b.pts[w])
		if o == 0 {
			// w lies on the segment: insert a→w, then w→z.
			b.work = append(b.work, segment{w, z, s.d}, segment{a, w, s.d})
			return nil
		}
		if o > 0 {
			L = w
			ei = next(j) // in u: (L,R) is edge j, (R,w) next(j), (w,L) prev(j)
		} else {
			R = w
			ei = prev(j)
		}
		b.xedges = append(b.xedges, [2]int32{R, L})
		t = u
	}
	return b.flipInsert(a, z, s.d)
}

// unconstrain clears the constraint on edge i of t (both sides) and returns
// its content change in segment terms (crossing from the right of the
// directed edge to its left).
func (b *builder) unconstrain(t int32, i int) content {
	tt := &b.tris[t]
	d := tt.d[i].neg()
	tt.con &^= 1 << i
	tt.d[i] = content{}
	if u := tt.n[i]; u >= 0 {
		j := b.edgeOf(u, tt.v[next(i)], tt.v[i])
		b.tris[u].con &^= 1 << j
		b.tris[u].d[j] = content{}
	}
	return d
}

// splitCrossing handles segment s crossing the constraint edge ei of t: both
// are split at their intersection point (rounded to float32, merged with an
// existing point within the tolerance) and the pieces queued.
func (b *builder) splitCrossing(s segment, t int32, ei int) error {
	R, L := b.tris[t].v[ei], b.tris[t].v[next(ei)]
	pa, pz, pr, pl := b.pts[s.a], b.pts[s.b], b.pts[R], b.pts[L]
	ex, ey := pl.x-pr.x, pl.y-pr.y
	sx, sy := pz.x-pa.x, pz.y-pa.y
	den := float64(sx*ey) - float64(sy*ex)
	num := float64((pr.x-pa.x)*ey) - float64((pr.y-pa.y)*ex)
	u := 0.5
	if den != 0 {
		u = math.Min(1, math.Max(0, num/den))
	}
	p := vec2{float64(float32(pa.x + float64(u*sx))), float64(float32(pa.y + float64(u*sy)))}
	p.x = math.Min(math.Max(p.x, float64(b.bounds.Min[0])), float64(b.bounds.Max[0]))
	p.y = math.Min(math.Max(p.y, float64(b.bounds.Min[1])), float64(b.bounds.Max[1]))
	n := int32(len(b.pts))
	id := b.steinerPoint(p, [4]int32{s.a, s.b, R, L})
	dRL := b.unconstrain(t, ei)
	b.flips = append(b.flips[:0], [2]int32{t, int32(ei)})
	b.legalize()
	if id == n {
		b.steiner++
		if b.steiner > b.maxStei {
			return ErrTooComplex
		}
		if err := b.insertVertex(id); err != nil {
			return err
		}
	}
	// Pieces of the crossed constraint (a no-op when id is R or L).
	b.work = append(b.work, segment{R, id, dRL}, segment{id, L, dRL})
	b.work = append(b.work, segment{id, s.b, s.d}, segment{s.a, id, s.d})
	return nil
}

// flipInsert makes a→z an edge by flipping the edges that cross it (Sloan
// 1993): a crossed edge whose quad is strictly convex is flipped, otherwise
// it is retried later; new diagonals that still cross go back in the queue.
// Then a→z is marked as a constraint and the new edges are made Delaunay.
func (b *builder) flipInsert(a, z int32, d content) error {
	pa, pz := b.pts[a], b.pts[z]
	q := b.xedges
	b.newEdges = b.newEdges[:0]
	limit := 8*len(q)*len(q) + 64
	for head := 0; head < len(q); head++ {
		if head > limit {
			return ErrInternal
		}
		e := q[head]
		t, i := b.findEdge(e[0], e[1])
		if t < 0 {
			if t, i = b.findEdge(e[1], e[0]); t < 0 {
				return ErrInternal
			}
		}
		tt := &b.tris[t]
		x, y, c := tt.v[i], tt.v[next(i)], tt.v[prev(i)]
		u := tt.n[i]
		if u < 0 {
			return ErrInternal
		}
		dd := b.tris[u].v[prev(b.edgeOf(u, y, x))]
		pc, pd := b.pts[c], b.pts[dd]
		o1, o2 := orient(pc, pd, b.pts[x]), orient(pc, pd, b.pts[y])
		if o1 == 0 || o2 == 0 || (o1 > 0) == (o2 > 0) {
			q = append(q, e) // not convex: try again after other flips
			continue
		}
		b.flip(t, i)
		if (c == a && dd == z) || (c == z && dd == a) {
			continue
		}
		if orient(pa, pz, pc)*orient(pa, pz, pd) < 0 && orient(pc, pd, pa)*orient(pc, pd, pz) < 0 {
			q = append(q, [2]int32{c, dd})
		} else {
			b.newEdges = append(b.newEdges, [2]int32{c, dd})
		}
	}
	b.xedges = q
	if !b.constrainEdge(a, z, d) {
		return ErrInternal
	}
	b.flips = b.flips[:0]
	for _, e := range b.newEdges {
		if t, i := b.findEdge(e[0], e[1]); t >= 0 {
			b.flips = append(b.flips, [2]int32{t, int32(i)})
		}
	}
	b.legalize()
	return nil
}
