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
	"github.com/qrc-lang/qrc/penalty"
	"github.com/qrc-lang/qrc/plan"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/solve"
)

// AutoStochasticRows is the size of the data means, in rows over all the
// row sets they sample, from which Solve picks the stochastic oracle when
// no oracle is given (docs/performance.md gives the reason).
const AutoStochasticRows = plan.AutoStochasticRows

// SolveOption configures [Model.Solve].
type SolveOption func(*solveConfig)

// solveConfig collects the SolveOptions of one solve.
type solveConfig struct {
	opts      Options
	recorders []Recorder
	notes     func(Note)
	err       error // the first invalid option
}

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
// Inner, Outer, TimeLimit, Pick, Seed, MaxEvals, RecordEvery and
// NoSafeguard (zero means the default; a zero Seed leaves the seed as it
// was). Their Oracle and Recorder are not used: see WithOracle and
// WithRecorder; the oracles' own parameters (V, Alpha, the dynamic
// oracle's schedule) are fields of Options.
//
// Deprecated: set the fields of Options and use WithOptions, or the
// SolveOption of the one setting (WithSeed, WithRho ...).
func WithSettings(s solve.Settings) SolveOption {
	return func(c *solveConfig) {
		o := &c.opts
		o.RhoHat, o.Rho, o.Eps, o.EpsHat, o.Inner, o.Outer = s.RhoHat, s.Rho, s.Eps, s.EpsHat, s.Inner, s.Outer
		o.TimeLimit, o.Pick, o.MaxEvals, o.RecordEvery, o.NoSafeguard = s.TimeLimit, s.Pick, s.MaxEvals, s.RecordEvery, s.NoSafeguard
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

// Note is something a solve tells its caller besides the report: Kind,
// Text (one line without a trailing newline; qrc prints it after
// "qrc solve: ", except for NoteMethod) and Verbose (progress information
// that a quiet caller leaves out). The plan of the solve (package plan)
// makes most of them.
type Note = plan.Note

// NoteKind says what a Note is about.
type NoteKind = plan.NoteKind

// The kinds of notes.
const (
	NoteOracle   = plan.NoteOracle   // the oracle picked, and why
	NoteAnalysis = plan.NoteAnalysis // the weak-convexity analysis: rho, and why not
	NoteTheory   = plan.NoteTheory   // the settings WithTheory derived
	NoteRestart  = plan.NoteRestart  // phase 1 restarts from a perturbed start
	NoteMethod   = plan.NoteMethod   // a warning about the method's fit to the model
)

// RefusalError is a solve the chosen oracle refuses: the smooth oracle on a
// model with a kink, the stochastic oracle on biased data means (each a
// diagnostic at the mean).
type RefusalError = plan.RefusalError

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
	method := c.opts.Method
	_, isIQRC := method.(iqrcMethod)
	limit := c.opts.TimeLimit // the analysis takes its share; the report shows the caller's
	// the run state of this solve, at no sample
	state := m.runs.take()
	defer m.runs.give(state)
	prob := problem.New(m.checked, state, problem.Options{Batch: c.opts.Batch, Seed: c.opts.Seed})
	pl, err := plan.Make(ctx, prob, c.request(m, x0))
	if err != nil {
		return nil, err
	}
	prob, settings := pl.Problem, pl.Settings
	if prob.Sampler != nil {
		defer state.ResetSamples() // a stochastic or dynamic solve may leave the run state on a sample
	}
	run := Run{Model: m, Method: method.Name()}
	if _, ok := settings.Oracle.(*solve.StochasticOracle); ok {
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

	began := time.Now()
	var (
		res   *solve.Result
		rep   *penalty.Report
		diagn *solve.Diagnosis
	)
	switch {
	case method == Penalty:
		if w := m.SmoothnessWarning(Penalty); w != "" {
			c.notes(Note{Kind: NoteMethod, Text: w})
		}
		prob.Sampler = nil
		res, rep, err = penalty.MinimizeReport(ctx, prob, x0, penaltySettings(settings))
	case isIQRC:
		res, diagn, err = solve.MinimizeRestarts(ctx, prob, x0, settings, c.restartSettings(settings.Seed))
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

// request is the plan's request for a solve of m from x0 with c's
// options: the oracle asked for (Options.Oracle, or the one the method
// fixes), the method's name when it is not IQRC, and the options the
// plan reads.
func (c *solveConfig) request(m *Model, x0 []float64) plan.Request {
	o := &c.opts
	r := plan.Request{Model: m.checked, Program: m.prog, Oracle: o.Oracle, Settings: o.settings(), Start: x0,
		AllowBiased: o.AllowBiased, Theory: o.Theory, Sigma: o.Sigma, RhoSet: o.rhoSet(), RhoHatSet: o.rhoHatSet(),
		Stochastic: solve.StochasticOracle{V: o.V, Alpha: o.Alpha},
		Dynamic:    solve.DynamicOracle{Start: o.SampleStart, Growth: o.SampleGrowth, Rounds: o.SampleRounds, FullPass: o.FullPass, FullRows: o.FullRows},
		Notes:      c.notes}
	switch iq, ok := o.Method.(iqrcMethod); {
	case !ok:
		r.Method = o.Method.Name()
	case iq.oracle != nil:
		r.Oracle = iq.oracle
	}
	return r
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
	if o == nil {
		return nil // Solve's choice: Check refuses no automatic choice
	}
	return plan.CheckOracle(plan.Request{Model: m.checked, Program: m.prog, Oracle: o, AllowBiased: allowBiased})
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
