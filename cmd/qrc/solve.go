package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/penalty"
	"github.com/qrc-lang/qrc/point"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/solve"
)

// autoStochasticRows is the size of the data means, in rows over all the
// row sets they sample, from which --oracle auto picks the stochastic
// oracle (docs/performance.md gives the reason).
const autoStochasticRows = 50000

// More exit codes of qrc solve.
const (
	exitInfeasible  = 3   // phase 1 found no feasible point
	exitNumerical   = 4   // evaluation failed (NaN, log of a negative number ...)
	exitInterrupted = 130 // stopped by Ctrl-C, after printing the result
)

var solveCommand = &command{
	name:    "solve",
	summary: "solve a model: a feasible, nearly stationary point",
	usage: `Usage: qrc solve [flags] MODEL.qrc

Solve checks and compiles a model and minimises its objective subject to its
constraints with IQRC (Ma, Lin & Yang 2020): an outer proximal-point loop
whose strongly convex subproblems are solved by an oracle (--oracle): to a
certified gap by an augmented Lagrangian method (smooth models) or a bundle
method (models with kinks), or by the paper's switching subgradient method,
or by Yu et al.'s stochastic method on minibatches of the data means. When
the starting point is infeasible, a phase 1 first minimises the largest
constraint violation. The result reports the status, objective,
infeasibility, a stationarity certificate (a bound on the KKT residual at
x_hat, the solution of the subproblem at the returned point, and the
distance to it), every constraint with its slack and multiplier, and the
variables, every value computed on all rows. See docs/solver.md for the
methods and docs/cli.md for the JSON result.

While it runs, a progress table goes to standard error (a live line on a
terminal; nothing with --quiet). Ctrl-C stops the solve after the current
inner step and prints the best point so far.

Exit status: 0 a feasible point was returned; 1 the model, data or start
file has errors; 2 bad command line; 3 infeasible (no feasible point found);
4 numerical error (the message names the expression); 130 interrupted.

Flags:
  --method M         iqrc (default), stochastic (iqrc with --oracle
                     stochastic) or penalty: the exact penalty
                     trust-region method of Cartis, Gould & Toint (2011),
                     the paper's baseline (docs/penalty.md); it uses --eps,
                     --outer (its iteration limit), --time-limit, --start
  --rho-hat R        the proximal parameter's start (default 1, the paper's,
                     or twice the derived rho, below); it is doubled when a
                     subproblem turns out not to be convex, and halved while
                     the steps contract slowly (not below twice a derived rho)
  --rho R            the weak-convexity modulus, < rho-hat (default: the
                     rho qrc check derives when neither --rho nor --rho-hat
                     is given and 2 rho <= 64, rho-hat then starting at
                     max(1, 2 rho); else rho-hat/2; docs/analysis.md)
  --theory           set EpsHat, --inner (K) and --outer (T) by the paper's
                     formulas (Algorithm 1, Algorithm 2 line 3, Theorem 1)
                     from the derived rho, M, the domain's diameter D and
                     --sigma; they are printed, and can be huge
  --sigma S          the uniform Slater constant sigma_eps that --theory
                     assumes (default 1; qrc cannot derive it)
  --eps E            target accuracy: feasibility and stationarity (default 1e-3)
  --inner K          switching and stochastic oracles: inner iterations per
                     outer step (default 1000)
  --outer T          most outer iterations (default 100)
  --oracle O         the subproblem solver: smooth (augmented Lagrangian,
                     certified gap; differentiable models), bundle (cutting
                     planes, certified gap; any model), switching (Algorithm
                     2, the switching subgradient method on all rows; also
                     called deterministic), stochastic (Algorithm 3, Yu et
                     al.'s method with virtual queues, on minibatches of the
                     data means), dynamic (smooth or bundle on growing
                     uniform samples of the data means' rows, warm-started,
                     finishing on all rows), or auto (the default): dynamic
                     when the data means run over at least 50000 rows in
                     all, else smooth for a differentiable model and bundle
                     for one with a kink
  --sample N         dynamic oracle: the first sample's rows, over all the
                     row sets the data means run over (default 10000)
  --sample-growth G  dynamic oracle: each sample has G times the rows of the
                     last (default 10), up to a third of all rows; then all
  --batch B          rows drawn from each set of rows a data mean runs over,
                     per stochastic step (default 64)
  --allow-biased     let the stochastic oracle sample means that sit inside a
                     nonlinearity (qrc check lists them); their estimates
                     are biased
  --v V, --alpha A   Algorithm 3's V and alpha (default sqrt(inner), inner)
  --time-limit D     stop after this long: seconds (10, 0.5) or a duration
                     (30s, 2m); default none. The certificate and the
                     stochastic oracle's polish get at most 0.5 s more;
                     when the certificate cannot finish, the result says so
  --pick last|random return the last outer iterate (default) or x_R with R
                     uniform, as in Algorithm 1
  --seed S           the seed for --pick random, the minibatches and the
                     restarts (default 1)
  --restarts N       when phase 1 gives up (at a stationary point of the
                     violation, or without progress), try again from N
                     perturbed starts: x0 + s*xi projected onto the domain,
                     xi standard normal (seeded), s = 0.1, 1, 10, 100 ...
                     times max(1, |x0|_inf) (default 4; 0: none)
  --start FILE       start from the point in FILE (a result written by
                     --out or --json, or any point file; see docs/cli.md)
  --json             print the result as one JSON object on standard output
  --out FILE         also write the full result as JSON to FILE
  --trace FILE       write one CSV row per outer iteration to FILE
  --checkpoint FILE  write the current outer iterate to FILE (a point file,
                     replaced atomically) at the first outer iteration,
                     every --checkpoint-every (default 10s) and at the end;
                     a killed run resumes with --start FILE
  --checkpoint-every D
                     how often --checkpoint writes (default 10s)
  --quiet            no progress table
` + modelFlagsUsage,
}

