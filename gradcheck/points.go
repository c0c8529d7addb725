package gradcheck

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/point"
)

// Points returns the points gradcheck uses for a model: its starting point
// (point.Start, labelled "start"), then n random points of its domains ("random 1" ...
// "random n") drawn by RandomPoint from a PCG generator seeded with seed.
// The same model, n and seed give the same points.
func Points(m *check.Model, n int, seed uint64) []Point {
	rng := rand.New(rand.NewPCG(seed, 0))
	pts := []Point{{Label: "start", X: point.Start(m)}}
	for k := 1; k <= n; k++ {
		pts = append(pts, Point{Label: fmt.Sprintf("random %d", k), X: RandomPoint(m, rng)})
	}
	return pts
}

// RandomPoint draws a point of m's domains, each variable independently by
// Sample around its start.
func RandomPoint(m *check.Model, rng *rand.Rand) []float64 {
	x := make([]float64, m.NumScalars)
	for _, v := range m.Vars {
		Sample(v.Domain, v.Start, rng, v.Of(x))
	}
	return x
}

// Sample stores in out (the length of start) a random point of d:
//
//   - unbounded (or nil): start plus a standard normal vector;
//   - box: uniform in [lo, hi] per element; a side at infinity is replaced by
//     start plus a standard normal, reflected at the finite bound if any;
//   - ball(r): uniform in the ball, direction times r·U^(1/n);
//   - ball(r, rows): each row uniform in its ball;
//   - simplex(s): uniform on the simplex, normalised exponentials times s;
//   - l1ball(r): uniform in the l1 ball, random signs times r·E_i/S, where
//     S is the sum of n+1 standard exponentials E_1 ... E_{n+1}.
func Sample(d *domain.Domain, start []float64, rng *rand.Rand, out []float64) {
	if d == nil {
		d = &domain.Domain{Kind: domain.Unbounded}
	}
	switch d.Kind {
	case domain.Box:
		for i := range out {
			lo, hi := d.Lo[i], d.Hi[i]
			switch {
			case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
				out[i] = lo + (hi-lo)*rng.Float64()
			default:
				v := start[i] + rng.NormFloat64()
				if !math.IsInf(lo, 0) && v < lo {
					v = lo + (lo - v)
				}
				if !math.IsInf(hi, 0) && v > hi {
					v = hi - (v - hi)
				}
				out[i] = v
			}
		}
	case domain.Ball:
		sampleBall(out, d.Radius, rng)
	case domain.RowBalls:
		for k := 0; k+d.Cols <= len(out); k += d.Cols {
			sampleBall(out[k:k+d.Cols], d.Radius, rng)
		}
	case domain.Simplex:
		s := 0.0
		for i := range out {
			out[i] = rng.ExpFloat64()
			s += out[i]
		}
		for i := range out {
			out[i] *= d.Radius / s
		}
	case domain.L1Ball:
		s := rng.ExpFloat64()
		for i := range out {
			out[i] = rng.ExpFloat64()
			s += out[i]
		}
		for i := range out {
			out[i] *= d.Radius / s
			if rng.IntN(2) == 0 {
				out[i] = -out[i]
			}
		}
	default:
		for i := range out {
			out[i] = start[i] + rng.NormFloat64()
		}
	}
}

// sampleBall stores in x a point drawn uniformly from the ball of radius r
// centred at 0.
func sampleBall(x []float64, r float64, rng *rand.Rand) {
	if len(x) == 0 {
		return
	}
	norm := 0.0
	for norm == 0 {
		for i := range x {
			x[i] = rng.NormFloat64()
			norm += x[i] * x[i]
		}
		norm = math.Sqrt(norm)
	}
	s := r * math.Pow(rng.Float64(), 1/float64(len(x))) / norm
	for i := range x {
		x[i] *= s
	}
}
