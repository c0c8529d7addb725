package smoothing

import (
	"fmt"
	"math"
	"slices"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/dualqp"
)

// piecewise are the kinks Pieces takes, with their slopes [lo, hi] and
// whether the argument enters negated with 1 added (hinge(z) = pos(1 - z)).
var piecewise = map[string]struct {
	lo, hi float64
	hinge  bool
}{
	"pos":   {0, 1, false},
	"abs":   {-1, 1, false},
	"hinge": {0, 1, true},
}

// maxPieceEntries bounds the nonzeros of the matrix Pieces builds (about
// 12 bytes each), so that a model with many rows and dense scores is
// left to the other oracles rather than copied.
const maxPieceEntries = 50_000_000

// Pieces returns m's functions as a dualqp.Model when each is a
// nonnegative combination of pos, abs and hinge of affine arguments (each
// entering through sums, means and products with positive constants,
// as for the smoothing) plus a rest affine in the variables: one row
// per kink and binding of its comprehensions' indices, with the
// coefficient folded in. Otherwise it returns nil and why, with the
// position of the first obstacle. The model it returns is what the
// functions are by their form; the caller should check its values against
// the compiled program's (it assumes the variables' flat layout
// check.Var.Offset, row-major).
func Pieces(m *check.Model) (*dualqp.Model, string, error) {
	return PiecesOf(m, nil)
}

// Selection is a sample of some of a model's data means, as the stochastic
// and dynamic oracles evaluate it (autodiff.Program.SetSample): it maps a
// mean over data rows, by the source position of its comprehension
// (check.Compr's Src().Pos(), autodiff.Sample.Means), to the 0-based
// positions into that comprehension's rows after its filter (check.Compr's
// Rows, or every row of its data set when it has no filter) that it runs
// over, repeats counted; the mean is their plain mean. A mean it does not
// name runs over all its rows.
type Selection map[ast.Pos][]int

// PiecesOf is Pieces of m with its data means on the rows sel selects:
// the pieces of those rows only, a mean's coefficient divided by the
// number of positions selected, as autodiff computes a sampled mean. A
// selected comprehension that is not a mean over one data binder, whose
// filter the checker did not resolve, or that is nested in another
// comprehension is refused (nil and why), as is a position out of its
// rows' range. PiecesOf(m, nil) is Pieces(m).
func PiecesOf(m *check.Model, sel Selection) (*dualqp.Model, string, error) {
	a := &analysis{kinks: map[check.Expr]bool{}, has: map[check.Expr]bool{}}
	for _, k := range check.Kinks(m) {
		a.kinks[k.Expr] = true
	}
	if len(a.kinks) == 0 {
		return nil, "the model has no kink", nil
	}
	for k := range a.kinks {
		c, ok := k.(*check.Call)
		if _, cond := k.(*check.If); cond {
			return nil, fmt.Sprintf("%s: a conditional (if) on the variables is not written out as pieces", k.Src().Pos()), nil
		}
		if !ok {
			return nil, fmt.Sprintf("%s: a kink other than pos, abs or hinge", k.Src().Pos()), nil
		}
		if _, ok := piecewise[c.Func.Name]; !ok {
			return nil, fmt.Sprintf("%s: %s is not piecewise linear", k.Src().Pos(), c.Func.Name), nil
		}
	}
	var fs []check.Expr
	if m.Objective != nil {
		fs = append(fs, m.Objective.Expr)
	} else {
		fs = append(fs, nil)
	}
	for _, c := range m.Constraints {
		if c.IsEquality() {
			return nil, fmt.Sprintf("%s: %s is an equality", c.Group.Src.Pos(), c.Name), nil
		}
		fs = append(fs, c.F)
	}
	for _, f := range fs {
		if f == nil {
			continue
		}
		if why := a.linear(f); why != "" {
			return nil, why, nil
		}
	}
	b := &pieceBuilder{a: a, sel: sel, n: m.NumScalars, dense: make([]float64, m.NumScalars), mark: make([]bool, m.NumScalars)}
	out := &dualqp.Model{N: m.NumScalars, M: len(fs) - 1, Ptr: []int{0}, Q: make([][]float64, len(fs)), E: make([]float64, len(fs))}
	b.out = out
	for i, f := range fs {
		if f == nil {
			continue
		}
		b.fn = i
		if err := b.term(f, 1, map[*check.Binder]int{}); err != nil {
			if w, ok := err.(whyError); ok {
				return nil, string(w), nil
			}
			return nil, "", err
		}
	}
	out.X = domainOf(m)
	if err := out.Check(); err != nil {
		return nil, "", err
	}
	return out, "", nil
}

