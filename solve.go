package qrc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/dualqp"
	"github.com/qrc-lang/qrc/penalty"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/smoothing"
	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/weakconvex"
)

// AutoStochasticRows is the size of the data means, in rows over all the
// row sets they sample, from which Solve picks the stochastic oracle when
// no oracle is given (docs/performance.md gives the reason).
const AutoStochasticRows = 50000

// SolveOption configures [Model.Solve].
type SolveOption func(*solveConfig)

// solveConfig collects the SolveOptions of one solve.
type solveConfig struct {
	opts      Options
	recorders []Recorder
	notes     func(Note)
	err       error // the first invalid option
	// kinkNote, when set, is the note of an automatic choice of the bundle
	// oracle for a model with a kink: applyAnalysis tells it, or picks the
	// smooth oracle instead when the analysis finds every function
	// continuously differentiable on X (the domain keeps the kinks away).
	kinkNote *kinkNote
	// smoothing is the model's smoothing when the smoothed oracle was
	// asked for or picked (smoothingOf)
	smoothing *smoothing.Smoothing
	// pieces is the model's piecewise-linear form when the dual oracle
	// was asked for or picked, piecesWhy why there is none (piecesFor)
	pieces    *dualqp.Model
	piecesWhy string
}

// smoothingOf compiles m's smoothing once (package smoothing); nil and
// the reason when m is not smoothable.
func (c *solveConfig) smoothingOf(m *check.Model) (*smoothing.Smoothing, string, error) {
	if c.smoothing != nil {
		return c.smoothing, "", nil
	}
	sm, why, err := smoothing.New(m)
	c.smoothing = sm
	return sm, why, err
}

// kinkNote is a pending note of an automatic choice of the bundle oracle:
// where the kink is and why, and what the note says of the data.
type kinkNote struct{ kink, data string }

// WithMethod solves with the method m (IQRC by default): Options.Method.
func WithMethod(m Method) SolveOption {
	return func(c *solveConfig) {
		if m == nil && c.err == nil {
			c.err = errors.New("WithMethod: nil method")
		}
		c.opts.Method = m
	}
}

// WithOracle makes IQRC solve its subproblems with the oracle o:
// solve.Smooth or solve.Bundle (certified gaps), solve.Switching
// (Algorithm 2) or solve.Stochastic (Algorithm 3 on minibatches). nil, the
// default, picks one: stochastic when the data means run over at least
// AutoStochasticRows rows and can be estimated without bias, else smooth
// for a differentiable model and bundle for one with a kink.
func WithOracle(o solve.Oracle) SolveOption { return func(c *solveConfig) { c.opts.Oracle = o } }

// WithSettings sets the solver's settings: RhoHat, Rho, Eps, EpsHat,
// Inner, Outer, TimeLimit, Pick, Seed, MaxEvals, V, Alpha, the dynamic
// oracle's schedule, RecordEvery, NoSafeguard, FullPass and FullRows
// (zero means the default; a zero Seed leaves the seed as it was). Their
// Oracle, Recorder and Context are not used: see WithOracle, WithRecorder
// and the context.
//
// Deprecated: set the fields of Options and use WithOptions, or the
// SolveOption of the one setting (WithSeed, WithRho ...).
func WithSettings(s solve.Settings) SolveOption {
	return func(c *solveConfig) {
		o := &c.opts
		o.RhoHat, o.Rho, o.Eps, o.EpsHat, o.Inner, o.Outer = s.RhoHat, s.Rho, s.Eps, s.EpsHat, s.Inner, s.Outer
		o.TimeLimit, o.Pick, o.MaxEvals, o.V, o.Alpha = s.TimeLimit, s.Pick, s.MaxEvals, s.V, s.Alpha
		o.SampleStart, o.SampleGrowth, o.SampleRounds, o.RecordEvery = s.SampleStart, s.SampleGrowth, s.SampleRounds, s.RecordEvery
		o.NoSafeguard, o.FullPass, o.FullRows = s.NoSafeguard, s.FullPass, s.FullRows
		if s.Seed != 0 {
			o.Seed = s.Seed
		}
	}
}

// WithSeed seeds the random pick, the minibatches, the monitoring samples
// and the restarts (default 1): Options.Seed.
func WithSeed(seed uint64) SolveOption { return func(c *solveConfig) { c.opts.Seed = seed } }

// WithRho sets the weak-convexity modulus the oracle assumes (< RhoHat),
// instead of the one the weak-convexity analysis derives: Options.Rho.
func WithRho(rho float64) SolveOption {
	return func(c *solveConfig) { c.opts.Rho, c.opts.RhoSet = rho, true }
}

