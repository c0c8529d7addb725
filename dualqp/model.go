// Package dualqp solves the proximal subproblems of models whose functions
// are sums of convex piecewise-linear terms of affine scores plus an
// affine rest (hinge, pos and abs of data scores) by their dual, a smooth
// concave maximisation over a polyhedral cone, with a certified duality
// gap (docs/solver.md, "Dual: the dual of (7) for piecewise-linear
// models"). It knows nothing of the qrc language: package smoothing builds
// a Model from a checked model (smoothing.Pieces).
package dualqp

import (
	"fmt"
	"math"
)

// Model is a problem's functions f_0 (the objective) .. f_M (the
// constraints, f_i <= 0) over y in R^N, each of the form
//
//	f_i(y) = sum over the rows r with Fn[r] == i of max(Lo[r] z_r, Hi[r] z_r)
//	         + <Q[i], y> + E[i],   z_r = <A_r, y> + B[r],
//
// with Lo[r] <= Hi[r], so that each term max_{s in [Lo, Hi]} s z_r is
// convex and piecewise linear: pos(z) is Lo = 0, Hi = 1; abs(z) is Lo = -1,
// Hi = 1; a positive coefficient c folds into A_r and B[r]. Every f_i is
// therefore convex. A_r is row r of a sparse matrix in compressed rows:
// its columns Col[Ptr[r]:Ptr[r+1]] and values Val[Ptr[r]:Ptr[r+1]].
type Model struct {
	N, M   int
	Ptr    []int
	Col    []int32
	Val    []float64
	B      []float64
	Lo, Hi []float64
	Fn     []int32
	// Q[i] is the gradient of f_i's affine rest (len N), nil for none;
	// E[i] its constant. len(Q) == len(E) == M+1.
	Q [][]float64
	E []float64
	// X, when not nil, is the domain in a form the coordinate method
	// projects onto one coordinate at a time; it must be the X of the
	// subproblems' Project. Without it Solve uses the accelerated
	// gradient method with Sub.Project.
	X *Domain
}

// Rows is the number of piecewise-linear terms.
func (m *Model) Rows() int { return len(m.B) }

// Check reports the first inconsistency of m's sizes or values.
func (m *Model) Check() error {
	R := len(m.B)
	switch {
	case m.N < 0 || m.M < 0:
		return fmt.Errorf("dualqp: N = %d, M = %d", m.N, m.M)
	case len(m.Ptr) != R+1 || len(m.Lo) != R || len(m.Hi) != R || len(m.Fn) != R:
		return fmt.Errorf("dualqp: %d rows but %d pointers, %d Lo, %d Hi, %d Fn", R, len(m.Ptr), len(m.Lo), len(m.Hi), len(m.Fn))
	case len(m.Q) != m.M+1 || len(m.E) != m.M+1:
		return fmt.Errorf("dualqp: %d functions but %d Q, %d E", m.M+1, len(m.Q), len(m.E))
	case m.Ptr[0] != 0 || m.Ptr[R] != len(m.Col) || len(m.Col) != len(m.Val):
		return fmt.Errorf("dualqp: the row pointers do not span the %d entries", len(m.Col))
	}
	for r := 0; r < R; r++ {
		if m.Ptr[r+1] < m.Ptr[r] {
			return fmt.Errorf("dualqp: row %d has a negative length", r)
		}
		if !(m.Lo[r] <= m.Hi[r]) || math.IsInf(m.Lo[r], 0) || math.IsInf(m.Hi[r], 0) {
			return fmt.Errorf("dualqp: row %d has slopes [%g, %g]", r, m.Lo[r], m.Hi[r])
		}
		if m.Fn[r] < 0 || int(m.Fn[r]) > m.M {
			return fmt.Errorf("dualqp: row %d belongs to function %d of %d", r, m.Fn[r], m.M+1)
		}
		if math.IsNaN(m.B[r]) || math.IsInf(m.B[r], 0) {
			return fmt.Errorf("dualqp: row %d has the constant %g", r, m.B[r])
		}
	}
	for k, c := range m.Col {
		if c < 0 || int(c) >= m.N || math.IsNaN(m.Val[k]) || math.IsInf(m.Val[k], 0) {
			return fmt.Errorf("dualqp: entry %d: column %d of %d, value %g", k, c, m.N, m.Val[k])
		}
	}
	if x := m.X; x != nil {
		if len(x.Lo) != m.N || len(x.Hi) != m.N || len(x.Ball) != m.N {
			return fmt.Errorf("dualqp: the domain has %d, %d, %d coordinates, want %d", len(x.Lo), len(x.Hi), len(x.Ball), m.N)
		}
		for j, k := range x.Ball {
			if k >= int32(len(x.Radius)) || !(x.Lo[j] <= x.Hi[j]) || (k >= 0 && (!math.IsInf(x.Lo[j], -1) || !math.IsInf(x.Hi[j], 1))) {
				return fmt.Errorf("dualqp: the domain's coordinate %d is not a bound or a ball's", j)
			}
		}
	}
	for i, q := range m.Q {
		if q != nil && len(q) != m.N {
			return fmt.Errorf("dualqp: Q[%d] has %d entries, want %d", i, len(q), m.N)
		}
	}
	return nil
}

// scores stores z = A y + B in z (len Rows).
func (m *Model) scores(y, z []float64) {
	for r := range z {
		s := m.B[r]
		for k := m.Ptr[r]; k < m.Ptr[r+1]; k++ {
			s += m.Val[k] * y[m.Col[k]]
		}
		z[r] = s
	}
}

// valuesFrom stores f_i(y) in vals (len M+1) from the scores z at y, each
// a compensated sum over its rows.
func (m *Model) valuesFrom(y, z, vals []float64) {
	acc := make([]ksum, len(vals))
	for i := range vals {
		acc[i].add(m.E[i])
		if q := m.Q[i]; q != nil {
			acc[i].add(dot(q, y))
		}
	}
	for r, zr := range z {
		acc[m.Fn[r]].add(math.Max(m.Lo[r]*zr, m.Hi[r]*zr))
	}
	for i := range vals {
		vals[i] = acc[i].value()
	}
}

// ksum is a compensated sum (Neumaier's variant of Kahan's): its value is
// within about one rounding of the exact sum of its terms, whatever their
// number and cancellation. The sums over 10^6 rows of scores that cancel
// (a hinge of x·w + b with |b| large) otherwise differ by about 10^-11
// between two orders of summation, which the gaps of the screened solve
// (screen.go) would see.
type ksum struct{ s, c float64 }

func (k *ksum) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k ksum) value() float64 { return k.s + k.c }

// Values stores f_i(y) in vals (len M+1).
func (m *Model) Values(y, vals []float64) {
	z := make([]float64, m.Rows())
	m.scores(y, z)
	m.valuesFrom(y, z, vals)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for j, v := range a {
		s += v * b[j]
	}
	return s
}
