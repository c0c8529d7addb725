package solve

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/floats"
)

// solver holds the state of one Minimize call.
type solver struct {
	ctx  context.Context // the caller's: cancelling it halts the solve
	p    *Problem
	set  Settings
	n, m int

	rhoHat, rho float64
	// polishX and polishLam: the point the last SQP polish ended at and
	// its program's multipliers there (sqp.go), for the KKT check
	polishX, polishLam []float64
	innerStart         int     // Settings.Inner at the start; Inner doubles when the iterates stall short of stationarity
	epsHat2            float64 // EpsHat^2: the oracle's feasibility threshold for G
	target             float64 // min(Eps, EpsHat)^2: phase 1 ends when g <= target

	start    time.Time
	deadline time.Time
	stats    Stats
	recErr   error
	t        int // the index of the outer iterate being computed

	// buffers of the inner loop
	vals, w, grad, d, z, zsum, out []float64
	outF                           []float64 // f0..fM at out, when an accurate oracle found it feasible

	tr Tracker // Best and MostFeasible of the outer iterates

	gradScale float64 // the objective's part of KKTCheck.Scale (startScale)

	rows [][]float64 // every function's subgradient (gradients)

	// the oracle's runs: steps makes the inexact outer steps (the
	// solve's oracle when it is inexact; Algorithm 2 for the phase-1 and
	// restoring steps of an accurate one), acc is the solve's oracle when
	// it is accurate (else nil), and certifier the accurate oracle that
	// certifies points (acc, or Auto(p)'s run made on first use)
	steps inexactMethod
	acc   accurateMethod
	// infeasibleProof is why the problem is proven infeasible, when an
	// oracle proved it (Result.InfeasibleProof)
	infeasibleProof string
	certs           accurateMethod

	// the sampling state (stochastic.go)
	znew, diff   []float64
	rng          *rand.Rand // draws the minibatches
	mode         sampleMode
	monitorExact bool // the Sampler's monitoring values are exact
	sampled      bool // the switching oracle runs on minibatch estimates (stochastic phase 1)
	grace        bool // the polish and the certificate may run GraceTime past the time limit
	hardDeadline time.Time
	lastEval     time.Duration // how long the last evaluation took (timed with a TimeLimit only)

	sinceDoubling int     // outer steps since the last doubling of RhoHat
	lastStep      float64 // the length of the last accurate outer step
	growing       int     // accurate outer steps in a row none shorter than the one before
	rhoFloor      float64 // RhoHat after the last doubling on evidence of nonconvexity
	// effort multiplies the accurate oracles' evaluation budget and the
	// bundle's patience (0 means 1); it grows when a subproblem neither
	// moved x_t nor certified it
	effort int
	// stage names the work after the iterations ("certificate",
	// "polish") for the Recorder's heartbeats, of stagePt, last told at
	// lastBeat
	stage    string
	stagePt  *Point
	lastBeat time.Time

	// cert certifies certified, the last outer iterate whose step met the
	// stopping rule or whose subproblem an accurate oracle solved to a
	// certified gap; Converged needs cert.Stationary.
	cert      *Certificate
	certified *Point

	probes *ProbeReport // the probe around points about to be returned as converged (probe.go)

	start0    float64   // f0 at phase 2's first iterate
	startNorm float64   // ||x||_inf at phase 2's first iterate
	fHist     []float64 // the objective at phase 2's outer iterates, for the progress rule

	// the outer iterate a step runs from, and the stage its heartbeats
	// name ("phase1" or "step"), for halted's heartbeats of long steps
	stepPt            *Point
	stepStage         string
	lastRecord        time.Time // the last record told to the Recorder
	stalledNoProgress bool      // the progress rule stopped the solve
}

// unbounded reports whether the outer iterate cur shows the objective
// unbounded below (Status Unbounded).
func (s *solver) unbounded(cur *Point) bool {
	if cur.F == nil || cur.Infeasibility > s.set.Eps {
		return false
	}
	if cur.Objective <= -UnboundedObjective {
		return true
	}
	return cur.Objective < s.start0 && floats.Norm(cur.X, math.Inf(1)) >= DivergingIterates
}

