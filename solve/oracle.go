package solve

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// haltReason says why an inner loop stopped early.
type haltReason int

const (
	running      haltReason = iota
	haltTime                // the time limit ran out
	haltStop                // the solve's context was cancelled
	haltRecorder            // the Recorder returned an error
)

// oracleInfo describes one run of the switching subgradient method.
type oracleInfo struct {
	k      int     // inner iterations done
	nObj   int     // |I|: iterations that stepped on the objective (0 in phase 1)
	emptyI bool    // no iterate entered the average; the output is x_t
	meanH  float64 // the (k+1)-weighted mean of H(z_k) over the averaged iterates (H = F, or G in phase 1)
	early  bool    // phase 1 only: an iterate reached g <= target and is the output

	halt haltReason
}

// switchingMethod is Algorithm 2 as the solve's oracle; it also makes the
// phase-1 and restoring steps of the accurate oracles' solves. It keeps no
// state between outer steps.
type switchingMethod struct{ *solver }

func (m *switchingMethod) oracle() Oracle  { return Switching }
func (m *switchingMethod) estimates() bool { return false }

func (m *switchingMethod) step(xt []float64, phase1 bool) (oracleInfo, error) {
	return m.algorithm2(xt, m.set.Inner, phase1, true)
}

func (m *switchingMethod) consistent(cur, next *Point, info oracleInfo, phase1 bool) bool {
	return m.solver.consistent(cur, next, info, phase1)
}

// algorithm2 runs Algorithm 2 (the switching subgradient method) for K inner
// iterations on the subproblem (7) at xt with the current RhoHat and Rho,
// and leaves its output in s.out:
//
//	F(z) = f0(z) + RhoHat/2 ||z - xt||^2,  G(z) = max_i fi(z) + RhoHat/2 ||z - xt||^2,
//	gamma_k = 2 / ((RhoHat - Rho)(k+2)),
//	z_{k+1} = Proj_X(z_k - gamma_k F'(z_k))   if G(z_k) <= EpsHat^2  (k joins I)
//	z_{k+1} = Proj_X(z_k - gamma_k G'(z_k))   otherwise,
//	output sum_{k in I} (k+1) z_k / sum_{k in I} (k+1), or xt if I is empty.
//
// G'(z) is a subgradient of the constraint attaining the maximum (the
// lowest index among ties) plus RhoHat (z - xt).
//
// With phase1 set it is the same method on min G(z) over X (every
// iteration steps on G and is averaged); it stops early, with that iterate
// as the output, at the first iterate with max_i fi(z) <= s.target.
//
// When record is set and RecordEvery > 0 the Recorder is told about every
// RecordEvery-th iterate. An error is from Eval or Grad, or a value that is
// not finite.
func (s *solver) algorithm2(xt []float64, K int, phase1, record bool) (oracleInfo, error) {
	var info oracleInfo
	mu := s.rhoHat - s.rho
	z, d, g := s.z, s.d, s.grad
	copy(z, xt)
	clear(s.zsum)
	var wsum, hsum float64
	every := 0
	if record && s.set.Recorder != nil {
		every = s.set.RecordEvery
	}
	nextCheck := 0 // sampled phase 1: the first iteration that may confirm a feasible estimate
	for k := 0; k < K; k++ {
		if h := s.halted(); h != running {
			info.halt = h
			return info, nil
		}
		q, err := s.evalInner(z, xt, k, s.sampled, &info)
		if err != nil {
			return info, err
		}
		gmax, istar := maxConstraint(s.vals)
		var fn int
		var h float64
		averaged := true
		switch {
		case phase1:
			if gmax <= s.target && (!s.sampled || s.confirmFeasible(z, k, &nextCheck)) {
				info.early = true
				return info, s.nearestFeasible(xt, z)
			}
			if s.sampled && s.mode != modeDraw { // confirmFeasible evaluated the monitoring data
				if err := s.drawMode(); err != nil {
					return info, err
				}
				if err := s.eval(z); err != nil {
					return info, err
				}
				gmax, istar = maxConstraint(s.vals)
			}
			fn, h = istar, gmax+q
		case gmax+q <= s.epsHat2:
			fn, h = 0, s.vals[0]+q
			info.nObj++
		default:
			fn, h = istar, gmax+q
			averaged = false
		}
		if every > 0 && (k+1)%every == 0 && !s.recordInner(z, k, &info, phase1) {
			info.halt = haltRecorder
			return info, nil
		}
		if err := s.gradient(fn); err != nil {
			if k > 0 {
				// no finite subgradient at z_k (a kink such as sqrt's at
				// 0, where the value is fine): the inner loop ends here,
				// with the average of the iterates before it
				break
			}
			return info, err
		}
		for j := range d {
			d[j] = g[j] + s.rhoHat*s.diff[j] // s.diff = z - xt, from evalInner
		}
		wk := float64(k + 1)
		if averaged {
			wsum += wk
			hsum += wk * h
			for j, zj := range z {
				s.zsum[j] += wk * zj
			}
		}
		gamma := 2 / (mu * float64(k+2))
		for j := range z {
			z[j] -= gamma * d[j]
		}
		s.project(z)
	}
	if wsum == 0 {
		info.emptyI = true
		copy(s.out, xt)
		return info, nil
	}
	for j := range s.out {
		s.out[j] = s.zsum[j] / wsum
	}
	info.meanH = hsum / wsum
	return info, nil
}

