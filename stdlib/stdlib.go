// Package stdlib is the table of qrc's built-in functions: their names, how
// many arguments they take and of what shape, what they compute, their
// derivatives (or the subgradient chosen at a kink), and their known
// mathematical properties (convexity, smoothness, Lipschitz constant,
// weak-convexity modulus), which later stages use to analyse a model.
//
// The checker uses Lookup and the shape rule (Kind) to type calls; constant
// expressions (parameters, index sets) are evaluated with Func.Scalar and
// Func.Reduce. The compiler differentiates with Func.Deriv, Func.Grad, and
// Pow and PowDeriv for x^p with a constant exponent. docs/stdlib.md lists
// every built-in with its subgradient choices and properties.
package stdlib

import (
	"math"
	"slices"
	"sort"
)

// Kind says how a built-in maps argument shapes to a result shape.
type Kind int

// The kinds of built-in.
const (
	// Elementwise applies a scalar function to its first argument element by
	// element; any further arguments are constant scalar parameters
	// (huber's delta, mcp's lambda and gamma). n-ary max and min are
	// elementwise over all arguments, with scalars broadcast.
	Elementwise Kind = iota
	// Reduction maps a vector or matrix to a scalar (norm2, sum of a vector).
	Reduction
	// Dot is the inner product of two vectors of equal length, or the
	// product of an m×n matrix and a vector of length n (a vector of length m).
	Dot
)

// Func describes one built-in function.
type Func struct {
	Name    string
	MinArgs int // fewest arguments
	MaxArgs int // most arguments; -1 for any number
	Kind    Kind
	// ParamArgs is the number of trailing arguments that must be constant
	// scalars (huber has 1, mcp and scad have 2).
	ParamArgs int
	Doc       string // one line: the definition
	// Props are the properties that hold for every valid choice of the
	// constant parameters; see PropsFor for the properties at given ones.
	Props Props

	// Scalar computes an Elementwise function at z with the constant
	// parameters p (nil for the others).
	Scalar func(z float64, p []float64) float64
	// Deriv is the derivative of Scalar with respect to z, with the
	// parameters p held constant. At a kink it returns one fixed element of
	// the Clarke subdifferential, documented at the function and in
	// docs/stdlib.md (abs'(0) = 0, pos'(0) = 0, hinge'(1) = 0, mcp'(0) =
	// scad'(0) = 0). Where the derivative is infinite it returns ±Inf
	// (sqrt'(0) = +Inf). Nil for the n-ary max and min, whose derivative
	// depends on all their arguments, and for the functions without Scalar.
	Deriv func(z float64, p []float64) float64
	// ValueDeriv returns Scalar and Deriv together, sharing their work where
	// that pays (sigmoid computes one exponential for both). Non-nil exactly
	// when Deriv is; the compiled program calls it for every element.
	ValueDeriv func(z float64, p []float64) (v, d float64)
	// Reduce computes a Reduction over the elements of its argument (nil for
	// the others).
	Reduce func(v []float64) float64
	// Grad writes a subgradient of Reduce at v into g, which must have the
	// length of v; every element of g is overwritten and nothing is
	// allocated. Non-nil exactly when Reduce is. For max and min the
	// subgradient is one-hot at the lowest index attaining the extreme
	// value; for norm1 and norminf the sign is taken as 0 at 0.
	Grad func(v []float64, g []float64)
	// PropsAt returns the properties given the constant parameters p, which
	// must have passed CheckParams (nil for functions without parameters).
	PropsAt func(p []float64) Props
	// CheckParams validates the constant parameters and returns a
	// description of what is wrong, or "" (nil when there is nothing to check).
	CheckParams func(p []float64) string
}

// PropsFor returns the properties of f given its constant parameters p:
// PropsAt(p) when f has PropsAt, f.Props otherwise.
func (f *Func) PropsFor(p []float64) Props {
	if f.PropsAt != nil {
		return f.PropsAt(p)
	}
	return f.Props
}

