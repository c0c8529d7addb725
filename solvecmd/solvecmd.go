// Package solvecmd is qrc solve's command line over the library: the
// flags, their mapping to the library's solve options, the output files
// (--out, --trace, --checkpoint) and the report on standard output, shared
// by cmd/qrc (solve, sweep), cmd/qrc-beam and the REPL's :solve. It is
// not a kernel, so it lives outside internal/ (which holds only the
// code every layer shares: evaluation kernels, test helpers).
package solvecmd

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
	"strings"
	"time"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/point"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/solve"
)

// The exit codes of qrc solve.
const (
	ExitOK          = 0   // a feasible point was returned
	ExitInvalid     = 1   // the model, data or start file has errors
	ExitUsage       = 2   // bad command line, or an output file cannot be written
	ExitInfeasible  = 3   // phase 1 found no feasible point
	ExitNumerical   = 4   // evaluation failed (NaN, log of a negative number ...)
	ExitUnbounded   = 5   // the objective is unbounded below on the feasible set
	ExitInterrupted = 130 // stopped by Ctrl-C, after printing the result
)

// PrintEvalError prints an evaluation failure: an *autodiff.EvalError as
// file:line:col: message with the source line and a caret, anything else
// after the command's name.
func PrintEvalError(w io.Writer, name string, err error, sources check.Sources) {
	var ee *autodiff.EvalError
	if errors.As(err, &ee) && ee.Pos.Line > 0 {
		diag.Render(w, DiagToFlags(&diag.Diagnostic{Pos: ee.Pos, Msg: ee.Msg}), sources[ee.Pos.Filename])
		return
	}
	fmt.Fprintf(w, "qrc %s: %s\n", name, ToFlags(err.Error()))
}

// iqrcOnlyFlags are the qrc solve flags that mean nothing to the penalty
// method.
var iqrcOnlyFlags = []string{"rho-hat", "rho", "inner", "pick", "seed", "oracle", "batch", "allow-biased", "v", "alpha", "sample", "sample-growth", "sample-rounds"}

// checkMethod says why the method, or the flags given with it (oracle is
// the value of --oracle), do not fit, or returns nil; whether a method and
// an oracle go together is the library's rule (qrc.CheckMethodOracle).
func checkMethod(method, oracle string, given func(string) bool) error {
	m, err := qrc.MethodNamed(method)
	if err != nil {
		return err
	}
	if method == "penalty" {
		for _, f := range iqrcOnlyFlags {
			if given(f) {
				return fmt.Errorf("--%s is a setting of --method iqrc; the penalty method does not use it", f)
			}
		}
	}
	if o, ok := solve.OracleNamed(oracle); ok && given("oracle") {
		if qrc.CheckMethodOracle(m, o) != nil { // the message in the user's words (--oracle deterministic)
			return fmt.Errorf("--method %s is IQRC with --oracle %s; it does not go with --oracle %s", method, method, oracle)
		}
	}
	return nil
}

// Flags are the flags of qrc solve, each field the value of the flag of
// that name (--json, --out, ..., --restarts) on FS. The REPL's :solve
// parses its flags with them too.
type Flags struct {
	FS              *flag.FlagSet
	JSON            *bool
	Out             *string
	Trace           *string
	Checkpoint      *string
	CheckpointEvery *time.Duration
	Quiet           *bool
	Start           *string
	RhoHat          *float64
	Rho             *float64
	Eps             *float64
	Inner           *int
	Outer           *int
	TimeLimit       *time.Duration
	Pick            *string
	Seed            *uint64
	Oracle          *string
	Batch           *int
	AllowBiased     *bool
	V               *float64
	Alpha           *float64
	Method          *string
	Theory          *bool
	Sigma           *float64
	Restarts        *int
	Starts          *int
	Sample          *int
	SampleGrowth    *int
	SampleRounds    *int
}