// evalInner evaluates the inner iterate z_k (on a fresh minibatch when
// draw is set), counts it, stores z - xt in s.diff and returns the
// proximal term RhoHat/2 ||z - xt||^2 of the subproblem (7) at xt.
func (s *solver) evalInner(z, xt []float64, k int, draw bool, info *oracleInfo) (float64, error) {
	if draw {
		if err := s.drawMode(); err != nil {
			return 0, err
		}
	}
	if err := s.eval(z); err != nil {
		return 0, err
	}
	s.stats.Inner++
	info.k = k + 1
	q := 0.0
	for j := range z {
		s.diff[j] = z[j] - xt[j]
		q += s.diff[j] * s.diff[j]
	}
	return s.rhoHat / 2 * q, nil
}

// nearestFeasible leaves in s.out the phase-1 output for the first
// feasible iterate z: the point nearest xt on the segment from xt to z
// (in X, which is convex) with max_i fi <= target, found by bisection (30
// halvings; z itself when no nearer point is found). The iterates' first
// steps, gamma_0 = 2/(RhoHat-Rho), can be long, and the first feasible one
// can lie far beyond the feasible set's edge: on examples/npc.qrc with
// r = 4.4 it saturates every sigmoid of class 1 (loss 9, a flat stationary
// point phase 2 cannot leave); the nearest point on the segment keeps
// phase 1's move as short as it must be.
func (s *solver) nearestFeasible(xt, z []float64) error {
	copy(s.out, z)
	if s.sampled {
		s.monitorMode() // as confirmFeasible: feasibility on the monitoring data
	}
	x := s.znewBuf()
	lo, hi := 0.0, 1.0 // x(lo) = xt is infeasible, x(hi) feasible
	for range bisections {
		tau := (lo + hi) / 2
		for j := range x {
			x[j] = xt[j] + tau*(z[j]-xt[j])
		}
		if err := s.eval(x); err != nil {
			return err
		}
		if g, _ := maxConstraint(s.vals); g <= s.target {
			hi = tau
			copy(s.out, x)
		} else {
			lo = tau
		}
	}
	return nil
}

// znewBuf returns a scratch vector of length N.
func (s *solver) znewBuf() []float64 {
	if s.znew == nil {
		s.znew = make([]float64, s.n)
	}
	return s.znew
}

// confirmFeasible checks an iterate whose minibatch estimate is feasible
// on the monitoring data. A failed check doubles the wait before the next
// one (*next is the first iteration allowed to check), so one oracle call
// makes at most about log2(K) such evaluations.
func (s *solver) confirmFeasible(z []float64, k int, next *int) bool {
	if k < *next {
		return false
	}
	s.monitorMode()
	if err := s.eval(z); err != nil {
		return false
	}
	if g, _ := maxConstraint(s.vals); g <= s.target {
		return true
	}
	*next = 2*k + 1
	return false
}

