package sparseqp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/qrc-lang/qrc/qp"
)

type denseRef struct {
	x, y, z []float64
	obj     float64
}

// denseSolve solves p by the dense qp package (an independent
// implementation: Mehrotra on the normal equations, dense LU, then the
// exact solution on its active set), mapping its multipliers to this
// package's sign convention.
func denseSolve(t *testing.T, p *Problem, set qp.Settings) denseRef {
	t.Helper()
	n, m := len(p.Q), len(p.L)
	H := make([][]float64, n)
	for i := range H {
		H[i] = make([]float64, n)
	}
	if p.P != nil {
		for j := range n {
			for k := p.P.ColPtr[j]; k < p.P.ColPtr[j+1]; k++ {
				i := p.P.RowIdx[k]
				if i <= j {
					H[i][j] = p.P.Val[k]
					H[j][i] = p.P.Val[k]
				}
			}
		}
	}
	row := func(i int) []float64 {
		r := make([]float64, n)
		for j := range n {
			r[j] = p.A.At(i, j)
		}
		return r
	}
	neg := func(r []float64) []float64 {
		s := make([]float64, len(r))
		for i, v := range r {
			s[i] = -v
		}
		return s
	}
	unit := func(j int, s float64) []float64 {
		r := make([]float64, n)
		r[j] = s
		return r
	}
	q := &qp.Problem{H: H, C: p.Q}
	type ref struct {
		eq   bool
		idx  int
		sign float64
		row  bool
	}
	var refs []ref
	var eqIdx []int
	for i := range m {
		switch {
		case p.L[i] == p.U[i]:
			eqIdx = append(eqIdx, i)
			q.A = append(q.A, row(i))
			q.B = append(q.B, p.L[i])
		default:
			if !math.IsInf(p.U[i], 1) {
				q.G, q.Hv = append(q.G, row(i)), append(q.Hv, p.U[i])
				refs = append(refs, ref{idx: i, sign: 1, row: true})
			}
			if !math.IsInf(p.L[i], -1) {
				q.G, q.Hv = append(q.G, neg(row(i))), append(q.Hv, -p.L[i])
				refs = append(refs, ref{idx: i, sign: -1, row: true})
			}
		}
	}
	for j := range n {
		if p.UB != nil && !math.IsInf(p.UB[j], 1) {
			q.G, q.Hv = append(q.G, unit(j, 1)), append(q.Hv, p.UB[j])
			refs = append(refs, ref{idx: j, sign: 1})
		}
		if p.LB != nil && !math.IsInf(p.LB[j], -1) {
			q.G, q.Hv = append(q.G, unit(j, -1)), append(q.Hv, -p.LB[j])
			refs = append(refs, ref{idx: j, sign: -1})
		}
	}
	sol, err := qp.Solve(q, set)
	if err != nil {
		t.Fatalf("dense qp: %v", err)
	}
	r := denseRef{x: sol.X, y: make([]float64, m), z: make([]float64, n)}
	for k, i := range eqIdx {
		r.y[i] = sol.Y[k]
	}
	for k, rf := range refs {
		if rf.row {
			r.y[rf.idx] += rf.sign * sol.Z[k]
		} else {
			r.z[rf.idx] += rf.sign * sol.Z[k]
		}
	}
	px := make([]float64, n)
	symMulVec(p.P, px, sol.X)
	for j := range n {
		r.obj += 0.5*sol.X[j]*px[j] + p.Q[j]*sol.X[j]
	}
	return r
}

