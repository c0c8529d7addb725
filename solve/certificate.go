package solve

import (
	"errors"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"
)

// errHalted is certificate's reason when the time limit or a cancelled
// context ended its oracle run.
var errHalted = "the time limit ran out before the certificate finished"

// certifier is the accurate oracle's run that certifies points: the
// solve's own when its oracle is accurate, else a run of Auto(p) (Smooth
// for a smooth Problem, Bundle otherwise) made on first use and kept, with
// its warm start, for the solve's later certificates.
func (s *solver) certifier() accurateMethod {
	if s.acc != nil {
		return s.acc
	}
	if s.certs == nil {
		s.certs = Auto(s.p).start(s).(accurateMethod)
	}
	return s.certs
}

// accurateStep makes one outer step from cur with the solve's accurate
// oracle. When the oracle finds evidence that (7) is not
// (RhoHat-Rho)-strongly convex (subResult.Nonconvex: a secant of a
// function that must be strongly convex with a smaller curvature, or a
// lower bound above the value of the feasible x_t), RhoHat and Rho are
// doubled and the step is redone, unless the safeguard is off or
// exhausted.
func (s *solver) accurateStep(cur *Point) (next Point, sub subResult, doubled bool, halt haltReason, err error) {
	s.t = cur.T + 1
	for {
		acc := accuracy{Rel: 0.1, Abs: 0.25 * s.set.Eps, MaxEvals: s.effortFactor() * s.set.MaxEvals}
		sub, halt, err = s.acc.solve(cur.X, acc)
		if err != nil {
			return
		}
		if halt != running {
			if sub.Feasible {
				// the oracle evaluated its best feasible point already: no
				// evaluation past the time limit (a second on 10^7 rows)
				next = pointAt(s.out, s.outF, s.t)
			}
			return
		}
		if g := gOf(cur.F); g <= 0 && sub.Lower > cur.F[0]+1e-10*(1+math.Abs(cur.F[0])) {
			sub.Nonconvex = true // weak duality fails: min (7) <= F(x_t)
		}
		if !sub.Nonconvex || s.set.NoSafeguard || s.stats.RhoDoublings >= MaxRhoDoublings {
			break
		}
		s.rhoHat *= 2
		s.rho *= 2
		s.stats.RhoDoublings++
		doubled = true
		s.rhoFloor = s.rhoHat // evidence: never halve below this again
	}
	next, err = s.evaluate(s.out, s.t)
	return
}

// maxEffort is the largest factor by which a stalled solve raises its
// accurate oracle's effort (MaxEvals, the bundle's patience) before it ends
// with status Stalled.
const maxEffort = 16

// effortFactor is the factor on the accurate oracles' effort.
func (s *solver) effortFactor() int { return max(1, s.effort) }

// rhoDown lets RhoHat come down again after the switching oracle's
// safeguard doubled it: after rhoDownAfter outer steps in a row without a
// doubling, RhoHat and Rho halve, never below their starting values. (The
// switching oracle's descent test also fails when its fixed K iterations
// were too few, not only on nonconvexity; the accurate oracles double only
// on evidence of nonconvexity and never come down.)
func (s *solver) rhoDown(doubled bool) {
	if doubled {
		s.sinceDoubling = 0
		return
	}
	s.sinceDoubling++
	if s.sinceDoubling >= rhoDownAfter && s.rhoHat/2 >= s.set.RhoHat && s.rho/2 >= s.set.Rho {
		s.rhoHat /= 2
		s.rho /= 2
		s.sinceDoubling = 0
	}
}

