package solve

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc/sparseqp"
)

// The epigraph oracle on a form with smooth terms (EpigraphForm.Smooth):
// (7) lifted over the epigraph variables is a smooth program, solved by
// sequential quadratic programming. At the iterate y with multipliers
// (lambda for the rows, mu for the constraints) each step solves the
// sparse program
//
//	minimise   <C_0, (y + d, t)> + q_0'd + RhoHat/2 ||y + d - x_t||^2 + 1/2 d'Hd + nu sum_i e_i
//	subject to the rows and constraints linearised at y (an elastic e_i >= 0 on each
//	           inequality), y + d in the box, t >= Floor,
//
// with H the Hessian of the Lagrangian's smooth terms (by differences of
// its gradient along a coloring of the columns, which the terms' supports
// make sparse), made positive semidefinite, and takes the step d with a
// backtracking line search on the exact penalty of (7) on the Problem's
// own functions. The lower bound at y is the Lagrangian's (with the
// multipliers of the program, made exactly stationary in t): its smooth
// part is (RhoHat - Rho + sum_i mu_i (RhoHat_i - Rho))-strongly convex
// when each function is Rho-weakly convex, the assumption the smooth
// oracle makes, checked by the curvature along the steps.

// sqpMaxSteps bounds the SQP steps of one subproblem.
const sqpMaxSteps = 200

// epiSQP is the SQP run's state, built once per solve.
type epiSQP struct {
	g           *EpigraphForm
	K           int
	R, m0       int
	colorsJ     [][]int32 // the smooth functions in groups with disjoint supports
	colorsH     [][]int32 // the columns in groups that no Hessian row sees twice
	nbr         [][]int32 // per column, the columns its Hessian row touches (sorted)
	dense       bool      // convexify by eigenvalues (small N) rather than by diagonal dominance
	owner       []int32   // the function each epigraph variable belongs to
	lam, mu     []float64 // row and constraint multipliers (warm)
	prox, proxM []float64 // the constraints' proximal weights and strong convexity (conProx)
	nu          float64

	// the program's layout: variables (d [N], t [Aux], e [m0]); entries
	// of A and P by slot, mapped to their CSC positions
	prob       *sparseqp.Problem
	qp         *sparseqp.Solver
	aPos, pPos []int
	aVal, pVal []float64
	aSlot      [][]int   // per row, the slots of its entries
	aCols      [][]int32 // per row, the column of each slot
	hPos       [][]int   // per column j, the position in P of (nbr[j][q], j) (upper triangle)
	eqK        []int     // per function 1..m0, its index in g.eqs, or -1
	// work
	sv, jac, grad0, gp, w, wk, yp, hval []float64
	tv, rowv, fv, inflow, gr            []float64 // bound's
	jOff                                []int     // offset of each smooth function's gradient entries in jac
}

// newEpiSQP analyses the form's structure: colorings, the Hessian's
// pattern and the program's. An error says the form is too dense for it.
func newEpiSQP(s *solver, g *EpigraphForm) (*epiSQP, error) {
	sm := g.Smooth
	e := &epiSQP{g: g, K: sm.K, R: len(g.B), m0: g.M - len(g.eqs)}
	n := g.N
	// smooth functions by the variables they use
	byVar := make([][]int32, n)
	for k, sup := range sm.Support {
		for _, j := range sup {
			byVar[j] = append(byVar[j], int32(k))
		}
	}
	// the Hessian's pattern: the union of the supports' cliques
	work := 0
	e.nbr = make([][]int32, n)
	mark := make([]int32, n)
	for j := range mark {
		mark[j] = -1
	}
	for j := range n {
		for _, k := range byVar[j] {
			for _, l := range sm.Support[k] {
				if mark[l] != int32(j) {
					mark[l] = int32(j)
					e.nbr[j] = append(e.nbr[j], l)
				}
			}
		}
		slices.Sort(e.nbr[j])
		work += len(e.nbr[j])
		if work > maxHessianEntries {
			return nil, fmt.Errorf("solve: the smooth terms' Hessian would have more than %d entries", maxHessianEntries)
		}
	}
	// distance-2 coloring of the columns, greedily
	color := make([]int32, n)
	for j := range color {
		color[j] = -1
	}
	used := map[int32]bool{}
	for j := range n {
		clear(used)
		for _, i := range e.nbr[j] {
			for _, l := range e.nbr[i] {
				if color[l] >= 0 {
					used[color[l]] = true
				}
			}
		}
		c := int32(0)
		for used[c] {
			c++
		}
		color[j] = c
		for int(c) >= len(e.colorsH) {
			e.colorsH = append(e.colorsH, nil)
		}
		e.colorsH[c] = append(e.colorsH[c], int32(j))
	}
	// coloring of the smooth functions: disjoint supports share a pass
	varColors := make([][]int32, n)
	for k, sup := range sm.Support {
		clear(used)
		for _, j := range sup {
			for _, c := range varColors[j] {
				used[c] = true
			}
		}
		c := int32(0)
		for used[c] {
			c++
		}
		for _, j := range sup {
			varColors[j] = append(varColors[j], c)
		}
		for int(c) >= len(e.colorsJ) {
			e.colorsJ = append(e.colorsJ, nil)
		}
		e.colorsJ[c] = append(e.colorsJ[c], int32(k))
	}
	e.jOff = make([]int, sm.K+1)
	for k, sup := range sm.Support {
		e.jOff[k+1] = e.jOff[k] + len(sup)
	}
	e.jac = make([]float64, e.jOff[sm.K])
	e.sv = make([]float64, sm.K)
	e.w, e.wk = make([]float64, sm.K), make([]float64, sm.K)
	e.grad0, e.gp, e.yp = make([]float64, n), make([]float64, n), make([]float64, n)
	e.tv, e.rowv, e.fv = make([]float64, g.Aux), make([]float64, e.R), make([]float64, g.M+1)
	e.inflow, e.gr = make([]float64, g.Aux), make([]float64, n)
	e.dense = n <= sqpDenseN
	// each epigraph variable's function: rows are in the order of
	// their variables, outer ones last
	e.owner = make([]int32, g.Aux)
	for i := 0; i <= g.M; i++ {
		for p := g.CPtr[i]; p < g.CPtr[i+1]; p++ {
			if c := int(g.CCol[p]); c >= n {
				e.owner[c-n] = int32(i)
			}
		}
	}
	for r := e.R - 1; r >= 0; r-- {
		for p := g.Ptr[r]; p < g.Ptr[r+1]; p++ {
			if c := int(g.Col[p]); c >= n {
				e.owner[c-n] = e.owner[g.Def[r]]
			}
		}
	}
	e.lam = make([]float64, e.R)
	e.mu = make([]float64, s.m)
	e.prox, e.proxM = make([]float64, s.m), make([]float64, s.m)
	if err := e.layout(s); err != nil {
		return nil, err
	}
	return e, nil
}

