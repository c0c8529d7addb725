package solve

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/qrc-lang/qrc/sparseqp"
)

// EpigraphForm is a Problem's functions in epigraph form: a linear program over
// the Problem's variables x (len N) and Aux epigraph variables t, one per
// kink term (a pos, abs, hinge, max or norm of the model), such that
//
//	f_i(x) = min over t of  <C_i, (x, t)> + E_i
//	         subject to  t_Def[r] >= <A_r, (x, t)> + B_r  for every row r,
//	                     t_k >= Floor_k,
//
// for every function i = 0 (the objective) .. M (the constraints). Every
// f_i is then convex and piecewise linear. Invariants, which Check
// verifies: C_i's coefficients on t are nonnegative and row r's on t are
// nonnegative and only on t_k with k < Def[r], so that the minimum is
// attained by computing the t_k in order (Values); the rows are sorted by
// Def, so that one pass in row order computes them; the t of different
// functions are distinct. Equality constraints' functions are affine
// (no t). A sparse row is its columns Col[Ptr[r]:Ptr[r+1]] (0..N+Aux-1)
// and their values Val; likewise C_i is CCol[CPtr[i]:CPtr[i+1]] and CVal.
//
// Lo and Hi (len N, ±Inf allowed) are the box of X: the oracle solves (7)
// over that box, so it must be the Problem's domain (the planning package
// checks that Project agrees).
type EpigraphForm struct {
	N, M, Aux int
	Floor     []float64
	Ptr       []int
	Col       []int32
	Val       []float64
	B         []float64
	Def       []int32
	CPtr      []int
	CCol      []int32
	CVal      []float64
	E         []float64
	Lo, Hi    []float64

	// Smooth, when not nil, holds the nonlinear smooth terms of the rows
	// and functions (the pieces of a max of smooth functions, a smooth
	// rest): row r adds sum_k SCoef[k] s_SOut[k](x) over k in
	// SPtr[r]:SPtr[r+1], function i likewise over FSPtr[i]:FSPtr[i+1].
	// Without it the form is a linear program and every f_i convex; with
	// it f_i is a composition of the convex piecewise-linear outer part
	// with smooth inner functions, weakly convex when they are. nil
	// pointer slices mean no smooth term anywhere.
	Smooth        *EpigraphSmooth
	SPtr, FSPtr   []int
	SOut, FSOut   []int32
	SCoef, FSCoef []float64

	// eqs, set by splitEqualities, are the equalities' function indices
	// (1..M before the split) and tau their bands: function eqs[k] is
	// f - tau[k] and function M+1+k (after them) its negation
	eqs []int
	tau []float64
}

// EpigraphSmooth is the smooth functions s_0..s_{K-1} of x that an
// EpigraphForm's rows and functions add: a compiled program of the
// model's smooth subexpressions, each with the variables it depends on.
type EpigraphSmooth struct {
	K int
	// Eval stores s_k(x) in vals (len K); Grad stores sum_k w_k grad
	// s_k in g (len N) at the x of the last successful Eval.
	Eval func(x, vals []float64) error
	Grad func(w, g []float64) error
	// Support[k] lists, in increasing order, the variables s_k depends
	// on (by its form: its gradient is zero off them)
	Support [][]int32
	// Kinked, when not "", says where a kink the form could not lift is
	// left inside one of the s_k (a kink of a nonlinear function, a
	// concave kink), and why: that s_k is smooth only away from it, and
	// the steps treat it as smooth
	Kinked string
}

