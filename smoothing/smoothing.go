// Package smoothing compiles a model's smooth upper approximations: every
// kink of pos, abs, hinge, mcp and scad replaced by a continuously
// differentiable function with a parameter mu > 0 that lies above it and
// equals it outside a band of width mu around the kink (kinks.go), for the
// solver's smoothed oracle (solve.Smoothed, docs/solver.md).
//
// A model is smoothable when each such kink enters its function through
// sums and means and products with positive constants only (a nonnegative
// combination of kinks plus a kink-free rest) and has an argument affine in
// the variables, and the model has no other kink (no max over terms, no
// z^p with 0 < p < 1). Then, for every mu > 0 and every function,
//
//	f_mu >= f, and f(z) >= T(y) + <grad f_mu(y), z - y> + (the kink-free rest's curvature)
//
// where T(y) is the tangent value: the function with each kink replaced
// by the value at y of its affine minorant of slope k_mu'(t) (Tangent). The
// solver turns these two facts into a feasible point and a lower bound of
// the exact subproblem.
package smoothing

import (
	"fmt"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/stdlib"
)

// Smoothing is a model's smoothed and tangent programs, which share the
// parameter mu. It implements solve.Smoothing. Not safe for concurrent
// use.
type Smoothing struct {
	mu               float64
	smooth, tangents *autodiff.Program
}

// SetMu sets the smoothing parameter of the next evaluations (mu > 0).
func (s *Smoothing) SetMu(mu float64) { s.mu = mu }

// Eval stores the smoothed functions' values at x in vals.
func (s *Smoothing) Eval(x, vals []float64) error { return s.smooth.Eval(x, vals) }

// Grad stores in g the gradient of sum_i w[i] f_i,mu at the x of the last
// Eval.
func (s *Smoothing) Grad(w, g []float64) error { return s.smooth.Gradient(w, g) }

// Tangent stores the functions' tangent values at x in vals.
func (s *Smoothing) Tangent(x, vals []float64) error { return s.tangents.Eval(x, vals) }

// New compiles the smoothing of m. When m is not smoothable it returns
// nil and says why at the first obstacle (with its position).
func New(m *check.Model) (*Smoothing, string, error) {
	a := &analysis{kinks: map[check.Expr]bool{}, has: map[check.Expr]bool{}}
	for _, k := range check.Kinks(m) {
		a.kinks[k.Expr] = true
	}
	if len(a.kinks) == 0 {
		return nil, "the model has no kink", nil
	}
	var fs []check.Expr
	if m.Objective != nil {
		fs = append(fs, m.Objective.Expr)
	}
	for _, c := range m.Constraints {
		if c.IsEquality() {
			return nil, fmt.Sprintf("%s: %s is an equality", c.Group.Src.Pos(), c.Name), nil
		}
		fs = append(fs, c.F)
	}
	for _, f := range fs {
		if why := a.linear(f); why != "" {
			return nil, why, nil
		}
	}
	s := &Smoothing{mu: 1}
	var err error
	if s.smooth, err = autodiff.Compile(a.rewritten(m, &s.mu, false)); err != nil {
		return nil, "", err
	}
	if s.tangents, err = autodiff.Compile(a.rewritten(m, &s.mu, true)); err != nil {
		return nil, "", err
	}
	return s, "", nil
}

// analysis finds where the kinks of a model are and checks that they
// enter linearly.
type analysis struct {
	kinks map[check.Expr]bool // check.Kinks
	has   map[check.Expr]bool // hasKink's memo
}

// hasKink reports whether e or one of its operands is a kink.
func (a *analysis) hasKink(e check.Expr) bool {
	if e == nil {
		return false
	}
	if h, ok := a.has[e]; ok {
		return h
	}
	h := a.kinks[e]
	for _, o := range operands(e) {
		h = a.hasKink(o) || h
	}
	a.has[e] = h
	return h
}

