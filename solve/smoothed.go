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
	o     *SmoothedOracle
	inner smoothMethod // its solver is a copy of this one on the smoothed problem
	prob  Problem      // the smoothed problem
	mu    float64
	from  []float64 // the last round's point
	// boundAt is the point of the smoothed (7)'s best lower bound
	boundAt []float64
	// approx holds f_mu or T at a point, lagW the Lagrangian's weights
	// (1, lambda) and lagG its smoothed gradient. They are named apart
	// from the solver's vals and w, which s.eval fills with the exact
	// values: a field named vals here would shadow them.
	approx     []float64
	lagW, lagG []float64
	// bestOut and bestOutF are the best exactly feasible point of the
	// subproblem's rounds so far and its exact values
	bestOut, bestOutF []float64
	// exactG are the constraints of (7) at the last exactAt point;
	// rejected and rejectedG are pullBack's copy of a rejected point and
	// its constraints
	exactG, rejected, rejectedG []float64
}

func (s *smoothedMethod) oracle() Oracle { return s.o }

func (s *smoothedMethod) warmMultipliers() []float64 { return s.inner.al.lam }

const (
	smoothedStartMu = 0.1   // the first smoothing parameter
	smoothedMinMu   = 1e-12 // mu is cut to at most this
	smoothedRounds  = 8     // smoothed solves at most per subproblem
)

func newSmoothedMethod(s *solver, o *SmoothedOracle) *smoothedMethod {
	m := &smoothedMethod{solver: s, o: o, mu: smoothedStartMu}
	m.prob = *s.p
	sm := o.Smoothing
	m.prob.Eval, m.prob.Grad, m.prob.Jacobian = sm.Eval, sm.Grad, nil
	m.prob.Smooth = true
	m.approx = make([]float64, s.m+1)
	m.lagW = make([]float64, s.m+1)
	m.lagG = make([]float64, s.n)
	m.exactG = make([]float64, s.m)
	m.boundAt = make([]float64, s.n)
	m.inner.boundAt = m.boundAt
	return m
}

// solve runs the smooth oracle on the smoothed (7) at xt and certifies its
// output on (7). Every round's certified bound and exactly feasible point
// are valid for (7) whatever its mu, so the result has the highest bound
// (with its multipliers) and the feasible point with the lowest exact F
// of all rounds: a round at a tiny mu, whose smoothed (7) is ill
// conditioned, cannot make them worse. The output is in s.out, its exact
// values in s.outF.
func (s *smoothedMethod) solve(xt []float64, acc accuracy) (best subResult, halt haltReason, err error) {
	sm := s.o.Smoothing
	defer sm.SetMu(s.mu)
	best = subResult{F: math.Inf(1), Lower: math.Inf(-1), Lambda: make([]float64, s.m)}
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
		inAcc.MaxEvals = acc.MaxEvals - best.Evals
		s.inner.solver = &in
		res, h, err := s.inner.solve(xt, inAcc)
		s.solver.stats = in.stats
		best.Evals += res.Evals
		if err != nil {
			return best, h, err
		}
		if res.Feasible {
			if err := s.certify(xt, &res); err != nil {
				return best, running, err
			}
		}
		s.keepBest(&best, &res)
		if h != running || !best.Feasible || s.settled(acc, &best, dist(s.out, xt)) || best.Evals >= acc.MaxEvals {
			return best, h, nil
		}
		if s.mu <= smoothedMinMu {
			break
		}
		// the gap that smoothing leaves grows like mu (the rows in the
		// band): aim at half the tolerance, cutting mu at least by half and
		// at most a hundredfold
		tol := s.gapTol(acc, dist(s.out, xt), best.KKTFactor(s.rhoHat))
		cut := math.Min(0.5, math.Max(1e-2, tol/(2*best.Gap())))
		s.mu = math.Max(smoothedMinMu, s.mu*cut)
		s.from = append(s.from[:0], s.out...)
		s.inner.from = s.from
	}
	return best, running, nil
}

// keepBest folds a round's certified result res into best: the lower
// bound and its multipliers when res's is higher, the point (s.out, from
// the round) when it is feasible with a lower F, else s.out is set back
// to best's point. When no round was feasible, s.out is the last round's
// point and best.F its value.
func (s *smoothedMethod) keepBest(best, res *subResult) {
	best.Nonconvex = best.Nonconvex || res.Nonconvex
	if res.Feasible && res.Lower > best.Lower {
		best.Lower = res.Lower
		copy(best.Lambda, res.Lambda)
		best.Prox = res.Prox
	}
	switch {
	case res.Feasible && res.F < best.F:
		best.F, best.Feasible = res.F, true
		s.bestOut = append(s.bestOut[:0], s.out...)
		s.bestOutF = append(s.bestOutF[:0], s.outF...)
	case best.Feasible:
		copy(s.out, s.bestOut)
		copy(s.outF, s.bestOutF)
	default:
		best.F = res.F
	}
}

