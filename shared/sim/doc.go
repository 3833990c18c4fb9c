// Package sim is Twinframe's simulation core: a Game steps the regions of a world at 20
// frames per second, moving entities along navmesh paths, resolving their collisions
// and keeping areas populated. The server runs it authoritatively and the wasm client
// runs the same code, so every result is deterministic.
//
// # Design note
//
// A frame (Step) follows docs/ARCHITECTURE.md §3: queued inputs; scheduled events and wander
// decisions; locomotion (each mover's desired motion, speed × 50 ms along its path of
// straight legs and circle-tangent arcs round the corners' obstacle vertices, as the
// Marvel Heroes locomotor does; see arc.go);
// physics (PhysicsResolveEntities: sweeps against the navmesh's blocking edges with one
// slide, then against blocking entities through a uniform grid, truncated at the first
// contact with one slide; then overlap and hotspot changes as events); and deferred
// work (hotspot actions, destroys, population top-up). Entities live in a slice sorted
// by id and are always visited in id order; ids are handed out by the game and never
// reused. Events of a step are a slice in a fixed order (collisions by mover id,
// overlaps by pair, hotspots by marker), read after the step, Box2D style.
//
// Determinism: time is whole frames; every random choice draws from the game's PCG
// generator, whose state is part of the snapshot; no map is iterated; products that feed
// sums are rounded explicitly (float32(a*b)+c) and yaw and arcs use polynomial atan2
// and sincos, so
// native, GOAMD64=v3 and wasm builds compute the same bits. Wander timers live in the
// entities (a small wheel of ids indexes them), not in closures, so a snapshot (Disk
// archive of Game.Serialize) captures everything and StateHash is the hash of that
// snapshot. The lead's schedule.Scheduler fires script events (Schedule), which are not
// saved.
//
// Bad input never panics: commands return errors wrapping the package's sentinels
// (ErrNoEntity, ErrNotFinite, ErrBadSpeed, ...), speeds above MaxSpeed are clamped, an
// unreachable goal yields a partial path (navi.PathPartial), and a move blocked for
// StuckFrames frames gives up.
package sim