// WithRhoHat sets the proximal parameter's start, instead of the one
// derived from the weak-convexity analysis: Options.RhoHat.
func WithRhoHat(rhoHat float64) SolveOption {
	return func(c *solveConfig) { c.opts.RhoHat = rhoHat }
}

// WithTheory sets EpsHat, Inner (K) and Outer (T) by the paper's formulas
// from the derived rho, M, the domain's diameter and the Slater constant
// sigma; a Note gives the values: Options.Theory and Options.Sigma.
func WithTheory(sigma float64) SolveOption {
	return func(c *solveConfig) { c.opts.Theory, c.opts.Sigma = true, sigma }
}

// WithBatch sets the rows the stochastic oracle draws from each row set per
// step (default problem.DefaultBatch): Options.Batch.
func WithBatch(n int) SolveOption { return func(c *solveConfig) { c.opts.Batch = n } }

// WithAllowBiased lets the stochastic oracle sample data means that sit
// inside a nonlinearity; their minibatch estimates are biased:
// Options.AllowBiased.
func WithAllowBiased() SolveOption { return func(c *solveConfig) { c.opts.AllowBiased = true } }

// WithRestarts sets how many perturbed starts are tried when phase 1 gives
// up (default solve.DefaultRestarts; 0: none): Options.Restarts.
func WithRestarts(n int) SolveOption { return func(c *solveConfig) { c.opts.Restarts = n } }

// WithStart starts the solve at x (NumVars values) instead of the model's
// start: a warm start from an earlier Report's X (Options.Start).
func WithStart(x []float64) SolveOption {
	return func(c *solveConfig) { c.opts.Start = slices.Clone(x) }
}

// WithRecorder adds a Recorder told about the solve's iterations.
func WithRecorder(r Recorder) SolveOption {
	return func(c *solveConfig) {
		if r == nil {
			if c.err == nil {
				c.err = errors.New("WithRecorder: nil Recorder")
			}
			return
		}
		c.recorders = append(c.recorders, r)
	}
}

// WithNotes calls f with every note the solve makes: the oracle picked and
// why, what the weak-convexity analysis gave, restarts, warnings.
func WithNotes(f func(Note)) SolveOption { return func(c *solveConfig) { c.notes = f } }

// Note is something a solve tells its caller besides the report.
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
	NoteTheory                   // the settings WithTheory derived
	NoteRestart                  // phase 1 restarts from a perturbed start
	NoteMethod                   // a warning about the method's fit to the model
)

// equalityKinds describes m's constraints for solve.Problem.Kinds: nil
// when every constraint is an inequality.
func equalityKinds(m *check.Model) []solve.ConstraintKind {
	cs := problem.Constraints(m)
	if !problem.HasEquality(cs) {
		return nil
	}
	kinds := make([]solve.ConstraintKind, len(cs))
	for i, c := range cs {
		switch {
		case !c.Equality:
			kinds[i] = solve.Inequality
		case c.Affine:
			kinds[i] = solve.AffineEquality
		default:
			kinds[i] = solve.NonlinearEquality
		}
	}
	return kinds
}

// refuseEqualities refuses the equality constraints (lhs == rhs) of m
// whose kind (by equalityKinds) refuse reports, one diagnostic per
// constraint declaration at its ==, saying why (why) and what takes them;
// nil when it refuses none.
func refuseEqualities(m *check.Model, refuse func(solve.ConstraintKind) bool, why string) error {
	e := &RefusalError{}
	kinds := equalityKinds(m)
	seen := map[*check.ConstraintGroup]bool{}
	for i, c := range m.Constraints {
		g := c.Group
		if kinds == nil || kinds[i] == solve.Inequality || !refuse(kinds[i]) || g == nil || g.Src == nil || seen[g] {
			continue
		}
		seen[g] = true
		end := g.Src.OpPos
		end.Offset += 2
		end.Column += 2
		e.Diagnostics = append(e.Diagnostics, &diag.Diagnostic{Pos: g.Src.OpPos, End: end,
			Msg: fmt.Sprintf("equality constraint %q: %s", g.Name, why)})
	}
	if len(e.Diagnostics) == 0 {
		return nil
	}
	return e
}

// refuseEqualitiesFor refuses m's equality constraints that a method
// other than IQRC, or the oracle (solve.TakesEquality), does not take;
// smooth says whether the model is differentiable on X.
func refuseEqualitiesFor(m *check.Model, method Method, oracle solve.Oracle, smooth bool) error {
	all := func(solve.ConstraintKind) bool { return true }
	if _, ok := method.(iqrcMethod); !ok {
		return refuseEqualities(m, all, fmt.Sprintf("the %s method takes inequality constraints only; IQRC with the smooth oracle takes equalities", method.Name()))
	}
	refused := func(k solve.ConstraintKind) bool { return !solve.TakesEquality(oracle, k, smooth) }
	takes := "inequality constraints only"
	if oracle == solve.Bundle || oracle == solve.Dynamic {
		takes = "affine equalities only (this one is not affine by its form)"
	}
	ok, kink := check.Smooth(m)
	if ok {
		return refuseEqualities(m, refused, fmt.Sprintf("the %s oracle takes %s; Options.Oracle = smooth takes equalities", oracle, takes))
	}
	return refuseEqualities(m, refused, fmt.Sprintf("the %s oracle takes %s, and the smooth oracle, which takes any equality, needs a differentiable model (%s: %s)", oracle, takes, kink.Expr.Src().Pos(), kink.Reason))
}

