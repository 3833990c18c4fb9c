package navi

import (
	"math"
	"math/rand/v2"
)

func cosApprox(a float64) float64 { return math.Cos(a) }
func sinApprox(a float64) float64 { return math.Sin(a) }

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 99)) }