const (
	// maxHessianEntries bounds the Hessian's pattern (and the distance-2
	// coloring's work).
	maxHessianEntries = 20_000_000
	// sqpDenseN is the most variables whose Hessian is made positive
	// semidefinite by its eigenvalues; above, by diagonal dominance.
	sqpDenseN = 200
)

// triplets collects a sparse matrix's entries by slot.
type triplets struct {
	rows, cols []int
}

func (t *triplets) add(r, c int) int {
	t.rows = append(t.rows, r)
	t.cols = append(t.cols, c)
	return len(t.rows) - 1
}

// csc makes the pattern of t (rows × cols) in compressed columns, summing
// duplicates, and returns each slot's position.
func (t *triplets) csc(rows, cols int) (*sparseqp.CSC, []int) {
	order := make([]int, len(t.rows))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if t.cols[a] != t.cols[b] {
			return t.cols[a] - t.cols[b]
		}
		return t.rows[a] - t.rows[b]
	})
	m := &sparseqp.CSC{Rows: rows, Cols: cols, ColPtr: make([]int, cols+1)}
	pos := make([]int, len(t.rows))
	prevR, prevC := -1, -1
	for _, s := range order {
		r, c := t.rows[s], t.cols[s]
		if r == prevR && c == prevC {
			pos[s] = len(m.RowIdx) - 1
			continue
		}
		m.RowIdx = append(m.RowIdx, r)
		m.Val = append(m.Val, 0)
		pos[s] = len(m.RowIdx) - 1
		m.ColPtr[c+1]++
		prevR, prevC = r, c
	}
	for c := range cols {
		m.ColPtr[c+1] += m.ColPtr[c]
	}
	return m, pos
}

