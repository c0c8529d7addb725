package solve

import (
	"math"

	"github.com/qrc-lang/qrc/dualqp"
)

// dualMethod is the dual oracle's run within one solve: for a Problem
// whose functions are convex piecewise-linear terms of affine scores plus
// affine rests (DualOracle.Pieces), (7) with no proximal term on the
// constraints (they are convex, as conProx allows for a proven modulus
// 0) is solved by accelerated projected gradient ascent on its dual
// (dualqp.Solver), whose value at every dual feasible point is a lower
// bound on min (7). The primal point of the dual's iterates that the
// model finds feasible with the lowest F is evaluated on the Problem's
// own functions, which decide its feasibility and values. The dual point
// is kept from one subproblem to the next as a warm start.
type dualMethod struct {
	*solver
	o     *DualOracle
	qp    *dualqp.Solver
	prox  []float64 // the constraints' proximal weights: 0
	slack []float64 // the constraints' tightening for the primal search
	// lastTol is the gap the last subproblem asked for (0 before the
	// first): it sets the tightening
	lastTol float64
	lam     []float64 // the warm multipliers, copied out for the KKT check
}

// dualStepsPerEval is how many dual ascent steps count as one evaluation
// against the oracle's budget (Settings.MaxEvals): a step multiplies by
// the scores' matrix twice, about the work of an evaluation and a
// gradient.
const dualStepsPerEval = 1

// dualCheckEvery is how often, in ascent steps, the oracle checks its gap
// and the clock.
const dualCheckEvery = 10

func newDualMethod(s *solver, o *DualOracle) *dualMethod {
	return &dualMethod{solver: s, o: o, qp: dualqp.NewSolver(o.Pieces), prox: make([]float64, s.m), slack: make([]float64, s.m), lam: make([]float64, s.m)}
}

func (s *dualMethod) oracle() Oracle { return s.o }

// loadWarm starts the dual from w's dual point when w keeps one.
func (s *dualMethod) loadWarm(w *warmStart) {
	if w.keepDual && w.dual != nil {
		s.qp.StartFrom(w.dual)
	}
}

// saveWarm leaves the dual point in w when w keeps one.
func (s *dualMethod) saveWarm(w *warmStart) {
	if w.keepDual {
		w.dual = s.qp.Warm()
	}
}

func (s *dualMethod) warmMultipliers() []float64 {
	copy(s.lam, s.qp.Lambda())
	return s.lam
}

// solve solves (7) at xt to the accuracy acc; its output is in s.out
// (and its values in s.outF when it is feasible).
func (s *dualMethod) solve(xt []float64, acc accuracy) (res subResult, halt haltReason, err error) {
	res = subResult{F: math.Inf(1), Lower: math.Inf(-1), Lambda: make([]float64, s.m), Prox: s.prox}
	mu := s.rhoHat - s.rho
	// the tightening costs about lambda_i slack_i of the gap: a quarter
	// of the tolerance the last subproblem asked for
	tol := s.lastTol
	if tol == 0 {
		tol = s.epsHat2
	}
	warm := s.qp.Lambda()
	for i := range s.slack {
		s.slack[i] = tol / 4 / math.Max(1, warm[i]*float64(s.m))
	}
	stop := func(lower, upper float64, bestY []float64, iters int) bool {
		if halt = s.halted(); halt != running {
			return true
		}
		if math.IsInf(upper, 1) {
			return false
		}
		d := dist(bestY, xt)
		t := s.gapTol(acc, d, s.rhoHat)
		s.lastTol = t
		// the tightening costs the gap about lambda_i slack_i: keep it
		// below a quarter of this tolerance
		lam := s.qp.Lambda()
		for i := range s.slack {
			s.slack[i] = math.Min(s.slack[i], t/4/math.Max(1, lam[i]*float64(s.m)))
		}
		// half the tolerance: the evaluation on the Problem's own
		// functions may differ from the model's by rounding
		if upper-lower <= t/2 {
			return true
		}
		return acc.Far > 0 && d-math.Sqrt(2*math.Max(0, upper-lower)/mu) > acc.Far
	}
	maxIter := acc.MaxEvals * dualStepsPerEval
	r := s.qp.Solve(dualqp.Sub{Xt: xt, P: s.rhoHat, Project: s.p.Project, Slack: s.slack}, maxIter, dualCheckEvery, stop)
	res.Evals = r.Iters/dualStepsPerEval + 1
	s.stats.Inner += r.Iters
	res.Lower = r.Lower
	copy(res.Lambda, r.Lambda)
	// the candidate, on the Problem's own functions; x_t itself when the
	// dual found none (feasible for (7) when x_t is feasible)
	y := r.Y
	if y == nil {
		y = xt
	}
	copy(s.out, y)
	s.project(s.out)
	if err := s.eval(s.out); err != nil {
		return res, halt, err
	}
	q := 0.0
	for j := range s.out {
		d := s.out[j] - xt[j]
		q += d * d
	}
	copy(s.outF, s.vals)
	res.F = s.vals[0] + s.rhoHat/2*q
	res.Feasible = true
	for i := 1; i <= s.m; i++ {
		if s.vals[i] > 0 {
			res.Feasible = false
		}
	}
	if math.IsNaN(res.Lower) {
		res.Lower = math.Inf(-1)
	}
	return res, halt, nil
}
