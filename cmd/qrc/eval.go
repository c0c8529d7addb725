package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/lang"
	"github.com/qrc-lang/qrc/point"
	"github.com/qrc-lang/qrc/solvecmd"
	"gonum.org/v1/gonum/floats"
)

var evalCommand = &command{
	name:    "eval",
	summary: "evaluate the objective and constraints at a point",
	usage: `Usage: qrc eval [flags] MODEL.qrc

Eval checks and compiles a model and evaluates, at its starting point or at
the point in a point file (--at), the objective and every expanded
constraint: its value, a subgradient's Euclidean norm, and for each
constraint f = lhs - rhs (rhs - lhs for >=; feasible when f <= 0, and
f = 0 for an equality ==) the right-hand side when it is a constant, and the
violation max(0, f) (|f| for an equality). The infeasibility is the largest
violation. A point outside a variable's domain
is evaluated as given, with a warning.

Errors go to standard error as file:line:col: message: the model's errors,
a point file that does not fit the model, and evaluation failures (a log of
a negative number, a value that is not finite).

Exit status: 0 when the model was evaluated, 1 when it has errors, cannot
be evaluated at the point, or the point file is wrong; 2 for a bad command
line.

Flags:
  --at FILE          evaluate at the point in FILE, a JSON object whose
                     "variables" field maps each variable to its value (a
                     number, an array, an array of rows); a result file
                     written by the solver is one; see docs/cli.md
  --json             print the values as one JSON object on standard output;
                     see docs/cli.md for its fields
  --metric NAME=EXPR evaluate the scalar expression EXPR at the point too
                     (repeatable), written in the model's names (data,
                     parameters, variables, functions); a comparison there
                     is 1 when it holds and 0 otherwise, so hard rates can
                     be computed, e.g. --metric acc="mean(i in people)
                     (people.y[i] * dot(people.X[i], x) > 0)"; with --data
                     on a held-out file
` + modelFlagsUsage,
}

func init() { evalCommand.run = runEval }

// evalResult is what qrc eval --json prints.
type evalResult struct {
	File             string            `json:"file"`
	Point            string            `json:"point"` // "start", or the --at file
	Objective        *evalObjective    `json:"objective"`
	Constraints      []evalConstraint  `json:"constraints"`
	Infeasibility    float64           `json:"infeasibility"`
	DomainViolations []domainViolation `json:"domain_violations"`
	Metrics          []evalMetric      `json:"metrics,omitempty"`
}

// evalMetric is the value of one --metric expression.
type evalMetric struct {
	Name  string  `json:"name"`
	Expr  string  `json:"expr"`
	Value float64 `json:"value"`
}

type evalObjective struct {
	Value           float64 `json:"value"`
	SubgradientNorm float64 `json:"subgradient_norm"`
}

type evalConstraint struct {
	Name            string   `json:"name"`
	Op              string   `json:"op"`
	Value           float64  `json:"value"` // f(x) = lhs - rhs (rhs - lhs for >=)
	RHS             *float64 `json:"rhs"`   // the right-hand side when it is a constant
	Violation       float64  `json:"violation"`
	SubgradientNorm float64  `json:"subgradient_norm"`
}

type domainViolation struct {
	Variable  string  `json:"variable"`
	Domain    string  `json:"domain"`
	Violation float64 `json:"violation"`
}

