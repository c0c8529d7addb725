package plan

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/weakconvex"
)

// maxDerivedRhoHat is the largest 2 rho the solver starts RhoHat at: a
// derived rho is a worst case over all of X, and a much larger RhoHat than
// the curvature along the iterates' path needs makes every step tiny (on
// the raw pendigits features, rho <= 66000 where RhoHat 8 suffices;
// docs/performance.md). Above it RhoHat starts at the default and the
// safeguard doubles it as needed.
const maxDerivedRhoHat = 64

// maxTheoryIter caps the K and T of Theory.
const maxTheoryIter = math.MaxInt32

// analysis runs the weak-convexity analysis of the model once and returns
// it; nil when it did not finish within its budget: a quarter of the
// time limit (or of what the context's deadline leaves), so that a time
// limit covers the analysis too. It stops within milliseconds of the
// budget's end or ctx's cancellation.
func (p *planner) analysis(ctx context.Context) *weakconvex.Report {
	if p.analyzed {
		return p.report
	}
	p.analyzed = true
	began := time.Now()
	defer func() { p.analysisT = time.Since(began) }()
	actx := ctx
	budget := p.r.Settings.TimeLimit / 4
	if d, ok := ctx.Deadline(); ok && (budget == 0 || time.Until(d)/4 < budget) {
		budget = max(time.Until(d)/4, time.Millisecond)
	}
	if budget > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, budget)
		defer cancel()
	}
	r := weakconvex.AnalyzeContext(actx, p.r.Model)
	if actx.Err() != nil {
		return nil
	}
	p.report = r
	return r
}

// applyAnalysis is the solver's use of the weak-convexity analysis
// (docs/analysis.md) for the oracle o, on the settings s it returns. When
// every function is provably weakly convex and the caller gave neither
// Rho nor RhoHat, and 2 rho is at most maxDerivedRhoHat, the derived rho
// becomes Problem.WeakConvexity, from which the solver takes Rho = rho and
// starts RhoHat at max(1, 2 rho) (solve.Settings); for the accurate
// oracles it becomes ProvenRho, which the certificate compares with. A
// model that is not provably weakly convex still solves, with a warning.
// With Theory it sets EpsHat, Inner (K) and Outer (T) from the paper's
// formulas. The time the analysis took (and the choice after it) comes
// off the time limit.
func (p *planner) applyAnalysis(ctx context.Context, o solve.Oracle, s solve.Settings) (solve.Settings, error) {
	if _, dynamic := o.(*solve.DynamicOracle); dynamic && !p.r.Theory {
		// large data: the analysis expands every row (about a minute on
		// 10^6 rows before it gives up), longer than the solve
		p.note(Note{Kind: NoteAnalysis, Verbose: true, Text: "the weak-convexity analysis is skipped with the dynamic oracle (qrc check runs it); RhoHat starts at its default and moves on evidence"})
		return s, nil
	}
	if isEpigraph(o) && !p.r.Theory && p.epigraphIsLP() {
		// the form (withForm makes it, or refuses the model) is the
		// proof: affine terms and nonnegative
		// combinations of maxima of them are convex
		p.prob.Convex = true
		p.note(Note{Kind: NoteAnalysis, Verbose: true, Text: "the epigraph form proves every function convex (rho = 0), so the weak-convexity analysis is not run (qrc check runs it)"})
		return s, nil
	}
	began := time.Now()
	if p.analyzed {
		began = began.Add(-p.analysisT)
	}
	r := p.analysis(ctx)
	if s.TimeLimit > 0 {
		s.TimeLimit = max(s.TimeLimit-time.Since(began), time.Millisecond)
	}
	prob := p.prob
	switch {
	case r == nil && ctx.Err() != nil:
		// the solve that follows stops at once, at the start
		p.note(Note{Kind: NoteAnalysis, Verbose: true, Text: "the weak-convexity analysis did not finish before the solve was stopped"})
		return s, nil
	case r == nil && p.r.Theory:
		return s, errors.New("Options.Theory needs the weak-convexity analysis, which did not finish within a quarter of the time limit (raise Options.TimeLimit)")
	case r == nil:
		p.note(Note{Kind: NoteAnalysis, Text: fmt.Sprintf("the weak-convexity analysis did not finish within a quarter of the time limit (%s s); the solve goes on without it: RhoHat starts at its default and moves on evidence", num(time.Since(began).Seconds()))})
		return s, nil
	}
	note := func(verbose bool, format string, args ...any) {
		p.note(Note{Kind: NoteAnalysis, Verbose: verbose, Text: fmt.Sprintf(format, args...)})
	}
	switch {
	case r.Err != nil:
		note(false, "warning: the weak-convexity analysis did not run (%v); RhoHat starts at its default", r.Err)
	case !r.Weak:
		for _, f := range r.Functions {
			if !f.Weak {
				note(false, "warning: %s is not provably weakly convex (%s); the method's guarantees assume weak convexity, so RhoHat starts at its default and a certificate holds only locally", f.Name, f.Why)
				break
			}
		}
	}
	// a proven convex model's stationary points are minima: no probe
	prob.Convex = r.Err == nil && r.Weak && r.Rho == 0
	_, smooth := o.(*solve.SmoothOracle)
	_, prox := o.(*solve.ProxOracle)
	if (smooth || prox) && r.Err == nil && len(r.Functions) == prob.M+1 {
		prob.ConstraintRho = constraintRho(r, prob)
	}
	switch {
	case r.Err != nil || !r.Weak:
	case p.r.RhoSet || p.r.RhoHatSet || p.r.Theory:
	case o.Accurate():
		// the accurate oracles start RhoHat at the default and move it on
		// evidence; the derived rho tells the certificate whether its
		// assumption is proven
		prob.ProvenRho = r.Rho
		if r.Rho > 0 {
			note(true, "rho <= %.3g by the weak-convexity analysis; the %s oracle starts RhoHat at %g and moves it on evidence (docs/solver.md), and the certificate says whether its Rho reaches the proven bound", r.Rho, o, solve.DefaultRhoHat)
		}
	case 2*r.Rho <= maxDerivedRhoHat:
		prob.WeakConvexity = r.Rho
		if r.Rho > 0 {
			note(true, "rho = %.3g from the weak-convexity analysis (weakconvex.Analyze explains it); RhoHat starts at %.3g", r.Rho, math.Max(solve.DefaultRhoHat, 2*r.Rho))
		}
	default:
		note(true, "the weak-convexity analysis bounds rho by %.3g over all of X; starting RhoHat at twice that would make the steps tiny, so it starts at %g and doubles when a subproblem is not convex (Options.RhoHat sets it)", r.Rho, solve.DefaultRhoHat)
	}
	if !p.r.Theory {
		return s, nil
	}
	return p.applyTheory(r, s)
}

