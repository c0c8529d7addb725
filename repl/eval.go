package repl

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/lang"
	"github.com/qrc-lang/qrc/summary"
	"gonum.org/v1/gonum/floats"
)

// maxElements bounds the size of an expression :eval evaluates element by
// element.
const maxElements = 1 << 16

// checkExpr parses and checks the expression text typed at column col of
// statement st's line, printing the diagnostics when it is wrong.
func (s *Session) checkExpr(cmd, text string, st Statement, col int) (check.Expr, bool) {
	if text == "" {
		s.fail(":%s EXPR: which expression?", cmd)
		return nil, false
	}
	if !s.needModel() {
		return nil, false
	}
	e, errs := lang.ParseExpr(InputName, padded(st.Line, col, text))
	if errs != nil {
		s.failed = true
		s.printDiags(errs)
		return nil, false
	}
	checkFn := check.CheckExpr
	if cmd == "eval" { // evaluated only: comparisons are 0 or 1
		checkFn = check.CheckEvalExpr
	}
	x, errs := checkFn(s.model, e)
	if errs != nil {
		s.failed = true
		s.printDiags(errs)
		return nil, false
	}
	return x, true
}

// value evaluates a checked expression at the current point.
func (s *Session) value(x check.Expr) (check.Tensor, bool) {
	if x.Deps()&check.DepVar == 0 {
		t, err := check.Eval(x, nil)
		if err != nil {
			s.fail("%s: cannot evaluate: %v", x.Src().Pos(), err)
			return check.Tensor{}, false
		}
		return t, true
	}
	n := x.Shape().Size()
	if n > maxElements {
		s.fail("%s: the value has %d elements, too many to evaluate here (at most %d)", x.Src().Pos(), n, maxElements)
		return check.Tensor{}, false
	}
	elems := check.Elements(x)
	names := make([]string, len(elems))
	for i := range names {
		names[i] = "element " + strconv.Itoa(i+1)
	}
	prog, err := autodiff.CompileExprs(s.model.NumScalars, elems, names)
	if err != nil {
		s.failed = true
		s.printCompileError(err)
		return check.Tensor{}, false
	}
	vals := make([]float64, len(elems))
	if err := prog.Eval(s.cur.x, vals); err != nil {
		s.failed = true
		s.printEvalError(err)
		return check.Tensor{}, false
	}
	return check.Tensor{Shape: x.Shape(), Data: vals}, true
}

func (s *Session) evalCmd(arg string, st Statement, col int) {
	x, ok := s.checkExpr("eval", arg, st, col)
	if !ok {
		return
	}
	t, ok := s.value(x)
	if !ok {
		return
	}
	fmt.Fprintln(s.out, valueText(t.Shape, t.Data))
}

func (s *Session) gradCmd(arg string, st Statement, col int) {
	x, ok := s.checkExpr("grad", arg, st, col)
	if !ok {
		return
	}
	if !x.Shape().IsScalar() {
		s.fail("%s: :grad needs a scalar expression; this is a %s (index it, or :grad one element)", x.Src().Pos(), x.Shape())
		return
	}
	if x.Deps()&check.DepVar == 0 {
		fmt.Fprintln(s.out, "the expression does not depend on any variable: its subgradient is 0")
		return
	}
	prog, err := autodiff.CompileExprs(s.model.NumScalars, []check.Expr{x}, []string{"the expression"})
	if err != nil {
		s.failed = true
		s.printCompileError(err)
		return
	}
	vals := []float64{0}
	g := make([]float64, s.model.NumScalars)
	err = prog.Eval(s.cur.x, vals)
	if err == nil {
		err = prog.Gradient([]float64{1}, g)
	}
	if err != nil {
		s.failed = true
		s.printEvalError(err)
		return
	}
	fmt.Fprintf(s.out, "value %s, subgradient norm %s at %s\n", num(vals[0]), num(floats.Norm(g, 2)), s.cur.from)
	tw := tabwriter.NewWriter(s.out, 0, 0, 1, ' ', 0)
	for _, v := range s.model.Vars {
		fmt.Fprintf(tw, "  d/d%s\t= %s\n", v.Name, valueText(v.Shape, v.Of(g)))
	}
	tw.Flush()
}

// printCompileError prints a compiler error (a diagnostic list, usually).
func (s *Session) printCompileError(err error) {
	var list diag.List
	if errors.As(err, &list) && len(list) > 0 {
		s.printDiags(list)
		return
	}
	fmt.Fprintf(s.errw, "cannot compile: %v\n", err)
}

// printEvalError prints an evaluation failure at its place in the model.
func (s *Session) printEvalError(err error) {
	var ee *autodiff.EvalError
	if errors.As(err, &ee) && ee.Pos.Line > 0 {
		diag.Render(s.errw, &diag.Diagnostic{Pos: ee.Pos, Msg: ee.Msg}, s.sources[ee.Pos.Filename])
		return
	}
	fmt.Fprintf(s.errw, "cannot evaluate: %v\n", err)
}