func runEval(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("eval", evalCommand.usage, stderr)
	asJSON := fs.Bool("json", false, "print the values as JSON")
	at := fs.String("at", "", "evaluate at the point in this JSON file")
	var metrics assignList
	fs.Var(&metrics, "metric", "evaluate NAME=EXPR at the point (repeatable)")
	var mf modelFlags
	mf.register(fs)
	file, ok := modelFile(fs, "eval", args, stderr)
	if !ok {
		return exitUsage
	}
	m, sources, prog, ok := loadProgram("eval", file, &mf, !*asJSON, stderr)
	if !ok {
		return exitInvalid
	}

	x, where := point.Start(m), "start"
	if *at != "" {
		var err error
		if x, err = point.Read(*at, m); err != nil {
			fmt.Fprintln(stderr, err)
			return exitInvalid
		}
		where = *at
	}

	fns := prog.Functions()
	values := make([]float64, len(fns))
	if err := prog.Eval(x, values); err != nil {
		solvecmd.PrintEvalError(stderr, "eval", err, sources)
		return exitInvalid
	}
	norms := make([]float64, len(fns))
	rows := make([][]float64, len(fns))
	for i := range rows {
		rows[i] = make([]float64, prog.NumVars())
	}
	if err := prog.Jacobian(rows); err != nil {
		solvecmd.PrintEvalError(stderr, "eval", err, sources)
		return exitInvalid
	}
	for i, g := range rows {
		norms[i] = floats.Norm(g, 2)
	}

	res := evalResult{File: file, Point: where, Constraints: []evalConstraint{}, DomainViolations: domainViolations(m, x)}
	if m.Objective != nil {
		res.Objective = &evalObjective{Value: values[0], SubgradientNorm: norms[0]}
	}
	for i, f := range fns {
		if f.Objective || f.Constraint == nil {
			continue
		}
		c := evalConstraint{
			Name:            f.Name,
			Op:              f.Constraint.Op,
			Value:           values[i],
			RHS:             f.Constraint.ConstRHS(),
			Violation:       violation(f.Constraint, values[i]),
			SubgradientNorm: norms[i],
		}
		res.Infeasibility = math.Max(res.Infeasibility, c.Violation)
		res.Constraints = append(res.Constraints, c)
	}

	for _, mt := range metrics {
		v, ok := evalMetricAt(m, mt, x, stderr)
		if !ok {
			return exitInvalid
		}
		res.Metrics = append(res.Metrics, evalMetric{Name: mt.Name, Expr: mt.Value, Value: v})
	}

	if *asJSON {
		if err := writeJSON(stdout, res); err != nil {
			fmt.Fprintf(stderr, "qrc eval: %v\n", err)
			return exitInvalid
		}
		return exitOK
	}
	for _, d := range res.DomainViolations {
		fmt.Fprintf(stderr, "%s: warning: variable %q is outside its domain %s by %s (evaluated as given)\n", where, d.Variable, d.Domain, num(d.Violation))
	}
	res.text(stdout)
	return exitOK
}

// text prints the result as an aligned table.
func (r *evalResult) text(w io.Writer) {
	if r.Point == "start" {
		fmt.Fprintf(w, "%s at the starting point\n", r.File)
	} else {
		fmt.Fprintf(w, "%s at the point in %s\n", r.File, r.Point)
	}
	eq := false
	for _, c := range r.Constraints {
		eq = eq || c.Op == "=="
	}
	if eq {
		fmt.Fprintln(w, "f = lhs - rhs for <= and ==, rhs - lhs for >= (feasible when f <= 0, f = 0 for ==; the violation is max(0, f), |f| for ==); ||g|| is a subgradient's norm")
	} else {
		fmt.Fprintln(w, "f = lhs - rhs for <= and rhs - lhs for >= (feasible when f <= 0); ||g|| is a subgradient's norm")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "function\tf(x)\top\trhs\tviolation\t||g||")
	if r.Objective != nil {
		fmt.Fprintf(tw, "objective\t%s\t-\t-\t-\t%s\n", num(r.Objective.Value), num(r.Objective.SubgradientNorm))
	} else {
		fmt.Fprintln(tw, "objective\tnone\t-\t-\t-\t-")
	}
	for _, c := range r.Constraints {
		rhs := "-"
		if c.RHS != nil {
			rhs = num(*c.RHS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, num(c.Value), c.Op, rhs, num(c.Violation), num(c.SubgradientNorm))
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "infeasibility %s\n", num(r.Infeasibility))
	if len(r.Metrics) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "metric	value	expression")
		for _, mt := range r.Metrics {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", mt.Name, strconv.FormatFloat(mt.Value, 'g', 10, 64), mt.Expr)
		}
		tw.Flush()
	}
}

// violation is max(0, f) for an inequality and |f| for an equality.
func violation(c *check.Constraint, f float64) float64 {
	if c.IsEquality() {
		return math.Abs(f)
	}
	return math.Max(0, f)
}