func (s *solver) recordInner(z []float64, k int, info *oracleInfo, phase1 bool) bool {
	gmax, istar := maxConstraint(s.vals)
	it := Iteration{
		Phase1:           phase1,
		T:                s.t,
		K:                k + 1,
		X:                z,
		Objective:        s.vals[0],
		Infeasibility:    math.Max(0, gmax),
		FeasibleFraction: float64(info.nObj) / float64(k+1),
		RhoHat:           s.rhoHat,
		Estimate:         s.mode == modeDraw,
	}
	if gmax > 0 {
		it.MaxViolated = istar
	}
	return s.record(it)
}

// halted checks the context and the time limit.
func (s *solver) halted() haltReason {
	if s.set.Recorder != nil {
		switch {
		case s.stage != "" && time.Since(s.lastBeat) >= s.set.heartbeat:
			s.heartbeat()
		case s.stage == "" && s.stepPt != nil && time.Since(s.lastRecord) >= s.set.stepBeat:
			// one outer step has run a second without a record: say
			// what runs, so that a long phase 1 or step is not silent
			s.stage, s.stagePt = s.stepStage, s.stepPt
			s.heartbeat()
			s.stage, s.stagePt = "", nil
			s.lastRecord = s.lastBeat
		}
	}
	if s.ctx != nil {
		select {
		case <-s.ctx.Done():
			return haltStop
		default:
		}
	}
	if s.set.TimeLimit > 0 {
		d := s.deadline
		if s.grace {
			d = s.hardDeadline
		}
		if !time.Now().Before(d) {
			return haltTime
		}
	}
	return running
}

// beginStage starts the heartbeats of a stage of work on pt after the
// iterations; the returned function ends them.
func (s *solver) beginStage(name string, pt *Point) func() {
	s.stage, s.stagePt, s.lastBeat = name, pt, time.Now()
	return func() { s.stage, s.stagePt = "", nil }
}

// heartbeat tells the Recorder that the stage is still running. A
// Recorder's error is kept for the result, as for any record, but does not
// cut the stage short.
func (s *solver) heartbeat() {
	s.lastBeat = time.Now()
	it := Iteration{Stage: s.stage, K: max(1, s.stats.Inner), RhoHat: s.rhoHat}
	if p := s.stagePt; p != nil {
		it.T, it.X, it.Objective, it.Infeasibility = p.T, p.X, p.Objective, p.Infeasibility
		if g, i := maxConstraint(p.F); g > 0 {
			it.MaxViolated = i
		}
	}
	s.record(it)
}

// eval evaluates the problem at x into s.vals.
func (s *solver) eval(x []float64) error {
	s.stats.Evals++
	if s.set.TimeLimit == 0 { // lastEval is for the time limit only
		return s.solveErr(s.p.EvalFinite(x, s.vals))
	}
	began := time.Now()
	err := s.p.EvalFinite(x, s.vals)
	s.lastEval = time.Since(began)
	return s.solveErr(err)
}

// gradient stores in s.grad a subgradient of fi at the x of the last eval.
func (s *solver) gradient(i int) error {
	s.stats.Grads++
	return s.solveErr(s.p.GradFinite(i, s.w, s.grad))
}

// gradients returns a subgradient of every fi at the x of the last eval
// (Problem.GradsFinite), in buffers the next call reuses.
func (s *solver) gradients() ([][]float64, error) {
	if s.rows == nil {
		s.rows = make([][]float64, s.p.M+1)
		for i := range s.rows {
			s.rows[i] = make([]float64, s.p.N)
		}
	}
	s.stats.Grads += len(s.rows)
	return s.rows, s.solveErr(s.p.GradsFinite(s.rows, s.w))
}

// solveErr prefixes the solver's own finiteness errors with "solve: "; the
// Problem's errors (an *autodiff.EvalError with its position) pass as they
// are.
func (s *solver) solveErr(err error) error {
	var fe *NonFiniteError
	if errors.As(err, &fe) {
		return fmt.Errorf("solve: %w", err)
	}
	return err
}

func (s *solver) project(x []float64) {
	if s.p.Project != nil {
		s.p.Project(x)
	}
}

// maxConstraint returns max_{i>=1} vals[i] and the lowest index attaining
// it; -Inf and 0 when there are no constraints.
func maxConstraint(vals []float64) (float64, int) {
	g, at := math.Inf(-1), 0
	for i := 1; i < len(vals); i++ {
		if vals[i] > g {
			g, at = vals[i], i
		}
	}
	return g, at
}