// layout builds the program's pattern once: A's rows (the form's rows,
// then its inequality and equality functions) over (d, t, e), and P's
// upper triangle over d.
func (e *epiSQP) layout(s *solver) error {
	g := e.g
	n, nt := g.N, g.Aux
	nv := n + nt + e.m0
	sup := g.Smooth.Support
	var A triplets
	e.aSlot = make([][]int, e.R+e.m0)
	e.aCols = make([][]int32, e.R+e.m0)
	seen := make([]int, nv)
	for j := range seen {
		seen[j] = -1
	}
	row := func(r int, cols func(add func(c int))) {
		cols(func(c int) {
			if seen[c] != r {
				seen[c] = r
				e.aSlot[r] = append(e.aSlot[r], A.add(r, c))
				e.aCols[r] = append(e.aCols[r], int32(c))
			}
		})
	}
	for r := range e.R {
		row(r, func(add func(int)) {
			for p := g.Ptr[r]; p < g.Ptr[r+1]; p++ {
				add(int(g.Col[p]))
			}
			for p := g.SPtr[r]; p < g.SPtr[r+1]; p++ {
				for _, j := range sup[g.SOut[p]] {
					add(int(j))
				}
			}
			add(n + int(g.Def[r]))
		})
	}
	for i := range e.m0 {
		fi := i + 1
		e.prox[i], e.proxM[i] = s.conProx(i)
		pr := e.prox[i]
		eq := slices.Contains(g.eqs, fi)
		if eq || g.affine(fi) && g.FSPtr[fi] == g.FSPtr[fi+1] {
			// an affine constraint is convex: no proximal term
			e.prox[i], e.proxM[i] = 0, 0
			pr = 0
		}
		row(e.R+i, func(add func(int)) {
			for p := g.CPtr[fi]; p < g.CPtr[fi+1]; p++ {
				add(int(g.CCol[p]))
			}
			for p := g.FSPtr[fi]; p < g.FSPtr[fi+1]; p++ {
				for _, j := range sup[g.FSOut[p]] {
					add(int(j))
				}
			}
			if pr > 0 {
				for j := range n {
					add(j)
				}
			}
			if !eq {
				add(n + nt + i)
			}
		})
	}
	for k := range e.g.eqs {
		e.prox[e.m0+k], e.proxM[e.m0+k] = 0, 0
	}
	Am, aPos := A.csc(e.R+e.m0, nv)
	var P triplets
	hSlot := map[[2]int32]int{}
	for j := range n {
		for _, i := range e.nbr[j] {
			if i <= int32(j) {
				hSlot[[2]int32{i, int32(j)}] = P.add(int(i), j)
			}
		}
		if _, ok := hSlot[[2]int32{int32(j), int32(j)}]; !ok {
			hSlot[[2]int32{int32(j), int32(j)}] = P.add(j, j)
		}
	}
	Pm, pPos := P.csc(nv, nv)
	e.aPos, e.pPos = aPos, pPos
	e.hPos = make([][]int, n)
	for j := range n {
		e.hPos[j] = make([]int, len(e.nbr[j]))
		for q, i := range e.nbr[j] {
			e.hPos[j][q] = pPos[hSlot[[2]int32{min(i, int32(j)), max(i, int32(j))}]]
		}
	}
	e.eqK = make([]int, e.m0+1)
	for fi := 1; fi <= e.m0; fi++ {
		e.eqK[fi] = slices.Index(g.eqs, fi)
	}
	e.aVal, e.pVal = make([]float64, len(aPos)), make([]float64, len(pPos))
	e.hval = make([]float64, len(pPos))
	L, U := make([]float64, e.R+e.m0), make([]float64, e.R+e.m0)
	lb, ub := make([]float64, nv), make([]float64, nv)
	for j := n; j < nv; j++ {
		ub[j] = math.Inf(1)
		lb[j] = 0
		if j < n+nt {
			lb[j] = g.Floor[j-n]
		}
	}
	e.prob = &sparseqp.Problem{P: Pm, Q: make([]float64, nv), A: Am, L: L, U: U, LB: lb, UB: ub}
	for i := range L {
		L[i], U[i] = math.Inf(-1), 0
	}
	for j := range n {
		lb[j], ub[j] = -1, 1
	}
	qp, err := sparseqp.NewSolver(e.prob, sparseqp.Settings{Halt: func() bool { return s.halted() != running }})
	if err != nil {
		return err
	}
	e.qp = qp
	return nil
}

// epigraphSQPMethod is the epigraph oracle's run on a form with smooth
// terms.
type epigraphSQPMethod struct {
	*solver
	o    *EpigraphOracle
	e    *epiSQP
	err  error
	lam  []float64
	work []float64
	// lastY is the last iterate of the last solve (feasible or not)
	lastY []float64
}

func newEpigraphSQPMethod(s *solver, o *EpigraphOracle) *epigraphSQPMethod {
	m := &epigraphSQPMethod{solver: s, o: o, lam: make([]float64, s.m)}
	m.e, m.err = newEpiSQP(s, o.Form)
	return m
}

func (m *epigraphSQPMethod) oracle() Oracle             { return m.o }
func (m *epigraphSQPMethod) warmMultipliers() []float64 { return m.lam }

// smoothAt evaluates the smooth program at y, its gradients (jac) by the
// coloring, and the weighted gradient grad0 with the weights e.w.
func (m *epigraphSQPMethod) smoothAt(y []float64) error {
	e := m.e
	sm := e.g.Smooth
	if err := sm.Eval(y, e.sv); err != nil {
		return err
	}
	wk := e.wk
	for _, group := range e.colorsJ {
		clear(e.gp)
		for _, k := range group {
			wk[k] = 1
		}
		err := sm.Grad(wk, e.gp)
		for _, k := range group {
			wk[k] = 0
		}
		if err != nil {
			return err
		}
		for _, k := range group {
			for p, j := range sm.Support[k] {
				e.jac[e.jOff[k]+p] = e.gp[j]
			}
		}
	}
	return nil
}