// RegisterFlags adds the solver's flags to fs.
func RegisterFlags(fs *flag.FlagSet) *Flags {
	return &Flags{
		FS:              fs,
		JSON:            fs.Bool("json", false, ""),
		Out:             fs.String("out", "", ""),
		Trace:           fs.String("trace", "", ""),
		Checkpoint:      fs.String("checkpoint", "", ""),
		CheckpointEvery: fs.Duration("checkpoint-every", defaultCheckpointEvery, ""),
		Quiet:           fs.Bool("quiet", false, ""),
		Start:           fs.String("start", "", ""),
		RhoHat:          fs.Float64("rho-hat", 0, ""),
		Rho:             fs.Float64("rho", 0, ""),
		Eps:             fs.Float64("eps", 0, ""),
		Inner:           fs.Int("inner", 0, ""),
		Outer:           fs.Int("outer", 0, ""),
		TimeLimit:       DurationFlag(fs, "time-limit"),
		Pick:            fs.String("pick", "last", ""),
		Seed:            fs.Uint64("seed", 1, ""),
		Oracle:          fs.String("oracle", "auto", ""),
		Batch:           fs.Int("batch", problem.DefaultBatch, ""),
		AllowBiased:     fs.Bool("allow-biased", false, ""),
		V:               fs.Float64("v", 0, ""),
		Alpha:           fs.Float64("alpha", 0, ""),
		Method:          fs.String("method", qrc.IQRC.Name(), ""),
		Theory:          fs.Bool("theory", false, ""),
		Sigma:           fs.Float64("sigma", 1, ""),
		Restarts:        fs.Int("restarts", solve.DefaultRestarts, ""),
		Starts:          fs.Int("starts", 1, ""),
		Sample:          fs.Int("sample", solve.DynamicStartRows, ""),
		SampleGrowth:    fs.Int("sample-growth", solve.DynamicGrowth, ""),
		SampleRounds:    fs.Int("sample-rounds", solve.DynamicRounds, ""),
	}
}

// Options checks the parsed flags and returns the library's options they
// give, one field a flag (without the start, which --start names and Run
// reads, and the recorders and notes, which are the run's).
func (f *Flags) Options() (qrc.Options, error) {
	opts := qrc.DefaultOptions()
	switch *f.Pick {
	case "last":
		opts.Pick = solve.PickLast
	case "random":
		opts.Pick = solve.PickRandom
	default:
		return opts, fmt.Errorf("--pick must be last or random, not %q", *f.Pick)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"rho-hat", *f.RhoHat}, {"rho", *f.Rho}, {"eps", *f.Eps}} {
		if c.v < 0 || math.IsNaN(c.v) || (Given(f.FS, c.name) && c.v == 0 && c.name != "rho") {
			return opts, fmt.Errorf("--%s must be positive", c.name)
		}
	}
	if _, ok := solve.OracleNamed(*f.Oracle); !ok && *f.Oracle != "auto" {
		return opts, fmt.Errorf("--oracle must be auto, smooth, bundle, smoothed, dual, prox, epigraph, dynamic, switching or stochastic, not %q", *f.Oracle)
	}
	if *f.Batch <= 0 {
		return opts, errors.New("--batch must be at least 1")
	}
	if *f.Sample <= 0 || *f.SampleGrowth < 2 {
		return opts, errors.New("--sample must be at least 1 and --sample-growth at least 2")
	}
	opts.SampleStart, opts.SampleGrowth = *f.Sample, *f.SampleGrowth
	if *f.SampleRounds < 0 {
		return opts, errors.New("--sample-rounds must be at least 0")
	}
	opts.SampleRounds = *f.SampleRounds
	switch {
	case !Given(f.FS, "sample-rounds"):
		opts.SampleRounds = 0 // the default: DynamicRounds to DynamicMaxRounds
	case *f.SampleRounds == 0:
		opts.SampleRounds = -1 // growing samples, no control variates
	}
	if *f.V < 0 || *f.Alpha < 0 || math.IsNaN(*f.V) || math.IsNaN(*f.Alpha) {
		return opts, errors.New("--v and --alpha must be positive")
	}
	opts.V, opts.Alpha = *f.V, *f.Alpha
	if !(*f.Sigma > 0) || math.IsInf(*f.Sigma, 1) {
		return opts, errors.New("--sigma must be positive")
	}
	if *f.CheckpointEvery <= 0 {
		return opts, errors.New("--checkpoint-every must be positive")
	}
	if *f.Inner < 0 || *f.Outer < 0 || *f.TimeLimit < 0 || *f.Restarts < 0 {
		return opts, errors.New("--inner, --outer, --time-limit and --restarts must not be negative")
	}
	if *f.Starts < 1 || *f.Starts > qrc.MaxStarts {
		return opts, fmt.Errorf("--starts must be between 1 and %d", qrc.MaxStarts)
	}
	if err := checkMethod(*f.Method, *f.Oracle, func(name string) bool { return Given(f.FS, name) }); err != nil {
		return opts, err
	}
	opts.Method, _ = qrc.MethodNamed(*f.Method)   // checked by checkMethod
	opts.Oracle, _ = solve.OracleNamed(*f.Oracle) // nil for auto
	opts.RhoHat, opts.Rho, opts.RhoSet, opts.Eps = *f.RhoHat, *f.Rho, Given(f.FS, "rho"), *f.Eps
	opts.Inner, opts.Outer, opts.TimeLimit, opts.Seed = *f.Inner, *f.Outer, *f.TimeLimit, *f.Seed
	opts.Batch, opts.AllowBiased, opts.Restarts, opts.Starts = *f.Batch, *f.AllowBiased, *f.Restarts, *f.Starts
	opts.Theory, opts.Sigma = *f.Theory, *f.Sigma
	return opts, nil
}

