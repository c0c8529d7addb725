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
// there is none.
// lam0 (len M, may be nil) are multipliers to start from. Evaluation
// errors at trial points shorten the step; the polish never fails the
// solve.
func (s *solver) sqpPolish(pt *Point, lam0 []float64) *Point {
	n, m := s.n, s.m
	rows := s.sqpRows()
	x := clone(pt.X)
	lam := make([]float64, m)
	if lam0 != nil {
		copy(lam, lam0)
	}
	nu := 0.0
	var kept *Point
	var keptLam []float64
	stopped := false // the program's step at x was zero to rounding
	relam := false   // a refused step was redone with the program's multipliers
	gradL := make([]float64, n)
	gradL2 := make([]float64, n)
	xh := make([]float64, n)
	trial := make([]float64, n)
	D := mat.NewDense(n, n, nil) // the differences, column j for x_j
	H := mat.NewSymDense(n, nil)
	var eig mat.EigenSym
	var cs []domain.Constraint
	// the variables' scales: the program is in the step over them, so
	// that its conditioning (and the floor of convexified) does not
	// depend on the units of x
	sc := make([]float64, n)
	for j, v := range pt.X {
		sc[j] = math.Max(1, math.Abs(v))
	}
	scaled := func(row []float64) []float64 {
		out := make([]float64, n)
		for j, v := range row {
			out[j] = v * sc[j]
		}
		return out
	}
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
		J := make([][]float64, m+1)
		for i := range J {
			J[i] = clone(g[i])
		}
		// the Hessian of the Lagrangian by forward differences
		lagGrad(J, lam, gradL)
		ok := true
		for j := range n {
			h := 1e-7 * math.Max(1, math.Abs(x[j]))
			copy(xh, x)
			xh[j] += h
			if s.eval(xh) != nil {
				ok = false
				break
			}
			g2, err := s.gradients()
			if err != nil {
				ok = false
				break
			}
			lagGrad(g2, lam, gradL2)
			for k := range n {
				D.Set(k, j, (gradL2[k]-gradL[k])/h)
			}
		}
		if !ok {
			break
		}
		for j := range n {
			for k := 0; k <= j; k++ {
				H.SetSym(k, j, (D.At(k, j)+D.At(j, k))/2*sc[k]*sc[j])
			}
		}
		// the rows that hold the step on a face: the equalities, the
		// inequalities with a multiplier or near zero
		var face [][]float64
		for _, e := range rows.eq {
			face = append(face, scaled(J[e[0]]))
		}
		for _, i := range rows.ineq {
			if lam[i-1] > 0 || vals[i] >= -1e-8*(1+math.Abs(vals[i])) {
				face = append(face, scaled(J[i]))
			}
		}
		B, good := convexified(H, face, &eig)
		if !good {
			break
		}
		// the quadratic program in the scaled step e = d / sc
		prog := &qp.Problem{H: B, C: scaled(J[0])}
		for _, i := range rows.ineq {
			prog.G = append(prog.G, scaled(J[i]))
			prog.Hv = append(prog.Hv, -vals[i])
		}
		for _, e := range rows.eq {
			prog.A = append(prog.A, scaled(J[e[0]]))
			prog.B = append(prog.B, -(vals[e[0]]-vals[e[1]])/2)
		}
		if s.p.DomainConstraints != nil {
			cs = s.p.DomainConstraints(x, cs[:0])
			for _, c := range cs {
				row := make([]float64, n)
				copy(row[c.Start:], c.Grad)
				prog.G = append(prog.G, scaled(row))
				prog.Hv = append(prog.Hv, -c.Value)
			}
		}
		for j := range n {
			r := sqpTrust * (1 + math.Abs(x[j])) / sc[j]
			up, down := make([]float64, n), make([]float64, n)
			up[j], down[j] = 1, -1
			prog.G = append(prog.G, up, down)
			prog.Hv = append(prog.Hv, r, r)
		}
		sol, err := qp.Solve(prog, qp.DefaultSettings)
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
			d[j] *= sc[j]
		}
		// the program's multipliers as the solver's (an equality's y on
		// its side h - tau when positive, on -h - tau when negative)
		next := make([]float64, m)
		big := 0.0
		for k, i := range rows.ineq {
			next[i-1] = math.Max(0, sol.Z[k])
			big = math.Max(big, next[i-1])
		}
		for k, e := range rows.eq {
			y := sol.Y[k]
			next[e[0]-1], next[e[1]-1] = math.Max(0, y), math.Max(0, -y)
			big = math.Max(big, math.Abs(y))
		}
		nu = math.Max(nu, 2*big)
		phi := vals[0] + nu*rows.violation(vals)
		slope := floats.Dot(J[0], d) - nu*rows.violation(vals)
		if floats.Norm(d, math.Inf(1)) <= 1e-15*(1+floats.Norm(x, math.Inf(1))) {
			lam, stopped = next, true
			break // x is a KKT point of the program to rounding
		}
		// the line search, with a second-order correction at each refused
		// trial step (at the full step it counters the Maratos effect,
		// shorter ones it bends back toward curved active constraints);
		// a change within the rounding of phi counts as no increase (as in
		// IPOPT's line search), or the last steps to a KKT point, which
		// change phi by less than its rounding, would all be refused
		noise := 10 * epsMachine * math.Abs(phi)
		accepted := false
		alpha := 1.0
		for range sqpHalves {
			for j := range x {
				trial[j] = x[j] + alpha*d[j]
			}
			s.project(trial)
			if s.eval(trial) == nil {
				val := s.vals[0] + nu*rows.violation(s.vals)
				if val <= phi+sqpArmijo*alpha*slope+noise {
					accepted = true
					break
				}
				if s.secondOrder(&rows, J, sol, trial) {
					if s.eval(trial) == nil && s.vals[0]+nu*rows.violation(s.vals) <= phi+sqpArmijo*alpha*slope+noise {
						accepted = true
						break
					}
				}
			}
			alpha /= 2
		}
		if !accepted && !relam {
			// the Hessian's multipliers may be what made the step poor:
			// once per polish, again from x with the program's own
			relam, lam = true, next
			continue
		}
		if !accepted {
			break
		}
		copy(x, trial)
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
	merit := func(p *Point) float64 { return p.Objective + nu*rows.violation(p.F) }
	if m0 := merit(pt); merit(kept) > m0+10*epsMachine*math.Abs(m0) {
		return nil // worse than pt beyond rounding
	}
	return kept
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
