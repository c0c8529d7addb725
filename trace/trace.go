// Package trace keeps the record of how optimization methods progress on
// one model, the data behind the paper's Figure 1 (Ma, Lin & Yang 2020,
// section 5): the objective and the infeasibility of the iterates against
// CPU time. It writes and reads the records as CSV (one file per method),
// summarises them at fractions of a time limit, and draws the figure with
// gonum/plot (figure.go).
package trace

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The series of a method: its iterates, and for IQRC the sampled inner
// iterates z_k of the oracle (the paper's blue line).
const (
	Outer = "outer"
	Inner = "inner"
)

// Header is the first line of a trace CSV file.
const Header = "method,series,cpu_seconds,wall_seconds,t,k,objective,infeasibility"

// SolveHeader is the first line of the trace qrc solve --trace writes (the
// library's qrc.TraceWriter): one row per outer iteration. Read takes
// these files too.
const SolveHeader = "seconds,t,phase,objective,infeasibility,max_violated,step,feasible_fraction,rho_hat"

// Record is one iterate of a method.
type Record struct {
	Method string  // iqrc, penalty, ...
	Series string  // Outer or Inner
	CPU    float64 // CPU seconds since the method started
	Wall   float64 // wall-clock seconds since the method started
	T      int     // the outer iteration (0 is the start)
	K      int     // for an Inner record, the inner iteration within outer step T+1; else 0
	// Objective is f0 at the iterate; Infeasibility is the paper's
	// max(max_i fi, the domain's violation, 0).
	Objective, Infeasibility float64
}

// Writer writes records as CSV.
type Writer struct {
	w      io.Writer
	header bool
}

// NewWriter returns a Writer to w; the header is written with the first
// record (or by Flush when there is none).
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes one record, full precision.
func (t *Writer) Write(r Record) error {
	if err := t.writeHeader(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(t.w, "%s,%s,%.6f,%.6f,%d,%d,%s,%s\n", r.Method, r.Series, r.CPU, r.Wall, r.T, r.K,
		strconv.FormatFloat(r.Objective, 'g', -1, 64), strconv.FormatFloat(r.Infeasibility, 'g', -1, 64))
	return err
}

// Flush writes the header if no record was written.
func (t *Writer) Flush() error { return t.writeHeader() }

func (t *Writer) writeHeader() error {
	if t.header {
		return nil
	}
	t.header = true
	_, err := fmt.Fprintln(t.w, Header)
	return err
}

// Read reads a trace CSV, as qrc compare writes it (Header) or as qrc solve
// --trace does (SolveHeader: each row an Outer record of the method its
// phase names, iqrc, phase1 or penalty, timed in wall-clock seconds, which
// stand for the CPU seconds too); name (the file's name) prefixes every
// error, with the line.
func Read(r io.Reader, name string) ([]Record, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file; want the header %s", name, Header)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	parse := parse
	switch strings.Join(head, ",") {
	case Header:
	case SolveHeader:
		parse = parseSolve
	default:
		return nil, fmt.Errorf("%s:1: the header is %q; want %s (a trace written by qrc compare) or %s (by qrc solve --trace)", name, strings.Join(head, ","), Header, SolveHeader)
	}
	var out []Record
	for line := 2; ; line++ {
		f, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		rec, err := parse(f)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		out = append(out, rec)
	}
}

// parseSolve reads a row of a qrc solve --trace file.
func parseSolve(f []string) (Record, error) {
	n := len(strings.Split(SolveHeader, ","))
	if len(f) != n {
		return Record{}, fmt.Errorf("%d fields; want %d (%s)", len(f), n, SolveHeader)
	}
	return parse([]string{f[2], Outer, f[0], f[0], f[1], "0", f[3], f[4]})
}

// parse reads a row of a qrc compare trace.
func parse(f []string) (Record, error) {
	if len(f) != 8 {
		return Record{}, fmt.Errorf("%d fields; want 8 (%s)", len(f), Header)
	}
	r := Record{Method: f[0], Series: f[1]}
	if r.Method == "" {
		return r, errors.New("empty method")
	}
	if r.Series != Outer && r.Series != Inner {
		return r, fmt.Errorf("series %q; want %s or %s", r.Series, Outer, Inner)
	}
	var errs []error
	float := func(s, what string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q is not a number", what, s))
		}
		return v
	}
	integer := func(s, what string) int {
		v, err := strconv.Atoi(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q is not an integer", what, s))
		}
		return v
	}
	r.CPU, r.Wall = float(f[2], "cpu_seconds"), float(f[3], "wall_seconds")
	r.T, r.K = integer(f[4], "t"), integer(f[5], "k")
	r.Objective, r.Infeasibility = float(f[6], "objective"), float(f[7], "infeasibility")
	if len(errs) > 0 {
		return r, errs[0]
	}
	if r.CPU < 0 || math.IsNaN(r.CPU) || math.IsInf(r.CPU, 0) {
		return r, fmt.Errorf("cpu_seconds %v; want a nonnegative number", r.CPU)
	}
	return r, nil
}

