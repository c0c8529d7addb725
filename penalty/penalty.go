// Package penalty minimises f0(x) subject to fi(x) <= 0 (i = 1..m) and
// x in X by the exact penalty trust-region method of Cartis, Gould & Toint
// (SIAM J. Optim. 2011), the baseline of the experiments of Ma, Lin & Yang
// (ICML 2020, section 5), with their parameters as the defaults.
//
// At x_k it minimises the linearisation of the exact penalty function
//
//	phi(x) = f0(x) + p * sum_i max(0, fi(x))
//
// over the trust region ||s||_inf <= Delta_k (a linear program, solved by
// Subproblem.Solve), accepts x_k + s_k when the ratio of actual to
// predicted decrease of phi is at least Eta1, updates Delta_k from that
// ratio, and raises p by the factor Tau when the step does not do enough
// for feasibility (the steering parameter Xi) or x_k is critical for phi
// but infeasible. The domain X enters as constraints among the fi
// (solve.Problem.DomainConstraints), so iterates may leave it; the
// infeasibility reported includes its violation.
//
// The method's theory assumes f0..fm smooth. With nonsmooth functions it
// runs on subgradients and the linear model can be poor at kinks; the
// trust region then shrinks until MinDelta stops it. docs/penalty.md
// gives every formula and default.
package penalty

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/solve"
)

// The defaults, the parameters of Ma, Lin & Yang (2020, section 5) for
// pendigits, and the limits.
const (
	DefaultXi       = 0.1  // Settings.Xi
	DefaultTau      = 100  // Settings.Tau
	DefaultEps      = 1e-3 // Settings.Eps
	DefaultDelta0   = 1.0  // Settings.Delta0
	DefaultEta1     = 0.3  // Settings.Eta1
	DefaultEta2     = 0.7  // Settings.Eta2
	DefaultGamma1   = 0.5  // Settings.Gamma1
	DefaultGamma2   = 1.0  // Settings.Gamma2
	DefaultMaxIter  = 1000 // Settings.MaxIter
	DefaultMinDelta = 1e-10
	MaxPenalty      = 1e20 // p is never raised beyond this; past it the problem is reported Infeasible
)

// Settings control Minimize. The zero value means every default.
type Settings struct {
	// Xi is the steering parameter in (0, 1): when x is infeasible, the
	// step must achieve at least Xi times the largest decrease of the
	// linearised infeasibility possible in the trust region, or p is
	// raised. Default 0.1.
	Xi float64
	// Tau > 1 is the factor by which p is raised. Default 100.
	Tau float64
	// P0 is the initial penalty parameter p_{-1}. Default 1/Xi.
	P0 float64
	// Eps is the tolerance epsilon for criticality and feasibility.
	// Default 1e-3.
	Eps float64
	// Delta0 is the initial trust-region radius (infinity norm). Default 1.
	Delta0 float64
	// Eta1 <= Eta2 in (0, 1) are the ratio thresholds: a step is accepted
	// when the ratio r of actual to predicted decrease is >= Eta1. Delta
	// is kept when r >= Eta2, multiplied by Gamma2 when Eta1 <= r < Eta2
	// and by Gamma1 when r < Eta1. Defaults 0.3, 0.7, 0.5 and 1 (so with
	// the defaults Delta never grows: the paper's rule).
	Eta1, Eta2     float64
	Gamma1, Gamma2 float64
	// MaxIter bounds the iterations (one LP step each). Default 1000.
	MaxIter int
	// MinDelta stops the method when Delta falls below it: the linear
	// model no longer predicts phi even on tiny steps (at a kink, with
	// subgradients). Default 1e-10.
	MinDelta float64
	// TimeLimit bounds the wall-clock time, checked at every iteration;
	// 0 means none.
	TimeLimit time.Duration
	// Recorder, if not nil, is told about every iteration (Method
	// "penalty", K = 0; X is the iterate after the step or rejection).
	Recorder solve.Recorder
}

// Report is what Minimize's result does not say about the method's state.
type Report struct {
	Penalty   float64 // the final penalty parameter p
	Delta     float64 // the final trust-region radius
	Increases int     // times p was raised
	Rejected  int     // rejected steps
	Pivots    int     // simplex pivots in all LP subproblems
	Stalled   bool    // Delta fell below MinDelta (the status is then IterationLimit)
}