// domainOf is X as a dualqp.Domain when every variable's domain is R^n, a
// box, a ball or balls on rows; else nil.
func domainOf(m *check.Model) *dualqp.Domain {
	n := m.NumScalars
	d := &dualqp.Domain{Lo: make([]float64, n), Hi: make([]float64, n), Ball: make([]int32, n)}
	for j := range d.Lo {
		d.Lo[j], d.Hi[j], d.Ball[j] = math.Inf(-1), math.Inf(1), -1
	}
	for _, v := range m.Vars {
		if v.Domain == nil {
			continue
		}
		switch dom := v.Domain; dom.Kind {
		case domain.Unbounded:
		case domain.Box:
			copy(d.Lo[v.Offset:v.Offset+v.Size], dom.Lo)
			copy(d.Hi[v.Offset:v.Offset+v.Size], dom.Hi)
		case domain.Ball:
			for j := v.Offset; j < v.Offset+v.Size; j++ {
				d.Ball[j] = int32(len(d.Radius))
			}
			d.Radius = append(d.Radius, dom.Radius)
		case domain.RowBalls:
			if dom.Cols <= 0 {
				return nil
			}
			for k := 0; k < v.Size; k += dom.Cols {
				for j := k; j < min(k+dom.Cols, v.Size); j++ {
					d.Ball[v.Offset+j] = int32(len(d.Radius))
				}
				d.Radius = append(d.Radius, dom.Radius)
			}
		default:
			return nil
		}
	}
	return d
}

// whyError is a reason the model is not taken (not a failure).
type whyError string

func (w whyError) Error() string { return string(w) }

type pieceBuilder struct {
	a     *analysis
	sel   Selection
	vars  map[*check.Var][]affElem // affine's elements of each variable
	out   *dualqp.Model
	fn    int
	n     int
	dense []float64 // a row's accumulator
	mark  []bool
	cols  []int
}

// term adds c times e, a term of function b.fn with the indices bound in
// env, to the model: its kinks as rows, the rest into Q and E.
func (b *pieceBuilder) term(e check.Expr, c float64, env map[*check.Binder]int) error {
	return b.combination(e, c, env, b.kinkRow, b.rest)
}

// combination walks c times e, a combination of kinks (through sums,
// differences, means, and products and quotients by constants), with the
// indices bound in env: kink for each kink, with its coefficient, and
// rest for each kink-free part.
func (b *pieceBuilder) combination(e check.Expr, c float64, env map[*check.Binder]int,
	kink func(*check.Call, float64, map[*check.Binder]int) error, rest func(check.Expr, float64, map[*check.Binder]int) error) error {
	if !b.a.hasKink(e) {
		return rest(e, c, env)
	}
	switch x := e.(type) {
	case *check.Call:
		return kink(x, c, env)
	case *check.Arith:
		switch x.Op {
		case "+":
			if err := b.combination(x.X, c, env, kink, rest); err != nil {
				return err
			}
			return b.combination(x.Y, c, env, kink, rest)
		case "-":
			if err := b.combination(x.X, c, env, kink, rest); err != nil {
				return err
			}
			return rest(x.Y, -c, env) // kink-free: the kinks enter with positive coefficients
		case "*":
			k, o := x.X, x.Y
			if b.a.hasKink(k) {
				k, o = o, k
			}
			v, err := b.constant(k, env)
			if err != nil {
				return err
			}
			return b.combination(o, c*v, env, kink, rest)
		case "/":
			v, err := b.constant(x.Y, env)
			if err != nil {
				return err
			}
			return b.combination(x.X, c/v, env, kink, rest)
		}
	case *check.Compr:
		return b.each(x, c, env, func(cc float64, inner map[*check.Binder]int) error {
			return b.combination(x.Body, cc, inner, kink, rest)
		})
	}
	return whyError(fmt.Sprintf("%s: a kink enters through an operation other than a sum, a mean or a product with a positive constant", e.Src().Pos()))
}

