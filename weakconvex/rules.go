package weakconvex

import (
	"fmt"
	"math"

	"github.com/qrc-lang/qrc/stdlib"
)

// Local is what a scalar atom h does on the range z its argument can take.
type Local struct {
	Val Interval // h(z)
	Der Interval // h'(z), the derivative qrc's autodiff uses (its chosen subgradient at a kink)
	// Curv bounds the generalized second derivative: for s, t in z,
	// Curv.Lo/2 (t-s)^2 <= h(t) - h(s) - h'(s)(t-s) <= Curv.Hi/2 (t-s)^2.
	// Curv.Lo is -Inf at a concave kink, Curv.Hi is +Inf at a convex one.
	Curv   Interval
	Smooth bool // h is continuously differentiable on z
	// Twice reports that h is C^{1,1} on z with h'' in Curv almost
	// everywhere, so the one-variable jets of analysis.go may use it.
	Twice bool
}

// Atom is the weak-convexity rule of one elementwise built-in.
type Atom struct {
	Name string
	// Rule states in one line how Local is derived (docs/analysis.md and
	// --explain show it).
	Rule string
	// Local returns the atom's bounds on the argument range z with the
	// constant parameters p, or a reason why there are none ("log of an
	// argument that can reach 0").
	Local func(z Interval, p []float64) (Local, string)
}

// atoms is the rules table, by built-in name; "^" is x^p with a constant
// exponent p (passed as p[0]). A built-in without an entry is "not
// provably weakly convex" wherever its argument depends on a variable.
var atoms = map[string]*Atom{}

// AddAtom registers the rule of a built-in (elementwise, scalar argument);
// it replaces any earlier rule of the same name.
func AddAtom(a *Atom) { atoms[a.Name] = a }

// fn is a scalar function of the argument and the constant parameters.
type fn func(z float64, p []float64) float64

// smoothAtom describes a twice differentiable atom by its value, first and
// second derivatives and the points where the first, second and third
// derivatives vanish (so that each is monotone between them and its range
// on an interval is found at the ends and those points), on the open
// domain dom (nil: the real line).
type smoothAtom struct {
	f, f1, f2           fn
	crit0, crit1, crit2 func(p []float64) []float64
	dom                 func(z Interval, p []float64) string
}