// weights sets e.w, the Lagrangian's weight on each smooth function, from
// the multipliers: the objective's terms weigh 1, a row's lambda_r, a
// constraint's mu_i.
func (m *epigraphSQPMethod) weights() {
	e, g := m.e, m.e.g
	clear(e.w)
	for p := g.FSPtr[0]; p < g.FSPtr[1]; p++ {
		e.w[g.FSOut[p]] += g.FSCoef[p]
	}
	for r := range e.R {
		if l := e.lam[r]; l != 0 {
			for p := g.SPtr[r]; p < g.SPtr[r+1]; p++ {
				e.w[g.SOut[p]] += l * g.SCoef[p]
			}
		}
	}
	for i := range e.m0 {
		if u := e.mu[i]; u != 0 {
			for p := g.FSPtr[i+1]; p < g.FSPtr[i+2]; p++ {
				e.w[g.FSOut[p]] += u * g.FSCoef[p]
			}
		}
	}
}

// hessian estimates the Hessian of sum_k w_k s_k at y (after smoothAt at
// y) into e.hval by slot, by forward differences of its gradient along the
// column groups; grad0 is the gradient at y. It leaves the smooth
// program evaluated at y.
func (m *epigraphSQPMethod) hessian(y []float64) error {
	e := m.e
	sm := e.g.Smooth
	if err := sm.Grad(e.w, e.grad0); err != nil {
		return err
	}
	// each off-diagonal entry is estimated twice, from its column and
	// from its row's: their mean (half of each) is kept
	clear(e.hval)
	for _, group := range e.colorsH {
		copy(e.yp, y)
		for _, j := range group {
			e.yp[j] += fdStep(y[j])
		}
		if err := sm.Eval(e.yp, e.sv); err != nil {
			return err
		}
		if err := sm.Grad(e.w, e.gp); err != nil {
			return err
		}
		for _, j := range group {
			h := e.yp[j] - y[j]
			for q, i := range e.nbr[j] {
				v := (e.gp[i] - e.grad0[i]) / h
				if int(i) != int(j) {
					v /= 2
				}
				e.hval[e.hPos[j][q]] += v
			}
		}
	}
	return sm.Eval(y, e.sv)
}

// fdStep is the difference step for a coordinate at v.
func fdStep(v float64) float64 {
	h := 1.5e-8 * math.Max(1, math.Abs(v))
	return (v + h) - v
}

// convexify makes the Hessian values (P's, upper triangle by position)
// plus shift on the diagonal positive semidefinite: by clipping its
// eigenvalues at eps when N is small, else by raising each diagonal
// entry to the sum of its row's off-diagonal magnitudes (Gershgorin).
// It returns the smallest curvature it had to remove (0 when none).
func (m *epigraphSQPMethod) convexify(shift float64) {
	e := m.e
	n := e.g.N
	P := e.prob.P
	diag := func(j int) int {
		for p := P.ColPtr[j]; p < P.ColPtr[j+1]; p++ {
			if P.RowIdx[p] == j {
				return p
			}
		}
		return -1
	}
	copy(e.pVal, e.hval)
	if e.dense {
		H := mat.NewSymDense(n, nil)
		for j := range n {
			for p := P.ColPtr[j]; p < P.ColPtr[j+1]; p++ {
				H.SetSym(P.RowIdx[p], j, e.pVal[p])
			}
			H.SetSym(j, j, H.At(j, j)+shift)
		}
		var eig mat.EigenSym
		if eig.Factorize(H, true) {
			vals := eig.Values(nil)
			if vals[0] >= 1e-10*math.Max(1, math.Abs(vals[n-1])) {
				for j := range n {
					e.pVal[diag(j)] += shift
				}
				return
			}
			var V mat.Dense
			eig.VectorsTo(&V)
			floor := 1e-8 * math.Max(1, math.Abs(vals[n-1]))
			for i := range vals {
				vals[i] = math.Max(vals[i], floor)
			}
			for j := range n {
				for p := P.ColPtr[j]; p < P.ColPtr[j+1]; p++ {
					i := P.RowIdx[p]
					v := 0.0
					for k := range n {
						v += V.At(i, k) * vals[k] * V.At(j, k)
					}
					e.pVal[p] = v
				}
			}
			return
		}
	}
	off := make([]float64, n)
	for j := range n {
		for p := P.ColPtr[j]; p < P.ColPtr[j+1]; p++ {
			if i := P.RowIdx[p]; i != j {
				off[i] += math.Abs(e.pVal[p])
				off[j] += math.Abs(e.pVal[p])
			}
		}
	}
	for j := range n {
		p := diag(j)
		d := e.pVal[p] + shift
		e.pVal[p] = math.Max(d, off[j]+1e-8*math.Max(1, math.Abs(d)))
	}
}

