package solve

import (
	"fmt"
	"math"
	"sort"
)

// Piecewise1D is a continuous function of one variable that is a
// quadratic between consecutive breakpoints: on the k-th interval
// [Breaks[k-1], Breaks[k]] (with -Inf before the first breakpoint and
// +Inf after the last) it is Q[k][0] z^2 + Q[k][1] z + Q[k][2]. Breaks is
// strictly increasing and len(Q) == len(Breaks)+1. The separable kinks of
// the prox oracle (l1, MCP, SCAD, pos on one variable) are of this form.
type Piecewise1D struct {
	Breaks []float64
	Q      [][3]float64
}

// Check reports the first inconsistency of p's sizes, order or values,
// or a jump at a breakpoint larger than rounding.
func (p *Piecewise1D) Check() error {
	if len(p.Q) != len(p.Breaks)+1 {
		return fmt.Errorf("piecewise: %d breakpoints but %d pieces", len(p.Breaks), len(p.Q))
	}
	for k, b := range p.Breaks {
		if math.IsNaN(b) || math.IsInf(b, 0) || (k > 0 && !(p.Breaks[k-1] < b)) {
			return fmt.Errorf("piecewise: breakpoint %d is %g", k, b)
		}
		l, r := quad(p.Q[k], b), quad(p.Q[k+1], b)
		if math.Abs(l-r) > 1e-9*(1+math.Abs(l)) {
			return fmt.Errorf("piecewise: a jump at %g (%g to %g)", b, l, r)
		}
	}
	for _, q := range p.Q {
		for _, v := range q {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("piecewise: a coefficient %g", v)
			}
		}
	}
	return nil
}

func quad(q [3]float64, z float64) float64 { return (q[0]*z+q[1])*z + q[2] }

// piece is the index of the interval holding z (the left one at a
// breakpoint: the pieces agree there).
func (p *Piecewise1D) piece(z float64) int {
	return sort.SearchFloat64s(p.Breaks, z)
}

// Value is p(z).
func (p *Piecewise1D) Value(z float64) float64 { return quad(p.Q[p.piece(z)], z) }

// Sum returns p + r.
func (p *Piecewise1D) Sum(r *Piecewise1D) *Piecewise1D {
	bs := append(append([]float64(nil), p.Breaks...), r.Breaks...)
	sort.Float64s(bs)
	out := &Piecewise1D{}
	for _, b := range bs {
		if n := len(out.Breaks); n == 0 || out.Breaks[n-1] < b {
			out.Breaks = append(out.Breaks, b)
		}
	}
	for k := 0; k <= len(out.Breaks); k++ {
		// a point inside interval k picks each function's piece there
		var z float64
		switch {
		case len(out.Breaks) == 0:
			z = 0
		case k == 0:
			z = out.Breaks[0] - 1
		case k == len(out.Breaks):
			z = out.Breaks[k-1] + 1
		default:
			z = (out.Breaks[k-1] + out.Breaks[k]) / 2
		}
		a, b := p.Q[p.piece(z)], r.Q[r.piece(z)]
		out.Q = append(out.Q, [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]})
	}
	return out
}

// MinQuad returns a global minimiser over [lo, hi] (lo <= hi, either may
// be infinite) of a/2 z^2 + b z + p(z), and the value there; -Inf as the
// value when it is unbounded below. p need not be convex and a may be 0
// or negative: every piece is minimised in closed form on its interval
// (its ends and, when it is convex there, its vertex), so the minimum is
// exact up to rounding. Among equal values the candidate seen first (the
// leftmost) is returned.
func (p *Piecewise1D) MinQuad(a, b, lo, hi float64) (zmin, vmin float64) {
	vmin = math.Inf(1)
	zmin = math.NaN()
	try := func(q [3]float64, z float64) {
		v := quad(q, z)
		if v < vmin {
			zmin, vmin = z, v
		}
	}
	for k := range p.Q {
		l, h := math.Inf(-1), math.Inf(1)
		if k > 0 {
			l = p.Breaks[k-1]
		}
		if k < len(p.Breaks) {
			h = p.Breaks[k]
		}
		l, h = math.Max(l, lo), math.Min(h, hi)
		if l > h {
			continue
		}
		q := p.Q[k]
		q[0] += a / 2
		q[1] += b
		// unbounded below on an infinite end?
		if math.IsInf(l, -1) && (q[0] < 0 || (q[0] == 0 && q[1] > 0)) {
			return math.Inf(-1), math.Inf(-1)
		}
		if math.IsInf(h, 1) && (q[0] < 0 || (q[0] == 0 && q[1] < 0)) {
			return math.Inf(1), math.Inf(-1)
		}
		if !math.IsInf(l, 0) {
			try(q, l)
		}
		if !math.IsInf(h, 0) {
			try(q, h)
		}
		if q[0] > 0 {
			if v := -q[1] / (2 * q[0]); v > l && v < h {
				try(q, v)
			}
		} else if q[0] == 0 && q[1] == 0 && math.IsInf(l, 0) && math.IsInf(h, 0) {
			try(q, 0) // constant on the whole line
		}
	}
	return zmin, vmin
}

// Slopes returns p's left and right derivatives at z (equal away from the
// breakpoints).
func (p *Piecewise1D) Slopes(z float64) (left, right float64) {
	k := p.piece(z)
	d := func(q [3]float64) float64 { return 2*q[0]*z + q[1] }
	left = d(p.Q[k])
	if k < len(p.Breaks) && p.Breaks[k] == z {
		return left, d(p.Q[k+1])
	}
	return left, left
}
