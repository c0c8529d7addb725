package sparseqp

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// TestInteriorPointAlone runs the interior-point method without the polish
// on random programs and the lifted LPs: every one Solved, the objective
// within the gap's tolerance of the dense qp's, the KKT conditions to 1e-7
// (the iterate, unlike the polished point, is off by about the tolerance).
func TestInteriorPointAlone(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	set := Settings{NoPolish: true}
	for trial := range 60 {
		n := 2 + rng.IntN(14)
		m := rng.IntN(2 * n)
		kind := trial % 3
		p := randomProblem(rng, n, m, kind == 0, kind == 2)
		r, err := Solve(p, set)
		if err != nil {
			t.Fatal(err)
		}
		if r.Polished {
			t.Fatal("polished with NoPolish")
		}
		checkKKT(t, p, r, 1e-7)
		ref := denseSolve(t, p, denseSettings)
		if math.Abs(r.Objective-ref.obj) > 2e-9*(1+math.Abs(ref.obj)) {
			t.Errorf("trial %d: objective %.12g, dense %.12g", trial, r.Objective, ref.obj)
		}
	}
	for _, p := range []*Problem{assignment(6), newsvendor([]float64{3, 1, 4, 1, 5, 9, 2}, 1, 1, 3), l1Control(200, 1, 5, 2, 0.5)} {
		r, err := Solve(p, set)
		if err != nil {
			t.Fatal(err)
		}
		checkKKT(t, p, r, 1e-7)
	}
}

// assignment is the LP of the assignment problem of order n with cost
// (i+j) mod n: doubly stochastic x >= 0, its 2n equality rows of rank
// 2n−1 (dependent), every permutation matrix a vertex; optimum 0.
func assignment(n int) *Problem {
	var ri, ci []int
	var v []float64
	q := make([]float64, n*n)
	for i := range n {
		for j := range n {
			q[i*n+j] = float64((i + j) % n)
			ri, ci, v = append(ri, i, n+j), append(ci, i*n+j, i*n+j), append(v, 1, 1)
		}
	}
	A, _ := NewCSC(2*n, n*n, ri, ci, v)
	return &Problem{Q: q, A: A, L: filled(2*n, 1), U: filled(2*n, 1), LB: make([]float64, n*n)}
}