// constraintRho lists the proven weak-convexity modulus of each
// constraint of prob from the analysis r (NaN where the analysis proves
// none), for solve.Problem.ConstraintRho; nil when the analysis's
// functions do not line up with the problem's constraints.
func constraintRho(r *weakconvex.Report, prob *solve.Problem) []float64 {
	out := make([]float64, prob.M)
	for i := range out {
		f := r.Functions[i+1]
		if prob.Names != nil && f.Name != prob.Names[i] {
			return nil
		}
		out[i] = math.NaN()
		if f.Weak && !math.IsInf(f.Rho, 0) && !math.IsNaN(f.Rho) {
			out[i] = f.Rho
		}
	}
	return out
}

// applyTheory sets EpsHat (Algorithm 1's input), K (Algorithm 2, line 3)
// and T (Theorem 1's condition) from rho, M, D, the Slater constant sigma
// and f(x0) - f_lb, with f_lb the analysis' lower bound of the objective
// on X.
func (p *planner) applyTheory(r *weakconvex.Report, s solve.Settings) (solve.Settings, error) {
	if !r.Weak || math.IsInf(r.M, 1) || math.IsInf(r.D, 1) {
		return s, errors.New("Options.Theory needs every function provably weakly convex with a finite M on a bounded domain (qrc check shows why not)")
	}
	rho := r.Rho
	if p.r.RhoSet {
		rho = s.Rho
	}
	rhoHat := math.Max(solve.DefaultRhoHat, 2*rho)
	if p.r.RhoHatSet {
		rhoHat = s.RhoHat
	}
	if rho == 0 { // any rho' >= rho is a modulus: the solver's default
		rho = rhoHat / 2
	}
	if rho >= rhoHat {
		return s, fmt.Errorf("Options.Theory: rho = %g must be below RhoHat = %g", rho, rhoHat)
	}
	eps := s.Eps
	if eps == 0 {
		eps = solve.DefaultEps
	}
	sigma := p.r.Sigma
	mu := rhoHat - rho
	epsHat := math.Min(1, math.Sqrt(mu/4)/math.Sqrt((r.M+rhoHat*r.D)/math.Sqrt(2*sigma*mu)+1)) * eps
	k := math.Ceil(4 * (r.M*r.M + rhoHat*r.D*r.D) / (mu * epsHat * epsHat))
	gap := 0.0
	if p.r.Model.Objective != nil {
		vals := make([]float64, p.prob.M+1)
		if err := p.prob.Eval(p.r.Start, vals); err != nil {
			return s, fmt.Errorf("Options.Theory: evaluating the start: %w", err)
		}
		gap = math.Max(0, vals[0]-r.Functions[0].Range.Lo)
	}
	t := math.Max(1, math.Ceil(4*gap/(eps*eps*mu)))
	capped := ""
	if k > maxTheoryIter || t > maxTheoryIter {
		capped = fmt.Sprintf(" (capped at %d)", maxTheoryIter)
	}
	p.note(Note{Kind: NoteTheory, Text: fmt.Sprintf("Options.Theory: rho = %.4g, M = %.4g, D = %.4g, sigma = %g, f(x0) - f_lb <= %.4g: RhoHat = %.4g, EpsHat = %.4g (Algorithm 1), K = %.4g (Algorithm 2, line 3), T = %.4g (Theorem 1)%s",
		rho, r.M, r.D, sigma, gap, rhoHat, epsHat, k, t, capped)})
	s.RhoHat, s.Rho, s.Eps, s.EpsHat = rhoHat, rho, eps, epsHat
	s.Inner, s.Outer = int(math.Min(k, maxTheoryIter)), int(math.Min(t, maxTheoryIter))
	return s, nil
}

// isEpigraph reports whether o is the epigraph oracle.
func isEpigraph(o solve.Oracle) bool {
	_, ok := o.(*solve.EpigraphOracle)
	return ok
}

// epigraphIsLP reports whether the model's epigraph form is a linear
// program (no smooth terms), building the form if choose has not.
func (p *planner) epigraphIsLP() bool {
	g, _, err := p.epigraphFor()
	return err == nil && g != nil && g.Smooth == nil
}
