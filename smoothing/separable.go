package smoothing

import (
	"fmt"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/stdlib"
)

// SepTerm is Coef times the kink Name (pos, abs, hinge, mcp or scad)
// with the parameters Params (mcp's and scad's lambda and gamma or a) of
// the single variable Var (its flat index, check.Var.Offset).
type SepTerm struct {
	Var    int
	Name   string
	Coef   float64
	Params []float64
}

// SeparableForm is a model whose objective is a continuously
// differentiable rest plus separable kinks (Terms) and whose constraints
// have no kink, for the solver's prox oracle (solve.Prox). Lo and Hi are
// the kinked variables' boxes (len N; infinite ends for none). Eval and
// Grad compute the rest: the objective with every kink taken out, and the
// constraints. Not safe for concurrent use.
type SeparableForm struct {
	Terms  []SepTerm
	Lo, Hi []float64
	rest   *autodiff.Program
}

// Eval stores the rest of the objective and the constraints at x in vals.
func (f *SeparableForm) Eval(x, vals []float64) error { return f.rest.Eval(x, vals) }

// Grad stores in g the gradient of sum_i w[i] (rest of f_i) at the x of
// the last Eval.
func (f *SeparableForm) Grad(w, g []float64) error { return f.rest.Gradient(w, g) }

// Pieces returns t as a continuous piecewise quadratic: its breakpoints
// and, on each interval (the first from -Inf, the last to +Inf), the
// coefficients (a, b, c) of a z^2 + b z + c, scaled by Coef.
func (t SepTerm) Pieces() (breaks []float64, q [][3]float64) {
	c := t.Coef
	switch t.Name {
	case "pos":
		breaks, q = []float64{0}, [][3]float64{{0, 0, 0}, {0, 1, 0}}
	case "abs":
		breaks, q = []float64{0}, [][3]float64{{0, -1, 0}, {0, 1, 0}}
	case "hinge": // pos(1 - z)
		breaks, q = []float64{1}, [][3]float64{{0, -1, 1}, {0, 0, 0}}
	case "mcp": // lambda |z| - z^2/(2 gamma) for |z| <= gamma lambda, gamma lambda^2/2 beyond
		lam, gam := t.Params[0], t.Params[1]
		top := gam * lam * lam / 2
		breaks = []float64{-gam * lam, 0, gam * lam}
		q = [][3]float64{{0, 0, top}, {-1 / (2 * gam), -lam, 0}, {-1 / (2 * gam), lam, 0}, {0, 0, top}}
	case "scad": // lambda |z|; (2 a lambda |z| - z^2 - lambda^2) / (2 (a-1)); lambda^2 (a+1)/2
		lam, a := t.Params[0], t.Params[1]
		top := lam * lam * (a + 1) / 2
		k := 1 / (2 * (a - 1))
		breaks = []float64{-a * lam, -lam, 0, lam, a * lam}
		q = [][3]float64{{0, 0, top}, {-k, -2 * a * lam * k, -lam * lam * k}, {0, -lam, 0}, {0, lam, 0}, {-k, 2 * a * lam * k, -lam * lam * k}, {0, 0, top}}
	default:
		return nil, nil
	}
	for i := range q {
		for k := range q[i] {
			q[i][k] *= c
		}
	}
	return breaks, q
}

// Separable returns m as a SeparableForm when every kink is a pos, abs,
// hinge, mcp or scad call on a single variable (the argument exactly one
// scalar variable, coefficient 1, no constant), entering the objective
// through sums, means and products with positive constants, the
// constraints have no kink, and each kinked variable's domain is a box or
// unbounded. Otherwise it returns nil and why, with the position of the
// first obstacle.
func Separable(m *check.Model) (*SeparableForm, string, error) {
	a := &analysis{kinks: map[check.Expr]bool{}, has: map[check.Expr]bool{}}
	for _, k := range check.Kinks(m) {
		a.kinks[k.Expr] = true
	}
	if len(a.kinks) == 0 {
		return nil, "the model has no kink", nil
	}
	if m.Objective == nil {
		return nil, "the model has no objective", nil
	}
	for _, c := range m.Constraints {
		if a.hasKink(c.F) {
			return nil, fmt.Sprintf("%s: constraint %s has a kink", c.Group.Src.Pos(), c.Name), nil
		}
	}
	if why := a.linear(m.Objective.Expr); why != "" {
		return nil, why, nil
	}
	d := domainOf(m)
	if d == nil {
		return nil, "a variable's domain is not a box, a ball or balls on rows", nil
	}
	b := &sepBuilder{pieceBuilder: pieceBuilder{a: a, n: m.NumScalars}}
	if err := b.walk(m.Objective.Expr, 1, map[*check.Binder]int{}); err != nil {
		if w, ok := err.(whyError); ok {
			return nil, string(w), nil
		}
		return nil, "", err
	}
	f := &SeparableForm{Terms: b.terms, Lo: d.Lo, Hi: d.Hi}
	for _, t := range f.Terms {
		if d.Ball[t.Var] >= 0 {
			return nil, fmt.Sprintf("a kinked variable (scalar %d) lies in a ball, not a box", t.Var+1), nil
		}
	}
	rest, err := autodiff.Compile(withoutKinks(a, m))
	if err != nil {
		return nil, "", err
	}
	f.rest = rest
	return f, "", nil
}