// runaway reports whether a solve that stopped short of convergence at
// cur (Stalled or IterationLimit) was running off: its last runawaySteps
// outer steps none shorter than the one before, cur beyond runawayFar
// times max(1, ||x||_inf at phase 2's start), and f0 below its start
// there. Far out the constraints' rounding can stop the oracle before
// DivergingIterates (a linear objective along a linear constraint at
// 1e10); the objective is then reported Unbounded, not Stalled.
func (s *solver) runaway(cur *Point) bool {
	if s.growing < runawaySteps || cur.F == nil || cur.Infeasibility > s.set.Eps || cur.Objective >= s.start0 {
		return false
	}
	return floats.Norm(cur.X, math.Inf(1)) >= runawayFar*max(1, s.startNorm)
}

// runawayFar is how far beyond the start runaway looks for iterates.
const runawayFar = 1e8

// noProgress notes f0 at the newest outer iterate and reports whether the
// progress rule (Settings.Outer) stops the solve.
func (s *solver) noProgress(f0 float64) bool {
	if !s.set.progressRule {
		return false
	}
	s.fHist = append(s.fHist, f0)
	n := len(s.fHist)
	if n <= progressWindow {
		return false
	}
	old := s.fHist[n-1-progressWindow]
	if n > 4*progressWindow {
		s.fHist = append(s.fHist[:0], s.fHist[n-progressWindow-1:]...)
	}
	return old-f0 < math.Max(1e-12, progressShare*s.set.Eps)*(1+math.Abs(f0))
}

func newSolver(ctx context.Context, p *Problem, x0 []float64, set Settings) (*solver, error) {
	if err := p.Validate(x0); err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	set, err := withDefaults(p, set)
	if err != nil {
		return nil, err
	}
	if set.heartbeat == 0 {
		set.heartbeat = time.Second
	}
	if set.stepBeat == 0 {
		set.stepBeat = time.Second
	}
	s := &solver{ctx: ctx, p: p, set: set, n: p.N, m: p.M, rhoHat: set.RhoHat, rho: set.Rho, start: time.Now(), innerStart: set.Inner, tr: Tracker{Eps: set.Eps}}
	switch m := set.Oracle.start(s).(type) {
	case accurateMethod:
		s.acc, s.steps = m, &switchingMethod{s}
	case inexactMethod:
		s.steps = m
	default:
		return nil, fmt.Errorf("solve: %v drives the oracles and is none itself: use Minimize or MinimizeDynamic", set.Oracle)
	}
	s.deadline = s.start.Add(set.TimeLimit)
	s.hardDeadline = s.deadline.Add(GraceTime)
	s.epsHat2 = set.EpsHat * set.EpsHat
	e := math.Min(set.Eps, set.EpsHat)
	s.target = e * e
	if s.steps.estimates() {
		// Algorithm 3 needs no start feasible to EpsHat^2 (and its
		// averaged iterates are feasible only to O(1/sqrt(K))): phase 1
		// and the restoring steps aim at feasibility to Eps.
		s.target = set.Eps
	}
	s.monitorExact = true
	if p.Sampler != nil {
		p.Sampler.Full()
		s.mode = modeFull
		if s.steps.estimates() {
			s.monitorMode()
		}
	}
	s.vals = make([]float64, p.M+1)
	s.w = make([]float64, p.M+1)
	s.grad = make([]float64, p.N)
	s.d = make([]float64, p.N)
	s.z = make([]float64, p.N)
	s.diff = make([]float64, p.N)
	s.zsum = make([]float64, p.N)
	s.out = make([]float64, p.N)
	s.outF = make([]float64, p.M+1)
	return s, nil
}

// evaluate evaluates x into a new Point numbered t.
func (s *solver) evaluate(x []float64, t int) (Point, error) {
	if err := s.eval(x); err != nil {
		return Point{X: clone(x), T: t, Objective: math.NaN(), Infeasibility: math.NaN()}, err
	}
	return pointAt(x, s.vals, t), nil
}

// pointAt is the outer iterate t at x with the values f (both copied).
func pointAt(x, f []float64, t int) Point {
	return Point{X: clone(x), T: t, F: clone(f), Objective: f[0], Infeasibility: infeasibility(f)}
}

func infeasibility(f []float64) float64 {
	g, _ := maxConstraint(f)
	return math.Max(0, g)
}