// firstNonlinearEquality is the name of m's first equality constraint
// that is not affine by its form (kinds from equalityKinds), and whether
// there is one: such a model is outside the paper's theory.
func firstNonlinearEquality(m *check.Model, kinds []solve.ConstraintKind) (string, bool) {
	for i, k := range kinds {
		if k == solve.NonlinearEquality {
			return m.Constraints[i].Name, true
		}
	}
	return "", false
}

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

// NewModel wraps a model checked and compiled elsewhere (qrc repl builds
// its model a statement at a time); file names it in reports.
func NewModel(file string, m *check.Model, prog *autodiff.Program, sources check.Sources) *Model {
	return newModel(file, m, prog, sources, nil)
}

// Solve minimizes the model's objective subject to its constraints, from
// its start (or WithStart's point), and returns the report. Cancelling ctx
// (or its deadline) stops the solve after the current inner step with
// status interrupted and the best point so far. The error is for invalid
// options or a solve that could not start (a *RefusalError when the oracle
// refuses the model); what goes wrong while solving, such as a value that
// is not finite, is in the report's status.
func (m *Model) Solve(ctx context.Context, opts ...SolveOption) (*Report, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	c := &solveConfig{opts: DefaultOptions()}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("Solve: option %d of %d is nil", i+1, len(opts))
		}
		o(c)
	}
	if c.err != nil {
		return nil, c.err
	}
	if c.opts.Method == nil {
		c.opts.Method = IQRC
	}
	if err := c.opts.validate(); err != nil {
		return nil, err
	}
	if c.notes == nil {
		c.notes = func(Note) {}
	}
	x0 := c.opts.Start
	if x0 == nil {
		x0 = m.Start()
	}
	if len(x0) != m.checked.NumScalars {
		return nil, fmt.Errorf("the start has %d values, the model %d variables", len(x0), m.checked.NumScalars)
	}
	kinds := equalityKinds(m.checked)
	method := c.opts.Method
	settings := c.opts.settings()
	limit := settings.TimeLimit // the analysis takes its share; the report shows the caller's
	// the run state of this solve, at no sample
	state := m.runs.take()
	defer m.runs.give(state)
	prob := problem.New(m.checked, state, problem.Options{Batch: c.opts.Batch, Seed: settings.Seed})
	iq, isIQRC := method.(iqrcMethod)
	switch {
	case isIQRC:
		o := c.opts.Oracle
		if iq.oracle != nil {
			o = iq.oracle
		}
		var err error
		if settings.Oracle, err = c.chooseOracle(o, m.checked, m.prog); err != nil {
			return nil, err
		}
		if ok, err := c.autoProx(o, m.checked, prob, settings.Oracle); err != nil {
			return nil, err
		} else if ok {
			settings.Oracle = solve.Prox
		}
		if err := c.applyAnalysis(ctx, prob, m.checked, x0, &settings); err != nil {
			return nil, err
		}
		if settings.Oracle == solve.Smoothed {
			prob.Smoothing = c.smoothing // compiled by chooseOracle or tellKinkNote
		}
		if settings.Oracle == solve.Dual {
			pm, why, err := c.piecesFor(m.checked, prob)
			if err != nil {
				return nil, err
			}
			if pm == nil {
				return nil, &RefusalError{Msg: fmt.Sprintf("Options.Oracle = dual needs every function to be a sum of pos, abs and hinge of affine arguments (with positive coefficients, through sums and means) plus an affine rest, and %s (use Options.Oracle = bundle)", why)}
			}
			prob.Pieces = pm
		}
		if settings.Oracle == solve.Prox && prob.Separable == nil {
			sep, why, err := separableFor(m.checked, prob)
			if err != nil {
				return nil, err
			}
			if sep == nil {
				return nil, &RefusalError{Msg: fmt.Sprintf("Options.Oracle = prox needs an objective that is a differentiable rest plus pos, abs, hinge, mcp or scad of single variables (with positive coefficients, through sums and means), differentiable constraints and boxes on the kinked variables, and %s (use Options.Oracle = bundle)", why)}
			}
			prob.Separable = sep
		}
	case c.opts.Theory:
		return nil, fmt.Errorf("Options.Theory sets IQRC's parameters; Options.Method = %s does not use them", method.Name())
	default:
		settings.Oracle = c.opts.Oracle
	}
	if kinds != nil {
		if err := refuseEqualitiesFor(m.checked, method, settings.Oracle, prob.Smooth); err != nil {
			return nil, err
		}
		prob.Kinds = kinds
		if name, ok := firstNonlinearEquality(m.checked, kinds); ok {
			c.notes(Note{Kind: NoteAnalysis, Text: fmt.Sprintf("equality constraint %q is not affine: the model is outside the weakly convex theory (its feasible set is not convex), so it is solved locally, as IPOPT and SLSQP do, and a point is certified by the KKT residual at it alone", name)})
		}
	}
	if settings.Eps == 0 && settings.Oracle == solve.Smooth && problem.SampledRows(m.prog) > 0 {
		// a model of means over data rows: its data's statistical error
		// is far above 1e-3, and the smooth oracle's 1e-6 would cost
		// minutes of first-order iterations on an ill-conditioned
		// empirical risk (docs/solver.md, Defaults)
		settings.Eps = solve.DefaultEps
	}
	if !samples(settings.Oracle) {
		prob.Sampler = nil
	}
	if prob.Sampler != nil {
		defer state.ResetSamples() // a stochastic or dynamic solve may leave the run state on a sample
	}
	if smp, ok := prob.Sampler.(*problem.Sampler); ok && settings.Oracle == solve.Dynamic && kinds == nil && !prob.Smooth {
		// the samples' pieces, for the dual oracle on the dynamic
		// oracle's stages instead of bundle (built per sample, never on
		// every row here); a smooth model keeps the smooth oracle
		prob.PiecesOf = samplePieces(m.checked, prob, smp, m.prog.Samples(), func(s string) {
			c.notes(Note{Kind: NoteOracle, Verbose: true, Text: s})
		})
	}
	run := Run{Model: m, Method: method.Name()}
	if settings.Oracle == solve.Stochastic {
		run.MonitorNote = monitorNote(prob, m.prog)
	}
	if isIQRC {
		run.Oracle = settings.Oracle.String()
	}
	for i, r := range c.recorders {
		if err := r.Init(run); err != nil {
			return nil, err
		}
		defer c.recorders[i].Finish()
	}
	if len(c.recorders) > 0 {
		settings.Recorder = &recorders{rs: c.recorders, names: functionNames(m.prog)}
	}
	settings.Context = ctx

	began := time.Now()
	var (
		res   *solve.Result
		rep   *penalty.Report
		diagn *solve.Diagnosis
		err   error
	)
	switch {
	case method == Penalty:
		if w := m.SmoothnessWarning(Penalty); w != "" {
			c.notes(Note{Kind: NoteMethod, Text: w})
		}
		prob.Sampler = nil
		res, rep, err = penalty.MinimizeReport(prob, x0, penaltySettings(settings))
	case isIQRC:
		res, diagn, err = solve.MinimizeRestarts(prob, x0, settings, c.restartSettings(settings.Seed))
	default:
		res, err = method.Minimize(ctx, prob, x0, settings)
	}
	if err == nil && res == nil {
		err = fmt.Errorf("method %s returned no result", method.Name())
	}
	if err == nil && !isIQRC && method != Penalty {
		eps := solve.DefaultEps
		if d, derr := settings.WithDefaults(prob); derr == nil {
			eps = d.Eps
		}
		res, err = checkMethodResult(method.Name(), prob, res, eps)
	}
	if err != nil {
		return nil, err
	}
	settings.TimeLimit = limit
	report := resultOf(m.file, m.checked, prob, res, settings, time.Since(began))
	report.Settings.AllowBiased = c.opts.AllowBiased
	report.describeMethod(method.Name(), settings, rep)
	report.diagnose(diagn, res, settings, c.opts.Restarts)
	report.model, report.result = m, res
	return report, nil
}

