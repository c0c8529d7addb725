package weakconvex

import (
	"fmt"
	"math"

	"github.com/qrc-lang/qrc/check"
)

// product is the rule for f*g, two terms that both depend on the
// variables. With d = y - x,
//
//	fg(y) - fg(x) - <f(x) g_g + g(x) g_f, d> = f(x) R_g + g(x) R_f + (f(y)-f(x)) (g(y)-g(x)),
//
// R the terms' curvature residuals: the first two are bounded like the
// second bracket of the composition rule, with the weights f(x) and g(x)
// in the terms' ranges on X; the last is (a.d)(b.d) = 1/2 d^T (a b^T +
// b a^T) d exactly when f and g are affine with coefficients a and b
// (rank-one terms ±1/4 (a ± b)(a ± b)^T, times 2 for the 1/2 of the
// bounds), and within ±M_f M_g ||d||^2 otherwise. The product of a term
// with itself (dot(x, x), an affine term times the same affine term) is
// a square: its range is that of z^2. Without bounded ranges (a variable
// without a bounded domain) the product is refused, as no rule bounds
// f(x) R_g.
func (a *analyzer) product(f, g *fnv, e check.Expr) *fnv {
	if f.aff != nil && len(f.aff.idx) == 0 {
		return a.scale(g, f.aff.c0, e)
	}
	if g.aff != nil && len(g.aff.idx) == 0 {
		return a.scale(f, g.aff.c0, e)
	}
	for _, t := range []*fnv{f, g} {
		if t.why != nil && math.IsInf(t.lo.s, -1) && !t.val.Finite() {
			return refused(t.why)
		}
	}
	same := f.aff != nil && g.aff != nil && sameAffine(f.aff, g.aff)
	out := &fnv{val: mul(f.val, g.val), smooth: f.smooth && g.smooth}
	if same {
		out.val = sqr(f.val)
	}
	out.g = up(mulf(f.val.Mag(), g.g) + mulf(g.val.Mag(), f.g))
	if !f.val.Finite() && g.aff == nil || !g.val.Finite() && f.aff == nil {
		return refused(a.refuse(e, fmt.Sprintf("a product of variable terms whose ranges %s and %s on X are not bounded (no rule bounds its curvature; give the variables bounded domains)", f.val, g.val)))
	}
	lf, hf, wf := a.weighted(f.val, g, e, "the product")
	lg, hg, wg := a.weighted(g.val, f, e, "the product")
	out.lo, out.hi = lf.plus(lg, false), hf.plus(hg, true)
	out.why = wf
	if out.why == nil {
		out.why = wg
	}
	if f.aff != nil && g.aff != nil {
		out.hess = outerHess(f.aff, g.aff)
		if s := combine(f.aff, 1, g.aff, -1); s.norm2() > 0 {
			out.lo = out.lo.plus(quad{terms: []term{{0.5, s}}, nnz: len(s.idx)}, false)
		}
		if s := combine(f.aff, 1, g.aff, 1); s.norm2() > 0 {
			out.hi = out.hi.plus(quad{terms: []term{{0.5, s}}, nnz: len(s.idx)}, true)
		}
	} else {
		m := up(2 * mulf(f.g, g.g))
		out.lo = out.lo.plus(quad{s: -m}, false)
		out.hi = out.hi.plus(quad{s: m}, true)
	}
	if math.IsInf(out.lo.s, -1) && out.why == nil {
		out.why = a.refuse(e, fmt.Sprintf("a product of terms with unbounded slopes (M %s and %s) on X", num(f.g), num(g.g)))
	}
	return out
}

// sameAffine reports whether a and b are the same affine function.
func sameAffine(a, b *affine) bool {
	if a == b {
		return true
	}
	if a.c0 != b.c0 || len(a.idx) != len(b.idx) {
		return false
	}
	for k := range a.idx {
		if a.idx[k] != b.idx[k] || a.coef[k] != b.coef[k] {
			return false
		}
	}
	return true
}

// power is x^y with a variable exponent: e^(y log x), analysed as that
// composition (log of the base, a product, exp), which needs the base's
// range on X above 0.
func (a *analyzer) power(x, y *fnv, e check.Expr) *fnv {
	if !(x.val.Lo > 0) {
		if x.why != nil && math.IsInf(x.lo.s, -1) {
			return refused(x.why)
		}
		return refused(a.refuse(e, fmt.Sprintf("x^y with a variable exponent is e^(y log x), defined for x > 0, but the base's range on X is %s", x.val)))
	}
	l := a.atom(atoms["log"], x, nil, e, "log of the base")
	return a.atom(atoms["exp"], a.product(y, l, e), nil, e, "e^(y log x)")
}

// prodOf is the product of the elements fs, multiplied in turn.
func (a *analyzer) prodOf(fs []*fnv, e check.Expr) *fnv {
	if len(fs) == 0 {
		return constFn(1)
	}
	acc := fs[0]
	for _, f := range fs[1:] {
		acc = a.product(acc, f, e)
	}
	return acc
}