// phaseG is gOf with the two sides of every equality allowed Eps: phase
// 1 ends, and phase 2 makes no restoring step, when it is at most target.
// The accurate oracles' (7) keeps no proximal term on an equality's sides
// (conProx), so it starts from any x_t and pulls the equalities into their
// bands itself; asking phase 1 for the band to within target (1e-12 at
// the smooth oracle's Eps) would ask a first-order method for what it
// cannot give.
func (s *solver) phaseG(f []float64) float64 {
	if s.p.eqSide == nil {
		return gOf(f)
	}
	g := math.Inf(-1)
	for i := 1; i < len(f); i++ {
		v := f[i]
		if s.p.eqSide[i-1] {
			v -= s.set.Eps
		}
		g = math.Max(g, v)
	}
	return g
}

// gOf is max_i fi, -Inf without constraints.
func gOf(f []float64) float64 {
	g, _ := maxConstraint(f)
	return g
}

// track updates Best and MostFeasible with an outer iterate.
func (s *solver) track(pt *Point) {
	s.tr.Track(pt)
}

func (s *solver) record(it Iteration) bool {
	s.lastRecord = time.Now()
	if s.set.Recorder == nil {
		return true
	}
	it.Elapsed = time.Since(s.start)
	if err := s.set.Recorder.Record(it); err != nil {
		s.recErr = err
		return false
	}
	return true
}

func haltStatus(h haltReason) Status {
	if h == haltTime {
		return TimeLimit
	}
	return Interrupted
}

// stationarityScale is the factor of the stopping rule
// max(1, RhoHat) ||x_{t+1} - x_t|| <= Eps. The step approximates
// ||x_t - x_hat_t||, Definition 2's measure; when RhoHat > 1 the factor
// makes it RhoHat ||x_t - x_hat_t||, which bounds the KKT residual at
// x_hat_t up to 1 + lambda, so that the shorter steps of a large RhoHat
// (after the safeguard's doublings) do not stop the solve early.
func (s *solver) stationarityScale() float64 { return math.Max(1, s.rhoHat) }

// provenConvex reports whether every subproblem (7) is provably strongly
// convex: Problem.WeakConvexity is a modulus the caller proved (qrc's
// weak-convexity analysis) and the solver's Rho is at least that, with
// RhoHat above it.
func (s *solver) provenConvex() bool {
	w := s.p.WeakConvexity
	return w > 0 && s.rho >= w && s.rhoHat > s.rho
}

// step makes one outer step from cur: one oracle call, and, unless the
// safeguard is off or exhausted, a check that the subproblem behaved as a
// strongly convex one should; when it did not, RhoHat and Rho are doubled
// (K instead, up to MaxInnerGrowth times its start, when the subproblem is
// provably strongly convex) and the step is redone from cur.
func (s *solver) step(cur *Point, phase1 bool) (next Point, info oracleInfo, doubled bool, err error) {
	s.t = cur.T + 1
	for {
		info, err = s.steps.step(cur.X, phase1)
		if err != nil || info.halt != running {
			return
		}
		if info.emptyI {
			next = *clonePoint(cur)
			next.T = s.t
			return
		}
		next, err = s.evaluate(s.out, s.t)
		if err != nil {
			return
		}
		if s.set.NoSafeguard || info.early || s.stats.RhoDoublings >= MaxRhoDoublings || s.steps.consistent(cur, &next, info, phase1) {
			return
		}
		if s.provenConvex() && s.set.Inner < MaxInnerGrowth*s.innerStart {
			// the subproblem is provably strongly convex, so the failed
			// test means that K iterations were too few: double K, which
			// halves Algorithm 2's error as doubling RhoHat would, without
			// shortening the proximal steps
			s.set.Inner *= 2
			s.stats.InnerDoublings++
			continue
		}
		s.rhoHat *= 2
		s.rho *= 2
		s.stats.RhoDoublings++
		doubled = true
	}
}