// fill sets the program's values for the step from y in (7) at xt: A's
// rows linearised at y (after smoothAt and hessian at y), P = the
// convexified Hessian plus the proximal weights, q, and the bounds. It
// returns the constant of the program's objective (its value at d = 0,
// t = 0, e = 0 is q's part plus this).
func (m *epigraphSQPMethod) fill(y, xt []float64) float64 {
	e, g := m.e, m.e.g
	n, nt := g.N, g.Aux
	sup := g.Smooth.Support
	nv := n + nt + e.m0
	scratch := m.scratch(nv)
	clear(e.aVal)
	smoothInto := func(lo, hi int, out []int32, coef []float64, scale float64) float64 {
		v := 0.0
		for p := lo; p < hi; p++ {
			k, c := out[p], coef[p]*scale
			v += c * e.sv[k]
			for q, j := range sup[k] {
				scratch[j] += c * e.jac[e.jOff[k]+q]
			}
		}
		return v
	}
	flush := func(r int) {
		for q, c := range e.aCols[r] {
			e.aVal[e.aPos[e.aSlot[r][q]]] += scratch[c]
			scratch[c] = 0
		}
	}
	P := e.prob
	dd := 0.0
	for j := range n {
		dd += (y[j] - xt[j]) * (y[j] - xt[j])
	}
	for r := range e.R {
		c := g.B[r]
		for p := g.Ptr[r]; p < g.Ptr[r+1]; p++ {
			col := int(g.Col[p])
			scratch[col] += g.Val[p]
			if col < n {
				c += g.Val[p] * y[col]
			}
		}
		c += smoothInto(g.SPtr[r], g.SPtr[r+1], g.SOut, g.SCoef, 1)
		scratch[n+int(g.Def[r])] -= 1
		flush(r)
		P.L[r], P.U[r] = math.Inf(-1), -c
	}
	for i := range e.m0 {
		fi := i + 1
		c := g.E[fi]
		for p := g.CPtr[fi]; p < g.CPtr[fi+1]; p++ {
			col := int(g.CCol[p])
			scratch[col] += g.CVal[p]
			if col < n {
				c += g.CVal[p] * y[col]
			}
		}
		c += smoothInto(g.FSPtr[fi], g.FSPtr[fi+1], g.FSOut, g.FSCoef, 1)
		if pr := e.prox[i]; pr > 0 {
			for j := range n {
				scratch[j] += pr * (y[j] - xt[j])
			}
			c += pr / 2 * dd
		}
		if k := e.eqK[fi]; k >= 0 {
			flush(e.R + i)
			P.L[e.R+i], P.U[e.R+i] = -(c + g.tau[k]), -(c + g.tau[k])
			continue
		}
		scratch[n+nt+i] -= 1
		flush(e.R + i)
		P.L[e.R+i], P.U[e.R+i] = math.Inf(-1), -c
	}
	copy(P.A.Val, e.aVal)
	// the objective
	clear(P.Q)
	c0 := g.E[0]
	for p := g.CPtr[0]; p < g.CPtr[1]; p++ {
		col := int(g.CCol[p])
		P.Q[col] += g.CVal[p]
		if col < n {
			c0 += g.CVal[p] * y[col]
		}
	}
	c0 += smoothInto(g.FSPtr[0], g.FSPtr[1], g.FSOut, g.FSCoef, 1)
	for j := range n {
		P.Q[j] += scratch[j] + m.rhoHat*(y[j]-xt[j])
		scratch[j] = 0
	}
	c0 += m.rhoHat / 2 * dd
	for i := range e.m0 {
		P.Q[n+nt+i] = e.nu
	}
	shift := m.rhoHat
	for i := range e.mu {
		shift += e.mu[i] * e.prox[i]
	}
	m.convexify(shift)
	copy(P.P.Val, e.pVal)
	for j := range n {
		P.LB[j], P.UB[j] = g.Lo[j]-y[j], g.Hi[j]-y[j]
	}
	return c0
}

// scratch is a zeroed work vector of length n, kept between calls (its
// users leave it zeroed).
func (m *epigraphSQPMethod) scratch(n int) []float64 {
	if len(m.work) < n {
		m.work = make([]float64, n)
	}
	return m.work[:n]
}

// merit is (7)'s exact penalty at y, on the Problem's own functions: F0
// plus nu times each constraint's violation (with its proximal term).
// It evaluates y (s.vals then hold its values).
func (m *epigraphSQPMethod) merit(y, xt []float64) (phi, viol float64, err error) {
	if err := m.eval(y); err != nil {
		return 0, 0, err
	}
	dd := 0.0
	for j := range y {
		dd += (y[j] - xt[j]) * (y[j] - xt[j])
	}
	for i := 1; i <= m.m; i++ {
		v := m.vals[i] + m.e.prox[i-1]/2*dd
		viol += math.Max(0, v)
	}
	return m.vals[0] + m.rhoHat/2*dd + m.e.nu*viol, viol, nil
}

