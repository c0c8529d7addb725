package solve

import (
	"errors"
	"math"
	"slices"
	"time"
)

// The elastic phase 1 takes over when the paper's phase 1 (Remark 1:
// Algorithm 2's steps on g = max_i fi) gives up with an accurate oracle:
// it minimises g over X as the smooth problem
//
//	min_{y in X, t >= tLow} t   s.t.  fi(y) - t <= 0  (i = 1..M)
//
// by IQRC itself with the accurate oracle (Smooth for a smooth Problem,
// Bundle otherwise), from (y, t) = (x, g(x)), which is feasible, so it
// needs no phase 1 of its own. Its subproblems (7) are solved to a
// certified gap, so a point where it stops is a certified stationary
// point of g, not only one where a subgradient step stalled: on 1/x
// constraints, thin bands and badly scaled constraints the switching
// steps stall far from feasibility where the elastic problem's augmented
// Lagrangian moves on. It stops at the first outer iterate with
// g(y) <= target, pulled back along the segment from the last infeasible
// iterate to the nearest point with g <= target (as nearestFeasible
// does), so that phase 1 moves no farther into X than it must. tLow =
// g(x) - max(1, |g(x)|) keeps t bounded below without stopping it short
// of feasibility. docs/solver.md describes it; it is not part of the
// paper's Algorithm 1.

// elasticRhoHatLow is the floor of RhoHat in the elastic problem's solve.
const elasticRhoHatLow = 1e-12

// errFeasible stops the elastic problem's solve at its first feasible
// outer iterate.
var errFeasible = errors.New("solve: a feasible point was found")

// elasticRecorder passes the elastic solve's records on as phase-1
// records of the original problem and stops it at the first feasible one.
type elasticRecorder struct {
	s     *solver
	n     int
	t0    int       // the outer iterate phase 1 started from
	prev  []float64 // the last infeasible outer iterate's y
	found []float64 // the first feasible outer iterate's y
	// the points of the last two evaluations and their values (the
	// certificate of the last iterate may be evaluated between an
	// iterate's evaluation and its record)
	lastX, lastF [2][]float64
	target       float64
}

func (r *elasticRecorder) Record(it Iteration) error {
	s := r.s
	if it.Stage != "" {
		// the elastic solve's heartbeats are phase 1's; its certificate
		// is not this solve's
		if it.Stage == "certificate" {
			return nil
		}
		beat := Iteration{Stage: "phase1", T: r.t0 + it.T, K: it.K, X: it.X[:r.n], Objective: math.NaN(), Infeasibility: math.Max(0, it.Objective), RhoHat: it.RhoHat}
		if !s.record(beat) {
			return s.recErr
		}
		return nil
	}
	y := it.X[:r.n]
	rec := Iteration{Phase1: true, T: r.t0 + it.T, K: it.K, X: y, Step: it.Step, FeasibleFraction: it.FeasibleFraction,
		RhoHat: it.RhoHat, RhoDoubled: it.RhoDoubled, Objective: math.NaN(), Infeasibility: math.Max(0, it.Objective)}
	g, short := math.NaN(), math.NaN()
	for k := range r.lastX {
		if slices.Equal(r.lastX[k], it.X) {
			rec.Objective = r.lastF[k][0]
			var at int
			g, at = maxConstraint(r.lastF[k])
			short = s.phaseG(r.lastF[k])
			rec.Infeasibility = math.Max(0, g)
			if g > 0 {
				rec.MaxViolated = at
			}
			break
		}
	}
	if it.K > 0 && s.set.RecordEvery == 0 {
		return nil // an inner record nobody asked for
	}
	if !s.record(rec) {
		return s.recErr
	}
	switch {
	case it.K > 0:
	case short <= r.target:
		r.found = clone(y)
		return errFeasible
	default:
		r.prev = clone(y)
	}
	return nil
}

// elasticProblem is the elastic problem of p with t bounded below by tLow.
func elasticProblem(p *Problem, tLow float64, rec *elasticRecorder) *Problem {
	n, m := p.N, p.M
	vals := make([]float64, m+1)
	wi := make([]float64, m+1)
	q := &Problem{N: n + 1, M: m, Names: p.Names, Smooth: p.Smooth, ConstraintRho: p.ConstraintRho, eqSide: p.eqSide, nonlinearEq: p.nonlinearEq}
	q.Eval = func(x, out []float64) error {
		if err := p.Eval(x[:n], vals); err != nil {
			return err
		}
		t := x[n]
		out[0] = t
		for i := 1; i <= m; i++ {
			out[i] = vals[i] - t
		}
		rec.lastX[0], rec.lastX[1] = rec.lastX[1], rec.lastX[0]
		rec.lastF[0], rec.lastF[1] = rec.lastF[1], rec.lastF[0]
		rec.lastX[1] = append(rec.lastX[1][:0], x...)
		rec.lastF[1] = append(rec.lastF[1][:0], vals...)
		return nil
	}
	q.Grad = func(w, g []float64) error {
		copy(wi, w)
		wi[0] = 0
		sum := 0.0
		for i := 1; i <= m; i++ {
			sum += w[i]
		}
		if sum != 0 {
			if err := p.Grad(wi, g[:n]); err != nil {
				return err
			}
		} else {
			clear(g[:n])
		}
		g[n] = w[0] - sum
		return nil
	}
	q.Project = func(x []float64) {
		if p.Project != nil {
			p.Project(x[:n])
		}
		x[n] = math.Max(x[n], tLow)
	}
	return q
}