// consistent checks the oracle's output x_{t+1} = next against what
// Algorithm 2 guarantees when F and G are strongly convex:
//
//   - Jensen: the output is a weighted average of the averaged iterates,
//     so H(x_{t+1}) <= their weighted mean of H(z_k) (H = F, or G in phase
//     1), and in phase 2 G(x_{t+1}) <= EpsHat^2 since every averaged
//     iterate has G(z_k) <= EpsHat^2;
//   - descent (the oracle property, Definition 1): x_t is feasible for (7)
//     up to EpsHat^2, so H(x_{t+1}) <= H(x_hat) + EpsHat^2 <=
//     H(x_t) + EpsHat^2 = f0(x_t) + EpsHat^2 (g(x_t) + EpsHat^2 in phase 1).
//
// Each test allows 1e-10 relative for rounding. A failure means the
// subproblem is not convex with this RhoHat, or the oracle's K inner
// iterations did not reach accuracy EpsHat^2; doubling RhoHat (and Rho)
// addresses both: it convexifies the subproblem and halves the oracle's
// error, which is proportional to 1/((RhoHat-Rho) K).
//
// (The stochastic oracle has its own test: stochasticMethod.consistent.)
func (s *solver) consistent(cur, next *Point, info oracleInfo, phase1 bool) bool {
	q := s.rhoHat / 2 * sqDistance(next.X, cur.X)
	gn := gOf(next.F)
	round := func(a, b float64) float64 { return 1e-10 * (1 + math.Abs(a) + math.Abs(b)) }
	if phase1 {
		gN := gn + q
		g0 := gOf(cur.F)
		return gN <= info.meanH+round(gN, info.meanH) && gN <= g0+s.epsHat2+round(gN, g0)
	}
	if s.m > 0 && gn+q > s.epsHat2+round(gn, q) {
		return false
	}
	fN := next.F[0] + q
	f0 := cur.F[0]
	return fN <= info.meanH+round(fN, info.meanH) && fN <= f0+s.epsHat2+round(fN, f0)
}

