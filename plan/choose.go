package plan

import (
	"context"
	"fmt"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/smoothing"
	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/stdlib"
	"github.com/qrc-lang/qrc/weakconvex"
)

// choose is the oracle of the solve and why it was picked (the note's
// text; "" for an oracle asked for, which is checked against the model
// instead). An oracle asked for is taken as asked, or refused with a
// *RefusalError: smoothed without a smoothing of the model, smooth on a
// model with a kink, stochastic on biased data means (unless
// AllowBiased). With none asked for:
//
//   - dynamic, when the data means run over at least AutoStochasticRows
//     rows;
//   - smooth, when every function is differentiable;
//   - epigraph, when every function is convex and piecewise linear by its
//     form (epigraphFor, a linear program), with affine equalities and box
//     domains, and the form is not too large for a model with data means
//     (epigraphFits): each (7) is then solved exactly;
//   - prox, when the objective is a smooth rest plus kinks of single
//     variables with smooth inequality constraints (separableFor): there
//     it is faster than bundle by one to two orders of magnitude
//     (docs/performance.md);
//   - smooth, when the weak-convexity analysis finds every function
//     smooth on X, or its ranges keep every kink's argument away from the
//     kink (kinksAvoided);
//   - epigraph, when the model has an epigraph form with smooth terms
//     that lifts every kink (none left inside a smooth term, where the
//     SQP steps would take it for smooth: on Wolfe's conditional it
//     stalls where bundle converges) and no data means (its (7) by SQP,
//     docs/solver.md);
//   - dual, when every function is a sum of pos, abs and hinge of affine
//     scores plus an affine rest and there is no equality (piecesFor);
//   - bundle otherwise.
//
// The last three need the analysis, which choose runs then (planner.analysis).
func (p *planner) choose(ctx context.Context) (solve.Oracle, string, error) {
	o, err := p.first()
	if err != nil || p.r.Oracle != nil {
		return o, "", err
	}
	smooth, kink := check.Smooth(p.r.Model)
	rows := problem.SampledRows(p.r.Program)
	data := "the model has no means over data rows to sample"
	if rows > 0 {
		data = fmt.Sprintf("the data means run over %d rows, fewer than %d", rows, AutoStochasticRows)
	}
	switch o.(type) {
	case *solve.DynamicOracle:
		return o, fmt.Sprintf("oracle dynamic (auto: the data means run over %d rows, at least %d): %s on samples of the rows, then on all of them", rows, AutoStochasticRows, accurate(smooth)), nil
	case *solve.SmoothOracle:
		return o, fmt.Sprintf("oracle smooth (auto: every function is differentiable; %s)", data), nil
	}
	at := fmt.Sprintf("%s: %s", kink.Expr.Src().Pos(), kink.Reason)
	hasEq := equalityKinds(p.r.Model) != nil
	var g *solve.EpigraphForm
	if rows == 0 || float64(rows)*float64(p.prob.N) <= 4*epigraphMaxEntries {
		// (a form of many data rows of many features would not fit
		// epigraphMaxEntries: not built at all)
		var err error
		if g, _, err = p.epigraphFor(); err != nil {
			return nil, "", err
		}
	}
	if g != nil && g.Smooth == nil && epigraphFits(g, rows) {
		return solve.Epigraph, fmt.Sprintf("oracle epigraph (auto: %s, and every function is convex and piecewise linear by its form, so each (7) is a sparse quadratic program over the kinks' epigraph variables, solved exactly by an interior-point method; %s)", at, data), nil
	}
	if !hasEq { // the prox oracle takes no equality; the bundle oracle takes affine ones
		sep, _, err := p.separableFor()
		if err != nil {
			return nil, "", err
		}
		if sep != nil {
			return solve.Prox, fmt.Sprintf("oracle prox (auto: %s, and every kink is pos, abs, hinge, mcp or scad of a single variable in the objective, so the subproblems are solved by proximal gradient steps with the kinks exact; %s)", at, data), nil
		}
	}
	r := p.analysis(ctx)
	if smoothOnX(r) || kinksAvoided(r, p.r.Model) {
		p.prob.Smooth = true
		return solve.Smooth, fmt.Sprintf("oracle smooth (auto: %s, but the domain keeps every kink's argument away from it (by the weak-convexity analysis's ranges), so every function is continuously differentiable on X; %s)", at, data), nil
	}
	if g != nil && g.Smooth != nil && g.Smooth.Kinked == "" && epigraphFits(g, rows) {
		return solve.Epigraph, fmt.Sprintf("oracle epigraph (auto: %s, and every kink is a max, pos, abs, hinge or norm of smooth terms, so lifted over epigraph variables the model is smooth, and each (7) is solved by sequential quadratic programming over sparse programs; %s)", at, data), nil
	}
	if !hasEq {
		if pm, _, err := p.piecesFor(); err == nil && pm != nil {
			return solve.Dual, fmt.Sprintf("oracle dual (auto: %s, and every function is a sum of pos, abs and hinge of affine scores plus an affine rest, so (7) is solved through its dual; %s)", at, data), nil
		}
	}
	return solve.Bundle, fmt.Sprintf("oracle bundle (auto: %s; %s)", at, data), nil
}