// WithDefaults returns s with every zero field replaced by its default,
// after validating it.
func (s Settings) WithDefaults() (Settings, error) {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.Xi, DefaultXi)
	def(&s.Tau, DefaultTau)
	def(&s.P0, 1/s.Xi)
	def(&s.Eps, DefaultEps)
	def(&s.Delta0, DefaultDelta0)
	def(&s.Eta1, DefaultEta1)
	def(&s.Eta2, DefaultEta2)
	def(&s.Gamma1, DefaultGamma1)
	def(&s.Gamma2, DefaultGamma2)
	def(&s.MinDelta, DefaultMinDelta)
	if s.MaxIter == 0 {
		s.MaxIter = DefaultMaxIter
	}
	for _, c := range []struct {
		name   string
		v      float64
		lo, hi float64 // open interval
	}{
		{"Xi", s.Xi, 0, 1}, {"Tau", s.Tau, 1, math.Inf(1)}, {"P0", s.P0, 0, MaxPenalty},
		{"Eps", s.Eps, 0, math.Inf(1)}, {"Delta0", s.Delta0, 0, math.Inf(1)},
		{"Eta1", s.Eta1, 0, 1}, {"Eta2", s.Eta2, 0, 1}, {"Gamma1", s.Gamma1, 0, 1},
		{"Gamma2", s.Gamma2, 0, 1.0000001}, {"MinDelta", s.MinDelta, 0, math.Inf(1)},
	} {
		if !(c.v > c.lo && c.v < c.hi) {
			return s, fmt.Errorf("penalty: %s = %v; it must be in (%v, %v)", c.name, c.v, c.lo, c.hi)
		}
	}
	switch {
	case s.Eta1 > s.Eta2:
		return s, fmt.Errorf("penalty: Eta1 = %v must not exceed Eta2 = %v", s.Eta1, s.Eta2)
	case s.Gamma1 > s.Gamma2:
		return s, fmt.Errorf("penalty: Gamma1 = %v must not exceed Gamma2 = %v", s.Gamma1, s.Gamma2)
	case s.MaxIter < 0 || s.TimeLimit < 0:
		return s, errors.New("penalty: negative MaxIter or TimeLimit")
	}
	return s, nil
}

// Minimize solves p from x0 (which is not projected and not modified;
// cancelling ctx ends it after the current iteration with status
// Interrupted) and
// returns the result in the form of package solve: the same statuses, the
// last iterate (or, if it is infeasible, the best feasible one), Best and
// MostFeasible. Certificate is always nil (the method has none of IQRC's
// proximal points), RhoHat and Rho are 0, Stats.Outer counts iterations
// and Stats.Inner is 0. Point.Infeasibility is the paper's: the largest of
// 0, the fi and the domain's constraints. The error is for an invalid
// problem or settings.
func Minimize(ctx context.Context, p *solve.Problem, x0 []float64, s Settings) (*solve.Result, error) {
	res, _, err := MinimizeReport(ctx, p, x0, s)
	return res, err
}

// MinimizeReport is Minimize that also returns the final penalty
// parameter, radius and counts.
func MinimizeReport(ctx context.Context, p *solve.Problem, x0 []float64, s Settings) (*solve.Result, *Report, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := validate(p, x0); err != nil {
		return nil, nil, err
	}
	s, err := s.WithDefaults()
	if err != nil {
		return nil, nil, err
	}
	m := &method{ctx: ctx, p: p, set: s, start: time.Now(), rep: &Report{}, tr: solve.Tracker{Eps: s.Eps}}
	res := m.run(x0)
	res.Stats = m.stats
	res.Stats.Time = time.Since(m.start)
	m.rep.Penalty, m.rep.Delta = m.pen, m.delta
	return res, m.rep, nil
}

func validate(p *solve.Problem, x0 []float64) error {
	if err := p.Validate(x0); err != nil {
		return fmt.Errorf("penalty: %w", err)
	}
	if p.Project != nil && p.DomainConstraints == nil {
		return errors.New("penalty: the problem has a domain (Project) but no DomainConstraints; the penalty method needs the domain as inequalities")
	}
	return nil
}

// state is an evaluated point.
type state struct {
	x    []float64
	vals []float64 // f0..fM
	dom  []domain.Constraint
	viol float64 // sum of max(0, c) over the fi and the domain's constraints
	inf  float64 // max(0, the largest fi or domain constraint)
	T    int
}

// constraint returns the value of constraint i of the subproblem (the fi,
// then the domain's).
func (st *state) constraint(i, m int) float64 {
	if i < m {
		return st.vals[i+1]
	}
	return st.dom[i-m].Value
}

