package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/point"
	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/solvecmd"
	"github.com/qrc-lang/qrc/trace"
)

// processStart is when qrc started (the fallback clock of cpuSeconds).
var processStart = time.Now()

var compareCommand = &command{
	name:    "compare",
	summary: "run several methods on a model: CSV traces, the paper's Figure 1, a summary",
	usage: `Usage: qrc compare [flags] MODEL.qrc

Compare runs each method on the same model (the same data and the same
start x0) for the same CPU time, one after the other, records the objective
and the infeasibility of its iterates against CPU time, and writes into the
--out directory

  METHOD.csv       one trace per method: for IQRC its outer iterates x_t
                   and every --record-every-th inner iterate z_k (the
                   paper's blue line); for the penalty method its iterates
  figure1.png/svg  the paper's Figure 1: objective against CPU seconds on
                   the left, infeasibility (log scale) on the right
  summary.txt      the table it also prints: each line's objective and
                   infeasibility at 25%, 50% and 100% of the time limit, and
                   the CPU time it took to get within 1% of the best
                   objective a feasible (infeasibility <= eps) iterate of
                   any method reached

Infeasibility is the paper's: max(max_i fi(x), the domain's violation, 0).
CPU time is the process's user plus system time (getrusage), so other work
on the machine does not count; see docs/experiments.md.

Flags:
  --methods LIST     comma-separated methods (default iqrc,penalty); the
                     methods are ` + strings.Join(qrc.MethodNames(), ", ") + `
  --time-limit D     CPU time per method (default 60s)
  --out DIR          the directory for the traces and the figure (required;
                     created if needed)
  --inner K          IQRC's inner iterations per outer step (default 1000)
  --rho-hat R        IQRC's proximal parameter (default 1)
  --eps E            accuracy for both methods, and the feasibility
                     threshold of the summary (default 1e-3)
  --record-every N   record every N-th inner iterate of IQRC (default
                     inner/20)
  --start FILE       start every method from the point in FILE (default:
                     the model's start)
  --title T          put T before the figure's panel titles
` + modelFlagsUsage,
}

func init() { compareCommand.run = runCompare }

// compareOptions are the settings every method of one comparison shares.
type compareOptions struct {
	methods     []string
	limit       time.Duration
	out         string
	options     qrc.Options // Inner, RhoHat, Eps, RecordEvery: the settings every method shares
	title       string
	model       *check.Model
	lib         *qrc.Model
	x0          []float64
	interrupted chan struct{} // closed by Ctrl-C
	finished    chan struct{} // closed when the runs are over
}

// parseMethods splits a --methods list and checks every name.
func parseMethods(list string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			return nil, fmt.Errorf("--methods %q has an empty name", list)
		case knownMethod(name) != nil:
			return nil, fmt.Errorf("--methods: %v", knownMethod(name))
		case slices.Contains(out, name):
			return nil, fmt.Errorf("method %q twice in --methods", name)
		}
		out = append(out, name)
	}
	return out, nil
}

