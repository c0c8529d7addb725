// Package domain describes the simple sets a qrc variable may range over
// (boxes, possibly one-sided, the nonnegative orthant, Euclidean balls,
// per-row balls, l1 balls, simplices, or all of R^n) and projects points
// onto them exactly.
package domain

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/floats"
)

// Kind names a type of domain.
type Kind int

// The kinds of domain.
const (
	Unbounded Kind = iota // all of R^n
	Box                   // Lo <= x <= Hi elementwise
	Ball                  // ||x||_2 <= Radius
	RowBalls              // ||x[k]||_2 <= Radius for each row k of a matrix
	Simplex               // x >= 0 and sum(x) = Radius
	L1Ball                // ||x||_1 <= Radius
)

var kindNames = [...]string{"unbounded", "box", "ball", "ball_rows", "simplex", "l1ball"}

// String returns the kind's name as used in JSON output.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Domain is a closed convex set for one variable, whose elements are stored
// row-major in a flat slice.
type Domain struct {
	Kind   Kind
	Lo, Hi []float64 // Box: bounds per element (length = the variable's size); -Inf and +Inf for a side without a bound
	Radius float64   // Ball, RowBalls, L1Ball: radius; Simplex: the sum (1 by default)
	Cols   int       // RowBalls: the length of one row
}

// Compact reports whether the domain is bounded.
func (d *Domain) Compact() bool {
	switch d.Kind {
	case Unbounded:
		return false
	case Box:
		for i := range d.Lo {
			if math.IsInf(d.Lo[i], 0) || math.IsInf(d.Hi[i], 0) {
				return false
			}
		}
	}
	return true
}