// kinkRow adds c times the kink x (pos, abs or hinge of an affine
// argument) as a row of function b.fn.
func (b *pieceBuilder) kinkRow(x *check.Call, c float64, env map[*check.Binder]int) error {
	pw := piecewise[x.Func.Name]
	af, err := b.affine(x.Args[0], env)
	if err != nil {
		return err
	}
	if len(af) != 1 {
		return whyError(fmt.Sprintf("%s: the argument of %s is not a scalar", x.Src().Pos(), x.Func.Name))
	}
	z := af[0]
	s, k := c, c*z.c
	if pw.hinge {
		s, k = -c, c*(1-z.c)
	}
	for _, t := range z.terms {
		if t.v != 0 {
			b.add(t.j, s*t.v)
		}
	}
	return b.row(k, pw.lo, pw.hi)
}

// rest adds c times the kink-free e to the affine rest of function b.fn.
func (b *pieceBuilder) rest(e check.Expr, c float64, env map[*check.Binder]int) error {
	af, err := b.affine(e, env)
	if err != nil {
		return err
	}
	if len(af) != 1 {
		return whyError(fmt.Sprintf("%s: a term that is not a scalar", e.Src().Pos()))
	}
	b.out.E[b.fn] += c * af[0].c
	for _, t := range af[0].terms {
		if t.v == 0 {
			continue
		}
		q := b.out.Q[b.fn]
		if q == nil {
			q = make([]float64, b.n)
			b.out.Q[b.fn] = q
		}
		q[t.j] += c * t.v
	}
	return nil
}

// add accumulates v at column j of the current row.
func (b *pieceBuilder) add(j int, v float64) {
	if !b.mark[j] {
		b.mark[j] = true
		b.cols = append(b.cols, j)
	}
	b.dense[j] += v
}

// row ends the current row with the constant k and the slopes [lo, hi].
func (b *pieceBuilder) row(k, lo, hi float64) error {
	o := b.out
	for _, j := range b.cols {
		if v := b.dense[j]; v != 0 {
			o.Col = append(o.Col, int32(j))
			o.Val = append(o.Val, v)
		}
		b.dense[j], b.mark[j] = 0, false
	}
	b.cols = b.cols[:0]
	if len(o.Col) > maxPieceEntries {
		return whyError(fmt.Sprintf("the kinks' scores have more than %d nonzero coefficients", maxPieceEntries))
	}
	o.Ptr = append(o.Ptr, len(o.Col))
	o.B = append(o.B, k)
	o.Lo = append(o.Lo, lo)
	o.Hi = append(o.Hi, hi)
	o.Fn = append(o.Fn, int32(b.fn))
	return nil
}

// constant is the value of the scalar e, which depends on no variable.
func (b *pieceBuilder) constant(e check.Expr, env map[*check.Binder]int) (float64, error) {
	if e.Deps()&check.DepVar != 0 {
		return 0, whyError(fmt.Sprintf("%s: a kink times a variable", e.Src().Pos()))
	}
	t, err := check.Eval(e, env)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", e.Src().Pos(), err)
	}
	if len(t.Data) != 1 {
		return 0, whyError(fmt.Sprintf("%s: a kink times something other than a scalar", e.Src().Pos()))
	}
	return t.Data[0], nil
}