// TestLargeInfeasible: steering x0 = 5 to x_T = 0 with |u| <= 0.001 in
// T = 1000 steps is impossible (at most 1 of travel); and a newsvendor
// whose unit cost is below −h gains without bound by buying more.
func TestLargeInfeasible(t *testing.T) {
	T := 1000
	p := l1Control(T, 1, 5, 0.001, 0.5)
	p.LB[T-1], p.UB[T-1] = 0, 0 // x_T = 0
	r, err := Solve(p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != PrimalInfeasible {
		t.Fatalf("control: status %v after %d iterations", r.Status, r.Iterations)
	}
	checkCertificate(t, p, r)
	t.Logf("control: %d iterations, %+v", r.Iterations, r.Certificate)

	rng := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, 1000)
	for i := range d {
		d[i] = 100 + 10*rng.NormFloat64()
	}
	p = newsvendor(d, -2, 1, 3)
	r, err = Solve(p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != DualInfeasible {
		t.Fatalf("newsvendor: status %v after %d iterations", r.Status, r.Iterations)
	}
	checkCertificate(t, p, r)
	t.Logf("newsvendor: %d iterations, %+v", r.Iterations, r.Certificate)
}

func TestIterationLimit(t *testing.T) {
	p := l1Control(100, 1, 5, 2, 0.5)
	r, err := Solve(p, Settings{MaxIter: 2, NoPolish: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != IterationLimit || r.Iterations != 2 {
		t.Errorf("status %v after %d iterations, want the iteration limit after 2", r.Status, r.Iterations)
	}
	if len(r.X) != len(p.Q) || len(r.Y) != len(p.L) {
		t.Errorf("result of %d, %d entries", len(r.X), len(r.Y))
	}
}

func TestSolverPattern(t *testing.T) {
	p := &Problem{P: diagonal(1, 1), Q: []float64{-3, -4}, A: dense([][]float64{{1, 1}}), L: []float64{-inf}, U: []float64{1}}
	sv, err := NewSolver(p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	other := []*Problem{
		{P: diagonal(1, 1), Q: []float64{-3, -4}, A: dense([][]float64{{1, 0}}), L: []float64{-inf}, U: []float64{1}},
		{P: dense([][]float64{{1, 0.5}, {0, 1}}), Q: []float64{-3, -4}, A: dense([][]float64{{1, 1}}), L: []float64{-inf}, U: []float64{1}},
		{Q: []float64{-3, -4}, A: dense([][]float64{{1, 1}}), L: []float64{-inf}, U: []float64{1}},
		{P: diagonal(1, 1), Q: []float64{-3, -4}},
		{P: diagonal(1, 1, 1), Q: []float64{-3, -4, 0}},
	}
	for i, q := range other {
		if _, err := sv.Solve(q); err == nil {
			t.Errorf("case %d: a program of another pattern solved", i)
		}
	}
	// the same pattern with other values: the projection of (3, 4)·2 onto
	// x1 + x2 <= 2 is (2, 4) − 2·(1, 1)
	p2 := &Problem{P: diagonal(1, 1), Q: []float64{-4, -6}, A: dense([][]float64{{1, 1}}), L: []float64{-inf}, U: []float64{2}}
	r, err := sv.Solve(p2)
	if err != nil {
		t.Fatal(err)
	}
	checkKKT(t, p2, r, 1e-9)
	if !nearAll(r.X, []float64{0, 2}, 1e-9) {
		t.Errorf("x = %v, want (0, 2)", r.X)
	}
}

// problemFromBytes makes a small program of any data from b: up to 5
// variables and 5 rows, values drawn from a table that includes 0, huge,
// tiny and infinite numbers, P = MᵀM (semidefinite) or given directly (any
// symmetric, possibly indefinite). Nil when b is too short.
func problemFromBytes(b []byte) *Problem {
	if len(b) < 3 {
		return nil
	}
	table := []float64{0, 1, -1, 2, -0.5, 1e-9, -1e9, 1e12, 3, 7, -7, 0.25, math.Inf(1), math.Inf(-1), math.NaN(), 1e-300}
	pos := 3
	next := func() float64 {
		if pos >= len(b) {
			return 0
		}
		v := b[pos]
		pos++
		if v&0x80 != 0 && pos+1 < len(b) {
			x := float64(int16(binary.LittleEndian.Uint16(b[pos:]))) / 64
			pos += 2
			return x
		}
		return table[int(v)%len(table)]
	}
	n := 1 + int(b[0])%5
	m := int(b[1]) % 6
	flags := b[2]
	p := &Problem{Q: make([]float64, n)}
	for j := range n {
		p.Q[j] = next()
	}
	var ri, ci []int
	var v []float64
	if flags&1 != 0 {
		// P = MᵀM from a 2×n M
		M := [2][]float64{make([]float64, n), make([]float64, n)}
		for r := range 2 {
			for j := range n {
				M[r][j] = next()
			}
		}
		for i := range n {
			for j := i; j < n; j++ {
				s := M[0][i]*M[0][j] + M[1][i]*M[1][j]
				ri, ci, v = append(ri, i), append(ci, j), append(v, s)
			}
		}
	} else if flags&2 != 0 {
		for i := range n {
			for j := i; j < n; j++ {
				if x := next(); x != 0 {
					ri, ci, v = append(ri, i), append(ci, j), append(v, x)
				}
			}
		}
	}
	if len(ri) > 0 {
		P, err := NewCSC(n, n, ri, ci, v)
		if err != nil {
			p.P = &CSC{Rows: n, Cols: n, ColPtr: make([]int, n+1)}
			p.P.ColPtr[n] = 1 // malformed on purpose: Validate must say so
		} else {
			p.P = P
		}
	}
	if m > 0 {
		ri, ci, v = nil, nil, nil
		for i := range m {
			for j := range n {
				if x := next(); x != 0 {
					ri, ci, v = append(ri, i), append(ci, j), append(v, x)
				}
			}
		}
		p.A, _ = NewCSC(m, n, ri, ci, v)
		if p.A == nil {
			p.A = &CSC{Rows: m, Cols: n, ColPtr: make([]int, n+1)}
		}
		p.L, p.U = make([]float64, m), make([]float64, m)
		for i := range m {
			p.L[i], p.U[i] = next(), next()
			if flags&4 != 0 && p.L[i] > p.U[i] {
				p.L[i], p.U[i] = p.U[i], p.L[i]
			}
		}
	}
	if flags&8 != 0 {
		p.LB, p.UB = make([]float64, n), make([]float64, n)
		for j := range n {
			p.LB[j], p.UB[j] = next(), next()
			if flags&16 != 0 && p.LB[j] > p.UB[j] {
				p.LB[j], p.UB[j] = p.UB[j], p.LB[j]
			}
		}
	}
	return p
}

// FuzzSolve: on any program, by either method, Solve returns an error or
// a result of a known status within the iteration budget, never panics; a Solved result is
// inside its bounds with the measures it reports, and a certificate is one.
func FuzzSolve(f *testing.F) {
	f.Add([]byte{2, 1, 1 | 4 | 8 | 16, 1, 2, 3, 4, 5, 6, 1, 1, 2, 3, 0, 1, 2, 9})
	f.Add([]byte{3, 3, 2 | 4 | 8, 1, 2, 3, 1, 0, 0, 2, 0, 3, 1, 1, 1, 2, 2, 2, 0, 1, 2, 12, 13, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{0, 2, 4, 2, 1, 1, 1, 1, 3, 3})
	f.Add([]byte{4, 5, 1 | 8, 0x81, 0, 1, 7, 7, 7, 14, 12, 13, 2, 2, 2, 2, 2, 2, 2, 2, 2})
	f.Add([]byte{2, 1, 1 | 4 | 8 | 16 | 32, 1, 2, 3, 4, 5, 6, 1, 1, 2, 3, 0, 1, 2, 9})
	f.Add([]byte{3, 3, 2 | 4 | 8 | 32, 1, 2, 3, 1, 0, 0, 2, 0, 3, 1, 1, 1, 2, 2, 2, 0, 1, 2, 12, 13, 1, 2, 3, 4, 5, 6})
	f.Fuzz(func(t *testing.T, b []byte) {
		p := problemFromBytes(b)
		if p == nil {
			return
		}
		set := Settings{MaxIter: 60, MaxADMMIter: 300}
		if b[2]&32 != 0 {
			set.Method = ADMM
		}
		r, err := Solve(p, set)
		if err != nil {
			return
		}
		if r.Status < Solved || r.Status > NumericalError {
			t.Fatalf("status %v", r.Status)
		}
		if budget := map[Method]int{InteriorPoint: set.MaxIter, ADMM: set.MaxADMMIter}[set.Method]; r.Iterations > budget {
			t.Fatalf("%d iterations for a budget of %d", r.Iterations, budget)
		}
		n := len(p.Q)
		if len(r.X) != n || len(r.Z) != n || len(r.Y) != len(p.L) {
			t.Fatalf("result sizes %d, %d, %d", len(r.X), len(r.Y), len(r.Z))
		}
		switch r.Status {
		case Solved:
			for j, x := range r.X {
				if p.LB != nil && x < p.LB[j] || p.UB != nil && x > p.UB[j] || math.IsNaN(x) {
					t.Fatalf("x[%d] = %g outside its bounds", j, x)
				}
			}
			ax := make([]float64, len(p.L))
			if p.A != nil {
				p.A.MulVec(ax, r.X)
			}
			viol := 0.0
			for i := range ax {
				viol = math.Max(viol, math.Max(p.L[i]-ax[i], ax[i]-p.U[i]))
			}
			if viol > r.PrimalResidual*(1+1e-12)+1e-300 {
				t.Fatalf("row violation %g, reported %g", viol, r.PrimalResidual)
			}
		case PrimalInfeasible, DualInfeasible:
			checkCertificate(t, p, r)
		}
	})
}

// TestEmptyRowsAndColumns: a row with no entries (Ax = 0 there) and a
// variable in no row and without curvature.
func TestEmptyRowsAndColumns(t *testing.T) {
	emptyRow := func(l, u float64) *Problem {
		A, _ := NewCSC(2, 2, []int{0, 0}, []int{0, 1}, []float64{1, 1})
		return &Problem{P: diagonal(1, 1), Q: []float64{-1, -1}, A: A, L: []float64{-inf, l}, U: []float64{1, u}}
	}
	// feasible: 0 in [−1, 2]; the projection of (1, 1) onto x1 + x2 <= 1
	p := emptyRow(-1, 2)
	r, err := Solve(p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	checkKKT(t, p, r, 1e-9)
	if !nearAll(r.X, []float64{0.5, 0.5}, 1e-9) || r.Y[1] != 0 {
		t.Errorf("x = %v, y = %v", r.X, r.Y)
	}
	// infeasible: 0 in [1, 2] is not
	p = emptyRow(1, 2)
	r, err = Solve(p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != PrimalInfeasible {
		t.Fatalf("status %v", r.Status)
	}
	checkCertificate(t, p, r)
	// a variable in no row: x3 = its lower bound 2 (q3 = 1 > 0), x4 free
	// with q4 = 0 (any value; 0 from the start)
	A, _ := NewCSC(1, 4, []int{0, 0}, []int{0, 1}, []float64{1, 1})
	p = &Problem{P: diagonal(1, 1, 0, 0), Q: []float64{-1, -1, 1, 0}, A: A, L: []float64{-inf}, U: []float64{1},
		LB: []float64{-inf, -inf, 2, -inf}, UB: []float64{inf, inf, inf, inf}}
	r, err = Solve(p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	checkKKT(t, p, r, 1e-9)
	if !nearAll(r.X[:3], []float64{0.5, 0.5, 2}, 1e-9) {
		t.Errorf("x = %v", r.X)
	}
	// with q4 = −1 and x4 free the program is unbounded
	p.Q[3] = -1
	r, err = Solve(p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != DualInfeasible {
		t.Fatalf("status %v", r.Status)
	}
	checkCertificate(t, p, r)
}

// TestSolverReuseKinds solves programs of one pattern whose rows change
// kind (inequality, equality, free, ranged) and whose values change,
// through one Solver: each result is the fresh Solver's, bit for bit (the
// Solver carries nothing from one interior-point solve to the next but
// its analysis).
func TestSolverReuseKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	base := randomProblem(rng, 8, 6, true, false)
	sv, err := NewSolver(base, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	solved := 0
	for round := range 8 {
		p := *base
		p.L = append([]float64(nil), base.L...)
		p.U = append([]float64(nil), base.U...)
		p.Q = append([]float64(nil), base.Q...)
		i := round % len(p.L)
		switch round % 4 {
		case 0:
			p.L[i], p.U[i] = math.Inf(-1), math.Inf(1)
		case 1:
			p.U[i] = p.L[i] + 0.5
			if math.IsInf(p.L[i], -1) {
				p.L[i] = p.U[i] - 1
			}
		case 2:
			mid := 0.0
			if !math.IsInf(p.L[i], -1) {
				mid = p.L[i]
			}
			p.L[i], p.U[i] = mid, mid
		case 3:
			p.L[i] = math.Inf(-1)
		}
		for j := range p.Q {
			p.Q[j] += rng.NormFloat64()
		}
		A := *base.A
		A.Val = append([]float64(nil), base.A.Val...)
		for k := range A.Val {
			A.Val[k] *= 1 + 0.1*rng.NormFloat64()
		}
		p.A = &A
		r, err := sv.Solve(&p)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := Solve(&p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != fresh.Status || r.Iterations != fresh.Iterations || maxDiff(r.X, fresh.X) != 0 || maxDiff(r.Y, fresh.Y) != 0 {
			t.Errorf("round %d: reused %v (%d iterations), fresh %v (%d); x differs by %g", round, r.Status, r.Iterations, fresh.Status, fresh.Iterations, maxDiff(r.X, fresh.X))
		}
		if r.Status == Solved {
			checkKKT(t, &p, r, 1e-8)
			solved++
		}
	}
	if solved < 4 {
		t.Errorf("only %d of 8 rounds solved: the test exercises too little", solved)
	}
	t.Logf("%d of 8 solved", solved)
}
