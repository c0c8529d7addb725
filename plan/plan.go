// Package plan is the one place where a solve's oracle is chosen and its
// problem prepared, between the model's layers (check, problem,
// smoothing, weakconvex) and the solver (package solve), for the library
// facade (package qrc): data in, decisions out, testable without running
// a solve, as go/types' Config is for type checking.
//
// Given the checked model, its program, the problem built from them and
// the caller's request (Request), Make returns a Plan: the solve.Problem
// with what the weak-convexity analysis proves (WeakConvexity, ProvenRho,
// ConstraintRho, Convex) and the equality kinds, the solve.Settings with
// the oracle value that carries its form of the model (a
// solve.DualOracle with its Pieces, a solve.ProxOracle with its
// Separable objective, ...) and the settings the analysis implies, and
// the notes that say what was chosen and why. The oracle is chosen by one
// method (planner.choose), which returns the oracle and why; a refusal of
// the model by the oracle it asks for is a *RefusalError.
package plan

import (
	"context"
	"fmt"
	"time"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/dualqp"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/smoothing"
	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/weakconvex"
)

// AutoStochasticRows is the size of the data means, in rows over all the
// row sets they sample, from which the dynamic oracle is picked when no
// oracle is asked for (docs/performance.md gives the reason).
const AutoStochasticRows = 50000

// Request is what the caller asks of one solve: the model, the oracle
// (nil: the plan picks one) and the options the choice and the
// preparation depend on. Settings are the solver's settings the options
// give (their Oracle is not read).
type Request struct {
	Model   *check.Model
	Program *autodiff.Program
	// Oracle is the oracle asked for, by name (solve.OracleNamed's
	// values, or a Method's); nil lets the plan pick one.
	Oracle solve.Oracle
	// Method names the method when it is not IQRC ("" for IQRC): the plan
	// then chooses no oracle, and refuses what such a method cannot take.
	Method   string
	Settings solve.Settings
	// Start is the solve's start (len NumScalars), for Theory's bound on
	// f(x0) - f_lb.
	Start []float64
	// AllowBiased lets the stochastic oracle sample data means that sit
	// inside a nonlinearity.
	AllowBiased bool
	// Theory sets EpsHat, Inner and Outer by the paper's formulas, with
	// the Slater constant Sigma.
	Theory bool
	Sigma  float64
	// RhoSet and RhoHatSet report that the caller gave Rho and RhoHat.
	RhoSet, RhoHatSet bool
	// Stochastic and Dynamic are the parameters of those oracles (their
	// forms come from the plan: Dynamic's PiecesOf).
	Stochastic solve.StochasticOracle
	Dynamic    solve.DynamicOracle
	// Notes is told every note of the plan (nil: none).
	Notes func(Note)
}

// Plan is a prepared solve.
type Plan struct {
	// Problem is the request's problem with what the plan found (the
	// analysis's moduli, Convex, Kinds, Smooth where the domain keeps
	// every kink away; Sampler nil unless the oracle samples).
	Problem *solve.Problem
	// Settings are the request's with the oracle (Settings.Oracle, a value
	// with its form) and what the analysis and Theory imply; their
	// TimeLimit is what the analysis left of the request's.
	Settings solve.Settings
}

// Note is something the plan (or the solve) tells its caller besides the
// report.
type Note struct {
	Kind NoteKind
	// Text is the note, one line without a trailing newline (qrc prints
	// it after "qrc solve: ", except for NoteMethod).
	Text string
	// Verbose marks progress information that a quiet caller leaves out
	// (qrc solve --quiet); the others are choices or warnings to show.
	Verbose bool
}

// NoteKind says what a Note is about.
type NoteKind int

// The kinds of notes.
const (
	NoteOracle   NoteKind = iota // the oracle picked, and why
	NoteAnalysis                 // the weak-convexity analysis: rho, and why not
	NoteTheory                   // the settings Theory derived
	NoteRestart                  // phase 1 restarts from a perturbed start
	NoteMethod                   // a warning about the method's fit to the model
)

