package smoothing

import (
	"fmt"
	"math"
	"slices"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/solve"
)

// Epigraph returns m's functions in epigraph form (solve.EpigraphForm), as
// a modelling language's canonicalisation would lift them (CVXPY's,
// AMPL's): each function is a kink-free rest plus, with nonnegative
// coefficients (through sums, means, differences with kink-free terms and
// products and quotients by positive constants), kink terms, each of
// which becomes an epigraph variable t with rows t >= piece:
//
//   - pos(u) and max(u1, u2, ...) whose arguments are kink-free or
//     themselves such terms (pos and max are nondecreasing), and a max
//     comprehension over them;
//   - abs(s), hinge(s), norm1(s), norminf(s) and max(s) of a vector, of
//     kink-free arguments s.
//
// A kink-free term is affine, or smooth and nonlinear: then it is one of
// the form's smooth functions (EpigraphForm.Smooth, compiled from the
// term with its comprehensions' indices bound, check.Bind), a sum over an
// index range split into its terms so that each depends on few variables.
// With only affine terms the form is a linear program (each function
// convex and piecewise linear); with smooth ones each function is the
// convex piecewise-linear outer part composed with them, whose minimum
// over t is the function (the t enter with nonnegative coefficients).
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
	g := &solve.EpigraphForm{N: n, M: len(m.Constraints), Ptr: []int{0}, CPtr: []int{0}, SPtr: []int{0}, FSPtr: []int{0}, Lo: make([]float64, n), Hi: make([]float64, n)}
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
			return nil, fmt.Sprintf("%s: the domain of %s is not a box", v.Decl.Name.Pos(), v.Name), nil
		}
	}
	b := &epiBuilder{pb: &pieceBuilder{a: a, n: n}, a: a, g: g, acc: map[int]float64{}, sacc: map[int32]float64{}, m: m}
	fs := make([]check.Expr, 0, len(m.Constraints)+1)
	if m.Objective != nil {
		fs = append(fs, m.Objective.Expr)
	} else {
		fs = append(fs, nil)
	}
	for _, c := range m.Constraints {
		fs = append(fs, c.F)
	}
	for i, f := range fs {
		var ef epiForm
		if f != nil {
			var err error
			ef, err = b.epi(f, map[*check.Binder]int{})
			if err != nil {
				if w, ok := err.(whyError); ok {
					return nil, string(w), nil
				}
				return nil, "", err
			}
		}
		if i > 0 && m.Constraints[i-1].IsEquality() && (len(ef.sm) > 0 || a.hasKink(f)) {
			c := m.Constraints[i-1]
			return nil, fmt.Sprintf("%s: %s is an equality that is not affine", c.Group.Src.Pos(), c.Name), nil
		}
		b.function(ef)
		if b.tooBig {
			return nil, fmt.Sprintf("the epigraph form has more than %d rows", maxEpigraphRows), nil
		}
		if len(g.Col)+len(g.CCol)+b.supportSize > maxPieceEntries {
			return nil, fmt.Sprintf("the epigraph form has more than %d nonzero coefficients", maxPieceEntries), nil
		}
	}
	if len(b.leaves) == 0 {
		g.SPtr, g.FSPtr, g.SOut, g.FSOut, g.SCoef, g.FSCoef = nil, nil, nil, nil, nil, nil
	} else {
		names := make([]string, len(b.leaves))
		for k, e := range b.leaves {
			names[k] = fmt.Sprintf("smooth term %d (%s)", k+1, e.Src().Pos())
		}
		prog, err := autodiff.CompileExprs(n, b.leaves, names)
		if err != nil {
			return nil, "", err
		}
		g.Smooth = &solve.EpigraphSmooth{K: len(b.leaves), Eval: prog.Eval, Grad: prog.Gradient, Support: b.supports, Kinked: b.kinked}
	}
	if err := g.Check(); err != nil {
		return nil, "", err
	}
	return g, "", nil
}

// epiForm is an affine form in (x, t) plus smooth terms: coefficient c
// times the form's smooth function k.
type epiForm struct {
	affElem
	sm []smTerm
}

type smTerm struct {
	k int32
	c float64
}

// epiBuilder builds an Epigraph: pb gives the affine forms of kink-free
// terms and the bindings of comprehensions; the forms epi returns are
// affine in (x, t), t's column N+k, plus smooth terms.
type epiBuilder struct {
	pb   *pieceBuilder
	a    *analysis
	g    *solve.EpigraphForm
	m    *check.Model
	acc  map[int]float64 // a row's columns being merged
	sacc map[int32]float64
	// leaves are the smooth functions (bound expressions) and their
	// supports; supportSize counts the supports' entries
	leaves      []check.Expr
	supports    [][]int32
	supportSize int
	kinked      string // the first kink left inside a smooth function, and why
	tooBig      bool   // the rows passed maxEpigraphRows
}