// solve solves (7) at xt by SQP steps from xt (see the top of the file).
func (m *epigraphSQPMethod) solve(xt []float64, acc accuracy) (res subResult, halt haltReason, err error) {
	res = subResult{F: math.Inf(1), Lower: math.Inf(-1), Lambda: make([]float64, m.m)}
	if m.err != nil {
		return res, running, m.err
	}
	e, g := m.e, m.e.g
	n, nt := g.N, g.Aux
	res.Prox = e.prox
	y := clone(xt)
	m.project(y)
	if e.nu == 0 {
		e.nu = 10
	}
	phi, _, err := m.merit(y, xt)
	if err != nil {
		return res, running, err
	}
	trial := make([]float64, n)
	for step := 0; step < sqpMaxSteps; step++ {
		if halt = m.halted(); halt != running {
			break
		}
		if err := m.smoothAt(y); err != nil {
			return res, running, err
		}
		m.weights()
		if err := m.hessian(y); err != nil {
			return res, running, err
		}
		res.Evals += 2 + len(e.colorsH)
		if step == 0 {
			m.bound(y, xt, &res)
			if m.settled(acc, &res, dist(m.out, xt)) {
				break
			}
		}
		if acc.MaxEvals > 0 && res.Evals > acc.MaxEvals {
			break
		}
		c0 := m.fill(y, xt)
		r, err := e.qp.Solve(e.prob)
		if err != nil {
			return res, running, fmt.Errorf("solve: the epigraph SQP step: %w", err)
		}
		m.stats.Inner += r.Iterations
		if r.X == nil || r.Status != sparseqp.Solved && r.Status != sparseqp.IterationLimit {
			break
		}
		// the multipliers, and the penalty above them
		big := 0.0
		for rr := range e.R {
			e.lam[rr] = math.Max(0, r.Y[rr])
		}
		for i := range e.m0 {
			v := r.Y[e.R+i]
			if k := e.eqK[i+1]; k >= 0 {
				e.mu[i], e.mu[e.m0+k] = math.Max(0, v), math.Max(0, -v)
				big = math.Max(big, math.Abs(v))
				continue
			}
			e.mu[i] = math.Max(0, v)
			big = math.Max(big, e.mu[i])
		}
		if e.nu < 1.5*big {
			e.nu = 2 * big
			if phi, _, err = m.merit(y, xt); err != nil {
				return res, running, err
			}
		}
		// the bound at y with the step's multipliers (the smooth program
		// is evaluated at y: hessian left it there)
		m.bound(y, xt, &res)
		if m.settled(acc, &res, dist(m.out, xt)) {
			break
		}
		model := r.Objective + c0
		for i := range e.m0 {
			model += (e.nu - e.prob.Q[n+nt+i]) * r.X[n+nt+i] // at the penalty's new weight
		}
		pred := phi - model
		d := r.X[:n]
		if m.curvatureBelow(d) {
			res.Nonconvex = true // Rho is too small for these functions: the safeguard doubles it
		}
		if !(pred > 1e-15*(1+math.Abs(phi))) || norm(d) <= 1e-15*(1+norm(y)) {
			break
		}
		// the line search on the exact penalty
		accepted := false
		for alpha := 1.0; alpha > 1e-10; alpha /= 2 {
			for j := range y {
				trial[j] = y[j] + alpha*d[j]
			}
			m.project(trial)
			pt, _, err := m.merit(trial, xt)
			if err != nil {
				continue // a point where a function cannot be evaluated: shorter
			}
			if pt <= phi-1e-4*alpha*pred {
				copy(y, trial)
				phi = pt
				accepted = true
				break
			}
		}
		if !accepted {
			break
		}
	}
	copy(m.lam, res.Lambda)
	m.lastY = y
	return res, halt, nil
}

// bound evaluates y on the Problem's own functions and, when it is
// feasible for (7) and better than res's point, makes it res's point
// (s.out, s.outF, F); and raises res.Lower to the Lagrangian's bound at y
// (see the top of the file). It needs smoothAt, weights and hessian at y
// (e.sv, e.jac, e.grad0 with the multipliers' weights).
func (m *epigraphSQPMethod) bound(y, xt []float64, res *subResult) {
	e, g := m.e, m.e.g
	if err := m.eval(y); err != nil {
		return
	}
	dd := 0.0
	for j := range y {
		dd += (y[j] - xt[j]) * (y[j] - xt[j])
	}
	feasible := true
	for i := 1; i <= m.m; i++ {
		if m.vals[i]+e.prox[i-1]/2*dd > 0 {
			feasible = false
		}
	}
	if F := m.vals[0] + m.rhoHat/2*dd; feasible && F < res.F {
		res.F, res.Feasible = F, true
		copy(m.out, y)
		copy(m.outF, m.vals)
		res.HasDist = false // the distance bounds were of another point
	}
	// the epigraph variables and the rows at y (the smooth terms' values
	// e.sv are at y: hessian left the program there)
	tv, rowv := e.tv, e.rowv
	g.valuesFrom(y, tv, e.sv, e.fv, rowv)
	// with the program's multipliers, and with those of the rows and
	// constraints that are clearly inactive at y set to 0 (the interior
	// point leaves them tiny but not 0, and lambda_r times the slack
	// would otherwise count in the gap)
	isOut := feasible && slices.Equal(m.out, y)
	m.boundWith(y, xt, e.lam, e.mu, tv, rowv, dd, isOut, res)
	lam := append([]float64(nil), e.lam...)
	for r := range e.R {
		t := tv[g.Def[r]]
		if t-rowv[r] > 1e-7*(1+math.Abs(t)) {
			lam[r] = 0
		}
	}
	mu := append([]float64(nil), e.mu...)
	for i := range mu {
		if v := m.vals[i+1] + e.prox[i]/2*dd; v < -1e-7*(1+math.Abs(m.vals[i+1])) {
			mu[i] = 0
		}
	}
	m.boundWith(y, xt, lam, mu, tv, rowv, dd, isOut, res)
}