func init() { solveCommand.run = runSolve }

// solveResult is the JSON result of qrc solve (docs/cli.md).
type solveResult struct {
	File          string  `json:"file"`
	Method        string  `json:"method"` // the --method given: iqrc, stochastic or penalty
	Status        string  `json:"status"`
	Success       bool    `json:"success"`
	Objective     float64 `json:"objective"`
	Infeasibility float64 `json:"infeasibility"`
	// Stationarity bounds the KKT residual at x_hat: (1 + sum of the
	// multipliers) rho_hat (||x - x_hat|| + its bound); null without a
	// certificate, and NoCertificate says why.
	Stationarity  *float64 `json:"stationarity"`
	NoCertificate string   `json:"no_certificate,omitempty"`
	// XHatDistance is ||x - x_hat||, with x_hat the certificate oracle's
	// solution of (7) at x, and XHatBound bounds that x_hat's distance to
	// the exact one (from the certified gap).
	XHatDistance *float64 `json:"x_hat_distance"`
	XHatBound    *float64 `json:"x_hat_bound"`
	Gap          *float64 `json:"gap"`
	// CertificateOracle and CertificateEvals: the oracle that certified
	// and its evaluations.
	CertificateOracle string            `json:"certificate_oracle,omitempty"`
	RhoProven         bool              `json:"rho_proven"` // the certificate's Rho is at least the analysis' proven bound
	CertificateEvals  int               `json:"certificate_evals"`
	Stationary        bool              `json:"stationary"` // stationarity <= eps and feasible
	Constraints       []solveConstraint `json:"constraints"`
	Variables         point.Variables   `json:"variables"`
	Best              *solvePoint       `json:"best"`
	MostFeasible      *solvePoint       `json:"most_feasible"`
	Violated          []string          `json:"violated,omitempty"`
	// Verdict is a sentence to act on, when the status alone misleads:
	// locally infeasible, feasible only from a restart, or stopped on a
	// limit while the iterates were still moving.
	Verdict         string        `json:"verdict,omitempty"`
	Restarts        *restartJSON  `json:"restarts,omitempty"`
	Error           string        `json:"error,omitempty"`
	OuterIterations int           `json:"outer_iterations"`
	InnerIterations int           `json:"inner_iterations"`
	Phase1Outer     int           `json:"phase1_outer_iterations"`
	RhoDoublings    int           `json:"rho_doublings"`
	InnerDoublings  int           `json:"inner_doublings"` // Inner doubled because the iterates stalled short of stationarity
	Seconds         float64       `json:"seconds"`
	Settings        solveSettings `json:"settings"`
	Penalty         *penaltyJSON  `json:"penalty,omitempty"` // the penalty method's parameters and final state
	// Polish counts the rounds of Algorithm 2 on all rows that made the
	// stochastic oracle's last point feasible.
	Polish int `json:"polish_rounds"`
	// Stages are the dynamic oracle's stages, the last one on every row.
	Stages []solveStage `json:"stages,omitempty"`

	hideTime bool // text leaves out the time (the REPL's scripted output is the same on every run)
}

type solveConstraint struct {
	Name       string   `json:"name"`
	Value      float64  `json:"value"` // f = lhs - rhs (rhs - lhs for >=)
	RHS        *float64 `json:"rhs"`
	Slack      float64  `json:"slack"` // -f
	Multiplier *float64 `json:"multiplier"`
}

type solvePoint struct {
	Objective     float64 `json:"objective"`
	Infeasibility float64 `json:"infeasibility"`
	Outer         int     `json:"outer"`
}

type solveSettings struct {
	RhoHat           float64 `json:"rho_hat"` // the final value, after doublings
	Rho              float64 `json:"rho"`
	RhoHatStart      float64 `json:"rho_hat_start"`
	Eps              float64 `json:"eps"`
	EpsHat           float64 `json:"eps_hat"`
	Inner            int     `json:"inner"`       // the final value, after inner_doublings
	InnerStart       int     `json:"inner_start"` // the value the solve started with
	Outer            int     `json:"outer"`
	TimeLimitSeconds float64 `json:"time_limit_seconds"`
	Pick             string  `json:"pick"`
	Seed             uint64  `json:"seed"`
	Oracle           string  `json:"oracle"`          // smooth, bundle, switching or stochastic: the one used
	Batch            int     `json:"batch,omitempty"` // stochastic: rows per draw from each row set
	V                float64 `json:"v,omitempty"`     // stochastic: Algorithm 3's V
	Alpha            float64 `json:"alpha,omitempty"` // stochastic: Algorithm 3's alpha
	MonitorRows      int     `json:"monitor_rows"`    // progress on a sample of this many rows per set; 0: all rows
	AllowBiased      bool    `json:"allow_biased"`
}

