package dualqp

import (
	"math"
	"testing"
)

// oneVar is min |y - 2| + P/2 (y - xt)^2 s.t. pos(y - 0.5) - 0.25 <= 0
// over y in [lo, hi], as a Model; with X set the coordinate method runs,
// else the accelerated gradient method with project.
func oneVar(lo, hi float64, coordinate bool) (*Model, func([]float64)) {
	m := &Model{
		N: 1, M: 1,
		Ptr: []int{0, 1, 2}, Col: []int32{0, 0}, Val: []float64{1, 1},
		B: []float64{-2, -0.5}, Lo: []float64{-1, 0}, Hi: []float64{1, 1}, Fn: []int32{0, 1},
		Q: make([][]float64, 2), E: []float64{0, -0.25},
	}
	if coordinate {
		m.X = &Domain{Lo: []float64{lo}, Hi: []float64{hi}, Ball: []int32{-1}}
	}
	return m, func(x []float64) { x[0] = math.Min(hi, math.Max(lo, x[0])) }
}

// TestClosedForm checks Solve against the closed-form solutions of
// oneVar: with X = R the constraint is active, y* = 0.75, F* = 1.25 +
// 0.75^2/2 and its multiplier is 1 - 0.75 = 0.25 (F'(y*) = -1 + y* and
// the constraint's slope is 1); with X = [-10, 0.6] the domain holds y* =
// 0.6, F* = 1.4 + 0.18, and the constraint is inactive (multiplier 0).
func TestClosedForm(t *testing.T) {
	cases := []struct {
		lo, hi, y, F, lambda float64
	}{
		{math.Inf(-1), math.Inf(1), 0.75, 1.25 + 0.75*0.75/2, 0.25},
		{-10, 0.6, 0.6, 1.4 + 0.18, 0},
	}
	for _, c := range cases {
		for _, coordinate := range []bool{false, true} {
			m, project := oneVar(c.lo, c.hi, coordinate)
			if err := m.Check(); err != nil {
				t.Fatal(err)
			}
			s := NewSolver(m)
			res := s.Solve(Sub{Xt: []float64{0}, P: 1, Project: project}, 20000, 10, func(lower, upper float64, _ []float64, _ int) bool {
				return upper-lower <= 1e-12
			})
			if res.Y == nil {
				t.Fatalf("X = [%g, %g], coordinate %v: no feasible point", c.lo, c.hi, coordinate)
			}
			// the bound is a bound, and the gap closes
			if res.Lower > c.F+1e-12 || res.F < c.F-1e-12 {
				t.Errorf("X = [%g, %g], coordinate %v: Lower %.15g, F %.15g around F* %.15g", c.lo, c.hi, coordinate, res.Lower, res.F, c.F)
			}
			if gap := res.F - res.Lower; gap > 1e-10 {
				t.Errorf("X = [%g, %g], coordinate %v: gap %g after %d steps", c.lo, c.hi, coordinate, gap, res.Iters)
			}
			// F's strong convexity (P = 1) bounds the distance by the gap
			if d := math.Abs(res.Y[0] - c.y); d > math.Sqrt(2*(res.F-c.F))+1e-9 {
				t.Errorf("X = [%g, %g], coordinate %v: y = %.12g, want %.12g", c.lo, c.hi, coordinate, res.Y[0], c.y)
			}
			if math.Abs(res.Lambda[0]-c.lambda) > 1e-4 {
				t.Errorf("X = [%g, %g], coordinate %v: lambda = %.8g, want %g", c.lo, c.hi, coordinate, res.Lambda[0], c.lambda)
			}
		}
	}
}

// TestLowerIsBoundEarly checks that the bound after a single step is below
// the known minimum (weak duality holds at every dual point) and that the
// values the model computes are those of its definition.
func TestLowerIsBoundEarly(t *testing.T) {
	m, project := oneVar(math.Inf(-1), math.Inf(1), false)
	vals := make([]float64, 2)
	m.Values([]float64{3}, vals)
	if vals[0] != 1 || vals[1] != 2.5-0.25 {
		t.Fatalf("values at 3: %v, want [1 2.25]", vals)
	}
	for _, it := range []int{1, 2, 5} {
		s := NewSolver(m)
		res := s.Solve(Sub{Xt: []float64{0}, P: 1, Project: project}, it, 1, nil)
		if res.Lower > 1.25+0.75*0.75/2+1e-12 {
			t.Errorf("after %d steps the bound %g is above the minimum", it, res.Lower)
		}
	}
}

// TestCheck refuses inconsistent models.
func TestCheck(t *testing.T) {
	m, _ := oneVar(0, 1, true)
	m.Lo[0] = 2
	if m.Check() == nil {
		t.Error("slopes [2, 1] passed Check")
	}
	m, _ = oneVar(0, 1, true)
	m.Col[1] = 5
	if m.Check() == nil {
		t.Error("a column out of range passed Check")
	}
	m, _ = oneVar(0, 1, true)
	m.X.Ball[0] = 0
	if m.Check() == nil {
		t.Error("a ball coordinate with bounds and no radius passed Check")
	}
}