// Run is one solve of a compiled model, as qrc solve and the REPL's
// :solve do it: the flags mapped to the library's options, the output
// files (--out, --trace, --checkpoint), and the report.
type Run struct {
	Name     string // the command, for messages: "solve"
	Model    *qrc.Model
	X0       []float64 // the start unless --start
	Flags    *Flags
	Options  qrc.Options // from Flags.Options
	Ctx      context.Context
	Stdout   io.Writer
	Stderr   io.Writer
	Progress bool // the progress table (unless --quiet) and the oracle note
	HideTime bool // the report leaves out the time
}

// options are the library's solve options of the run: the flags'
// Options from x0, with the notes on stderr.
func (r *Run) options(x0 []float64, quiet bool) []qrc.SolveOption {
	o := r.Options
	o.Start = x0
	return []qrc.SolveOption{qrc.WithOptions(o), qrc.WithNotes(r.note(quiet))}
}

// note prints the solve's notes on stderr (the verbose ones unless quiet).
func (r *Run) note(quiet bool) func(qrc.Note) {
	return func(n qrc.Note) {
		if n.Verbose && quiet {
			return
		}
		n.Text = ToFlags(n.Text)
		switch n.Kind {
		case qrc.NoteMethod:
			fmt.Fprintln(r.Stderr, n.Text)
		case qrc.NoteRestart:
			fmt.Fprintf(r.Stderr, "qrc %s: %s\n", r.Name, n.Text)
		default:
			fmt.Fprintf(r.Stderr, "qrc solve: %s\n", n.Text)
		}
	}
}

// RandomStart is the --start value that asks for a random start
// (point.Random, seeded by --seed); a point file of that name is written
// ./random.
const RandomStart = "random"

// Solve solves and reports. It returns the report (nil when the solve could
// not start) and qrc solve's exit code.
func (r *Run) Solve() (*qrc.Report, int) {
	m, flags := r.Model.Checked(), r.Flags
	x0 := r.X0
	if *flags.Start == RandomStart {
		x0 = point.Random(m, *flags.Seed)
	} else if *flags.Start != "" {
		var err error
		if x0, err = point.ReadStart(*flags.Start, m); err != nil {
			fmt.Fprintln(r.Stderr, err)
			return nil, ExitInvalid
		}
	}
	quiet := *flags.Quiet || !r.Progress
	opts := r.options(x0, quiet)
	if !quiet {
		pr := qrc.NewPrinter(r.Stderr)
		pr.Prefix = "qrc solve: "
		opts = append(opts, qrc.WithRecorder(pr))
	}
	outs := &outputs{run: r}
	defer outs.abort()
	opts = append(opts, qrc.WithRecorder(outs))
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	report, err := r.Model.Solve(ctx, opts...)
	if err != nil {
		return nil, PrintSolveError(r.Stderr, r.Name, r.Model, err)
	}
	res := report.Result()
	report.Verdict = ToFlags(report.Verdict) // for --json and --out too
	if !quiet {
		printStages(r.Stderr, res.Stages)
	}
	// Output files that fail to be written are reported after the result,
	// which is printed anyway: a long solve is never lost.
	var outErrs []error
	if outs.ckpt != nil {
		if err := outs.ckpt.write(res.X); err != nil { // the point the result reports
			outErrs = append(outErrs, fmt.Errorf("--checkpoint: %v", err))
		}
	}
	if outs.traceErr != nil {
		outErrs = append(outErrs, outs.traceErr)
	} else if outs.trace != nil {
		if err := outs.trace.Commit(); err != nil {
			outErrs = append(outErrs, err)
		}
	}
	if *flags.Out != "" {
		var buf bytes.Buffer
		err := report.WriteJSON(&buf)
		if err == nil {
			err = fileio.WriteFile(*flags.Out, buf.Bytes(), 0o644, *flags.Start)
		}
		if err != nil {
			outErrs = append(outErrs, err)
		}
	}
	defer func() {
		for _, err := range outErrs {
			fmt.Fprintf(r.Stderr, "qrc %s: %v (the result above is complete)\n", r.Name, err)
		}
	}()
	if res.Status == solve.NumericalError && res.Err != nil {
		PrintEvalError(r.Stderr, r.Name, res.Err, r.Model.Sources())
	}
	if *flags.JSON {
		if err := report.WriteJSON(r.Stdout); err != nil {
			// an output that could not be written, as for --out: exit 2,
			// whatever the status (a numerical error is exit 4 only when
			// the result could be given)
			fmt.Fprintf(r.Stderr, "qrc %s: writing the result to standard output: %v\n", r.Name, err)
			return report, ExitUsage
		}
	} else {
		report.WriteText(r.Stdout, qrc.TextOptions{NoTime: r.HideTime, Names: ToFlags})
	}
	if len(outErrs) > 0 {
		return report, ExitUsage
	}
	return report, StatusExit(res.Status, report.Success)
}

