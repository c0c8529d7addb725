package weakconvex

import (
	"fmt"
	"math"
)

// Interval is the closed interval [Lo, Hi] of the real line; either end
// may be infinite. Every operation on intervals rounds outward, so the
// result contains every value the exact operation can take.
type Interval struct{ Lo, Hi float64 }

// point is the interval [v, v].
func point(v float64) Interval { return Interval{v, v} }

// whole is the real line.
var whole = Interval{math.Inf(-1), math.Inf(1)}

// String formats iv as [lo, hi].
func (iv Interval) String() string { return fmt.Sprintf("[%s, %s]", num(iv.Lo), num(iv.Hi)) }

// Contains reports whether v lies in iv.
func (iv Interval) Contains(v float64) bool { return iv.Lo <= v && v <= iv.Hi }

// Finite reports whether both ends are finite.
func (iv Interval) Finite() bool { return !math.IsInf(iv.Lo, 0) && !math.IsInf(iv.Hi, 0) }

// Mag is the largest absolute value in iv.
func (iv Interval) Mag() float64 { return math.Max(math.Abs(iv.Lo), math.Abs(iv.Hi)) }

// widen rounds iv outward by a few units in the last place (and by 1e-300
// more, for results near underflow), so that the rounding of the operation
// that produced it cannot make it too small. An exact 0 stays 0: the
// bounds that are exactly 0 (the curvature of an affine or convex term)
// come from exact operations.
func widen(iv Interval) Interval {
	return Interval{down(iv.Lo), up(iv.Hi)}
}

const relSlack = 4e-16 * 4

func down(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	return v - math.Abs(v)*relSlack - 1e-300
}

func up(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	return v + math.Abs(v)*relSlack + 1e-300
}

// union is the smallest interval containing a and b.
func union(a, b Interval) Interval { return Interval{math.Min(a.Lo, b.Lo), math.Max(a.Hi, b.Hi)} }

func add(a, b Interval) Interval { return widen(Interval{a.Lo + b.Lo, a.Hi + b.Hi}) }

func sub(a, b Interval) Interval { return widen(Interval{a.Lo - b.Hi, a.Hi - b.Lo}) }

func neg(a Interval) Interval { return Interval{-a.Hi, -a.Lo} }

// mulf is a*b with 0*Inf = 0: a bound of zero times an unbounded one is
// zero (the zero is exact in every use here).
func mulf(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return a * b
}

func mul(a, b Interval) Interval {
	p := [4]float64{mulf(a.Lo, b.Lo), mulf(a.Lo, b.Hi), mulf(a.Hi, b.Lo), mulf(a.Hi, b.Hi)}
	lo, hi := p[0], p[0]
	for _, v := range p[1:] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return widen(Interval{lo, hi})
}

func scale(a Interval, w float64) Interval { return mul(a, point(w)) }

// sqr is {v*v : v in a}, tighter than mul(a, a).
func sqr(a Interval) Interval {
	m := a.Mag()
	lo := 0.0
	if a.Lo > 0 {
		lo = a.Lo * a.Lo
	} else if a.Hi < 0 {
		lo = a.Hi * a.Hi
	}
	return widen(Interval{lo, m * m})
}

// recip is 1/a for an interval a that does not contain 0; ok is false when
// it does.
func recip(a Interval) (Interval, bool) {
	if a.Contains(0) {
		return whole, false
	}
	return widen(Interval{1 / a.Hi, 1 / a.Lo}), true
}

func div(a, b Interval) (Interval, bool) {
	r, ok := recip(b)
	if !ok {
		return whole, false
	}
	return mul(a, r), true
}