// epigraphMaxEntries is the most nonzeros of an epigraph form that auto
// solves with the epigraph oracle when the model has data means; larger
// ones (a hinge loss over many rows of many features) go to the dual
// oracle, whose steps cost one pass over the data each and need no
// factorisation.
const epigraphMaxEntries = 5_000_000

// epigraphFits reports whether auto takes the epigraph form g for a model
// whose data means run over rows rows: not when it is dense (more than a
// tenth of its rows' entries nonzero, above epigraphDenseN variables);
// with smooth terms, only without data means; a linear program always
// without data means, else when its nonzeros are at most
// epigraphMaxEntries.
func epigraphFits(g *solve.EpigraphForm, rows int) bool {
	if n := g.N + g.Aux; n > epigraphDenseN && float64(len(g.Col)+len(g.CCol)) > 0.1*float64(n)*float64(len(g.B)+g.M) {
		// dense rows (maxima of linear functions of every variable): the
		// program's factorisation is a dense one of the order of the
		// variables, each interior-point iteration seconds at n = 1000
		return false
	}
	if g.Smooth != nil {
		// each step differentiates the smooth terms column group by column
		// group: a pass over the data each, and a term that depends on
		// many variables makes as many groups
		for _, sup := range g.Smooth.Support {
			if len(sup) > epigraphMaxSupport {
				return false
			}
		}
		return rows == 0
	}
	return rows == 0 || len(g.Col)+len(g.CCol) <= epigraphMaxEntries
}

// epigraphDenseN is the size above which auto leaves a dense epigraph
// form to the other oracles.
const epigraphDenseN = 300

// epigraphMaxSupport is the most variables a smooth term of an epigraph
// form that auto takes may depend on (the Hessian's column groups are at
// least that many).
const epigraphMaxSupport = 200

