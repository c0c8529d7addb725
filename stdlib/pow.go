package stdlib

import "math"

// isInt reports whether p is a finite integer.
func isInt(p float64) bool { return p == math.Trunc(p) && !math.IsInf(p, 0) }

// Pow is z^p for a constant exponent p, the language's x ^ p: z*z exactly for
// p = 2, z for p = 1, 1 for p = 0 (also at z = 0), math.Sqrt for p = 0.5,
// and math.Pow otherwise. For an integer p it is defined for negative z; for
// a non-integer p and z < 0 it is NaN (a negative number to a fractional
// power). At z = 0 with p < 0 it is infinite, as math.Pow.
func Pow(z, p float64) float64 {
	switch {
	case p == 2:
		return z * z
	case p == 1:
		return z
	case p == 0:
		return 1
	case p == 0.5:
		return math.Sqrt(z)
	case !isInt(p) && z < 0:
		return math.NaN()
	}
	return math.Pow(z, p)
}

// PowDeriv is the derivative of Pow with respect to z, p z^(p-1). At z = 0
// it is 0 for p > 1, 1 for p = 1, 0 for p = 0, and +Inf for 0 < p < 1
// (z^p is not Lipschitz at 0, like sqrt); for p < 0 it is -Inf, the limit
// from the right (z^p itself is infinite there). It is NaN where Pow is
// (z < 0 with a non-integer p).
func PowDeriv(z, p float64) float64 {
	switch {
	case p == 0:
		return 0
	case p == 1:
		return 1
	case p == 2:
		return 2 * z
	case z == 0:
		switch {
		case p > 1:
			return 0
		case p > 0:
			return math.Inf(1)
		case p < 0:
			return math.Inf(-1)
		}
		return math.NaN()
	case !isInt(p) && z < 0:
		return math.NaN()
	case p == 0.5:
		return 0.5 / math.Sqrt(z)
	}
	return p * math.Pow(z, p-1)
}

// PowProps are the properties of z^p for a constant exponent p, on its
// domain: all z for an integer p >= 0, z != 0 for an integer p < 0, z >= 0
// for a non-integer p > 0, z > 0 for a non-integer p < 0.
//
//   - p = 0: constant 1.
//   - p = 1: linear, Lipschitz 1.
//   - even p >= 2: convex on all of R, smooth, not Lipschitz.
//   - odd p >= 3: smooth and increasing but neither convex nor weakly convex
//     (the second derivative p(p-1) z^(p-2) is unbounded below).
//   - non-integer p > 1: convex and increasing on z >= 0, smooth.
//   - 0 < p < 1: concave and increasing on z >= 0, not differentiable at 0,
//     not Lipschitz, not weakly convex (like sqrt, which is p = 0.5).
//   - non-integer p < 0: convex and decreasing on z > 0.
//   - integer p < 0: smooth on z != 0 but neither convex nor monotone there.
//
// A NaN or infinite p gives unknown (NaN) numbers.
func PowProps(p float64) Props {
	switch {
	case math.IsNaN(p) || math.IsInf(p, 0):
		return Props{Lipschitz: nan, WeakConvexity: nan}
	case p == 0:
		return Props{Convex: true, Concave: true, Smooth: true, Lipschitz: 0, WeakConvexity: 0, Monotone: 1}
	case p == 1:
		return Props{Convex: true, Concave: true, Smooth: true, Lipschitz: 1, WeakConvexity: 0, Monotone: 1}
	case isInt(p) && p > 0 && math.Mod(p, 2) == 0:
		return Props{Convex: true, Smooth: true, Lipschitz: inf, WeakConvexity: 0}
	case isInt(p) && p > 0:
		return Props{Smooth: true, Lipschitz: inf, WeakConvexity: inf, Monotone: 1}
	case p > 1:
		return Props{Convex: true, Smooth: true, Lipschitz: inf, WeakConvexity: 0, Monotone: 1}
	case p > 0:
		return Props{Concave: true, Lipschitz: inf, WeakConvexity: inf, Monotone: 1}
	case !isInt(p):
		return Props{Convex: true, Smooth: true, Lipschitz: inf, WeakConvexity: 0, Monotone: -1}
	}
	return Props{Smooth: true, Lipschitz: inf, WeakConvexity: inf}
}
