package navi

import "math"

func cosApprox(a float64) float64 { return math.Cos(a) }
func sinApprox(a float64) float64 { return math.Sin(a) }
