package solve

import (
	"math"
	"math/rand/v2"
)

// Sampler lets the stochastic oracle estimate a Problem's functions from
// minibatches. Eval and Grad read whichever data the last call selected.
type Sampler interface {
	// Draw makes the following Eval and Grad calls estimate f0..fM and
	// their subgradients from a fresh minibatch drawn with rng, without
	// bias: E[Eval] = f and E[Grad] is a subgradient of f.
	Draw(rng *rand.Rand) error
	// Monitor makes them compute the values the solver tracks progress
	// with at outer iterations: the full data, or a fixed sample of very
	// large data. It reports whether those values are exact.
	Monitor() (exact bool)
	// Full makes them exact: every row of every data set.
	Full()
}

// stochasticSeedStream separates the minibatch draws from the random pick.
const stochasticSeedStream = 0x5851f42d4c957f2d

// Algorithm3 returns the V and alpha Algorithm 3 uses with K inner
// iterations: o's V and Alpha, or the paper's sqrt(K) and K where they
// are 0.
func (o *StochasticOracle) Algorithm3(K int) (V, alpha float64) {
	V, alpha = o.V, o.Alpha
	if V == 0 {
		V = math.Sqrt(float64(K))
	}
	if alpha == 0 {
		alpha = float64(K)
	}
	return V, alpha
}

// stochasticMethod is Algorithm 3 as the solve's oracle (algorithm3),
// with Algorithm 2's steps on minibatch estimates for phase 1.
type stochasticMethod struct {
	*solver
	o            *StochasticOracle
	queue, theta []float64   // Q_i; the estimates theta~_i of the current iterate
	zeta         [][]float64 // zeta_i, the per-function stochastic subgradients
}

// newStochasticMethod allocates the virtual queues, the estimates and the
// rows of the per-function subgradients, and the solver's minibatch
// generator.
func newStochasticMethod(s *solver, o *StochasticOracle) *stochasticMethod {
	m := &stochasticMethod{solver: s, o: o, queue: make([]float64, s.m+1), theta: make([]float64, s.m+1), zeta: make([][]float64, s.m+1)}
	for i := range m.zeta {
		m.zeta[i] = make([]float64, s.n)
	}
	s.znew = make([]float64, s.n)
	s.rng = rand.New(rand.NewPCG(s.set.Seed, stochasticSeedStream))
	return m
}

func (m *stochasticMethod) oracle() Oracle  { return m.o }
func (m *stochasticMethod) estimates() bool { return true }

// step is Algorithm 3 in phase 2; in phase 1, Algorithm 2's phase-1 steps
// on minibatch estimates (see algorithm3).
func (m *stochasticMethod) step(xt []float64, phase1 bool) (oracleInfo, error) {
	if !phase1 {
		return m.algorithm3(xt, m.set.Inner, true)
	}
	m.sampled = true
	info, err := m.algorithm2(xt, m.set.Inner, true, true)
	m.sampled = false
	m.monitorMode()
	return info, err
}

// consistent is the descent test alone, with the tolerance
// EpsHat + (1 + |H(x_t)|)/sqrt(K) in place of EpsHat^2: Algorithm 3's
// guarantees hold with high probability, its accuracy is O(1/sqrt(K)) and
// its output is feasible only to O(1/sqrt(K)), so a tighter test doubles
// RhoHat on noise (and a larger RhoHat slows the method down), while a
// subproblem that is not convex still shows as a gross increase.
func (m *stochasticMethod) consistent(cur, next *Point, _ oracleInfo, phase1 bool) bool {
	q := m.rhoHat / 2 * sqDistance(next.X, cur.X)
	gn := gOf(next.F)
	h0 := cur.F[0]
	if phase1 {
		h0 = gOf(cur.F)
	}
	tol := m.set.EpsHat + (1+math.Abs(h0))/math.Sqrt(float64(m.set.Inner))
	if phase1 {
		return gn+q <= h0+tol
	}
	return next.F[0]+q <= h0+tol
}