// rhoFollow lets RhoHat follow the model with an accurate oracle. The
// proximal-point steps shrink geometrically near a solution, the faster
// the smaller RhoHat is relative to the curvature there; when a step is
// more than slowContraction times the previous one and its subproblem
// showed no sign of nonconvexity (no doubling), RhoHat and Rho halve, down
// to MinRhoHatFactor times their starting values, never below a value that
// a doubling reached (the evidence of nonconvexity holds on), and never
// below twice a known modulus Problem.WeakConvexity (Rho not below it). The oracle keeps
// checking the curvature its bound assumes and doubles RhoHat again on
// evidence against it.
func (s *solver) rhoFollow(doubled bool, step float64) {
	prev := s.lastStep
	s.lastStep = step
	if doubled || s.set.NoSafeguard || prev == 0 || step <= slowContraction*prev {
		return
	}
	low := s.set.rhoHatLow
	if low == 0 {
		low = MinRhoHatFactor * s.set.RhoHat
	}
	if step >= prev {
		s.growing++
	} else {
		s.growing = 0
	}
	if s.growing >= runawaySteps {
		// the steps have not shrunk for runawaySteps outer steps: the
		// iterates run off (an objective unbounded below on an unbounded
		// domain, or a minimum far out): the floor would make the steps
		// grow only linearly, and the run never end
		low = runawayRhoHatFactor * s.set.RhoHat
	}
	if s.rhoHat/2 >= max(low, s.rhoFloor) {
		s.rhoHat /= 2
		s.rho /= 2
	}
}

// After runawaySteps outer steps in a row none shorter than the last,
// RhoHat may come down to runawayRhoHatFactor times its start instead of
// MinRhoHatFactor: the steps then grow geometrically, so that an
// objective unbounded below shows as Unbounded in a few dozen steps.
const (
	runawaySteps        = 10
	runawayRhoHatFactor = 1e-30
)

// certOf is the certificate of x from the accurate oracle's solution of
// (7) at x, left in s.out.
func (s *solver) certOf(x *Point, sub *subResult) *Certificate {
	mu := s.rhoHat - s.rho
	c := &Certificate{
		Oracle:      s.certifier().oracle().String(),
		XHat:        clone(s.out),
		Evals:       sub.Evals,
		Dist:        dist(x.X, s.out),
		DistBound:   sub.DistBound(mu),
		Gap:         sub.Gap(),
		Multipliers: clone(sub.Lambda),
	}
	c.Stationarity = sub.KKTFactor(s.rhoHat) * (c.Dist + c.DistBound)
	c.Proven = s.p.ProvenRho > 0 && s.rho >= s.p.ProvenRho && !s.p.nonlinearEq
	// the augmented Lagrangian's own multipliers are often the more
	// accurate ones: the better check of the two counts
	c.KKT = s.kktAt(x.X,
		multipliers{sub.Lambda, "the multipliers of (7)"},
		multipliers{s.certifier().warmMultipliers(), "the oracle's augmented-Lagrangian multipliers"},
		s.polishMultipliers(x.X))
	// with a nonlinear equality (7) is not strongly convex, its bound
	// proves nothing, and only the KKT residual at x certifies
	byGap := c.Stationarity <= s.set.Eps && c.Dist+c.DistBound <= s.set.Eps && !s.p.nonlinearEq
	c.Stationary = x.Infeasibility <= s.set.Eps && s.inBands(x.F) && (byGap || s.kktCertifies() && c.KKT.Holds(s.set.Eps))
	return c
}

// kktAtXEps is the largest Eps at which the KKT residual at x itself
// (Certificate.KKT) can certify x. The bound at x_hat goes through
// sqrt(2 Gap/mu), so below about 1e-4 it needs gaps near the rounding of
// F; at a larger Eps it is the paper's certificate (Definition 2) alone.
const kktAtXEps = 1e-4

// inBands reports whether the values f meet every equality to within its
// band (split), as the accurate oracles' points do: phase 1 leaves the
// equalities within Eps only (phaseG), and such a point is stepped from,
// not certified, so that a point returned as converged meets an affine
// equality to 1e-10.
func (s *solver) inBands(f []float64) bool {
	for i, eq := range s.p.eqSide {
		if eq && f[i+1] > 0 {
			return false
		}
	}
	return true
}

// kktCertifies reports whether the KKT residual at x can certify x:
// when Eps <= kktAtXEps, and always with a nonlinear equality, where
// nothing else can.
func (s *solver) kktCertifies() bool { return s.set.Eps <= kktAtXEps || s.p.nonlinearEq }