// maxEpigraphRows bounds the form's rows (about 40 bytes each beside their
// entries).
const maxEpigraphRows = 5_000_000

// epi is a form whose minimum over the epigraph rows is e, with the
// indices bound in env; its coefficients on t are nonnegative.
func (b *epiBuilder) epi(e check.Expr, env map[*check.Binder]int) (epiForm, error) {
	notConvex := func(what string) error {
		return whyError(fmt.Sprintf("%s: %s", e.Src().Pos(), what))
	}
	if !b.a.hasKink(e) {
		return b.kinkFree(e, env)
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
			return sumForm(l, r, 1), err
		case "-":
			if b.a.hasKink(x.Y) {
				return b.kinkedLeaf(e, env, "a kink is subtracted (a concave term)"), nil
			}
			l, err := b.epi(x.X, env)
			if err != nil {
				return l, err
			}
			r, err := b.kinkFree(x.Y, env)
			return sumForm(l, r, -1), err
		case "*", "/":
			v, o, err := b.coefficient(x, env)
			if err == errNotSplit {
				return b.kinkedLeaf(e, env, "a kink multiplied with or divided by a term that depends on the variables"), nil
			}
			if err != nil {
				return epiForm{}, err
			}
			if !(v >= 0) {
				return b.kinkedLeaf(e, env, "a kink with a negative coefficient (a concave term)"), nil
			}
			f, err := b.epi(o, env)
			return sumForm(epiForm{}, f, v), err
		}
	case *check.Compr:
		if b.terms(x, env) > maxEpigraphTerms {
			return epiForm{}, notConvex(fmt.Sprintf("a comprehension of kinks over more than %d terms", maxEpigraphTerms))
		}
		switch x.Op {
		case "sum", "mean":
			var s epiForm
			err := b.pb.each(x, 1, env, func(c float64, inner map[*check.Binder]int) error {
				f, err := b.epi(x.Body, inner)
				addForm(&s, f, c)
				return err
			})
			return s, err
		case "max":
			if !x.Body.Shape().IsScalar() {
				return epiForm{}, notConvex("a max comprehension over terms that are not scalars")
			}
			var pieces []epiForm
			all := *x
			all.Op = "sum" // every binding, as a sum runs over them
			err := b.pb.each(&all, 1, env, func(_ float64, inner map[*check.Binder]int) error {
				f, err := b.epi(x.Body, inner)
				pieces = append(pieces, f)
				return err
			})
			if err != nil {
				return epiForm{}, err
			}
			if len(pieces) == 0 {
				return epiForm{}, notConvex("a max over no terms")
			}
			return b.lift(math.Inf(-1), pieces...), nil
		}
		return b.kinkedLeaf(e, env, fmt.Sprintf("a %s comprehension of kinks (not convex)", x.Op)), nil
	case *check.Call:
		name := x.Func.Name
		if !x.Shape().IsScalar() {
			return epiForm{}, notConvex(fmt.Sprintf("%s of a vector elementwise", name))
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
				fs, err := b.kinkFreeElems(x.Args[0], env)
				if err != nil {
					return epiForm{}, err
				}
				return b.lift(math.Inf(-1), fs...), nil
			}
			pieces := make([]epiForm, len(x.Args))
			for k, arg := range x.Args {
				if !arg.Shape().IsScalar() {
					return epiForm{}, notConvex("max of arguments that are not scalars")
				}
				f, err := b.epi(arg, env)
				if err != nil {
					return f, err
				}
				pieces[k] = f
			}
			return b.lift(math.Inf(-1), pieces...), nil
		case "hinge":
			a, err := b.kinkFree(x.Args[0], env)
			if err != nil {
				return a, err
			}
			return b.lift(0, sumForm(epiForm{affElem: affElem{c: 1}}, a, -1)), nil
		case "abs":
			a, err := b.kinkFree(x.Args[0], env)
			if err != nil {
				return a, err
			}
			return b.lift(0, a, sumForm(epiForm{}, a, -1)), nil
		case "norm1", "norminf":
			fs, err := b.kinkFreeElems(x.Args[0], env)
			if err != nil {
				return epiForm{}, err
			}
			if name == "norminf" {
				pieces := make([]epiForm, 0, 2*len(fs))
				for _, a := range fs {
					pieces = append(pieces, a, sumForm(epiForm{}, a, -1))
				}
				return b.lift(0, pieces...), nil
			}
			var s epiForm
			for _, a := range fs {
				addForm(&s, b.lift(0, a, sumForm(epiForm{}, a, -1)), 1)
			}
			return s, nil
		}
		if !b.a.kinks[e] {
			return b.kinkedLeaf(e, env, "a kink inside a nonlinear function ("+name+")"), nil
		}
		return b.kinkedLeaf(e, env, name+" is not a kink the epigraph form lifts (pos, max, abs, hinge, norm1, norminf)"), nil
	case *check.Neg:
		return b.kinkedLeaf(e, env, "a kink is negated (a concave term)"), nil
	case *check.If:
		return b.kinkedLeaf(e, env, "a conditional (if) on the variables"), nil
	}
	return b.kinkedLeaf(e, env, "a kink enters through an operation other than a sum, a mean, a max or a product with a nonnegative constant"), nil
}

