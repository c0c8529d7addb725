// Package vmath has the fast elementwise kernels evaluation runs over
// blocks of rows: an exponential from a table of 2^(j/256) and a degree-4
// polynomial, within 2 ulp of math.Exp (tested), and the sigmoid, the
// logistic loss and their derivatives fused over slices, each element's
// value and derivative from one exponential.
package vmath

import "math"

const (
	tabBits = 8
	tabN    = 1 << tabBits
	// ln2Hi + ln2Lo = ln 2 / tabN; kf * ln2Hi is exact for |kf| < 2^20
	ln2Hi  = 6.93147180369123816490e-01 / tabN
	ln2Lo  = 1.90821492927058770002e-10 / tabN
	invLn2 = tabN / math.Ln2
	// shifter rounds a float64 below 2^51 in magnitude to an integer in
	// its low mantissa bits
	shifter = 0x1.8p52
	// the fast path's range: 2^k stays a normal number
	expLo = -700.0
	expHi = 700.0
)

// tab[j] = 2^(j/256), correctly rounded by math.Exp2.
var tab [tabN]float64

func init() {
	for j := range tab {
		tab[j] = math.Exp2(float64(j) / tabN)
	}
}

// Exp returns e^x within 2 ulp of math.Exp (math.Exp itself outside
// [-700, 700], for NaN and for infinities).
func Exp(x float64) float64 {
	if !(x > expLo && x < expHi) {
		return math.Exp(x)
	}
	return expFast(x)
}

// expFast is e^x for x in (expLo, expHi): 2^(k/256) · e^r with
// |r| <= ln 2/512, 2^(k/256) from the table and e^r from its degree-4
// Taylor polynomial (the next term, r^5/120 <= 4e-17, is below half an
// ulp). It is written within the compiler's inlining budget (cost 80 of
// 80; a degree-5 polynomial or another temporary is over it) so that the
// loops below run it without a call.
func expFast(x float64) float64 {
	kf := x*invLn2 + shifter
	// kf - shifter is the integer k nearest x·256/ln 2; ln2Hi·k is exact
	r := x - (kf-shifter)*ln2Hi - (kf-shifter)*ln2Lo
	k := math.Float64bits(kf) // k in its low bits, two's complement
	t := tab[uint8(k)]
	return math.Float64frombits(math.Float64bits(t+t*(r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24)))))) + k>>tabBits<<52)
}

// SigmoidDeriv sets s[i] = 1/(1+e^-z[i]) and d[i] = s[i](1-s[i]), each
// from one exponential e^-|z|, without overflow or cancellation in either
// tail (len(s), len(d) >= len(z)).
func SigmoidDeriv(z, s, d []float64) { sigmoid(z, s, d, false) }

// SigmoidNegDeriv sets s[i] = 1/(1+e^z[i]), the sigmoid at -z[i], and
// d[i] = -s[i](1-s[i]), its derivative with respect to z[i], as
// SigmoidDeriv does (the loss phi(z) = 1/(1+e^z) in one pass).
func SigmoidNegDeriv(z, s, d []float64) { sigmoid(z, s, d, true) }

func sigmoid(z, s, d []float64, neg bool) {
	s, d = s[:len(z)], d[:len(z)]
	f := signBit(neg)
	for i, v := range z {
		x := -math.Abs(v) // Exp(x), Exp's branch written out
		var e float64
		if x > expLo {
			e = expFast(x)
		} else {
			e = math.Exp(x)
		}
		s[i], d[i] = sigmoidFrom(v, e, 1/(1+e), f)
	}
}

// SigmoidTerms sets sp[i] = 1/(1+e^-z[i]), sm[i] = 1/(1+e^z[i]) and
// d[i] = sp[i] sm[i], the sigmoid at z and at -z and its derivative, from
// one exponential e^-|z| (len(sp), len(sm), len(d) >= len(z)).
func SigmoidTerms(z, sp, sm, d []float64) {
	sp, sm, d = sp[:len(z)], sm[:len(z)], d[:len(z)]
	for i, v := range z {
		x := -math.Abs(v) // Exp(x), written out as in SigmoidDeriv
		var e float64
		if x > expLo {
			e = expFast(x)
		} else {
			e = math.Exp(x)
		}
		q := 1 / (1 + e)
		// sp = q*e, sm = q where v is negative, else sp = q, sm = q*e,
		// without a branch on the sign (as in sigmoidFrom)
		sp[i], d[i] = sigmoidFrom(v, e, q, 0)
		sm[i], _ = sigmoidFrom(v, e, q, 1)
	}
}

