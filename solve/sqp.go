package solve

import (
	"math"
	"slices"

	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/qp"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The SQP polish runs a local sequential quadratic programming method
// from a feasible point of a small smooth problem, as SLSQP or a line-search
// SQP would from a start: each step solves the quadratic program of the
// Lagrangian's Hessian (by differences of gradients, its negative
// curvature reflected so that the program is convex) over the constraints
// linearised at x (the domain's too, and a trust box on the step), with the
// inequalities' and equalities' multipliers from the program, and an
// Armijo search on the l1 exact penalty f + nu·(sum of violations) with a
// second-order correction of the violated active constraints at each
// trial step it refuses. It goes where the proximal steps of (7) go slowly: badly scaled
// problems, whose RhoHat makes every outer step short, and equality
// constraints, whose bands a first-order subproblem solver approaches
// slowly. It only proposes a point: the point is kept when it meets the
// constraints (the equalities' bands too) and its penalty value is below
// the starting point's, and the certificate then judges it as any other.
// It is not part of the paper's method (docs/solver.md).

const (
	sqpEvery  = 50   // outer steps of an accurate oracle between two SQP polishes
	sqpMaxN   = 100  // variables at most
	sqpMaxM   = 100  // constraints at most (an equality's two sides count two)
	sqpIter   = 60   // SQP steps at most
	sqpHalves = 30   // step halvings at most per line search
	sqpTrust  = 10.0 // the trust box: |d_j| <= sqpTrust·(1 + |x_j|)
	sqpArmijo = 1e-4 // the line search's sufficient decrease

	epsMachine = 0x1p-52
)

// sqpPolishes reports whether the SQP polish may run on the solve's
// problem: smooth, small, with an accurate oracle, where the KKT residual
// at x can certify the point it finds.
func (s *solver) sqpPolishes() bool {
	return s.p.Smooth && s.acc != nil && s.n <= sqpMaxN && s.m <= sqpMaxM && s.kktCertifies()
}

// sqpRows are the solver's constraints as the SQP sees them: the plain
// inequalities and, for each equality, the index of its side h - tau <= 0
// and of its side -h - tau <= 0 (function indices 1..M).
type sqpRows struct {
	ineq []int
	eq   [][2]int
}

func (s *solver) sqpRows() sqpRows {
	var r sqpRows
	E := 0
	for _, e := range s.p.eqSide {
		if e {
			E++
		}
	}
	E /= 2
	m0 := s.m - E
	for i := 1; i <= s.m; i++ {
		switch {
		case s.p.eqSide == nil || !s.p.eqSide[i-1]:
			r.ineq = append(r.ineq, i)
		case i <= m0:
			r.eq = append(r.eq, [2]int{i, m0 + 1 + len(r.eq)})
		}
	}
	return r
}

// violation is the l1 violation of the constraints at the values f: the
// inequalities' positive parts and the equalities' |h|.
func (r *sqpRows) violation(f []float64) float64 {
	v := 0.0
	for _, i := range r.ineq {
		v += math.Max(0, f[i])
	}
	for _, e := range r.eq {
		v += math.Abs(f[e[0]]-f[e[1]]) / 2
	}
	return v
}

// sqpPolish returns a point reached from pt by SQP steps, feasible to Eps
// with the equalities in their bands, whose penalty value f + nu·violation
// (nu the final penalty weight) is not above pt's beyond rounding; nil when
// there is none. lam0 (len M, may be nil) are multipliers to start from.
// Evaluation errors at trial points shorten the step; the polish never
// fails the solve.
func (s *solver) sqpPolish(pt *Point, lam0 []float64) *Point {
	r := s.newSQPRun(pt.X)
	x := clone(pt.X)
	lam := make([]float64, s.m)
	if lam0 != nil {
		copy(lam, lam0)
	}
	nu := 0.0
	var kept *Point
	var keptLam []float64
	stopped := false // the program's step at x was zero to rounding
	relam := false   // a refused step was redone with the program's multipliers
	for it := 0; it < sqpIter; it++ {
		if s.halted() != running {
			break
		}
		if err := s.eval(x); err != nil {
			break
		}
		vals := clone(s.vals)
		g, err := s.gradients()
		if err != nil {
			break
		}
		J := make([][]float64, s.m+1)
		for i := range J {
			J[i] = clone(g[i])
		}
		prog, ok := r.program(x, vals, J, lam)
		if !ok {
			break
		}
		sol, err := qp.Solve(prog, qp.Settings{})
		if err != nil && it == 0 && slices.ContainsFunc(lam, func(v float64) bool { return v != 0 }) {
			// the multipliers given may be far off (an oracle's that
			// diverged): once more with the objective's Hessian alone,
			// and then the program's own multipliers
			clear(lam)
			continue
		}
		if err != nil {
			break
		}
		d := sol.X
		for j := range d {
			d[j] *= r.sc[j]
		}
		next, big := r.multipliers(sol)
		nu = math.Max(nu, 2*big)
		if floats.Norm(d, math.Inf(1)) <= 1e-15*(1+floats.Norm(x, math.Inf(1))) {
			lam, stopped = next, true
			break // x is a KKT point of the program to rounding
		}
		if !r.search(x, d, vals, J, sol, nu) {
			if !relam {
				// the Hessian's multipliers may be what made the step
				// poor: once per polish, again from x with the
				// program's own
				relam, lam = true, next
				continue
			}
			break
		}
		copy(x, r.trial)
		lam = next
		if infeasibility(s.vals) <= s.set.Eps && s.inBands(s.vals) {
			q := pointAt(x, s.vals, pt.T)
			kept, keptLam = &q, clone(lam)
		}
	}
	if kept == nil {
		if !stopped || !floats.Equal(x, pt.X) {
			return nil
		}
		// no step from pt: the program's multipliers at pt itself are
		// still the best the certificate can be given
		s.polishX, s.polishLam = clone(pt.X), clone(lam)
		return nil
	}
	s.polishX, s.polishLam = clone(kept.X), keptLam
	merit := func(p *Point) float64 { return p.Objective + nu*r.rows.violation(p.F) }
	if m0 := merit(pt); merit(kept) > m0+10*epsMachine*math.Abs(m0) {
		return nil // worse than pt beyond rounding
	}
	return kept
}

// sqpRun is one SQP polish's fixed data and work space.
type sqpRun struct {
	s    *solver
	rows sqpRows
	// sc are the variables' scales max(1, |x_j|) at the polish's start:
	// the program is in the step over them, so that its conditioning
	// (and the floor of convexified) does not depend on the units of x
	sc            []float64
	gradL, gradL2 []float64
	xh, trial     []float64
	D             *mat.Dense // the differences of gradients, column j for x_j
	H             *mat.SymDense
	eig           mat.EigenSym
	cs            []domain.Constraint
}

func (s *solver) newSQPRun(x0 []float64) *sqpRun {
	n := s.n
	r := &sqpRun{
		s: s, rows: s.sqpRows(), sc: make([]float64, n),
		gradL: make([]float64, n), gradL2: make([]float64, n),
		xh: make([]float64, n), trial: make([]float64, n),
		D: mat.NewDense(n, n, nil), H: mat.NewSymDense(n, nil),
	}
	for j, v := range x0 {
		r.sc[j] = math.Max(1, math.Abs(v))
	}
	return r
}

// scaled is row times the scales, the row's form in the scaled step.
func (r *sqpRun) scaled(row []float64) []float64 {
	out := make([]float64, len(row))
	for j, v := range row {
		out[j] = v * r.sc[j]
	}
	return out
}

// program is the quadratic program of the step at x, in the scaled step
// e = d / sc, with the values vals and gradients J (len M+1) at x and the
// multipliers lam of the Lagrangian's Hessian; false when the Hessian
// cannot be computed (a point near x the problem cannot evaluate) or made
// positive definite.
func (r *sqpRun) program(x, vals []float64, J [][]float64, lam []float64) (*qp.Problem, bool) {
	s, n := r.s, r.s.n
	// the Hessian of the Lagrangian by forward differences
	lagGrad(J, lam, r.gradL)
	for j := range n {
		h := 1e-7 * math.Max(1, math.Abs(x[j]))
		copy(r.xh, x)
		r.xh[j] += h
		if s.eval(r.xh) != nil {
			return nil, false
		}
		g2, err := s.gradients()
		if err != nil {
			return nil, false
		}
		lagGrad(g2, lam, r.gradL2)
		for k := range n {
			r.D.Set(k, j, (r.gradL2[k]-r.gradL[k])/h)
		}
	}
	for j := range n {
		for k := 0; k <= j; k++ {
			r.H.SetSym(k, j, (r.D.At(k, j)+r.D.At(j, k))/2*r.sc[k]*r.sc[j])
		}
	}
	// the rows that hold the step on a face: the equalities, the
	// inequalities with a multiplier or near zero
	var face [][]float64
	for _, e := range r.rows.eq {
		face = append(face, r.scaled(J[e[0]]))
	}
	for _, i := range r.rows.ineq {
		if lam[i-1] > 0 || vals[i] >= -1e-8*(1+math.Abs(vals[i])) {
			face = append(face, r.scaled(J[i]))
		}
	}
	B, ok := convexified(r.H, face, &r.eig)
	if !ok {
		return nil, false
	}
	prog := &qp.Problem{H: B, C: r.scaled(J[0])}
	for _, i := range r.rows.ineq {
		prog.G = append(prog.G, r.scaled(J[i]))
		prog.Hv = append(prog.Hv, -vals[i])
	}
	for _, e := range r.rows.eq {
		prog.A = append(prog.A, r.scaled(J[e[0]]))
		prog.B = append(prog.B, -(vals[e[0]]-vals[e[1]])/2)
	}
	if s.p.DomainConstraints != nil {
		r.cs = s.p.DomainConstraints(x, r.cs[:0])
		for _, c := range r.cs {
			row := make([]float64, n)
			copy(row[c.Start:], c.Grad)
			prog.G = append(prog.G, r.scaled(row))
			prog.Hv = append(prog.Hv, -c.Value)
		}
	}
	for j := range n {
		w := sqpTrust * (1 + math.Abs(x[j])) / r.sc[j]
		up, down := make([]float64, n), make([]float64, n)
		up[j], down[j] = 1, -1
		prog.G = append(prog.G, up, down)
		prog.Hv = append(prog.Hv, w, w)
	}
	return prog, true
}

// multipliers are the program's multipliers as the solver's (len M; an
// equality's y on its side h - tau when positive, on -h - tau when
// negative), and the largest of them in magnitude.
func (r *sqpRun) multipliers(sol *qp.Solution) ([]float64, float64) {
	next := make([]float64, r.s.m)
	big := 0.0
	for k, i := range r.rows.ineq {
		next[i-1] = math.Max(0, sol.Z[k])
		big = math.Max(big, next[i-1])
	}
	for k, e := range r.rows.eq {
		y := sol.Y[k]
		next[e[0]-1], next[e[1]-1] = math.Max(0, y), math.Max(0, -y)
		big = math.Max(big, math.Abs(y))
	}
	return next, big
}

// search is the line search from x along d on the penalty f +
// nu·violation (vals and J the values and gradients at x, sol the
// program's solution), with a second-order correction at each refused
// trial step (at the full step it counters the Maratos effect, shorter
// ones it bends back toward curved active constraints). A change within
// the rounding of the penalty counts as no increase (as in IPOPT's line
// search), or the last steps to a KKT point, which change it by less than
// its rounding, would all be refused. It reports whether a step was
// accepted; the point is then r.trial, with the solver's values there.
func (r *sqpRun) search(x, d, vals []float64, J [][]float64, sol *qp.Solution, nu float64) bool {
	s := r.s
	phi := vals[0] + nu*r.rows.violation(vals)
	slope := floats.Dot(J[0], d) - nu*r.rows.violation(vals)
	noise := 10 * epsMachine * math.Abs(phi)
	alpha := 1.0
	for range sqpHalves {
		for j := range x {
			r.trial[j] = x[j] + alpha*d[j]
		}
		s.project(r.trial)
		if s.eval(r.trial) == nil {
			if s.vals[0]+nu*r.rows.violation(s.vals) <= phi+sqpArmijo*alpha*slope+noise {
				return true
			}
			if s.secondOrder(&r.rows, J, sol, r.trial) && s.eval(r.trial) == nil &&
				s.vals[0]+nu*r.rows.violation(s.vals) <= phi+sqpArmijo*alpha*slope+noise {
				return true
			}
		}
		alpha /= 2
	}
	return false
}

// convexified returns a positive definite matrix for the program, as rows
// for qp, from the Lagrangian's Hessian H: H + sigma·Σ a aᵀ over the face
// rows a (the smallest sigma of 0, 1, 10, ... 10^6 times ||H|| over the
// rows' squared norm that makes it positive definite: on the face, where
// a·d is fixed, this changes the program by a constant, so a Hessian whose
// negative curvature lies across the face keeps its exact curvature along
// it, and SQP its fast local rate), else H with its eigenvalues replaced by
// their absolute values, raised to at least 1e-10 of the largest; false
// when H is not finite or its eigendecomposition fails.
func convexified(H *mat.SymDense, face [][]float64, eig *mat.EigenSym) ([][]float64, bool) {
	n := H.SymmetricDim()
	top, a2 := 0.0, 0.0
	for i := range n {
		for j := range n {
			top = math.Max(top, math.Abs(H.At(i, j)))
		}
	}
	for _, a := range face {
		a2 = math.Max(a2, floats.Dot(a, a))
	}
	if !(top < math.Inf(1)) {
		return nil, false
	}
	aug := mat.NewSymDense(n, nil)
	sigma := 0.0
	for try := 0; try <= 7; try++ {
		if try > 0 {
			if len(face) == 0 || a2 == 0 {
				break
			}
			sigma = math.Pow(10, float64(try-1)) * math.Max(top, 1e-300) / a2
		}
		aug.CopySym(H)
		for _, a := range face {
			aug.SymRankOne(aug, sigma, mat.NewVecDense(n, a))
		}
		if !eig.Factorize(aug, true) {
			return nil, false
		}
		vals := eig.Values(nil)
		lo, hi := math.Inf(1), 0.0
		for _, v := range vals {
			lo, hi = math.Min(lo, v), math.Max(hi, math.Abs(v))
		}
		if lo > 1e-8*hi {
			return symRows(aug), true
		}
	}
	if !eig.Factorize(H, true) {
		return nil, false
	}
	vals := eig.Values(nil)
	var V mat.Dense
	eig.VectorsTo(&V)
	top = 0.0
	for _, v := range vals {
		top = math.Max(top, math.Abs(v))
	}
	if !(top < math.Inf(1)) {
		return nil, false
	}
	floor := math.Max(1e-10*top, 1e-300)
	for i, v := range vals {
		vals[i] = math.Max(math.Abs(v), floor)
	}
	B := make([][]float64, n)
	for i := range B {
		B[i] = make([]float64, n)
		for j := 0; j <= i; j++ {
			v := 0.0
			for k := range vals {
				v += V.At(i, k) * vals[k] * V.At(j, k)
			}
			B[i][j] = v
		}
	}
	for i := range B {
		for j := i + 1; j < n; j++ {
			B[i][j] = B[j][i]
		}
	}
	return B, true
}

// secondOrder moves trial (x + d) by the least-norm step that sets the
// linearisation at x of the constraints the program held active (the
// equalities, and the inequalities with a positive multiplier) to their
// values at trial, the second-order correction against the Maratos
// effect; it reports whether it moved. The solver's values are those at
// trial on entry.
func (s *solver) secondOrder(rows *sqpRows, J [][]float64, sol *qp.Solution, trial []float64) bool {
	var act [][]float64
	var c []float64
	for _, e := range rows.eq {
		act = append(act, J[e[0]])
		c = append(c, (s.vals[e[0]]-s.vals[e[1]])/2)
	}
	for k, i := range rows.ineq {
		if sol.Z[k] > 0 && s.vals[i] > 0 {
			act = append(act, J[i])
			c = append(c, s.vals[i])
		}
	}
	if len(act) == 0 || len(act) > s.n {
		return false
	}
	// d2 = -Aᵀ (A Aᵀ)⁻¹ c
	na := len(act)
	AAt := mat.NewDense(na, na, nil)
	for a := range act {
		for b := range act {
			AAt.Set(a, b, floats.Dot(act[a], act[b]))
		}
	}
	var w mat.VecDense
	if err := w.SolveVec(AAt, mat.NewVecDense(na, c)); err != nil {
		return false
	}
	for a, row := range act {
		floats.AddScaled(trial, -w.AtVec(a), row)
	}
	s.project(trial)
	return finite(trial)
}

// polishMultipliers are the SQP polish's multipliers as a candidate for
// the KKT check at x: those of its last program when x is the point it
// ended at, none otherwise.
func (s *solver) polishMultipliers(x []float64) multipliers {
	if s.polishX == nil || !floats.Equal(x, s.polishX) {
		return multipliers{}
	}
	return multipliers{s.polishLam, "the SQP polish's multipliers"}
}

// symRows is A as rows.
func symRows(A *mat.SymDense) [][]float64 {
	n := A.SymmetricDim()
	B := make([][]float64, n)
	for i := range B {
		B[i] = make([]float64, n)
		for j := range n {
			B[i][j] = A.At(i, j)
		}
	}
	return B
}

// lagGrad stores in g the gradient of the Lagrangian f0 + sum lam_i fi
// from the functions' gradients rows (len M+1).
func lagGrad(rows [][]float64, lam, g []float64) {
	copy(g, rows[0])
	for i, l := range lam {
		if l != 0 {
			floats.AddScaled(g, l, rows[i+1])
		}
	}
}