// each calls f for every binding of x's indices that passes its filter,
// with c divided by their number for a mean.
func (b *pieceBuilder) each(x *check.Compr, c float64, env map[*check.Binder]int, f func(float64, map[*check.Binder]int) error) error {
	if x.Op != "sum" && x.Op != "mean" {
		return whyError(fmt.Sprintf("%s: a %s comprehension", x.Src().Pos(), x.Op))
	}
	if pos, ok := b.sel[x.Src().Pos()]; ok {
		return b.eachSelected(x, pos, c, env, f)
	}
	if x.Rows != nil && len(x.Binders) == 1 {
		// the rows the checker selected, in one binding map (no caller
		// keeps the map it is given)
		if x.Op == "mean" {
			if len(x.Rows) == 0 {
				return nil
			}
			c /= float64(len(x.Rows))
		}
		e, bd := clone(env), x.Binders[0]
		for k, r := range x.Rows {
			e[bd] = r
			if err := b.reserving(k, len(x.Rows), func() error { return f(c, e) }); err != nil {
				return err
			}
		}
		return nil
	}
	var bindings []map[*check.Binder]int
	var rec func(k int, e map[*check.Binder]int) error
	rec = func(k int, e map[*check.Binder]int) error {
		if k == len(x.Binders) {
			if x.Where != nil {
				t, err := check.Eval(x.Where, e)
				if err != nil {
					return fmt.Errorf("%s: %w", x.Where.Src().Pos(), err)
				}
				if len(t.Data) != 1 || t.Data[0] == 0 {
					return nil
				}
			}
			bindings = append(bindings, clone(e))
			return nil
		}
		bd := x.Binders[k]
		lo, hi := 1, 0
		if bd.Data != nil {
			hi = bd.Data.Set.N()
		} else {
			l, err := check.Eval(bd.Lo, e)
			if err != nil {
				return fmt.Errorf("%s: %w", bd.Lo.Src().Pos(), err)
			}
			h, err := check.Eval(bd.Hi, e)
			if err != nil {
				return fmt.Errorf("%s: %w", bd.Hi.Src().Pos(), err)
			}
			lo, hi = int(l.Data[0]), int(h.Data[0])
		}
		for v := lo; v <= hi; v++ {
			e[bd] = v
			if err := rec(k+1, e); err != nil {
				return err
			}
		}
		delete(e, bd)
		return nil
	}
	if err := rec(0, clone(env)); err != nil {
		return err
	}
	if x.Op == "mean" {
		if len(bindings) == 0 {
			return nil
		}
		c /= float64(len(bindings))
	}
	for k, e := range bindings {
		if err := b.reserving(k, len(bindings), func() error { return f(c, e) }); err != nil {
			return err
		}
	}
	return nil
}

// reserving runs f, the k-th of n bindings of a comprehension; after the
// first it reserves room in the model's rows for the other n-1 as many
// as the first added (at most maxPieceEntries entries), so that a
// comprehension over many rows grows its slices once rather than by
// repeated appends.
func (b *pieceBuilder) reserving(k, n int, f func() error) error {
	o := b.out
	if o == nil { // a builder of affine forms only (Separable)
		return f()
	}
	c0, r0 := len(o.Col), len(o.B)
	if err := f(); err != nil {
		return err
	}
	dr := len(o.B) - r0
	if k != 0 || n < 2 || dr == 0 {
		return nil
	}
	rows := (n - 1) * dr
	cols := min((n-1)*(len(o.Col)-c0), max(0, maxPieceEntries-len(o.Col)))
	o.Col, o.Val = slices.Grow(o.Col, cols), slices.Grow(o.Val, cols)
	o.Ptr = slices.Grow(o.Ptr, rows)
	o.B, o.Lo, o.Hi, o.Fn = slices.Grow(o.B, rows), slices.Grow(o.Lo, rows), slices.Grow(o.Hi, rows), slices.Grow(o.Fn, rows)
	return nil
}

