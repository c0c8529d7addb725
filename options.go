package qrc

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/qrc-lang/qrc/plan"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/solve"
)

// Options are the settings of one solve, in one value from the caller to
// the solver: qrc solve's flags fill it field by field, and [Model.Solve]
// turns it into the solver's settings in one place (Options.settings).
// [DefaultOptions] gives the defaults; [WithOptions] passes it, and the
// other SolveOptions (WithMethod, WithOracle, WithSeed ...) each set one
// field. The messages of a solve (errors, notes, verdicts) name these
// fields as Options.Name (Options.Oracle = bundle), never a flag of qrc;
// qrc maps them to its flags when it prints them.
type Options struct {
	// Method is the method (nil: IQRC).
	Method Method
	// Oracle is IQRC's subproblem oracle; nil, the default, lets Solve
	// pick one (WithOracle says how). A Method that fixes its oracle
	// (Stochastic, Smooth, Bundle, Dynamic) goes only with nil or that
	// oracle.
	Oracle solve.Oracle
	// RhoHat is the proximal parameter's start; 0 derives it from the
	// weak-convexity analysis or takes solve.DefaultRhoHat.
	RhoHat float64
	// Rho is the weak-convexity modulus the oracle assumes (< RhoHat).
	// It is the caller's when it is positive or RhoSet is true (then 0
	// means RhoHat/2); otherwise the analysis derives it.
	Rho    float64
	RhoSet bool
	// Eps, EpsHat, Inner, Outer, TimeLimit, Pick, MaxEvals, V, Alpha,
	// SampleStart, SampleGrowth, SampleRounds, RecordEvery, NoSafeguard,
	// FullPass and FullRows are the solver's settings of those names
	// (solve.Settings; zero means the default).
	Eps, EpsHat                             float64
	Inner, Outer                            int
	TimeLimit                               time.Duration
	Pick                                    solve.Pick
	MaxEvals                                int
	V, Alpha                                float64
	SampleStart, SampleGrowth, SampleRounds int
	RecordEvery                             int
	NoSafeguard                             bool
	FullPass                                solve.FullPass
	FullRows                                int
	// Seed seeds the random pick, the minibatches, the monitoring samples
	// and the restarts (default 1; 0 is a seed like any other).
	Seed uint64
	// Batch is the rows the stochastic oracle draws from each row set per
	// step (default problem.DefaultBatch).
	Batch int
	// AllowBiased lets the stochastic oracle sample data means that sit
	// inside a nonlinearity; their minibatch estimates are biased.
	AllowBiased bool
	// Theory sets EpsHat, Inner (K) and Outer (T) by the paper's formulas
	// from the derived rho, M, the domain's diameter and the Slater
	// constant Sigma (default 1); a Note gives the values.
	Theory bool
	Sigma  float64
	// Restarts is how many perturbed starts are tried when phase 1 gives
	// up (default solve.DefaultRestarts; 0: none).
	Restarts int
	// Start is the point the solve starts at (NumVars values); nil: the
	// model's start.
	Start []float64
}

// DefaultOptions are the options of a solve given none: IQRC with the
// oracle Solve picks, seed 1, problem.DefaultBatch rows a minibatch,
// solve.DefaultRestarts restarts, Sigma 1, and the solver's defaults.
func DefaultOptions() Options {
	return Options{Method: IQRC, Seed: 1, Batch: problem.DefaultBatch, Restarts: solve.DefaultRestarts, Sigma: 1}
}

// WithOptions sets every option of the solve to o's (the SolveOptions
// after it change them further).
func WithOptions(o Options) SolveOption {
	return func(c *solveConfig) {
		c.opts = o
		c.opts.Start = slices.Clone(o.Start)
	}
}

// validate says whether the method and the oracle do not go together,
// or Theory's Sigma is not a positive number.
func (o *Options) validate() error {
	if o.Theory && (!(o.Sigma > 0) || math.IsInf(o.Sigma, 1)) {
		return fmt.Errorf("Options.Sigma must be positive, not %v", o.Sigma)
	}
	return CheckMethodOracle(o.Method, o.Oracle)
}

// CheckMethodOracle says why the method m does not go with the oracle o
// (a method that fixes its oracle, with another one), or returns nil; a
// nil o goes with every method.
func CheckMethodOracle(m Method, o solve.Oracle) error {
	iq, ok := m.(iqrcMethod)
	if !ok || iq.oracle == nil || o == nil || solve.SameKind(o, iq.oracle) {
		return nil
	}
	return fmt.Errorf("Options.Method = %s is IQRC with Options.Oracle = %s; it does not go with Options.Oracle = %s", m.Name(), iq.oracle, o)
}

// rhoSet reports whether the caller gave Rho; rhoHatSet whether RhoHat.
func (o *Options) rhoSet() bool    { return o.RhoSet || o.Rho > 0 }
func (o *Options) rhoHatSet() bool { return o.RhoHat > 0 }

// settings are the solver's settings the options give, the one place
// they are made; the plan (package plan) sets the Oracle, with its
// parameters V, Alpha and the dynamic oracle's schedule, and Solve the
// Recorder.
func (o *Options) settings() solve.Settings {
	return solve.Settings{RhoHat: o.RhoHat, Rho: o.Rho, Eps: o.Eps, EpsHat: o.EpsHat, Inner: o.Inner, Outer: o.Outer,
		TimeLimit: o.TimeLimit, Pick: o.Pick, Seed: o.Seed, RecordEvery: o.RecordEvery, MaxEvals: o.MaxEvals,
		NoSafeguard: o.NoSafeguard}
}

// CheckOptions says why Solve with the options o would refuse the model
// before it starts, or returns nil: the method and the oracle do not go
// together, the model has an equality constraint the method or the oracle
// does not take, or IQRC's oracle (o's, the method's, or the one Solve
// would pick) refuses the model (a *RefusalError each). It picks the
// oracle as Solve does, by the plan's one choice (plan.Check), without
// its notes.
func (m *Model) CheckOptions(o Options) error {
	if o.Method == nil {
		o.Method = IQRC
	}
	if err := o.validate(); err != nil {
		return err
	}
	c := &solveConfig{opts: o}
	return plan.Check(c.request(m, nil))
}