// boundWith raises res.Lower to the Lagrangian's bound at y with the
// multipliers lam (rows) and mu (constraints), after making lam exactly
// stationary in t; tv and rowv are the epigraph variables' and the rows'
// values at y, dd is ||y - x_t||^2.
func (m *epigraphSQPMethod) boundWith(y, xt, lam0, mu []float64, tv, rowv []float64, dd float64, isOut bool, res *subResult) {
	e, g := m.e, m.e.g
	n := g.N
	lam := append([]float64(nil), lam0...)
	// the multipliers made exactly stationary in t, outer variables first
	inflow := e.inflow
	clear(inflow)
	for i := 0; i <= g.M; i++ {
		w := 1.0
		if i > 0 {
			w = mu[i-1]
		}
		for p := g.CPtr[i]; p < g.CPtr[i+1]; p++ {
			if c := int(g.CCol[p]); c >= n {
				inflow[c-n] += w * g.CVal[p]
			}
		}
	}
	// slack is F(y) - l(y) term by term: the complementarity of the
	// rows, the floors' and the constraints' (each >= 0 at a feasible y)
	gammaFloor, slack := 0.0, 0.0
	for r := e.R - 1; r >= 0; {
		t := g.Def[r]
		lo := r
		for lo > 0 && g.Def[lo-1] == t {
			lo--
		}
		sum, arg := 0.0, lo
		for q := lo; q <= r; q++ {
			sum += lam[q]
			if rowv[q] > rowv[arg] {
				arg = q
			}
		}
		want := inflow[t]
		switch {
		case sum == 0 && want > 0 && math.IsInf(g.Floor[t], -1):
			lam[arg] = want
		case sum > 0 && (sum > want || math.IsInf(g.Floor[t], -1)):
			for q := lo; q <= r; q++ {
				lam[q] *= want / sum
			}
		}
		got := 0.0
		for q := lo; q <= r; q++ {
			got += lam[q]
			for p := g.Ptr[q]; p < g.Ptr[q+1]; p++ {
				if c := int(g.Col[p]); c >= n {
					inflow[c-n] += lam[q] * g.Val[p]
				}
			}
		}
		if gamma := want - got; gamma > 0 && !math.IsInf(g.Floor[t], -1) {
			gammaFloor += gamma * g.Floor[t]
			slack += gamma * math.Max(0, tv[t]-g.Floor[t])
		}
		for q := lo; q <= r; q++ {
			slack += lam[q] * math.Max(0, tv[t]-rowv[q])
		}
		r = lo - 1
	}
	// l(y) and its gradient, with the smooth terms' weights from lam, mu
	savedL, savedM := e.lam, e.mu
	e.lam, e.mu = lam, mu
	m.weights()
	e.lam, e.mu = savedL, savedM
	gr := e.gr
	if err := g.Smooth.Grad(e.w, gr); err != nil {
		return
	}
	l := gammaFloor + g.E[0] + g.fnSmooth(0, e.sv) + m.rhoHat/2*dd
	for p := g.CPtr[0]; p < g.CPtr[1]; p++ {
		if c := int(g.CCol[p]); c < n {
			l += g.CVal[p] * y[c]
			gr[c] += g.CVal[p]
		}
	}
	for r := range e.R {
		if lam[r] == 0 {
			continue
		}
		v := g.B[r] + g.rowSmooth(r, e.sv)
		for p := g.Ptr[r]; p < g.Ptr[r+1]; p++ {
			if c := int(g.Col[p]); c < n {
				v += g.Val[p] * y[c]
				gr[c] += lam[r] * g.Val[p]
			}
		}
		l += lam[r] * v
	}
	k := m.rhoHat
	muw := m.rhoHat - m.rho
	for i := range g.M { // every constraint of the split problem, an equality's band as two
		fi := i + 1
		if mu[i] == 0 {
			continue
		}
		v := g.E[fi] + g.fnSmooth(fi, e.sv) + e.prox[i]/2*dd
		for p := g.CPtr[fi]; p < g.CPtr[fi+1]; p++ {
			if c := int(g.CCol[p]); c < n {
				v += g.CVal[p] * y[c]
				gr[c] += mu[i] * g.CVal[p]
			}
		}
		l += mu[i] * v
		k += mu[i] * e.prox[i]
		muw += mu[i] * e.proxM[i]
	}
	if muw <= 0 {
		return
	}
	for j := range gr {
		gr[j] += k * (y[j] - xt[j])
	}
	bound := l
	for j := range gr {
		z := math.Min(math.Max(y[j]-gr[j]/muw, g.Lo[j]), g.Hi[j])
		dz := z - y[j]
		bound += gr[j]*dz + muw/2*dz*dz
	}
	if bound > res.Lower {
		res.Lower = bound
		for i := range res.Lambda {
			res.Lambda[i] = mu[i]
		}
	}
	// the distance from y, when it is the output, to x_hat, linear in
	// the gradient where the gap's sqrt bound is not: with xi the
	// gradient of l (its components that push y out of the box dropped)
	// and mu the strong convexity of (7), mu/2 d^2 <= F(y) - F(x_hat) and
	// F(x_hat) >= l(x_hat) >= F(y) - slack + <xi, x_hat - y> + mu/2 d^2
	// give mu d^2 - |xi| d - slack <= 0
	if mu7 := m.rhoHat - m.rho; isOut && mu7 > 0 {
		for i := range mu {
			if mu[i] > 0 {
				slack += mu[i] * math.Max(0, -(m.vals[i+1]+e.prox[i]/2*dd))
			}
		}
		xi := 0.0
		for j, v := range gr {
			if y[j] <= g.Lo[j] && v > 0 || y[j] >= g.Hi[j] && v < 0 {
				continue
			}
			xi += v * v
		}
		xi = math.Sqrt(xi)
		d := (xi + math.Sqrt(xi*xi+4*mu7*slack)) / (2 * mu7)
		if !res.HasDist || d < res.Dist {
			res.Dist, res.HasDist = d, true
		}
	}
}

