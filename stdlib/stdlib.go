// Package stdlib is the table of qrc's built-in functions: their names, how
// many arguments they take and of what shape, what they compute, and their
// known mathematical properties (convexity, smoothness, Lipschitz constant,
// weak-convexity modulus), which later stages use to analyse a model.
//
// The checker uses Lookup and the shape rule (Kind) to type calls; constant
// expressions (parameters, index sets) are evaluated with Func.Scalar and
// Func.Reduce.
package stdlib

import (
	"math"
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
	Props     Props

	// Scalar computes an Elementwise function at z with the constant
	// parameters p (nil for the others).
	Scalar func(z float64, p []float64) float64
	// Reduce computes a Reduction over the elements of its argument (nil for
	// the others).
	Reduce func(v []float64) float64
	// CheckParams validates the constant parameters and returns a
	// description of what is wrong, or "" (nil when there is nothing to check).
	CheckParams func(p []float64) string
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

var inf = math.Inf(1)

var table = map[string]*Func{}

func add(f *Func) { table[f.Name] = f }

func unary(name, doc string, props Props, fn func(float64) float64) {
	add(&Func{Name: name, MinArgs: 1, MaxArgs: 1, Kind: Elementwise, Doc: doc, Props: props,
		Scalar: func(z float64, _ []float64) float64 { return fn(z) }})
}

func init() {
	unary("abs", "|z|", Props{Convex: true, Lipschitz: 1}, math.Abs)
	unary("pos", "max(0, z)", Props{Convex: true, Lipschitz: 1, Monotone: 1}, func(z float64) float64 { return math.Max(0, z) })
	unary("exp", "e^z", Props{Convex: true, Smooth: true, Lipschitz: inf, Monotone: 1}, math.Exp)
	unary("log", "natural logarithm, z > 0", Props{Concave: true, Smooth: true, Lipschitz: inf, WeakConvexity: inf, Monotone: 1}, math.Log)
	unary("log1p", "log(1 + z), z > -1", Props{Concave: true, Smooth: true, Lipschitz: inf, WeakConvexity: inf, Monotone: 1}, math.Log1p)
	unary("sqrt", "square root, z >= 0", Props{Concave: true, Lipschitz: inf, WeakConvexity: inf, Monotone: 1}, math.Sqrt)
	unary("square", "z^2", Props{Convex: true, Smooth: true, Lipschitz: inf}, func(z float64) float64 { return z * z })
	unary("sigmoid", "1 / (1 + e^-z)", Props{Smooth: true, Lipschitz: 0.25, WeakConvexity: 1 / (6 * math.Sqrt(3)), Monotone: 1}, Sigmoid)
	unary("logistic", "log(1 + e^z)", Props{Convex: true, Smooth: true, Lipschitz: 1, Monotone: 1}, Logistic)
	unary("tanh", "hyperbolic tangent", Props{Smooth: true, Lipschitz: 1, WeakConvexity: 4 / (3 * math.Sqrt(3)), Monotone: 1}, math.Tanh)
	unary("hinge", "max(0, 1 - z)", Props{Convex: true, Lipschitz: 1, Monotone: -1}, func(z float64) float64 { return math.Max(0, 1-z) })

	add(&Func{Name: "huber", MinArgs: 2, MaxArgs: 2, Kind: Elementwise, ParamArgs: 1,
		Doc:   "z^2/(2 delta) for |z| <= delta, |z| - delta/2 beyond; delta > 0",
		Props: Props{Convex: true, Smooth: true, Lipschitz: 1},
		Scalar: func(z float64, p []float64) float64 {
			d := p[0]
			if a := math.Abs(z); a > d {
				return a - d/2
			}
			return z * z / (2 * d)
		},
		CheckParams: func(p []float64) string { return positive("delta", p[0]) }})
	add(&Func{Name: "mcp", MinArgs: 3, MaxArgs: 3, Kind: Elementwise, ParamArgs: 2,
		Doc:   "minimax concave penalty: lambda|z| - z^2/(2 gamma) for |z| <= gamma lambda, gamma lambda^2/2 beyond",
		Props: Props{Lipschitz: nan, WeakConvexity: nan},
		Scalar: func(z float64, p []float64) float64 {
			lam, gam := p[0], p[1]
			if a := math.Abs(z); a <= gam*lam {
				return lam*a - z*z/(2*gam)
			}
			return gam * lam * lam / 2
		},
		CheckParams: func(p []float64) string {
			if s := positive("lambda", p[0]); s != "" {
				return s
			}
			return positive("gamma", p[1])
		}})
	add(&Func{Name: "scad", MinArgs: 3, MaxArgs: 3, Kind: Elementwise, ParamArgs: 2,
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
		CheckParams: func(p []float64) string {
			if s := positive("lambda", p[0]); s != "" {
				return s
			}
			if !(p[1] > 2) {
				return "a must be greater than 2"
			}
			return ""
		}})
	for _, name := range []string{"max", "min"} {
		sign := 1.0
		if name == "min" {
			sign = -1
		}
		s := sign
		add(&Func{Name: name, MinArgs: 1, MaxArgs: -1, Kind: Elementwise,
			Doc:   name + " of its arguments elementwise (scalars broadcast), or of the elements of a single vector",
			Props: Props{Convex: name == "max", Concave: name == "min", Lipschitz: 1, Monotone: 1},
			Scalar: func(z float64, p []float64) float64 {
				m := z
				for _, q := range p {
					if s*q > s*m {
						m = q
					}
				}
				return m
			},
			Reduce: func(v []float64) float64 {
				m := v[0]
				for _, q := range v[1:] {
					if s*q > s*m {
						m = q
					}
				}
				return m
			}})
	}
	add(&Func{Name: "norm1", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "sum of absolute values",
		Props: Props{Convex: true, Lipschitz: nan}, Reduce: func(v []float64) float64 {
			s := 0.0
			for _, x := range v {
				s += math.Abs(x)
			}
			return s
		}})
	add(&Func{Name: "norm2", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "Euclidean norm (Frobenius for a matrix)",
		Props: Props{Convex: true, Lipschitz: 1}, Reduce: func(v []float64) float64 {
			// Scaled to avoid overflow, like math.Hypot.
			scale, ssq := 0.0, 1.0
			for _, x := range v {
				if x == 0 {
					continue
				}
				a := math.Abs(x)
				if scale < a {
					ssq = 1 + ssq*(scale/a)*(scale/a)
					scale = a
				} else {
					ssq += (a / scale) * (a / scale)
				}
			}
			return scale * math.Sqrt(ssq)
		}})
	add(&Func{Name: "norminf", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "largest absolute value",
		Props: Props{Convex: true, Lipschitz: 1}, Reduce: func(v []float64) float64 {
			m := 0.0
			for _, x := range v {
				m = math.Max(m, math.Abs(x))
			}
			return m
		}})
	add(&Func{Name: "sum", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "sum of the elements",
		Props: Props{Convex: true, Concave: true, Smooth: true, Lipschitz: nan, Monotone: 1}, Reduce: sum})
	add(&Func{Name: "mean", MinArgs: 1, MaxArgs: 1, Kind: Reduction, Doc: "mean of the elements",
		Props:  Props{Convex: true, Concave: true, Smooth: true, Lipschitz: nan, Monotone: 1},
		Reduce: func(v []float64) float64 { return sum(v) / float64(len(v)) }})
	add(&Func{Name: "dot", MinArgs: 2, MaxArgs: 2, Kind: Dot,
		Doc:   "inner product of two vectors, or matrix times vector",
		Props: Props{Smooth: true, Lipschitz: nan, WeakConvexity: nan}})
}

var nan = math.NaN()

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

// Comprehensions are the names that can head a comprehension
// "op(i in S) body".
var Comprehensions = []string{"sum", "mean", "max", "min"}

// IsComprehension reports whether name can head a comprehension.
func IsComprehension(name string) bool {
	for _, c := range Comprehensions {
		if c == name {
			return true
		}
	}
	return false
}

// Sigmoid is 1/(1+e^-z), computed without overflow for any z.
func Sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Logistic is log(1+e^z), computed without overflow or loss for any z.
func Logistic(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}