// LogisticDeriv sets v[i] = log(1+e^z[i]) and d[i] = 1/(1+e^-z[i]), from
// one exponential e^-|z| (len(v), len(d) >= len(z)).
func LogisticDeriv(z, v, d []float64) {
	v, d = v[:len(z)], d[:len(z)]
	for i, x := range z {
		a := -math.Abs(x) // Exp(a), written out as in SigmoidDeriv
		var e float64
		if a > expLo {
			e = expFast(a)
		} else {
			e = math.Exp(a)
		}
		// log(1+e^x) = log1p(e) + max(x, 0); the derivative is the sigmoid
		// at x, without a branch on the sign (as in sigmoidFrom)
		d[i], _ = sigmoidFrom(x, e, 1/(1+e), 0)
		v[i] = math.Log1p(e) + max(x, 0)
	}
}

// ExpDeriv sets v[i] = d[i] = e^z[i] (len(v), len(d) >= len(z)).
func ExpDeriv(z, v, d []float64) {
	v, d = v[:len(z)], d[:len(z)]
	for i, x := range z {
		e := Exp(x)
		v[i], d[i] = e, e
	}
}

// ExpNegAbs sets e[i] = e^-|z[i]| and q[i] = 1/(1+e[i]) (len(e), len(q) >=
// len(z)): what SigmoidFromExp needs for the sigmoid of z[i] or of
// -z[i], or of any c*z[i] with |c| = 1.
func ExpNegAbs(z, e, q []float64) {
	e, q = e[:len(z)], q[:len(z)]
	for i, v := range z {
		x := -math.Abs(v) // Exp(x), written out as in SigmoidDeriv
		var ev float64
		if x > expLo {
			ev = expFast(x)
		} else {
			ev = math.Exp(x)
		}
		e[i], q[i] = ev, 1/(1+ev)
	}
}

// SigmoidFromExp sets s[i] and d[i] as SigmoidDeriv (neg false) or
// SigmoidNegDeriv (neg true) do, bit for bit, from e[i] = e^-|z[i]| and
// q[i] = 1/(1+e[i]) (ExpNegAbs of z, or of -z), without an exponential or
// a division. With c not nil (each c[i] -1 or 1) it is the sigmoid of
// c[i]*z[i] (of -c[i]*z[i] for neg) and its derivative with respect to
// z[i], c[i]*sigmoid'.
func SigmoidFromExp(z, e, q, s, d, c []float64, neg bool) {
	e, q, s, d = e[:len(z)], q[:len(z)], s[:len(z)], d[:len(z)]
	if c != nil {
		c = c[:len(z)]
	}
	flip := signBit(neg)
	for i, v := range z {
		s[i], d[i] = sigmoidFrom(v, e[i], q[i], flipAt(flip, c, i))
	}
}

// signBit is 1 for neg, else 0: the sign bit of the derivative, and which
// value is the tail.
func signBit(neg bool) uint64 {
	if neg {
		return 1
	}
	return 0
}

// flipAt is flip, flipped when c is not nil and c[i] is negative.
func flipAt(flip uint64, c []float64, i int) uint64 {
	if c != nil {
		flip ^= math.Float64bits(c[i]) >> 63
	}
	return flip
}

// sigmoidFrom is one element of SigmoidFromExp: the sigmoid at v (f 0) or
// at -v (f 1), and its derivative, from ev = e^-|v| and qv = 1/(1+ev).
func sigmoidFrom(v, ev, qv float64, f uint64) (s, d float64) {
	d = math.Float64frombits(math.Float64bits(ev*qv*qv) ^ f<<63)
	// s = q*e where the argument is negative, else q, without a branch on
	// the sign: the signs of margins are random, a branch on them is
	// mispredicted half the time (at v = -0 both are q)
	m := -((math.Float64bits(v) >> 63) ^ f)
	s = math.Float64frombits(math.Float64bits(qv*ev)&m | math.Float64bits(qv)&^m)
	return s, d
}

// SigmoidFromExpAt is SigmoidFromExp with e and q read at the positions
// idx (e[idx[i]], q[idx[i]] for z[i]): the exponentials of a superset of
// z's rows, not gathered first.
func SigmoidFromExpAt(z, e, q []float64, idx []int32, s, d, c []float64, neg bool) {
	idx, s, d = idx[:len(z)], s[:len(z)], d[:len(z)]
	if c != nil {
		c = c[:len(z)]
	}
	flip := signBit(neg)
	for i, v := range z {
		k := idx[i]
		s[i], d[i] = sigmoidFrom(v, e[k], q[k], flipAt(flip, c, i))
	}
}