// StatusExit is qrc solve's exit code for a solve that ended with status
// st; feasible reports whether the returned point is feasible
// (Report.Success). The --help text and docs/cli.md are checked against
// it for every status (cmd/qrc's TestExitCodesDocumented).
func StatusExit(st solve.Status, feasible bool) int {
	switch st {
	case solve.Infeasible:
		return ExitInfeasible
	case solve.NumericalError:
		return ExitNumerical
	case solve.Unbounded:
		return ExitUnbounded
	case solve.Interrupted:
		return ExitInterrupted
	case solve.TimeLimit:
		if !feasible { // the limit ended phase 1: no feasible point
			return ExitInfeasible
		}
	}
	return ExitOK
}

// PrintSolveError prints why a solve could not start, the options it
// names as flags (ToFlags), and returns the exit code: 1 when the oracle
// refuses the model, else 2.
func PrintSolveError(stderr io.Writer, name string, model *qrc.Model, err error) int {
	var refused *qrc.RefusalError
	switch {
	case errors.As(err, &refused) && len(refused.Diagnostics) > 0:
		PrintDiags(stderr, refused.Diagnostics, model.Sources())
		return ExitInvalid
	case errors.As(err, &refused):
		fmt.Fprintf(stderr, "qrc solve: %s\n", ToFlags(refused.Msg))
		return ExitInvalid
	}
	fmt.Fprintf(stderr, "qrc %s: %s\n", name, ToFlags(err.Error()))
	return ExitUsage
}

// outputs is the Recorder of the output files: when the solve starts
// (after the oracle's choice and its notes) it checks --out, --trace and
// --checkpoint and creates the trace; it then writes the trace and the
// checkpoints.
type outputs struct {
	run      *Run
	trace    *fileio.File
	tw       *qrc.TraceWriter
	traceErr error // the trace's write failed: it was dropped
	ckpt     *checkpointer
}

// Init checks the output files and creates the trace.
func (o *outputs) Init(run qrc.Run) error {
	r := o.run
	if err := r.checkOutputs(); err != nil {
		return err
	}
	if *r.Flags.Trace != "" {
		f, err := fileio.Create(*r.Flags.Trace, 0o644)
		if err != nil {
			return err
		}
		o.trace, o.tw = f, qrc.NewTraceWriter(f)
		if err := o.tw.Init(run); err != nil {
			o.dropTrace(err)
		}
	}
	if *r.Flags.Checkpoint != "" {
		o.ckpt = &checkpointer{path: *r.Flags.Checkpoint, m: r.Model.Checked(), every: *r.Flags.CheckpointEvery, stderr: r.Stderr, name: r.Name, start: *r.Flags.Start}
	}
	return nil
}

// Record writes the trace's row and, when due, the checkpoint. A trace
// that cannot be written (a full disk) is dropped, its target left as it
// was, and reported after the result: the solve goes on.
func (o *outputs) Record(it qrc.Iteration) error {
	if o.tw != nil {
		if err := o.tw.Record(it); err != nil {
			o.dropTrace(err)
		}
	}
	if o.ckpt != nil {
		return o.ckpt.Record(it.Iteration)
	}
	return nil
}