// Line is the records of one method's series, in order: one line of the
// figure and one row of the summary.
type Line struct {
	Method, Series string
	Records        []Record
}

// Label names the line: the method, with "inner z_k" for an Inner series.
func (l *Line) Label() string {
	if l.Series == Inner {
		return l.Method + " inner z_k"
	}
	return l.Method
}

// Lines groups records by method and series, in order of first appearance
// (outer before inner within a method).
func Lines(recs []Record) []*Line {
	var out []*Line
	find := func(method, series string) *Line {
		for _, l := range out {
			if l.Method == method && l.Series == series {
				return l
			}
		}
		l := &Line{Method: method, Series: series}
		out = append(out, l)
		return l
	}
	for _, r := range recs {
		find(r.Method, Outer) // the outer line first, even if an inner record comes first
		l := find(r.Method, r.Series)
		l.Records = append(l.Records, r)
	}
	kept := out[:0]
	for _, l := range out {
		if len(l.Records) > 0 {
			kept = append(kept, l)
		}
	}
	return kept
}

// At returns the last record with CPU <= sec, the iterate the method had
// then; false if there is none.
func (l *Line) At(sec float64) (Record, bool) {
	var r Record
	ok := false
	for _, x := range l.Records {
		if x.CPU > sec {
			break
		}
		r, ok = x, true
	}
	return r, ok
}

// Summary is one line's row of the comparison table.
type Summary struct {
	Line *Line
	// At holds the record the line had at each fraction of the time limit
	// (Fractions), and whether there was one.
	At   []Record
	Have []bool
	// ToBest is the first CPU time at which the line had a feasible
	// iterate (infeasibility <= eps) within 1% of Best; NaN if never.
	ToBest float64
}

// fractions are the fractions of the time limit the summary reports.
var fractions = []float64{0.25, 0.5, 1}

// Fractions returns the fractions of the time limit the summary reports
// (a new slice on every call).
func Fractions() []float64 { return slices.Clone(fractions) }

// BestWithin is the relative margin of "reaching the best objective".
const BestWithin = 0.01

// Summarize tabulates the lines at Fractions of limit (CPU seconds).
// Best is the lowest objective of a feasible (infeasibility <= eps)
// record of any Outer line, NaN if there is none; ToBest is measured
// against best + BestWithin*|best|.
func Summarize(lines []*Line, limit, eps float64) (rows []Summary, best float64) {
	best = math.NaN()
	for _, l := range lines {
		if l.Series != Outer {
			continue
		}
		for _, r := range l.Records {
			if r.Infeasibility <= eps && (math.IsNaN(best) || r.Objective < best) {
				best = r.Objective
			}
		}
	}
	for _, l := range lines {
		s := Summary{Line: l, ToBest: math.NaN()}
		for _, f := range fractions {
			r, ok := l.At(f * limit)
			s.At, s.Have = append(s.At, r), append(s.Have, ok)
		}
		if !math.IsNaN(best) {
			target := best + BestWithin*math.Abs(best)
			for _, r := range l.Records {
				if r.Infeasibility <= eps && r.Objective <= target {
					s.ToBest = r.CPU
					break
				}
			}
		}
		rows = append(rows, s)
	}
	return rows, best
}
