package sparseqp

import (
	"math"
	"testing"
)

func TestClosedForms(t *testing.T) {
	cases := []struct {
		name    string
		p       Problem
		x, y, z []float64
		obj     float64
	}{
		{
			// the projection of c = (3, −2, 0.5) onto [0, 1]³: (1, 0, 0.5),
			// z = c − x
			name: "box projection",
			p: Problem{P: diagonal(1, 1, 1), Q: []float64{-3, 2, -0.5},
				LB: []float64{0, 0, 0}, UB: []float64{1, 1, 1}},
			x: []float64{1, 0, 0.5}, z: []float64{2, -2, 0},
			obj: 0.5*(1+0+0.25) - 3 - 0.25,
		},
		{
			// the projection of (3, 4) onto x + y <= 1: (3, 4) − 3·(1, 1)
			name: "half-plane projection",
			p: Problem{P: diagonal(1, 1), Q: []float64{-3, -4},
				A: dense([][]float64{{1, 1}}), L: []float64{-inf}, U: []float64{1}},
			x: []float64{0, 1}, y: []float64{3}, z: []float64{0, 0},
			obj: 0.5 - 4,
		},
		{
			// min ½‖x‖² on x1 + x2 + x3 = 3, x1 − x3 = 0: x = (1, 1, 1) with
			// x + Aᵀy = 0: y1 = −1, y2 = 0
			name: "equality-constrained least squares",
			p: Problem{P: diagonal(1, 1, 1), Q: []float64{0, 0, 0},
				A: dense([][]float64{{1, 1, 1}, {1, 0, -1}}), L: []float64{3, 0}, U: []float64{3, 0}},
			x: []float64{1, 1, 1}, y: []float64{-1, 0}, z: []float64{0, 0, 0},
			obj: 1.5,
		},
		{
			// Wyndor Glass (Hillier & Lieberman): max 3x1 + 5x2 on x1 <= 4,
			// 2x2 <= 12, 3x1 + 2x2 <= 18, x >= 0: x = (2, 6), 36, shadow
			// prices (0, 3/2, 1)
			name: "Wyndor LP",
			p: Problem{Q: []float64{-3, -5},
				A: dense([][]float64{{1, 0}, {0, 2}, {3, 2}}), L: []float64{-inf, -inf, -inf}, U: []float64{4, 12, 18},
				LB: []float64{0, 0}},
			x: []float64{2, 6}, y: []float64{0, 1.5, 1}, z: []float64{0, 0},
			obj: -36,
		},
		{
			// |x − 2| lifted: min t on t >= x − 2, t >= 2 − x, x and t free:
			// t = 0, x = 2, y = (−½, −½)
			name: "abs epigraph, free variables",
			p: Problem{Q: []float64{1, 0},
				A: dense([][]float64{{1, -1}, {1, 1}}), L: []float64{-2, 2}, U: []float64{inf, inf}},
			x: []float64{0, 2}, y: []float64{-0.5, -0.5}, z: []float64{0, 0},
			obj: 0,
		},
		{
			// a degenerate vertex: min −x2 on x1 + x2 <= 1, −x1 + x2 <= 1,
			// x2 <= 1 (three active rows at (0, 1)); free x1
			name: "degenerate LP",
			p: Problem{Q: []float64{0, -1},
				A: dense([][]float64{{1, 1}, {-1, 1}, {0, 1}}), L: []float64{-inf, -inf, -inf}, U: []float64{1, 1, 1}},
			x:   []float64{0, 1},
			obj: -1,
		},
		{
			// min x1 + 2x2 + 3x3 on x1 + x2 + x3 = 1, x >= 0: the vertex e1,
			// y = −1, z = (0, −1, −2)
			name: "simplex LP",
			p: Problem{Q: []float64{1, 2, 3},
				A: dense([][]float64{{1, 1, 1}}), L: []float64{1}, U: []float64{1}, LB: []float64{0, 0, 0}},
			x: []float64{1, 0, 0}, y: []float64{-1}, z: []float64{0, -1, -2},
			obj: 1,
		},
		{
			// a ranged row and a fixed variable: min (x1 − 5)² + x2 on
			// 1 <= x1 + x2 <= 3, x2 = 0.5: x1 = 2.5 at the upper end,
			// stationarity 2(x1 − 5) + y = 0: y = 5; 1 + y + z2 = 0: z2 = −6
			name: "ranged row, fixed variable",
			p: Problem{P: diagonal(2, 0), Q: []float64{-10, 1},
				A: dense([][]float64{{1, 1}}), L: []float64{1}, U: []float64{3},
				LB: []float64{-inf, 0.5}, UB: []float64{inf, 0.5}},
			x: []float64{2.5, 0.5}, y: []float64{5}, z: []float64{0, -6},
			obj: 2.5*2.5 - 25 + 0.5,
		},
		{
			// unconstrained: min ½xᵀPx + qᵀx with P = [2 1; 1 2] (given in
			// full), q = (−3, −3): x = (1, 1)
			name: "unconstrained",
			p:    Problem{P: dense([][]float64{{2, 1}, {1, 2}}), Q: []float64{-3, -3}},
			x:    []float64{1, 1}, z: []float64{0, 0},
			obj: -3,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Solve(&c.p, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			checkKKT(t, &c.p, r, 1e-8)
			if !nearAll(r.X, c.x, 1e-8) {
				t.Errorf("x = %v, want %v", r.X, c.x)
			}
			if c.y != nil && !nearAll(r.Y, c.y, 1e-7) {
				t.Errorf("y = %v, want %v", r.Y, c.y)
			}
			if c.z != nil && !nearAll(r.Z, c.z, 1e-7) {
				t.Errorf("z = %v, want %v", r.Z, c.z)
			}
			if !near(r.Objective, c.obj, 1e-8) {
				t.Errorf("objective %.12g, want %.12g", r.Objective, c.obj)
			}
			if r.Iterations > 30 {
				t.Errorf("%d iterations", r.Iterations)
			}
			t.Logf("%d iterations, prim %.2g dual %.2g gap %.2g", r.Iterations, r.PrimalResidual, r.DualResidual, r.Gap)
		})
	}
}