// evalMetricAt parses, checks (comparisons allowed: it is only evaluated)
// and evaluates one --metric expression at x. Its errors are positioned in
// the expression, which is named "--metric NAME".
func evalMetricAt(m *check.Model, mt check.Assign, x []float64, stderr io.Writer) (float64, bool) {
	name := "--metric " + mt.Name
	src := []byte(mt.Value)
	sources := check.Sources{name: src}
	e, errs := lang.ParseExpr(name, src)
	if errs == nil {
		var xe check.Expr
		if xe, errs = check.CheckEvalExpr(m, e); errs == nil {
			if !xe.Shape().IsScalar() {
				fmt.Fprintf(stderr, "%s: the metric is a %s; a metric is a scalar (wrap it in mean(...) or sum(...))\n", name, xe.Shape())
				return 0, false
			}
			if xe.Deps()&check.DepVar == 0 {
				t, err := check.Eval(xe, nil)
				if err != nil {
					fmt.Fprintf(stderr, "%s: cannot evaluate: %v\n", name, err)
					return 0, false
				}
				return t.Data[0], true
			}
			prog, err := autodiff.CompileExprs(m.NumScalars, []check.Expr{xe}, []string{mt.Name})
			if err != nil {
				fmt.Fprintf(stderr, "%s: %v\n", name, err)
				return 0, false
			}
			v := make([]float64, 1)
			if err := prog.Eval(x, v); err != nil {
				solvecmd.PrintEvalError(stderr, "eval", err, sources)
				return 0, false
			}
			return v[0], true
		}
	}
	for _, d := range errs {
		diag.Render(stderr, solvecmd.DiagToFlags(d), src)
	}
	return 0, false
}

// domainViolations lists the variables whose part of x lies outside their
// domain by more than rounding (1e-9 relative to the variable's largest
// entry).
func domainViolations(m *check.Model, x []float64) []domainViolation {
	out := []domainViolation{}
	for _, v := range m.Vars { // every variable has a domain (unbounded when none is written)
		xv := v.Of(x)
		scale := 1.0
		for _, e := range xv {
			scale = math.Max(scale, math.Abs(e))
		}
		if viol := v.Domain.Violation(xv); viol > 1e-9*scale {
			out = append(out, domainViolation{Variable: v.Name, Domain: v.Domain.String(), Violation: viol})
		}
	}
	return out
}

// loadProgram loads, checks and compiles the model in file for command
// name. It prints the model's diagnostics to stderr (warnings only when
// warnings is set) and reports whether the model compiled.
func loadProgram(name, file string, mf *modelFlags, warnings bool, stderr io.Writer) (*check.Model, check.Sources, *autodiff.Program, bool) {
	model, ok := loadModel(name, file, mf, warnings, stderr)
	if !ok {
		return nil, nil, nil, false
	}
	return model.Checked(), model.Sources(), model.Program(), true
}

// loadModel loads, checks and compiles the model in file with the library,
// printing its diagnostics on stderr (its warnings only when warnings is
// set).
func loadModel(name, file string, mf *modelFlags, warnings bool, stderr io.Writer) (*qrc.Model, bool) {
	model, err := qrc.Load(file, mf.options()...)
	var le *qrc.Error
	switch {
	case errors.As(err, &le):
		if warnings {
			solvecmd.PrintDiags(stderr, le.Warnings, le.Sources)
		}
		if len(le.Diagnostics) > 0 {
			solvecmd.PrintDiags(stderr, le.Diagnostics, le.Sources)
			printErrorCount(stderr, file, len(le.Diagnostics.Errors()))
		} else {
			fmt.Fprintf(stderr, "%s: %s\n", file, solvecmd.ToFlags(le.Err.Error()))
		}
		return nil, false
	case err != nil:
		fmt.Fprintf(stderr, "qrc %s: %s\n", name, solvecmd.ToFlags(err.Error()))
		return nil, false
	}
	if warnings {
		solvecmd.PrintDiags(stderr, model.Warnings(), model.Sources())
	}
	return model, true
}

func printErrorCount(w io.Writer, file string, n int) {
	s := "s"
	if n == 1 {
		s = ""
	}
	fmt.Fprintf(w, "%s: %d error%s\n", file, n, s)
}

// num formats a number for the text tables: six significant digits.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
