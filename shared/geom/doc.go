// Package geom provides the shapes and geometric queries the simulation is built on: segments,
// circles, capsules, axis-aligned rectangles and polygons, closest points, ray casts and
// swept (moving-shape) tests that report time of impact, contact point and normal.
// It follows Ericson, Real-Time Collision Detection, in float32 on mathgl vectors, and is
// shared by the server and the wasm client, so its results must agree bit for bit on both.
//
// # Design note
//
// Every query is a plain function on value types: nothing allocates, nothing is cached and
// nothing reads global state. Arithmetic is float32; wherever a product feeds a sum the product
// is rounded explicitly (float32(a*b) + c) so that no platform may fuse it into a multiply-add,
// and the only non-trivial operation used is the correctly rounded square root. Lengths are
// normalised through float64, where the products of float32 values are exact.
//
// The float32 kernel (Sub, Add, Scale, Axpy, Dot, Cross, LenSq, Hypot, Len, Dist, Unit, Finite,
// Finite2, Finite3) is exported under that rule for the rest of shared/ (navi, sim, world,
// replica), so that every package rounds a length or a unit vector the same way.
//
// The shapes and queries are 2D (Segment, Circle, Capsule, AABB, Polygon, Hit): the simulation
// moves discs on the ground plane and has no obstacles with height. Finite3 exists only to
// check the replicated 3D positions.
//
// Sweeps move one shape by a motion vector over the time interval [0, 1] and report the first
// contact as a Hit: T is the fraction of the motion, Point the contact point on the obstacle
// and Normal the unit normal pointing from the obstacle toward the mover. A mover that already
// overlaps the obstacle at the start reports T = 0, Point = the point of the obstacle closest to
// the mover's centre and Normal = the direction from that point to the centre (when the centre
// lies on the obstacle, a direction opposing the motion; see each function). A mover that
// merely touches the obstacle reports T = 0 only if its motion goes further in. Callers that
// want to let a mover escape an overlap should ignore hits whose Normal does not oppose the
// motion (Normal·motion >= 0).
//
// Raycasts intersect the ray origin + t*dir, t in [0, maxT], with a solid shape and report
// the first point of it as a Hit: T is the ray parameter, Point = origin + T*dir on the
// surface and Normal the outward unit surface normal there. A segment from A to B is the ray
// with origin A, dir B-A and maxT 1; maxT may be +Inf. An origin inside the shape hits at
// T = 0 with Point = origin and Normal opposing dir (+X when dir is zero).
//
// Inputs containing NaN or ±Inf, a negative radius or maxT, or an AABB with Min > Max give no
// hit (false). Results are accurate for coordinates and radii up to about 1e6 in magnitude;
// beyond that float32 rounding dominates, and beyond about 1e9 intermediate products overflow
// and answers become unreliable. Even then a reported hit is finite, with T in [0, 1] (rays:
// [0, maxT]) and a unit normal: a result that would contain NaN or Inf is reported as no hit.
package geom
