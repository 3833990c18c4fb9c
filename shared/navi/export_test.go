package navi

import "math/rand/v2"

// Test meshes for the external tests (package navi_test), which may also
// use the default world.
var (
	BenchGeometry = benchGeometry
	ObstacleMap   = func(r *rand.Rand, n int) Geometry { return obstacleMap(r, n) }
)
