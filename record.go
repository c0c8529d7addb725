package qrc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/qrc-lang/qrc/solve"
)

// Recorder is told about a solve as it runs, as gonum/optimize's Recorder
// is: Init once before the first iteration (an error stops the solve
// before it starts), Record at every outer iteration and at the inner
// records the method makes (an error stops the solve with status
// interrupted), Finish once when the solve is over. The progress table of
// qrc solve is the [Printer]; [RecorderFunc] makes a Recorder of a
// function.
type Recorder interface {
	Init(Run) error
	Record(Iteration) error
	Finish()
}

// RecorderFunc is a Recorder that calls the function at every iteration
// (and does nothing at Init and Finish).
type RecorderFunc func(Iteration) error

// Init does nothing.
func (RecorderFunc) Init(Run) error { return nil }

// Record calls f.
func (f RecorderFunc) Record(it Iteration) error { return f(it) }

// Finish does nothing.
func (RecorderFunc) Finish() {}

// Run describes a solve about to start: what Recorder.Init is told.
type Run struct {
	Model  *Model
	Method string // the method's name
	Oracle string // IQRC's subproblem oracle (smooth, bundle, switching, stochastic); "" for other methods
	// MonitorNote says, when it is not "", that the objective and
	// infeasibility of outer iterations are computed on a fixed sample of
	// the rows (the report is on all rows).
	MonitorNote string
}

// Iteration is one record of a solve: the solver's record (x_T, its
// objective, infeasibility, step ...) with the names a table needs.
type Iteration struct {
	solve.Iteration
	// Phase is "phase1", "iqrc" or the method's name ("penalty").
	Phase string
	// Worst is the name of the most violated constraint, "" when none is.
	Worst string
}

// recorders fans the solver's records out to the Recorders, with the
// names filled in.
type recorders struct {
	rs    []Recorder
	names []string // the program's functions, the objective first
}

// Record names the iteration's phase and worst constraint and tells every
// Recorder.
func (r *recorders) Record(it solve.Iteration) error {
	li := Iteration{Iteration: it, Phase: "iqrc"}
	if it.Method != "" {
		li.Phase = it.Method
	}
	if it.Phase1 {
		li.Phase = "phase1"
	}
	if it.MaxViolated > 0 && it.MaxViolated < len(r.names) {
		li.Worst = r.names[it.MaxViolated]
	}
	for _, rec := range r.rs {
		if err := rec.Record(li); err != nil {
			return err
		}
	}
	return nil
}

// Printer is a Recorder that prints a table of outer iterations, qrc
// solve's progress display: one row a second (and the first few), or, on a
// terminal, a live line rewritten in place.
type Printer struct {
	w io.Writer
	// Prefix starts the note printed above the table (qrc uses "qrc solve: ").
	Prefix string
	// Live rewrites one line in place instead of printing rows; NewPrinter
	// sets it when the writer is a terminal.
	Live bool

	note   string
	header bool
	last   time.Time
	line   string
}

// NewPrinter returns a Printer that writes to w.
func NewPrinter(w io.Writer) *Printer {
	return &Printer{w: w, Live: isTerminal(w)}
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Stat() (os.FileInfo, error) }) // an *os.File, or a wrapper of one
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Init keeps the run's monitoring note for the table's head.
func (p *Printer) Init(r Run) error {
	p.note = r.MonitorNote
	return nil
}

// Record prints an outer iteration (inner records are for traces), or a
// heartbeat of the certificate or the polish (Iteration.Stage).
func (p *Printer) Record(it Iteration) error {
	if it.Stage != "" {
		p.stage(it)
		return nil
	}
	if it.K > 0 {
		return nil
	}
	p.head()
	worst := it.Worst
	if worst == "" {
		worst = "-"
	}
	rho := num(it.RhoHat)
	if it.RhoDoubled {
		rho += "*"
	}
	p.line = fmt.Sprintf("%-7s %6d %9.3f %13.6g %13.4g %-12s %10.3g %6.1f %8s", it.Phase, it.T, it.Elapsed.Seconds(), it.Objective, it.Infeasibility, worst, it.Step, 100*it.FeasibleFraction, rho)
	now := time.Now()
	switch {
	case p.Live:
		fmt.Fprintf(p.w, "\r%s", p.line)
	case it.T < 5 || it.RhoDoubled || now.Sub(p.last) >= time.Second:
		fmt.Fprintln(p.w, p.line)
		p.line = ""
		p.last = now
	}
	return nil
}

