package smoothing

import (
	"math"

	"github.com/qrc-lang/qrc/stdlib"
)

// The smoothings of the kinks, each with the parameter mu > 0 read from
// *mu at every evaluation. For every kink k with smoothing k_mu and every
// t:
//
//   - k_mu is continuously differentiable and k_mu(t) >= k(t): a model
//     whose kinks enter with nonnegative coefficients has f_mu >= f, so a
//     point feasible for the smoothed constraints is feasible for the
//     exact ones;
//   - the tangent value tau(t) = k_mu(t) - k_mu'(t) t + (intercept) is the
//     value at t of an affine minorant of k whose slope is k_mu'(t):
//     k(s) >= tau(t) + k_mu'(t) (s - t) for every s. This is what makes
//     the smoothed oracle's lower bound a bound on the exact problem.
//
// pos is smoothed on the band |t| <= mu/2 by the quadratic that joins its
// two pieces with matching slopes, (t + mu/2)^2 / (2 mu), at most mu/8
// above pos; its tangent value there is s t with s = (t + mu/2)/mu in
// [0, 1] (pos(r) >= s r for every r). abs(t) = pos(t) + pos(-t), hinge(z)
// = pos(1 - z), and mcp and scad are lambda |z| plus a continuously
// differentiable rest, whose |z| is smoothed as abs.

// posSmooth returns pos_mu(t), its derivative and the tangent value.
func posSmooth(t, mu float64) (v, d, tan float64) {
	h := mu / 2
	switch {
	case t >= h:
		return t, 1, t
	case t <= -h:
		return 0, 0, 0
	}
	s := (t + h) / mu
	return (t + h) * s / 2, s, s * t
}

// absSmooth returns abs_mu(t), its derivative and the tangent value.
func absSmooth(t, mu float64) (v, d, tan float64) {
	v1, d1, t1 := posSmooth(t, mu)
	v2, d2, t2 := posSmooth(-t, mu)
	return v1 + v2, d1 - d2, t1 + t2
}

// kink is a built-in with a smoothing.
type kink struct {
	// smooth returns the smoothing's value, derivative and tangent value
	// at z with the built-in's parameters p.
	smooth func(z, mu float64, p []float64) (v, d, tan float64)
}

// kinks are the built-ins this package smooths, by name.
var kinks = map[string]kink{
	"pos":   {func(z, mu float64, _ []float64) (float64, float64, float64) { return posSmooth(z, mu) }},
	"abs":   {func(z, mu float64, _ []float64) (float64, float64, float64) { return absSmooth(z, mu) }},
	"hinge": {hingeSmooth},
	"mcp":   {penaltySmooth("mcp")},
	"scad":  {penaltySmooth("scad")},
}

func hingeSmooth(z, mu float64, _ []float64) (float64, float64, float64) {
	v, d, tan := posSmooth(1-z, mu)
	return v, -d, tan
}

// penaltySmooth smooths a penalty lambda |z| + r(z) (mcp, scad: p[0] is
// lambda) whose rest r is continuously differentiable: lambda abs_mu(z) +
// r(z), with the tangent value lambda tau_abs(z) + r(z).
func penaltySmooth(name string) func(z, mu float64, p []float64) (float64, float64, float64) {
	f := stdlib.Lookup(name)
	return func(z, mu float64, p []float64) (float64, float64, float64) {
		lam := p[0]
		v, d := f.Scalar(z, p), f.Deriv(z, p)
		a := math.Abs(z)
		s := 0.0
		if z > 0 {
			s = 1
		} else if z < 0 {
			s = -1
		}
		av, ad, at := absSmooth(z, mu)
		return v + lam*(av-a), d + lam*(ad-s), v + lam*(at-a)
	}
}

// smoothFunc returns the built-in that computes k's smoothing (tangent
// false) or its tangent value (tangent true, whose derivative is the
// smoothing's), reading mu from *mu, with the properties of a smooth
// function.
func smoothFunc(orig *stdlib.Func, k kink, mu *float64, tangent bool) *stdlib.Func {
	pick := func(z float64, p []float64) (float64, float64) {
		v, d, t := k.smooth(z, *mu, p)
		if tangent {
			return t, d
		}
		return v, d
	}
	props := orig.Props
	props.Smooth = true
	name := orig.Name + "~smooth"
	if tangent {
		name = orig.Name + "~tangent"
	}
	return &stdlib.Func{
		Name: name, MinArgs: orig.MinArgs, MaxArgs: orig.MaxArgs, Kind: orig.Kind, ParamArgs: orig.ParamArgs,
		Doc: orig.Doc, Props: props,
		Scalar:     func(z float64, p []float64) float64 { v, _ := pick(z, p); return v },
		Deriv:      func(z float64, p []float64) float64 { _, d := pick(z, p); return d },
		ValueDeriv: pick,
		PropsAt: func(p []float64) stdlib.Props {
			q := orig.PropsFor(p)
			q.Smooth = true
			return q
		},
		CheckParams: orig.CheckParams,
	}
}
