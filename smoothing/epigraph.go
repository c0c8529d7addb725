package smoothing

import (
	"fmt"
	"math"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/solve"
)

// Epigraph returns m's functions in epigraph form (solve.EpigraphForm) when
// each is convex and piecewise linear by its form, as a modelling
// language's canonicalisation would lift it (CVXPY's, AMPL's): an affine
// function of the variables plus, with nonnegative coefficients (through
// sums, means, differences with affine terms and products and quotients
// by positive constants), kink terms, each of which becomes an epigraph
// variable t with rows t >= piece:
//
//   - pos(u) and max(u1, u2, ...) of convex piecewise-linear arguments
//     (they are nondecreasing, so their arguments may themselves be
//     kinks), and a max comprehension over such terms;
//   - abs(a), hinge(a), norm1(a), norminf(a) and max(a) of a vector, of
//     affine arguments a.
//
// Equality constraints must be affine, and every variable's domain a box
// or all of R^n. Otherwise it returns nil and why, with the position of
// the first obstacle. The caller should check its values against the
// compiled program's (it assumes the variables' flat layout
// check.Var.Offset, row-major).
func Epigraph(m *check.Model) (*solve.EpigraphForm, string, error) {
	a := &analysis{kinks: map[check.Expr]bool{}, has: map[check.Expr]bool{}}
	for _, k := range check.Kinks(m) {
		a.kinks[k.Expr] = true
	}
	if len(a.kinks) == 0 {
		return nil, "the model has no kink", nil
	}
	n := m.NumScalars
	g := &solve.EpigraphForm{N: n, M: len(m.Constraints), Ptr: []int{0}, CPtr: []int{0}, Lo: make([]float64, n), Hi: make([]float64, n)}
	for j := range n {
		g.Lo[j], g.Hi[j] = math.Inf(-1), math.Inf(1)
	}
	for _, v := range m.Vars {
		if v.Domain == nil {
			continue
		}
		switch dom := v.Domain; dom.Kind {
		case domain.Unbounded:
		case domain.Box:
			copy(g.Lo[v.Offset:v.Offset+v.Size], dom.Lo)
			copy(g.Hi[v.Offset:v.Offset+v.Size], dom.Hi)
		default:
			return nil, fmt.Sprintf("%s: the domain of %s is not a box", v.Decl.Pos(), v.Name), nil
		}
	}
	b := &epiBuilder{pb: &pieceBuilder{a: a, n: n}, a: a, g: g, acc: map[int]float64{}}
	fs := make([]check.Expr, 0, len(m.Constraints)+1)
	if m.Objective != nil {
		fs = append(fs, m.Objective.Expr)
	} else {
		fs = append(fs, nil)
	}
	for _, c := range m.Constraints {
		if c.IsEquality() && a.hasKink(c.F) {
			return nil, fmt.Sprintf("%s: %s is an equality with a kink", c.Group.Src.Pos(), c.Name), nil
		}
		fs = append(fs, c.F)
	}
	for _, f := range fs {
		var af affElem
		if f != nil {
			var err error
			af, err = b.epi(f, map[*check.Binder]int{})
			if err != nil {
				if w, ok := err.(whyError); ok {
					return nil, string(w), nil
				}
				return nil, "", err
			}
		}
		b.function(af)
		if len(g.Col)+len(g.CCol) > maxPieceEntries {
			return nil, fmt.Sprintf("the epigraph form has more than %d nonzero coefficients", maxPieceEntries), nil
		}
	}
	if err := g.Check(); err != nil {
		return nil, "", err
	}
	return g, "", nil
}

// epiBuilder builds an Epigraph: pb gives the affine forms of kink-free
// terms and the bindings of comprehensions; the forms epi returns are
// affine in (x, t), t's column N+k.
type epiBuilder struct {
	pb  *pieceBuilder
	a   *analysis
	g   *solve.EpigraphForm
	acc map[int]float64 // a row's columns being merged
}

