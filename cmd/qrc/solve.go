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
	"strings"
	"text/tabwriter"
	"time"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/fileio"
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
whose strongly convex subproblems are solved by the switching subgradient
method on all rows, or by Yu et al.'s stochastic method on minibatches of the
data means (--oracle). When the starting point is infeasible, a phase 1 first
minimises the largest constraint violation. The result reports the status,
objective, infeasibility, a stationarity certificate (the distance to the
exact proximal point and a KKT residual), every constraint with its slack and
multiplier, and the variables, every value computed on all rows. See
docs/solver.md for the methods and docs/cli.md for the JSON result.

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
  --rho-hat R        the proximal parameter (default 1, the paper's); it is
                     doubled automatically when a subproblem turns out not
                     to be convex
  --rho R            the weak-convexity modulus, < rho-hat (default rho-hat/2)
  --eps E            target accuracy: feasibility and stationarity (default 1e-3)
  --inner K          inner iterations per outer step (default 1000)
  --outer T          most outer iterations (default 100)
  --oracle O         the subproblem solver: deterministic (Algorithm 2, the
                     switching subgradient method on all rows), stochastic
                     (Algorithm 3, Yu et al.'s method with virtual queues, on
                     minibatches of the data means), or auto (the default):
                     stochastic when the data means run over at least 50000
                     rows in all and can be estimated without bias
  --batch B          rows drawn from each set of rows a data mean runs over,
                     per stochastic step (default 64)
  --allow-biased     let the stochastic oracle sample means that sit inside a
                     nonlinearity (qrc check lists them); their estimates
                     are biased
  --v V, --alpha A   Algorithm 3's V and alpha (default sqrt(inner), inner)
  --time-limit D     stop the iterations after this long, e.g. 30s, 2m
                     (default none); a time_limit result has no
                     certificate; the stochastic oracle's polish runs after
                     the limit
  --pick last|random return the last outer iterate (default) or x_R with R
                     uniform, as in Algorithm 1
  --seed S           the seed for --pick random and the minibatches (default 1)
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
	File          string   `json:"file"`
	Method        string   `json:"method"` // the --method given: iqrc, stochastic or penalty
	Status        string   `json:"status"`
	Success       bool     `json:"success"`
	Objective     float64  `json:"objective"`
	Infeasibility float64  `json:"infeasibility"`
	Stationarity  *float64 `json:"stationarity"`
	KKTResidual   *float64 `json:"kkt_residual"`
	// CertificateInner is the number of iterations the certificate's x_hat
	// took (0 without a certificate).
	CertificateInner int               `json:"certificate_inner"`
	Stationary       bool              `json:"stationary"` // ||x - x_hat|| <= eps and feasible (Definition 2)
	Constraints      []solveConstraint `json:"constraints"`
	Variables        point.Variables   `json:"variables"`
	Best             *solvePoint       `json:"best"`
	MostFeasible     *solvePoint       `json:"most_feasible"`
	Violated         []string          `json:"violated,omitempty"`
	Error            string            `json:"error,omitempty"`
	OuterIterations  int               `json:"outer_iterations"`
	InnerIterations  int               `json:"inner_iterations"`
	Phase1Outer      int               `json:"phase1_outer_iterations"`
	RhoDoublings     int               `json:"rho_doublings"`
	InnerDoublings   int               `json:"inner_doublings"` // Inner doubled because the iterates stalled short of stationarity
	Seconds          float64           `json:"seconds"`
	Settings         solveSettings     `json:"settings"`
	Penalty          *penaltyJSON      `json:"penalty,omitempty"` // the penalty method's parameters and final state
	// Polish counts the rounds of Algorithm 2 on all rows that made the
	// stochastic oracle's last point feasible.
	Polish int `json:"polish_rounds"`

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
	Oracle           string  `json:"oracle"`          // deterministic or stochastic: the one used
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
		timeLimit: fs.Duration("time-limit", 0, ""),
		pick:      fs.String("pick", "last", ""),
		seed:      fs.Uint64("seed", 1, ""),
		oracle:    fs.String("oracle", "auto", ""),
		batch:     fs.Int("batch", problem.DefaultBatch, ""),
		allowBias: fs.Bool("allow-biased", false, ""),
		yuV:       fs.Float64("v", 0, ""),
		yuAlpha:   fs.Float64("alpha", 0, ""),
		method:    fs.String("method", methodIQRC, ""),
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
	switch *f.oracle {
	case "auto", "stochastic", "deterministic":
	default:
		return settings, fmt.Errorf("--oracle must be auto, stochastic or deterministic, not %q", *f.oracle)
	}
	if *f.batch <= 0 {
		return settings, errors.New("--batch must be at least 1")
	}
	if *f.yuV < 0 || *f.yuAlpha < 0 || math.IsNaN(*f.yuV) || math.IsNaN(*f.yuAlpha) {
		return settings, errors.New("--v and --alpha must be positive")
	}
	settings.V, settings.Alpha = *f.yuV, *f.yuAlpha
	if *f.ckptEvery <= 0 {
		return settings, errors.New("--checkpoint-every must be positive")
	}
	if *f.inner < 0 || *f.outer < 0 || *f.timeLimit < 0 {
		return settings, errors.New("--inner, --outer and --time-limit must not be negative")
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
	m, sources, prog, ok := loadProgram("solve", file, &mf, !*flags.asJSON, stderr)
	if !ok {
		return exitInvalid
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
	if *flags.method == methodStochastic {
		oracle = "stochastic"
	}
	if *flags.method != methodPenalty {
		var ok bool
		if settings.Oracle, ok = chooseOracle(oracle, m, prog, *flags.allowBias, quiet, r.sources, r.stderr); !ok {
			return nil, exitInvalid
		}
	}
	if settings.Oracle != solve.Stochastic {
		prob.Sampler = nil
	}
	var rec recorders
	if !quiet {
		pr := newProgress(r.stderr, prog)
		pr.note = monitorNote(prob, prog)
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
	res, rep, err := minimize(*flags.method, prob, m, x0, settings, r.stderr)
	if err != nil {
		fmt.Fprintf(r.stderr, "qrc %s: %v\n", r.name, err)
		return nil, exitUsage
	}
	rec.finish()
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

// chooseOracle resolves --oracle: auto picks the stochastic oracle when the
// data means are large (autoStochasticRows) and unbiased, and says which it
// picked on stderr (quiet silences only the note that it picked the
// deterministic one, the usual case). The stochastic oracle refuses a model
// with biased means unless allowBiased, printing each with its position.
func chooseOracle(flag string, m *check.Model, prog *autodiff.Program, allowBiased, quiet bool, sources check.Sources, stderr io.Writer) (solve.Oracle, bool) {
	biased := problem.Biased(m, prog)
	rows := problem.SampledRows(prog)
	switch flag {
	case "deterministic":
		return solve.Switching, true
	case "auto":
		switch {
		case rows < autoStochasticRows:
			if !quiet {
				fmt.Fprintf(stderr, "qrc solve: oracle deterministic (auto: the data means run over %d rows, fewer than %d)\n", rows, autoStochasticRows)
			}
			return solve.Switching, true
		case len(biased) > 0 && !allowBiased:
			fmt.Fprintf(stderr, "qrc solve: oracle deterministic (auto): the data means run over %d rows, but a minibatch estimate of %s is biased (qrc check lists why)\n", rows, biased[0].Function)
			return solve.Switching, true
		}
		fmt.Fprintf(stderr, "qrc solve: oracle stochastic (auto: the data means run over %d rows, at least %d)\n", rows, autoStochasticRows)
		return solve.Stochastic, true
	}
	if len(biased) > 0 && !allowBiased {
		for _, b := range biased {
			d := diag.Diagnostic{Pos: b.Mean.Src().Pos(), Msg: fmt.Sprintf("%s: this mean over data rows is %s (%s); a minibatch estimate of %s is biased, so the stochastic oracle refuses it (use --oracle deterministic, or --allow-biased to sample it anyway)",
				b.Function, b.Why, b.Context.Pos(), b.Function)}
			diag.List{&d}.Print(stderr, sources)
		}
		return solve.Stochastic, false
	}
	return solve.Stochastic, true
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
	}
	if s.Oracle == solve.Stochastic {
		r.Settings.V, r.Settings.Alpha = s.Algorithm3(res.Inner)
		if sm, ok := prob.Sampler.(*problem.Sampler); ok {
			r.Settings.Batch = slices.Max(sm.Batches())
			r.Settings.MonitorRows = slices.Max(sm.MonitorRows())
		}
	}
	if c := res.Certificate; c != nil {
		r.Stationarity, r.KKTResidual, r.Stationary = &c.Dist, &c.KKTResidual, c.Stationary
		r.CertificateInner = c.Inner
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
	if r.Stationarity != nil {
		verdict := "nearly stationary (Definition 2)"
		if !r.Stationary {
			verdict = "not yet within eps of stationary; more --inner iterations tighten it"
		}
		fmt.Fprintf(w, "stationarity   ||x - x_hat|| = %s, KKT residual %s: %s\n", num(*r.Stationarity), num(*r.KKTResidual), verdict)
	}
	if len(r.Violated) > 0 {
		fmt.Fprintf(w, "violated       %s\n", strings.Join(r.Violated, ", "))
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
			if c.Value > r.Settings.Eps {
				mark = "  VIOLATED"
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
		case v.Size <= 10:
			parts := make([]string, len(xv))
			for i, e := range xv {
				parts[i] = num(e)
			}
			fmt.Fprintf(w, "%s = [%s]\n", v.Name, strings.Join(parts, ", "))
		default:
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, e := range xv {
				lo, hi = math.Min(lo, e), math.Max(hi, e)
			}
			fmt.Fprintf(w, "%s: %s, min %s, max %s, norm %s (all values: --json or --out)\n", v.Name, v.Shape, num(lo), num(hi), num(norm2(xv)))
		}
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