// first is the choice that needs neither the analysis nor the model's
// forms beyond its smoothing: the oracle asked for, checked (see choose);
// with none asked for, dynamic for large data means, else smooth for a
// differentiable model and bundle for one with a kink, which choose may
// turn into another.
func (p *planner) first() (solve.Oracle, error) {
	m := p.r.Model
	smooth, kink := check.Smooth(m)
	at := func() string { return fmt.Sprintf("%s: %s", kink.Expr.Src().Pos(), kink.Reason) }
	switch o := p.r.Oracle; o.(type) {
	case nil:
		if problem.SampledRows(p.r.Program) >= AutoStochasticRows {
			// each stage is a sample-average problem, so biased means
			// are no obstacle, unlike for the stochastic oracle's
			// minibatches
			return solve.Dynamic, nil
		}
		return accurate(smooth), nil
	case *solve.StochasticOracle:
		biased := problem.Biased(m, p.r.Program)
		if len(biased) == 0 || p.r.AllowBiased {
			return o, nil
		}
		e := &RefusalError{}
		for _, b := range biased {
			e.Diagnostics = append(e.Diagnostics, &diag.Diagnostic{Pos: b.Mean.Src().Pos(), Msg: fmt.Sprintf("%s: this mean over data rows is %s (%s); a minibatch estimate of %s is biased, so the stochastic oracle refuses it (use Options.Oracle = smooth, bundle or switching, or Options.AllowBiased to sample it anyway)",
				b.Function, b.Why, b.Context.Pos(), b.Function)})
		}
		return nil, e
	case *solve.SmoothedOracle:
		sm, why, err := p.smoothingOf()
		if err != nil {
			return nil, err
		}
		if sm == nil {
			return nil, &RefusalError{Msg: fmt.Sprintf("Options.Oracle = smoothed needs kinks (pos, abs, hinge, mcp, scad) of affine arguments that enter every function with positive coefficients through sums and means, and at %s (use Options.Oracle = bundle)", why)}
		}
		return o, nil
	case *solve.SmoothOracle:
		if !smooth {
			return nil, &RefusalError{Msg: fmt.Sprintf("Options.Oracle = smooth needs a differentiable model, and at %s (use Options.Oracle = bundle)", at())}
		}
		return o, nil
	default:
		return o, nil
	}
}

// accurate is the accurate oracle for a model that is smooth or not.
func accurate(smooth bool) solve.Oracle {
	if smooth {
		return solve.Smooth
	}
	return solve.Bundle
}

// smoothingOf compiles the model's smoothing once (package smoothing);
// nil and the reason when it is not smoothable.
func (p *planner) smoothingOf() (*smoothing.Smoothing, string, error) {
	if p.smoothing != nil {
		return p.smoothing, "", nil
	}
	sm, why, err := smoothing.New(p.r.Model)
	p.smoothing = sm
	return sm, why, err
}

// smoothOnX reports whether the analysis r finds every function provably
// weakly convex and continuously differentiable on X: then the smooth
// oracle's gradients are gradients wherever it evaluates (it evaluates
// only points of X), although an operation has a kink somewhere else.
func smoothOnX(r *weakconvex.Report) bool {
	if r == nil || r.Err != nil || len(r.Functions) == 0 {
		return false
	}
	for _, f := range r.Functions {
		if !f.Weak || !f.Smooth {
			return false
		}
	}
	return true
}

// kinksAvoided reports whether, by the value ranges the analysis r found,
// the argument of every kink of m (check.Kinks) stays away from the point
// where the operation is not differentiable on X (stdlib.KinkPoint): abs,
// pos, sqrt, mcp and scad away from 0, hinge away from 1, z^p
// (0 < p < 1, ...) away from 0. The ranges are enclosures (outward
// rounded), so a range that excludes the point proves it; a max or min
// over variable terms, a norm, or a kink whose argument's range the
// analysis did not record is not avoided. It holds also where the
// analysis cannot prove weak convexity (a product of variable terms),
// since it needs only the ranges.
func kinksAvoided(r *weakconvex.Report, m *check.Model) bool {
	if r == nil || r.Err != nil {
		return false
	}
	for _, k := range check.Kinks(m) {
		var arg check.Expr
		at := 0.0
		switch x := k.Expr.(type) {
		case *check.Call:
			p, ok := stdlib.KinkPoint(x.Func.Name)
			if !ok || len(x.Args) == 0 {
				return false
			}
			arg, at = x.Args[0], p
		case *check.Arith:
			arg = x.X
		default:
			return false
		}
		st := r.Stat(arg)
		if st == nil || !(st.Val.Lo <= st.Val.Hi) || (st.Val.Lo <= at && at <= st.Val.Hi) {
			return false
		}
	}
	return true
}