func runCompare(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("compare", compareCommand.usage, stderr)
	var (
		methods   = fs.String("methods", methodIQRC+","+methodPenalty, "")
		timeLimit = solvecmd.DurationFlag(fs, "time-limit")
		out       = fs.String("out", "", "")
		inner     = fs.Int("inner", 0, "")
		rhoHat    = fs.Float64("rho-hat", 0, "")
		eps       = fs.Float64("eps", 0, "")
		every     = fs.Int("record-every", 0, "")
		startFile = fs.String("start", "", "")
		title     = fs.String("title", "", "")
		mf        modelFlags
	)
	*timeLimit = 60 * time.Second
	mf.register(fs)
	file, ok := modelFile(fs, "compare", args, stderr)
	if !ok {
		return exitUsage
	}
	list, err := parseMethods(*methods)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "qrc compare: %v\n", err)
		return exitUsage
	case *out == "":
		fmt.Fprintln(stderr, "qrc compare: --out DIR is required (the traces and the figure go there)")
		return exitUsage
	case *timeLimit <= 0:
		fmt.Fprintln(stderr, "qrc compare: --time-limit must be positive")
		return exitUsage
	case *inner < 0 || *inner == 1 || *every < 0:
		fmt.Fprintln(stderr, "qrc compare: --inner must be at least 2, and --record-every must not be negative")
		return exitUsage
	case !(*rhoHat > 0 || *rhoHat == 0 && !solvecmd.Given(fs, "rho-hat")) || !(*eps > 0 || *eps == 0 && !solvecmd.Given(fs, "eps")):
		fmt.Fprintln(stderr, "qrc compare: --rho-hat and --eps must be positive, as for qrc solve")
		return exitUsage
	}
	model, ok := loadModel("compare", file, &mf, true, stderr)
	if !ok {
		return exitInvalid
	}
	m := model.Checked()
	for _, name := range list {
		// what the library's solve would refuse, before any method runs
		opts := qrc.DefaultOptions()
		opts.Method, _ = qrc.MethodNamed(name) // checked by parseMethods
		if err := model.CheckOptions(opts); err != nil {
			solvecmd.PrintSolveError(stderr, "compare", model, err)
			return exitInvalid
		}
	}
	x0 := point.Start(m)
	if *startFile != "" {
		if x0, err = point.ReadStart(*startFile, m); err != nil {
			fmt.Fprintln(stderr, err)
			return exitInvalid
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "qrc compare: %v\n", err)
		return exitUsage
	}
	s := qrc.DefaultOptions()
	s.Inner, s.RhoHat, s.Eps, s.RecordEvery = *inner, *rhoHat, *eps, *every
	if s.Inner == 0 {
		s.Inner = solve.DefaultInner
	}
	if s.Eps == 0 {
		s.Eps = solve.DefaultEps
	}
	if s.RecordEvery == 0 {
		s.RecordEvery = max(1, s.Inner/20)
	}
	o := &compareOptions{methods: list, limit: *timeLimit, out: *out, options: s, title: *title, model: m, lib: model,
		x0: x0, interrupted: make(chan struct{}), finished: make(chan struct{})}

	ctx, release := solvecmd.NotifyStop("qrc")
	go func() {
		select {
		case <-ctx.Done():
			close(o.interrupted)
		case <-o.finished:
		}
	}()
	recs, err := o.run(stderr)
	close(o.finished)
	release()
	if err != nil {
		fmt.Fprintf(stderr, "qrc compare: %v\n", err)
		return exitUsage
	}
	lines := trace.Lines(recs)
	for _, ext := range []string{"png", "svg"} {
		if err := trace.DrawFile(filepath.Join(o.out, "figure1."+ext), lines, o.title); err != nil {
			fmt.Fprintf(stderr, "qrc compare: %v\n", err)
			return exitUsage
		}
	}
	var table strings.Builder
	writeSummary(&table, lines, o.limit, s.Eps)
	fmt.Fprint(stdout, table.String())
	if err := fileio.WriteFile(filepath.Join(o.out, "summary.txt"), []byte(table.String()), 0o644); err != nil {
		fmt.Fprintf(stderr, "qrc compare: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "qrc compare: wrote %s\n", strings.Join(o.outputs(), ", "))
	select {
	case <-o.interrupted:
		return exitInterrupted
	default:
	}
	return exitOK
}

// outputs lists the files compare writes.
func (o *compareOptions) outputs() []string {
	var out []string
	for _, name := range o.methods {
		out = append(out, filepath.Join(o.out, name+".csv"))
	}
	return append(out, filepath.Join(o.out, "figure1.png"), filepath.Join(o.out, "figure1.svg"), filepath.Join(o.out, "summary.txt"))
}

// run runs the methods one after the other, writing each one's CSV, and
// returns all the records.
func (o *compareOptions) run(stderr io.Writer) ([]trace.Record, error) {
	var all []trace.Record
	for _, name := range o.methods {
		select {
		case <-o.interrupted:
			return all, nil
		default:
		}
		path := filepath.Join(o.out, name+".csv")
		f, err := fileio.Create(path, 0o644)
		if err != nil {
			return nil, err
		}
		recs, err := o.runOne(name, f, stderr)
		if err == nil {
			err = f.Commit()
		} else {
			f.Abort()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		all = append(all, recs...)
	}
	return all, nil
}

// noBackstop is the CPU time limit from which a method gets no wall-clock
// backstop: 10 × the limit + 10 s would be a century or more (or overflow
// time.Duration, which was a negative limit and the solve's refusal).
const noBackstop = 10 * 365 * 24 * time.Hour

// backstop is the wall-clock limit of a method run for limit of CPU time:
// 10 × limit + 10 s, or none (0) from noBackstop on.
func backstop(limit time.Duration) time.Duration {
	if limit >= noBackstop {
		return 0
	}
	return 10*limit + 10*time.Second
}

// runOne runs one method for the time limit in CPU seconds, through the
// library's Model.Solve like qrc solve (the weak-convexity analysis, the
// oracle's choice, restarts), and writes its trace to w.
func (o *compareOptions) runOne(name string, w io.Writer, stderr io.Writer) ([]trace.Record, error) {
	rec := &compareRecorder{w: trace.NewWriter(w), m: o.model, method: name}
	method, err := qrc.MethodNamed(name)
	if err != nil {
		return nil, err
	}
	opts := o.options
	opts.Method = method
	if name == methodIQRC {
		opts.Oracle = solve.Switching // the paper's IQRC: Algorithm 2 as the oracle
	}
	opts.Outer = math.MaxInt32 // the time limit ends the run, or convergence
	opts.TimeLimit = backstop(o.limit)
	opts.Start = o.x0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// the start, at CPU time 0
	ev, err := o.lib.Eval(o.x0)
	if err != nil {
		return nil, fmt.Errorf("evaluating the start: %v", err)
	}
	inf := math.Max(ev.Infeasibility, maxDomainViolation(o.model, o.x0))
	runtime.GC()
	rec.wall0, rec.cpu0 = time.Now(), cpuSeconds()
	if err := rec.add(trace.Record{Series: trace.Outer, Objective: ev.Objective, Infeasibility: inf}); err != nil {
		return nil, err
	}

	// stop the method when its CPU time is used up, or on Ctrl-C
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-o.interrupted:
				cancel()
				return
			case <-tick.C:
				if cpuSeconds()-rec.cpu0 >= o.limit.Seconds() {
					cancel()
					return
				}
			}
		}
	})
	fmt.Fprintf(stderr, "qrc compare: running %s for %s of %s\n", name, o.limit, cpuClock)
	notes := func(n qrc.Note) {
		if n.Kind == qrc.NoteMethod { // the penalty method's smoothness warning
			fmt.Fprintln(stderr, n.Text)
		}
	}
	rep, err := o.lib.Solve(ctx, qrc.WithOptions(opts), qrc.WithRecorder(rec), qrc.WithNotes(notes))
	close(done)
	wg.Wait()
	if err != nil {
		return nil, errors.New(solvecmd.ToFlags(err.Error()))
	}
	if rec.err != nil {
		return nil, rec.err
	}
	if err := rec.w.Flush(); err != nil {
		return nil, err
	}
	res := rep.Result()
	msg := ""
	if res.Err != nil {
		msg = " (" + res.Err.Error() + ")"
	}
	fmt.Fprintf(stderr, "qrc compare: %s: %s%s after %.1f CPU s, %d iterations; objective %s, infeasibility %s\n",
		name, res.Status, msg, cpuSeconds()-rec.cpu0, res.Stats.Outer+res.Stats.Phase1Outer, num(res.Objective), num(res.Infeasibility))
	return rec.recs, nil
}