// Check reports the first broken invariant of g.
func (g *EpigraphForm) Check() error {
	nc := g.N + g.Aux
	R := len(g.B)
	switch {
	case g.N < 0 || g.M < 0 || g.Aux < 0:
		return fmt.Errorf("solve: Epigraph with N = %d, M = %d, Aux = %d", g.N, g.M, g.Aux)
	case len(g.Floor) != g.Aux || len(g.Ptr) != R+1 || len(g.Def) != R || g.Ptr[0] != 0 || g.Ptr[R] != len(g.Col) || len(g.Col) != len(g.Val):
		return errors.New("solve: Epigraph rows are inconsistent")
	case len(g.CPtr) != g.M+2 || len(g.E) != g.M+1 || g.CPtr[0] != 0 || g.CPtr[g.M+1] != len(g.CCol) || len(g.CCol) != len(g.CVal):
		return errors.New("solve: Epigraph functions are inconsistent")
	case len(g.Lo) != g.N || len(g.Hi) != g.N:
		return errors.New("solve: Epigraph box is not of length N")
	}
	if g.Smooth != nil {
		K := g.Smooth.K
		switch {
		case len(g.SPtr) != R+1 || len(g.FSPtr) != g.M+2 || g.SPtr[R] != len(g.SOut) || len(g.SOut) != len(g.SCoef) || g.FSPtr[g.M+1] != len(g.FSOut) || len(g.FSOut) != len(g.FSCoef):
			return errors.New("solve: Epigraph smooth terms are inconsistent")
		case len(g.Smooth.Support) != K || g.Smooth.Eval == nil || g.Smooth.Grad == nil:
			return errors.New("solve: Epigraph smooth program is inconsistent")
		}
		for _, k := range append(append([]int32(nil), g.SOut...), g.FSOut...) {
			if k < 0 || int(k) >= K {
				return fmt.Errorf("solve: Epigraph smooth term %d of %d", k, K)
			}
		}
	} else if g.SPtr != nil || g.FSPtr != nil {
		return errors.New("solve: Epigraph smooth terms without a smooth program")
	}
	last := int32(-1)
	for r := range R {
		d := g.Def[r]
		if d < last || d < 0 || int(d) >= g.Aux {
			return fmt.Errorf("solve: Epigraph row %d defines t_%d out of order", r, d)
		}
		last = d
		for k := g.Ptr[r]; k < g.Ptr[r+1]; k++ {
			c, v := int(g.Col[k]), g.Val[k]
			if c < 0 || c >= nc || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("solve: Epigraph row %d has entry %g at column %d", r, v, c)
			}
			if c >= g.N && (c-g.N >= int(d) || v < 0) {
				return fmt.Errorf("solve: Epigraph row %d of t_%d uses t_%d with coefficient %g", r, d, c-g.N, v)
			}
		}
	}
	for i := 0; i <= g.M; i++ {
		for k := g.CPtr[i]; k < g.CPtr[i+1]; k++ {
			c, v := int(g.CCol[k]), g.CVal[k]
			if c < 0 || c >= nc || math.IsNaN(v) || math.IsInf(v, 0) || (c >= g.N && v < 0) {
				return fmt.Errorf("solve: Epigraph function %d has entry %g at column %d", i, v, c)
			}
		}
	}
	return nil
}

// Values stores f_0..f_M at x in vals, computing the t of the minimum
// into t (len Aux); sv (len Smooth.K, ignored without Smooth) receives the
// smooth terms. An error is the smooth program's.
func (g *EpigraphForm) Values(x, t, sv, vals []float64) error {
	if g.Smooth != nil {
		if err := g.Smooth.Eval(x, sv); err != nil {
			return err
		}
	}
	g.valuesFrom(x, t, sv, vals, nil)
	return nil
}

// valuesFrom is Values with the smooth terms' values sv at x given; rows,
// when not nil (len of the rows), receives each row's value (its t's
// inner variables at their minimum, which come first).
func (g *EpigraphForm) valuesFrom(x, t, sv, vals, rows []float64) {
	copy(t, g.Floor)
	at := func(c int32) float64 {
		if int(c) < g.N {
			return x[c]
		}
		return t[int(c)-g.N]
	}
	for r := range g.B {
		v := g.B[r] + g.rowSmooth(r, sv)
		for k := g.Ptr[r]; k < g.Ptr[r+1]; k++ {
			v += g.Val[k] * at(g.Col[k])
		}
		if d := g.Def[r]; v > t[d] {
			t[d] = v
		}
		if rows != nil {
			rows[r] = v
		}
	}
	for i := 0; i <= g.M; i++ {
		v := g.E[i] + g.fnSmooth(i, sv)
		for k := g.CPtr[i]; k < g.CPtr[i+1]; k++ {
			v += g.CVal[k] * at(g.CCol[k])
		}
		vals[i] = v
	}
}

// rowSmooth is row r's smooth terms at the values sv.
func (g *EpigraphForm) rowSmooth(r int, sv []float64) float64 {
	if g.SPtr == nil {
		return 0
	}
	v := 0.0
	for k := g.SPtr[r]; k < g.SPtr[r+1]; k++ {
		v += g.SCoef[k] * sv[g.SOut[k]]
	}
	return v
}

