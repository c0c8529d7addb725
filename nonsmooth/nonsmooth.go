// Package nonsmooth is the classic nonsmooth test suite: the small
// unconstrained problems of Lukšan & Vlček's report V-798 (2000) — the
// minimax problems of its section 2 (models/minimax) and the general
// nonsmooth ones of its section 3 (models/general), and some of the
// linearly constrained minimax problems of its section 4 (models/lincon) — and the ten
// large-scale problems of Haarala, Miettinen & Mäkelä (2004)
// (models/large, each with a parameter n), as qrc models; the manifest
// that lists every problem with its published optimum and whether qrc
// solves it today (problems.tsv); the success rule; and a runner that
// solves one model with qrc's default settings, as `qrc solve model.qrc`
// does.
//
// The models are checked against an independent numpy reference
// (ref/lv.py, its values in testdata/reference.json);
// QRC_NONSMOOTH=all go test ./nonsmooth -run TestSolved solves every
// problem the manifest marks solved and fails when one is not;
// QRC_NONSMOOTH_TABLE=1 go test ./nonsmooth -run TestTable prints the
// table of qrc beside SciPy's SLSQP on the epigraph form (ref/slsqp.py).
// docs/testsuite.md has the commands and the measured table.
package nonsmooth

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

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/solve"
)

// Expectation says what the manifest records about a problem.
type Expectation string

// The expectations a manifest row may hold.
const (
	Solved     Expectation = "solved"     // qrc with default settings solves it (the success rule)
	Fails      Expectation = "fails"      // written and run, but not solved today; Note says how it ends
	Unwritable Expectation = "unwritable" // no model: Note says why
)

// The sets of the suite, each a directory of models/.
const (
	Minimax = "minimax" // Lukšan & Vlček (2000), section 2: max_k f_k or max_k |f_k|
	General = "general" // Lukšan & Vlček (2000), section 3
	Lincon  = "lincon"  // Lukšan & Vlček (2000), section 4: max_k f_k subject to linear constraints and bounds
	Large   = "large"   // Haarala, Miettinen & Mäkelä (2004), at the size N
)

// Problem is one row of the manifest. A large-scale problem has one row per
// size N it is run at.
type Problem struct {
	Name   string  // the model's file name without .qrc
	Set    string  // Minimax, General or Large
	N      int     // variables
	FStar  float64 // the published optimal value
	Source string  // where FStar comes from
	Expect Expectation
	// Outer is the regression test's budget of outer iterations for a
	// problem marked solved, so that the budget, not the clock, ends a
	// solve that runs on: twice the table's count and 10 more, or the
	// table's count itself for a solve that met the rule at its time limit
	// (it then stops where the table's solve stopped); 0 for the others.
	Outer int
	Note  string // why not solved or not written
}

// ID names the row: the name, and for a large-scale problem its size
// (chained_lq/1000).
func (p Problem) ID() string {
	if p.Set == Large {
		return p.Name + "/" + strconv.Itoa(p.N)
	}
	return p.Name
}

// Model is the path of the problem's model under dir (the package
// directory): models/SET/NAME.qrc.
func (p Problem) Model(dir string) string {
	return filepath.Join(dir, "models", p.Set, p.Name+".qrc")
}

// Writable reports whether the problem has a model.
func (p Problem) Writable() bool { return p.Expect != Unwritable }

// Load loads the problem's model under dir, a large-scale one with its
// parameter n set to N.
func (p Problem) Load(dir string) (*qrc.Model, error) {
	if p.Set == Large {
		return qrc.Load(p.Model(dir), qrc.WithParam("n", float64(p.N)))
	}
	return qrc.Load(p.Model(dir))
}

// manifestColumns are problems.tsv's columns, in order.
var manifestColumns = []string{"name", "set", "n", "fstar", "source", "expect", "outer", "note"}

// ReadManifest reads problems.tsv: a header line naming manifestColumns,
// then one tab-separated row per problem (per size for the large set);
// lines starting with # are comments.
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
	p := Problem{Name: cols[0], Set: cols[1], Source: cols[4], Expect: Expectation(cols[5]), Note: cols[7]}
	switch p.Set {
	case Minimax, General, Lincon, Large:
	default:
		return p, fmt.Errorf("%s: set %q is not one of minimax, general, lincon, large", p.Name, p.Set)
	}
	var err error
	if p.N, err = strconv.Atoi(cols[2]); err != nil || p.N <= 0 {
		return p, fmt.Errorf("%s: n %q is not a positive count", p.Name, cols[2])
	}
	if p.FStar, err = strconv.ParseFloat(cols[3], 64); err != nil || math.IsNaN(p.FStar) || math.IsInf(p.FStar, 0) {
		return p, fmt.Errorf("%s: fstar %q is not a finite number", p.Name, cols[3])
	}
	switch p.Expect {
	case Solved, Fails, Unwritable:
	default:
		return p, fmt.Errorf("%s: expect %q is not one of solved, fails, unwritable", p.Name, p.Expect)
	}
	if cols[6] != "-" {
		if p.Outer, err = strconv.Atoi(cols[6]); err != nil || p.Outer <= 0 {
			return p, fmt.Errorf("%s: outer %q is not a positive count or -", p.Name, cols[6])
		}
	}
	if (p.Expect == Solved) != (p.Outer > 0) {
		return p, fmt.Errorf("%s: a problem marked solved, and only such a one, needs an outer budget", p.Name)
	}
	if p.Expect != Solved && p.Note == "" {
		return p, fmt.Errorf("%s: a problem that is not solved needs a note saying why", p.Name)
	}
	return p, nil
}

// Tolerance is the success rule's tolerance on f: max(1e-6, 1e-4 |f*|).
func Tolerance(fstar float64) float64 { return math.Max(1e-6, 1e-4*math.Abs(fstar)) }

// Success is the suite's rule (issue 40): |f - f*| <= max(1e-6, 1e-4 |f*|)
// at a point that is feasible to 1e-6 (the largest violation of a
// constraint or a variable's domain; 0 for the unconstrained sets). A value below f* by more than the tolerance is not a success
// either: it means the model or f* is wrong.
func Success(f, infeasibility, fstar float64) bool {
	return infeasibility <= 1e-6 && math.Abs(f-fstar) <= Tolerance(fstar)
}

// Outcome is how one solve ended, measured independently of the solver's
// own report: the objective and the infeasibility are evaluated afresh at
// the returned point.
type Outcome struct {
	Status        string  // the solver's status (converged, stalled, time_limit, ...)
	Objective     float64 // f at the returned point
	Infeasibility float64 // the largest violation of a constraint or a variable's domain there
	Seconds       float64 // the solve's wall-clock time, as the report gives it
	Outer         int     // outer iterations
	Success       bool    // Success(Objective, Infeasibility, f*)
}

// Solve loads the problem's model under dir and solves it with qrc's
// default settings changed only by settings (the zero Settings: exactly
// those of `qrc solve model.qrc`; the table gives a TimeLimit, the tests
// an Outer budget), then scores the returned point against f*.
func Solve(ctx context.Context, p Problem, dir string, settings solve.Settings) (Outcome, error) {
	path := p.Model(dir)
	m, err := p.Load(dir)
	if err != nil {
		return Outcome{}, err
	}
	rep, err := m.Solve(ctx, qrc.WithSettings(settings))
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
	o.Success = Success(o.Objective, o.Infeasibility, p.FStar)
	return o, nil
}
