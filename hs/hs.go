// Package hs is the Hock–Schittkowski test suite: problems 1–119 of Hock &
// Schittkowski (1981) as qrc models (models/hsNNN.qrc; those with equality
// constraints in models/eq; one more, problem 261 of Schittkowski's 1987
// collection, as models/hs261.qrc), the manifest that lists every problem with its
// published optimum and whether qrc solves it today (problems.tsv), the
// success rule the suite scores by, and a runner that solves one model with
// qrc's default settings, as `qrc solve model.qrc` does.
//
// The models are checked against an independent reference in numpy
// (ref/hs.py, whose values at the starts are stored in
// testdata/reference.json); TestHockSchittkowski solves every writable
// problem and fails when one the manifest marks solved is not;
// QRC_HS_TABLE=1 go test ./hs -run TestTable prints the table of qrc beside
// SciPy's SLSQP (ref/slsqp.py). docs/testsuite.md has the commands and the
// measured table.
package hs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/solve"
)

// Expectation says what the manifest records about a problem.
type Expectation string

// The expectations a manifest row may hold.
const (
	Solved     Expectation = "solved"     // qrc with default settings solves it (the success rule)
	Fails      Expectation = "fails"      // written and run, but not solved today; Note says how it ends
	Unwritable Expectation = "unwritable" // no model: Note says what the language lacks (or why it is not written)
)

// Problem is one row of the manifest.
type Problem struct {
	Name   string    // hs001 ... hs119
	N      int       // variables
	Ineq   int       // inequality constraints (a ranged one counts twice), bounds excluded
	Eq     int       // equality constraints
	FStar  float64   // the published optimal value
	XStar  []float64 // a published minimiser; nil when not recorded
	Source string    // where FStar comes from
	Expect Expectation
	Note   string // why not solved or not written
}

// Model is the path of the problem's model under dir (the package
// directory): models/NAME.qrc, or models/eq/NAME.qrc for a problem with
// equality constraints.
func (p Problem) Model(dir string) string {
	if p.Eq > 0 {
		return filepath.Join(dir, "models", "eq", p.Name+".qrc")
	}
	return filepath.Join(dir, "models", p.Name+".qrc")
}

// Writable reports whether the problem has a model.
func (p Problem) Writable() bool { return p.Expect != Unwritable }

// manifestColumns are problems.tsv's columns, in order.
var manifestColumns = []string{"name", "n", "ineq", "eq", "fstar", "xstar", "source", "expect", "note"}

// ReadManifest reads problems.tsv: a header line naming manifestColumns,
// then one tab-separated row per problem; lines starting with # are
// comments. xstar is "-" or the minimiser's values separated by spaces.
func ReadManifest(path string) ([]Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ps []Problem
	sc := bufio.NewScanner(f)
	line, header := 0, false
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if !header {
			if strings.Join(cols, ",") != strings.Join(manifestColumns, ",") {
				return nil, fmt.Errorf("%s:%d: the header must be the columns %s", path, line, strings.Join(manifestColumns, ", "))
			}
			header = true
			continue
		}
		p, err := parseRow(cols)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		ps = append(ps, p)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !header {
		return nil, fmt.Errorf("%s: no header line", path)
	}
	return ps, nil
}

// parseRow parses one manifest row.
func parseRow(cols []string) (Problem, error) {
	if len(cols) != len(manifestColumns) {
		return Problem{}, fmt.Errorf("%d columns, want %d", len(cols), len(manifestColumns))
	}
	p := Problem{Name: cols[0], Source: cols[6], Expect: Expectation(cols[7]), Note: cols[8]}
	var err error
	ints := []*int{&p.N, &p.Ineq, &p.Eq}
	for i, dst := range ints {
		if *dst, err = strconv.Atoi(cols[1+i]); err != nil || *dst < 0 {
			return p, fmt.Errorf("%s: column %s: %q is not a count", p.Name, manifestColumns[1+i], cols[1+i])
		}
	}
	if p.FStar, err = strconv.ParseFloat(cols[4], 64); err != nil {
		return p, fmt.Errorf("%s: fstar %q is not a number", p.Name, cols[4])
	}
	if cols[5] != "-" {
		for _, s := range strings.Fields(cols[5]) {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return p, fmt.Errorf("%s: xstar value %q is not a number", p.Name, s)
			}
			p.XStar = append(p.XStar, v)
		}
		if len(p.XStar) != p.N {
			return p, fmt.Errorf("%s: xstar has %d values, n is %d", p.Name, len(p.XStar), p.N)
		}
	}
	switch p.Expect {
	case Solved, Fails, Unwritable:
	default:
		return p, fmt.Errorf("%s: expect %q is not one of solved, fails, unwritable", p.Name, p.Expect)
	}
	if p.Expect != Solved && p.Note == "" {
		return p, fmt.Errorf("%s: a problem that is not solved needs a note saying why", p.Name)
	}
	return p, nil
}

// Success is the suite's rule: the point is feasible to 1e-6 (the largest
// violation of a constraint or a bound) and its objective is within
// 1e-4·max(1, |f*|) of the published optimum or below it.
func Success(f, infeasibility, fstar float64) bool {
	return infeasibility <= 1e-6 && f <= fstar+1e-4*math.Max(1, math.Abs(fstar))
}

// Outcome is how one solve ended, measured independently of the solver's
// own report: the objective and the infeasibility are evaluated afresh at
// the returned point.
type Outcome struct {
	Status        string  // the solver's status (converged, infeasible, iteration_limit, ...)
	Objective     float64 // f at the returned point
	Infeasibility float64 // the largest violation of a constraint or a variable's domain there
	Seconds       float64 // the solve's wall-clock time, as the report gives it
	Outer         int     // outer iterations
	Success       bool    // Success(Objective, Infeasibility, f*)
}

// Solve loads the model at path and solves it with qrc's default settings
// (those of `qrc solve model.qrc`) and the time limit limit (0: none),
// then scores the returned point against fstar.
func Solve(ctx context.Context, path string, fstar float64, limit time.Duration) (Outcome, error) {
	m, err := qrc.Load(path)
	if err != nil {
		return Outcome{}, err
	}
	rep, err := m.Solve(ctx, qrc.WithSettings(solve.Settings{TimeLimit: limit}))
	if err != nil {
		return Outcome{}, err
	}
	x := rep.X()
	if len(x) != m.NumVars() {
		return Outcome{}, fmt.Errorf("%s: the solve returned %d values for %d variables", path, len(x), m.NumVars())
	}
	ev, err := m.Eval(x)
	if err != nil {
		return Outcome{}, fmt.Errorf("%s: at the returned point: %w", path, err)
	}
	o := Outcome{Status: rep.Status, Objective: ev.Objective, Infeasibility: ev.Infeasibility, Seconds: rep.Seconds, Outer: rep.OuterIterations}
	for _, v := range m.Checked().Vars {
		if v.Domain == nil {
			continue
		}
		o.Infeasibility = math.Max(o.Infeasibility, v.Domain.Violation(v.Of(x)))
	}
	if math.IsNaN(o.Objective) || math.IsNaN(o.Infeasibility) {
		return o, errors.New(path + ": the returned point's objective or infeasibility is NaN")
	}
	o.Success = Success(o.Objective, o.Infeasibility, fstar)
	return o, nil
}