// fnSmooth is function i's smooth terms at the values sv.
func (g *EpigraphForm) fnSmooth(i int, sv []float64) float64 {
	if g.FSPtr == nil {
		return 0
	}
	v := 0.0
	for k := g.FSPtr[i]; k < g.FSPtr[i+1]; k++ {
		v += g.FSCoef[k] * sv[g.FSOut[k]]
	}
	return v
}

// affine reports whether function i has no epigraph variable.
func (g *EpigraphForm) affine(i int) bool {
	for k := g.CPtr[i]; k < g.CPtr[i+1]; k++ {
		if int(g.CCol[k]) >= g.N {
			return false
		}
	}
	return true
}

// splitEqualities is g for the solver's Problem of split: constraint
// eqs[k] (an affine equality) becomes f - tau[k] <= 0 and constraint
// M+1+k its negation -f - tau[k] <= 0.
func (g *EpigraphForm) splitEqualities(eqs []int, tau []float64) *EpigraphForm {
	h := *g
	h.M = g.M + len(eqs)
	h.E = append([]float64(nil), g.E...)
	h.CPtr = append([]int(nil), g.CPtr...)
	h.CCol = append([]int32(nil), g.CCol...)
	h.CVal = append([]float64(nil), g.CVal...)
	h.eqs, h.tau = eqs, tau
	for k, i := range eqs {
		h.E[i] -= tau[k]
	}
	if g.FSPtr != nil {
		h.FSPtr = append([]int(nil), g.FSPtr...)
	}
	for k, i := range eqs {
		for p := g.CPtr[i]; p < g.CPtr[i+1]; p++ {
			h.CCol = append(h.CCol, g.CCol[p])
			h.CVal = append(h.CVal, -g.CVal[p])
		}
		h.CPtr = append(h.CPtr, len(h.CCol))
		h.E = append(h.E, -g.E[i]-tau[k])
		if h.FSPtr != nil {
			h.FSPtr = append(h.FSPtr, len(h.FSOut)) // an equality has no smooth term
		}
	}
	return &h
}

// EpigraphOracle solves (7) for a Problem whose functions are convex and
// piecewise linear, given their Epigraph form (which must agree with
// Eval), exactly: (7) with no proximal term on the constraints (they are
// convex, as conProx allows for a proven modulus 0) is the sparse
// quadratic program
//
//	minimize   <C_0, (y, t)> + E_0 + RhoHat/2 ||y - x_t||^2
//	subject to the rows of the Epigraph, <C_i, (y, t)> + E_i <= 0, y in the box,
//
// which the interior-point method of package sparseqp solves to 1e-9,
// with the dual objective as the lower bound (epigraph.go).
type EpigraphOracle struct {
	Form *EpigraphForm
}

func (*EpigraphOracle) String() string { return "epigraph" }
func (*EpigraphOracle) Accurate() bool { return true }
func (o *EpigraphOracle) uses(p *Problem) error {
	if o.Form == nil {
		return errors.New("solve: the Epigraph oracle needs the Problem's functions in epigraph form (EpigraphOracle.Form); use Bundle")
	}
	if o.Form.N != p.N || o.Form.M != p.M {
		return fmt.Errorf("solve: the Epigraph oracle's form has %d variables and %d constraints, the Problem %d and %d", o.Form.N, o.Form.M, p.N, p.M)
	}
	return o.Form.Check()
}
func (*EpigraphOracle) takes(k ConstraintKind, _ bool) bool {
	return k == Inequality || k == AffineEquality
}
func (o *EpigraphOracle) start(s *solver) method {
	if o.Form != nil && o.Form.Smooth != nil {
		return newEpigraphSQPMethod(s, o)
	}
	return newEpigraphMethod(s, o)
}

// epigraphMethod is the epigraph oracle's run within one solve: the
// quadratic program's pattern is analysed once (sparseqp.Solver), and each
// subproblem changes only the proximal weight, the centre and RhoHat.
type epigraphMethod struct {
	*solver
	o    *EpigraphOracle
	prob *sparseqp.Problem
	qp   *sparseqp.Solver
	err  error     // from NewSolver, reported by the first solve
	prox []float64 // the constraints' proximal weights: 0
	lam  []float64 // the last multipliers
	// lastStatus is the last program's outcome
	lastStatus sparseqp.Status
	// tight is each inequality's tightening of its row (solve)
	tight []float64
	// lastY and lastCert are the last program's row multipliers and
	// certificate of infeasibility
	lastY    []float64
	lastCert sparseqp.Certificate
}