// rangeOn is the range of f on z, given that f is monotone between the
// points crit: its extremes are at the ends of z or at those points.
func rangeOn(f fn, z Interval, p []float64, crit []float64) Interval {
	lo, hi := math.Inf(1), math.Inf(-1)
	try := func(t float64) {
		v := f(t, p)
		if math.IsNaN(v) {
			lo, hi = math.Inf(-1), math.Inf(1)
			return
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	try(z.Lo)
	try(z.Hi)
	for _, c := range crit {
		if z.Contains(c) {
			try(c)
		}
	}
	return widen(Interval{lo, hi})
}

func none([]float64) []float64 { return nil }

func pts(v ...float64) func([]float64) []float64 {
	return func([]float64) []float64 { return v }
}

func (s smoothAtom) local(z Interval, p []float64) (Local, string) {
	if s.dom != nil {
		if why := s.dom(z, p); why != "" {
			return Local{}, why
		}
	}
	c0, c1, c2 := none, none, none
	if s.crit0 != nil {
		c0 = s.crit0
	}
	if s.crit1 != nil {
		c1 = s.crit1
	}
	if s.crit2 != nil {
		c2 = s.crit2
	}
	return Local{Val: rangeOn(s.f, z, p, c0(p)), Der: rangeOn(s.f1, z, p, c1(p)), Curv: rangeOn(s.f2, z, p, c2(p)), Smooth: true, Twice: true}, ""
}

func smooth(name, rule string, s smoothAtom) {
	AddAtom(&Atom{Name: name, Rule: rule, Local: s.local})
}

func un(f func(float64) float64) fn { return func(z float64, _ []float64) float64 { return f(z) } }

// above returns a domain check z > lo.
func above(lo float64, what string) func(Interval, []float64) string {
	return func(z Interval, _ []float64) string {
		if !(z.Lo > lo) {
			return fmt.Sprintf("%s of an argument that can reach %s (its range is %s)", what, num(z.Lo), z)
		}
		return ""
	}
}

// kinkAt reports whether the kink at k lies in z (closed: the chosen
// subgradient at k makes the quadratic upper bound fail there too).
func kinkAt(z Interval, k float64) bool { return z.Contains(k) }

// evenIncreasing is the range of an even function increasing in |z|.
func evenIncreasing(f fn, z Interval, p []float64) Interval {
	lo := 0.0
	if z.Lo > 0 {
		lo = z.Lo
	} else if z.Hi < 0 {
		lo = -z.Hi
	}
	return widen(Interval{f(lo, p), f(z.Mag(), p)})
}

func init() {
	sig := stdlib.Sigmoid
	sd := stdlib.SigmoidDeriv
	smooth("exp", "exp, exp' and exp'' are increasing: their ranges at the ends of the argument's range", smoothAtom{
		f: un(math.Exp), f1: un(math.Exp), f2: un(math.Exp)})
	smooth("log", "needs the argument's range above 0; 1/z and -1/z^2 are monotone there", smoothAtom{
		f: un(math.Log), f1: un(func(z float64) float64 { return 1 / z }), f2: un(func(z float64) float64 { return -1 / (z * z) }),
		dom: above(0, "log")})
	smooth("log1p", "needs the argument's range above -1; 1/(1+z) and -1/(1+z)^2 are monotone there", smoothAtom{
		f: un(math.Log1p), f1: un(func(z float64) float64 { return 1 / (1 + z) }), f2: un(func(z float64) float64 { return -1 / ((1 + z) * (1 + z)) }),
		dom: above(-1, "log1p")})
	smooth("sqrt", "needs the argument's range above 0 (slope and curvature are unbounded at 0); -z^-1.5/4 is monotone there", smoothAtom{
		f: un(math.Sqrt), f1: un(func(z float64) float64 { return 0.5 / math.Sqrt(z) }),
		f2:  un(func(z float64) float64 { return -0.25 / (z * math.Sqrt(z)) }),
		dom: above(0, "sqrt")})
	smooth("square", "z^2: slope 2z, curvature 2", smoothAtom{
		f: un(func(z float64) float64 { return z * z }), f1: un(func(z float64) float64 { return 2 * z }), f2: un(func(float64) float64 { return 2 }),
		crit0: pts(0)})
	r := math.Log(2 + math.Sqrt(3))
	smooth("sigmoid", "s' = s(1-s) peaks at 0; s'' = s(1-s)(1-2s) peaks at ±log(2+sqrt 3)", smoothAtom{
		f: un(sig), f1: un(sd), f2: un(func(z float64) float64 { s := sig(z); return sd(z) * (1 - 2*s) }),
		crit1: pts(0), crit2: pts(-r, r)})
	t := math.Atanh(1 / math.Sqrt(3))
	smooth("tanh", "tanh' = 1-t^2 peaks at 0; tanh'' = -2t(1-t^2) peaks at ±atanh(1/sqrt 3)", smoothAtom{
		f: un(math.Tanh), f1: un(func(z float64) float64 { th := math.Tanh(z); return 1 - th*th }),
		f2:    un(func(z float64) float64 { th := math.Tanh(z); return -2 * th * (1 - th*th) }),
		crit1: pts(0), crit2: pts(-t, t)})
	smooth("logistic", "logistic' = sigmoid is increasing; logistic'' = s(1-s) peaks at 0", smoothAtom{
		f: un(stdlib.Logistic), f1: un(sig), f2: un(sd), crit2: pts(0)})
	smooth("atan", "atan' = 1/(1+z^2) peaks at 0; atan'' = -2z/(1+z^2)^2 peaks at ±1/sqrt 3 (magnitude 3 sqrt 3/8)", smoothAtom{
		f: un(math.Atan), f1: un(func(z float64) float64 { return 1 / (1 + z*z) }),
		f2: un(func(z float64) float64 {
			if math.IsInf(z, 0) {
				return 0
			}
			t := 1 / (1 + z*z)
			return -2 * z * t * t
		}),
		crit1: pts(0), crit2: pts(-1/math.Sqrt(3), 1/math.Sqrt(3))})
	c := 2 / math.Sqrt(math.Pi)
	smooth("erf", "erf' = 2/sqrt(pi) e^-z^2 peaks at 0; erf'' = -4z/sqrt(pi) e^-z^2 peaks at ±1/sqrt 2 (magnitude 2 sqrt(2/pi) e^-1/2)", smoothAtom{
		f: un(math.Erf), f1: un(func(z float64) float64 { return c * math.Exp(-z*z) }),
		f2: un(func(z float64) float64 {
			if math.IsInf(z, 0) {
				return 0
			}
			return -2 * c * z * math.Exp(-z*z)
		}),
		crit1: pts(0), crit2: pts(-1/math.Sqrt2, 1/math.Sqrt2)})
	smooth("log10", "needs the argument's range above 0; 1/(z ln 10) and -1/(z^2 ln 10) are monotone there", smoothAtom{
		f: un(math.Log10), f1: un(func(z float64) float64 { return 1 / (z * math.Ln10) }), f2: un(func(z float64) float64 { return -1 / (z * z * math.Ln10) }),
		dom: above(0, "log10")})
	AddAtom(&Atom{Name: "sin", Rule: "sin, sin' = cos and sin'' = -sin lie in [-1, 1]; on a range shorter than 2 pi their extremes are at its ends or at the multiples of pi/2 in it (rho <= 1 everywhere)",
		Local: trigLocal(math.Sin, math.Cos, func(z float64) float64 { return -math.Sin(z) }, math.Pi/2, 0, math.Pi/2)})
	AddAtom(&Atom{Name: "cos", Rule: "cos, cos' = -sin and cos'' = -cos lie in [-1, 1]; on a range shorter than 2 pi their extremes are at its ends or at the multiples of pi/2 in it (rho <= 1 everywhere)",
		Local: trigLocal(math.Cos, func(z float64) float64 { return -math.Sin(z) }, func(z float64) float64 { return -math.Cos(z) }, 0, math.Pi/2, 0)})
	AddAtom(&Atom{Name: "tan", Rule: "needs the argument's range within one branch (k pi - pi/2, k pi + pi/2); there tan and 2 tan (1 + tan^2) increase and 1 + tan^2 is least at k pi", Local: tanLocal})
	AddAtom(&Atom{Name: "^", Rule: "z^p: p z^(p-1) and p(p-1) z^(p-2) are monotone on each side of 0; a non-integer p needs z >= 0 (z > 0 for p < 1), a negative p a range without 0", Local: powLocal})

	AddAtom(&Atom{Name: "abs", Rule: "convex, slope in [-1, 1]; a kink at 0 (curvature +Inf) when the range reaches 0",
		Local: func(z Interval, _ []float64) (Local, string) {
			l := Local{Val: evenIncreasing(un(math.Abs), z, nil), Curv: point(0), Smooth: true, Twice: true}
			switch {
			case z.Lo > 0:
				l.Der = point(1)
			case z.Hi < 0:
				l.Der = point(-1)
			default:
				l.Der, l.Curv.Hi, l.Smooth, l.Twice = Interval{-1, 1}, math.Inf(1), false, false
			}
			return l, ""
		}})
	AddAtom(&Atom{Name: "pos", Rule: "convex, slope in [0, 1]; a kink at 0 when the range reaches 0",
		Local: func(z Interval, _ []float64) (Local, string) {
			l := Local{Val: Interval{math.Max(0, z.Lo), math.Max(0, z.Hi)}, Curv: point(0), Smooth: true, Twice: true}
			switch {
			case z.Lo > 0:
				l.Der = point(1)
			case z.Hi < 0:
				l.Der = point(0)
			default:
				l.Der, l.Curv.Hi, l.Smooth, l.Twice = Interval{0, 1}, math.Inf(1), false, false
			}
			return l, ""
		}})
	AddAtom(&Atom{Name: "hinge", Rule: "convex, slope in [-1, 0]; a kink at 1 when the range reaches 1",
		Local: func(z Interval, _ []float64) (Local, string) {
			l := Local{Val: Interval{math.Max(0, 1-z.Hi), math.Max(0, 1-z.Lo)}, Curv: point(0), Smooth: true, Twice: true}
			switch {
			case z.Lo > 1:
				l.Der = point(0)
			case z.Hi < 1:
				l.Der = point(-1)
			default:
				l.Der, l.Curv.Hi, l.Smooth, l.Twice = Interval{-1, 0}, math.Inf(1), false, false
			}
			return l, ""
		}})
	AddAtom(&Atom{Name: "huber", Rule: "convex and smooth, slope clip(z/delta, -1, 1), curvature 1/delta inside [-delta, delta] and 0 outside",
		Local: func(z Interval, p []float64) (Local, string) {
			d := p[0]
			h := stdlib.Lookup("huber")
			l := Local{Val: evenIncreasing(h.Scalar, z, p), Der: widen(Interval{h.Deriv(z.Lo, p), h.Deriv(z.Hi, p)}), Curv: point(0), Smooth: true, Twice: true}
			if z.Hi > -d && z.Lo < d {
				l.Curv.Hi = up(1 / d)
			}
			return l, ""
		}})
	AddAtom(&Atom{Name: "mcp", Rule: "slope in [-lambda, lambda], nonincreasing on each side of 0; curvature -1/gamma where |z| < gamma lambda; a convex kink at 0",
		Local: func(z Interval, p []float64) (Local, string) {
			return penaltyLocal("mcp", z, p, 0, p[0]*p[1], 1/p[1])
		}})
	AddAtom(&Atom{Name: "scad", Rule: "slope in [-lambda, lambda], nonincreasing on each side of 0; curvature -1/(a-1) where lambda < |z| < a lambda; a convex kink at 0",
		Local: func(z Interval, p []float64) (Local, string) {
			return penaltyLocal("scad", z, p, p[0], p[0]*p[1], 1/(p[1]-1))
		}})
}

// trigLocal is the rule of sin or cos: f, f1 = f' and f2 = f” each
// have their extremes at c + k pi (c = c0, c1, c2 for the three), so on a
// range shorter than 2 pi their ranges are found at its ends and those
// points, and on any other range they are [-1, 1].
func trigLocal(f, f1, f2 func(float64) float64, c0, c1, c2 float64) func(Interval, []float64) (Local, string) {
	rng := func(g func(float64) float64, c float64, z Interval) Interval {
		if !z.Finite() || z.Hi-z.Lo >= 2*math.Pi {
			return Interval{-1, 1}
		}
		lo, hi := math.Min(g(z.Lo), g(z.Hi)), math.Max(g(z.Lo), g(z.Hi))
		for k := math.Ceil((z.Lo - c) / math.Pi); c+k*math.Pi <= z.Hi; k++ {
			// the extreme at c + k pi, or the rounded point next to it
			v := g(c + k*math.Pi)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		w := widen(Interval{lo, hi})
		return Interval{math.Max(-1, down(w.Lo-1e-15)), math.Min(1, up(w.Hi+1e-15))}
	}
	return func(z Interval, _ []float64) (Local, string) {
		return Local{Val: rng(f, c0, z), Der: rng(f1, c1, z), Curv: rng(f2, c2, z), Smooth: true, Twice: true}, ""
	}
}

// tanLocal is the rule of tan on one branch.
func tanLocal(z Interval, _ []float64) (Local, string) {
	if !z.Finite() {
		return Local{}, fmt.Sprintf("tan of an argument whose range %s is not bounded: it crosses the poles at the odd multiples of pi/2", z)
	}
	k := math.Round((z.Lo + z.Hi) / 2 / math.Pi)
	lo, hi := k*math.Pi-math.Pi/2, k*math.Pi+math.Pi/2
	if !(z.Lo > lo && z.Hi < hi) {
		pole := lo
		if z.Hi >= hi {
			pole = hi
		}
		return Local{}, fmt.Sprintf("tan of an argument whose range %s reaches its pole at %s (an odd multiple of pi/2)", z, num(pole))
	}
	f := func(z float64, _ []float64) float64 { return math.Tan(z) }
	f1 := func(z float64, _ []float64) float64 { t := math.Tan(z); return 1 + t*t }
	f2 := func(z float64, _ []float64) float64 { t := math.Tan(z); return 2 * t * (1 + t*t) }
	return Local{Val: rangeOn(f, z, nil, nil), Der: rangeOn(f1, z, nil, []float64{k * math.Pi}), Curv: rangeOn(f2, z, nil, nil), Smooth: true, Twice: true}, ""
}

// penaltyLocal is the rule of the folded concave penalties mcp and scad:
// even, increasing in |z|, with a convex kink at 0, slope in [-lambda,
// lambda] nonincreasing on each side of 0, and curvature -c where
// inner < |z| < outer (0 elsewhere).
func penaltyLocal(name string, z Interval, p []float64, inner, outer, c float64) (Local, string) {
	h := stdlib.Lookup(name)
	lam := p[0]
	l := Local{Val: evenIncreasing(h.Scalar, z, p), Curv: point(0), Smooth: true, Twice: true}
	if z.Contains(0) {
		l.Der, l.Curv.Hi, l.Smooth, l.Twice = Interval{-lam, lam}, math.Inf(1), false, false
	} else {
		l.Der = widen(Interval{h.Deriv(z.Hi, p), h.Deriv(z.Lo, p)})
	}
	if z.Hi > inner && z.Lo < outer || z.Lo < -inner && z.Hi > -outer {
		l.Curv.Lo = down(-c)
	}
	return l, ""
}

func isInt(p float64) bool { return p == math.Trunc(p) && !math.IsInf(p, 0) }

// powLocal is the rule of z^p for a constant p.
func powLocal(z Interval, pp []float64) (Local, string) {
	p := pp[0]
	switch {
	case math.IsNaN(p) || math.IsInf(p, 0):
		return Local{}, fmt.Sprintf("z^%s has no bounds", num(p))
	case p == 0:
		return Local{Val: point(1), Der: point(0), Curv: point(0), Smooth: true, Twice: true}, ""
	case p == 1:
		return Local{Val: z, Der: point(1), Curv: point(0), Smooth: true, Twice: true}, ""
	case !isInt(p) && z.Lo < 0:
		return Local{}, fmt.Sprintf("z^%s with a non-integer exponent of an argument that can be negative (its range is %s)", num(p), z)
	case !isInt(p) && p < 1 && z.Lo <= 0:
		return Local{}, fmt.Sprintf("z^%s of an argument that can reach 0, where its curvature is unbounded (its range is %s)", num(p), z)
	case p < 0 && z.Contains(0):
		return Local{}, fmt.Sprintf("z^%s of an argument whose range %s contains 0", num(p), z)
	}
	f := func(z float64, _ []float64) float64 { return stdlib.Pow(z, p) }
	f1 := func(z float64, _ []float64) float64 { return p * stdlib.Pow(z, p-1) }
	f2 := func(z float64, _ []float64) float64 {
		if p == 2 {
			return 2
		}
		return p * (p - 1) * stdlib.Pow(z, p-2)
	}
	crit := []float64{0}
	l := Local{Val: rangeOn(f, z, nil, crit), Der: rangeOn(f1, z, nil, crit), Curv: rangeOn(f2, z, nil, crit), Smooth: true, Twice: true}
	l.Twice = l.Curv.Finite()
	return l, ""
}

// Rules returns the names of the atoms with a rule, for docs and tests.
func Rules() map[string]string {
	out := map[string]string{}
	for n, a := range atoms {
		out[n] = a.Rule
	}
	return out
}

func num(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.Abs(v) < 1e-200:
		return "0"
	}
	return fmt.Sprintf("%.4g", v)
}