// Props are the known properties of a built-in as a function of its
// (first) argument. A NaN number means unknown or not finite.
type Props struct {
	Convex    bool
	Concave   bool
	Smooth    bool    // continuously differentiable everywhere on its domain
	Lipschitz float64 // global Lipschitz constant; +Inf when there is none
	// WeakConvexity is rho such that f + rho/2 |z|^2 is convex; 0 for
	// convex functions, +Inf when no such rho exists globally.
	WeakConvexity float64
	Monotone      int // +1 nondecreasing, -1 nonincreasing, 0 neither
}

var (
	inf = math.Inf(1)
	nan = math.NaN()
)

// table indexes the built-ins by name, each prepared.
var table = index(builtins)

// index prepares the functions and indexes them by name.
func index(fs []*Func) map[string]*Func {
	t := make(map[string]*Func, len(fs))
	for _, f := range fs {
		prepare(f)
		t[f.Name] = f
	}
	return t
}

// prepare makes f's value functions propagate NaNs and fills in ValueDeriv
// from Scalar and Deriv.
func prepare(f *Func) {
	// A NaN argument gives a NaN, whatever the function's branches would
	// make of it (mcp(NaN) would otherwise be its constant tail), so that
	// evaluation reports where the NaN arose instead of hiding it.
	if scalar := f.Scalar; scalar != nil {
		f.Scalar = func(z float64, p []float64) float64 {
			if math.IsNaN(z) || hasNaN(p) {
				return math.NaN()
			}
			return scalar(z, p)
		}
	}
	if vd := f.ValueDeriv; vd != nil {
		f.ValueDeriv = func(z float64, p []float64) (float64, float64) {
			if math.IsNaN(z) || hasNaN(p) {
				return math.NaN(), math.NaN()
			}
			return vd(z, p)
		}
	}
	if reduce := f.Reduce; reduce != nil {
		f.Reduce = func(v []float64) float64 {
			if hasNaN(v) {
				return math.NaN()
			}
			return reduce(v)
		}
	}
	if f.Deriv != nil && f.ValueDeriv == nil {
		value, deriv := f.Scalar, f.Deriv
		f.ValueDeriv = func(z float64, p []float64) (float64, float64) { return value(z, p), deriv(z, p) }
	}
}

// hasNaN reports whether v holds a NaN.
func hasNaN(v []float64) bool {
	for _, e := range v {
		if math.IsNaN(e) {
			return true
		}
	}
	return false
}

// unaryFunc is an elementwise function of one argument. valueDeriv,
// when given, computes the value and the derivative together (sharing an
// exponential or a square root); it must agree with fn and deriv bit for
// bit.
func unaryFunc(name, doc string, props Props, fn, deriv func(float64) float64, valueDeriv ...func(float64) (float64, float64)) *Func {
	f := &Func{Name: name, MinArgs: 1, MaxArgs: 1, Kind: Elementwise, Doc: doc, Props: props,
		Scalar: func(z float64, _ []float64) float64 { return fn(z) },
		Deriv:  func(z float64, _ []float64) float64 { return deriv(z) }}
	if len(valueDeriv) == 1 {
		vd := valueDeriv[0]
		f.ValueDeriv = func(z float64, _ []float64) (float64, float64) { return vd(z) }
	}
	return f
}