func newEpigraphMethod(s *solver, o *EpigraphOracle) *epigraphMethod {
	g := o.Form
	m := &epigraphMethod{solver: s, o: o, prox: make([]float64, s.m), lam: make([]float64, s.m)}
	m.prob, m.err = epigraphProgram(g, 1, make([]float64, g.N))
	if m.err == nil {
		m.qp, m.err = sparseqp.NewSolver(m.prob, sparseqp.Settings{Halt: func() bool { return s.halted() != running }})
	}
	return m
}

func (m *epigraphMethod) oracle() Oracle { return m.o }

func (m *epigraphMethod) warmMultipliers() []float64 { return m.lam }

// epigraphProgram is the program of (7) at xt for g with the weight rho:
// variables (y, t), rows first the Epigraph's (A_r (y, t) - t_Def <= -B_r)
// and then the constraints' (C_i (y, t) <= -E_i), an equality's one row
// C_i (y, t) = -E_i exactly (its band's two functions are one row: the
// solution then meets it to rounding, well inside the band).
func epigraphProgram(g *EpigraphForm, rho float64, xt []float64) (*sparseqp.Problem, error) {
	n := g.N + g.Aux
	R := len(g.B)
	m0 := g.M - len(g.eqs) // the functions with a row
	rows := R + m0
	// columns of A, by counting
	cnt := make([]int, n+1)
	for r := range R {
		for k := g.Ptr[r]; k < g.Ptr[r+1]; k++ {
			cnt[g.Col[k]+1]++
		}
		cnt[g.N+int(g.Def[r])+1]++
	}
	for i := 1; i <= m0; i++ {
		for k := g.CPtr[i]; k < g.CPtr[i+1]; k++ {
			cnt[g.CCol[k]+1]++
		}
	}
	for j := range n {
		cnt[j+1] += cnt[j]
	}
	nnz := cnt[n]
	A := &sparseqp.CSC{Rows: rows, Cols: n, ColPtr: append([]int(nil), cnt...), RowIdx: make([]int, nnz), Val: make([]float64, nnz)}
	next := cnt[:n]
	put := func(row, col int, v float64) {
		p := next[col]
		A.RowIdx[p], A.Val[p] = row, v
		next[col]++
	}
	// rows in increasing order within each column: fill row by row
	L, U := make([]float64, rows), make([]float64, rows)
	for r := range R {
		for k := g.Ptr[r]; k < g.Ptr[r+1]; k++ {
			put(r, int(g.Col[k]), g.Val[k])
		}
		put(r, g.N+int(g.Def[r]), -1)
		L[r], U[r] = math.Inf(-1), -g.B[r]
	}
	for i := 1; i <= m0; i++ {
		for k := g.CPtr[i]; k < g.CPtr[i+1]; k++ {
			put(R+i-1, int(g.CCol[k]), g.CVal[k])
		}
		L[R+i-1], U[R+i-1] = math.Inf(-1), -g.E[i]
	}
	for k, i := range g.eqs {
		L[R+i-1] = -(g.E[i] + g.tau[k])
		U[R+i-1] = L[R+i-1]
	}
	if err := sumDuplicates(A); err != nil {
		return nil, err
	}
	q := make([]float64, n)
	for k := g.CPtr[0]; k < g.CPtr[1]; k++ {
		q[g.CCol[k]] += g.CVal[k]
	}
	P := &sparseqp.CSC{Rows: n, Cols: n, ColPtr: make([]int, n+1), RowIdx: make([]int, g.N), Val: make([]float64, g.N)}
	for j := range n {
		P.ColPtr[j+1] = P.ColPtr[j]
		if j < g.N {
			P.RowIdx[j], P.Val[j] = j, rho
			P.ColPtr[j+1]++
		}
	}
	lb, ub := make([]float64, n), make([]float64, n)
	copy(lb, g.Lo)
	copy(ub, g.Hi)
	copy(lb[g.N:], g.Floor)
	for k := g.N; k < n; k++ {
		ub[k] = math.Inf(1)
	}
	p := &sparseqp.Problem{P: P, Q: q, A: A, L: L, U: U, LB: lb, UB: ub}
	setCentre(p, g, rho, xt)
	return p, nil
}

