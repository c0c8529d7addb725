// Package weakconvex decides, for each function of a checked model (the
// objective and every expanded constraint), whether it is rho-weakly
// convex on the domain X with subgradients bounded by M, the class the
// IQRC method's guarantees cover (Ma, Lin & Yang 2020, Assumption 1), and
// derives rho and M. It works like a DCP analysis: composition rules over
// the built-ins' curvature on the interval their argument can take, with
// the intervals computed soundly from the domains and the data. A function
// no rule covers is "not provably weakly convex", with the subexpression
// and the reason. docs/analysis.md states every rule.
package weakconvex

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/stdlib"
)

// fnv is what the analysis knows of one scalar element of an expression,
// as a function of the decision variables on X:
// its range, a bound on the norm of the subgradient autodiff computes,
// and two-sided bounds on its curvature relative to that subgradient g:
// lo/2 ||y-x||^2 <= f(y) - f(x) - <g(x), y-x> <= hi/2 ||y-x||^2 for x, y in X
// (both matrix bounds, see quad). lo.s = -Inf means no lower bound
// (not provably weakly convex; why says where and why), hi.s = +Inf no
// upper bound (a convex kink, say).
type fnv struct {
	aff    *affine // non-nil when the element is affine (a constant has no coefficients)
	val    Interval
	g      float64
	lo     quad // lower bound
	hi     quad // upper bound
	smooth bool
	why    *Refusal
	// hess is the exact Hessian of a function that is quadratic in the
	// variables (quadform.go), nil otherwise; tight reports that lo and hi
	// are its eigenvalue bounds.
	hess  hessian
	tight bool
}

// Refusal says why a function is not provably weakly convex: the
// subexpression the rules stop at and the reason.
type Refusal struct {
	Pos    ast.Pos
	Text   string // the subexpression as written
	Reason string
}

func (r *Refusal) String() string { return fmt.Sprintf("%s: %s: %s", r.Pos, r.Text, r.Reason) }

func (a *analyzer) affineFn(af *affine) *fnv {
	return &fnv{aff: af, val: a.sp.rangeOf(af), g: up(af.norm()), smooth: true}
}

func constFn(v float64) *fnv {
	return &fnv{aff: &affine{c0: v}, val: point(v), smooth: true}
}

// value is a whole expression's analysis: a constant tensor or one fnv
// per element, row-major.
type value struct {
	shape check.Shape
	cst   []float64
	el    []*fnv
}

func (v value) isConst() bool { return v.el == nil }

func (v value) at(i int) *fnv {
	if v.el == nil {
		if len(v.cst) == 1 {
			return constFn(v.cst[0])
		}
		return constFn(v.cst[i])
	}
	if len(v.el) == 1 {
		return v.el[0]
	}
	return v.el[i]
}

func (v value) cstAt(i int) float64 {
	if len(v.cst) == 1 {
		return v.cst[0]
	}
	return v.cst[i]
}

// env binds comprehension indices.
type env = map[*check.Binder]int

type analyzer struct {
	m     *check.Model
	sp    *space
	stats map[check.Expr]*NodeStat
	uni   map[check.Expr]uniInfo
	aff   map[check.Expr]bool
	memo  map[memoKey]jetSum
	fixed map[check.Expr]value // the values of expressions that depend on no index or data
	work  int
	// rowsTotal is dataRows over every function, rowsDone the data rows
	// analysed so far: the early estimate of the work (tooLargeEstimate)
	rowsTotal, rowsDone int
	done                <-chan struct{} // AnalyzeContext's cancellation, checked every 1024 steps
	steps               int
}