// builtins are the built-in functions (docs/stdlib.md documents them).
var builtins = []*Func{
	// abs'(0) = 0, the element of [-1, 1] of least norm.
	unaryFunc("abs", "|z|", Props{Convex: true, Lipschitz: 1, WeakConvexity: 0}, math.Abs, sign),
	// pos'(0) = 0, an end of [0, 1].
	unaryFunc("pos", "max(0, z)", Props{Convex: true, Lipschitz: 1, WeakConvexity: 0, Monotone: 1},
		func(z float64) float64 { return math.Max(0, z) },
		func(z float64) float64 {
			if z > 0 {
				return 1
			}
			return 0 * z // 0, or NaN for NaN
		}),
	unaryFunc("exp", "e^z", Props{Convex: true, Smooth: true, Lipschitz: inf, WeakConvexity: 0, Monotone: 1}, math.Exp, math.Exp,
		func(z float64) (float64, float64) { e := math.Exp(z); return e, e }),
	unaryFunc("log", "natural logarithm, z > 0", Props{Concave: true, Smooth: true, Lipschitz: inf, WeakConvexity: inf, Monotone: 1}, math.Log,
		func(z float64) float64 { return 1 / z }),
	unaryFunc("log1p", "log(1 + z), z > -1", Props{Concave: true, Smooth: true, Lipschitz: inf, WeakConvexity: inf, Monotone: 1}, math.Log1p,
		func(z float64) float64 { return 1 / (1 + z) }),
	// sqrt'(0) = +Inf: sqrt is not Lipschitz at 0.
	unaryFunc("sqrt", "square root, z >= 0", Props{Concave: true, Lipschitz: inf, WeakConvexity: inf, Monotone: 1}, math.Sqrt,
		func(z float64) float64 { return 0.5 / math.Sqrt(z) },
		func(z float64) (float64, float64) { s := math.Sqrt(z); return s, 0.5 / s }),
	unaryFunc("square", "z^2", Props{Convex: true, Smooth: true, Lipschitz: inf, WeakConvexity: 0}, func(z float64) float64 { return z * z },
		func(z float64) float64 { return 2 * z }),
	// sigmoid'' = s(1-s)(1-2s) has largest magnitude 1/(6 sqrt 3) at
	// s = (3 ± sqrt 3)/6; sigmoid' is largest, 1/4, at 0.
	unaryFunc("sigmoid", "1 / (1 + e^-z)", Props{Smooth: true, Lipschitz: 0.25, WeakConvexity: 1 / (6 * math.Sqrt(3)), Monotone: 1}, Sigmoid, SigmoidDeriv, sigmoidValueDeriv),
	unaryFunc("logistic", "log(1 + e^z)", Props{Convex: true, Smooth: true, Lipschitz: 1, WeakConvexity: 0, Monotone: 1}, Logistic, Sigmoid,
		logisticValueDeriv),
	// tanh'' = -2 t (1 - t^2) has largest magnitude 4/(3 sqrt 3) at
	// t = ±1/sqrt 3; tanh' is largest, 1, at 0.
	unaryFunc("tanh", "hyperbolic tangent", Props{Smooth: true, Lipschitz: 1, WeakConvexity: 4 / (3 * math.Sqrt(3)), Monotone: 1}, math.Tanh, tanhDeriv),
	// sin'' = -sin: |sin''| <= 1, reached at odd multiples of pi/2.
	unaryFunc("sin", "sine (radians)", Props{Smooth: true, Lipschitz: 1, WeakConvexity: 1}, math.Sin, math.Cos),
	// cos'' = -cos: |cos''| <= 1, reached at multiples of pi.
	unaryFunc("cos", "cosine (radians)", Props{Smooth: true, Lipschitz: 1, WeakConvexity: 1}, math.Cos,
		func(z float64) float64 { return -math.Sin(z) }),
	// tan is defined off the odd multiples of pi/2 and increasing on each
	// branch between them; its slope 1 + tan^2 and curvature
	// 2 tan (1 + tan^2) are unbounded at the poles.
	unaryFunc("tan", "tangent (radians), z not an odd multiple of pi/2", Props{Smooth: true, Lipschitz: inf, WeakConvexity: inf}, math.Tan,
		func(z float64) float64 { t := math.Tan(z); return 1 + t*t }),
	// atan'' = -2z/(1+z^2)^2 has largest magnitude 3 sqrt 3/8 at z = ±1/sqrt 3;
	// atan' is largest, 1, at 0.
	unaryFunc("atan", "inverse tangent, in (-pi/2, pi/2)", Props{Smooth: true, Lipschitz: 1, WeakConvexity: 3 * math.Sqrt(3) / 8, Monotone: 1}, math.Atan,
		func(z float64) float64 { return 1 / (1 + z*z) }),
	// erf' = 2/sqrt(pi) e^-z^2 is largest, 2/sqrt(pi), at 0; erf'' =
	// -4z/sqrt(pi) e^-z^2 has largest magnitude 2 sqrt(2/pi) e^-1/2 at
	// z = ±1/sqrt 2.
	unaryFunc("erf", "error function 2/sqrt(pi) integral_0^z e^-t^2 dt", Props{Smooth: true, Lipschitz: 2 / math.Sqrt(math.Pi), WeakConvexity: 2 * math.Sqrt(2/math.Pi) * math.Exp(-0.5), Monotone: 1}, math.Erf,
		erfDeriv),
	unaryFunc("log10", "base-10 logarithm, z > 0", Props{Concave: true, Smooth: true, Lipschitz: inf, WeakConvexity: inf, Monotone: 1}, math.Log10,
		func(z float64) float64 { return 1 / (z * math.Ln10) }),
	// hinge'(1) = 0, an end of [-1, 0].
	unaryFunc("hinge", "max(0, 1 - z)", Props{Convex: true, Lipschitz: 1, WeakConvexity: 0, Monotone: -1},
		func(z float64) float64 { return math.Max(0, 1-z) },
		func(z float64) float64 {
			if z < 1 {
				return -1
			}
			return 0 * z // 0, or NaN for NaN
		}),

	&Func{Name: "huber", MinArgs: 2, MaxArgs: 2, Kind: Elementwise, ParamArgs: 1,
		Doc:   "z^2/(2 delta) for |z| <= delta, |z| - delta/2 beyond; delta > 0",
		Props: huberProps,
		Scalar: func(z float64, p []float64) float64 {
			d := p[0]
			if a := math.Abs(z); a > d {
				return a - d/2
			}
			return z * z / (2 * d)
		},
		// Continuously differentiable: z/delta inside, sign(z) beyond.
		Deriv: func(z float64, p []float64) float64 {
			d := p[0]
			if math.Abs(z) > d {
				return sign(z)
			}
			return z / d
		},
		PropsAt:     func([]float64) Props { return huberProps },
		CheckParams: func(p []float64) string { return positive("delta", p[0]) }},
	&Func{Name: "mcp", MinArgs: 3, MaxArgs: 3, Kind: Elementwise, ParamArgs: 2,
		Doc:   "minimax concave penalty: lambda|z| - z^2/(2 gamma) for |z| <= gamma lambda, gamma lambda^2/2 beyond",
		Props: Props{Lipschitz: nan, WeakConvexity: nan},
		Scalar: func(z float64, p []float64) float64 {
			lam, gam := p[0], p[1]
			if a := math.Abs(z); a <= gam*lam {
				return lam*a - z*z/(2*gam)
			}
			return gam * lam * lam / 2
		},
		// sign(z) (lambda - |z|/gamma) for |z| <= gamma lambda, 0 beyond;
		// mcp'(0) = 0 (the Clarke subdifferential there is [-lambda,
		// lambda]). The derivative is continuous at |z| = gamma lambda
		// (both pieces give 0), so the only kink is 0.
		Deriv: func(z float64, p []float64) float64 {
			lam, gam := p[0], p[1]
			if a := math.Abs(z); a <= gam*lam {
				return sign(z) * (lam - a/gam)
			}
			return 0
		},
		PropsAt: func(p []float64) Props {
			return Props{Lipschitz: p[0], WeakConvexity: 1 / p[1]}
		},
		CheckParams: func(p []float64) string {
			if s := positive("lambda", p[0]); s != "" {
				return s
			}
			return positive("gamma", p[1])
		}},
	&Func{Name: "scad", MinArgs: 3, MaxArgs: 3, Kind: Elementwise, ParamArgs: 2,
		Doc:   "smoothly clipped absolute deviation penalty with lambda > 0 and a > 2",
		Props: Props{Lipschitz: nan, WeakConvexity: nan},
		Scalar: func(z float64, p []float64) float64 {
			lam, a := p[0], p[1]
			t := math.Abs(z)
			switch {
			case t <= lam:
				return lam * t
			case t <= a*lam:
				return (2*a*lam*t - t*t - lam*lam) / (2 * (a - 1))
			}
			return lam * lam * (a + 1) / 2
		},
		// sign(z) lambda for |z| <= lambda, sign(z) (a lambda - |z|)/(a - 1)
		// for lambda < |z| <= a lambda, 0 beyond; scad'(0) = 0 (the Clarke
		// subdifferential there is [-lambda, lambda]). The derivative is
		// continuous at |z| = lambda and |z| = a lambda, so the only kink
		// is 0.
		Deriv: func(z float64, p []float64) float64 {
			lam, a := p[0], p[1]
			t := math.Abs(z)
			switch {
			case t <= lam:
				return sign(z) * lam
			case t <= a*lam:
				return sign(z) * (a*lam - t) / (a - 1)
			}
			return 0
		},
		PropsAt: func(p []float64) Props {
			return Props{Lipschitz: p[0], WeakConvexity: 1 / (p[1] - 1)}
		},
		CheckParams: func(p []float64) string {
			if s := positive("lambda", p[0]); s != "" {
				return s
			}
			if !(p[1] > 2) {
				return "a must be greater than 2"
			}
			return ""
		}},
	extremum("max"), extremum("min"),
	&Func{Name: "norm1", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "sum of absolute values",
		// Lipschitz sqrt(n) for n elements: no constant for every length.
		Props: Props{Convex: true, Lipschitz: nan, WeakConvexity: 0}, Reduce: func(v []float64) float64 {
			s := 0.0
			for _, x := range v {
				s += math.Abs(x)
			}
			return s
		},
		// sign(v_j), 0 where v_j = 0.
		Grad: func(v, g []float64) {
			for j, x := range v {
				g[j] = sign(x)
			}
		}},
	&Func{Name: "norm2", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "Euclidean norm (Frobenius for a matrix)",
		Props: Props{Convex: true, Lipschitz: 1, WeakConvexity: 0}, Reduce: func(v []float64) float64 {
			scale, ssq := scaledSSQ(v)
			return scale * math.Sqrt(ssq)
		},
		// v/||v||, computed as (v/scale)/sqrt(ssq) so that it does not
		// overflow even when ||v|| does; 0 at v = 0. With infinite elements
		// it is the limit direction: sign(v_j)/sqrt(k) on the k infinite
		// elements, 0 elsewhere.
		Grad: func(v, g []float64) {
			scale, ssq := scaledSSQ(v)
			switch {
			case scale == 0:
				clear(g)
			case math.IsInf(scale, 1):
				k := 0
				for _, x := range v {
					if math.IsInf(x, 0) {
						k++
					}
				}
				r := 1 / math.Sqrt(float64(k))
				for j, x := range v {
					g[j] = 0
					if math.IsInf(x, 0) {
						g[j] = sign(x) * r
					}
				}
			default:
				r := math.Sqrt(ssq)
				for j, x := range v {
					g[j] = x / scale / r
				}
			}
		}},
	&Func{Name: "norminf", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "largest absolute value",
		Props: Props{Convex: true, Lipschitz: 1, WeakConvexity: 0}, Reduce: func(v []float64) float64 {
			m := 0.0
			for _, x := range v {
				m = math.Max(m, math.Abs(x))
			}
			return m
		},
		// sign(v_k) at the lowest index k of a largest |v_k|, 0 elsewhere;
		// all 0 at v = 0.
		Grad: func(v, g []float64) {
			clear(g)
			k, m := -1, 0.0
			for j, x := range v {
				if a := math.Abs(x); a > m {
					k, m = j, a
				}
			}
			if k >= 0 {
				g[k] = sign(v[k])
			}
		}},
	// The gradient softmax(v) lies in the simplex, so its norm is at most
	// 1; the Hessian diag(p) - p p^T is positive semidefinite.
	&Func{Name: "logsumexp", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "log(sum of e^v_j), computed stably as m + log(sum e^(v_j - m)), m = max v_j",
		Props:  Props{Convex: true, Smooth: true, Lipschitz: 1, WeakConvexity: 0, Monotone: 1},
		Reduce: LogSumExp,
		// softmax(v)_j = e^(v_j - m) / sum_k e^(v_k - m), which neither
		// overflows nor underflows to 0/0. With +Inf elements it is the
		// limit: 1/k on the k infinite elements; when every element is
		// -Inf, 1/n on each (the limit along v = (t, ..., t), t -> -Inf).
		Grad: softmax},
	&Func{Name: "sum", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "sum of the elements",
		// Lipschitz sqrt(n) for n elements: no constant for every length.
		Props: Props{Convex: true, Concave: true, Smooth: true, Lipschitz: nan, WeakConvexity: 0, Monotone: 1}, Reduce: sum,
		Grad: func(v, g []float64) {
			for j := range v {
				g[j] = 1
			}
		}},
	&Func{Name: "mean", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "mean of the elements",
		// Lipschitz 1/sqrt(n) <= 1 for n elements.
		Props:  Props{Convex: true, Concave: true, Smooth: true, Lipschitz: 1, WeakConvexity: 0, Monotone: 1},
		Reduce: func(v []float64) float64 { return sum(v) / float64(len(v)) },
		Grad: func(v, g []float64) {
			w := 1 / float64(len(v))
			for j := range v {
				g[j] = w
			}
		}},
	&Func{Name: "prod", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "product of the elements",
		// Neither Lipschitz nor weakly convex on all of R^n for n >= 2
		// (z1 z2 has curvature -1 along z1 = -z2); the analysis bounds it
		// on the ranges its arguments take (docs/analysis.md).
		Props: Props{Smooth: true, Lipschitz: nan, WeakConvexity: nan}, Reduce: Prod, Grad: prodGrad},
	&Func{Name: "dot", MinArgs: 2, MaxArgs: 2, Kind: Dot,
		Doc:   "inner product of two vectors, or matrix times vector",
		Props: Props{Smooth: true, Lipschitz: nan, WeakConvexity: nan}},
}

