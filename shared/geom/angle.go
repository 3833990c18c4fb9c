package geom

import "math"

// WrapAngle maps a (radians) to [-π, π].
func WrapAngle(a float32) float32 {
	return float32(math.Remainder(float64(a), 2*math.Pi))
}