// TestFinishClosedForm checks the exact finish on subproblems whose
// solutions have closed forms, each with a row at its kink, to a gap of
// 1e-12 within a few epochs:
//
//   - the median: min |y - 0| + |y - 1| + |y - 3| + P/2 (y - 10)^2 over
//     [-100, 100] with P = 1e-3 is at y* = 1 (the middle row at its kink,
//     with slope P (10 - 1)), F* = 3 + P/2 81;
//   - the ball: min -y1 - y2 + |y1 - y2| + P/2 ||y||^2 over the unit
//     ball with P = 1e-6 is at y* = (1, 1)/sqrt 2 (the row at its kink
//     with slope 0, the ball active), F* = -sqrt 2 + P/2.
func TestFinishClosedForm(t *testing.T) {
	median := &Model{
		N: 1, M: 0,
		Ptr: []int{0, 1, 2, 3}, Col: []int32{0, 0, 0}, Val: []float64{1, 1, 1},
		B: []float64{0, -1, -3}, Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}, Fn: []int32{0, 0, 0},
		Q: make([][]float64, 1), E: []float64{0},
		X: &Domain{Lo: []float64{-100}, Hi: []float64{100}, Ball: []int32{-1}},
	}
	ball := &Model{
		N: 2, M: 0,
		Ptr: []int{0, 2}, Col: []int32{0, 1}, Val: []float64{1, -1},
		B: []float64{0}, Lo: []float64{-1}, Hi: []float64{1}, Fn: []int32{0},
		Q: [][]float64{{-1, -1}}, E: []float64{0},
		X: &Domain{Lo: []float64{math.Inf(-1), math.Inf(-1)}, Hi: []float64{math.Inf(1), math.Inf(1)}, Ball: []int32{0, 0}, Radius: []float64{1}},
	}
	cases := []struct {
		name string
		m    *Model
		xt   []float64
		P    float64
		y    []float64
		F    float64
	}{
		{"median", median, []float64{10}, 1e-3, []float64{1}, 3 + 1e-3/2*81},
		{"ball", ball, []float64{0, 0}, 1e-6, []float64{1 / math.Sqrt2, 1 / math.Sqrt2}, -math.Sqrt2 + 1e-6/2},
	}
	for _, c := range cases {
		if err := c.m.Check(); err != nil {
			t.Fatal(err)
		}
		s := NewSolver(c.m)
		res := s.Solve(Sub{Xt: c.xt, P: c.P, Project: c.m.X.Project}, 5, 1, func(lower, upper float64, _ []float64, _ int) bool {
			return upper-lower <= 1e-12
		})
		if res.Y == nil {
			t.Fatalf("%s: no feasible point", c.name)
		}
		if gap := res.F - res.Lower; gap > 1e-12 {
			t.Errorf("%s: gap %g after %d epochs", c.name, gap, res.Iters)
		}
		if res.Lower > c.F+1e-12 || math.Abs(res.F-c.F) > 1e-12 {
			t.Errorf("%s: Lower %.15g, F %.15g, want F* %.15g", c.name, res.Lower, res.F, c.F)
		}
		for j, v := range c.y {
			if math.Abs(res.Y[j]-v) > 1e-5 {
				t.Errorf("%s: y[%d] = %.12g, want %.12g", c.name, j, res.Y[j], v)
			}
		}
	}
}

// TestRestBoundCertifiesVanishingPieces: min mean over 3 rows of hinge
// scores that are all beyond their margins near Xt, f = 0 there, with a
// warm start far from the dual optimum. The dual point alpha = 0 (the
// pieces dropped) is a bound of 0 = F(Xt) at once: the gap is 0 after one
// step, for both methods, where the ascent from the warm start at a small
// P approaches it slowly.
func TestRestBoundCertifiesVanishingPieces(t *testing.T) {
	for _, coordinate := range []bool{false, true} {
		// rows 1 - y and 1 - 2y over y in [2, 5]: pos(1 - y) is 0 there
		m := &Model{
			N: 1, M: 0,
			Ptr: []int{0, 1, 2}, Col: []int32{0, 0}, Val: []float64{-1, -2},
			B: []float64{1, 1}, Lo: []float64{0, 0}, Hi: []float64{0.5, 0.5}, Fn: []int32{0, 0},
			Q: make([][]float64, 1), E: []float64{0},
		}
		project := func(x []float64) { x[0] = math.Min(5, math.Max(2, x[0])) }
		if coordinate {
			m.X = &Domain{Lo: []float64{2}, Hi: []float64{5}, Ball: []int32{-1}}
		}
		if err := m.Check(); err != nil {
			t.Fatal(err)
		}
		s := NewSolver(m)
		s.alpha[0], s.alpha[1] = 0.5, 0.5 // a warm start far off
		res := s.Solve(Sub{Xt: []float64{3}, P: 1e-3, Project: project}, 1, 1, nil)
		if res.Lower != 0 || res.F != 0 {
			t.Errorf("coordinate %v: Lower %g, F %g, want both 0", coordinate, res.Lower, res.F)
		}
	}
}
