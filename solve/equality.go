package solve

import (
	"context"
	"fmt"
	"math"
)

// ConstraintKind says what a constraint fi of a Problem asks of x.
type ConstraintKind uint8

const (
	// Inequality is fi(x) <= 0, the paper's setting.
	Inequality ConstraintKind = iota
	// AffineEquality is fi(x) = 0 with fi affine: (7) keeps it as an
	// equality and stays strongly convex, so the theory holds.
	AffineEquality
	// NonlinearEquality is fi(x) = 0 with fi not affine: outside the
	// paper's weakly convex theory (its feasible set is not convex near
	// x_t whatever RhoHat). The smooth oracle solves (7) with it locally,
	// as IPOPT and SLSQP do, and only the KKT residual at x certifies.
	NonlinearEquality
)

// Equality tolerances: inside the solver an equality fi = 0 is the band
// |fi| <= tau (two inequalities without proximal terms), so that a point
// can satisfy (7)'s constraints exactly; tau is affineBand for an affine
// fi and nonlinearBand*Eps otherwise, and the solver's own Eps is lowered
// by tau so that the infeasibility |fi| of a point it returns as feasible
// stays within the caller's Eps.
const (
	affineBand    = 1e-10
	nonlinearBand = 0.01
)

// equalities is a Problem with equalities written as inequalities for the
// solver, and the way back to the caller's constraints.
type equalities struct {
	orig *Problem
	// eqs are the equalities' function indices (1..M) in the caller's
	// Problem; the k-th is constraint M+1+k's negated copy
	eqs []int
	tau []float64 // the band of each equality (by k)
}

// hasEquality reports whether p has an equality constraint.
func (p *Problem) hasEquality() bool {
	for _, k := range p.Kinds {
		if k != Inequality {
			return true
		}
	}
	return false
}

// TakesEquality reports whether the oracle o solves a constraint of kind
// k, on a Problem that is smooth or not: an inequality every oracle; an
// equality the Smooth oracle, the Bundle oracle an affine one only (its
// cuts of h and -h cannot both be minorants of a nonlinear h), Dynamic
// what its stages' oracle Auto(p) takes, and Algorithms 2 and 3 none.
func TakesEquality(o Oracle, k ConstraintKind, smooth bool) bool {
	if o == nil {
		return k == Inequality
	}
	return o.takes(k, smooth)
}

// checkEqualities refuses the oracles that cannot take p's equalities:
// Algorithms 2 and 3 take none, the bundle oracle (and dynamic sampling
// on a nonsmooth Problem, whose stages run it) affine ones only.
func checkEqualities(p *Problem, o Oracle) error {
	if len(p.Kinds) != p.M {
		return fmt.Errorf("solve: %d constraint kinds (Problem.Kinds) for M = %d constraints", len(p.Kinds), p.M)
	}
	for i, k := range p.Kinds {
		if TakesEquality(o, k, p.Smooth) {
			continue
		}
		switch o.(type) {
		case *BundleOracle, *DynamicOracle:
			return fmt.Errorf("solve: equality constraint %s is not affine: the %v oracle takes affine equalities only (its cuts of h and -h cannot both be minorants); the Smooth oracle takes it, on a Problem that is smooth (Problem.Smooth)", p.FuncName(i+1), o)
		case *SwitchingOracle, *StochasticOracle:
			return fmt.Errorf("solve: equality constraint %s: the %v oracle takes inequality constraints only (Algorithms 2 and 3 switch on fi <= EpsHat^2); use the Smooth oracle", p.FuncName(i+1), o)
		default:
			return fmt.Errorf("solve: equality constraint %s: the %v oracle takes inequality constraints only", p.FuncName(i+1), o)
		}
	}
	return nil
}

