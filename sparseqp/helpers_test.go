package sparseqp

import (
	"math"
	"testing"
)

var inf = math.Inf(1)

// dense builds a CSC from dense rows (zeros not stored).
func dense(rows [][]float64) *CSC {
	if len(rows) == 0 {
		return nil
	}
	var ri, ci []int
	var v []float64
	for i, r := range rows {
		for j, x := range r {
			if x != 0 {
				ri, ci, v = append(ri, i), append(ci, j), append(v, x)
			}
		}
	}
	a, err := NewCSC(len(rows), len(rows[0]), ri, ci, v)
	if err != nil {
		panic(err)
	}
	return a
}

func diagonal(d ...float64) *CSC {
	idx := make([]int, len(d))
	for i := range idx {
		idx[i] = i
	}
	a, err := NewCSC(len(d), len(d), idx, idx, d)
	if err != nil {
		panic(err)
	}
	return a
}

// checkKKT checks the KKT conditions of a Solved result directly from
// the problem's data, independently of the solver's own measures: bounds
// (exactly), rows and stationarity to tol relative to their terms, the
// multipliers' signs, and each complementarity product to tol relative to
// the objective's size (as the gap, their sum, is).
func checkKKT(t *testing.T, p *Problem, r *Result, tol float64) {
	t.Helper()
	n := len(p.Q)
	m := len(p.L)
	if r.Status != Solved {
		t.Fatalf("status %v after %d iterations (prim %g dual %g gap %g)", r.Status, r.Iterations, r.PrimalResidual, r.DualResidual, r.Gap)
	}
	lb, ub := p.LB, p.UB
	if lb == nil {
		lb = filled(n, -inf)
	}
	if ub == nil {
		ub = filled(n, inf)
	}
	ax := make([]float64, m)
	if p.A != nil {
		p.A.MulVec(ax, r.X)
	}
	px := make([]float64, n)
	symMulVec(p.P, px, r.X)
	aty := make([]float64, n)
	if p.A != nil {
		p.A.MulTransVec(aty, r.Y)
	}
	// each complementarity product is a term of the gap, which is within
	// tol of the objective's size
	compl := tol * math.Max(1, math.Abs(r.Objective))
	for j := range n {
		if r.X[j] < lb[j] || r.X[j] > ub[j] {
			t.Errorf("x[%d] = %g outside [%g, %g]", j, r.X[j], lb[j], ub[j])
		}
		g := px[j] + p.Q[j] + aty[j] + r.Z[j]
		size := 1 + math.Abs(px[j]) + math.Abs(p.Q[j]) + math.Abs(aty[j]) + math.Abs(r.Z[j])
		if math.Abs(g) > tol*size {
			t.Errorf("stationarity %d: %g", j, g)
		}
		if r.Z[j] > 0 && (math.IsInf(ub[j], 1) || (ub[j]-r.X[j])*r.Z[j] > compl) ||
			r.Z[j] < 0 && (math.IsInf(lb[j], -1) || (r.X[j]-lb[j])*-r.Z[j] > compl) {
			t.Errorf("z[%d] = %g with x %g in [%g, %g]", j, r.Z[j], r.X[j], lb[j], ub[j])
		}
	}
	for i := range m {
		size := 1 + math.Abs(ax[i])
		if ax[i] < p.L[i]-tol*size || ax[i] > p.U[i]+tol*size {
			t.Errorf("row %d: %g outside [%g, %g]", i, ax[i], p.L[i], p.U[i])
		}
		if r.Y[i] > 0 && (math.IsInf(p.U[i], 1) || (p.U[i]-ax[i])*r.Y[i] > compl) ||
			r.Y[i] < 0 && (math.IsInf(p.L[i], -1) || (ax[i]-p.L[i])*-r.Y[i] > compl) {
			t.Errorf("y[%d] = %g with Ax %g in [%g, %g]", i, r.Y[i], ax[i], p.L[i], p.U[i])
		}
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

func nearAll(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i], b[i], tol) {
			return false
		}
	}
	return true
}
