package check

import (
	"fmt"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/diag"
)

// CheckExpr checks the expression e in the global scope of the checked
// model m, as if it were written in one of m's declarations: it may use m's
// data sets, parameters, variables and functions. It is how the REPL checks
// the expressions of :eval and :grad. It returns the checked expression, or
// nil and the errors (with e's own positions). m is not changed.
func CheckExpr(m *Model, e ast.Expr) (x Expr, diags diag.List) {
	return checkExpr(m, e, false)
}

// CheckEvalExpr is CheckExpr for an expression that is only evaluated,
// never differentiated (the REPL's :eval, qrc eval --metric): a comparison
// such as people.y[i] * score(i) > 0 is allowed there, anywhere, and is 1
// when it holds and 0 otherwise; and, or and not combine such values. In
// the objective or a constraint a comparison stays an error.
func CheckEvalExpr(m *Model, e ast.Expr) (x Expr, diags diag.List) {
	return checkExpr(m, e, true)
}

func checkExpr(m *Model, e ast.Expr, evalOnly bool) (x Expr, diags diag.List) {
	c := &checker{
		evalOnly: evalOnly,
		m:        m,
		globals:  map[string]*global{},
		seen:     map[string]bool{},
		rejected: map[string]bool{},
	}
	for _, d := range m.Data {
		c.addChecked(&global{name: d.Name, kind: "data set", decl: d.Decl, data: d})
	}
	for _, p := range m.Params {
		c.addChecked(&global{name: p.Name, kind: "parameter", decl: p.Decl, param: p})
	}
	used := make([]bool, len(m.Vars))
	for i, v := range m.Vars {
		used[i] = v.Used
		c.addChecked(&global{name: v.Name, kind: "variable", decl: v.Decl, v: v})
	}
	defer func() { // checking marks the variables it meets as used
		for i, v := range m.Vars {
			v.Used = used[i]
		}
	}()
	for _, f := range m.Funcs {
		c.addChecked(&global{name: f.Name, kind: "function", decl: f.Decl, fn: f})
	}
	defer func() {
		if r := recover(); r != nil {
			x = nil
			diags = append(c.errs, &diag.Diagnostic{Pos: e.Pos(), Msg: fmt.Sprintf("internal error: checker failed: %v", r)})
		}
	}()
	x = c.expr(e, nil)
	c.errs.Sort()
	if x == nil || c.errs.HasErrors() {
		if !c.errs.HasErrors() {
			c.errorf(e, "cannot check the expression")
		}
		return nil, c.errs.Errors()
	}
	return x, nil
}

// addChecked declares a global that is already checked.
func (c *checker) addChecked(g *global) {
	g.state, g.ok = 2, true
	c.globals[g.name] = g
	c.order = append(c.order, g)
}

// Elements returns the scalar elements of e in row-major order: e itself
// when it is a scalar, else e[1], e[2], ... for a vector and e[1, 1],
// e[1, 2], ... for a matrix.
func Elements(e Expr) []Expr {
	shape := e.Shape()
	if shape.IsScalar() {
		return []Expr{e}
	}
	out := make([]Expr, 0, shape.Size())
	idx := make([]int, len(shape))
	for k := 0; k < shape.Size(); k++ {
		rest := k
		for a := len(shape) - 1; a >= 0; a-- {
			idx[a] = rest%shape[a] + 1
			rest /= shape[a]
		}
		el := &Index{node: node{dep: e.Deps(), src: e.Src()}, X: e}
		for _, i := range idx {
			el.Idx = append(el.Idx, &Const{node: node{src: e.Src()}, Value: Scalar(float64(i))})
		}
		out = append(out, el)
	}
	return out
}