// huberProps are the properties of the Huber loss.
var huberProps = Props{Convex: true, Smooth: true, Lipschitz: 1, WeakConvexity: 0}

// extremum is max or min: of its arguments elementwise, or of the
// elements of a vector.
func extremum(name string) *Func {
	s := 1.0
	props := Props{Convex: true, Lipschitz: 1, WeakConvexity: 0, Monotone: 1}
	if name == "min" {
		s = -1
		// min(z, 0) has a concave kink, which no rho/2 z^2 can make convex.
		props = Props{Concave: true, Lipschitz: 1, WeakConvexity: inf, Monotone: 1}
	}
	// extreme is the lowest index of a largest (s = 1) or smallest
	// (s = -1) element of v.
	extreme := func(v []float64) int {
		k := 0
		for j, q := range v {
			if s*q > s*v[k] {
				k = j
			}
		}
		return k
	}
	return &Func{Name: name, MinArgs: 1, MaxArgs: -1, Kind: Elementwise,
		Doc:   name + " of its arguments elementwise (scalars broadcast), or of the elements of a single vector",
		Props: props,
		Scalar: func(z float64, p []float64) float64 {
			m := z
			for _, q := range p {
				if s*q > s*m {
					m = q
				}
			}
			return m
		},
		Reduce: func(v []float64) float64 { return v[extreme(v)] },
		// One-hot at the lowest index attaining the extreme value.
		Grad: func(v, g []float64) {
			clear(g)
			if len(v) > 0 {
				g[extreme(v)] = 1
			}
		}}
}