// solveFlags are the flags of qrc solve. The REPL's :solve parses its flags
// with them too.
type solveFlags struct {
	fs        *flag.FlagSet
	asJSON    *bool
	out       *string
	trace     *string
	ckpt      *string
	ckptEvery *time.Duration
	quiet     *bool
	startFile *string
	rhoHat    *float64
	rho       *float64
	eps       *float64
	inner     *int
	outer     *int
	timeLimit *time.Duration
	pick      *string
	seed      *uint64
	oracle    *string
	batch     *int
	allowBias *bool
	yuV       *float64
	yuAlpha   *float64
	method    *string
	theory    *bool
	sigma     *float64
	restarts  *int
	sample    *int
	growth    *int
}

// registerSolveFlags adds the solver's flags to fs.
func registerSolveFlags(fs *flag.FlagSet) *solveFlags {
	return &solveFlags{
		fs:        fs,
		asJSON:    fs.Bool("json", false, ""),
		out:       fs.String("out", "", ""),
		trace:     fs.String("trace", "", ""),
		ckpt:      fs.String("checkpoint", "", ""),
		ckptEvery: fs.Duration("checkpoint-every", defaultCheckpointEvery, ""),
		quiet:     fs.Bool("quiet", false, ""),
		startFile: fs.String("start", "", ""),
		rhoHat:    fs.Float64("rho-hat", 0, ""),
		rho:       fs.Float64("rho", 0, ""),
		eps:       fs.Float64("eps", 0, ""),
		inner:     fs.Int("inner", 0, ""),
		outer:     fs.Int("outer", 0, ""),
		timeLimit: durationFlag(fs, "time-limit"),
		pick:      fs.String("pick", "last", ""),
		seed:      fs.Uint64("seed", 1, ""),
		oracle:    fs.String("oracle", "auto", ""),
		batch:     fs.Int("batch", problem.DefaultBatch, ""),
		allowBias: fs.Bool("allow-biased", false, ""),
		yuV:       fs.Float64("v", 0, ""),
		yuAlpha:   fs.Float64("alpha", 0, ""),
		method:    fs.String("method", methodIQRC, ""),
		theory:    fs.Bool("theory", false, ""),
		sigma:     fs.Float64("sigma", 1, ""),
		restarts:  fs.Int("restarts", solve.DefaultRestarts, ""),
		sample:    fs.Int("sample", solve.DynamicStartRows, ""),
		growth:    fs.Int("sample-growth", solve.DynamicGrowth, ""),
	}
}

// settings checks the parsed flags and returns the solver settings they
// give (without Oracle, Recorder and Stop, which depend on the model and
// the run).
func (f *solveFlags) settings() (solve.Settings, error) {
	var settings solve.Settings
	switch *f.pick {
	case "last":
		settings.Pick = solve.PickLast
	case "random":
		settings.Pick = solve.PickRandom
	default:
		return settings, fmt.Errorf("--pick must be last or random, not %q", *f.pick)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"rho-hat", *f.rhoHat}, {"rho", *f.rho}, {"eps", *f.eps}} {
		if c.v < 0 || math.IsNaN(c.v) || (set(f.fs, c.name) && c.v == 0 && c.name != "rho") {
			return settings, fmt.Errorf("--%s must be positive", c.name)
		}
	}
	if _, ok := solve.OracleNamed(*f.oracle); !ok && *f.oracle != "auto" {
		return settings, fmt.Errorf("--oracle must be auto, smooth, bundle, dynamic, switching or stochastic, not %q", *f.oracle)
	}
	if *f.batch <= 0 {
		return settings, errors.New("--batch must be at least 1")
	}
	if *f.sample <= 0 || *f.growth < 2 {
		return settings, errors.New("--sample must be at least 1 and --sample-growth at least 2")
	}
	settings.SampleStart, settings.SampleGrowth = *f.sample, *f.growth
	if *f.yuV < 0 || *f.yuAlpha < 0 || math.IsNaN(*f.yuV) || math.IsNaN(*f.yuAlpha) {
		return settings, errors.New("--v and --alpha must be positive")
	}
	settings.V, settings.Alpha = *f.yuV, *f.yuAlpha
	if !(*f.sigma > 0) || math.IsInf(*f.sigma, 1) {
		return settings, errors.New("--sigma must be positive")
	}
	if *f.ckptEvery <= 0 {
		return settings, errors.New("--checkpoint-every must be positive")
	}
	if *f.inner < 0 || *f.outer < 0 || *f.timeLimit < 0 || *f.restarts < 0 {
		return settings, errors.New("--inner, --outer, --time-limit and --restarts must not be negative")
	}
	if err := checkMethod(*f.method, *f.oracle, func(name string) bool { return set(f.fs, name) }); err != nil {
		return settings, err
	}
	settings.RhoHat, settings.Rho, settings.Eps = *f.rhoHat, *f.rho, *f.eps
	settings.Inner, settings.Outer, settings.TimeLimit, settings.Seed = *f.inner, *f.outer, *f.timeLimit, *f.seed
	return settings, nil
}