// setCentre sets p's linear cost for (7) at xt with the weight rho:
// C_0 - rho xt on y (the constant rho/2 ||xt||^2 is left out), and P's
// diagonal on y to rho.
func setCentre(p *sparseqp.Problem, g *EpigraphForm, rho float64, xt []float64) {
	clear(p.Q)
	for k := g.CPtr[0]; k < g.CPtr[1]; k++ {
		p.Q[g.CCol[k]] += g.CVal[k]
	}
	for j := range g.N {
		p.Q[j] -= rho * xt[j]
		p.P.Val[j] = rho
	}
}

// sumDuplicates sums the entries of A that share a row within a column
// (a term that names one variable twice) and checks the rows are
// increasing, as sparseqp.CSC requires.
func sumDuplicates(A *sparseqp.CSC) error {
	out := 0
	for j := range A.Cols {
		lo, hi := A.ColPtr[j], A.ColPtr[j+1]
		A.ColPtr[j] = out
		for p := lo; p < hi; p++ {
			if out > A.ColPtr[j] && A.RowIdx[out-1] == A.RowIdx[p] {
				A.Val[out-1] += A.Val[p]
				continue
			}
			if out > A.ColPtr[j] && A.RowIdx[out-1] > A.RowIdx[p] {
				return fmt.Errorf("solve: epigraph program column %d is not sorted", j)
			}
			A.RowIdx[out], A.Val[out] = A.RowIdx[p], A.Val[p]
			out++
		}
	}
	A.ColPtr[A.Cols] = out
	A.RowIdx, A.Val = A.RowIdx[:out], A.Val[:out]
	return nil
}

// epigraphTightenings is how often solve tightens the constraints' rows
// and solves again when the program's solution violates a constraint on
// the Problem's own functions (by rounding: the program meets its rows to
// about 1e-16 of their terms, and Eval rounds otherwise).
const epigraphTightenings = 4

// solve solves (7) at xt: one interior-point solve of the program. Its
// output is in s.out, evaluated on the Problem's own functions, which
// decide feasibility and values; when one of them is violated (by
// rounding), the inequality rows are tightened by twice that and the
// program solved again (epigraphTightenings times at most; the tightening
// is kept for later subproblems). The lower bound is the program's dual
// objective less its dual residual times the size of the solution (the
// dual function at the returned multipliers is within that of it when
// the residual is not zero).
func (m *epigraphMethod) solve(xt []float64, acc accuracy) (res subResult, halt haltReason, err error) {
	res = subResult{F: math.Inf(1), Lower: math.Inf(-1), Lambda: make([]float64, m.m), Prox: m.prox}
	if m.err != nil {
		return res, running, m.err
	}
	g := m.o.Form
	m0 := g.M - len(g.eqs)
	if m.tight == nil {
		m.tight = make([]float64, m0)
	}
	R := len(g.B)
	for round := 0; ; round++ {
		if halt = m.halted(); halt != running {
			return res, halt, nil
		}
		setCentre(m.prob, g, m.rhoHat, xt)
		for i := range m0 {
			if !math.IsInf(m.prob.L[R+i], -1) {
				continue // an equality's row
			}
			m.prob.U[R+i] = -g.E[i+1] - m.tight[i]
		}
		r, err := m.qp.Solve(m.prob)
		if err != nil {
			return res, running, fmt.Errorf("solve: the epigraph program: %w", err)
		}
		res.Evals++
		m.stats.Inner += r.Iterations
		m.lastStatus = r.Status
		m.lastY = r.Y
		m.lastCert = r.Certificate
		if r.X == nil {
			return res, halt, nil
		}
		copy(m.out, r.X[:g.N])
		m.project(m.out)
		if err := m.eval(m.out); err != nil {
			return res, halt, err
		}
		res.Feasible = true
		for i := 1; i <= m.m; i++ {
			if m.vals[i] > 0 {
				res.Feasible = false
			}
		}
		if r.Status == sparseqp.Solved {
			xx := 0.0
			for j := range g.N {
				xx += xt[j] * xt[j]
			}
			size := 0.0
			for _, v := range r.X {
				size += math.Abs(v)
			}
			res.Lower = r.DualObjective + g.E[0] + m.rhoHat/2*xx - r.DualResidual*size
			for i := range m0 {
				res.Lambda[i] = math.Max(0, r.Y[R+i])
			}
			for k, i := range g.eqs {
				res.Lambda[m0+k] = math.Max(0, -r.Y[R+i-1])
			}
			copy(m.lam, res.Lambda)
		}
		if res.Feasible || r.Status != sparseqp.Solved || round == epigraphTightenings {
			break
		}
		for i := range m0 {
			if v := m.vals[i+1]; v > 0 && math.IsInf(m.prob.L[R+i], -1) {
				m.tight[i] = math.Max(2*v, 10*m.tight[i])
			}
		}
	}
	q := 0.0
	for j := range m.out {
		d := m.out[j] - xt[j]
		q += d * d
	}
	copy(m.outF, m.vals)
	res.F = m.vals[0] + m.rhoHat/2*q
	return res, halt, nil
}

