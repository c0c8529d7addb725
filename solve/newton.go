package solve

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The Newton polish refines a point where the accurate oracle stalled
// short of the KKT tolerance (status Stalled: it could neither move the
// point nor certify it), on small smooth problems. First-order
// subproblem solvers reach a KKT residual of about 1e-6 relative and no
// further on problems such as hs029, whose points are at f* to 1e-9 but
// end stalled; a few Newton steps on the KKT conditions of the active
// constraints (the step of an SQP method with the exact Hessian of the
// Lagrangian, here by differences of gradients) reach the rounding level.
// The polish only proposes a point: it is kept when it is feasible and not
// worse, and the point returned is certified, or not, by the certificate
// as any other (the KKT residual at it, docs/solver.md). It is not part of
// the paper's method.

const (
	newtonEvery      = 50  // outer steps of an accurate oracle between two Newton polishes
	newtonPolishMaxN = 100 // variables at most
	newtonPolishMaxM = 100 // constraints at most
	newtonPolishIter = 8   // Newton steps at most
)

// newtonPolishes reports whether the Newton polish may run on the solve's
// problem: smooth, small, without equalities (whose bands would give the
// KKT system two opposite rows), at the smooth oracle's accuracy.
func (s *solver) newtonPolishes() bool {
	return s.p.Smooth && s.acc != nil && s.p.eqSide == nil && s.n <= newtonPolishMaxN && s.m <= newtonPolishMaxM && s.set.Eps <= kktAtXEps
}

// newtonPolish returns a point reached from pt by Newton steps on the KKT
// conditions, feasible to Eps and with an objective at most pt's (to
// rounding), or nil when no step was kept. lam0 (len M, may be nil) are
// multipliers to start from.
func (s *solver) newtonPolish(pt *Point, lam0 []float64) (*Point, error) {
	n, m := s.n, s.m
	x := clone(pt.X)
	lam := make([]float64, m)
	if lam0 != nil {
		copy(lam, lam0)
	}
	var kept *Point
	resid := math.Inf(1)
	gradL := make([]float64, n)
	gradL2 := make([]float64, n)
	xh := make([]float64, n)
	z := make([]float64, n)
	for range newtonPolishIter {
		if s.halted() != running {
			break
		}
		if err := s.eval(x); err != nil {
			return kept, nil // a point it cannot evaluate: keep what it has
		}
		vals := clone(s.vals)
		rows, err := s.gradients()
		if err != nil {
			return kept, nil
		}
		J := make([][]float64, m+1)
		for i := range J {
			J[i] = clone(rows[i])
		}
		lagGrad(J, lam, gradL)
		// the KKT residual here (the projected gradient of the
		// Lagrangian, and the active constraints' values)
		r := projectedNorm(s, x, gradL, z)
		for i := 0; i < m; i++ {
			if lam[i] > 0 || vals[i+1] > 0 {
				r = math.Max(r, math.Abs(vals[i+1]))
			}
		}
		if r >= resid {
			break // no progress: the last kept point stays
		}
		resid = r
		// x after a step (not pt itself), with a lower residual: kept when
		// feasible and no worse than pt
		if !floats.Equal(x, pt.X) && infeasibility(vals) <= s.set.Eps && vals[0] <= pt.Objective+1e-12*(1+math.Abs(pt.Objective)) {
			q := pointAt(x, vals, pt.T)
			kept = &q
		}
		// the active set: constraints near zero or with a multiplier,
		// variables not held by X
		var act []int
		for i := 0; i < m; i++ {
			if lam[i] > 0 || vals[i+1] >= -1e-8*(1+math.Abs(vals[i+1])) {
				act = append(act, i)
			}
		}
		var free []int
		for j := range z {
			z[j] = x[j] - gradL[j]
		}
		s.project(z)
		for j := range z {
			if math.Abs(z[j]-(x[j]-gradL[j])) <= 1e-12*(1+math.Abs(x[j])+math.Abs(gradL[j])) {
				free = append(free, j)
			}
		}
		nf, na := len(free), len(act)
		if nf == 0 {
			break
		}
		// the Hessian of the Lagrangian over the free variables, by
		// forward differences of its gradient
		H := mat.NewDense(nf+na, nf+na, nil)
		for a, j := range free {
			h := 1e-7 * math.Max(1, math.Abs(x[j]))
			copy(xh, x)
			xh[j] += h
			if err := s.eval(xh); err != nil {
				return kept, nil
			}
			rows2, err := s.gradients()
			if err != nil {
				return kept, nil
			}
			lagGrad(rows2, lam, gradL2)
			for b, k := range free {
				H.Set(b, a, (gradL2[k]-gradL[k])/h)
			}
		}
		for a := range nf {
			for b := range a {
				v := (H.At(a, b) + H.At(b, a)) / 2
				H.Set(a, b, v)
				H.Set(b, a, v)
			}
		}
		rhs := mat.NewVecDense(nf+na, nil)
		for a, j := range free {
			rhs.SetVec(a, -gradL[j])
		}
		for c, i := range act {
			for a, j := range free {
				H.Set(nf+c, a, J[i+1][j])
				H.Set(a, nf+c, J[i+1][j])
			}
			rhs.SetVec(nf+c, -vals[i+1])
		}
		var sol mat.VecDense
		if err := sol.SolveVec(H, rhs); err != nil {
			break // singular: the constraints' gradients are dependent
		}
		for a, j := range free {
			x[j] += sol.AtVec(a)
		}
		s.project(x)
		for c, i := range act {
			lam[i] = math.Max(0, lam[i]+sol.AtVec(nf+c))
		}
		if !finite(x) || !finite(lam) {
			break
		}
	}
	return kept, nil
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

// projectedNorm is ||x - Proj_X(x - v)||, with z as work space.
func projectedNorm(s *solver, x, v, z []float64) float64 {
	for j := range z {
		z[j] = x[j] - v[j]
	}
	s.project(z)
	return floats.Distance(x, z, 2)
}