func (st *state) phi(pen float64) float64 { return st.vals[0] + pen*st.viol }

type method struct {
	ctx   context.Context // the caller's: cancelling it ends the solve
	p     *solve.Problem
	set   Settings
	start time.Time
	stats solve.Stats
	rep   *Report

	pen, delta float64
	tr         solve.Tracker // Best and MostFeasible
	recErr     error         // the Recorder's error
}

// eval evaluates f0..fM and the domain's constraints at x.
func (m *method) eval(x []float64) (*state, error) {
	st := &state{x: append([]float64(nil), x...), vals: make([]float64, m.p.M+1)}
	m.stats.Evals++
	if err := m.p.EvalFinite(st.x, st.vals); err != nil {
		return nil, err
	}
	if m.p.DomainConstraints != nil {
		st.dom = m.p.DomainConstraints(st.x, nil)
	}
	for i := range m.p.M + len(st.dom) {
		c := st.constraint(i, m.p.M)
		st.viol += math.Max(0, c)
		st.inf = math.Max(st.inf, c)
	}
	return st, nil
}

// linearize returns the subproblem's data at st: the subgradient of f0 and
// of every constraint. It must follow the Eval at st.x directly.
func (m *method) linearize(st *state) (g0 []float64, F []float64, G [][]float64, err error) {
	n, M := m.p.N, m.p.M
	rows := make([][]float64, M+1)
	for i := range rows {
		rows[i] = make([]float64, n)
	}
	m.stats.Grads += M + 1
	if err := m.p.GradsFinite(rows, make([]float64, M+1)); err != nil {
		return nil, nil, nil, err
	}
	g0 = rows[0]
	for i := 1; i <= M; i++ {
		F, G = append(F, st.vals[i]), append(G, rows[i])
	}
	for _, c := range st.dom {
		g := make([]float64, n)
		copy(g[c.Start:], c.Grad)
		F, G = append(F, c.Value), append(G, g)
	}
	return g0, F, G, nil
}

func (m *method) point(st *state) *solve.Point {
	return &solve.Point{X: st.x, F: st.vals, Objective: st.vals[0], Infeasibility: st.inf, T: st.T}
}

// track updates Best and MostFeasible with an iterate.
func (m *method) track(st *state) { m.tr.Track(m.point(st)) }

// halted reports why the method must stop now, if it must.
func (m *method) halted(iter int) (solve.Status, bool) {
	if m.ctx.Err() != nil {
		return solve.Interrupted, true
	}
	if m.set.TimeLimit > 0 && time.Since(m.start) >= m.set.TimeLimit {
		return solve.TimeLimit, true
	}
	if iter >= m.set.MaxIter {
		return solve.IterationLimit, true
	}
	return 0, false
}