// RefusalError is a solve the chosen oracle refuses: the smooth oracle on a
// model with a kink, the stochastic oracle on biased data means (each a
// diagnostic at the mean).
type RefusalError struct {
	Msg         string
	Diagnostics diag.List
}

// Error returns the message, or the first diagnostic.
func (e *RefusalError) Error() string {
	if e.Msg == "" && len(e.Diagnostics) > 0 {
		return e.Diagnostics[0].Error()
	}
	return e.Msg
}

// planner is one Make (or Check) call: the request, the problem it
// prepares, and the forms of the model it computed once.
type planner struct {
	r    Request
	prob *solve.Problem
	note func(Note)

	// the model's forms, each computed at most once: its smoothing,
	// its piecewise-linear pieces (or why there are none), its separable
	// objective
	smoothing   *smoothing.Smoothing
	pieces      *dualqp.Model
	piecesWhy   string
	separable   *solve.Separable
	epigraph    *solve.EpigraphForm
	epigraphWhy string

	// the weak-convexity analysis, run at most once (analysis)
	analyzed  bool
	report    *weakconvex.Report // nil when it did not finish
	analysisT time.Duration      // how long it ran
}

// Make prepares the solve of r on prob (made from r.Model and r.Program
// by package problem; Make changes it and returns it in the Plan): the
// oracle chosen (or r.Oracle, checked against the model) with its form,
// the analysis applied, the equalities refused or kept. Cancelling ctx
// stops the analysis, and the solve that follows stops at once.
func Make(ctx context.Context, prob *solve.Problem, r Request) (*Plan, error) {
	p := newPlanner(prob, r)
	s := r.Settings
	kinds := equalityKinds(r.Model)
	if r.Method != "" {
		if r.Theory {
			return nil, fmt.Errorf("Options.Theory sets IQRC's parameters; Options.Method = %s does not use them", r.Method)
		}
		s.Oracle = p.withParams(r.Oracle)
	} else {
		o, why, err := p.choose(ctx)
		if err != nil {
			return nil, err
		}
		if why != "" {
			p.note(Note{Kind: NoteOracle, Verbose: true, Text: why})
		}
		if s, err = p.applyAnalysis(ctx, o, s); err != nil {
			return nil, err
		}
		if s.Oracle, err = p.withForm(o); err != nil {
			return nil, err
		}
	}
	if kinds != nil {
		if err := refuseEqualitiesFor(r.Model, r.Method, s.Oracle, prob.Smooth); err != nil {
			return nil, err
		}
		prob.Kinds = kinds
		if name, ok := FirstNonlinearEquality(r.Model, kinds); ok {
			p.note(Note{Kind: NoteAnalysis, Text: fmt.Sprintf("equality constraint %q is not affine: the model is outside the weakly convex theory (its feasible set is not convex), so it is solved locally, as IPOPT and SLSQP do, and a point is certified by the KKT residual at it alone", name)})
		}
	}
	if _, smooth := s.Oracle.(*solve.SmoothOracle); smooth && s.Eps == 0 && problem.SampledRows(r.Program) > 0 {
		// a model of means over data rows: its data's statistical error
		// is far above 1e-3, and the smooth oracle's 1e-6 would cost
		// minutes of first-order iterations on an ill-conditioned
		// empirical risk (docs/solver.md, Defaults)
		s.Eps = solve.DefaultEps
	}
	if !Samples(s.Oracle) {
		prob.Sampler = nil
	}
	if d, ok := s.Oracle.(*solve.DynamicOracle); ok && kinds == nil && !prob.Smooth {
		if smp, ok := prob.Sampler.(*problem.Sampler); ok {
			// the samples' pieces, for the dual oracle on the dynamic
			// oracle's stages instead of bundle (built per sample, never
			// on every row here); a smooth model keeps the smooth oracle
			dd := *d
			dd.PiecesOf = samplePieces(r.Model, prob, smp, r.Program.Samples(), func(s string) {
				p.note(Note{Kind: NoteOracle, Verbose: true, Text: s})
			})
			s.Oracle = &dd
		}
	}
	return &Plan{Problem: prob, Settings: s}, nil
}