// sqpPhase1Rho is the share of RhoHat that the SQP run's first solve
// weighs the distance from the start with (findFeasible).
const sqpPhase1Rho = 1e-4

// sqpPhase1Passes bounds findFeasible's proximal steps.
const sqpPhase1Passes = 5

// findFeasible starts the SQP run with (7) at the start with the
// proximal weight epigraphPhase1Rho RhoHat: nearly SQP on the problem
// itself, a local method that converges like Newton's where the pieces
// are smooth, so that Algorithm 1 starts near a stationary point (its
// certificate comes from the steps after). When its point is not
// feasible it proves nothing (handled false).
func (m *epigraphSQPMethod) findFeasible(cur *Point) (Status, bool, bool, error) {
	rhoHat := m.rhoHat
	m.rhoHat *= sqpPhase1Rho
	defer func() { m.rhoHat = rhoHat }()
	// proximal steps with the small weight, each from the last point: the
	// first lands near a stationary point, biased toward the start by
	// about the weight over the curvature there; the next ones remove the
	// bias (a few SQP steps each, warm)
	centre := clone(cur.X)
	var y []float64
	for pass := 0; pass < sqpPhase1Passes; pass++ {
		_, halt, err := m.solve(centre, accuracy{MaxEvals: 50 * m.set.MaxEvals})
		switch {
		case err != nil:
			return NumericalError, true, true, err
		case halt != running:
			return haltStatus(halt), true, true, nil
		}
		m.stats.Phase1Outer++
		if m.lastY == nil {
			break
		}
		y = m.lastY
		moved := dist(y, centre)
		copy(centre, y)
		if moved <= 1e-10*(1+norm(y)) {
			break
		}
	}
	if y == nil {
		return 0, false, false, nil
	}
	if err := m.eval(y); err != nil {
		return 0, false, false, nil
	}
	next := pointAt(y, m.vals, cur.T)
	if m.phaseG(next.F) > m.target {
		return 0, false, false, nil
	}
	if m.phaseG(cur.F) <= m.target && next.Objective > cur.Objective {
		return 0, false, true, nil // the start is feasible and better
	}
	*cur = next
	m.track(cur)
	return 0, false, true, nil
}

// curvatureBelow reports evidence that the Lagrangian's smooth part is
// not (RhoHat - Rho + sum_i mu_i (RhoHat_i - Rho))-strongly convex along
// d, the assumption of the bound: the curvature of the smooth terms'
// Hessian estimate (before it was made semidefinite) along d is below
// -Rho (1 + sum_i mu_i) by more than its differencing error.
func (m *epigraphSQPMethod) curvatureBelow(d []float64) bool {
	e := m.e
	P := e.prob.P
	dd, q := 0.0, 0.0
	for j := range e.g.N {
		dd += d[j] * d[j]
		for p := P.ColPtr[j]; p < P.ColPtr[j+1]; p++ {
			i := P.RowIdx[p]
			if i >= e.g.N {
				continue
			}
			v := e.hval[p] * d[i] * d[j]
			if i != j {
				v *= 2
			}
			q += v
		}
	}
	if dd == 0 {
		return false
	}
	w := 1.0
	for _, u := range e.mu {
		w += u
	}
	return q/dd < -m.rho*w*(1+1e-6)-1e-7
}