// eachSelected is each for a comprehension the selection samples: f for
// the rows at the positions pos of its rows, with c divided by their
// number.
func (b *pieceBuilder) eachSelected(x *check.Compr, pos []int, c float64, env map[*check.Binder]int, f func(float64, map[*check.Binder]int) error) error {
	switch {
	case !x.IsExpectation() || len(x.Binders) != 1 || x.Binders[0].Data == nil:
		return whyError(fmt.Sprintf("%s: a sampled comprehension other than a mean over the rows of one data set", x.Src().Pos()))
	case len(env) > 0:
		return whyError(fmt.Sprintf("%s: a sampled mean inside another comprehension", x.Src().Pos()))
	case x.Rows == nil && x.Where != nil:
		return whyError(fmt.Sprintf("%s: a sampled mean with a filter the checker did not resolve", x.Src().Pos()))
	case len(pos) == 0:
		return whyError(fmt.Sprintf("%s: a sample of no rows", x.Src().Pos()))
	}
	n := x.Binders[0].Data.Set.N()
	if x.Rows != nil {
		n = len(x.Rows)
	}
	c /= float64(len(pos))
	bd := x.Binders[0]
	e := map[*check.Binder]int{}
	for k, p := range pos {
		if p < 0 || p >= n {
			return whyError(fmt.Sprintf("%s: sample position %d out of the range 0..%d of the mean's rows", x.Src().Pos(), p, n-1))
		}
		row := p + 1
		if x.Rows != nil {
			row = x.Rows[p]
		}
		e[bd] = row
		if err := b.reserving(k, len(pos), func() error { return f(c, e) }); err != nil {
			return err
		}
	}
	return nil
}

func clone(env map[*check.Binder]int) map[*check.Binder]int {
	e := make(map[*check.Binder]int, len(env)+1)
	for k, v := range env {
		e[k] = v
	}
	return e
}

// affTerm is v times variable j.
type affTerm struct {
	j int
	v float64
}

// affElem is an affine function: sum of terms plus c.
type affElem struct {
	terms []affTerm
	c     float64
}

// affine returns the elements (row-major) of e, affine in the variables,
// with the indices bound in env.
func (b *pieceBuilder) affine(e check.Expr, env map[*check.Binder]int) ([]affElem, error) {
	// the reason is formatted only when it is given: affine runs once per
	// row and piece
	notAffine := func() error { return whyError(fmt.Sprintf("%s: not affine in the variables", e.Src().Pos())) }
	if e.Deps()&check.DepVar == 0 {
		t, err := check.Eval(e, env)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Src().Pos(), err)
		}
		out := make([]affElem, len(t.Data))
		for k, v := range t.Data {
			out[k].c = v
		}
		return out, nil
	}
	switch x := e.(type) {
	case *check.VarRef:
		// the same for every row: built once (no caller modifies the
		// elements it is given)
		if out, ok := b.vars[x.Var]; ok {
			return out, nil
		}
		out := make([]affElem, x.Var.Size)
		for k := range out {
			out[k].terms = []affTerm{{x.Var.Offset + k, 1}}
		}
		if b.vars == nil {
			b.vars = map[*check.Var][]affElem{}
		}
		b.vars[x.Var] = out
		return out, nil
	case *check.Index:
		inner, err := b.affine(x.X, env)
		if err != nil {
			return nil, err
		}
		shape := x.X.Shape()
		if len(x.Idx) > len(shape) {
			return nil, notAffine()
		}
		off, stride := 0, len(inner)
		for k, ie := range x.Idx {
			v, err := check.Eval(ie, env)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ie.Src().Pos(), err)
			}
			i := int(v.Data[0])
			if i < 1 || i > shape[k] {
				return nil, fmt.Errorf("%s: index %d is out of range 1..%d", ie.Src().Pos(), i, shape[k])
			}
			stride /= shape[k]
			off += (i - 1) * stride
		}
		return inner[off : off+stride], nil
	case *check.Neg:
		in, err := b.affine(x.X, env)
		if err != nil {
			return nil, err
		}
		return scaleAff(in, -1), nil
	case *check.Arith:
		switch x.Op {
		case "+", "-":
			l, err := b.affine(x.X, env)
			if err != nil {
				return nil, err
			}
			r, err := b.affine(x.Y, env)
			if err != nil {
				return nil, err
			}
			s := 1.0
			if x.Op == "-" {
				s = -1
			}
			return combine(l, r, s, notAffine)
		case "*", "/":
			k, o := x.X, x.Y
			if x.Op == "/" || k.Deps()&check.DepVar != 0 {
				k, o = o, k
			}
			if k.Deps()&check.DepVar != 0 || (x.Op == "/" && k != x.Y) {
				return nil, notAffine()
			}
			kt, err := check.Eval(k, env)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k.Src().Pos(), err)
			}
			in, err := b.affine(o, env)
			if err != nil {
				return nil, err
			}
			if x.Op == "/" {
				for i, v := range kt.Data {
					kt.Data[i] = 1 / v
				}
			}
			return mulAff(in, kt.Data, notAffine)
		}
	case *check.Call:
		if x.Func.Name == "dot" && len(x.Args) == 2 {
			k, o := x.Args[0], x.Args[1]
			if k.Deps()&check.DepVar != 0 {
				k, o = o, k
			}
			if k.Deps()&check.DepVar != 0 {
				return nil, notAffine()
			}
			kt, err := check.Eval(k, env)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k.Src().Pos(), err)
			}
			in, err := b.affine(o, env)
			if err != nil {
				return nil, err
			}
			if len(in) != len(kt.Data) {
				return nil, notAffine()
			}
			var s affElem
			nt := 0
			for i, v := range kt.Data {
				if v != 0 {
					nt += len(in[i].terms)
				}
			}
			s.terms = make([]affTerm, 0, nt)
			for i, v := range kt.Data {
				if v == 0 {
					continue
				}
				s.c += v * in[i].c
				for _, t := range in[i].terms {
					s.terms = append(s.terms, affTerm{t.j, v * t.v})
				}
			}
			return []affElem{s}, nil
		}
	case *check.Compr:
		var sum []affElem
		err := b.each(x, 1, env, func(c float64, inner map[*check.Binder]int) error {
			in, err := b.affine(x.Body, inner)
			if err != nil {
				return err
			}
			in = scaleAff(in, c)
			if sum == nil {
				sum = in
				return nil
			}
			sum, err = combine(sum, in, 1, notAffine)
			return err
		})
		if err != nil {
			return nil, err
		}
		if sum == nil {
			sum = make([]affElem, max(1, x.Shape().Size()))
		}
		return sum, nil
	}
	return nil, notAffine()
}