// kktAt measures, when Eps <= kktAtXEps, the KKT residual of a smooth problem at x with each of
// the candidate multipliers lams (len M each; nil ones are skipped) by one
// evaluation and a gradient per candidate, and returns the best check;
// nil for a nonsmooth problem, or when x cannot be evaluated (the
// certificate then rests on x_hat alone). It leaves the solver's values
// at x.
func (s *solver) kktAt(x []float64, lams ...multipliers) *KKTCheck {
	if !s.p.Smooth || !s.kktCertifies() || s.halted() != running {
		// at a larger Eps it certifies nothing (Certificate.Stationary),
		// and on large data its gradients cost seconds an outer step
		return nil
	}
	if err := s.eval(x); err != nil {
		return nil
	}
	var best *KKTCheck
	var from []float64
	for _, c := range lams {
		if c.lam == nil {
			continue
		}
		if k := s.kktWith(x, c.lam); k != nil && (best == nil || k.worse() < best.worse()) {
			k.From = c.from
			best, from = k, c.lam
		}
	}
	if best != nil && !best.Holds(s.set.Eps) && s.m <= kktRefineMax {
		if k := s.kktRefine(x, from); k != nil && k.worse() < best.worse() {
			k.From = "multipliers fitted at x (nonnegative least squares)"
			best = k
		}
	}
	return best
}

// multipliers are candidate multipliers (len M, nil for none) for kktAt,
// and where they come from (KKTCheck.From).
type multipliers struct {
	lam  []float64
	from string
}

// kktWith is kktAt's check with the multipliers lam, the solver's values
// being those at x.
func (s *solver) kktWith(x, lam []float64) *KKTCheck {
	w := make([]float64, s.m+1)
	w[0] = 1
	copy(w[1:], lam)
	v := make([]float64, s.n)
	if err := s.gradW(w, v); err != nil {
		return nil
	}
	return s.kktOf(x, lam, v)
}

// kktOf is the check at x with the multipliers lam and v, the gradient
// of the Lagrangian f0 + sum lam_i fi at x (the solver's values being
// those at x).
func (s *solver) kktOf(x, lam, v []float64) *KKTCheck {
	k := &KKTCheck{}
	l1 := 0.0
	for i, l := range lam {
		k.Complementarity = math.Max(k.Complementarity, l*math.Abs(s.vals[i+1]))
		l1 += l
	}
	k.Scale = s.gradScale * math.Max(1, l1/(100*float64(s.m+s.n)))
	z := make([]float64, len(x))
	for j := range z {
		z[j] = x[j] - v[j]
	}
	s.project(z)
	ss := 0.0
	for j := range z {
		r := x[j] - z[j]
		if v[j] != 0 && x[j]-v[j] == x[j] {
			// v_j is below the resolution of x_j (x far out): the
			// projection cannot show it, so count it whole
			r = math.Max(math.Abs(r), math.Abs(v[j]))
		}
		ss += r * r
	}
	k.Stationarity = math.Sqrt(ss)
	return k
}

// kktRefineMax is the most constraints for which kktRefine fits the
// multipliers.
const kktRefineMax = 200

