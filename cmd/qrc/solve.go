package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/point"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/solve"
)

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
                     data means), or auto (the default): stochastic when the
                     data means run over at least 50000 rows in all and can
                     be estimated without bias, else smooth for a
                     differentiable model and bundle for one with a kink
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
		return settings, fmt.Errorf("--oracle must be auto, smooth, bundle, switching or stochastic, not %q", *f.oracle)
	}
	if *f.batch <= 0 {
		return settings, errors.New("--batch must be at least 1")
	}
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
	model, ok := loadModel("solve", file, &mf, !*flags.asJSON, stderr)
	if !ok {
		return exitInvalid
	}

	ctx, release := notifyStop()
	defer release()
	run := &solveRun{name: "solve", model: model, x0: model.Start(),
		flags: flags, settings: settings, ctx: ctx, stdout: stdout, stderr: stderr, progress: true}
	_, code := run.run()
	return code
}

// solveRun is one solve of a compiled model, as qrc solve and the REPL's
// :solve do it: the flags mapped to the library's options, the output
// files (--out, --trace, --checkpoint), and the report.
type solveRun struct {
	name     string // the command, for messages: "solve"
	model    *qrc.Model
	x0       []float64 // the start unless --start
	flags    *solveFlags
	settings solve.Settings // from flags.settings
	ctx      context.Context
	stdout   io.Writer
	stderr   io.Writer
	progress bool // the progress table (unless --quiet) and the oracle note
	hideTime bool // the report leaves out the time
}

// options maps the flags to the library's solve options.
func (r *solveRun) options(x0 []float64, quiet bool) []qrc.SolveOption {
	f := r.flags
	method, _ := qrc.MethodNamed(*f.method) // checked by settings
	opts := []qrc.SolveOption{qrc.WithMethod(method), qrc.WithSettings(r.settings), qrc.WithSeed(*f.seed), qrc.WithBatch(*f.batch),
		qrc.WithRestarts(*f.restarts), qrc.WithStart(x0), qrc.WithNotes(r.note(quiet))}
	if o, ok := solve.OracleNamed(*f.oracle); ok {
		opts = append(opts, qrc.WithOracle(o))
	}
	if set(f.fs, "rho") {
		opts = append(opts, qrc.WithRho(*f.rho))
	}
	if set(f.fs, "rho-hat") {
		opts = append(opts, qrc.WithRhoHat(*f.rhoHat))
	}
	if *f.allowBias {
		opts = append(opts, qrc.WithAllowBiased())
	}
	if *f.theory {
		opts = append(opts, qrc.WithTheory(*f.sigma))
	}
	return opts
}

// note prints the solve's notes on stderr (the verbose ones unless quiet).
func (r *solveRun) note(quiet bool) func(qrc.Note) {
	return func(n qrc.Note) {
		if n.Verbose && quiet {
			return
		}
		switch n.Kind {
		case qrc.NoteMethod:
			fmt.Fprintln(r.stderr, n.Text)
		case qrc.NoteRestart:
			fmt.Fprintf(r.stderr, "qrc %s: %s\n", r.name, n.Text)
		default:
			fmt.Fprintf(r.stderr, "qrc solve: %s\n", n.Text)
		}
	}
}