// run is the method. Each iteration: the LP step with steering, the
// criticality test, the trial point, the ratio test, the radius update.
func (m *method) run(x0 []float64) *solve.Result {
	m.pen, m.delta = m.set.P0, m.set.Delta0
	cur, err := m.eval(x0)
	if err != nil {
		nan := math.NaN()
		return &solve.Result{Status: solve.NumericalError, Err: err,
			Point: solve.Point{X: append([]float64(nil), x0...), Objective: nan, Infeasibility: nan}}
	}
	m.track(cur)
	g0, F, G, err := m.linearize(cur)
	if err != nil {
		return m.finish(solve.NumericalError, cur, err)
	}
	nc := len(F)
	for iter := 0; ; {
		if status, stop := m.halted(iter); stop {
			return m.finish(status, cur, nil)
		}
		sp := &Subproblem{G0: g0, F: F, G: G, P: m.pen, Delta: m.delta}
		s, err := m.solveLP(sp)
		if err != nil {
			return m.finish(solve.NumericalError, cur, err)
		}
		// Steering: an infeasible x must get at least Xi of the decrease
		// of the linearised infeasibility that the trust region allows.
		feasDrop := 0.0
		if cur.viol > 0 && nc > 0 {
			fs := &Subproblem{F: F, G: G, P: 1, Delta: m.delta}
			sf, err := m.solveLP(fs)
			if err != nil {
				return m.finish(solve.NumericalError, cur, err)
			}
			feasDrop = cur.viol - fs.Violation(sf)
			for feasDrop > 0 && cur.viol-sp.Violation(s) < m.set.Xi*feasDrop && m.pen*m.set.Tau <= MaxPenalty {
				m.raise()
				sp.P = m.pen
				if s, err = m.solveLP(sp); err != nil {
					return m.finish(solve.NumericalError, cur, err)
				}
			}
		}
		pred := m.pen*cur.viol - sp.Model(s) // l(0) - l(s)
		// Criticality: pred/min(Delta, 1) bounds the decrease of the model
		// within radius 1 (the model is convex), Cartis et al.'s measure.
		if pred/math.Min(m.delta, 1) <= m.set.Eps {
			if cur.inf <= m.set.Eps {
				return m.finish(solve.Converged, cur, nil)
			}
			if feasDrop/math.Min(m.delta, 1) <= m.set.Eps || m.pen*m.set.Tau > MaxPenalty {
				// a critical point of the infeasibility, or p exhausted
				return m.finish(solve.Infeasible, cur, nil)
			}
			m.raise()
			continue
		}
		iter++
		m.stats.Outer++
		trial, err := m.eval(addTo(cur.x, s))
		if err != nil {
			return m.finish(solve.NumericalError, cur, err)
		}
		ratio := (cur.phi(m.pen) - trial.phi(m.pen)) / pred
		step := 0.0
		if ratio >= m.set.Eta1 {
			trial.T = iter
			step = dist(cur.x, trial.x)
			cur = trial
			m.track(cur)
			if g0, F, G, err = m.linearize(cur); err != nil {
				return m.finish(solve.NumericalError, cur, err)
			}
		} else {
			m.rep.Rejected++
		}
		switch {
		case ratio >= m.set.Eta2:
		case ratio >= m.set.Eta1:
			m.delta *= m.set.Gamma2
		default:
			m.delta *= m.set.Gamma1
		}
		if !m.record(cur, iter, step) {
			return m.finish(solve.Interrupted, cur, nil)
		}
		if m.delta < m.set.MinDelta {
			m.rep.Stalled = true
			return m.finish(solve.IterationLimit, cur, nil)
		}
	}
}

func (m *method) raise() {
	m.pen *= m.set.Tau
	m.rep.Increases++
}

func (m *method) solveLP(sp *Subproblem) ([]float64, error) {
	s, pivots, err := sp.Solve()
	m.rep.Pivots += pivots
	return s, err
}

func (m *method) record(st *state, iter int, step float64) bool {
	if m.set.Recorder == nil {
		return true
	}
	it := solve.Iteration{T: iter, Elapsed: time.Since(m.start), X: st.x, Objective: st.vals[0],
		Infeasibility: st.inf, MaxViolated: maxViolated(st.vals), Step: step, Method: "penalty"}
	if err := m.set.Recorder.Record(it); err != nil {
		m.recErr = err
		return false
	}
	return true
}

// maxViolated is the model constraint (1..M) with the largest positive
// value, or 0.
func maxViolated(vals []float64) int {
	worst, at := 0.0, 0
	for i := 1; i < len(vals); i++ {
		if vals[i] > worst {
			worst, at = vals[i], i
		}
	}
	return at
}

// finish makes the result: the current iterate, replaced by Best when it
// is infeasible under a success status; with no feasible iterate seen, the
// most feasible one and status Infeasible.
func (m *method) finish(status solve.Status, cur *state, err error) *solve.Result {
	res := &solve.Result{Status: status, Point: *m.point(cur), Best: m.tr.Best, MostFeasible: m.tr.MostFeasible, Err: err}
	if status == solve.Interrupted && m.recErr != nil {
		res.Err = m.recErr
	}
	stopped := status == solve.Interrupted || status == solve.TimeLimit
	if status.Success() && res.Infeasibility > m.set.Eps {
		if m.tr.Best != nil {
			res.Point = *m.tr.Best
		} else if !stopped {
			// (stopped by the context or the clock before a feasible
			// point, the status says so, with the most feasible point)
			res.Status = solve.Infeasible
		}
	}
	if res.Status == solve.Infeasible || res.Infeasibility > m.set.Eps {
		if m.tr.MostFeasible != nil && m.tr.MostFeasible.Infeasibility < res.Infeasibility {
			res.Point = *m.tr.MostFeasible
		}
		for i := 1; i < len(res.F); i++ {
			if res.F[i] > m.set.Eps {
				res.Violated = append(res.Violated, i)
			}
		}
	}
	return res
}

func addTo(x, s []float64) []float64 {
	y := make([]float64, len(x))
	for i := range x {
		y[i] = x[i] + s[i]
	}
	return y
}

func dist(a, b []float64) float64 { return floats.Distance(a, b, 2) }