// LogSumExp is log(sum_j e^v_j) without overflow: m + log(sum_j
// e^(v_j - m)) for m = max_j v_j (+Inf if an element is +Inf, -Inf if all
// are -Inf, NaN if one is NaN).
func LogSumExp(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		if math.IsNaN(x) {
			return x
		}
		m = math.Max(m, x)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, x := range v {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

// softmax writes the gradient of LogSumExp at v into g.
func softmax(v, g []float64) {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	switch {
	case math.IsInf(m, 1):
		k := 0
		for _, x := range v {
			if math.IsInf(x, 1) {
				k++
			}
		}
		for j, x := range v {
			g[j] = 0
			if math.IsInf(x, 1) {
				g[j] = 1 / float64(k)
			}
		}
		return
	case math.IsInf(m, -1):
		for j := range v {
			g[j] = 1 / float64(len(v))
		}
		return
	}
	s := 0.0
	for j, x := range v {
		g[j] = math.Exp(x - m)
		s += g[j]
	}
	for j := range g {
		g[j] /= s
	}
}

// sign is -1, 0 or 1 as z is negative, zero or positive (NaN for NaN).
func sign(z float64) float64 {
	switch {
	case z > 0:
		return 1
	case z < 0:
		return -1
	}
	return 0 * z
}

// scaledSSQ returns scale and ssq with sum of v_j^2 = scale^2 ssq, without
// overflow or underflow, like math.Hypot; scale is the largest |v_j| (+Inf
// if any element is infinite, with ssq = 1).
func scaledSSQ(v []float64) (scale, ssq float64) {
	scale, ssq = 0.0, 1.0
	for _, x := range v {
		if x == 0 {
			continue
		}
		a := math.Abs(x)
		if math.IsInf(a, 1) {
			return inf, 1
		}
		if scale < a {
			ssq = 1 + ssq*(scale/a)*(scale/a)
			scale = a
		} else {
			ssq += (a / scale) * (a / scale)
		}
	}
	return scale, ssq
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

func positive(name string, v float64) string {
	if !(v > 0) {
		return name + " must be positive"
	}
	return ""
}

// Lookup returns the built-in called name, or nil.
func Lookup(name string) *Func { return table[name] }

// Names returns the names of all built-ins, sorted.
func Names() []string {
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// comprehensions are the names that can head a comprehension
// "op(i in S) body".
var comprehensions = []string{"sum", "mean", "max", "min", "prod"}

// Comprehensions returns the names that can head a comprehension
// "op(i in S) body" (a new slice on every call).
func Comprehensions() []string { return slices.Clone(comprehensions) }

// IsComprehension reports whether name can head a comprehension.
func IsComprehension(name string) bool { return slices.Contains(comprehensions, name) }

// Sigmoid is 1/(1+e^-z), computed without overflow for any z.
func Sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// SigmoidDeriv is the derivative of Sigmoid, s(1-s) = e^-|z|/(1+e^-|z|)^2,
// computed without overflow or cancellation for any z (0 for |z| >= 746).
func SigmoidDeriv(z float64) float64 {
	_, d := sigmoidValueDeriv(z)
	return d
}

// sigmoidValueDeriv returns Sigmoid(z) and its derivative from one
// exponential, without overflow or cancellation in either tail.
func sigmoidValueDeriv(z float64) (s, d float64) {
	e := math.Exp(-math.Abs(z))
	s = 1 / (1 + e)
	if z < 0 {
		s = e / (1 + e)
	}
	return s, e / ((1 + e) * (1 + e))
}

// Logistic is log(1+e^z), computed without overflow or loss for any z. Its
// derivative is Sigmoid.
func Logistic(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// logisticValueDeriv returns Logistic(z) and Sigmoid(z), bit for bit, from
// one exponential e^-|z|.
func logisticValueDeriv(z float64) (float64, float64) {
	e := math.Exp(-math.Abs(z))
	v, s := math.Log1p(e), 1/(1+e)
	if z > 0 {
		v += z
	}
	if z < 0 {
		s = e / (1 + e)
	}
	return v, s
}

// tanhDeriv is 1 - tanh(z)^2 = 4e/(1+e)^2 with e = e^-2|z|, which keeps full
// relative accuracy where tanh(z) rounds to ±1 and never overflows.
func tanhDeriv(z float64) float64 {
	e := math.Exp(-2 * math.Abs(z))
	return 4 * e / ((1 + e) * (1 + e))
}

// erfDeriv is erf'(z) = 2/sqrt(pi) e^-z^2 (0 for |z| > 27, where e^-z^2
// underflows).
func erfDeriv(z float64) float64 { return 2 / math.Sqrt(math.Pi) * math.Exp(-z*z) }

// Prod is the product of the elements of v (1 for an empty v), multiplied
// in order.
func Prod(v []float64) float64 {
	p := 1.0
	for _, x := range v {
		p *= x
	}
	return p
}

// prodGrad writes the gradient of Prod at v into g: g_j is the product of
// the other elements, computed from prefix and suffix products (no
// division, so it is exact at zeros: with one zero element only its
// entry is nonzero; with two, every entry is 0).
func prodGrad(v, g []float64) {
	p := 1.0
	for j, x := range v {
		g[j] = p
		p *= x
	}
	p = 1
	for j := len(v) - 1; j >= 0; j-- {
		g[j] *= p
		p *= v[j]
	}
}