// run solves and reports. It returns the report (nil when the solve could
// not start) and qrc solve's exit code.
func (r *solveRun) run() (*qrc.Report, int) {
	m, flags := r.model.Checked(), r.flags
	x0 := r.x0
	if *flags.startFile != "" {
		var err error
		if x0, err = point.ReadStart(*flags.startFile, m); err != nil {
			fmt.Fprintln(r.stderr, err)
			return nil, exitInvalid
		}
	}
	quiet := *flags.quiet || !r.progress
	opts := r.options(x0, quiet)
	if !quiet {
		pr := qrc.NewPrinter(r.stderr)
		pr.Prefix = "qrc solve: "
		opts = append(opts, qrc.WithRecorder(pr))
	}
	outs := &outputs{run: r}
	defer outs.abort()
	opts = append(opts, qrc.WithRecorder(outs))
	ctx := r.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	report, err := r.model.Solve(ctx, opts...)
	if err != nil {
		return nil, printSolveError(r.stderr, r.name, r.model, err)
	}
	res := report.Result()
	if outs.ckpt != nil {
		outs.ckpt.write(res.X) // the point the result reports
	}
	// Output files that fail to be written are reported after the result,
	// which is printed anyway: a long solve is never lost.
	var outErrs []error
	if outs.trace != nil {
		if err := outs.trace.Commit(); err != nil {
			outErrs = append(outErrs, err)
		}
	}
	if *flags.out != "" {
		var buf bytes.Buffer
		err := report.WriteJSON(&buf)
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
		printEvalError(r.stderr, r.name, res.Err, r.model.Sources())
	}
	if *flags.asJSON {
		if err := report.WriteJSON(r.stdout); err != nil {
			fmt.Fprintf(r.stderr, "qrc %s: %v\n", r.name, err)
			return report, exitNumerical
		}
	} else {
		report.WriteText(r.stdout, qrc.TextOptions{NoTime: r.hideTime})
	}
	if len(outErrs) > 0 {
		return report, exitUsage
	}
	switch res.Status {
	case solve.Infeasible:
		return report, exitInfeasible
	case solve.NumericalError:
		return report, exitNumerical
	case solve.Interrupted:
		return report, exitInterrupted
	}
	return report, exitOK
}

// printSolveError prints why a solve could not start and returns the exit
// code: 1 when the oracle refuses the model, else 2.
func printSolveError(stderr io.Writer, name string, model *qrc.Model, err error) int {
	var refused *qrc.RefusalError
	switch {
	case errors.As(err, &refused) && len(refused.Diagnostics) > 0:
		refused.Diagnostics.Print(stderr, model.Sources())
		return exitInvalid
	case errors.As(err, &refused):
		fmt.Fprintf(stderr, "qrc solve: %s\n", refused.Msg)
		return exitInvalid
	}
	fmt.Fprintf(stderr, "qrc %s: %v\n", name, err)
	return exitUsage
}

// outputs is the Recorder of the output files: when the solve starts
// (after the oracle's choice and its notes) it checks --out, --trace and
// --checkpoint and creates the trace; it then writes the trace and the
// checkpoints.
type outputs struct {
	run   *solveRun
	trace *fileio.File
	tw    *qrc.TraceWriter
	ckpt  *checkpointer
}

func (o *outputs) Init(run qrc.Run) error {
	r := o.run
	if err := r.checkOutputs(); err != nil {
		return err
	}
	if *r.flags.trace != "" {
		f, err := fileio.Create(*r.flags.trace, 0o644)
		if err != nil {
			return err
		}
		o.trace, o.tw = f, qrc.NewTraceWriter(f)
		if err := o.tw.Init(run); err != nil {
			return err
		}
	}
	if *r.flags.ckpt != "" {
		o.ckpt = &checkpointer{path: *r.flags.ckpt, m: r.model.Checked(), every: *r.flags.ckptEvery, stderr: r.stderr, name: r.name}
	}
	return nil
}

func (o *outputs) Record(it qrc.Iteration) error {
	if o.tw != nil {
		if err := o.tw.Record(it); err != nil {
			return err
		}
	}
	if o.ckpt != nil {
		return o.ckpt.Record(it.Iteration)
	}
	return nil
}

func (o *outputs) Finish() {}

// abort removes the trace unless it was committed.
func (o *outputs) abort() {
	if o.trace != nil {
		o.trace.Abort()
	}
}

// checkOutputs refuses --out and --trace when they name an input (the
// model, a data file, the --start file for --trace) or each other, and
// when they cannot be written, before a long solve rather than after it.
func (r *solveRun) checkOutputs() error {
	outs := []struct{ flag, path string }{{"--out", *r.flags.out}, {"--trace", *r.flags.trace}, {"--checkpoint", *r.flags.ckpt}}
	var inputs []struct{ what, path string }
	if r.name == "solve" { // the REPL's model is the session, its files are in sources
		inputs = append(inputs, struct{ what, path string }{"the model", r.model.File()})
	}
	for _, name := range slices.Sorted(maps.Keys(r.model.Sources())) {
		// the model files read (the REPL's loaded files among them)
		if info, err := os.Stat(name); err == nil && info.Mode().IsRegular() {
			inputs = append(inputs, struct{ what, path string }{"the model file " + name, name})
		}
	}
	for _, d := range r.model.Checked().Data {
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
