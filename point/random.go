package point

import (
	"math"
	"math/rand/v2"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/domain"
)

// Random returns a random starting point of m drawn with seed (the same
// seed, the same point): each element of a variable in a box with both
// bounds finite is uniform between them; an element with a side
// unbounded (or a variable without a domain) is its declared start plus
// a normal draw of standard deviation max(1, |start|), clipped to its
// bound; a variable in a ball, an l1 ball or a row of balls is its start
// plus a normal draw of standard deviation radius / sqrt(size), and one
// in a simplex a uniform point of it (normalised exponential draws).
// Every variable is then projected onto its domain.
func Random(m *check.Model, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0x57a27))
	x := Start(m)
	for _, v := range m.Vars {
		xv := v.Of(x)
		d := v.Domain
		switch d.Kind {
		case domain.Box:
			for j := range xv {
				lo, hi := d.Lo[j], d.Hi[j]
				if !math.IsInf(lo, 0) && !math.IsInf(hi, 0) {
					xv[j] = lo + rng.Float64()*(hi-lo)
					continue
				}
				xv[j] += rng.NormFloat64() * math.Max(1, math.Abs(xv[j]))
			}
		case domain.Ball, domain.RowBalls, domain.L1Ball:
			sd := d.Radius / math.Sqrt(float64(max(1, len(xv))))
			for j := range xv {
				xv[j] += rng.NormFloat64() * sd
			}
		case domain.Simplex:
			sum := 0.0
			for j := range xv {
				xv[j] = -math.Log(1 - rng.Float64())
				sum += xv[j]
			}
			for j := range xv {
				xv[j] *= d.Radius / sum
			}
		default:
			for j := range xv {
				xv[j] += rng.NormFloat64() * math.Max(1, math.Abs(xv[j]))
			}
		}
		d.Project(xv)
	}
	return x
}