// coefficient splits a product or quotient x by a constant into the
// constant's value (1/value for a quotient) and the other operand.
func (b *epiBuilder) coefficient(x *check.Arith, env map[*check.Binder]int) (float64, check.Expr, error) {
	k, o := x.X, x.Y
	if x.Op == "/" || k.Deps()&check.DepVar != 0 {
		k, o = o, k
	}
	if x.Op == "/" && k != x.Y || k.Deps()&check.DepVar != 0 {
		return 0, nil, errNotSplit
	}
	v, err := b.pb.constant(k, env)
	if err != nil {
		return 0, nil, err
	}
	if x.Op == "/" {
		v = 1 / v
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, nil, whyError(fmt.Sprintf("%s: a coefficient that is not a finite number", x.Src().Pos()))
	}
	return v, o, nil
}

// errNotSplit is coefficient's answer for a product of two terms that
// depend on the variables.
var errNotSplit = whyError("a product of two terms that depend on the variables")

// maxSplitTerms is the most terms of a sum over an index range that
// kinkFree splits into smooth functions of their own; a larger sum is
// one smooth function.
const maxSplitTerms = 100_000

// kinkFree is the form of the kink-free scalar e: affine, or a sum of
// smooth functions (sums over index ranges, sums, differences and
// multiples of kink-free terms are split so that each smooth function
// depends on few variables; anything else nonlinear is one).
func (b *epiBuilder) kinkFree(e check.Expr, env map[*check.Binder]int) (epiForm, error) {
	if !e.Shape().IsScalar() {
		return epiForm{}, whyError(fmt.Sprintf("%s: a term that is not a scalar", e.Src().Pos()))
	}
	if b.bigComprehension(e, env) {
		return b.leaf(e, env), nil // compiled, not written out
	}
	af, err := b.pb.affine(e, env)
	if err == nil {
		if len(af) != 1 {
			return epiForm{}, whyError(fmt.Sprintf("%s: a term that is not a scalar", e.Src().Pos()))
		}
		return epiForm{affElem: af[0]}, nil
	}
	if _, why := err.(whyError); !why {
		return epiForm{}, err
	}
	switch x := e.(type) {
	case *check.Arith:
		switch x.Op {
		case "+", "-":
			l, err := b.kinkFree(x.X, env)
			if err != nil {
				return l, err
			}
			r, err := b.kinkFree(x.Y, env)
			s := 1.0
			if x.Op == "-" {
				s = -1
			}
			return sumForm(l, r, s), err
		case "*", "/":
			v, o, err := b.coefficient(x, env)
			if err == errNotSplit {
				return b.leaf(e, env), nil
			}
			if err != nil {
				return epiForm{}, err
			}
			f, err := b.kinkFree(o, env)
			return sumForm(epiForm{}, f, v), err
		}
	case *check.Neg:
		f, err := b.kinkFree(x.X, env)
		return sumForm(epiForm{}, f, -1), err
	case *check.Call:
		if n := x.Func.Name; (n == "sum" || n == "mean") && len(x.Args) == 1 && !x.Args[0].Shape().IsScalar() {
			// sum(v), mean(v) of a vector: its elements' forms added
			els, err := b.kinkFreeElems(x.Args[0], env)
			if err != nil {
				return epiForm{}, err
			}
			c := 1.0
			if n == "mean" {
				c = 1 / float64(len(els))
			}
			var s epiForm
			for _, el := range els {
				addForm(&s, el, c)
			}
			return s, nil
		}
	case *check.Compr:
		if (x.Op == "sum" || x.Op == "mean") && x.Data == nil && x.Body.Shape().IsScalar() && b.terms(x, env) <= maxSplitTerms {
			// each term its own smooth function
			var s epiForm
			err := b.pb.each(x, 1, env, func(c float64, inner map[*check.Binder]int) error {
				f, err := b.kinkFree(x.Body, inner)
				addForm(&s, f, c)
				return err
			})
			return s, err
		}
	}
	return b.leaf(e, env), nil
}

