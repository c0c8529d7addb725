package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/point"
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
whose strongly convex subproblems are solved by the switching subgradient
method. When the starting point is infeasible, a phase 1 first minimises
the largest constraint violation. The result reports the status, objective,
infeasibility, a stationarity certificate (the distance to the exact
proximal point and a KKT residual), every constraint with its slack and
multiplier, and the variables. See docs/solver.md for the method and
docs/cli.md for the JSON result.

While it runs, a progress table goes to standard error (a live line on a
terminal; nothing with --quiet). Ctrl-C stops the solve after the current
inner step and prints the best point so far.

Exit status: 0 a feasible point was returned; 1 the model, data or start
file has errors; 2 bad command line; 3 infeasible (no feasible point found);
4 numerical error (the message names the expression); 130 interrupted.

Flags:
  --method M         iqrc (default) or penalty: the exact penalty
                     trust-region method of Cartis, Gould & Toint (2011),
                     the paper's baseline (docs/penalty.md); it uses --eps,
                     --outer (its iteration limit), --time-limit, --start
  --rho-hat R        the proximal parameter (default 1, the paper's); it is
                     doubled automatically when a subproblem turns out not
                     to be convex
  --rho R            the weak-convexity modulus, < rho-hat (default rho-hat/2)
  --eps E            target accuracy: feasibility and stationarity (default 1e-3)
  --inner K          inner (switching subgradient) iterations per outer step
  --outer T          most outer iterations
  --time-limit D     stop after this long, e.g. 30s, 2m (default none)
  --pick last|random return the last outer iterate (default) or x_R with R
                     uniform, as in Algorithm 1
  --seed S           the seed for --pick random (default 1)
  --start FILE       start from the point in FILE (a result written by
                     --out or --json, or any point file; see docs/cli.md)
  --json             print the result as one JSON object on standard output
  --out FILE         also write the full result as JSON to FILE
  --trace FILE       write one CSV row per outer iteration to FILE
  --quiet            no progress table
` + modelFlagsUsage,
}

func init() { solveCommand.run = runSolve }

// solveResult is the JSON result of qrc solve (docs/cli.md).
type solveResult struct {
	File            string            `json:"file"`
	Method          string            `json:"method"` // iqrc or penalty
	Status          string            `json:"status"`
	Success         bool              `json:"success"`
	Objective       float64           `json:"objective"`
	Infeasibility   float64           `json:"infeasibility"`
	Stationarity    *float64          `json:"stationarity"`
	KKTResidual     *float64          `json:"kkt_residual"`
	Stationary      bool              `json:"stationary"` // ||x - x_hat|| <= eps and feasible (Definition 2)
	Constraints     []solveConstraint `json:"constraints"`
	Variables       point.Variables   `json:"variables"`
	Best            *solvePoint       `json:"best"`
	MostFeasible    *solvePoint       `json:"most_feasible"`
	Violated        []string          `json:"violated,omitempty"`
	Error           string            `json:"error,omitempty"`
	OuterIterations int               `json:"outer_iterations"`
	InnerIterations int               `json:"inner_iterations"`
	Phase1Outer     int               `json:"phase1_outer_iterations"`
	RhoDoublings    int               `json:"rho_doublings"`
	InnerDoublings  int               `json:"inner_doublings"` // Inner doubled because the iterates stalled short of stationarity
	Seconds         float64           `json:"seconds"`
	Settings        solveSettings     `json:"settings"`
	Penalty         *penaltyJSON      `json:"penalty,omitempty"` // the penalty method's parameters and final state
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
	Inner            int     `json:"inner"`
	Outer            int     `json:"outer"`
	TimeLimitSeconds float64 `json:"time_limit_seconds"`
	Pick             string  `json:"pick"`
	Seed             uint64  `json:"seed"`
}

func runSolve(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("solve", solveCommand.usage, stderr)
	var (
		asJSON    = fs.Bool("json", false, "")
		out       = fs.String("out", "", "")
		trace     = fs.String("trace", "", "")
		quiet     = fs.Bool("quiet", false, "")
		startFile = fs.String("start", "", "")
		rhoHat    = fs.Float64("rho-hat", 0, "")
		rho       = fs.Float64("rho", 0, "")
		eps       = fs.Float64("eps", 0, "")
		inner     = fs.Int("inner", 0, "")
		outer     = fs.Int("outer", 0, "")
		timeLimit = fs.Duration("time-limit", 0, "")
		pick      = fs.String("pick", "last", "")
		seed      = fs.Uint64("seed", 1, "")
		method    = fs.String("method", methodIQRC, "")
		mf        modelFlags
	)
	mf.register(fs)
	file, ok := modelFile(fs, "solve", args, stderr)
	if !ok {
		return exitUsage
	}
	var settings solve.Settings
	switch *pick {
	case "last":
		settings.Pick = solve.PickLast
	case "random":
		settings.Pick = solve.PickRandom
	default:
		fmt.Fprintf(stderr, "qrc solve: --pick must be last or random, not %q\n", *pick)
		return exitUsage
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"rho-hat", *rhoHat}, {"rho", *rho}, {"eps", *eps}} {
		if c.v < 0 || math.IsNaN(c.v) || (set(fs, c.name) && c.v == 0 && c.name != "rho") {
			fmt.Fprintf(stderr, "qrc solve: --%s must be positive\n", c.name)
			return exitUsage
		}
	}
	if *inner < 0 || *outer < 0 || *timeLimit < 0 {
		fmt.Fprintln(stderr, "qrc solve: --inner, --outer and --time-limit must not be negative")
		return exitUsage
	}
	if !checkMethod("solve", *method, func(f string) bool { return set(fs, f) }, stderr) {
		return exitUsage
	}
	settings.RhoHat, settings.Rho, settings.Eps = *rhoHat, *rho, *eps
	settings.Inner, settings.Outer, settings.TimeLimit, settings.Seed = *inner, *outer, *timeLimit, *seed

	m, sources, prog, ok := loadProgram("solve", file, &mf, !*asJSON, stderr)
	if !ok {
		return exitInvalid
	}
	x0 := point.Start(m)
	if *startFile != "" {
		var err error
		if x0, err = point.Read(*startFile, m); err != nil {
			fmt.Fprintln(stderr, err)
			return exitInvalid
		}
		for _, v := range m.Vars {
			v.Domain.Project(x0[v.Offset : v.Offset+v.Size])
		}
	}

	var rec recorders
	if !*quiet {
		rec = append(rec, newProgress(stderr, prog))
	}
	if *trace != "" {
		f, err := os.Create(*trace)
		if err != nil {
			fmt.Fprintf(stderr, "qrc solve: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		rec = append(rec, newTraceWriter(f, prog))
	}
	if len(rec) > 0 {
		settings.Recorder = rec
	}

	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	go func() {
		if _, ok := <-sig; ok {
			close(stop)
		}
	}()
	settings.Stop = stop

	prob := problemOf(m, prog)
	began := time.Now()
	res, rep, err := minimize(*method, prob, m, x0, settings, stderr)
	signal.Stop(sig)
	close(sig)
	if err != nil {
		fmt.Fprintf(stderr, "qrc solve: %v\n", err)
		return exitUsage
	}
	if p, ok := settings.Recorder.(recorders); ok {
		p.finish()
	}
	result := resultOf(file, m, prog, res, settings, time.Since(began))
	result.describeMethod(*method, settings, rep)

	if *out != "" {
		data, err := json.MarshalIndent(result, "", "  ")
		if err == nil {
			err = os.WriteFile(*out, append(data, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "qrc solve: writing %s: %v\n", *out, err)
			return exitUsage
		}
	}
	if res.Status == solve.NumericalError && res.Err != nil {
		printEvalError(stderr, "solve", res.Err, sources)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(result); err != nil {
			fmt.Fprintf(stderr, "qrc solve: %v\n", err)
			return exitNumerical
		}
	} else {
		result.text(stdout, m, res.X)
	}
	switch res.Status {
	case solve.Infeasible:
		return exitInfeasible
	case solve.NumericalError:
		return exitNumerical
	case solve.Interrupted:
		return exitInterrupted
	}
	return exitOK
}

// set reports whether flag name was given on the command line.
func set(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// problemOf wraps a compiled model as a solver problem; X is the product
// of the variables' domains.
func problemOf(m *check.Model, prog *autodiff.Program) *solve.Problem {
	names := make([]string, len(m.Constraints))
	for i, c := range m.Constraints {
		names[i] = c.Name
	}
	vars := m.Vars
	return &solve.Problem{
		N:     prog.NumVars(),
		M:     len(m.Constraints),
		Eval:  prog.Eval,
		Grad:  prog.Gradient,
		Names: names,
		Project: func(x []float64) {
			for _, v := range vars {
				v.Domain.Project(x[v.Offset : v.Offset+v.Size])
			}
		},
	}
}

func resultOf(file string, m *check.Model, prog *autodiff.Program, res *solve.Result, s solve.Settings, elapsed time.Duration) *solveResult {
	// report the settings actually used
	start := s.RhoHat
	if d, err := s.WithDefaults(problemOf(m, prog)); err == nil {
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
		Variables:       point.Variables{Model: m, X: res.X},
		OuterIterations: res.Stats.Outer,
		InnerIterations: res.Stats.Inner,
		Phase1Outer:     res.Stats.Phase1Outer,
		RhoDoublings:    res.Stats.RhoDoublings,
		InnerDoublings:  res.Stats.InnerDoublings,
		Seconds:         elapsed.Seconds(),
		Settings: solveSettings{
			RhoHat: res.RhoHat, Rho: res.Rho, RhoHatStart: start, Eps: s.Eps, EpsHat: s.EpsHat,
			Inner: s.Inner, Outer: s.Outer, TimeLimitSeconds: s.TimeLimit.Seconds(), Seed: s.Seed,
			Pick: map[solve.Pick]string{solve.PickLast: "last", solve.PickRandom: "random"}[s.Pick],
		},
	}
	if c := res.Certificate; c != nil {
		r.Stationarity, r.KKTResidual, r.Stationary = &c.Dist, &c.KKTResidual, c.Stationary
	}
	if res.Err != nil {
		r.Error = res.Err.Error()
	}
	for i, c := range m.Constraints {
		k := solveConstraint{Name: c.Name, Value: res.F[i+1], RHS: constRHS(c), Slack: -res.F[i+1]}
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
	fmt.Fprintf(w, "\ntime           %.3gs\n", r.Seconds)
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
		xv := x[v.Offset : v.Offset+v.Size]
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
	w      io.Writer
	names  []string
	live   bool
	header bool
	last   time.Time
	line   string
}

func newProgress(w io.Writer, prog *autodiff.Program) *progress {
	p := &progress{w: w, names: functionNames(prog)}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.live = true
		}
	}
	return p
}

func (p *progress) Record(it solve.Iteration) error {
	if it.K > 0 { // inner records are for traces
		return nil
	}
	if !p.header {
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