// stopped reports, every 1024th call, whether the analysis was cancelled.
func (a *analyzer) stopped() bool {
	a.steps++
	if a.done == nil || a.steps%1024 != 0 {
		return false
	}
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// maxWork bounds the elements one analysis may produce (a model with many
// data rows times many variables); past it the analysis gives up.
const maxWork = 60_000_000

var errTooLarge = errors.New("the model is too large to analyse (more than 60 million expression elements over its data rows)")

// The analysis gives up early when, after estimateFirst data rows, the
// elements per row so far times the rows of every function's data
// comprehensions come to more than estimateFactor times maxWork: on 10^6
// rows it would otherwise work for half a minute before reaching maxWork.
// It estimates again at twice as many rows, and so on up to
// estimateAfter, then every estimateAfter rows: on Adult replicated 30
// times (56 features, 1.8·10^6 rows, about 1.5 ms a row) the first
// estimate at 4096 rows came after 6 s of `qrc check`.
const (
	estimateFirst  = 512
	estimateAfter  = 4096
	estimateFactor = 2
)

// estimateNow reports whether the analysis estimates its work after the
// rows-th data row.
func estimateNow(rows int) bool {
	if rows < estimateAfter {
		return rows >= estimateFirst && rows&(rows-1) == 0
	}
	return rows%estimateAfter == 0
}

// tooLargeEstimate is the early form of errTooLarge.
func tooLargeEstimate(work, rowsDone, rowsTotal int) error {
	return fmt.Errorf("the model is too large to analyse (about %.2g expression elements over its %d data rows, estimated from the first %d; the most it analyses is 60 million)",
		float64(work)/float64(rowsDone)*float64(rowsTotal), rowsTotal, rowsDone)
}

// dataRows is the number of data rows the comprehensions of e run over,
// each counted once (an enclosing index set that repeats a comprehension
// is not counted, so the estimate it feeds errs low); a data comprehension
// whose rows the checker did not resolve (no filter, or one on another
// index) counts every row of its set.
func dataRows(e check.Expr) int {
	n := 0
	check.Walk(e, func(x check.Expr) bool {
		if c, ok := x.(*check.Compr); ok {
			switch {
			case c.Rows != nil:
				n += len(c.Rows)
			case len(c.Binders) == 1 && c.Binders[0].Data != nil:
				n += c.Binders[0].Data.Set.N()
			}
		}
		return true
	})
	return n
}

func (a *analyzer) refuse(e check.Expr, reason string) *Refusal {
	return &Refusal{Pos: e.Src().Pos(), Text: srcText(e), Reason: reason}
}

func srcText(e check.Expr) string {
	if x, ok := e.Src().(ast.Expr); ok {
		return check.ExprString(x)
	}
	return "?"
}

func refused(why *Refusal) *fnv {
	return &fnv{val: whole, g: math.Inf(1), lo: quad{s: math.Inf(-1)}, hi: quad{s: math.Inf(1)}, why: why}
}

// expr analyses e with the indices bound in ix.
func (a *analyzer) expr(e check.Expr, ix env) (value, error) {
	if e.Deps()&check.DepVar == 0 {
		t, err := check.Eval(e, ix)
		if err != nil {
			return value{}, fmt.Errorf("%s: %v", e.Src().Pos(), err)
		}
		return value{shape: t.Shape, cst: t.Data}, nil
	}
	fixed := e.Deps()&(check.DepIndex|check.DepData) == 0
	if fixed {
		if v, ok := a.fixed[e]; ok {
			// recording the same value again changes nothing but the
			// count, and would cost its length (a vector of 10^5
			// variables once per data row)
			a.stats[e].Count++
			return v, nil
		}
	}
	var v value
	var err error
	rule := ""
	var arg check.Expr
	if f, u, ok := a.tryJet(e, ix); ok {
		v, rule, arg = value{el: []*fnv{f}}, "one-variable", u
	} else {
		v, rule, err = a.compose(e, ix)
		if err != nil {
			return value{}, err
		}
	}
	v.shape = e.Shape()
	for i, f := range v.el {
		if f.hess != nil && !f.tight {
			if i == 0 {
				v.el = slices.Clone(v.el)
			}
			v.el[i] = tighten(f)
		}
	}
	a.work += len(v.el)
	if a.work > maxWork {
		return value{}, errTooLarge
	}
	if a.stopped() {
		return value{}, context.Canceled
	}
	a.record(e, v, rule)
	if arg != nil {
		a.stats[e].arg = arg
	}
	if fixed {
		a.fixed[e] = v
	}
	return v, nil
}

func (a *analyzer) compose(e check.Expr, ix env) (value, string, error) {
	switch e := e.(type) {
	case *check.VarRef:
		out := make([]*fnv, e.Var.Size)
		for i := range out {
			out[i] = a.affineFn(&affine{idx: []int32{int32(e.Var.Offset + i)}, coef: []float64{1}})
		}
		return value{el: out}, "variable", nil
	case *check.Index:
		return a.index(e, ix)
	case *check.Neg:
		x, err := a.expr(e.X, ix)
		if err != nil {
			return value{}, "", err
		}
		return a.mapEl(x, func(f *fnv) *fnv { return a.scale(f, -1, e) }), "negation", nil
	case *check.Arith:
		return a.arith(e, ix)
	case *check.Call:
		return a.call(e, ix)
	case *check.Compr:
		return a.compr(e, ix)
	case *check.If:
		return a.condIf(e, ix)
	case *check.Stack:
		out := make([]*fnv, len(e.Elems))
		for k, x := range e.Elems {
			v, err := a.expr(x, ix)
			if err != nil {
				return value{}, "", err
			}
			out[k] = v.at(0)
		}
		return value{el: out}, "list", nil
	}
	return value{}, "", fmt.Errorf("%s: %s cannot depend on a variable here", e.Src().Pos(), srcText(e))
}

func (a *analyzer) mapEl(x value, f func(*fnv) *fnv) value {
	out := make([]*fnv, len(x.el))
	for i, el := range x.el {
		out[i] = f(el)
	}
	return value{el: out}
}

func (a *analyzer) index(e *check.Index, ix env) (value, string, error) {
	x, err := a.expr(e.X, ix)
	if err != nil {
		return value{}, "", err
	}
	idx := make([]int, len(e.Idx))
	for k, ie := range e.Idx {
		t, err := check.Eval(ie, ix)
		if err != nil {
			return value{}, "", fmt.Errorf("%s: %v", ie.Src().Pos(), err)
		}
		idx[k] = int(t.Data[0])
	}
	shape := e.X.Shape()
	for k, i := range idx {
		if i < 1 || i > shape[k] {
			return value{}, "", fmt.Errorf("%s: index %d is out of range 1..%d", e.Src().Pos(), i, shape[k])
		}
	}
	switch {
	case len(idx) == 1 && shape.Rank() == 1:
		return value{el: []*fnv{x.el[idx[0]-1]}}, "index", nil
	case len(idx) == 1: // a row of a matrix
		n := shape[1]
		return value{el: x.el[(idx[0]-1)*n : idx[0]*n]}, "index", nil
	}
	return value{el: []*fnv{x.el[(idx[0]-1)*shape[1]+idx[1]-1]}}, "index", nil
}

// add is f + g.
func (a *analyzer) add(f, g *fnv) *fnv {
	if f.aff != nil && g.aff != nil {
		return a.affineFn(combine(f.aff, 1, g.aff, 1))
	}
	out := &fnv{val: add(f.val, g.val), g: up(f.g + g.g), lo: f.lo.plus(g.lo, false), hi: f.hi.plus(g.hi, true), smooth: f.smooth && g.smooth}
	if quadOK(f) && quadOK(g) {
		out.hess = addHess(hessOf(f), 1, hessOf(g), 1)
	}
	if math.IsInf(out.lo.s, -1) {
		out.why = f.why
		if out.why == nil {
			out.why = g.why
		}
	}
	return out
}

// scale is w*f; e is the expression for a refusal.
func (a *analyzer) scale(f *fnv, w float64, e check.Expr) *fnv {
	if f.aff != nil {
		af := &affine{idx: f.aff.idx, coef: make([]float64, len(f.aff.coef)), c0: w * f.aff.c0}
		for i, c := range f.aff.coef {
			af.coef[i] = w * c
		}
		return a.affineFn(af)
	}
	if w == 0 {
		return constFn(0)
	}
	out := &fnv{val: scale(f.val, w), g: up(math.Abs(w) * f.g), smooth: f.smooth}
	if f.hess != nil {
		out.hess = addHess(f.hess, w, nil, 0)
	}
	if w > 0 {
		out.lo, out.hi, out.why = f.lo.times(w), f.hi.times(w), f.why
		return out
	}
	// w H <= w (s_lo I - sum) = -|w| s_lo I + |w| sum, and the other way.
	out.lo, out.hi = f.hi.times(-w), f.lo.times(-w)
	out.lo.s, out.hi.s = -out.lo.s, -out.hi.s
	if math.IsInf(out.lo.s, -1) {
		out.why = a.refuse(e, "a negative multiple of a term with a convex kink or unbounded upward curvature has a concave kink (or unbounded downward curvature)")
	}
	return out
}

// broadcast2 calls f for each element of the broadcast of x and y.
func broadcast2(x, y value, n int, f func(i int) *fnv) value {
	out := make([]*fnv, n)
	for i := range out {
		out[i] = f(i)
	}
	return value{el: out}
}

func size(v value) int {
	if v.el != nil {
		return len(v.el)
	}
	return len(v.cst)
}

func (a *analyzer) arith(e *check.Arith, ix env) (value, string, error) {
	x, err := a.expr(e.X, ix)
	if err != nil {
		return value{}, "", err
	}
	y, err := a.expr(e.Y, ix)
	if err != nil {
		return value{}, "", err
	}
	n := max(size(x), size(y))
	switch e.Op {
	case "+":
		return broadcast2(x, y, n, func(i int) *fnv { return a.add(x.at(i), y.at(i)) }), "sum", nil
	case "-":
		return broadcast2(x, y, n, func(i int) *fnv { return a.add(x.at(i), a.scale(y.at(i), -1, e)) }), "difference", nil
	case "*":
		switch {
		case x.isConst():
			return broadcast2(x, y, n, func(i int) *fnv { return a.scale(y.at(i), x.cstAt(i), e) }), "scaling", nil
		case y.isConst():
			return broadcast2(x, y, n, func(i int) *fnv { return a.scale(x.at(i), y.cstAt(i), e) }), "scaling", nil
		}
		return broadcast2(x, y, n, func(i int) *fnv { return a.product(x.at(i), y.at(i), e) }), "product", nil
	case "/":
		switch {
		case y.isConst():
			return broadcast2(x, y, n, func(i int) *fnv {
				if y.cstAt(i) == 0 {
					return refused(a.refuse(e, "division by zero"))
				}
				return a.scale(x.at(i), 1/y.cstAt(i), e)
			}), "scaling", nil
		case x.isConst():
			return broadcast2(x, y, n, func(i int) *fnv {
				r := a.atom(atoms["^"], y.at(i), []float64{-1}, e, "1/z")
				return a.scale(r, x.cstAt(i), e)
			}), "division", nil
		}
		return a.refusedValue(n, a.refuse(e, "a division by a variable term (no rule bounds its curvature)")), "division", nil
	case "^":
		if !y.isConst() {
			return broadcast2(x, y, n, func(i int) *fnv { return a.power(x.at(i), y.at(i), e) }), "power", nil
		}
		p := y.cstAt(0)
		if c, ok := e.X.(*check.Call); ok && p == 2 && c.Func.Name == "norm2" && len(c.Args) == 1 {
			// norm2(v)^2 is the sum of the squares of v's elements.
			v, err := a.expr(c.Args[0], ix)
			if err != nil {
				return value{}, "", err
			}
			sq := make([]*fnv, size(v))
			w := make([]float64, len(sq))
			for i := range sq {
				sq[i], w[i] = a.atom(atoms["square"], v.at(i), nil, e, "square"), 1
			}
			return value{el: []*fnv{a.linear(sq, w, e)}}, "sum of squares", nil
		}
		return a.mapEl(x, func(f *fnv) *fnv { return a.atom(atoms["^"], f, []float64{p}, e, "z^"+num(p)) }), "power", nil
	}
	return value{}, "", fmt.Errorf("%s: unknown operator %s", e.Src().Pos(), e.Op)
}

func (a *analyzer) refusedValue(n int, why *Refusal) value {
	out := make([]*fnv, n)
	for i := range out {
		out[i] = refused(why)
	}
	return value{el: out}
}

// atom is the convex-composite rule h(c) for a scalar atom h:
//
//	h(c(y)) - h(c(x)) - h'(c(x)) <g, y-x>
//	  = [h(c(y)) - h(c(x)) - h'(c(x)) (c(y)-c(x))] + h'(c(x)) [c(y) - c(x) - <g, y-x>],
//
// the first bracket within Curv/2 (c(y)-c(x))^2 <= Curv/2 G_c^2 ||y-x||^2
// (exactly Curv/2 <a, y-x>^2 for an affine c = <a, x> + b), the second
// within h' times c's own curvature bounds.
func (a *analyzer) atom(at *Atom, c *fnv, p []float64, e check.Expr, name string) *fnv {
	if at == nil {
		return refused(a.refuse(e, fmt.Sprintf("no weak-convexity rule for %s (weakconvex/rules.go lists the built-ins it knows)", name)))
	}
	if c.why != nil && math.IsInf(c.lo.s, -1) && !c.val.Finite() {
		return refused(c.why)
	}
	l, why := at.Local(c.val, p)
	if why != "" {
		return refused(a.refuse(e, why))
	}
	out := &fnv{val: l.Val, g: up(mulf(l.Der.Mag(), c.g)), smooth: l.Smooth && c.smooth}
	// The first bracket.
	cl, ch := math.Min(0, l.Curv.Lo), math.Max(0, l.Curv.Hi)
	g2 := c.g * c.g
	if c.aff != nil {
		switch {
		case math.IsInf(cl, -1):
			out.lo.s = cl
		case cl < 0:
			out.lo = quad{terms: []term{{-cl, c.aff}}, nnz: len(c.aff.idx)}
		}
		switch {
		case math.IsInf(ch, 1):
			out.hi.s = ch
		case ch > 0:
			out.hi = quad{terms: []term{{ch, c.aff}}, nnz: len(c.aff.idx)}
		}
		if math.IsInf(out.lo.s, -1) {
			out.why = a.refuse(e, fmt.Sprintf("%s has unbounded downward curvature on its argument's range %s", name, c.val))
		}
		return out
	}
	out.lo.s = down(mulf(cl, g2))
	out.hi.s = up(mulf(ch, g2))
	if math.IsInf(out.lo.s, -1) {
		out.why = a.refuse(e, fmt.Sprintf("%s has curvature down to %s on its argument's range %s and the argument's slope bound is %s", name, num(l.Curv.Lo), c.val, num(c.g)))
		return out
	}
	// The second: h' times c's curvature, h' in l.Der.
	lo, hi, wwhy := a.weighted(l.Der, c, e, name)
	out.lo, out.hi, out.why = out.lo.plus(lo, false), out.hi.plus(hi, true), wwhy
	return out
}

// weighted bounds w times c's curvature residual c(y) - c(x) - <g, y-x>
// for a number w known only to lie in d (h'(c(x)) in the composition
// rule, f(x) in a product's rule). w is one number: either w >= 0, and
// lo_c w <= w H_c <= hi_c w, or w <= 0, and the bounds swap. When both
// signs are possible the bounds are the extremes of the two (as
// numbers); with one sign they keep c's rank-one terms. why explains an
// unbounded lower bound.
func (a *analyzer) weighted(d Interval, c *fnv, e check.Expr, name string) (lo, hi quad, why *Refusal) {
	dpLo, dpHi := math.Max(0, d.Lo), math.Max(0, d.Hi)
	dnLo, dnHi := math.Max(0, -d.Hi), math.Max(0, -d.Lo)
	var posLo, posHi, negLo, negHi quad
	if dpHi > 0 {
		posLo = c.lo.times(dpHi)
		posLo.s = math.Min(mulf(dpLo, c.lo.s), mulf(dpHi, c.lo.s))
		posHi = c.hi.times(dpHi)
		posHi.s = math.Max(mulf(dpLo, c.hi.s), mulf(dpHi, c.hi.s))
		if math.IsInf(c.lo.s, -1) {
			why = c.why
		}
	}
	if dnHi > 0 {
		negLo = c.hi.times(dnHi)
		negLo.s = math.Min(-mulf(dnLo, c.hi.s), -mulf(dnHi, c.hi.s))
		negHi = c.lo.times(dnHi)
		negHi.s = math.Max(-mulf(dnLo, c.lo.s), -mulf(dnHi, c.lo.s))
		if math.IsInf(negLo.s, -1) && why == nil {
			why = a.refuse(e, fmt.Sprintf("%s decreases on part of its argument's range %s and the argument has a convex kink or unbounded upward curvature, so the composition has a concave kink", name, c.val))
		}
	}
	switch {
	case dpHi > 0 && dnHi > 0:
		return eitherLower(posLo, negLo), eitherUpper(posHi, negHi), why
	case dpHi > 0:
		return posLo, posHi, why
	case dnHi > 0:
		return negLo, negHi, why
	}
	return quad{}, quad{}, why
}

// eitherLower is a lower bound that holds when either p or n does. When
// one of them is >= 0 (no terms, s >= 0) and the other <= 0 (s <= 0), the
// other is one, and keeps its rank-one terms (|z^2 - b|, whose lower
// bound comes from z^2's upper one); otherwise the smaller of the two as
// numbers.
func eitherLower(p, n quad) quad {
	switch {
	case len(p.terms) == 0 && p.s >= 0 && n.s <= 0:
		return n
	case len(n.terms) == 0 && n.s >= 0 && p.s <= 0:
		return p
	}
	return quad{s: math.Min(p.scalar(false), n.scalar(false))}
}

// eitherUpper is eitherLower for upper bounds.
func eitherUpper(p, n quad) quad {
	switch {
	case len(p.terms) == 0 && p.s <= 0 && n.s >= 0:
		return n
	case len(n.terms) == 0 && n.s <= 0 && p.s >= 0:
		return p
	}
	return quad{s: math.Max(p.upperScalar(false), n.upperScalar(false))}
}

// maxOf is the pointwise max of fs: weakly convex with the smallest lower
// curvature of its arguments, not smooth, unless the intervals show that
// one argument is always the largest.
func (a *analyzer) maxOf(fs []*fnv) *fnv {
	if j := dominant(fs, 1); j >= 0 {
		return fs[j]
	}
	out := &fnv{val: Interval{math.Inf(-1), math.Inf(-1)}, hi: quad{s: math.Inf(1)}}
	s := math.Inf(1)
	for _, f := range fs {
		out.val = Interval{math.Max(out.val.Lo, f.val.Lo), math.Max(out.val.Hi, f.val.Hi)}
		out.g = math.Max(out.g, f.g)
		if v := f.lo.scalar(false); v < s {
			s = v
			if math.IsInf(v, -1) && out.why == nil {
				out.why = f.why
			}
		}
	}
	out.lo.s = s
	return out
}

// dominant returns the index of an argument that is strictly the largest
// (dir 1) or smallest (dir -1) everywhere on X by the intervals, or -1.
func dominant(fs []*fnv, dir float64) int {
	for j, f := range fs {
		ok := true
		for i, g := range fs {
			if i == j {
				continue
			}
			if dir > 0 && !(f.val.Lo > g.val.Hi) || dir < 0 && !(f.val.Hi < g.val.Lo) {
				ok = false
				break
			}
		}
		if ok {
			return j
		}
	}
	return -1
}

func (a *analyzer) minOf(fs []*fnv, e check.Expr) *fnv {
	if j := dominant(fs, -1); j >= 0 {
		return fs[j]
	}
	nconst := 0
	for _, f := range fs {
		if f.aff != nil && len(f.aff.idx) == 0 {
			nconst++
		}
	}
	if nconst == len(fs) {
		m := fs[0]
		for _, f := range fs {
			if f.aff.c0 < m.aff.c0 {
				m = f
			}
		}
		return m
	}
	return refused(a.refuse(e, "min of terms whose ranges overlap on X: it has a concave kink where they cross (no rho makes it convex)"))
}

func (a *analyzer) call(e *check.Call, ix env) (value, string, error) {
	args := make([]value, len(e.Args))
	for i, x := range e.Args {
		v, err := a.expr(x, ix)
		if err != nil {
			return value{}, "", err
		}
		args[i] = v
	}
	f := e.Func
	name := f.Name
	switch {
	case f.Kind == stdlib.Dot:
		return a.dot(e, args)
	case f.Kind == stdlib.Reduction || len(args) == 1 && f.Reduce != nil && !e.Args[0].Shape().IsScalar():
		return a.reduce(e, name, args[0])
	case name == "max" || name == "min":
		n := 0
		for _, v := range args {
			n = max(n, size(v))
		}
		out := make([]*fnv, n)
		for i := range out {
			fs := make([]*fnv, len(args))
			for k, v := range args {
				fs[k] = v.at(i)
			}
			if name == "max" {
				out[i] = a.maxOf(fs)
			} else {
				out[i] = a.minOf(fs, e)
			}
		}
		return value{el: out}, name, nil
	}
	at := atoms[name]
	return a.mapEl(args[0], func(c *fnv) *fnv { return a.atom(at, c, e.Params, e, name) }), "composition", nil
}

func (a *analyzer) dot(e *check.Call, args []value) (value, string, error) {
	x, y := args[0], args[1]
	sx, sy := e.Args[0].Shape(), e.Args[1].Shape()
	if !x.isConst() && !y.isConst() {
		rows, cols := 1, sy[0]
		if sx.Rank() == 2 {
			rows = sx[0]
		}
		out := make([]*fnv, rows)
		w := make([]float64, cols)
		for j := range w {
			w[j] = 1
		}
		for r := range out {
			ps := make([]*fnv, cols)
			for j := range ps {
				ps[j] = a.product(x.el[r*cols+j], y.el[j], e)
			}
			out[r] = a.linear(ps, w, e)
		}
		return value{el: out}, "sum of products", nil
	}
	rows, cols := 1, sy[0]
	if sx.Rank() == 2 {
		rows = sx[0]
	}
	out := make([]*fnv, rows)
	for r := 0; r < rows; r++ {
		// the terms with a nonzero weight only (a row of sparse data has
		// few): sum_j w_j f_j is the same function
		var w []float64
		var fs []*fnv
		for j := 0; j < cols; j++ {
			var wj float64
			var fj *fnv
			if x.isConst() {
				wj, fj = x.cst[r*cols+j], y.el[j]
			} else {
				wj, fj = y.cst[j], x.el[r*cols+j]
			}
			if wj != 0 {
				w, fs = append(w, wj), append(fs, fj)
			}
		}
		out[r] = a.linear(fs, w, e)
	}
	return value{el: out}, "linear", nil
}

// linear is sum_j w_j f_j.
func (a *analyzer) linear(fs []*fnv, w []float64, e check.Expr) *fnv {
	affs := make([]*affine, 0, len(fs))
	for _, f := range fs {
		if f.aff == nil {
			break
		}
		affs = append(affs, f.aff)
	}
	if len(affs) == len(fs) {
		return a.affineFn(lincomb(affs, w))
	}
	var acc *fnv
	for j, f := range fs {
		if w[j] == 0 {
			continue
		}
		t := a.scale(f, w[j], e)
		if acc == nil {
			acc = t
		} else {
			acc = a.add(acc, t)
		}
	}
	if acc == nil {
		return constFn(0)
	}
	return acc
}

// reduce applies a reduction to a vector of elements.
func (a *analyzer) reduce(e *check.Call, name string, x value) (value, string, error) {
	n := len(x.el)
	switch name {
	case "sum", "mean":
		w := make([]float64, n)
		for i := range w {
			w[i] = 1
			if name == "mean" {
				w[i] = 1 / float64(n)
			}
		}
		return value{el: []*fnv{a.linear(x.el, w, e)}}, "linear", nil
	case "max":
		return value{el: []*fnv{a.maxOf(x.el)}}, "max", nil
	case "min":
		return value{el: []*fnv{a.minOf(x.el, e)}}, "min", nil
	case "prod":
		return value{el: []*fnv{a.prodOf(x.el, e)}}, "product", nil
	case "norm1", "norm2", "norminf":
		return value{el: []*fnv{a.norm(name, x.el, e)}}, "convex-composite", nil
	}
	return value{el: []*fnv{refused(a.refuse(e, fmt.Sprintf("no weak-convexity rule for %s (weakconvex/rules.go lists the built-ins it knows)", name)))}}, "unknown", nil
}

// norm is the convex-composite rule for a norm h of a vector c: with s a
// subgradient of h (||s||_* <= 1 in the dual norm),
// h(c(y)) - h(c(x)) - <s, J(y-x)> >= sum_i s_i [c_i(y) - c_i(x) - <g_i, y-x>]
// >= -B(k)/2 ||y-x||^2 with k_i = max(-lo_i, hi_i, 0) and B(k) the largest
// sum_i |s_i| k_i: sum k_i for norm1 (|s_i| <= 1), ||k||_2 for norm2
// (||s||_2 <= 1), max k_i for norminf (||s||_1 <= 1); the subgradient
// norm is bounded by B of the elements' bounds the same way.
func (a *analyzer) norm(name string, cs []*fnv, e check.Expr) *fnv {
	k := make([]float64, len(cs))
	gs := make([]float64, len(cs))
	out := &fnv{hi: quad{s: math.Inf(1)}}
	lo, hi := 0.0, 0.0
	for i, c := range cs {
		rho := -c.lo.scalar(false)
		k[i] = math.Max(0, math.Max(rho, c.hi.upperScalar(false)))
		gs[i] = c.g
		if math.IsInf(c.lo.s, -1) && out.why == nil {
			out.why = c.why
		}
		m := c.val.Mag()
		mn := 0.0
		if !c.val.Contains(0) {
			mn = math.Min(math.Abs(c.val.Lo), math.Abs(c.val.Hi))
		}
		switch name {
		case "norm1":
			lo, hi = lo+mn, hi+m
		case "norm2":
			lo, hi = lo+mn*mn, hi+m*m
		default:
			lo, hi = math.Max(lo, mn), math.Max(hi, m)
		}
	}
	if name == "norm2" {
		lo, hi = math.Sqrt(lo), math.Sqrt(hi)
	}
	out.val = widen(Interval{lo, hi})
	dual := map[string]func([]float64) float64{"norm1": norm1, "norm2": norm2, "norminf": normInf}[name]
	out.lo.s = down(-dual(k))
	out.g = up(dual(gs))
	if math.IsInf(out.lo.s, -1) && out.why == nil {
		out.why = a.refuse(e, name+" of terms with a kink or unbounded curvature in both directions")
	}
	return out
}

func norm1(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += math.Abs(x)
	}
	return s
}

func norm2(v []float64) float64 { return math.Sqrt(sumsq(v)) }

func normInf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
