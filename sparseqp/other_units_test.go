package sparseqp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// scaled returns p with row i of A (and its bounds) multiplied by r_i and
// variable j replaced by x_j = c_j x'_j: the same program in other units.
func scaled(p *Problem, r, c []float64) *Problem {
	n, m := len(p.Q), len(p.L)
	s := &Problem{Q: make([]float64, n), L: make([]float64, m), U: make([]float64, m)}
	for j := range n {
		s.Q[j] = p.Q[j] * c[j]
	}
	if p.P != nil {
		s.P = &CSC{Rows: n, Cols: n, ColPtr: p.P.ColPtr, RowIdx: p.P.RowIdx, Val: make([]float64, p.P.Nnz())}
		for j := range n {
			for k := p.P.ColPtr[j]; k < p.P.ColPtr[j+1]; k++ {
				s.P.Val[k] = p.P.Val[k] * c[p.P.RowIdx[k]] * c[j]
			}
		}
	}
	if p.A != nil {
		s.A = &CSC{Rows: m, Cols: n, ColPtr: p.A.ColPtr, RowIdx: p.A.RowIdx, Val: make([]float64, p.A.Nnz())}
		for j := range n {
			for k := p.A.ColPtr[j]; k < p.A.ColPtr[j+1]; k++ {
				s.A.Val[k] = p.A.Val[k] * r[p.A.RowIdx[k]] * c[j]
			}
		}
	}
	for i := range m {
		s.L[i], s.U[i] = p.L[i]*r[i], p.U[i]*r[i]
	}
	if p.LB != nil {
		s.LB, s.UB = make([]float64, n), make([]float64, n)
		for j := range n {
			s.LB[j], s.UB[j] = p.LB[j]/c[j], p.UB[j]/c[j]
		}
	}
	return s
}

// TestOtherUnits solves random programs written in other units (rows
// multiplied by 10^[−4, 4], variables by 10^[−3, 3]): each Solved, with
// the objective of the dense qp on the program in its own units to 1e-8,
// and, when strictly convex, x mapped back to 1e-7 of the dense qp's; the
// KKT conditions checked from the scaled data.
func TestOtherUnits(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 60 {
		n := 2 + rng.IntN(14)
		m := rng.IntN(2 * n)
		kind := trial % 3
		p := randomProblem(rng, n, m, kind == 0, kind == 2)
		r, c := make([]float64, m), make([]float64, n)
		for i := range r {
			r[i] = math.Pow(10, 8*rng.Float64()-4)
		}
		for j := range c {
			c[j] = math.Pow(10, 6*rng.Float64()-3)
		}
		s := scaled(p, r, c)
		res, err := Solve(s, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		failed := t.Failed()
		checkKKT(t, s, res, 1e-8)
		if !failed && t.Failed() {
			t.Fatalf("trial %d", trial)
		}
		ref := denseSolve(t, p, denseSettings)
		if !near(res.Objective, ref.obj, 1e-8) {
			t.Errorf("trial %d: objective %.12g, dense %.12g", trial, res.Objective, ref.obj)
		}
		if kind == 0 {
			x := make([]float64, n)
			for j := range x {
				x[j] = c[j] * res.X[j]
			}
			if !nearAll(x, ref.x, 1e-7) {
				t.Errorf("trial %d: x differs by %g", trial, maxDiff(x, ref.x))
			}
		}
	}
}