// epigraphPhase1Rho is the share of RhoHat that phase 1's program weighs
// the distance from the start with: any feasible point will do there, and
// with a small weight it is nearly a minimiser of the objective (the one
// nearest the start), at which (7) then has its own solution.
const epigraphPhase1Rho = 1e-8

// findFeasible is phase 1 for the epigraph oracle: (7) at cur, whose
// feasible set is the problem's own, is one program (with the proximal
// weight epigraphPhase1Rho RhoHat), and its solution is feasible (or the
// program has none: Infeasible, the interior-point method's Farkas
// certificate proving it to its tolerance).
func (m *epigraphMethod) findFeasible(cur *Point) (Status, bool, bool, error) {
	rhoHat := m.rhoHat
	m.rhoHat *= epigraphPhase1Rho
	res, halt, err := m.solve(cur.X, accuracy{})
	m.rhoHat = rhoHat
	switch {
	case err != nil:
		return NumericalError, true, true, err
	case halt != running:
		return haltStatus(halt), true, true, nil
	}
	m.stats.Phase1Outer++
	if m.lastStatus == sparseqp.PrimalInfeasible {
		m.infeasibleProof = m.farkas()
		return Infeasible, true, true, nil
	}
	if math.IsInf(res.F, 1) {
		return NumericalError, true, true, fmt.Errorf("solve: the epigraph program of phase 1 ended %v", m.lastStatus)
	}
	next := pointAt(m.out, m.vals, cur.T)
	*cur = next
	m.track(cur)
	if m.phaseG(cur.F) > m.target {
		return NumericalError, true, true, fmt.Errorf("solve: the epigraph program's solution has infeasibility %g (the program ended %v)", cur.Infeasibility, m.lastStatus)
	}
	return 0, false, true, nil
}

// farkas says why the last program, found PrimalInfeasible, proves the
// problem infeasible, naming the constraints its certificate weighs (the
// ones in conflict, with the variables' box).
func (m *epigraphMethod) farkas() string {
	g := m.o.Form
	R := len(g.B)
	m0 := g.M - len(g.eqs)
	big := 0.0
	for i := range m0 {
		if R+i < len(m.lastY) {
			big = math.Max(big, math.Abs(m.lastY[R+i]))
		}
	}
	var names []string
	for i := range m0 {
		if R+i < len(m.lastY) && math.Abs(m.lastY[R+i]) > 1e-6*big {
			name := m.p.FuncName(i + 1)
			if i < len(m.p.Names) && m.p.Names[i] != "" {
				name = m.p.Names[i]
			}
			names = append(names, name)
		}
	}
	why := fmt.Sprintf("the constraints are a linear program with no feasible point in X: the interior-point method found a certificate of infeasibility (a nonnegative combination of the rows whose bound is violated by %.3g everywhere within its residual %.3g)", -m.lastCert.Support, m.lastCert.Residual)
	if len(names) > 0 {
		why += "; it combines " + strings.Join(names, ", ")
		if len(names) > 8 {
			why = why[:strings.Index(why, "; it combines ")] + fmt.Sprintf("; it combines %d constraints: %s, ...", len(names), strings.Join(names[:8], ", "))
		}
	}
	return why
}