// valueText formats a value with its shape: "scalar: 1.5", "vector of
// length 2: [1, 2]", or a matrix with one row a line.
func valueText(shape check.Shape, v []float64) string {
	switch shape.Rank() {
	case 0:
		return "scalar: " + num(v[0])
	case 1:
		return shape.String() + ": " + vecText(v)
	}
	var b strings.Builder
	b.WriteString(shape.String() + ":")
	rows, cols := shape[0], shape[1]
	for r := 0; r < rows; r++ {
		if r == 20 && rows > 24 {
			fmt.Fprintf(&b, "\n  ... %d more rows", rows-20)
			break
		}
		b.WriteString("\n  " + vecText(v[r*cols:(r+1)*cols]))
	}
	return b.String()
}

// vecText formats a vector; a long one is abbreviated with its extremes
// and norm.
func vecText(v []float64) string {
	const most = 50
	parts := make([]string, 0, min(len(v), most))
	for i, e := range v {
		if i == most-10 && len(v) > most {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, e := range v {
				lo, hi = math.Min(lo, e), math.Max(hi, e)
			}
			parts = append(parts, fmt.Sprintf("... (%d values: min %s, max %s, norm %s)", len(v), num(lo), num(hi), num(floats.Norm(v, 2))))
			break
		}
		parts = append(parts, num(e))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// showCmd is :show [NAME].
func (s *Session) showCmd(arg string, st Statement, col int) {
	if !s.needModel() {
		return
	}
	m := s.model
	if arg == "" {
		summary.Of("session", m, nil).Text(s.out)
		if len(m.Vars) > 0 {
			fmt.Fprintf(s.out, "current point: %s\n", s.cur.from)
		}
		if s.last != nil && s.last.gen != s.gen {
			fmt.Fprintln(s.out, "the model changed since the last solve")
		}
		return
	}
	if arg == "objective" && !slices.ContainsFunc(m.Groups, func(g *check.ConstraintGroup) bool { return g.Name == arg }) {
		if m.Objective == nil {
			s.fail("the model has no objective (minimize ...)")
			return
		}
		s.showFunctions(func(f autodiff.Function) bool { return f.Objective })
		return
	}
	base, _, _ := strings.Cut(arg, "[")
	for _, g := range m.Groups {
		if g.Name == base {
			s.showFunctions(func(f autodiff.Function) bool {
				return f.Constraint != nil && f.Constraint.Group.Name == base && (arg == base || f.Name == strings.ReplaceAll(arg, " ", ""))
			})
			return
		}
	}
	for _, v := range m.Vars {
		if v.Name == arg {
			fmt.Fprintf(s.out, "variable %s in %s, at %s:\n%s\n", v.Name, v.Domain, s.cur.from, valueText(v.Shape, v.Of(s.cur.x)))
			return
		}
	}
	for _, p := range m.Params {
		if p.Name == arg {
			fmt.Fprintf(s.out, "parameter %s = %s\n", p.Name, p.Expr)
			if v := valueText(p.Value.Shape, p.Value.Data); v != "scalar: "+p.Expr {
				fmt.Fprintln(s.out, v)
			}
			return
		}
	}
	for _, d := range m.Data {
		if d.Name == arg {
			sum := summary.Of("", &check.Model{Data: []*check.DataSet{d}}, nil)
			ds := sum.Data[0]
			fmt.Fprintf(s.out, "data set %s: %s %s, %d rows, %d features\n", d.Name, ds.Loader, ds.Path, ds.Rows, ds.Features)
			return
		}
	}
	for _, f := range m.Funcs {
		if f.Name == arg {
			fmt.Fprintln(s.out, declText(f.Decl, false))
			return
		}
	}
	var names []string
	for _, g := range m.Groups {
		names = append(names, g.Name)
	}
	names = append(names, s.names("")...)
	s.fail("%s:%d:%d: nothing is called %q%s", InputName, st.Line, col, arg, check.DidYouMean(arg, append(names, "objective")))
}

// showFunctions prints the value at the current point of the model's
// functions that match (the objective or constraint instances), with the
// slack and the last solve's multiplier of each constraint.
func (s *Session) showFunctions(match func(autodiff.Function) bool) {
	prog, _, err := s.program()
	if err != nil {
		s.failed = true
		s.printCompileError(err)
		return
	}
	fns := prog.Functions()
	vals := make([]float64, len(fns))
	if err := prog.Eval(s.cur.x, vals); err != nil {
		s.failed = true
		s.printEvalError(err)
		return
	}
	fmt.Fprintf(s.out, "at %s:\n", s.cur.from)
	tw := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
	header := false
	for i, f := range fns {
		if !match(f) {
			continue
		}
		if f.Objective {
			fmt.Fprintf(tw, "objective\t%s\n", num(vals[i]))
			continue
		}
		if !header {
			fmt.Fprintln(tw, "constraint\tf = lhs - rhs\tslack\tmultiplier")
			header = true
		}
		mult := "-"
		if s.last != nil {
			if v, ok := s.last.multipliers[f.Name]; ok {
				mult = num(v)
				if s.last.gen != s.gen {
					mult += " (before the model changed)"
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, num(vals[i]), num(0-vals[i]), mult) // 0 - v: never -0
	}
	tw.Flush()
}