func scaleAff(in []affElem, s float64) []affElem {
	out := make([]affElem, len(in))
	for i, a := range in {
		out[i].c = s * a.c
		out[i].terms = make([]affTerm, len(a.terms))
		for k, t := range a.terms {
			out[i].terms[k] = affTerm{t.j, s * t.v}
		}
	}
	return out
}

// combine is l + s r, elementwise with a scalar broadcast; bad is the
// error when their shapes do not match.
func combine(l, r []affElem, s float64, bad func() error) ([]affElem, error) {
	n := max(len(l), len(r))
	if (len(l) != n && len(l) != 1) || (len(r) != n && len(r) != 1) {
		return nil, bad()
	}
	out := make([]affElem, n)
	for i := range out {
		a, c := l[min(i, len(l)-1)], r[min(i, len(r)-1)]
		out[i].c = a.c + s*c.c
		out[i].terms = append(append(make([]affTerm, 0, len(a.terms)+len(c.terms)), a.terms...), c.terms...)
		for k := len(a.terms); k < len(out[i].terms); k++ {
			out[i].terms[k].v *= s
		}
	}
	return out, nil
}

// mulAff is in times the constants k, elementwise with a scalar
// broadcast; bad is the error when their shapes do not match or a
// constant is not finite.
func mulAff(in []affElem, k []float64, bad func() error) ([]affElem, error) {
	n := max(len(in), len(k))
	if (len(in) != n && len(in) != 1) || (len(k) != n && len(k) != 1) {
		return nil, bad()
	}
	out := make([]affElem, n)
	for i := range out {
		a, v := in[min(i, len(in)-1)], k[min(i, len(k)-1)]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, bad()
		}
		out[i].c = v * a.c
		out[i].terms = make([]affTerm, len(a.terms))
		for t, x := range a.terms {
			out[i].terms[t] = affTerm{x.j, v * x.v}
		}
	}
	return out, nil
}