// linear returns "" when every kink in e enters it with a positive
// constant coefficient through sums, means and products, as a built-in of
// kinks with an affine argument; else what is in the way, with its
// position.
func (a *analysis) linear(e check.Expr) string {
	if !a.hasKink(e) {
		return ""
	}
	at := func(msg string) string { return fmt.Sprintf("%s: %s", e.Src().Pos(), msg) }
	switch x := e.(type) {
	case *check.Call:
		if !a.kinks[e] {
			return at(fmt.Sprintf("a kink enters %s, which is not a sum, a mean or a product with a positive constant", x.Func.Name))
		}
		if _, ok := kinks[x.Func.Name]; !ok {
			return at(fmt.Sprintf("%s is not smoothed", x.Func.Name))
		}
		for i, arg := range x.Args {
			if a.hasKink(arg) {
				return at(fmt.Sprintf("a kink inside %s", x.Func.Name))
			}
			if i == 0 && !affine(arg) {
				return at(fmt.Sprintf("the argument of %s is not affine in the variables", x.Func.Name))
			}
		}
		return ""
	case *check.Arith:
		switch x.Op {
		case "+":
			if why := a.linear(x.X); why != "" {
				return why
			}
			return a.linear(x.Y)
		case "-":
			if a.hasKink(x.Y) {
				return at("a kink subtracted")
			}
			return a.linear(x.X)
		case "*":
			k, o := x.X, x.Y
			if a.hasKink(k) {
				k, o = o, k
			}
			if a.hasKink(k) || !positiveConst(k) {
				return at("a kink times something other than a positive constant")
			}
			return a.linear(o)
		case "/":
			if !positiveConst(x.Y) {
				return at("a kink divided by something other than a positive constant")
			}
			return a.linear(x.X)
		}
	case *check.Compr:
		if x.Op == "sum" || x.Op == "mean" {
			return a.linear(x.Body)
		}
	case *check.If:
		if a.kinks[e] {
			return at("a conditional (if) whose condition depends on the variables is not smoothed")
		}
		return at("a kink inside a conditional (if) is not smoothed")
	}
	return at("a kink enters through an operation other than a sum, a mean or a product with a positive constant")
}

// positiveConst reports whether e is a positive scalar constant.
func positiveConst(e check.Expr) bool {
	c, ok := e.(*check.Const)
	return ok && len(c.Value.Data) == 1 && c.Value.Data[0] > 0
}

// affine reports whether e is affine in the variables.
func affine(e check.Expr) bool {
	if e.Deps()&check.DepVar == 0 {
		return true
	}
	switch x := e.(type) {
	case *check.VarRef:
		return true
	case *check.Index:
		return affine(x.X)
	case *check.Neg:
		return affine(x.X)
	case *check.Arith:
		switch x.Op {
		case "+", "-":
			return affine(x.X) && affine(x.Y)
		case "*":
			return x.X.Deps()&check.DepVar == 0 && affine(x.Y) || x.Y.Deps()&check.DepVar == 0 && affine(x.X)
		case "/":
			return x.Y.Deps()&check.DepVar == 0 && affine(x.X)
		}
	case *check.Call:
		if x.Func.Kind == stdlib.Dot && len(x.Args) == 2 {
			return x.Args[0].Deps()&check.DepVar == 0 && affine(x.Args[1]) || x.Args[1].Deps()&check.DepVar == 0 && affine(x.Args[0])
		}
	case *check.Compr:
		return (x.Op == "sum" || x.Op == "mean") && affine(x.Body)
	}
	return false
}

// rewritten returns a copy of m whose functions have every kink replaced
// by its smoothing (tangent false) or tangent value (tangent true), both
// reading mu. The copy shares every kink-free subexpression with m.
func (a *analysis) rewritten(m *check.Model, mu *float64, tangent bool) *check.Model {
	r := &rewriter{a: a, mu: mu, tangent: tangent, done: map[check.Expr]check.Expr{}, funcs: map[string]*stdlib.Func{}}
	out := *m
	if m.Objective != nil {
		o := *m.Objective
		o.Expr = r.expr(o.Expr)
		out.Objective = &o
	}
	out.Constraints = make([]*check.Constraint, len(m.Constraints))
	for i, c := range m.Constraints {
		d := *c
		d.F = r.expr(c.F)
		out.Constraints[i] = &d
	}
	return &out
}

type rewriter struct {
	a       *analysis
	mu      *float64
	tangent bool
	done    map[check.Expr]check.Expr
	funcs   map[string]*stdlib.Func
}

func (r *rewriter) expr(e check.Expr) check.Expr {
	if !r.a.hasKink(e) {
		return e
	}
	if d, ok := r.done[e]; ok {
		return d
	}
	var out check.Expr
	switch x := e.(type) {
	case *check.Call: // a kink (analysis.linear)
		c := *x
		f := r.funcs[x.Func.Name]
		if f == nil {
			f = smoothFunc(x.Func, kinks[x.Func.Name], r.mu, r.tangent)
			r.funcs[x.Func.Name] = f
		}
		c.Func = f
		out = &c
	case *check.Arith:
		c := *x
		c.X, c.Y = r.expr(x.X), r.expr(x.Y)
		out = &c
	case *check.Compr:
		c := *x
		c.Body = r.expr(x.Body)
		out = &c
	default:
		out = e // linear admits no other kind of node with a kink
	}
	r.done[e] = out
	return out
}

// operands returns e's operands (check.Walk's order).
func operands(e check.Expr) []check.Expr {
	var out []check.Expr
	first := true
	check.Walk(e, func(x check.Expr) bool {
		if first {
			first = false
			return true
		}
		out = append(out, x)
		return false
	})
	return out
}