// terms is the number of bindings of x's binders' ranges (before a
// filter), or a number above maxSplitTerms when a range is not constant.
func (b *epiBuilder) terms(x *check.Compr, env map[*check.Binder]int) int {
	n := 1
	if x.Rows != nil && len(x.Binders) == 1 {
		return len(x.Rows)
	}
	for _, bd := range x.Binders {
		if bd.Lo == nil {
			if bd.Data == nil {
				return math.MaxInt32
			}
			n *= bd.Data.Set.N()
			continue
		}
		lo, err1 := check.Eval(bd.Lo, env)
		hi, err2 := check.Eval(bd.Hi, env)
		if err1 != nil || err2 != nil || len(lo.Data) != 1 || len(hi.Data) != 1 {
			return maxSplitTerms + 1
		}
		n *= max(0, int(hi.Data[0]-lo.Data[0])+1)
		if n > maxEpigraphTerms {
			return n
		}
	}
	return n
}

// maxEpigraphTerms bounds the bindings of one comprehension the form
// writes out term by term (a larger one is refused, or stays one smooth
// function when it is kink-free), so that the form's size stays bounded.
const maxEpigraphTerms = 2_000_000

// bigComprehension reports whether e has a comprehension over more than
// maxEpigraphTerms bindings.
func (b *epiBuilder) bigComprehension(e check.Expr, env map[*check.Binder]int) bool {
	big := false
	check.Walk(e, func(x check.Expr) bool {
		if c, ok := x.(*check.Compr); ok && !big && b.terms(c, env) > maxEpigraphTerms {
			big = true
		}
		return !big
	})
	return big
}