// head prints the table's head, once.
func (p *Printer) head() {
	if p.header {
		return
	}
	if p.note != "" {
		fmt.Fprintf(p.w, "%s%s\n", p.Prefix, p.note)
	}
	fmt.Fprintf(p.w, "%-7s %6s %9s %13s %13s %-12s %10s %6s %8s\n", "phase", "t", "seconds", "objective", "infeasibility", "worst", "step", "feas%", "rho_hat")
	p.header = true
}

// stage prints a heartbeat of work that runs a second without an outer
// record: the certificate, the polish, or a long outer step of phase 1
// ("phase1") or phase 2 ("step"): what runs, for how long, and the inner
// iterations so far, so that no part of a solve is silent.
func (p *Printer) stage(it Iteration) {
	if !p.header && (it.Stage == "certificate" || it.Stage == "polish") {
		return // no table: the solve ended before its first iteration was shown
	}
	p.head()
	line := fmt.Sprintf("%-7s %6d %9.3f %13.6g %13.4g %-12s %s", trimTo(it.Stage, 7), it.T, it.Elapsed.Seconds(), it.Objective, it.Infeasibility, "-",
		fmt.Sprintf("(%s of x_%d: %d inner iterations so far)", it.Stage, it.T, it.K))
	if p.Live {
		fmt.Fprintf(p.w, "\r%s", line)
		p.line = line
		return
	}
	if p.line != "" { // the last outer row, not printed yet
		fmt.Fprintln(p.w, p.line)
		p.line = ""
	}
	fmt.Fprintln(p.w, line)
}

// trimTo cuts s to at most n bytes.
func trimTo(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Finish ends the live line, or prints the last row if it was skipped.
func (p *Printer) Finish() {
	switch {
	case p.line == "":
	case p.Live:
		fmt.Fprintln(p.w)
	default:
		fmt.Fprintln(p.w, p.line)
	}
	p.line = ""
}

// TraceWriter is a Recorder that writes one CSV row per outer iteration:
// seconds, t, phase, objective, infeasibility, max_violated, step,
// feasible_fraction, rho_hat (qrc solve --trace).
type TraceWriter struct {
	w io.Writer
}

// NewTraceWriter returns a TraceWriter that writes to w.
func NewTraceWriter(w io.Writer) *TraceWriter { return &TraceWriter{w: w} }

// Init writes the header.
func (t *TraceWriter) Init(Run) error {
	_, err := fmt.Fprintln(t.w, "seconds,t,phase,objective,infeasibility,max_violated,step,feasible_fraction,rho_hat")
	if err != nil {
		return errors.New("writing the trace: " + err.Error())
	}
	return nil
}

// Record writes an outer iteration's row.
func (t *TraceWriter) Record(it Iteration) error {
	if it.K > 0 {
		return nil
	}
	_, err := fmt.Fprintf(t.w, "%.6f,%d,%s,%.17g,%.17g,%s,%.17g,%.6f,%g\n", it.Elapsed.Seconds(), it.T, it.Phase, it.Objective, it.Infeasibility, csvField(it.Worst), it.Step, it.FeasibleFraction, it.RhoHat)
	if err != nil {
		return errors.New("writing the trace: " + err.Error())
	}
	return nil
}

// Finish does nothing: the caller owns the writer.
func (t *TraceWriter) Finish() {}

// csvField quotes a field that holds a comma (cap[1, 2]).
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// num formats a number for the text tables: six significant digits.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