// algorithm3 runs Algorithm 3 for K iterations on the subproblem (7)
// at xt, every fi estimated on a fresh minibatch at each iteration, and
// leaves its output, the plain average of z_0..z_{K-1}, in s.out:
//
//	theta~_i = theta_i(z_k) + RhoHat/2 ||z_k - xt||^2,  zeta~_i = zeta_i(z_k) + RhoHat (z_k - xt),
//	z_{k+1} = Proj_X(z_k - (V zeta~_0 + sum_i Q_i zeta~_i) / (2 alpha)),
//	Q_i <- max(Q_i + theta~_i + zeta~_i . (z_{k+1} - z_k), 0),
//
// with V = sqrt(K) and alpha = K unless StochasticOracle.V and Alpha say
// otherwise. (The z-update is the argmin over X of the linearisation plus
// alpha ||z - z_k||^2, i.e. a projected step. The paper's Algorithm 3
// prints zeta rather than zeta~ in it; zeta~, the subgradient of the
// subproblem's functions F_i, is what Yu et al.'s method applied to (7)
// uses, and is used here.) The queues start at 0 at each call.
//
// Phase 1 does not use Algorithm 3: from an infeasible start its queues
// grow without bound and its steps with them. It uses Algorithm 2's
// phase-1 steps (min over X of max_i fi + RhoHat/2 ||z - xt||^2, stepping
// on the largest estimate) on minibatch estimates, with the step sizes
// 2/((RhoHat-Rho)(k+2)) that keep them stable. Phase 2 has no restoring
// steps with this oracle (see run).
func (s *stochasticMethod) algorithm3(xt []float64, K int, record bool) (oracleInfo, error) {
	var info oracleInfo
	V, alpha := s.o.Algorithm3(K)
	z, d, diff := s.z, s.d, s.diff
	copy(z, xt)
	clear(s.zsum)
	clear(s.queue)
	every := 0
	if record && s.set.Recorder != nil {
		every = s.set.RecordEvery
	}
	defer s.monitorMode()
	for k := 0; k < K; k++ {
		if h := s.halted(); h != running {
			info.halt = h
			return info, nil
		}
		for j, zj := range z {
			s.zsum[j] += zj
		}
		q, err := s.evalInner(z, xt, k, true, &info)
		if err != nil {
			return info, err
		}
		feasible := true
		for i := 0; i <= s.m; i++ {
			s.theta[i] = s.vals[i] + q
			if i > 0 && s.theta[i] > 0 {
				feasible = false
			}
		}
		if feasible {
			info.nObj++
		}
		if every > 0 && (k+1)%every == 0 && !s.recordInner(z, k, &info, false) {
			info.halt = haltRecorder
			return info, nil
		}
		// the per-function stochastic subgradients zeta_i (without the
		// proximal term, which is added once below)
		rows, err := s.gradients()
		if err != nil {
			return info, err
		}
		for i := 0; i <= s.m; i++ {
			copy(s.zeta[i], rows[i])
		}
		weight := V // V + sum_i Q_i: the weight of the proximal term
		for j, g := range s.zeta[0] {
			d[j] = V * g
		}
		for i := 1; i <= s.m; i++ {
			if qi := s.queue[i]; qi > 0 {
				weight += qi
				for j, g := range s.zeta[i] {
					d[j] += qi * g
				}
			}
		}
		step := 1 / (2 * alpha)
		for j := range z {
			s.znew[j] = z[j] - step*(d[j]+weight*s.rhoHat*diff[j])
		}
		s.project(s.znew)
		// queue update with the linearised constraint
		for j := range d {
			d[j] = s.znew[j] - z[j] // d is now the step z_{k+1} - z_k
		}
		proxDot := 0.0
		for j := range d {
			proxDot += s.rhoHat * diff[j] * d[j]
		}
		for i := 1; i <= s.m; i++ {
			lin := s.theta[i] + proxDot
			for j, g := range s.zeta[i] {
				lin += g * d[j]
			}
			s.queue[i] = math.Max(s.queue[i]+lin, 0)
		}
		copy(z, s.znew)
	}
	for j := range s.out {
		s.out[j] = s.zsum[j] / float64(K)
	}
	return info, nil
}

// drawMode makes the next evaluations use a fresh minibatch.
func (s *solver) drawMode() error {
	if s.p.Sampler == nil {
		return nil
	}
	s.mode = modeDraw
	return s.p.Sampler.Draw(s.rng)
}

// monitorMode makes the next evaluations use the monitoring data.
func (s *solver) monitorMode() {
	if s.p.Sampler == nil || s.mode == modeMonitor {
		return
	}
	s.monitorExact = s.p.Sampler.Monitor()
	s.mode = modeMonitor
}

// exactMode makes the next evaluations exact.
func (s *solver) exactMode() {
	if s.p.Sampler == nil || s.mode == modeFull {
		return
	}
	s.p.Sampler.Full()
	s.mode = modeFull
}

// sampleMode is what data the Problem's Sampler has selected.
type sampleMode int

const (
	modeFull sampleMode = iota
	modeMonitor
	modeDraw
)

// maxPolish bounds the deterministic rounds of polish.
const maxPolish = 5

// bisections is the number of halvings of a segment polish searches.
const bisections = 30

// MaxPolishCost is the largest cost of an evaluation on all rows, in
// minibatch evaluations (CostReporter), for which polish takes
// deterministic steps; above it, polish only bisects.
const MaxPolishCost = 100

// CostReporter is an optional interface of a Sampler: FullCost is the cost
// of an evaluation on all rows relative to one on a minibatch (the ratio
// of their rows). Without it the full data are assumed cheap.
type CostReporter interface {
	FullCost() float64
}