// epi is an affine form in (x, t) whose minimum over the epigraph rows is
// the convex piecewise-linear e, with the indices bound in env; its
// coefficients on t are nonnegative.
func (b *epiBuilder) epi(e check.Expr, env map[*check.Binder]int) (affElem, error) {
	if !b.a.hasKink(e) {
		return b.scalarAffine(e, env)
	}
	notConvex := func(what string) error {
		return whyError(fmt.Sprintf("%s: %s", e.Src().Pos(), what))
	}
	switch x := e.(type) {
	case *check.Arith:
		switch x.Op {
		case "+":
			l, err := b.epi(x.X, env)
			if err != nil {
				return l, err
			}
			r, err := b.epi(x.Y, env)
			return sumAff(l, r, 1), err
		case "-":
			if b.a.hasKink(x.Y) {
				return affElem{}, notConvex("a kink is subtracted (a concave term)")
			}
			l, err := b.epi(x.X, env)
			if err != nil {
				return l, err
			}
			r, err := b.scalarAffine(x.Y, env)
			return sumAff(l, r, -1), err
		case "*", "/":
			k, o := x.X, x.Y
			if x.Op == "/" || b.a.hasKink(k) {
				k, o = o, k
			}
			if x.Op == "/" && k != x.Y || b.a.hasKink(k) {
				return affElem{}, notConvex("a kink divided by or multiplied with a kink")
			}
			v, err := b.pb.constant(k, env)
			if err != nil {
				return affElem{}, err
			}
			if x.Op == "/" {
				v = 1 / v
			}
			if !(v >= 0) || math.IsInf(v, 0) {
				return affElem{}, notConvex("a kink with a coefficient that is not a nonnegative number")
			}
			f, err := b.epi(o, env)
			return sumAff(affElem{}, f, v), err
		}
	case *check.Compr:
		switch x.Op {
		case "sum", "mean":
			var s affElem
			err := b.pb.each(x, 1, env, func(c float64, inner map[*check.Binder]int) error {
				f, err := b.epi(x.Body, inner)
				addAff(&s, f, c)
				return err
			})
			return s, err
		case "max":
			if !x.Body.Shape().IsScalar() {
				return affElem{}, notConvex("a max comprehension over terms that are not scalars")
			}
			var pieces []affElem
			all := *x
			all.Op = "sum" // every binding, as a sum runs over them
			err := b.pb.each(&all, 1, env, func(_ float64, inner map[*check.Binder]int) error {
				f, err := b.epi(x.Body, inner)
				pieces = append(pieces, f)
				return err
			})
			if err != nil {
				return affElem{}, err
			}
			if len(pieces) == 0 {
				return affElem{}, notConvex("a max over no terms")
			}
			return b.lift(math.Inf(-1), pieces...), nil
		}
		return affElem{}, notConvex(fmt.Sprintf("a %s comprehension of kinks is not convex", x.Op))
	case *check.Call:
		name := x.Func.Name
		if !x.Shape().IsScalar() {
			return affElem{}, notConvex(fmt.Sprintf("%s of a vector elementwise", name))
		}
		switch name {
		case "pos":
			f, err := b.epi(x.Args[0], env)
			if err != nil {
				return f, err
			}
			return b.lift(0, f), nil
		case "max":
			if len(x.Args) == 1 {
				af, err := b.vectorAffine(x.Args[0], env)
				if err != nil {
					return affElem{}, err
				}
				return b.lift(math.Inf(-1), af...), nil
			}
			pieces := make([]affElem, len(x.Args))
			for k, arg := range x.Args {
				if !arg.Shape().IsScalar() {
					return affElem{}, notConvex("max of arguments that are not scalars")
				}
				f, err := b.epi(arg, env)
				if err != nil {
					return f, err
				}
				pieces[k] = f
			}
			return b.lift(math.Inf(-1), pieces...), nil
		case "hinge":
			a, err := b.scalarAffine(x.Args[0], env)
			if err != nil {
				return a, err
			}
			return b.lift(0, sumAff(affElem{c: 1}, a, -1)), nil
		case "abs":
			a, err := b.scalarAffine(x.Args[0], env)
			if err != nil {
				return a, err
			}
			return b.lift(0, a, sumAff(affElem{}, a, -1)), nil
		case "norm1", "norminf":
			af, err := b.vectorAffine(x.Args[0], env)
			if err != nil {
				return affElem{}, err
			}
			if name == "norminf" {
				pieces := make([]affElem, 0, 2*len(af))
				for _, a := range af {
					pieces = append(pieces, a, sumAff(affElem{}, a, -1))
				}
				return b.lift(0, pieces...), nil
			}
			var s affElem
			for _, a := range af {
				addAff(&s, b.lift(0, a, sumAff(affElem{}, a, -1)), 1)
			}
			return s, nil
		}
		return affElem{}, notConvex(name + " is not a convex piecewise-linear kink")
	case *check.Neg:
		return affElem{}, notConvex("a kink is negated (a concave term)")
	case *check.If:
		return affElem{}, notConvex("a conditional (if) on the variables")
	}
	return affElem{}, notConvex("a kink enters through an operation other than a sum, a mean, a max or a product with a nonnegative constant")
}