func runSolve(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("solve", solveCommand.usage, stderr)
	flags := registerSolveFlags(fs)
	var mf modelFlags
	mf.register(fs)
	file, ok := modelFile(fs, "solve", args, stderr)
	if !ok {
		return exitUsage
	}
	settings, err := flags.settings()
	if err != nil {
		fmt.Fprintf(stderr, "qrc solve: %v\n", err)
		return exitUsage
	}
	loading := startClock()
	m, sources, prog, ok := loadProgram("solve", file, &mf, !*flags.asJSON, stderr)
	if !ok {
		return exitInvalid
	}
	if !*flags.quiet && len(m.Data) > 0 {
		fmt.Fprintf(stderr, "qrc solve: %s\n", loading.note("loading the data and compiling"))
	}

	stop, release := notifyStop()
	defer release()
	run := &solveRun{name: "solve", file: file, m: m, sources: sources, prog: prog, x0: point.Start(m),
		flags: flags, settings: settings, stop: stop, stdout: stdout, stderr: stderr, progress: true}
	_, code := run.run()
	return code
}

// solveRun is one solve of a compiled model, as qrc solve and the REPL's
// :solve do it: the start (--start), the oracle, the progress table and
// trace, the solve, and the report.
type solveRun struct {
	name     string // the command, for messages: "solve"
	file     string // the model file, for the report
	m        *check.Model
	sources  check.Sources
	prog     *autodiff.Program
	x0       []float64 // the start unless --start
	flags    *solveFlags
	settings solve.Settings // from flags.settings
	stop     <-chan struct{}
	stdout   io.Writer
	stderr   io.Writer
	progress bool // the progress table (unless --quiet) and the oracle note
	hideTime bool // the report leaves out the time
}

// run solves and reports. It returns the result (nil when the solve could
// not start) and qrc solve's exit code.
func (r *solveRun) run() (*solve.Result, int) {
	m, prog, flags, settings := r.m, r.prog, r.flags, r.settings
	x0 := r.x0
	if *flags.startFile != "" {
		var err error
		if x0, err = point.ReadStart(*flags.startFile, m); err != nil {
			fmt.Fprintln(r.stderr, err)
			return nil, exitInvalid
		}
	}

	prob := problem.New(m, prog, problem.Options{Batch: *flags.batch, Seed: *flags.seed})
	quiet := *flags.quiet || !r.progress
	oracle := *flags.oracle
	if methodOracle[*flags.method] != nil {
		oracle = *flags.method
	}
	if *flags.method != methodPenalty {
		var ok bool
		if settings.Oracle, ok = chooseOracle(oracle, m, prog, *flags.allowBias, quiet, r.sources, r.stderr); !ok {
			return nil, exitInvalid
		}
	}
	if err := applyAnalysis(prob, m, x0, flags, &settings, quiet, r.stderr); err != nil {
		fmt.Fprintf(r.stderr, "qrc %s: %v\n", r.name, err)
		return nil, exitUsage
	}
	if settings.Oracle != solve.Stochastic && settings.Oracle != solve.Dynamic {
		prob.Sampler = nil
	}
	var rec recorders
	if !quiet {
		pr := newProgress(r.stderr, prog)
		if settings.Oracle == solve.Stochastic {
			pr.note = monitorNote(prob, prog)
		}
		rec = append(rec, pr)
	}
	if err := r.checkOutputs(); err != nil {
		fmt.Fprintf(r.stderr, "qrc %s: %v\n", r.name, err)
		return nil, exitUsage
	}
	var trace *fileio.File
	if *flags.trace != "" {
		var err error
		if trace, err = fileio.Create(*flags.trace, 0o644); err != nil {
			fmt.Fprintf(r.stderr, "qrc %s: %v\n", r.name, err)
			return nil, exitUsage
		}
		defer trace.Abort()
		rec = append(rec, newTraceWriter(trace, prog))
	}
	var ckpt *checkpointer
	if *flags.ckpt != "" {
		ckpt = &checkpointer{path: *flags.ckpt, m: m, every: *flags.ckptEvery, stderr: r.stderr, name: r.name}
		rec = append(rec, ckpt)
	}
	if len(rec) > 0 {
		settings.Recorder = rec
	}
	settings.Stop = r.stop

	began := time.Now()
	var (
		res   *solve.Result
		rep   *penalty.Report
		diagn *solve.Diagnosis
		err   error
	)
	if *flags.method == methodPenalty {
		res, rep, err = minimize(*flags.method, prob, m, x0, settings, r.stderr)
	} else {
		res, diagn, err = solve.MinimizeRestarts(prob, x0, settings, r.restarts(quiet))
	}
	if err != nil {
		fmt.Fprintf(r.stderr, "qrc %s: %v\n", r.name, err)
		return nil, exitUsage
	}
	rec.finish()
	if !quiet {
		printStages(r.stderr, res.Stages)
	}
	if ckpt != nil {
		ckpt.write(res.X) // the point the result reports
	}
	// Output files that fail to be written are reported after the result,
	// which is printed anyway: a long solve is never lost.
	var outErrs []error
	if trace != nil {
		if err := trace.Commit(); err != nil {
			outErrs = append(outErrs, err)
		}
	}
	result := resultOf(r.file, m, prob, res, settings, time.Since(began))
	result.Settings.AllowBiased = *flags.allowBias
	result.describeMethod(*flags.method, settings, rep)
	result.diagnose(diagn, res, settings, *flags.restarts)
	result.hideTime = r.hideTime

	if *flags.out != "" {
		var buf bytes.Buffer
		err := writeJSON(&buf, result)
		if err == nil {
			err = fileio.WriteFile(*flags.out, buf.Bytes(), 0o644)
		}
		if err != nil {
			outErrs = append(outErrs, err)
		}
	}
	defer func() {
		for _, err := range outErrs {
			fmt.Fprintf(r.stderr, "qrc %s: %v (the result above is complete)\n", r.name, err)
		}
	}()
	if res.Status == solve.NumericalError && res.Err != nil {
		printEvalError(r.stderr, r.name, res.Err, r.sources)
	}
	if *flags.asJSON {
		if err := writeJSON(r.stdout, result); err != nil {
			fmt.Fprintf(r.stderr, "qrc %s: %v\n", r.name, err)
			return res, exitNumerical
		}
	} else {
		result.text(r.stdout, m, res.X)
	}
	if len(outErrs) > 0 {
		return res, exitUsage
	}
	switch res.Status {
	case solve.Infeasible:
		return res, exitInfeasible
	case solve.NumericalError:
		return res, exitNumerical
	case solve.Interrupted:
		return res, exitInterrupted
	}
	return res, exitOK
}