// polish makes the stochastic oracle's last point feasible on every row.
// Algorithm 3's averaged output violates the constraints by O(1/sqrt(K))
// (its queues start at 0 and need about sqrt(K) steps' worth of violation
// to balance the objective), which for the default K is above Eps. When
// the point x_s's exact infeasibility exceeds Eps, polish finds points
// feasible to Eps near it and returns the one with the lowest objective:
//
//  1. a bisection on the segment from the best feasible outer iterate x_b
//     (X is convex, so the segment lies in X) to x_s for the point nearest
//     x_s with infeasibility at most Eps (bisections evaluations on all
//     rows);
//  2. when an evaluation on all rows costs at most MaxPolishCost minibatch
//     evaluations: deterministic steps from x_s (Algorithm 2 on every row on
//     the subproblem (7) at the current point, which steps on the
//     constraints until the iterates are feasible for (7), or, once such a
//     step fails to reduce the infeasibility, phase-1 steps, stopping at the
//     first iterate with infeasibility at most Eps), up to maxPolish rounds,
//     until the infeasibility is at most Eps, and then the same bisection
//     from that point to x_s.
//
// A round of step 2 costs Inner evaluations on every row, which is why it
// is skipped on large data. Polish may run GraceTime past the time limit
// (a cancelled context interrupts it); what it has not done by then is left out. Stats.Polish counts the rounds of step 2. When neither
// step finds a feasible point, x_s is returned and finish falls back on
// Best.
func (s *solver) polish(pt Point) (Point, error) {
	s.grace = true // at most GraceTime past the time limit
	defer func() { s.grace = false }()
	defer s.beginStage("polish", &pt)()
	s.exactMode()
	defer s.monitorMode()
	xs, err := s.evaluate(pt.X, pt.T)
	if err != nil || xs.Infeasibility <= s.set.Eps {
		return xs, err
	}
	var best *Point
	keep := func(p Point) {
		if best == nil || p.Objective < best.Objective {
			best = &p
		}
	}
	if s.tr.Best != nil {
		xb, err := s.evaluate(s.tr.Best.X, s.tr.Best.T)
		if err != nil {
			return xs, err
		}
		if xb.Infeasibility <= s.set.Eps {
			p, err := s.bisect(xb, xs)
			if err != nil {
				return xs, err
			}
			keep(p)
		}
	}
	if c, ok := s.p.Sampler.(CostReporter); !ok || c.FullCost() <= MaxPolishCost {
		xp, err := s.deterministicPolish(xs)
		if err != nil {
			return xs, err
		}
		if xp.Infeasibility <= s.set.Eps {
			p, err := s.bisect(xp, xs)
			if err != nil {
				return xs, err
			}
			keep(p)
		}
	}
	if best == nil {
		return xs, nil
	}
	best.T = pt.T
	s.track(best)
	return *best, nil
}

// deterministicPolish is step 2 of polish: from xs, deterministic or
// phase-1 steps on all rows until the infeasibility is at most Eps.
func (s *solver) deterministicPolish(xs Point) (Point, error) {
	cur := xs
	phase1 := false
	for round := 0; round < maxPolish && cur.Infeasibility > s.set.Eps; round++ {
		info, err := s.algorithm2(cur.X, s.set.Inner, phase1, false)
		if err != nil {
			return cur, err
		}
		s.stats.Polish++
		if info.halt != running {
			break
		}
		next := cur
		if !info.emptyI {
			if next, err = s.evaluate(s.out, xs.T); err != nil {
				return cur, err
			}
		}
		if next.Infeasibility >= cur.Infeasibility {
			// (7) has no point feasible to EpsHat^2 near cur: minimise
			// the violation instead (phase-1 steps, on every row)
			if phase1 {
				break
			}
			phase1 = true
			continue
		}
		cur = next
	}
	return cur, nil
}

// bisect searches the segment from the feasible point a to xs for the
// point nearest xs with infeasibility at most Eps, and returns the one with
// the lowest objective among a and the feasible points it evaluated.
func (s *solver) bisect(a, xs Point) (Point, error) {
	best := a
	lo, hi := 0.0, 1.0 // x(lo) is feasible, x(hi) = xs is not
	x := make([]float64, s.n)
	for range bisections {
		if s.halted() != running {
			break // the time limit (with its grace) or a cancelled context
		}
		tau := (lo + hi) / 2
		for j := range x {
			x[j] = a.X[j] + tau*(xs.X[j]-a.X[j])
		}
		p, err := s.evaluate(x, xs.T)
		if err != nil {
			return best, err
		}
		if p.Infeasibility <= s.set.Eps {
			lo = tau
			if p.Objective < best.Objective {
				best = p
			}
		} else {
			hi = tau
		}
	}
	return best, nil
}