// scalarAffine is the kink-free scalar e as an affine form.
func (b *epiBuilder) scalarAffine(e check.Expr, env map[*check.Binder]int) (affElem, error) {
	af, err := b.vectorAffine(e, env)
	if err != nil {
		return affElem{}, err
	}
	if len(af) != 1 {
		return affElem{}, whyError(fmt.Sprintf("%s: a term that is not a scalar", e.Src().Pos()))
	}
	return af[0], nil
}

// vectorAffine is the kink-free e's elements as affine forms.
func (b *epiBuilder) vectorAffine(e check.Expr, env map[*check.Binder]int) ([]affElem, error) {
	if b.a.hasKink(e) {
		return nil, whyError(fmt.Sprintf("%s: a kink where an affine argument is needed", e.Src().Pos()))
	}
	if st, ok := e.(*check.Stack); ok {
		// a list of expressions: each element's own form
		out := make([]affElem, 0, len(st.Elems))
		for _, x := range st.Elems {
			af, err := b.pb.affine(x, env)
			if err != nil {
				return nil, err
			}
			out = append(out, af...)
		}
		return out, nil
	}
	return b.pb.affine(e, env)
}

// lift adds an epigraph variable t >= floor with a row t >= p for each
// piece, and returns t's form. The pieces' own variables come before it,
// as EpigraphForm's order needs.
func (b *epiBuilder) lift(floor float64, pieces ...affElem) affElem {
	g := b.g
	k := g.Aux
	g.Aux++
	g.Floor = append(g.Floor, floor)
	for _, p := range pieces {
		b.merge(p, &g.Col, &g.Val)
		g.Ptr = append(g.Ptr, len(g.Col))
		g.B = append(g.B, p.c)
		g.Def = append(g.Def, int32(k))
	}
	return affElem{terms: []affTerm{{g.N + k, 1}}}
}

// function ends the next function with the form f.
func (b *epiBuilder) function(f affElem) {
	g := b.g
	b.merge(f, &g.CCol, &g.CVal)
	g.CPtr = append(g.CPtr, len(g.CCol))
	g.E = append(g.E, f.c)
}

// merge appends f's terms, one entry per column (in the order first
// seen), dropping zeros.
func (b *epiBuilder) merge(f affElem, col *[]int32, val *[]float64) {
	clear(b.acc)
	order := make([]int, 0, len(f.terms))
	for _, t := range f.terms {
		if _, ok := b.acc[t.j]; !ok {
			order = append(order, t.j)
		}
		b.acc[t.j] += t.v
	}
	for _, j := range order {
		if v := b.acc[j]; v != 0 {
			*col = append(*col, int32(j))
			*val = append(*val, v)
		}
	}
}

// sumAff is l + s r.
func sumAff(l, r affElem, s float64) affElem {
	out := affElem{c: l.c + s*r.c, terms: make([]affTerm, 0, len(l.terms)+len(r.terms))}
	out.terms = append(out.terms, l.terms...)
	for _, t := range r.terms {
		out.terms = append(out.terms, affTerm{t.j, s * t.v})
	}
	return out
}

// addAff adds s r to l in place.
func addAff(l *affElem, r affElem, s float64) {
	l.c += s * r.c
	for _, t := range r.terms {
		l.terms = append(l.terms, affTerm{t.j, s * t.v})
	}
}