// split writes every equality fi = 0 of p as fi - tau <= 0 (constraint i)
// and -fi - tau <= 0 (constraint M+1+k for the k-th equality), neither with
// a proximal term in (7), and returns the problem the solver sees.
func split(p *Problem, eps float64) (*equalities, *Problem) {
	e := &equalities{orig: p}
	for i, k := range p.Kinds {
		if k == Inequality {
			continue
		}
		e.eqs = append(e.eqs, i+1)
		tau := affineBand
		if k == NonlinearEquality {
			tau = nonlinearBand * eps
		}
		e.tau = append(e.tau, tau)
	}
	m, E := p.M, len(e.eqs)
	q := *p
	q.Kinds = nil
	q.M = m + E
	q.eqSide = make([]bool, q.M)
	for k, i := range e.eqs {
		q.eqSide[i-1], q.eqSide[m+k] = true, true
		q.nonlinearEq = q.nonlinearEq || p.Kinds[i-1] == NonlinearEquality
	}
	if q.nonlinearEq {
		q.Convex = false // the feasible set is not convex
	}
	if p.Names != nil {
		q.Names = append(append([]string(nil), p.Names...), make([]string, E)...)
		for k, i := range e.eqs {
			q.Names[m+k] = p.Names[i-1]
		}
	}
	if p.ConstraintRho != nil {
		q.ConstraintRho = append(append([]float64(nil), p.ConstraintRho...), make([]float64, E)...)
		for k, i := range e.eqs {
			if p.Kinds[i-1] == NonlinearEquality {
				q.ConstraintRho[m+k] = math.NaN()
			}
		}
	}
	q.Eval = func(x, vals []float64) error {
		if err := p.Eval(x, vals[:m+1]); err != nil {
			return err
		}
		for k, i := range e.eqs {
			h := vals[i]
			vals[i], vals[m+1+k] = h-e.tau[k], -h-e.tau[k]
		}
		return nil
	}
	wp := make([]float64, m+1)
	q.Grad = func(w, g []float64) error {
		copy(wp, w[:m+1])
		for k, i := range e.eqs {
			wp[i] -= w[m+1+k]
		}
		return p.Grad(wp, g)
	}
	if p.Jacobian != nil {
		q.Jacobian = func(rows [][]float64) error {
			if err := p.Jacobian(rows[:m+1]); err != nil {
				return err
			}
			for k, i := range e.eqs {
				for j, v := range rows[i] {
					rows[m+1+k][j] = -v
				}
			}
			return nil
		}
	}
	return e, &q
}

// values maps the solver's values f (len M+E+1) back to the caller's
// (len M+1): fi for an equality, not fi - tau.
func (e *equalities) values(f []float64) []float64 {
	m := e.orig.M
	out := append([]float64(nil), f[:m+1]...)
	for k, i := range e.eqs {
		out[i] = f[i] + e.tau[k]
	}
	return out
}

// infeasibility is max(0, max over inequalities fi, max over equalities
// |fi|) of the caller's values f.
func (e *equalities) infeasibility(f []float64) float64 {
	v := 0.0
	for i := 1; i < len(f); i++ {
		if e.orig.Kinds[i-1] == Inequality {
			v = math.Max(v, f[i])
		} else {
			v = math.Max(v, math.Abs(f[i]))
		}
	}
	return v
}

// point maps a Point of the solver back to the caller's constraints.
func (e *equalities) point(pt *Point) {
	if pt == nil || pt.F == nil {
		return
	}
	pt.F = e.values(pt.F)
	pt.Infeasibility = e.infeasibility(pt.F)
}

// index maps a constraint index of the solver's problem (1..M+E) to the
// caller's (1..M).
func (e *equalities) index(i int) int {
	if m := e.orig.M; i > m {
		return e.eqs[i-m-1]
	}
	return i
}

// result maps a Result of the solver back to the caller's constraints:
// values, violations, and one multiplier per equality (of either sign:
// the multiplier of fi <= 0 less that of -fi <= 0).
func (e *equalities) result(res *Result) {
	e.point(&res.Point)
	e.point(res.Best)
	e.point(res.MostFeasible)
	if res.Violated != nil {
		var v []int
		seen := map[int]bool{}
		for _, i := range res.Violated {
			if j := e.index(i); !seen[j] {
				seen[j] = true
				v = append(v, j)
			}
		}
		res.Violated = v
	}
	if c := res.Certificate; c != nil && len(c.Multipliers) == e.orig.M+len(e.eqs) {
		m := e.orig.M
		lam := c.Multipliers[:m:m]
		for k, i := range e.eqs {
			lam[i-1] -= c.Multipliers[m+k]
		}
		c.Multipliers = lam
	}
}

// recorder maps the solver's iterations back to the caller's constraints.
type eqRecorder struct {
	next Recorder
	e    *equalities
}

func (r *eqRecorder) Record(it Iteration) error {
	if it.MaxViolated > 0 {
		it.MaxViolated = r.e.index(it.MaxViolated)
	}
	return r.next.Record(it)
}

// minimizeEqualities is Minimize on a Problem with equality constraints.
func minimizeEqualities(ctx context.Context, p *Problem, x0 []float64, s Settings) (*Result, error) {
	o := s.Oracle
	if o == nil {
		o = Auto(p)
	}
	if err := p.Validate(x0); err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	if err := checkEqualities(p, o); err != nil {
		return nil, err
	}
	full, err := withDefaults(p, s)
	if err != nil {
		return nil, err
	}
	e, q := split(p, full.Eps)
	band := 0.0
	for _, t := range e.tau {
		band = math.Max(band, t)
	}
	full.Eps -= band
	if eo, ok := full.Oracle.(*EpigraphOracle); ok && eo.Form != nil {
		full.Oracle = &EpigraphOracle{Form: eo.Form.splitEqualities(e.eqs, e.tau)}
	}
	if full.Recorder != nil {
		full.Recorder = &eqRecorder{next: full.Recorder, e: e}
	}
	res, err := Minimize(ctx, q, x0, full)
	if err != nil {
		return nil, err
	}
	e.result(res)
	return res, nil
}