// kinkFreeElems are the forms of the kink-free e's elements.
func (b *epiBuilder) kinkFreeElems(e check.Expr, env map[*check.Binder]int) ([]epiForm, error) {
	var els []check.Expr
	if st, ok := e.(*check.Stack); ok {
		els = st.Elems
	} else {
		if af, err := b.pb.affine(e, env); err == nil {
			out := make([]epiForm, len(af))
			for k, a := range af {
				out[k] = epiForm{affElem: a}
			}
			return out, nil
		} else if _, why := err.(whyError); !why {
			return nil, err
		}
		els = check.Elements(e)
	}
	out := make([]epiForm, 0, len(els))
	for _, x := range els {
		f, err := b.kinkFree(x, env)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// kinkedLeaf is leaf for e, which has a kink the form cannot lift there
// (why): the kink stays inside one of the smooth functions, which the SQP
// differentiates as if it were smooth; the first such reason is kept
// (EpigraphSmooth.Kinked).
func (b *epiBuilder) kinkedLeaf(e check.Expr, env map[*check.Binder]int, why string) epiForm {
	if b.kinked == "" {
		b.kinked = fmt.Sprintf("%s: %s", e.Src().Pos(), why)
	}
	return b.leaf(e, env)
}

// leaf makes e, kink-free and nonlinear, with the indices bound in env,
// one of the form's smooth functions.
func (b *epiBuilder) leaf(e check.Expr, env map[*check.Binder]int) epiForm {
	if b.kinked == "" && b.a.hasKink(e) {
		b.kinked = fmt.Sprintf("%s: a kink inside a nonlinear function", e.Src().Pos())
	}
	bound := check.Bind(e, env)
	k := int32(len(b.leaves))
	b.leaves = append(b.leaves, bound)
	sup := support(bound)
	b.supports = append(b.supports, sup)
	b.supportSize += len(sup)
	return epiForm{sm: []smTerm{{k, 1}}}
}

// support lists, in increasing order, the variables the bound expression e
// depends on by its form: every element of a variable it uses whole, the
// elements it indexes with constant indices.
func support(e check.Expr) []int32 {
	seen := map[int32]bool{}
	var walk func(e check.Expr)
	addVar := func(v *check.Var) {
		for j := range v.Size {
			seen[int32(v.Offset+j)] = true
		}
	}
	walk = func(e check.Expr) {
		if e == nil || e.Deps()&check.DepVar == 0 {
			return
		}
		switch x := e.(type) {
		case *check.VarRef:
			addVar(x.Var)
			return
		case *check.Index:
			if v, ok := x.X.(*check.VarRef); ok {
				if off, size, ok := constElems(v.Var, x.Idx); ok {
					for j := range size {
						seen[int32(v.Var.Offset+off+j)] = true
					}
					return
				}
			}
		}
		check.Walk(e, func(c check.Expr) bool {
			if c == e {
				return true
			}
			walk(c)
			return false
		})
	}
	walk(e)
	out := make([]int32, 0, len(seen))
	for j := range seen {
		out = append(out, j)
	}
	slices.Sort(out)
	return out
}

// constElems is the offset and count, within v's elements (row-major), of
// v indexed by the constant indices idx; not ok when one is not constant
// or out of range.
func constElems(v *check.Var, idx []check.Expr) (off, size int, ok bool) {
	shape := v.Shape
	if len(idx) > len(shape) {
		return 0, 0, false
	}
	stride := v.Size
	for k, ie := range idx {
		c, isConst := ie.(*check.Const)
		if !isConst || len(c.Value.Data) != 1 {
			return 0, 0, false
		}
		i := int(c.Value.Data[0])
		if i < 1 || i > shape[k] {
			return 0, 0, false
		}
		stride /= shape[k]
		off += (i - 1) * stride
	}
	return off, stride, true
}

// lift adds an epigraph variable t >= floor with a row t >= p for each
// piece, and returns t's form. The pieces' own variables come before it,
// as EpigraphForm's order needs.
func (b *epiBuilder) lift(floor float64, pieces ...epiForm) epiForm {
	g := b.g
	if len(g.B)+len(pieces) > maxEpigraphRows {
		b.tooBig = true
		return epiForm{}
	}
	k := g.Aux
	g.Aux++
	g.Floor = append(g.Floor, floor)
	for _, p := range pieces {
		b.merge(p.affElem, &g.Col, &g.Val)
		g.Ptr = append(g.Ptr, len(g.Col))
		g.B = append(g.B, p.c)
		g.Def = append(g.Def, int32(k))
		b.mergeSmooth(p.sm, &g.SOut, &g.SCoef)
		g.SPtr = append(g.SPtr, len(g.SOut))
	}
	return epiForm{affElem: affElem{terms: []affTerm{{g.N + k, 1}}}}
}

// function ends the next function with the form f.
func (b *epiBuilder) function(f epiForm) {
	g := b.g
	b.merge(f.affElem, &g.CCol, &g.CVal)
	g.CPtr = append(g.CPtr, len(g.CCol))
	g.E = append(g.E, f.c)
	b.mergeSmooth(f.sm, &g.FSOut, &g.FSCoef)
	g.FSPtr = append(g.FSPtr, len(g.FSOut))
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

// mergeSmooth appends the smooth terms sm, one per function.
func (b *epiBuilder) mergeSmooth(sm []smTerm, out *[]int32, coef *[]float64) {
	clear(b.sacc)
	order := make([]int32, 0, len(sm))
	for _, t := range sm {
		if _, ok := b.sacc[t.k]; !ok {
			order = append(order, t.k)
		}
		b.sacc[t.k] += t.c
	}
	for _, k := range order {
		if v := b.sacc[k]; v != 0 {
			*out = append(*out, k)
			*coef = append(*coef, v)
		}
	}
}

// sumForm is l + s r.
func sumForm(l, r epiForm, s float64) epiForm {
	out := epiForm{affElem: affElem{c: l.c + s*r.c, terms: make([]affTerm, 0, len(l.terms)+len(r.terms))}}
	out.terms = append(out.terms, l.terms...)
	for _, t := range r.terms {
		out.terms = append(out.terms, affTerm{t.j, s * t.v})
	}
	out.sm = append(append(out.sm, l.sm...), scaleSm(r.sm, s)...)
	return out
}

// addForm adds s r to l in place.
func addForm(l *epiForm, r epiForm, s float64) {
	l.c += s * r.c
	for _, t := range r.terms {
		l.terms = append(l.terms, affTerm{t.j, s * t.v})
	}
	l.sm = append(l.sm, scaleSm(r.sm, s)...)
}

func scaleSm(sm []smTerm, s float64) []smTerm {
	out := make([]smTerm, len(sm))
	for i, t := range sm {
		out[i] = smTerm{t.k, s * t.c}
	}
	return out
}