func TestInfeasible(t *testing.T) {
	cases := []struct {
		name string
		p    Problem
		want Status
	}{
		{"crossed rows", Problem{Q: []float64{1, 1}, A: dense([][]float64{{1, 1}, {1, 1}}),
			L: []float64{-inf, 2}, U: []float64{1, inf}}, PrimalInfeasible},
		{"row against box", Problem{P: diagonal(1, 1), Q: []float64{0, 0}, A: dense([][]float64{{1, 1}}),
			L: []float64{-inf}, U: []float64{-1}, LB: []float64{0, 0}}, PrimalInfeasible},
		{"inconsistent equalities", Problem{Q: []float64{0, 0}, A: dense([][]float64{{1, 1}, {2, 2}}),
			L: []float64{1, 3}, U: []float64{1, 3}}, PrimalInfeasible},
		{"unbounded LP", Problem{Q: []float64{-1, 0}, A: dense([][]float64{{1, -1}}),
			L: []float64{-inf}, U: []float64{1}, LB: []float64{0, 0}}, DualInfeasible},
		{"free linear", Problem{Q: []float64{-1}}, DualInfeasible},
		{"singular P", Problem{P: diagonal(1, 0), Q: []float64{0, -1}}, DualInfeasible},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Solve(&c.p, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != c.want {
				t.Fatalf("status %v after %d iterations, want %v", r.Status, r.Iterations, c.want)
			}
			checkCertificate(t, &c.p, r)
			t.Logf("%d iterations, %+v", r.Iterations, r.Certificate)
		})
	}
}

// checkCertificate verifies an infeasibility certificate from the data.
func checkCertificate(t *testing.T, p *Problem, r *Result) {
	t.Helper()
	n, m := len(p.Q), len(p.L)
	lb, ub := p.LB, p.UB
	if lb == nil {
		lb = filled(n, -inf)
	}
	if ub == nil {
		ub = filled(n, inf)
	}
	switch r.Status {
	case PrimalInfeasible:
		supp := 0.0
		for i, v := range r.Y {
			switch {
			case v > 0:
				supp += v * p.U[i]
			case v < 0:
				supp += v * p.L[i]
			}
		}
		for j, v := range r.Z {
			switch {
			case v > 0:
				supp += v * ub[j]
			case v < 0:
				supp += v * lb[j]
			}
		}
		w := make([]float64, n)
		if p.A != nil {
			p.A.MulTransVec(w, r.Y)
		}
		res := 0.0
		for j := range w {
			res = math.Max(res, math.Abs(w[j]+r.Z[j]))
		}
		if !(supp < 0) || math.IsInf(supp, 0) || res > 1e-9 {
			t.Errorf("not a certificate: support %g, residual %g", supp, res)
		}
	case DualInfeasible:
		d := r.X
		qd := 0.0
		for j, v := range d {
			qd += p.Q[j] * v
			if v < 0 && !math.IsInf(lb[j], -1) || v > 0 && !math.IsInf(ub[j], 1) {
				t.Errorf("d[%d] = %g leaves [%g, %g]'s recession cone", j, v, lb[j], ub[j])
			}
		}
		pd := make([]float64, n)
		symMulVec(p.P, pd, d)
		ad := make([]float64, m)
		if p.A != nil {
			p.A.MulVec(ad, d)
		}
		for i, v := range ad {
			if v > 1e-9 && !math.IsInf(p.U[i], 1) || v < -1e-9 && !math.IsInf(p.L[i], -1) {
				t.Errorf("(Ad)[%d] = %g leaves the recession cone of [%g, %g]", i, v, p.L[i], p.U[i])
			}
		}
		if !(qd < 0) || normInf(pd) > 1e-9 {
			t.Errorf("not a descent direction: qᵀd %g, ‖Pd‖ %g", qd, normInf(pd))
		}
	}
}

func TestValidate(t *testing.T) {
	cases := []Problem{
		{},
		{Q: []float64{math.NaN()}},
		{Q: []float64{1}, LB: []float64{2}, UB: []float64{1}},
		{Q: []float64{1}, LB: []float64{inf}},
		{Q: []float64{1}, A: dense([][]float64{{1}}), L: []float64{0}, U: []float64{math.NaN()}},
		{Q: []float64{1}, A: dense([][]float64{{1}}), L: []float64{0}},
		{Q: []float64{1, 2}, A: dense([][]float64{{1}}), L: []float64{0}, U: []float64{1}},
		{Q: []float64{1}, P: &CSC{Rows: 1, Cols: 1, ColPtr: []int{0, 1}, RowIdx: []int{0}, Val: []float64{math.Inf(1)}}},
		{Q: []float64{1}, P: &CSC{Rows: 1, Cols: 1, ColPtr: []int{0, 2}, RowIdx: []int{0}, Val: []float64{1}}},
	}
	for i, p := range cases {
		if _, err := Solve(&p, Settings{}); err == nil {
			t.Errorf("case %d: no error", i)
		} else {
			t.Logf("case %d: %v", i, err)
		}
	}
}