// run is Minimize after validation.
func (s *solver) run(x0 []float64) *Result {
	x := clone(x0)
	s.project(x)
	cur, err := s.evaluate(x, 0)
	if err != nil {
		return s.finish(NumericalError, cur, err)
	}
	s.startScale()
	s.track(&cur)

	// phase 1
	s.lastRecord = time.Now()
	s.stepPt, s.stepStage = &cur, "phase1"
	if _, finder := s.acc.(feasibleFinder); finder || s.phaseG(cur.F) > s.target {
		if st, done, err := s.phase1(&cur); done {
			if st == Interrupted {
				err = s.recErr
			}
			return s.finish(st, cur, err)
		}
	}

	// phase 2: Algorithm 1
	s.stepStage = "step"
	s.start0, s.startNorm = cur.Objective, floats.Norm(cur.X, math.Inf(1))
	rng := rand.New(rand.NewPCG(s.set.Seed, 0x9e3779b97f4a7c15))
	var pick *Point
	var lastLam []float64 // the multipliers of the last accurate step's (7)
	seen := 0
	status := IterationLimit
	for s.stats.Outer < s.set.Outer {
		// a deterministic phase-2 step needs x_t feasible for (7) to
		// EpsHat^2; Algorithm 3 does not (its queues push an infeasible
		// x_t back), and its outputs are feasible only to O(1/sqrt(K)),
		// so with it there are no restoring steps.
		restore := s.phaseG(cur.F) > s.target && !s.steps.estimates()
		var (
			next    Point
			info    oracleInfo
			doubled bool
			err     error
		)
		if s.acc != nil && !restore {
			var sub subResult
			next, sub, doubled, info.halt, err = s.accurateStep(&cur)
			if sub.Lambda != nil {
				lastLam = sub.Lambda
			}
			if err == nil && info.halt != running && sub.Feasible && next.F != nil && next.Objective < cur.Objective {
				// the time limit (or a cancelled context) came during the
				// subproblem: keep its best feasible point, which descends,
				// as the last outer iterate, recorded like the others
				stepLen := dist(next.X, cur.X)
				cur = next
				s.stats.Outer++
				s.track(&cur)
				s.recordOuter(&cur, info, false, stepLen, doubled)
			}
			if err == nil && info.halt == running {
				// the subproblem at x_t was solved to a certified gap:
				// that is x_t's certificate
				c := s.certOf(&cur, &sub)
				s.cert, s.certified = c, clonePoint(&cur)
				if c.Stationary {
					if moved, err := s.escape(&cur); err != nil {
						return s.finish(NumericalError, cur, err)
					} else if moved {
						continue // x_t was no minimum: on from the lower point
					}
					status = s.convergedStatus()
					break
				}
				info.k = sub.Evals
				if dist(next.X, cur.X) == 0 {
					// x_t did not move and is not certified: the same
					// subproblem again would end the same way
					if s.effortFactor() >= maxEffort {
						status = Stalled
						break
					}
					s.effort = 4 * s.effortFactor()
					s.stats.InnerDoublings++
				}
			}
		} else {
			next, info, doubled, err = s.step(&cur, restore)
		}
		if err != nil {
			return s.finish(NumericalError, cur, err)
		}
		if info.halt != running {
			status = haltStatus(info.halt)
			break
		}
		if s.set.Pick == PickRandom {
			seen++
			if rng.IntN(seen) == 0 {
				pick = clonePoint(&cur)
			}
		}
		stepLen := dist(next.X, cur.X)
		cur = next
		s.stats.Outer++
		s.track(&cur)
		if !s.recordOuter(&cur, info, restore, stepLen, doubled) {
			status = Interrupted
			break
		}
		if s.unbounded(&cur) {
			return s.finish(Unbounded, cur, nil)
		}
		if s.acc != nil {
			s.rhoFollow(doubled, stepLen)
			if s.noProgress(cur.Objective) {
				status, s.stalledNoProgress = Stalled, true
				break
			}
			if s.stats.Outer%sqpEvery == 0 && cur.Infeasibility <= s.set.Eps && s.sqpPolishes() {
				// a long run of short proximal steps: SQP steps may jump
				// to the point they approach (sqp.go); the next step
				// starts there, and the certificate judges it as any other
				if q := s.sqpPolish(&cur, lastLam); q != nil {
					s.stats.Polishes++
					stepLen := dist(q.X, cur.X)
					cur = *q
					cur.T = s.stats.Outer
					s.track(&cur)
					if !s.recordOuter(&cur, oracleInfo{}, false, stepLen, false) {
						status = Interrupted
						break
					}
				}
			}
			continue
		}
		s.rhoDown(doubled)
		if !restore && !info.emptyI && s.stationarityScale()*stepLen <= s.set.Eps && cur.Infeasibility <= s.set.Eps {
			// The iterates stopped moving; that is convergence only when
			// the certificate shows a nearly stationary point. Otherwise
			// the subproblems are solved too loosely to move further:
			// solve them more accurately.
			c, why := s.certificate(&cur)
			if why == errHalted {
				status = haltStatus(s.halted())
				break
			}
			s.cert, s.certified = c, clonePoint(&cur)
			if c != nil && c.Stationary {
				if moved, err := s.escape(&cur); err != nil {
					return s.finish(NumericalError, cur, err)
				} else if !moved {
					status = s.convergedStatus()
					break
				}
				continue
			}
			if s.set.Inner < MaxInnerGrowth*s.innerStart {
				s.set.Inner *= 2
				s.stats.InnerDoublings++
			}
		}
	}
	if (status == Stalled || status == IterationLimit) && s.runaway(&cur) {
		return s.finish(Unbounded, cur, nil)
	}
	var rerr error
	if status == Interrupted {
		rerr = s.recErr
	}
	if pick != nil {
		cur = *pick
	}
	if s.steps.estimates() && (status == IterationLimit || status == Converged || status == TimeLimit) {
		var err error
		if cur, err = s.polish(cur); err != nil {
			return s.finish(NumericalError, cur, err)
		}
	}
	return s.finish(status, cur, rerr)
}

func (s *solver) recordOuter(cur *Point, info oracleInfo, phase1 bool, stepLen float64, doubled bool) bool {
	gmax, istar := maxConstraint(cur.F)
	it := Iteration{
		Phase1:        phase1,
		T:             cur.T,
		X:             cur.X,
		Objective:     cur.Objective,
		Infeasibility: cur.Infeasibility,
		Step:          stepLen,
		EmptyI:        info.emptyI,
		RhoHat:        s.rhoHat,
		RhoDoubled:    doubled,
	}
	if info.k > 0 {
		it.FeasibleFraction = float64(info.nObj) / float64(info.k)
	}
	if gmax > 0 {
		it.MaxViolated = istar
	}
	return s.record(it)
}