// certify replaces res's values of the smoothed (7) by those of (7) at its
// point s.out: F and the feasibility from the exact functions, and the
// lower bound min_X Q at the multipliers res.Lambda. A point the exact
// constraints reject (f_mu >= f excludes it up to rounding, unless the
// Smoothing breaks its contract) is pulled back towards x_t (pullBack);
// res.Feasible is true only for a point the exact functions accept.
func (s *smoothedMethod) certify(xt []float64, res *subResult) error {
	feasible, err := s.exactAt(s.out, xt, res)
	if err != nil {
		return err
	}
	if !feasible {
		if err := s.pullBack(xt, res); err != nil {
			return err
		}
	}
	k, muw := s.rhoHat, s.rhoHat-s.rho
	s.lagW[0] = 1
	for i := 0; i < s.m; i++ {
		w, mu := s.conProx(i)
		s.lagW[i+1] = res.Lambda[i]
		k += res.Lambda[i] * w
		muw += res.Lambda[i] * mu
	}
	y := s.boundAt
	q := 0.0
	for j := range y {
		d := y[j] - xt[j]
		q += d * d
	}
	// the smoothed gradient of the Lagrangian and the tangent values at
	// the point of the smoothed (7)'s best bound
	sm := s.o.Smoothing
	s.stats.Evals++
	if err := sm.Eval(y, s.approx); err != nil {
		return s.solveErr(err)
	}
	s.stats.Grads++
	if err := sm.Grad(s.lagW, s.lagG); err != nil {
		return s.solveErr(err)
	}
	if err := sm.Tangent(y, s.approx); err != nil {
		return s.solveErr(err)
	}
	lval := s.approx[0] + s.rhoHat/2*q
	for i := 0; i < s.m; i++ {
		w, _ := s.conProx(i)
		lval += res.Lambda[i] * (s.approx[i+1] + w/2*q)
	}
	g, z := s.lagG, s.z
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

// exactAt evaluates the exact functions at y, stores their values in
// s.outF, the (7) values in s.exactG (constraints) and res.F (objective),
// sets res.Feasible to whether (7)'s constraints hold at y, and returns
// it.
func (s *smoothedMethod) exactAt(y, xt []float64, res *subResult) (bool, error) {
	if err := s.eval(y); err != nil {
		return false, err
	}
	half := 0.0
	for j := range y {
		d := y[j] - xt[j]
		half += d * d / 2
	}
	copy(s.outF, s.vals)
	res.F = s.vals[0] + s.rhoHat*half
	res.Feasible = true
	for i := 0; i < s.m; i++ {
		w, _ := s.conProx(i)
		s.exactG[i] = s.vals[i+1] + w*half
		if s.exactG[i] > 0 {
			res.Feasible = false
		}
	}
	return res.Feasible, nil
}

// pullBack moves s.out, which the exact constraints of (7) reject (their
// values in s.exactG), to the point of the segment from x_t where the
// linear interpolation of every Gi is below 0 (segmentFraction), as the
// smooth oracle pulls its iterates back: feasible when the Gi are convex
// and x_t is strictly feasible, and checked on the exact functions. When
// x_t is not strictly feasible, or the point is not feasible either,
// res.Feasible stays false and s.out is the rejected point.
func (s *smoothedMethod) pullBack(xt []float64, res *subResult) error {
	gy := append(s.rejectedG[:0], s.exactG...)
	s.rejectedG = gy
	rejected := append(s.rejected[:0], s.out...)
	s.rejected = rejected
	var atXt subResult
	if _, err := s.exactAt(xt, xt, &atXt); err != nil {
		return err
	}
	t, ok := segmentFraction(gy, s.exactG)
	if ok {
		for j := range s.out {
			s.out[j] = xt[j] + t*(rejected[j]-xt[j])
		}
		if _, err := s.exactAt(s.out, xt, res); err != nil {
			return err
		}
		if res.Feasible {
			return nil
		}
	}
	copy(s.out, rejected)
	_, err := s.exactAt(s.out, xt, res)
	return err
}
