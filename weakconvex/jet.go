package weakconvex

import (
	"math"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/stdlib"
)

// The one-variable rule. A scalar subexpression phi(u) that depends on the
// variables only through one affine scalar u = <a, x> + b (the margin
// dot(w, X[i]) inside a loss, say) has Hessian phi''(u) a a^T, so bounds on
// phi' and phi'' over the range U of u give its slope bound max|phi'| ||a||
// and the rank-one curvature term min(0, min phi'') a a^T exactly. phi'
// and phi'' are bounded by forward-mode second-order interval arithmetic
// (jets) on pieces of U, which keeps the bound tight for compositions such
// as 1/(1+exp(u)) that the general rules, applied node by node, would
// bound loosely.

// jet is a value with its first and second derivative with respect to u,
// each as an interval over a piece of U.
type jet struct{ v, d, c Interval }

// U is cut into pieces of width at most pieceWidth, at least minPieces
// and at most maxPieces of them: narrow pieces keep the dependency
// between the operands of an interval operation (the two e^u of
// 1/(1+e^u)) from widening its result much.
const (
	minPieces  = 64
	maxPieces  = 1024
	pieceWidth = 0.01
)

type uniInfo struct {
	ok      bool
	u       check.Expr // nil: constant
	envFree bool       // no leaf but u depends on an index or data
}

// structAffine reports whether e is affine in the variables by its form.
func (a *analyzer) structAffine(e check.Expr) bool {
	if e.Deps()&check.DepVar == 0 {
		return true
	}
	if r, ok := a.aff[e]; ok {
		return r
	}
	r := false
	switch e := e.(type) {
	case *check.VarRef:
		r = true
	case *check.Index:
		r = a.structAffine(e.X)
	case *check.Neg:
		r = a.structAffine(e.X)
	case *check.Arith:
		switch e.Op {
		case "+", "-":
			r = a.structAffine(e.X) && a.structAffine(e.Y)
		case "*":
			r = e.X.Deps()&check.DepVar == 0 && a.structAffine(e.Y) || e.Y.Deps()&check.DepVar == 0 && a.structAffine(e.X)
		case "/":
			r = e.Y.Deps()&check.DepVar == 0 && a.structAffine(e.X)
		}
	case *check.Call:
		switch {
		case e.Func.Kind == stdlib.Dot:
			x, y := e.Args[0], e.Args[1]
			r = x.Deps()&check.DepVar == 0 && a.structAffine(y) || y.Deps()&check.DepVar == 0 && a.structAffine(x)
		case e.Func.Name == "sum" || e.Func.Name == "mean":
			r = len(e.Args) == 1 && a.structAffine(e.Args[0])
		}
	case *check.Compr:
		r = (e.Op == "sum" || e.Op == "mean") && a.structAffine(e.Body)
	}
	a.aff[e] = r
	return r
}

// univariate finds the affine scalar u that e depends on the variables
// through, if there is exactly one and every operation between is one the
// jets know.
func (a *analyzer) univariate(e check.Expr) uniInfo {
	if e.Deps()&check.DepVar == 0 {
		return uniInfo{ok: true, envFree: e.Deps() == 0}
	}
	if r, ok := a.uni[e]; ok {
		return r
	}
	r := uniInfo{}
	if e.Shape().IsScalar() {
		if a.structAffine(e) {
			r = uniInfo{ok: true, u: e, envFree: true}
		} else {
			switch e := e.(type) {
			case *check.Neg:
				r = a.univariate(e.X)
			case *check.Arith:
				r = joinUni(a.univariate(e.X), a.univariate(e.Y))
			case *check.Call:
				if atoms[e.Func.Name] != nil && e.Func.Kind == stdlib.Elementwise && len(e.Args) == 1 {
					r = a.univariate(e.Args[0])
				}
			}
		}
	}
	a.uni[e] = r
	return r
}

func joinUni(x, y uniInfo) uniInfo {
	if !x.ok || !y.ok {
		return uniInfo{}
	}
	u := x.u
	if u == nil {
		u = y.u
	} else if y.u != nil && y.u != x.u {
		return uniInfo{}
	}
	return uniInfo{ok: true, u: u, envFree: x.envFree && y.envFree}
}

type memoKey struct {
	e      check.Expr
	lo, hi float64
}

// jetSum is the union of the jets over the pieces of U.
type jetSum struct {
	v, d, c Interval
	ok      bool
}

// quantize rounds U outward to a grid of 1/64 of its magnitude, so that
// the ranges of many rows share one memoized result.
func quantize(u Interval) Interval {
	m := u.Mag()
	if m == 0 {
		return u
	}
	q := math.Ldexp(1, math.Ilogb(m)-6)
	return Interval{math.Floor(u.Lo/q) * q, math.Ceil(u.Hi/q) * q}
}

// tryJet applies the one-variable rule to e if it fits.
func (a *analyzer) tryJet(e check.Expr, ix env) (*fnv, check.Expr, bool) {
	if !e.Shape().IsScalar() || a.structAffine(e) || a.atomOfAffine(e) {
		return nil, nil, false
	}
	info := a.univariate(e)
	if !info.ok || info.u == nil {
		return nil, nil, false
	}
	uv, err := a.expr(info.u, ix)
	if err != nil || uv.isConst() || uv.el[0].aff == nil {
		return nil, nil, false
	}
	u := uv.el[0]
	U := u.val
	if !U.Finite() {
		return nil, nil, false
	}
	var js jetSum
	if info.envFree {
		if overRows(ix) {
			U = quantize(U)
		}
		key := memoKey{e, U.Lo, U.Hi}
		var ok bool
		if js, ok = a.memo[key]; !ok {
			js = a.jets(e, info.u, U, ix)
			a.memo[key] = js
		}
	} else {
		js = a.jets(e, info.u, U, ix)
	}
	if !js.ok {
		return nil, nil, false
	}
	out := &fnv{val: js.v, g: up(mulf(js.d.Mag(), u.g)), smooth: true}
	if js.c.Lo < 0 {
		out.lo = quad{terms: []term{{-js.c.Lo, u.aff}}, nnz: len(u.aff.idx)}
	}
	if js.c.Hi > 0 {
		out.hi = quad{terms: []term{{js.c.Hi, u.aff}}, nnz: len(u.aff.idx)}
	}
	return out, info.u, true
}