// compareRecorder turns the iterations of one method into trace records,
// timed by CPU seconds since the method started.
type compareRecorder struct {
	w      *trace.Writer
	m      *check.Model
	method string
	cpu0   float64
	wall0  time.Time
	recs   []trace.Record
	err    error
}

// Init does nothing: runOne records the start before the solve.
func (c *compareRecorder) Init(qrc.Run) error { return nil }

// Finish does nothing: runOne flushes the trace.
func (c *compareRecorder) Finish() {}

// Record adds an outer iterate, or an inner one, to the trace.
func (c *compareRecorder) Record(it qrc.Iteration) error {
	if it.Estimate || it.Stage != "" {
		// the stochastic oracle's inner values are minibatch estimates,
		// not the model's; heartbeats repeat a point already recorded
		return nil
	}
	r := trace.Record{Series: trace.Outer, T: it.T, K: it.K, Objective: it.Objective,
		Infeasibility: math.Max(it.Infeasibility, maxDomainViolation(c.m, it.X))}
	if it.K > 0 {
		r.Series = trace.Inner
	}
	return c.add(r)
}

// add times and writes a record.
func (c *compareRecorder) add(r trace.Record) error {
	r.Method = c.method
	r.CPU, r.Wall = cpuSeconds()-c.cpu0, time.Since(c.wall0).Seconds()
	c.recs = append(c.recs, r)
	if err := c.w.Write(r); err != nil {
		c.err = errors.New("writing the trace: " + err.Error())
		return c.err
	}
	return nil
}

// writeSummary prints the comparison table.
func writeSummary(w io.Writer, lines []*trace.Line, limit time.Duration, eps float64) {
	rows, best := trace.Summarize(lines, limit.Seconds(), eps)
	fmt.Fprintf(w, "CPU time limit %s per method; feasible means infeasibility <= %s\n", limit, num(eps))
	if math.IsNaN(best) {
		fmt.Fprintln(w, "no method reached a feasible iterate")
	} else {
		fmt.Fprintf(w, "best feasible objective %s; \"to best\" is the CPU time to a feasible iterate with objective <= %s (within %g%%)\n",
			num(best), num(best+trace.BestWithin*math.Abs(best)), 100*trace.BestWithin)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"method"}
	fractions := trace.Fractions()
	for _, f := range fractions {
		p := fmt.Sprintf("%g%%", 100*f)
		head = append(head, "objective "+p, "infeas "+p)
	}
	fmt.Fprintln(tw, strings.Join(append(head, "to best"), "\t"))
	for _, r := range rows {
		cells := []string{r.Line.Label()}
		for i := range fractions {
			if !r.Have[i] {
				cells = append(cells, "-", "-")
				continue
			}
			cells = append(cells, num(r.At[i].Objective), num(r.At[i].Infeasibility))
		}
		to := "never"
		if !math.IsNaN(r.ToBest) {
			to = fmt.Sprintf("%.2fs", r.ToBest)
		}
		fmt.Fprintln(tw, strings.Join(append(cells, to), "\t"))
	}
	tw.Flush()
}