// kktRefine fits multipliers lam >= 0 at x, from lam0, to the KKT
// conditions: with the components j where Proj_X does not move x - v
// (v = grad L(x, lam)) taken as free, it minimises sum over the free j of
// v_j^2 plus sum_i (lam_i fi(x))^2, a nonnegative least-squares problem in
// lam, by coordinate descent, and repeats with the free set of the new
// lam. Multipliers carried over from (7) are those of the subproblem at
// the last step; a fit at x itself often certifies a point they do not.
// It returns the best check found (nil when the gradients fail). The
// solver's values must be those at x.
func (s *solver) kktRefine(x, lam0 []float64) *KKTCheck {
	rows, err := s.gradients()
	if err != nil {
		return nil
	}
	m, n := s.m, s.n
	lam := clone(lam0)
	v := make([]float64, n)
	z := make([]float64, n)
	gradL := func() {
		copy(v, rows[0])
		for i, l := range lam {
			if l != 0 {
				floats.AddScaled(v, l, rows[i+1])
			}
		}
	}
	var best *KKTCheck
	a := make([]float64, m*m)
	b := make([]float64, m)
	for range 3 {
		gradL()
		if k := s.kktOf(x, lam, v); best == nil || k.worse() < best.worse() {
			best = k
		}
		for j := range z {
			z[j] = x[j] - v[j]
		}
		s.project(z)
		clear(a)
		clear(b)
		for j := range z {
			if d := z[j] - (x[j] - v[j]); math.Abs(d) > 1e-14*(1+math.Abs(x[j])+math.Abs(v[j])) {
				continue // clipped by X
			}
			for i := 0; i < m; i++ {
				ri := rows[i+1][j]
				if ri == 0 {
					continue
				}
				b[i] += ri * rows[0][j]
				for k := 0; k < m; k++ {
					a[i*m+k] += ri * rows[k+1][j]
				}
			}
		}
		for i := 0; i < m; i++ {
			f := s.vals[i+1]
			a[i*m+i] += f * f
		}
		for range 200 {
			for i := 0; i < m; i++ {
				if a[i*m+i] <= 0 {
					continue
				}
				gi := b[i]
				for k := 0; k < m; k++ {
					gi += a[i*m+k] * lam[k]
				}
				lam[i] = math.Max(0, lam[i]-gi/a[i*m+i])
			}
		}
	}
	gradL()
	if k := s.kktOf(x, lam, v); k.worse() < best.worse() {
		best = k
	}
	return best
}

// worse is the larger of the check's two residuals over its scale.
func (k *KKTCheck) worse() float64 {
	return math.Max(k.Stationarity, k.Complementarity) / k.Scale
}

// certificate computes the Certificate of pt: the accurate oracle solves
// (7) at pt on all the data, to the accuracy the stationarity test needs,
// with CertificateEvalFactor times MaxEvals evaluations at most. It may
// run GraceTime past the time limit; when it cannot finish, or fails, it
// returns nil and the reason.
func (s *solver) certificate(pt *Point) (*Certificate, string) {
	s.exactMode() // on every row of the data, whatever the oracle
	if s.set.TimeLimit > 0 && time.Now().Add(2*s.lastEval).After(s.hardDeadline) {
		// not even an evaluation and a gradient fit in what is left of
		// the grace time (on 10^7 rows one evaluation takes a second)
		return nil, errHalted
	}
	defer s.beginStage("certificate", pt)()
	s.grace = true
	defer func() { s.grace = false }()
	if s.steps.estimates() {
		defer s.monitorMode()
	}
	// x is certified when (1 + sum lambda) RhoHat ||x - x_hat|| <= Eps and
	// ||x - x_hat|| <= Eps, so never when ||x - x_hat|| > Eps/max(1,
	// RhoHat): the oracle may stop there
	acc := accuracy{Abs: 0.25 * s.set.Eps, MaxEvals: CertificateEvalFactor * s.set.MaxEvals, Far: s.set.Eps / math.Max(1, s.rhoHat)}
	sub, halt, err := s.certifier().solve(pt.X, acc)
	switch {
	case err != nil:
		var fe *NonFiniteError
		if errors.As(err, &fe) {
			return nil, "the certificate's oracle met " + fe.Msg
		}
		return nil, "the certificate's oracle failed: " + err.Error()
	case halt == haltStop || halt == haltRecorder:
		return nil, "the solve was interrupted before the certificate finished"
	case halt != running:
		return nil, errHalted
	}
	return s.certOf(pt, &sub), ""
}

// startScale sets gradScale, the objective's part of KKTCheck.Scale:
// max(1, ||grad f0(x0)||_inf / 100) at the start x0, whose values the
// solver must hold (1 for a nonsmooth problem, or when the gradient
// fails).
func (s *solver) startScale() {
	s.gradScale = 1
	if !s.p.Smooth || !s.kktCertifies() {
		return // no KKT check at x (kktAt): no gradient to spend
	}
	if err := s.gradient(0); err != nil {
		return
	}
	for _, v := range s.grad {
		s.gradScale = math.Max(s.gradScale, math.Abs(v)/100)
	}
}