// feasibleFinder is an accurate oracle whose subproblem's feasible set
// does not depend on x_t (no proximal term on the constraints) and that
// finds a feasible point of the problem, or proves there is none, in one
// solve: phase 1 is that solve (the epigraph oracle), and it runs from a
// feasible start too (its point is nearly a minimiser, the better start
// for Algorithm 1).
type feasibleFinder interface {
	// findFeasible leaves in cur a point with g <= target and reports
	// not done, or reports done with Infeasible (and why, in
	// solver.infeasibleProof), a halt's status or NumericalError; handled
	// false means it found no feasible point and proves nothing, and the
	// paper's phase 1 runs from cur when cur is not feasible.
	findFeasible(cur *Point) (st Status, done, handled bool, err error)
}

// phase1 minimises g = max_i fi over X by the same proximal machinery
// (IQRC on min g, every inner step on G) until g <= target (Remark 1). It
// reports done with a status when the solve must stop: Infeasible when it
// stalls (a nearly stationary point of g, or no progress over
// phase1Window outer steps) or runs out of outer iterations with g above
// Eps; IterationLimit, with cur set to the most feasible point, when it
// stalls within Eps of feasibility but above target; TimeLimit,
// Interrupted or NumericalError as they come.
func (s *solver) phase1(cur *Point) (Status, bool, error) {
	if f, ok := s.acc.(feasibleFinder); ok {
		st, done, handled, err := f.findFeasible(cur)
		if handled || err != nil {
			return st, done, err
		}
		if s.phaseG(cur.F) <= s.target {
			return 0, false, nil
		}
	}
	hist := []float64{gOf(cur.F)}
	// an equality's band is no set Algorithm 2's steps on G can enter
	// (every step on it adds RhoHat/2 ||z - x_t||^2 to both sides): with an
	// accurate oracle, the elastic phase 1 at once
	skip := s.acc != nil && s.p.eqSide != nil
	for !skip && s.stats.Phase1Outer < min(s.set.Outer, DefaultOuter) {
		next, info, doubled, err := s.step(cur, true)
		if err != nil {
			return NumericalError, true, err
		}
		if info.halt != running {
			return haltStatus(info.halt), true, nil
		}
		stepLen := dist(next.X, cur.X)
		*cur = next
		s.stats.Phase1Outer++
		s.track(cur)
		if !s.recordOuter(cur, info, true, stepLen, doubled) {
			return Interrupted, true, nil
		}
		g := gOf(cur.F)
		if s.phaseG(cur.F) <= s.target {
			return 0, false, nil
		}
		if s.stationarityScale()*stepLen <= s.set.Eps && !info.emptyI {
			break // a nearly stationary point of g that is not feasible
		}
		best := math.Min(hist[len(hist)-1], g)
		hist = append(hist, best)
		if n := len(hist); n > phase1Window {
			old := hist[n-1-phase1Window]
			if best > old-math.Max(s.target, 1e-3*math.Abs(old)) {
				break // no progress
			}
		}
	}
	if s.acc != nil {
		// the paper's phase 1 gave up: the elastic phase 1 (elastic.go)
		// from the most feasible point
		start := clonePoint(s.tr.MostFeasible)
		found, halt, err := s.elasticPhase1(start)
		switch {
		case err != nil:
			return NumericalError, true, err
		case found:
			*cur = *start
			return 0, false, nil
		case halt != running:
			return haltStatus(halt), true, nil
		}
	}
	if s.tr.MostFeasible.Infeasibility <= s.set.Eps {
		*cur = *clonePoint(s.tr.MostFeasible)
		return IterationLimit, true, nil
	}
	return Infeasible, true, nil
}

