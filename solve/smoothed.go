package solve

import "math"

// Smoothing gives smooth upper approximations f_mu >= f (mu > 0) of a
// Problem's functions whose kinks enter linearly, and their tangent
// values T: for every y, z in X and every function,
//
//	f(z) >= T(y) + <grad f_mu(y), z - y> + r(z) - r(y) - <grad r(y), z - y>,
//
// with r the function's kink-free rest, as weakly convex as the function.
// Package smoothing implements it for qrc models.
type Smoothing interface {
	// SetMu sets the smoothing parameter of the next evaluations.
	SetMu(mu float64)
	// Eval stores f_mu(x) in vals (len M+1).
	Eval(x, vals []float64) error
	// Grad stores in g the gradient of sum_i w[i] f_i,mu at the x of the
	// last Eval.
	Grad(w, g []float64) error
	// Tangent stores T(x) in vals (len M+1).
	Tangent(x, vals []float64) error
}

// The smoothed oracle solves (7) for a Problem with a Smoothing: it runs
// the smooth oracle on the smoothed (7), whose constraints are tighter
// (f_mu >= f), so its feasible points are feasible for (7), and then
// certifies its best point y with the multipliers w the smooth oracle
// reports: the tangent values make
//
//	Q(z) = T_L(y) + <grad L_mu(y, w), z - y> + mu_w/2 ||z - y||^2,
//
// with L the Lagrangian of (7) at w and mu_w its strong convexity, a
// lower bound on L(z, w) for every z in X, so min_X Q (at z* = Proj_X(y -
// grad/mu_w)) is a lower bound on the minimum of (7). Where the gap is
// above what the outer loop asks, mu is cut tenfold and the smoothed (7)
// solved again; mu is kept from one subproblem to the next.
type smoothedMethod struct {
	*solver
	inner smoothMethod // its solver is a copy of this one on the smoothed problem
	prob  Problem      // the smoothed problem
	mu    float64
	from  []float64 // the last round's point
	// boundAt is the point of the smoothed (7)'s best lower bound
	boundAt []float64
	vals    []float64 // f_mu or T at a point
	w, g    []float64
}

func (s *smoothedMethod) oracle() Oracle { return Smoothed }

func (s *smoothedMethod) warmMultipliers() []float64 { return s.inner.al.lam }

const (
	smoothedStartMu = 0.1   // the first smoothing parameter
	smoothedMinMu   = 1e-12 // mu is cut to at most this
	smoothedRounds  = 8     // smoothed solves at most per subproblem
)

func newSmoothedMethod(s *solver) *smoothedMethod {
	m := &smoothedMethod{solver: s, mu: smoothedStartMu}
	m.prob = *s.p
	sm := s.p.Smoothing
	m.prob.Eval, m.prob.Grad, m.prob.Jacobian = sm.Eval, sm.Grad, nil
	m.prob.Smooth = true
	m.vals = make([]float64, s.m+1)
	m.w = make([]float64, s.m+1)
	m.g = make([]float64, s.n)
	m.boundAt = make([]float64, s.n)
	m.inner.boundAt = m.boundAt
	return m
}

// solve runs the smooth oracle on the smoothed (7) at xt and certifies its
// output on (7). The output is in s.out, its exact values in s.outF.
func (s *smoothedMethod) solve(xt []float64, acc accuracy) (res subResult, halt haltReason, err error) {
	sm := s.p.Smoothing
	defer sm.SetMu(s.mu)
	evals := 0
	s.inner.from = nil
	// a subproblem asks for its own accuracy: start each from a smoother
	// function than the last one needed
	s.mu = math.Min(smoothedStartMu, 10*s.mu)
	for round := 0; round < smoothedRounds; round++ {
		sm.SetMu(s.mu)
		in := *s.solver
		in.p = &s.prob
		// the smoothed (7) to a quarter of the gap asked for: the rest
		// is for what the smoothing leaves
		in.epsHat2 = s.epsHat2 / 4
		inAcc := acc
		inAcc.Rel, inAcc.Abs = acc.Rel/2, acc.Abs/2
		s.inner.solver = &in
		res, halt, err = s.inner.solve(xt, inAcc)
		s.solver.stats = in.stats
		evals += res.Evals
		if err != nil {
			return res, halt, err
		}
		if res.Feasible {
			if err := s.certify(xt, &res); err != nil {
				return res, running, err
			}
		}
		res.Evals = evals
		if halt != running || !res.Feasible || s.settled(acc, &res, dist(s.out, xt)) || evals >= acc.MaxEvals {
			return res, halt, nil
		}
		if s.mu <= smoothedMinMu {
			break
		}
		// the gap that smoothing leaves grows like mu (the rows in the
		// band): aim at half the tolerance, cutting mu at least by half and
		// at most a thousandfold
		tol := s.gapTol(acc, dist(s.out, xt), res.KKTFactor(s.rhoHat))
		cut := math.Min(0.5, math.Max(1e-2, tol/(2*res.Gap())))
		s.mu = math.Max(smoothedMinMu, s.mu*cut)
		s.from = append(s.from[:0], s.out...)
		s.inner.from = s.from
	}
	return res, running, nil
}

// certify replaces res's values of the smoothed (7) by those of (7) at its
// point s.out: F and the feasibility from the exact functions, and the
// lower bound min_X Q at the multipliers res.Lambda.
func (s *smoothedMethod) certify(xt []float64, res *subResult) error {
	y := s.out
	q := 0.0
	for j := range y {
		d := y[j] - xt[j]
		q += d * d
	}
	// the exact values: y is feasible for (7) when the smoothing is an
	// upper approximation (checked)
	if err := s.eval(y); err != nil {
		return err
	}
	copy(s.outF, s.vals)
	res.F = s.vals[0] + s.rhoHat/2*q
	res.Feasible = true
	k, muw := s.rhoHat, s.rhoHat-s.rho
	s.w[0] = 1
	for i := 0; i < s.m; i++ {
		w, mu := s.conProx(i)
		if g := s.vals[i+1] + w/2*q; g > 0 {
			res.Feasible = false
		}
		s.w[i+1] = res.Lambda[i]
		k += res.Lambda[i] * w
		muw += res.Lambda[i] * mu
	}
	// the smoothed gradient of the Lagrangian and the tangent values at
	// the point of the smoothed (7)'s best bound
	y = s.boundAt
	q = 0
	for j := range y {
		d := y[j] - xt[j]
		q += d * d
	}
	sm := s.p.Smoothing
	s.stats.Evals++
	if err := sm.Eval(y, s.vals); err != nil {
		return s.solveErr(err)
	}
	s.stats.Grads++
	if err := sm.Grad(s.w, s.g); err != nil {
		return s.solveErr(err)
	}
	if err := sm.Tangent(y, s.vals); err != nil {
		return s.solveErr(err)
	}
	lval := s.vals[0] + s.rhoHat/2*q
	for i := 0; i < s.m; i++ {
		w, _ := s.conProx(i)
		lval += res.Lambda[i] * (s.vals[i+1] + w/2*q)
	}
	g, z := s.g, s.z
	for j := range g {
		g[j] += k * (y[j] - xt[j])
		z[j] = y[j] - g[j]/muw
	}
	s.project(z)
	bound := lval
	for j := range z {
		dz := z[j] - y[j]
		bound += g[j]*dz + muw/2*dz*dz
	}
	if math.IsNaN(bound) {
		bound = math.Inf(-1)
	}
	res.Lower = bound
	return nil
}