// restartSettings are the restart settings of the solve, with a note
// before each restart.
func (c *solveConfig) restartSettings(seed uint64) solve.Restarts {
	n := c.opts.Restarts
	if n == 0 {
		n = -1
	}
	return solve.Restarts{Starts: n, Seed: seed, Notify: func(k int, scale float64, _ []float64) {
		c.notes(Note{Kind: NoteRestart, Verbose: true, Text: fmt.Sprintf("phase 1 found no feasible point from this start; restart %d of %d from a perturbed start (scale %s, Options.Seed = %d)",
			k, n, num(scale), seed)})
	}}
}

// chooseOracle resolves the oracle o (nil: auto): auto picks the dynamic
// oracle (the accurate one on samples of the rows, finishing on
// all of them; docs/solver.md) when the data means are large
// (AutoStochasticRows), else the smooth oracle for a model whose functions
// are all differentiable and the bundle oracle for one with kinks, and
// says which it picked and why in a note. The stochastic oracle refuses a model with
// biased means unless allowBiased; the smooth oracle refuses a model with a
// kink.
func (c *solveConfig) chooseOracle(o solve.Oracle, m *check.Model, prog *autodiff.Program) (solve.Oracle, error) {
	smooth, kink := check.Smooth(m)
	accurate := func() solve.Oracle {
		if smooth {
			return solve.Smooth
		}
		return solve.Bundle
	}
	why := func() string {
		if smooth {
			return "every function is differentiable"
		}
		return fmt.Sprintf("%s: %s", kink.Expr.Src().Pos(), kink.Reason)
	}
	note := func(verbose bool, format string, args ...any) {
		c.notes(Note{Kind: NoteOracle, Verbose: verbose, Text: fmt.Sprintf(format, args...)})
	}
	if o != nil && o != solve.Stochastic {
		if o == solve.Smoothed {
			if sm, why, err := c.smoothingOf(m); err != nil || sm == nil {
				if err != nil {
					return nil, err
				}
				return nil, &RefusalError{Msg: fmt.Sprintf("Options.Oracle = smoothed needs kinks (pos, abs, hinge, mcp, scad) of affine arguments that enter every function with positive coefficients through sums and means, and at %s (use Options.Oracle = bundle)", why)}
			}
		}
		if o == solve.Smooth && !smooth {
			return nil, &RefusalError{Msg: fmt.Sprintf("Options.Oracle = smooth needs a differentiable model, and at %s (use Options.Oracle = bundle)", why())}
		}
		return o, nil
	}
	biased := problem.Biased(m, prog)
	rows := problem.SampledRows(prog)
	if o == nil {
		switch {
		case rows == 0:
			c.autoNote(smooth, why(), "the model has no means over data rows to sample")
			return accurate(), nil
		case rows < AutoStochasticRows:
			c.autoNote(smooth, why(), fmt.Sprintf("the data means run over %d rows, fewer than %d", rows, AutoStochasticRows))
			return accurate(), nil
		}
		// each stage is a sample-average problem, so biased means are
		// no obstacle, unlike for the stochastic oracle's minibatches
		note(true, "oracle dynamic (auto: the data means run over %d rows, at least %d): %s on samples of the rows, then on all of them", rows, AutoStochasticRows, accurate())
		return solve.Dynamic, nil
	}
	if len(biased) > 0 && !c.opts.AllowBiased {
		e := &RefusalError{}
		for _, b := range biased {
			e.Diagnostics = append(e.Diagnostics, &diag.Diagnostic{Pos: b.Mean.Src().Pos(), Msg: fmt.Sprintf("%s: this mean over data rows is %s (%s); a minibatch estimate of %s is biased, so the stochastic oracle refuses it (use Options.Oracle = smooth, bundle or switching, or Options.AllowBiased to sample it anyway)",
				b.Function, b.Why, b.Context.Pos(), b.Function)})
		}
		return nil, e
	}
	return solve.Stochastic, nil
}