// finish builds the Result around the candidate point pt.
func (s *solver) finish(status Status, pt Point, err error) *Result {
	if !s.monitorExact && status != NumericalError {
		// the points were tracked on a sample: report exact values
		if status, pt, err = s.exactPoints(status, pt, err); status == NumericalError {
			return &Result{Status: status, Point: pt, RhoHat: s.rhoHat, Rho: s.rho, Inner: s.set.Inner, Err: err}
		}
	}
	res := &Result{Status: status, RhoHat: s.rhoHat, Rho: s.rho, Inner: s.set.Inner, Err: err}
	if status == Infeasible {
		res.InfeasibleProof = s.infeasibleProof
	}
	if s.tr.Best != nil {
		res.Best = clonePoint(s.tr.Best)
	}
	if s.tr.MostFeasible != nil {
		res.MostFeasible = clonePoint(s.tr.MostFeasible)
	}
	if status == NumericalError {
		res.Point = pt
		return res
	}
	if status == Unbounded {
		res.Point = pt
		res.NoCertificate = "the objective is unbounded below on the feasible set"
		return res
	}
	if !(pt.Infeasibility <= s.set.Eps) {
		if s.tr.Best != nil && status != Infeasible {
			pt = *clonePoint(s.tr.Best)
		} else {
			if status != Interrupted && status != TimeLimit {
				// stopped by the context or the clock before a feasible
				// point (in phase 1): the status says why it stopped, the
				// point is the most feasible so far
				status = Infeasible
			}
			if s.tr.MostFeasible != nil {
				pt = *clonePoint(s.tr.MostFeasible)
			}
		}
	}
	if status == Stalled && pt.Infeasibility <= s.set.Eps && s.sqpPolishes() {
		// the oracle could not get the point's KKT residual down: SQP
		// steps may (sqp.go); the certificate below judges
		var lam []float64
		if s.cert != nil && len(s.cert.Multipliers) == s.m {
			lam = s.cert.Multipliers
		}
		if q := s.sqpPolish(&pt, lam); q != nil {
			s.stats.Polishes++
			pt = *q
			s.track(&pt)
		}
	}
	res.Status = status
	res.Point = pt
	if !(pt.Infeasibility <= s.set.Eps) {
		for i := 1; i < len(pt.F); i++ {
			if pt.F[i] > s.set.Eps {
				res.Violated = append(res.Violated, i)
			}
		}
		return res
	}
	switch {
	case s.certified != nil && slices.Equal(s.certified.X, pt.X):
		res.Certificate = s.cert
	case status == Interrupted:
		res.NoCertificate = "the solve was interrupted"
	default:
		res.Certificate, res.NoCertificate = s.certificate(&pt)
	}
	if res.Certificate == nil && res.NoCertificate == "" {
		res.NoCertificate = "the certificate's oracle found no feasible point of (7)"
	}
	stationary := res.Certificate != nil && res.Certificate.Stationary
	switch {
	case status == Converged && !stationary:
		// an iterate was certified, but not the point returned
		status = Uncertified
	case (status == IterationLimit || status == Stalled) && stationary && !s.lowerNear(&pt):
		status = Converged // the returned point is certified after all
	}
	res.Status = status
	res.Probe = s.probes
	res.NoProgress = status == Stalled && s.stalledNoProgress
	return res
}

// lowerNear runs the probe around pt, a point certified only after the
// iterations ended, and reports whether it found a lower feasible point
// (then pt is no minimum and is not called converged).
func (s *solver) lowerNear(pt *Point) bool {
	if !s.probeAllowed(pt) {
		return false
	}
	next, err := s.probe(pt, false)
	return err == nil && next != nil
}

// exactPoints re-evaluates pt, Best and MostFeasible on every row when they
// were evaluated on a monitoring sample.
func (s *solver) exactPoints(status Status, pt Point, err error) (Status, Point, error) {
	s.exactMode()
	s.monitorExact = true
	exact := func(p *Point) error {
		if p == nil || p.F == nil {
			return nil
		}
		q, err := s.evaluate(p.X, p.T)
		if err != nil {
			return err
		}
		*p = q
		return nil
	}
	for _, p := range []*Point{&pt, s.tr.Best, s.tr.MostFeasible} {
		if e := exact(p); e != nil {
			return NumericalError, pt, e
		}
	}
	if s.tr.Best != nil && s.tr.Best.Infeasibility > s.set.Eps {
		s.tr.Best = nil // feasible on the sample, not on all rows
	}
	return status, pt, err
}

func clone(x []float64) []float64 { return append([]float64(nil), x...) }

func clonePoint(p *Point) *Point {
	q := *p
	q.X = clone(p.X)
	if p.F != nil {
		q.F = clone(p.F)
	}
	return &q
}
