package solve

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// dot is the inner product of a and b (gonum's assembly kernel: the
// bundle oracle's dual spends most of its time here).
func dot(a, b []float64) float64 { return floats.Dot(a, b) }

func norm(a []float64) float64 { return math.Sqrt(dot(a, a)) }

// dist is the Euclidean distance ||a - b||.
func dist(a, b []float64) float64 { return floats.Distance(a, b, 2) }

// sqDistance is ||a - b||^2, summed in index order.
func sqDistance(a, b []float64) float64 {
	d2 := 0.0
	for j := range a {
		dj := a[j] - b[j]
		d2 += dj * dj
	}
	return d2
}