// autoNote tells the note of an automatic choice of the smooth oracle
// (why: every function is differentiable), or, for the bundle oracle
// (why: where the first kink is), keeps it for applyAnalysis (kinkNote).
func (c *solveConfig) autoNote(smooth bool, why, data string) {
	if smooth {
		c.notes(Note{Kind: NoteOracle, Verbose: true, Text: fmt.Sprintf("oracle smooth (auto: %s; %s)", why, data)})
		return
	}
	c.kinkNote = &kinkNote{kink: why, data: data}
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

// kinkPoints are the points where the one-argument built-ins that are
// not smooth have their kink (in their first argument): smooth elsewhere.
var kinkPoints = map[string]float64{"abs": 0, "pos": 0, "sqrt": 0, "hinge": 1, "mcp": 0, "scad": 0}

// kinksAvoided reports whether, by the value ranges the analysis r found,
// the argument of every kink of m (check.Kinks) stays away from the point
// where the operation is not differentiable on X: abs, pos, sqrt, mcp and
// scad away from 0, hinge away from 1, z^p (0 < p < 1, ...) away from 0.
// The ranges are enclosures (outward rounded), so a range that excludes
// the point proves it; a max or min over variable terms, a norm, or a
// kink whose argument's range the analysis did not record is not avoided.
// It holds also where the analysis cannot prove weak convexity (a product
// of variable terms), since it needs only the ranges.
func kinksAvoided(r *weakconvex.Report, m *check.Model) bool {
	if r == nil || r.Err != nil {
		return false
	}
	for _, k := range check.Kinks(m) {
		var arg check.Expr
		at := 0.0
		switch x := k.Expr.(type) {
		case *check.Call:
			p, ok := kinkPoints[x.Func.Name]
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

// tellKinkNote resolves a pending automatic choice of the bundle oracle
// (kinkNote) with the analysis r (nil: it did not finish): the smooth
// oracle when every function is smooth on X, else the dual oracle when the
// model is a sum of pos, abs and hinge of affine scores plus an affine
// rest without equalities (piecesFor), else the bundle oracle, with its
// note in each case.
func (c *solveConfig) tellKinkNote(r *weakconvex.Report, m *check.Model, prob *solve.Problem, s *solve.Settings) {
	k := c.kinkNote
	if k == nil {
		return
	}
	c.kinkNote = nil
	text := fmt.Sprintf("oracle bundle (auto: %s; %s)", k.kink, k.data)
	if s.Oracle == solve.Bundle && (smoothOnX(r) || kinksAvoided(r, m)) {
		s.Oracle = solve.Smooth
		prob.Smooth = true
		text = fmt.Sprintf("oracle smooth (auto: %s, but the domain keeps every kink's argument away from it (by the weak-convexity analysis's ranges), so every function is continuously differentiable on X; %s)", k.kink, k.data)
	}
	if s.Oracle == solve.Bundle && equalityKinds(m) == nil {
		if pm, _, err := c.piecesFor(m, prob); err == nil && pm != nil {
			s.Oracle = solve.Dual
			text = fmt.Sprintf("oracle dual (auto: %s, and every function is a sum of pos, abs and hinge of affine scores plus an affine rest, so (7) is solved through its dual; %s)", k.kink, k.data)
		}
	}
	if s.Oracle == solve.Smoothed && c.smoothing != nil {
		prob.Smoothing = c.smoothing
	}
	c.notes(Note{Kind: NoteOracle, Verbose: true, Text: text})
}

// applyAnalysis is the solver's use of the weak-convexity analysis
// (docs/analysis.md). When every function is provably weakly convex and
// the caller gave neither Rho nor RhoHat, and 2 rho is at most
// maxDerivedRhoHat, the derived rho becomes Problem.WeakConvexity, from
// which the solver takes Rho = rho and starts RhoHat at max(1, 2 rho)
// (solve.Settings); for the accurate oracles it becomes ProvenRho, which
// the certificate compares with. A model that is not provably weakly
// convex still solves, with a warning. With WithTheory it sets EpsHat,
// Inner (K) and Outer (T) from the paper's formulas.
func (c *solveConfig) applyAnalysis(ctx context.Context, prob *solve.Problem, m *check.Model, x0 []float64, s *solve.Settings) error {
	defer c.tellKinkNote(nil, m, prob, s) // on the paths that do not run the analysis
	if s.Oracle == solve.Dynamic && !c.opts.Theory {
		// large data: the analysis expands every row (about a minute on
		// 10^6 rows before it gives up), longer than the solve
		c.notes(Note{Kind: NoteAnalysis, Verbose: true, Text: "the weak-convexity analysis is skipped with the dynamic oracle (qrc check runs it); RhoHat starts at its default and moves on evidence"})
		return nil
	}
	// a time limit (or the context's deadline) covers the analysis too: it
	// gets a quarter of it, and the solve what is left
	began := time.Now()
	actx := ctx
	budget := s.TimeLimit / 4
	if d, ok := ctx.Deadline(); ok && (budget == 0 || time.Until(d)/4 < budget) {
		budget = max(time.Until(d)/4, time.Millisecond)
	}
	if budget > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, budget)
		defer cancel()
	}
	r, ok := analyze(actx, m)
	if ok {
		c.tellKinkNote(r, m, prob, s)
	} else {
		c.tellKinkNote(nil, m, prob, s)
	}
	if s.TimeLimit > 0 {
		s.TimeLimit = max(s.TimeLimit-time.Since(began), time.Millisecond)
	}
	switch {
	case !ok && ctx.Err() != nil:
		// the solve that follows stops at once, at the start
		c.notes(Note{Kind: NoteAnalysis, Verbose: true, Text: "the weak-convexity analysis did not finish before the solve was stopped"})
		return nil
	case !ok && c.opts.Theory:
		return errors.New("Options.Theory needs the weak-convexity analysis, which did not finish within a quarter of the time limit (raise Options.TimeLimit)")
	case !ok:
		c.notes(Note{Kind: NoteAnalysis, Text: fmt.Sprintf("the weak-convexity analysis did not finish within a quarter of the time limit (%s s); the solve goes on without it: RhoHat starts at its default and moves on evidence", num(time.Since(began).Seconds()))})
		return nil
	}
	note := func(verbose bool, format string, args ...any) {
		c.notes(Note{Kind: NoteAnalysis, Verbose: verbose, Text: fmt.Sprintf(format, args...)})
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
	if (s.Oracle == solve.Smooth || s.Oracle == solve.Prox) && r.Err == nil && len(r.Functions) == prob.M+1 {
		prob.ConstraintRho = constraintRho(r, prob)
	}
	switch {
	case r.Err != nil || !r.Weak:
	case c.opts.rhoSet() || c.opts.rhoHatSet() || c.opts.Theory:
	case s.Oracle == solve.Smooth || s.Oracle == solve.Bundle || s.Oracle == solve.Smoothed || s.Oracle == solve.Dual || s.Oracle == solve.Prox:
		// the accurate oracles start RhoHat at the default and move it on
		// evidence; the derived rho tells the certificate whether its
		// assumption is proven
		prob.ProvenRho = r.Rho
		if r.Rho > 0 {
			note(true, "rho <= %.3g by the weak-convexity analysis; the %s oracle starts RhoHat at %g and moves it on evidence (docs/solver.md), and the certificate says whether its Rho reaches the proven bound", r.Rho, s.Oracle, solve.DefaultRhoHat)
		}
	case 2*r.Rho <= maxDerivedRhoHat:
		prob.WeakConvexity = r.Rho
		if r.Rho > 0 {
			note(true, "rho = %.3g from the weak-convexity analysis (weakconvex.Analyze explains it); RhoHat starts at %.3g", r.Rho, math.Max(solve.DefaultRhoHat, 2*r.Rho))
		}
	default:
		note(true, "the weak-convexity analysis bounds rho by %.3g over all of X; starting RhoHat at twice that would make the steps tiny, so it starts at %g and doubles when a subproblem is not convex (Options.RhoHat sets it)", r.Rho, solve.DefaultRhoHat)
	}
	if !c.opts.Theory {
		return nil
	}
	return c.applyTheory(prob, m, r, x0, s)
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

// analyze runs the weak-convexity analysis of m (a second or more on a
// large model) unless ctx ends first; ok is false then (the analysis
// checks ctx as it goes and stops within milliseconds).
func analyze(ctx context.Context, m *check.Model) (r *weakconvex.Report, ok bool) {
	r = weakconvex.AnalyzeContext(ctx, m)
	if ctx.Err() != nil {
		return nil, false
	}
	return r, true
}

// maxDerivedRhoHat is the largest 2 rho the solver starts RhoHat at: a
// derived rho is a worst case over all of X, and a much larger RhoHat than
// the curvature along the iterates' path needs makes every step tiny (on
// the raw pendigits features, rho <= 66000 where RhoHat 8 suffices;
// docs/performance.md). Above it RhoHat starts at the default and the
// safeguard doubles it as needed.
const maxDerivedRhoHat = 64

// maxTheoryIter caps the K and T of WithTheory.
const maxTheoryIter = math.MaxInt32

// applyTheory sets EpsHat (Algorithm 1's input), K (Algorithm 2, line 3)
// and T (Theorem 1's condition) from rho, M, D, the Slater constant sigma
// and f(x0) - f_lb, with f_lb the analysis' lower bound of the objective
// on X.
func (c *solveConfig) applyTheory(prob *solve.Problem, m *check.Model, r *weakconvex.Report, x0 []float64, s *solve.Settings) error {
	if !r.Weak || math.IsInf(r.M, 1) || math.IsInf(r.D, 1) {
		return errors.New("Options.Theory needs every function provably weakly convex with a finite M on a bounded domain (qrc check shows why not)")
	}
	rho := r.Rho
	if c.opts.rhoSet() {
		rho = s.Rho
	}
	rhoHat := math.Max(solve.DefaultRhoHat, 2*rho)
	if c.opts.rhoHatSet() {
		rhoHat = s.RhoHat
	}
	if rho == 0 { // any rho' >= rho is a modulus: the solver's default
		rho = rhoHat / 2
	}
	if rho >= rhoHat {
		return fmt.Errorf("Options.Theory: rho = %g must be below RhoHat = %g", rho, rhoHat)
	}
	eps := s.Eps
	if eps == 0 {
		eps = solve.DefaultEps
	}
	sigma := c.opts.Sigma
	mu := rhoHat - rho
	epsHat := math.Min(1, math.Sqrt(mu/4)/math.Sqrt((r.M+rhoHat*r.D)/math.Sqrt(2*sigma*mu)+1)) * eps
	k := math.Ceil(4 * (r.M*r.M + rhoHat*r.D*r.D) / (mu * epsHat * epsHat))
	gap := 0.0
	if m.Objective != nil {
		vals := make([]float64, prob.M+1)
		if err := prob.Eval(x0, vals); err != nil {
			return fmt.Errorf("Options.Theory: evaluating the start: %w", err)
		}
		gap = math.Max(0, vals[0]-r.Functions[0].Range.Lo)
	}
	t := math.Max(1, math.Ceil(4*gap/(eps*eps*mu)))
	capped := ""
	if k > maxTheoryIter || t > maxTheoryIter {
		capped = fmt.Sprintf(" (capped at %d)", maxTheoryIter)
	}
	c.notes(Note{Kind: NoteTheory, Text: fmt.Sprintf("Options.Theory: rho = %.4g, M = %.4g, D = %.4g, sigma = %g, f(x0) - f_lb <= %.4g: RhoHat = %.4g, EpsHat = %.4g (Algorithm 1), K = %.4g (Algorithm 2, line 3), T = %.4g (Theorem 1)%s",
		rho, r.M, r.D, sigma, gap, rhoHat, epsHat, k, t, capped)})
	s.RhoHat, s.Rho, s.Eps, s.EpsHat = rhoHat, rho, eps, epsHat
	s.Inner, s.Outer = int(math.Min(k, maxTheoryIter)), int(math.Min(t, maxTheoryIter))
	return nil
}

// nonsmoothAtoms lists, sorted, the nonsmooth operations the objective and
// constraints use on the variables (check.Kinks).
func nonsmoothAtoms(m *check.Model) []string {
	var out []string
	for _, k := range check.Kinks(m) {
		if !slices.Contains(out, k.Atom) {
			out = append(out, k.Atom)
		}
	}
	slices.Sort(out)
	return out
}

// functionNames lists the program's function names, the objective first.
func functionNames(prog *autodiff.Program) []string {
	var names []string
	for _, f := range prog.Functions() {
		names = append(names, f.Name)
	}
	return names
}

// CheckOracle says why the oracle o (nil: the one Solve would pick) would
// refuse the model, as a *RefusalError, or returns nil; allowBiased is
// WithAllowBiased.
//
// Deprecated: CheckOptions checks every refusal of the options of a
// solve, the oracle's among them.
func (m *Model) CheckOracle(o solve.Oracle, allowBiased bool) error {
	c := &solveConfig{opts: Options{AllowBiased: allowBiased}, notes: func(Note) {}}
	_, err := c.chooseOracle(o, m.checked, m.prog)
	return err
}

// SmoothnessWarning is the warning Solve notes when method is the penalty
// method and the model uses nonsmooth operations (its theory assumes
// smooth functions), or "".
func (m *Model) SmoothnessWarning(method Method) string {
	if method != Penalty {
		return ""
	}
	atoms := nonsmoothAtoms(m.checked)
	if len(atoms) == 0 {
		return ""
	}
	return fmt.Sprintf("warning: the model uses %s, which %s not smooth: the penalty method runs on subgradients, but its theory (Cartis, Gould & Toint 2011) assumes smooth functions",
		strings.Join(atoms, ", "), map[bool]string{true: "is", false: "are"}[len(atoms) == 1])
}

// checkMethodResult checks what a caller's Method returned before it
// becomes a report: a point of the model's length (else an error), and,
// for a status that claims a point, finite values there; a point that is
// not finite, or whose values were left out, is evaluated here, and one
// that cannot be makes the status NumericalError.
func checkMethodResult(name string, prob *solve.Problem, res *solve.Result, eps float64) (*solve.Result, error) {
	if len(res.X) != prob.N {
		return nil, fmt.Errorf("method %s returned a point of %d values; the model has %d variables", name, len(res.X), prob.N)
	}
	if res.Status < solve.Converged || res.Status > solve.Stalled {
		return nil, fmt.Errorf("method %s returned an unknown status %d", name, int(res.Status))
	}
	if res.Status == solve.NumericalError {
		return res, nil
	}
	for i, v := range res.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			r := *res
			r.Status, r.Err = solve.NumericalError, fmt.Errorf("method %s returned a point whose value %d is %v", name, i+1, v)
			return &r, nil
		}
	}
	// the values at the point, the objective and the infeasibility are
	// computed here rather than trusted
	f := make([]float64, prob.M+1)
	if err := prob.Eval(res.X, f); err != nil {
		r := *res
		r.Status, r.Err = solve.NumericalError, fmt.Errorf("method %s returned a point where the model cannot be evaluated: %w", name, err)
		return &r, nil
	}
	r := *res
	r.F = f
	r.Objective = f[0]
	r.Infeasibility = 0
	for _, v := range f[1:] {
		r.Infeasibility = math.Max(r.Infeasibility, v)
	}
	if r.Status.Success() && r.Status != solve.Interrupted && r.Status != solve.TimeLimit && r.Infeasibility > eps {
		// a method cannot call an infeasible point converged
		r.Status = solve.Infeasible
	}
	return &r, nil
}
