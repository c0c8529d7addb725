package dualqp

import (
	"math"
	"testing"
)

// A Solver started from another's dual point (Warm, StartFrom) on a model
// with the same rows and another affine rest (oneVar's objective plus 1,
// whose minimum is 1 more with the same multiplier 0.25) starts at that
// point: its first step's bound is the minimum. A model with other rows
// is refused and leaves the Solver cold.
func TestWarmStart(t *testing.T) {
	fstar := 1.25 + 0.75*0.75/2
	for _, coordinate := range []bool{false, true} {
		m, project := oneVar(math.Inf(-1), math.Inf(1), coordinate)
		sub := Sub{Xt: []float64{0}, P: 1, Project: project}
		a := NewSolver(m)
		a.Solve(sub, 20000, 10, func(lower, upper float64, _ []float64, _ int) bool { return upper-lower <= 1e-12 })
		shifted, _ := oneVar(math.Inf(-1), math.Inf(1), coordinate)
		shifted.E[0] = 1
		b := NewSolver(shifted)
		if !b.StartFrom(a.Warm()) {
			t.Fatalf("coordinate %v: the same rows refused", coordinate)
		}
		if l := b.Lambda()[0]; math.Abs(l-0.25) > 1e-4 {
			t.Errorf("coordinate %v: the warm multiplier is %g, want 0.25", coordinate, l)
		}
		res := b.Solve(sub, 1, 1, nil)
		if math.Abs(res.Lower-(fstar+1)) > 1e-8 {
			t.Errorf("coordinate %v: the first step's bound is %.12g, want %.12g", coordinate, res.Lower, fstar+1)
		}
		other, _ := oneVar(math.Inf(-1), math.Inf(1), coordinate)
		other.Lo = []float64{-1, -1} // abs, not pos: other rows
		c := NewSolver(other)
		if c.StartFrom(a.Warm()) {
			t.Errorf("coordinate %v: a model with other rows took the warm start", coordinate)
		}
		if l := c.Lambda()[0]; l != 0 {
			t.Errorf("coordinate %v: a refused warm start changed the multiplier to %g", coordinate, l)
		}
	}
}