// Check says why Make with r would refuse the model before it starts, or
// returns nil: r's oracle (or the one the plan would pick) refuses the
// model, or the method or the oracle does not take its equality
// constraints (a *RefusalError each). It chooses the oracle as Make does,
// by the same method, without its notes and without the analysis: an
// automatic choice of the bundle oracle, which the analysis may yet turn
// into another, is not refused here.
func Check(r Request) error {
	r.Notes = nil
	if r.Method != "" {
		return refuseEqualitiesFor(r.Model, r.Method, nil, false)
	}
	p := newPlanner(nil, r)
	o, err := p.first()
	if err != nil {
		return err
	}
	if _, bundle := o.(*solve.BundleOracle); bundle && r.Oracle == nil {
		return nil
	}
	smooth, _ := check.Smooth(r.Model)
	return refuseEqualitiesFor(r.Model, r.Method, o, smooth)
}

// CheckOracle says why r's oracle would refuse the model by the
// oracle's own rule (smooth on a kink, smoothed without a smoothing,
// stochastic on biased means), or returns nil, as the first step of
// Make's choice does; it does not look at equalities.
func CheckOracle(r Request) error {
	_, err := newPlanner(nil, r).first()
	return err
}

func newPlanner(prob *solve.Problem, r Request) *planner {
	note := r.Notes
	if note == nil {
		note = func(Note) {}
	}
	return &planner{r: r, prob: prob, note: note}
}

// Samples reports whether the oracle o draws from the data means' rows
// (the stochastic and dynamic oracles), so that the problem keeps its
// Sampler.
func Samples(o solve.Oracle) bool {
	switch o.(type) {
	case *solve.StochasticOracle, *solve.DynamicOracle:
		return true
	}
	return false
}

// withParams is o with the request's parameters when it takes some (the
// stochastic and dynamic oracles), else o.
func (p *planner) withParams(o solve.Oracle) solve.Oracle {
	switch o.(type) {
	case *solve.StochasticOracle:
		so := p.r.Stochastic
		return &so
	case *solve.DynamicOracle:
		d := p.r.Dynamic
		return &d
	}
	return o
}

// withForm is the oracle o as a value that carries the form of the model
// it needs (the smoothing, the pieces, the separable objective) and the
// request's parameters; a *RefusalError when the model has no such form.
func (p *planner) withForm(o solve.Oracle) (solve.Oracle, error) {
	switch o.(type) {
	case *solve.SmoothedOracle:
		return &solve.SmoothedOracle{Smoothing: p.smoothing}, nil // compiled by choose
	case *solve.DualOracle:
		pm, why, err := p.piecesFor()
		if err != nil {
			return nil, err
		}
		if pm == nil {
			return nil, &RefusalError{Msg: fmt.Sprintf("Options.Oracle = dual needs every function to be a sum of pos, abs and hinge of affine arguments (with positive coefficients, through sums and means) plus an affine rest, and %s (use Options.Oracle = bundle)", why)}
		}
		return &solve.DualOracle{Pieces: pm}, nil
	case *solve.ProxOracle:
		sep, why, err := p.separableFor()
		if err != nil {
			return nil, err
		}
		if sep == nil {
			return nil, &RefusalError{Msg: fmt.Sprintf("Options.Oracle = prox needs an objective that is a differentiable rest plus pos, abs, hinge, mcp or scad of single variables (with positive coefficients, through sums and means), differentiable constraints and boxes on the kinked variables, and %s (use Options.Oracle = bundle)", why)}
		}
		return &solve.ProxOracle{Separable: sep}, nil
	case *solve.EpigraphOracle:
		g, why, err := p.epigraphFor()
		if err != nil {
			return nil, err
		}
		if g == nil {
			return nil, &RefusalError{Msg: fmt.Sprintf("Options.Oracle = epigraph needs every function to be a kink-free rest plus maxima, pos, abs, hinge and norms of kink-free terms with nonnegative coefficients (lifted over epigraph variables), affine equalities and box domains, and %s (use Options.Oracle = bundle)", why)}
		}
		return &solve.EpigraphOracle{Form: g}, nil
	}
	return p.withParams(o), nil
}