// checkOutputs refuses --out and --trace when they name an input (the
// model, a data file, the --start file for --trace) or each other, and
// when they cannot be written, before a long solve rather than after it.
func (r *solveRun) checkOutputs() error {
	outs := []struct{ flag, path string }{{"--out", *r.flags.out}, {"--trace", *r.flags.trace}, {"--checkpoint", *r.flags.ckpt}}
	var inputs []struct{ what, path string }
	if r.name == "solve" { // the REPL's model is the session, its files are in sources
		inputs = append(inputs, struct{ what, path string }{"the model", r.file})
	}
	for _, name := range slices.Sorted(maps.Keys(r.sources)) {
		// the model files read (the REPL's loaded files among them)
		if info, err := os.Stat(name); err == nil && info.Mode().IsRegular() {
			inputs = append(inputs, struct{ what, path string }{"the model file " + name, name})
		}
	}
	for _, d := range r.m.Data {
		inputs = append(inputs, struct{ what, path string }{"data set " + d.Name + "'s file", d.Path})
	}
	if *r.flags.startFile != "" {
		// --out may replace the start it resumes from (read already);
		// a trace never should
		inputs = append(inputs, struct{ what, path string }{"the --start file", *r.flags.startFile})
	}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		for _, in := range inputs {
			if in.path == "" || o.flag != "--trace" && in.what == "the --start file" {
				continue
			}
			if fileio.SamePath(o.path, in.path) {
				return fmt.Errorf("%s %s names %s; it would be overwritten (choose another file)", o.flag, o.path, in.what)
			}
		}
	}
	for i, a := range outs {
		for _, b := range outs[i+1:] {
			if a.path != "" && b.path != "" && fileio.SamePath(a.path, b.path) {
				return fmt.Errorf("%s and %s name the same file %s; one would replace the other", a.flag, b.flag, a.path)
			}
		}
	}
	for _, o := range outs {
		if o.path != "" {
			if err := fileio.CheckWritable(o.path); err != nil {
				return fmt.Errorf("%s: %v", o.flag, err)
			}
		}
	}
	return nil
}

