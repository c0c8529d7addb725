package problem

import (
	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/stdlib"
)

// Constraint describes one constraint f_i of the Problem New builds, in
// the order of f1..fM (Problem.Names[i-1] is its name): its sense, and
// whether the compiler can tell that it is affine.
type Constraint struct {
	Name string
	// Equality reports the constraint f_i(x) = 0, written lhs == rhs with
	// f_i = lhs - rhs, instead of f_i(x) <= 0. The Problem's Eval, Grad
	// and Jacobian compute f_i the same way for both senses.
	Equality bool
	// Affine reports that f_i is affine in the variables by its form:
	// variables, constants and data combined by +, -, multiplication or
	// division by a constant, dot with a constant, and sum or mean (an
	// affine equality can stay exact in a strongly convex subproblem).
	// False says only that the form does not show it.
	Affine bool
	Pos    ast.Pos // the constraint's declaration (its name)
}

// Constraints describes m's constraints, in the order of f1..fM.
func Constraints(m *check.Model) []Constraint {
	memo := map[check.Expr]bool{}
	out := make([]Constraint, len(m.Constraints))
	for i, c := range m.Constraints {
		out[i] = Constraint{Name: c.Name, Equality: c.IsEquality(), Affine: isAffine(c.F, memo)}
		if c.Group != nil && c.Group.Src != nil {
			out[i].Pos = c.Group.Src.Name.Pos()
		}
	}
	return out
}

// HasEquality reports whether any of cs is an equality.
func HasEquality(cs []Constraint) bool {
	for _, c := range cs {
		if c.Equality {
			return true
		}
	}
	return false
}

// isAffine reports whether e is affine in the variables by its form.
func isAffine(e check.Expr, memo map[check.Expr]bool) bool {
	if e.Deps()&check.DepVar == 0 {
		return true
	}
	if r, ok := memo[e]; ok {
		return r
	}
	konst := func(x check.Expr) bool { return x.Deps()&check.DepVar == 0 }
	r := false
	switch e := e.(type) {
	case *check.VarRef:
		r = true
	case *check.Index:
		r = isAffine(e.X, memo)
	case *check.Neg:
		r = isAffine(e.X, memo)
	case *check.Arith:
		switch e.Op {
		case "+", "-":
			r = isAffine(e.X, memo) && isAffine(e.Y, memo)
		case "*":
			r = konst(e.X) && isAffine(e.Y, memo) || konst(e.Y) && isAffine(e.X, memo)
		case "/":
			r = konst(e.Y) && isAffine(e.X, memo)
		case "^":
			k, ok := e.Y.(*check.Const)
			r = ok && len(k.Value.Data) == 1 && k.Value.Data[0] == 1 && isAffine(e.X, memo)
		}
	case *check.Call:
		switch {
		case e.Func.Kind == stdlib.Dot:
			r = konst(e.Args[0]) && isAffine(e.Args[1], memo) || konst(e.Args[1]) && isAffine(e.Args[0], memo)
		case e.Func.Name == "sum" || e.Func.Name == "mean":
			r = len(e.Args) == 1 && isAffine(e.Args[0], memo)
		}
	case *check.Compr:
		r = (e.Op == "sum" || e.Op == "mean") && isAffine(e.Body, memo)
	}
	memo[e] = r
	return r
}