// NonNeg returns the nonnegative orthant x >= 0 for n elements: a box
// from 0 to +Inf, written nonneg.
func NonNeg(n int) *Domain {
	d := &Domain{Kind: Box, Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range d.Hi {
		d.Hi[i] = math.Inf(1)
	}
	return d
}

// String describes the domain as in a model: box(-2, 2), box(0, inf),
// box([-inf, -1.5], [inf, inf]) (a box of at most 8 elements with
// different bounds, matrices row-major; box(...) for a larger one),
// nonneg, ball(0.1, rows), l1ball(1).
func (d *Domain) String() string {
	switch d.Kind {
	case Box:
		if lo, hi, ok := d.uniformBox(); ok {
			if lo == 0 && math.IsInf(hi, 1) {
				return "nonneg"
			}
			return fmt.Sprintf("box(%s, %s)", num(lo), num(hi))
		}
		if len(d.Lo) <= 8 {
			return "box(" + numList(d.Lo) + ", " + numList(d.Hi) + ")"
		}
		return "box(...)"
	case L1Ball:
		return fmt.Sprintf("l1ball(%s)", num(d.Radius))
	case Ball:
		return fmt.Sprintf("ball(%s)", num(d.Radius))
	case RowBalls:
		return fmt.Sprintf("ball(%s, rows)", num(d.Radius))
	case Simplex:
		if d.Radius == 1 {
			return "simplex"
		}
		return fmt.Sprintf("simplex(%s)", num(d.Radius))
	}
	return "unbounded"
}

func (d *Domain) uniformBox() (lo, hi float64, ok bool) {
	if len(d.Lo) == 0 {
		return 0, 0, false
	}
	lo, hi = d.Lo[0], d.Hi[0]
	for i := range d.Lo {
		if d.Lo[i] != lo || d.Hi[i] != hi {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

// numList formats v as a list literal, [a, b, c] (the elements of a
// matrix in row-major order).
func numList(v []float64) string {
	s := "["
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += num(x)
	}
	return s + "]"
}

// num formats v as a model writes it: infinities as inf and -inf.
func num(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Contains reports whether x lies in the domain up to tol.
func (d *Domain) Contains(x []float64, tol float64) bool {
	return d.Violation(x) <= tol
}

// Violation measures how far x is outside the domain: the largest bound
// excess for a box, ||x|| - r for a ball (the largest over rows for
// RowBalls), ||x||_1 - r for an l1 ball, and for a simplex the larger of the most negative entry and
// |sum - r|. It is 0 inside.
func (d *Domain) Violation(x []float64) float64 {
	v := 0.0
	switch d.Kind {
	case Box:
		for i, xi := range x {
			v = math.Max(v, math.Max(d.Lo[i]-xi, xi-d.Hi[i]))
		}
	case Ball:
		v = norm2(x) - d.Radius
	case L1Ball:
		v = norm1(x) - d.Radius
	case RowBalls:
		for k := 0; k+d.Cols <= len(x); k += d.Cols {
			v = math.Max(v, norm2(x[k:k+d.Cols])-d.Radius)
		}
	case Simplex:
		s := 0.0
		for _, xi := range x {
			v = math.Max(v, -xi)
			s += xi
		}
		v = math.Max(v, math.Abs(s-d.Radius))
	}
	return math.Max(v, 0)
}

// Project replaces x by its Euclidean projection onto the domain.
func (d *Domain) Project(x []float64) {
	switch d.Kind {
	case Box:
		for i := range x {
			x[i] = math.Min(math.Max(x[i], d.Lo[i]), d.Hi[i])
		}
	case Ball:
		projectBall(x, d.Radius)
	case RowBalls:
		for k := 0; k+d.Cols <= len(x); k += d.Cols {
			projectBall(x[k:k+d.Cols], d.Radius)
		}
	case Simplex:
		projectSimplex(x, d.Radius)
	case L1Ball:
		projectL1Ball(x, d.Radius)
	}
}

// projectL1Ball projects x onto {||y||_1 <= r}: x itself when inside, else
// sign(x) times the projection of |x| onto the simplex of sum r (Duchi et
// al. 2008), i.e. soft thresholding at the level that makes ||y||_1 = r.
func projectL1Ball(x []float64, r float64) {
	if norm1(x) <= r {
		return
	}
	u := make([]float64, len(x))
	for i, v := range x {
		u[i] = math.Abs(v)
	}
	projectSimplex(u, r)
	for i, v := range x {
		x[i] = math.Copysign(u[i], v)
	}
}

func norm1(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += math.Abs(v)
	}
	return s
}

func projectBall(x []float64, r float64) {
	if n := norm2(x); n > r {
		s := r / n
		for i := range x {
			x[i] *= s
		}
	}
}

// projectSimplex projects x onto {y >= 0, sum y = r} by the sort-based
// method (Held, Wolfe & Crowder; Duchi et al. 2008), O(n log n).
func projectSimplex(x []float64, r float64) {
	u := append([]float64(nil), x...)
	sort.Sort(sort.Reverse(sort.Float64Slice(u)))
	cum, theta := 0.0, 0.0
	for j, uj := range u {
		cum += uj
		if t := (cum - r) / float64(j+1); uj-t > 0 {
			theta = t
		}
	}
	for i := range x {
		x[i] = math.Max(x[i]-theta, 0)
	}
}

// norm2 is the Euclidean norm as sqrt(<x, x>), not gonum's floats.Norm,
// whose overflow-safe scaling rounds differently: with it the bundle
// oracle's first subproblem on the hinge-loss NP model over balls took 10
// times the evaluations (5159 instead of 397 in the whole solve), and it is
// slower. The domains' radii keep x far from overflow.
func norm2(x []float64) float64 { return math.Sqrt(floats.Dot(x, x)) }

// Constraint is one of the inequalities c(x) <= 0 whose intersection is a
// domain, evaluated at a point: its value and a subgradient. The
// subgradient is Grad on the elements x[Start : Start+len(Grad)] of the
// variable and zero elsewhere. Grad may be shared between calls (the ±1 of
// a bound): do not modify it.
type Constraint struct {
	Value float64   // c(x); positive when violated
	Start int       // the first element of the variable that Grad covers
	Grad  []float64 // a subgradient of c at x on x[Start : Start+len(Grad)]
}

// Constraints appends to cs the domain written as inequalities c(x) <= 0,
// evaluated at x (the variable's elements), for methods that handle the
// domain as constraints instead of projecting onto it:
//
//	Box       lo_i - x_i <= 0 and x_i - hi_i <= 0 for each finite bound
//	Ball      ||x|| - r <= 0
//	RowBalls  ||x[k]|| - r <= 0 for each row k
//	Simplex   -x_i <= 0 for each i, sum(x) - r <= 0 and r - sum(x) <= 0
//	L1Ball    ||x||_1 - r <= 0 (subgradient sign(x), 0 at 0)
//	Unbounded none
//
// At x = 0 (or a zero row) the norm's subgradient is taken as 0. The
// largest Value (or 0) equals Violation(x). The inequalities come in the
// order listed, element by element, so the same domain gives the same
// list at every x.
func (d *Domain) Constraints(x []float64, cs []Constraint) []Constraint {
	switch d.Kind {
	case Box:
		for i, xi := range x {
			if !math.IsInf(d.Lo[i], -1) {
				cs = append(cs, Constraint{Value: d.Lo[i] - xi, Start: i, Grad: minusOne})
			}
			if !math.IsInf(d.Hi[i], 1) {
				cs = append(cs, Constraint{Value: xi - d.Hi[i], Start: i, Grad: plusOne})
			}
		}
	case Ball:
		cs = append(cs, ballConstraint(x, 0, d.Radius))
	case L1Ball:
		g := make([]float64, len(x))
		for i, v := range x {
			switch {
			case v > 0:
				g[i] = 1
			case v < 0:
				g[i] = -1
			}
		}
		cs = append(cs, Constraint{Value: norm1(x) - d.Radius, Grad: g})
	case RowBalls:
		for k := 0; k+d.Cols <= len(x); k += d.Cols {
			cs = append(cs, ballConstraint(x[k:k+d.Cols], k, d.Radius))
		}
	case Simplex:
		s := 0.0
		for i, xi := range x {
			cs = append(cs, Constraint{Value: -xi, Start: i, Grad: minusOne})
			s += xi
		}
		up, down := make([]float64, len(x)), make([]float64, len(x))
		for i := range x {
			up[i], down[i] = 1, -1
		}
		cs = append(cs,
			Constraint{Value: s - d.Radius, Grad: up},
			Constraint{Value: d.Radius - s, Grad: down})
	}
	return cs
}

// The subgradients of the bounds x_i >= lo and x_i <= hi, shared.
var minusOne, plusOne = []float64{-1}, []float64{1}

// ballConstraint is ||x|| - r <= 0 at x, which starts at element start.
func ballConstraint(x []float64, start int, r float64) Constraint {
	n := norm2(x)
	g := make([]float64, len(x))
	if n > 0 {
		for i, xi := range x {
			g[i] = xi / n
		}
	}
	return Constraint{Value: n - r, Start: start, Grad: g}
}
