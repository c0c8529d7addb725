package weakconvex

import (
	"fmt"
	"slices"

	"github.com/qrc-lang/qrc/check"
)

// The conditional if C then A else B (docs/analysis.md, rule 12). Its value
// and subgradient are the branch's the condition takes, so:
//
//   - a condition that depends on no variable (an index's value, a data
//     value) takes one branch at each assignment: that branch's analysis;
//   - a condition the ranges on X decide (x[1] > 2 with x[1] in [3, 4])
//     likewise;
//   - if a > b then a else b (>=, or < with the branches swapped) is
//     max(a, b), and the min it mirrors is min(a, b): rules 7 and 8;
//   - any other condition on the variables is refused: where it changes,
//     the pieces may meet in a concave kink (if x > 0 then -x else x is
//     -|x|) or not meet at all (a jump), and the rules cannot tell.

// condIf analyses the conditional e.
func (a *analyzer) condIf(e *check.If, ix env) (value, string, error) {
	n := e.Shape().Size()
	if e.Cond.Deps()&check.DepVar == 0 {
		t, err := check.Eval(e.Cond, ix)
		if err != nil {
			return value{}, "", fmt.Errorf("%s: %v", e.Cond.Src().Pos(), err)
		}
		v, err := a.branch(e, t.Data[0] != 0, n, ix)
		return v, "if (the condition is fixed here)", err
	}
	holds, known, err := a.decide(e.Cond, ix)
	if err != nil {
		return value{}, "", err
	}
	if known {
		v, err := a.branch(e, holds, n, ix)
		return v, "if (the ranges on X decide the condition)", err
	}
	x, err := a.expr(e.Then, ix)
	if err != nil {
		return value{}, "", err
	}
	y, err := a.expr(e.Else, ix)
	if err != nil {
		return value{}, "", err
	}
	if cmp, ok := e.Cond.(*check.Compare); ok && n == 1 {
		// if p > q then A else B with {p, q} = {A, B}
		greater := cmp.Op == ">" || cmp.Op == ">="
		less := cmp.Op == "<" || cmp.Op == "<="
		straight := sameExpr(cmp.X, e.Then) && sameExpr(cmp.Y, e.Else)
		swapped := sameExpr(cmp.X, e.Else) && sameExpr(cmp.Y, e.Then)
		fs := []*fnv{x.at(0), y.at(0)}
		switch {
		case greater && straight || less && swapped:
			return value{el: []*fnv{a.maxOf(fs)}}, "if (max of its branches)", nil
		case greater && swapped || less && straight:
			return value{el: []*fnv{a.minOf(fs, e)}}, "if (min of its branches)", nil
		}
	}
	why := a.refuse(e, "a conditional whose condition depends on the variables and is not decided by their ranges on X: where the condition changes, its pieces may meet in a concave kink or not meet at all (a jump), which no rho covers; the rules prove only if a >= b then a else b (max(a, b)) and conditions the ranges decide")
	out := a.refusedValue(n, why)
	for i, f := range out.el { // its values are a branch's
		p, q := x.at(i).val, y.at(i).val
		f.val = Interval{min(p.Lo, q.Lo), max(p.Hi, q.Hi)}
	}
	return out, "if", nil
}

// branch is the analysis of e's then (holds) or else branch, broadcast to
// e's n elements, every element a function (a constant branch too).
func (a *analyzer) branch(e *check.If, holds bool, n int, ix env) (value, error) {
	b := e.Else
	if holds {
		b = e.Then
	}
	v, err := a.expr(b, ix)
	if err != nil {
		return value{}, err
	}
	out := make([]*fnv, n)
	for i := range out {
		out[i] = v.at(i)
	}
	return value{el: out}, nil
}

// decide reports whether the condition c holds everywhere on X (holds,
// known) or nowhere (!holds, known) by the ranges of its sides; known is
// false when the ranges overlap.
func (a *analyzer) decide(c check.Expr, ix env) (holds, known bool, err error) {
	if c.Deps()&check.DepVar == 0 {
		t, err := check.Eval(c, ix)
		if err != nil {
			return false, false, fmt.Errorf("%s: %v", c.Src().Pos(), err)
		}
		return t.Data[0] != 0, true, nil
	}
	switch c := c.(type) {
	case *check.Logic:
		x, kx, err := a.decide(c.X, ix)
		if err != nil || c.Op == "not" {
			return !x, kx, err
		}
		y, ky, err := a.decide(c.Y, ix)
		if err != nil {
			return false, false, err
		}
		switch {
		case c.Op == "and" && (kx && !x || ky && !y):
			return false, true, nil
		case c.Op == "or" && (kx && x || ky && y):
			return true, true, nil
		}
		if c.Op == "and" {
			return x && y, kx && ky, nil
		}
		return x || y, kx && ky, nil
	case *check.Compare:
		p, err := a.expr(c.X, ix)
		if err != nil {
			return false, false, err
		}
		q, err := a.expr(c.Y, ix)
		if err != nil {
			return false, false, err
		}
		P, Q := p.at(0).val, q.at(0).val
		switch c.Op {
		case ">":
			return P.Lo > Q.Hi, P.Lo > Q.Hi || P.Hi <= Q.Lo, nil
		case ">=":
			return P.Lo >= Q.Hi, P.Lo >= Q.Hi || P.Hi < Q.Lo, nil
		case "<":
			return P.Hi < Q.Lo, P.Hi < Q.Lo || P.Lo >= Q.Hi, nil
		case "<=":
			return P.Hi <= Q.Lo, P.Hi <= Q.Lo || P.Lo > Q.Hi, nil
		case "==", "!=":
			if P.Hi < Q.Lo || Q.Hi < P.Lo { // never equal
				return c.Op == "!=", true, nil
			}
		}
	}
	return false, false, nil
}

// sameExpr reports whether x and y are the same expression: the same node
// (a function's parameter used twice) or written alike (variables,
// indices, constants, arithmetic and built-ins of such). It errs towards
// false.
func sameExpr(x, y check.Expr) bool {
	if x == y {
		return true
	}
	switch x := x.(type) {
	case *check.Const:
		y, ok := y.(*check.Const)
		return ok && x.Value.Shape.Equal(y.Value.Shape) && slices.Equal(x.Value.Data, y.Value.Data)
	case *check.VarRef:
		y, ok := y.(*check.VarRef)
		return ok && x.Var == y.Var
	case *check.IndexVal:
		y, ok := y.(*check.IndexVal)
		return ok && x.Binder == y.Binder
	case *check.DataField:
		y, ok := y.(*check.DataField)
		return ok && x.Set == y.Set && x.Field == y.Field
	case *check.Index:
		y, ok := y.(*check.Index)
		return ok && sameExpr(x.X, y.X) && sameList(x.Idx, y.Idx)
	case *check.Neg:
		y, ok := y.(*check.Neg)
		return ok && sameExpr(x.X, y.X)
	case *check.Arith:
		y, ok := y.(*check.Arith)
		return ok && x.Op == y.Op && sameExpr(x.X, y.X) && sameExpr(x.Y, y.Y)
	case *check.Call:
		y, ok := y.(*check.Call)
		return ok && x.Func == y.Func && slices.Equal(x.Params, y.Params) && sameList(x.Args, y.Args)
	}
	return false
}

func sameList(xs, ys []check.Expr) bool {
	if len(xs) != len(ys) {
		return false
	}
	for i := range xs {
		if !sameExpr(xs[i], ys[i]) {
			return false
		}
	}
	return true
}