// dropTrace stops writing the trace after err, removing its temporary
// file; Solve reports err after the result.
func (o *outputs) dropTrace(err error) {
	o.trace.Abort()
	o.tw, o.traceErr = nil, fmt.Errorf("--trace: %v (the trace was not written)", err)
	fmt.Fprintf(o.run.Stderr, "qrc %s: %v; the solve goes on\n", o.run.Name, o.traceErr)
}

// Finish does nothing: Solve commits the trace and writes the last
// checkpoint at the returned point.
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
func (r *Run) checkOutputs() error {
	outs := []struct{ flag, path string }{{"--out", *r.Flags.Out}, {"--trace", *r.Flags.Trace}, {"--checkpoint", *r.Flags.Checkpoint}}
	var inputs []struct{ what, path string }
	if r.Name == "solve" { // the REPL's model is the session, its files are in sources
		inputs = append(inputs, struct{ what, path string }{"the model", r.Model.File()})
	}
	for _, name := range slices.Sorted(maps.Keys(r.Model.Sources())) {
		// the model files read (the REPL's loaded files among them)
		if info, err := os.Stat(name); err == nil && info.Mode().IsRegular() {
			inputs = append(inputs, struct{ what, path string }{"the model file " + name, name})
		}
	}
	for _, d := range r.Model.Checked().Data {
		inputs = append(inputs, struct{ what, path string }{"data set " + d.Name + "'s file", d.Path})
	}
	if *r.Flags.Start != "" && *r.Flags.Start != RandomStart {
		// --out may replace the start it resumes from (read already);
		// a trace never should
		inputs = append(inputs, struct{ what, path string }{"the --start file", *r.Flags.Start})
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
			var mayReplace []string // --out and --checkpoint may replace the --start file they resume from
			if o.flag != "--trace" {
				mayReplace = append(mayReplace, *r.Flags.Start)
			}
			if err := fileio.CheckWritable(o.path, mayReplace...); err != nil {
				return fmt.Errorf("%s: %v", o.flag, err)
			}
		}
	}
	return nil
}

// Given reports whether flag name was given on the command line.
func Given(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// seconds is a time.Duration flag that also takes a bare number of
// seconds: --time-limit 10 is ten seconds, as are 10s and 0.5m/30s.
type seconds struct{ d *time.Duration }

// String is the duration.
func (s seconds) String() string {
	if s.d == nil {
		return "0s"
	}
	return s.d.String()
}

// Set parses a number of seconds or a duration.
func (s seconds) Set(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f < 0 || math.IsNaN(f) || f > math.MaxInt64/float64(time.Second) {
			return fmt.Errorf("%q is not a number of seconds from 0 up", v)
		}
		d := time.Duration(f * float64(time.Second))
		if f > 0 && d == 0 {
			return fmt.Errorf("%q is below the clock's resolution of 1ns (0 means no limit)", v)
		}
		*s.d = d
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is neither a number of seconds nor a duration such as 30s or 2m", v)
	}
	if d == 0 && strings.ContainsAny(v, "123456789") {
		return fmt.Errorf("%q is below the clock's resolution of 1ns (0 means no limit)", v)
	}
	*s.d = d
	return nil
}

// DurationFlag defines a seconds flag on fs.
func DurationFlag(fs *flag.FlagSet, name string) *time.Duration {
	d := new(time.Duration)
	fs.Var(seconds{d}, name, "")
	return d
}

// ParseArgs parses and checks solver flags as qrc solve takes them, without
// the model file (the REPL's :solve and :set): a bad flag or value is an
// error saying which.
func ParseArgs(args []string) (*Flags, qrc.Options, error) {
	fs := flag.NewFlagSet("solve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	f := RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, qrc.Options{}, err
	}
	if fs.NArg() > 0 {
		return nil, qrc.Options{}, fmt.Errorf("unexpected argument %q (the model is the session's)", fs.Arg(0))
	}
	opts, err := f.Options()
	return f, opts, err
}

// FlagNames lists the solver's flags, without dashes.
func FlagNames() []string {
	fs := flag.NewFlagSet("solve", flag.ContinueOnError)
	RegisterFlags(fs)
	var out []string
	fs.VisitAll(func(f *flag.Flag) { out = append(out, f.Name) })
	return out
}