// set reports whether flag name was given on the command line.
func set(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// chooseOracle resolves --oracle: auto picks the dynamic oracle (the
// accurate one on growing samples, docs/solver.md) when the data means are
// large (autoStochasticRows), else the smooth oracle for a model whose
// functions are all differentiable and the bundle oracle for one with
// kinks, and says which it picked and why on stderr (quiet silences the
// note). The stochastic oracle
// refuses a model with biased means unless allowBiased, printing each
// with its position; the smooth oracle refuses a model with a kink.
func chooseOracle(flag string, m *check.Model, prog *autodiff.Program, allowBiased, quiet bool, sources check.Sources, stderr io.Writer) (solve.Oracle, bool) {
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
	if flag != "auto" && flag != "stochastic" {
		o, _ := solve.OracleNamed(flag)
		if o == solve.Smooth && !smooth {
			fmt.Fprintf(stderr, "qrc solve: --oracle smooth needs a differentiable model, and at %s (use --oracle bundle)\n", why())
			return nil, false
		}
		return o, true
	}
	biased := problem.Biased(m, prog)
	rows := problem.SampledRows(prog)
	if flag == "auto" {
		switch {
		case rows == 0:
			if !quiet {
				fmt.Fprintf(stderr, "qrc solve: oracle %s (auto: %s; the model has no means over data rows to sample)\n", accurate(), why())
			}
			return accurate(), true
		case rows < autoStochasticRows:
			if !quiet {
				fmt.Fprintf(stderr, "qrc solve: oracle %s (auto: %s; the data means run over %d rows, fewer than %d)\n", accurate(), why(), rows, autoStochasticRows)
			}
			return accurate(), true
		}
		if !quiet {
			fmt.Fprintf(stderr, "qrc solve: oracle dynamic (auto: the data means run over %d rows, at least %d): %s on growing samples of the rows, then on all of them\n", rows, autoStochasticRows, accurate())
		}
		return solve.Dynamic, true
	}
	if len(biased) > 0 && !allowBiased {
		for _, b := range biased {
			d := diag.Diagnostic{Pos: b.Mean.Src().Pos(), Msg: fmt.Sprintf("%s: this mean over data rows is %s (%s); a minibatch estimate of %s is biased, so the stochastic oracle refuses it (use --oracle smooth, bundle or switching, or --allow-biased to sample it anyway)",
				b.Function, b.Why, b.Context.Pos(), b.Function)}
			diag.List{&d}.Print(stderr, sources)
		}
		return solve.Stochastic, false
	}
	return solve.Stochastic, true
}

// finite returns &v, or nil when v is not finite (JSON null).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// monitorNote says when the progress table shows values on a sample of the
// rows rather than on all of them.
func monitorNote(p *solve.Problem, prog *autodiff.Program) string {
	s, ok := p.Sampler.(*problem.Sampler)
	if !ok {
		return ""
	}
	var parts []string
	for i, n := range s.MonitorRows() {
		if n > 0 {
			set := prog.Samples()[i]
			parts = append(parts, fmt.Sprintf("%d of the %d rows of %s", n, set.Rows, set.Data))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "objective and infeasibility at outer iterations are on a fixed sample (" + strings.Join(parts, "; ") + "); the result is on all rows"
}

func resultOf(file string, m *check.Model, prob *solve.Problem, res *solve.Result, s solve.Settings, elapsed time.Duration) *solveResult {
	// report the settings actually used
	start := s.RhoHat
	if d, err := s.WithDefaults(prob); err == nil {
		s = d
	}
	if start == 0 {
		start = s.RhoHat
	}
	r := &solveResult{
		File:            file,
		Status:          res.Status.String(),
		Success:         res.Status.Success(),
		Objective:       res.Objective,
		Infeasibility:   res.Infeasibility,
		Constraints:     []solveConstraint{},
		Variables:       point.Variables{Model: m, X: res.X, NonFinite: true},
		OuterIterations: res.Stats.Outer,
		InnerIterations: res.Stats.Inner,
		Phase1Outer:     res.Stats.Phase1Outer,
		RhoDoublings:    res.Stats.RhoDoublings,
		InnerDoublings:  res.Stats.InnerDoublings,
		Seconds:         elapsed.Seconds(),
		Settings: solveSettings{
			RhoHat: res.RhoHat, Rho: res.Rho, RhoHatStart: start, Eps: s.Eps, EpsHat: s.EpsHat,
			Inner: max(res.Inner, s.Inner), InnerStart: s.Inner, Outer: s.Outer, TimeLimitSeconds: s.TimeLimit.Seconds(), Seed: s.Seed,
			Pick:   map[solve.Pick]string{solve.PickLast: "last", solve.PickRandom: "random"}[s.Pick],
			Oracle: s.Oracle.String(),
		},
		Polish: res.Stats.Polish,
		Stages: stagesOf(res.Stages),
	}
	if s.Oracle == solve.Stochastic {
		r.Settings.V, r.Settings.Alpha = s.Algorithm3(res.Inner)
		if sm, ok := prob.Sampler.(*problem.Sampler); ok {
			r.Settings.Batch = slices.Max(sm.Batches())
			r.Settings.MonitorRows = slices.Max(sm.MonitorRows())
		}
	}
	if c := res.Certificate; c != nil {
		r.Stationarity, r.Stationary = finite(c.Stationarity), c.Stationary
		r.XHatDistance, r.XHatBound, r.Gap = finite(c.Dist), finite(c.DistBound), finite(c.Gap)
		r.CertificateOracle, r.CertificateEvals, r.RhoProven = c.Oracle, c.Evals, c.Proven
		if r.Stationarity == nil {
			r.NoCertificate = "the oracle could not bound its distance to x_hat (no feasible point of (7) with a certified gap)"
		}
	} else if res.Status.Success() {
		r.NoCertificate = res.NoCertificate
	}
	if res.Err != nil {
		r.Error = res.Err.Error()
	}
	for i, c := range m.Constraints {
		// F is empty when the solve stopped before its first evaluation
		// finished (a value that is not finite at the start)
		f := math.NaN()
		if i+1 < len(res.F) {
			f = res.F[i+1]
		}
		k := solveConstraint{Name: c.Name, Value: f, RHS: constRHS(c), Slack: -f}
		if res.Certificate != nil && i < len(res.Certificate.Multipliers) {
			k.Multiplier = &res.Certificate.Multipliers[i]
		}
		r.Constraints = append(r.Constraints, k)
	}
	for _, i := range res.Violated {
		r.Violated = append(r.Violated, m.Constraints[i-1].Name)
	}
	if b := res.Best; b != nil {
		r.Best = &solvePoint{b.Objective, b.Infeasibility, b.T}
	}
	if b := res.MostFeasible; b != nil {
		r.MostFeasible = &solvePoint{b.Objective, b.Infeasibility, b.T}
	}
	return r
}

// text prints the result for people.
func (r *solveResult) text(w io.Writer, m *check.Model, x []float64) {
	fmt.Fprintf(w, "status         %s\n", r.Status)
	if r.Error != "" {
		fmt.Fprintf(w, "error          %s\n", r.Error)
	}
	fmt.Fprintf(w, "objective      %s\n", num(r.Objective))
	fmt.Fprintf(w, "infeasibility  %s\n", num(r.Infeasibility))
	switch {
	case r.Stationarity != nil:
		verdict := "nearly stationary"
		if !r.Stationary {
			verdict = "not certified within eps"
			if r.Verdict != "" {
				verdict += " (see the verdict)"
			}
		}
		proof := "rho checked along the iterates"
		if r.RhoProven {
			proof = "rho proven by the analysis"
		}
		fmt.Fprintf(w, "stationarity   %s: KKT residual <= %s at x_hat, ||x - x_hat|| = %s (+ %s); %s\n", verdict, num(*r.Stationarity), num(*r.XHatDistance), num(*r.XHatBound), proof)
	case r.NoCertificate != "":
		fmt.Fprintf(w, "stationarity   not certified: %s\n", r.NoCertificate)
	}
	if len(r.Violated) > 0 {
		fmt.Fprintf(w, "violated       %s\n", strings.Join(r.Violated, ", "))
	}
	if r.Verdict != "" {
		fmt.Fprintf(w, "verdict        %s\n", r.Verdict)
	}
	fmt.Fprintf(w, "iterations     %d outer (%d in phase 1), %d inner; rho_hat %s", r.OuterIterations, r.Phase1Outer, r.InnerIterations, num(r.Settings.RhoHat))
	if r.RhoDoublings > 0 {
		fmt.Fprintf(w, " after %d doubling(s)", r.RhoDoublings)
	}
	if r.InnerDoublings > 0 {
		fmt.Fprintf(w, "; inner doubled %d time(s) to reach stationarity", r.InnerDoublings)
	}
	if r.Polish > 0 {
		fmt.Fprintf(w, "; %d polish round(s) on all rows made the stochastic point feasible", r.Polish)
	}
	if r.Settings.Oracle != "" {
		fmt.Fprintf(w, "\noracle         %s", r.Settings.Oracle)
	}
	if r.Settings.Oracle == "stochastic" {
		fmt.Fprintf(w, " (batch %d, V %s, alpha %s); values below are on all rows", r.Settings.Batch, num(r.Settings.V), num(r.Settings.Alpha))
	}
	fmt.Fprintln(w)
	if !r.hideTime {
		fmt.Fprintf(w, "time           %.3gs\n", r.Seconds)
	}
	if r.Penalty != nil {
		r.Penalty.text(w)
	}
	if len(r.Constraints) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "constraint\tf = lhs - rhs\trhs\tslack\tmultiplier")
		for _, c := range r.Constraints {
			rhs, mult, mark := "-", "-", ""
			if c.RHS != nil {
				rhs = num(*c.RHS)
			}
			if c.Multiplier != nil {
				mult = num(*c.Multiplier)
			}
			switch {
			case c.Value > r.Settings.Eps:
				mark = "  VIOLATED"
			case c.Value > 0:
				mark = "  violated within eps" // allowed: a result is feasible to eps
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s\n", c.Name, num(c.Value), rhs, num(c.Slack), mult, mark)
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	for _, v := range m.Vars {
		xv := v.Of(x)
		switch {
		case v.Size == 1:
			fmt.Fprintf(w, "%s = %s\n", v.Name, num(xv[0]))
		case v.Shape.Rank() == 1 && v.Size <= 10:
			parts := make([]string, len(xv))
			for i, e := range xv {
				parts[i] = num(e)
			}
			fmt.Fprintf(w, "%s = [%s]\n", v.Name, strings.Join(parts, ", "))
		case v.Shape.Rank() == 2 && v.Shape[0] <= 10 && v.Shape[1] <= 10:
			printMatrix(w, v.Name, xv, v.Shape[1])
		default:
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, e := range xv {
				lo, hi = math.Min(lo, e), math.Max(hi, e)
			}
			fmt.Fprintf(w, "%s: %s, min %s, max %s, norm %s (all values: --json or --out)\n", v.Name, v.Shape, num(lo), num(hi), num(norm2(xv)))
		}
	}
}

// printMatrix prints the matrix x (row-major, cols columns) in full, one
// row a line, each column right-aligned:
//
//	W = [[     1, -2.5],
//	     [0.0625,    3]]
func printMatrix(w io.Writer, name string, x []float64, cols int) {
	cells := make([]string, len(x))
	width := make([]int, cols)
	for i, e := range x {
		cells[i] = num(e)
		width[i%cols] = max(width[i%cols], len(cells[i]))
	}
	indent := strings.Repeat(" ", len(name)+4)
	for r := 0; r*cols < len(x); r++ {
		parts := make([]string, cols)
		for j := range cols {
			parts[j] = fmt.Sprintf("%*s", width[j], cells[r*cols+j])
		}
		lead, end := indent+"[", "],"
		if r == 0 {
			lead = name + " = [["
		}
		if (r+1)*cols == len(x) {
			end = "]]"
		}
		fmt.Fprintf(w, "%s%s%s\n", lead, strings.Join(parts, ", "), end)
	}
}

// recorders fans solver records out to several recorders.
type recorders []solve.Recorder

func (rs recorders) Record(it solve.Iteration) error {
	for _, r := range rs {
		if err := r.Record(it); err != nil {
			return err
		}
	}
	return nil
}

func (rs recorders) finish() {
	for _, r := range rs {
		if p, ok := r.(*progress); ok {
			p.finish()
		}
	}
}

// progress prints a table of outer iterations to a writer: a live line
// rewritten in place on a terminal, rows at most every second otherwise.
type progress struct {
	note   string // printed above the table
	w      io.Writer
	names  []string
	live   bool
	header bool
	last   time.Time
	line   string
}

func newProgress(w io.Writer, prog *autodiff.Program) *progress {
	return &progress{w: w, names: functionNames(prog), live: isTerminal(w)}
}

func (p *progress) Record(it solve.Iteration) error {
	if it.K > 0 { // inner records are for traces
		return nil
	}
	if !p.header {
		if p.note != "" {
			fmt.Fprintf(p.w, "qrc solve: %s\n", p.note)
		}
		fmt.Fprintf(p.w, "%-7s %6s %9s %13s %13s %-12s %10s %6s %8s\n", "phase", "t", "seconds", "objective", "infeasibility", "worst", "step", "feas%", "rho_hat")
		p.header = true
	}
	phase, worst := describe(it, p.names)
	if worst == "" {
		worst = "-"
	}
	rho := num(it.RhoHat)
	if it.RhoDoubled {
		rho += "*"
	}
	p.line = fmt.Sprintf("%-7s %6d %9.3f %13.6g %13.4g %-12s %10.3g %6.1f %8s", phase, it.T, it.Elapsed.Seconds(), it.Objective, it.Infeasibility, worst, it.Step, 100*it.FeasibleFraction, rho)
	now := time.Now()
	switch {
	case p.live:
		fmt.Fprintf(p.w, "\r%s", p.line)
	case it.T < 5 || it.RhoDoubled || now.Sub(p.last) >= time.Second:
		fmt.Fprintln(p.w, p.line)
		p.line = ""
		p.last = now
	}
	return nil
}

// finish ends the live line, or prints the last row if it was skipped.
func (p *progress) finish() {
	if p.live && p.line != "" {
		fmt.Fprintln(p.w)
	} else if p.line != "" {
		fmt.Fprintln(p.w, p.line)
	}
}

// traceWriter writes one CSV row per outer iteration.
type traceWriter struct {
	w     io.Writer
	names []string
	n     int
}

func newTraceWriter(w io.Writer, prog *autodiff.Program) *traceWriter {
	t := &traceWriter{w: w, names: functionNames(prog)}
	fmt.Fprintln(w, "seconds,t,phase,objective,infeasibility,max_violated,step,feasible_fraction,rho_hat")
	return t
}

func (t *traceWriter) Record(it solve.Iteration) error {
	if it.K > 0 {
		return nil
	}
	phase, worst := describe(it, t.names)
	_, err := fmt.Fprintf(t.w, "%.6f,%d,%s,%.17g,%.17g,%s,%.17g,%.6f,%g\n", it.Elapsed.Seconds(), it.T, phase, it.Objective, it.Infeasibility, csvField(worst), it.Step, it.FeasibleFraction, it.RhoHat)
	if err != nil {
		return errors.New("writing the trace: " + err.Error())
	}
	return nil
}

// csvField quotes a field that holds a comma (cap[1, 2]).
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// functionNames lists the program's function names, the objective first.
func functionNames(prog *autodiff.Program) []string {
	var names []string
	for _, f := range prog.Functions() {
		names = append(names, f.Name)
	}
	return names
}

// describe names an iteration's phase ("phase1" or "iqrc") and its most
// violated constraint ("" when none is violated).
func describe(it solve.Iteration, names []string) (phase, worst string) {
	phase = "iqrc"
	if it.Method != "" {
		phase = it.Method
	}
	if it.Phase1 {
		phase = "phase1"
	}
	if it.MaxViolated > 0 && it.MaxViolated < len(names) {
		worst = names[it.MaxViolated]
	}
	return phase, worst
}

// seconds is a time.Duration flag that also takes a bare number of
// seconds: --time-limit 10 is ten seconds, as are 10s and 0.5m/30s.
type seconds struct{ d *time.Duration }

func (s seconds) String() string {
	if s.d == nil {
		return "0s"
	}
	return s.d.String()
}

func (s seconds) Set(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f < 0 || math.IsNaN(f) || f > math.MaxInt64/float64(time.Second) {
			return fmt.Errorf("%q is not a number of seconds from 0 up", v)
		}
		*s.d = time.Duration(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is neither a number of seconds nor a duration such as 30s or 2m", v)
	}
	*s.d = d
	return nil
}

// durationFlag defines a seconds flag on fs.
func durationFlag(fs *flag.FlagSet, name string) *time.Duration {
	d := new(time.Duration)
	fs.Var(seconds{d}, name, "")
	return d
}