// sepBuilder collects the separable kinks of an objective.
type sepBuilder struct {
	pieceBuilder
	terms []SepTerm
}

// walk adds the kinks of c times e, with the indices bound in env, as
// terms; kink-free parts are the rest's.
func (b *sepBuilder) walk(e check.Expr, c float64, env map[*check.Binder]int) error {
	return b.combination(e, c, env, b.kinkTerm, func(check.Expr, float64, map[*check.Binder]int) error { return nil })
}

// kinkTerm adds c times the kink x, of a single variable, as a term.
func (b *sepBuilder) kinkTerm(x *check.Call, c float64, env map[*check.Binder]int) error {
	notSep := func() error {
		return whyError(fmt.Sprintf("%s: the argument of %s is not a single variable", x.Src().Pos(), x.Func.Name))
	}
	af, err := b.affine(x.Args[0], env)
	if err != nil {
		return err
	}
	if len(af) != 1 || af[0].c != 0 {
		return notSep()
	}
	j, nz := -1, 0
	for _, t := range af[0].terms {
		if t.v != 0 {
			j, nz = t.j, nz+1
			if t.v != 1 {
				return notSep()
			}
		}
	}
	if nz != 1 {
		return notSep()
	}
	if !(c > 0) {
		return whyError(fmt.Sprintf("%s: %s enters with the coefficient %g", x.Src().Pos(), x.Func.Name, c))
	}
	t := SepTerm{Var: j, Name: x.Func.Name, Coef: c, Params: append([]float64(nil), x.Params...)}
	if len(t.Params) < x.Func.ParamArgs {
		return whyError(fmt.Sprintf("%s: %s has %d parameters", x.Src().Pos(), x.Func.Name, len(t.Params)))
	}
	if br, _ := t.Pieces(); br == nil {
		return whyError(fmt.Sprintf("%s: %s is not a separable kink", x.Src().Pos(), x.Func.Name))
	}
	b.terms = append(b.terms, t)
	return nil
}

// withoutKinks returns a copy of m whose objective has every kink
// replaced by 0 (a function of the kink's arguments that is 0, so the
// compiled program keeps their shapes).
func withoutKinks(a *analysis, m *check.Model) *check.Model {
	var mu float64
	r := &rewriter{a: a, mu: &mu, done: map[check.Expr]check.Expr{}, funcs: map[string]*stdlib.Func{}}
	for name := range kinks {
		r.funcs[name] = zeroFunc(stdlib.Lookup(name))
	}
	out := *m
	o := *m.Objective
	o.Expr = r.expr(o.Expr)
	out.Objective = &o
	return &out
}

// zeroFunc is a built-in with orig's signature that is 0 everywhere.
func zeroFunc(orig *stdlib.Func) *stdlib.Func {
	props := orig.Props
	props.Smooth = true
	return &stdlib.Func{
		Name: orig.Name + "~rest", MinArgs: orig.MinArgs, MaxArgs: orig.MaxArgs, Kind: orig.Kind, ParamArgs: orig.ParamArgs,
		Doc: orig.Doc, Props: props,
		Scalar:     func(float64, []float64) float64 { return 0 },
		Deriv:      func(float64, []float64) float64 { return 0 },
		ValueDeriv: func(float64, []float64) (float64, float64) { return 0, 0 },
		PropsAt: func(p []float64) stdlib.Props {
			q := orig.PropsFor(p)
			q.Smooth = true
			return q
		},
		CheckParams: orig.CheckParams,
	}
}