// randomProblem is a feasible program (x0 meets every bound) with rows of
// every kind and density about 0.3; strictly convex when definite, else
// (P = nil or semidefinite) bounded by a box on every variable.
func randomProblem(rng *rand.Rand, n, m int, definite bool, lp bool) *Problem {
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = rng.NormFloat64()
	}
	p := &Problem{Q: make([]float64, n)}
	for j := range p.Q {
		p.Q[j] = rng.NormFloat64()
	}
	if !lp {
		// P = MᵀM (+ 0.1 I when definite), M sparse of k rows
		k := 1 + rng.IntN(n)
		M := make([][]float64, k)
		for r := range M {
			M[r] = make([]float64, n)
			for j := range n {
				if rng.Float64() < 0.3 {
					M[r][j] = rng.NormFloat64()
				}
			}
		}
		var ri, ci []int
		var v []float64
		for i := range n {
			for j := i; j < n; j++ {
				s := 0.0
				for r := range k {
					s += M[r][i] * M[r][j]
				}
				if i == j && definite {
					s += 0.1
				}
				if s != 0 {
					ri, ci, v = append(ri, i), append(ci, j), append(v, s)
				}
			}
		}
		p.P, _ = NewCSC(n, n, ri, ci, v)
	}
	var ri, ci []int
	var v []float64
	for i := range m {
		for j := range n {
			if rng.Float64() < 0.3 {
				ri, ci, v = append(ri, i), append(ci, j), append(v, rng.NormFloat64())
			}
		}
	}
	if m > 0 {
		p.A, _ = NewCSC(m, n, ri, ci, v)
	}
	ax := make([]float64, m)
	if p.A != nil {
		p.A.MulVec(ax, x0)
	}
	p.L, p.U = make([]float64, m), make([]float64, m)
	for i := range m {
		lo, hi := ax[i]-rng.Float64(), ax[i]+rng.Float64()
		switch rng.IntN(5) {
		case 0:
			p.L[i], p.U[i] = ax[i], ax[i]
		case 1:
			p.L[i], p.U[i] = lo, math.Inf(1)
		case 2:
			p.L[i], p.U[i] = math.Inf(-1), hi
		case 3:
			p.L[i], p.U[i] = lo, hi
		case 4:
			p.L[i], p.U[i] = math.Inf(-1), math.Inf(1)
		}
	}
	p.LB, p.UB = make([]float64, n), make([]float64, n)
	for j := range n {
		p.LB[j], p.UB[j] = x0[j]-2*rng.Float64(), x0[j]+2*rng.Float64()
		if definite {
			switch rng.IntN(4) {
			case 0:
				p.LB[j] = math.Inf(-1)
			case 1:
				p.UB[j] = math.Inf(1)
			case 2:
				p.LB[j], p.UB[j] = math.Inf(-1), math.Inf(1)
			}
		}
	}
	// fix a variable now and then
	if rng.IntN(4) == 0 {
		j := rng.IntN(n)
		p.LB[j], p.UB[j] = x0[j], x0[j]
	}
	return p
}

// TestRandomAgainstDense compares with the dense qp package on random
// feasible programs: strictly convex ones (x and the objective to 1e-8),
// and semidefinite and linear ones on boxes (the objective to 1e-8; x
// need not be unique); the KKT conditions, multipliers included (which
// need not be unique), are checked from the data for all.
func TestRandomAgainstDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	worst := 0
	for trial := range 120 {
		n := 2 + rng.IntN(14)
		m := rng.IntN(2 * n)
		kind := trial % 3
		p := randomProblem(rng, n, m, kind == 0, kind == 2)
		r, err := Solve(p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		failed := t.Failed()
		checkKKT(t, p, r, 1e-8)
		if !failed && t.Failed() {
			t.Fatalf("trial %d (n %d, m %d, kind %d)", trial, n, m, kind)
		}
		ref := denseSolve(t, p, denseSettings)
		if !near(r.Objective, ref.obj, 1e-8) {
			t.Errorf("trial %d: objective %.12g, dense %.12g", trial, r.Objective, ref.obj)
		}
		if kind == 0 {
			if !nearAll(r.X, ref.x, 1e-8) {
				t.Errorf("trial %d: x differs by %g", trial, maxDiff(r.X, ref.x))
			}
		}
		worst = max(worst, r.Iterations)
	}
	if worst > 40 {
		t.Errorf("up to %d iterations", worst)
	}
	t.Logf("at most %d iterations", worst)
}

// denseSettings are the dense qp's settings for the references; it is
// told to stop at 1e-12 relative residuals (its purification then gives
// the active set's exact solution).
var denseSettings = qp.Settings{Tol: 1e-12, MaxIter: 300}