func (a *analyzer) jets(e, u check.Expr, U Interval, ix env) jetSum {
	out := jetSum{ok: true}
	pieces := int(min(maxPieces, max(minPieces, math.Ceil((U.Hi-U.Lo)/pieceWidth))))
	w := (U.Hi - U.Lo) / float64(pieces)
	for k := 0; k < pieces; k++ {
		lo, hi := U.Lo+float64(k)*w, U.Lo+float64(k+1)*w
		if k == pieces-1 {
			hi = U.Hi
		}
		if w == 0 {
			lo, hi = U.Lo, U.Hi
		}
		j, ok := a.jet(e, u, Interval{down(lo), up(hi)}, ix)
		if !ok || math.IsNaN(j.v.Lo+j.v.Hi+j.d.Lo+j.d.Hi+j.c.Lo+j.c.Hi) {
			return jetSum{}
		}
		if k == 0 {
			out.v, out.d, out.c = j.v, j.d, j.c
		} else {
			out.v, out.d, out.c = union(out.v, j.v), union(out.d, j.d), union(out.c, j.c)
		}
		if w == 0 {
			break
		}
	}
	return out
}

// jet evaluates e on the piece P of u's range.
func (a *analyzer) jet(e, u check.Expr, P Interval, ix env) (jet, bool) {
	if e == u {
		return jet{P, point(1), point(0)}, true
	}
	if e.Deps()&check.DepVar == 0 {
		t, err := check.Eval(e, ix)
		if err != nil || len(t.Data) != 1 {
			return jet{}, false
		}
		return jet{point(t.Data[0]), point(0), point(0)}, true
	}
	switch e := e.(type) {
	case *check.Neg:
		x, ok := a.jet(e.X, u, P, ix)
		return jet{neg(x.v), neg(x.d), neg(x.c)}, ok
	case *check.Arith:
		x, ok := a.jet(e.X, u, P, ix)
		if !ok {
			return jet{}, false
		}
		if e.Op == "^" && e.Y.Deps()&check.DepVar != 0 {
			// x^y = e^(y log x)
			y, ok := a.jet(e.Y, u, P, ix)
			if !ok {
				return jet{}, false
			}
			l, ok := compose(atoms["log"], x, nil)
			if !ok {
				return jet{}, false
			}
			m := jet{mul(y.v, l.v), add(mul(y.d, l.v), mul(y.v, l.d)),
				add(add(mul(y.c, l.v), mul(y.v, l.c)), scale(mul(y.d, l.d), 2))}
			return compose(atoms["exp"], m, nil)
		}
		if e.Op == "^" {
			p, err := check.Eval(e.Y, ix)
			if err != nil {
				return jet{}, false
			}
			return compose(atoms["^"], x, p.Data)
		}
		y, ok := a.jet(e.Y, u, P, ix)
		if !ok {
			return jet{}, false
		}
		switch e.Op {
		case "+":
			return jet{add(x.v, y.v), add(x.d, y.d), add(x.c, y.c)}, true
		case "-":
			return jet{sub(x.v, y.v), sub(x.d, y.d), sub(x.c, y.c)}, true
		case "*":
			return jet{mul(x.v, y.v), add(mul(x.d, y.v), mul(x.v, y.d)),
				add(add(mul(x.c, y.v), mul(x.v, y.c)), scale(mul(x.d, y.d), 2))}, true
		case "/":
			q, ok := div(x.v, y.v)
			if !ok {
				return jet{}, false
			}
			d, _ := div(sub(x.d, mul(q, y.d)), y.v)
			c, _ := div(sub(sub(x.c, scale(mul(d, y.d), 2)), mul(q, y.c)), y.v)
			return jet{q, d, c}, true
		}
	case *check.Call:
		at := atoms[e.Func.Name]
		if at == nil || len(e.Args) != 1 {
			return jet{}, false
		}
		x, ok := a.jet(e.Args[0], u, P, ix)
		if !ok {
			return jet{}, false
		}
		return compose(at, x, e.Params)
	}
	return jet{}, false
}

// compose is the chain rule for jets: (h(v), h'(v) d, h”(v) d^2 + h'(v) c).
func compose(at *Atom, x jet, p []float64) (jet, bool) {
	l, why := at.Local(x.v, p)
	if why != "" || !l.Twice {
		return jet{}, false
	}
	return jet{l.Val, mul(l.Der, x.d), add(mul(l.Curv, sqr(x.d)), mul(l.Der, x.c))}, true
}

// atomOfAffine reports whether e is one atom applied to an affine
// argument, which the composition rule bounds exactly (no jets needed).
func (a *analyzer) atomOfAffine(e check.Expr) bool {
	switch e := e.(type) {
	case *check.Call:
		return len(e.Args) == 1 && a.structAffine(e.Args[0])
	case *check.Arith:
		return e.Op == "^" && a.structAffine(e.X)
	}
	return false
}

// overRows reports whether ix binds an index over data rows: the ranges
// then differ from row to row and are quantized so that rows share jets.
func overRows(ix env) bool {
	for b := range ix {
		if b.Data != nil {
			return true
		}
	}
	return false
}