// elasticPhase1 runs the elastic phase 1 from cur, and, each time it ends
// at a stationary point of g without a feasible point, the probe for a
// lower g around that point (probe.go; at a point where the
// constraints' gradients cancel, as at w = c 1 for sum(w) <= 1 and
// ||w||^2 >= 1, only a second-order move lowers g), and again from the
// point the probe found, at most maxEscapes times. It returns found with
// cur set to the feasible point; otherwise halt or err say why it stopped,
// or neither when it ended without a feasible point.
func (s *solver) elasticPhase1(cur *Point) (found bool, halt haltReason, err error) {
	for range maxEscapes {
		found, halt, err = s.elasticRun(cur)
		if found || halt != running || err != nil || s.set.noProbe {
			return
		}
		next, err := s.probe(cur, true)
		if err != nil || next == nil {
			return false, running, err
		}
		*cur = *next
		s.track(cur)
	}
	return false, running, nil
}

// elasticRun is one solve of the elastic problem from cur; cur is left at
// the most feasible point it reached when it finds none.
func (s *solver) elasticRun(cur *Point) (found bool, halt haltReason, err error) {
	g0 := gOf(cur.F)
	rec := &elasticRecorder{s: s, n: s.n, t0: cur.T, target: s.target, prev: clone(cur.X)}
	q := elasticProblem(s.p, g0-math.Max(1, math.Abs(g0)), rec)
	o := s.certifier().oracle()
	switch o.(type) {
	case *SmoothOracle, *BundleOracle:
	default:
		// a form of the solve's functions (the prox oracle's separable
		// objective, the dual's pieces) is not one of the elastic
		// problem's, which has a variable more
		o = Auto(q)
	}
	set := Settings{Oracle: o, MaxEvals: s.set.MaxEvals, Recorder: rec,
		RecordEvery: s.set.RecordEvery, Seed: s.set.Seed, Eps: s.set.Eps,
		// the violation of 1/x-type constraints is flat far from the
		// feasible set: let RhoHat come down as far as the steps ask
		rhoHatLow: elasticRhoHatLow}
	if s.set.TimeLimit > 0 {
		left := time.Until(s.deadline)
		if left <= 0 {
			return false, haltTime, nil
		}
		set.TimeLimit = left
	}
	x0 := append(clone(cur.X), g0)
	res, err := Minimize(s.ctx, q, x0, set)
	if err != nil {
		return false, running, err
	}
	addStats(&s.stats, res.Stats)
	s.stats.Phase1Outer += res.Stats.Outer
	s.stats.Outer -= res.Stats.Outer
	switch {
	case rec.found != nil:
	case res.Status == NumericalError:
		return false, running, res.Err
	case res.Status == TimeLimit:
		return false, haltTime, nil
	case res.Status == Interrupted && s.recErr != nil:
		return false, haltRecorder, nil
	case res.Status == Interrupted:
		return false, haltStop, nil
	default:
		if m := res.MostFeasible; m != nil {
			// where the elastic solve ended: the probe starts there
			if p, err := s.evaluate(m.X[:s.n], cur.T+res.Stats.Outer); err == nil {
				*cur = p
			}
		}
		return false, running, nil
	}
	// the nearest point with g <= target on the segment from the last
	// infeasible iterate
	x := make([]float64, s.n)
	best := clone(rec.found)
	lo, hi := 0.0, 1.0
	for range bisections {
		tau := (lo + hi) / 2
		for j := range x {
			x[j] = rec.prev[j] + tau*(rec.found[j]-rec.prev[j])
		}
		if err := s.eval(x); err != nil {
			return false, running, err
		}
		if s.phaseG(s.vals) <= s.target {
			hi = tau
			copy(best, x)
		} else {
			lo = tau
		}
	}
	next, err := s.evaluate(best, cur.T+res.Stats.Outer)
	if err != nil {
		return false, running, err
	}
	*cur = next
	s.track(cur)
	return true, running, nil
}
