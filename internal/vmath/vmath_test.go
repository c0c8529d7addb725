package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulps returns the distance between a and b in units in the last place of
// b.
func ulps(a, b float64) float64 {
	if a == b {
		return 0
	}
	_, e := math.Frexp(b)
	ulp := math.Ldexp(1, e-53)
	if b == 0 || ulp == 0 {
		ulp = math.SmallestNonzeroFloat64
	}
	return math.Abs(a-b) / ulp
}

// TestExpUlps compares Exp with math.Exp at a million random points of the
// fast path's range, near 0, at the table's nodes, and at the edges.
func TestExpUlps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst, at := 0.0, 0.0
	check := func(x float64) {
		if u := ulps(Exp(x), math.Exp(x)); u > worst {
			worst, at = u, x
		}
	}
	for range 1_000_000 {
		check(-700 + 1400*rng.Float64())
		check(-1 + 2*rng.Float64())
		check(1e-3 * rng.NormFloat64())
	}
	for j := -2000; j <= 2000; j++ {
		check(float64(j) * math.Ln2 / tabN)
	}
	for _, x := range []float64{0, -0.0, 1, -1, 699.99, -699.99, 1e-300, -1e-300} {
		check(x)
	}
	t.Logf("worst %.3g ulp at %g", worst, at)
	if worst > 2 {
		t.Errorf("Exp is %.3g ulp from math.Exp at %g; want at most 2", worst, at)
	}
}

func TestExpSpecial(t *testing.T) {
	for _, x := range []float64{math.Inf(1), math.Inf(-1), 710, -750, 1000, -1000} {
		if got, want := Exp(x), math.Exp(x); got != want {
			t.Errorf("Exp(%g) = %g, want %g", x, got, want)
		}
	}
	if !math.IsNaN(Exp(math.NaN())) {
		t.Error("Exp(NaN) is not NaN")
	}
	if Exp(0) != 1 {
		t.Errorf("Exp(0) = %g", Exp(0))
	}
}

// TestSigmoidLogistic checks the fused kernels against the closed forms
// with math.Exp, in relative error, including both tails.
func TestSigmoidLogistic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 100_000
	z := make([]float64, n)
	for i := range z {
		z[i] = 40 * rng.NormFloat64()
	}
	z = append(z, 0, 800, -800, 36, -36, 1e-20)
	s, d := make([]float64, len(z)), make([]float64, len(z))
	SigmoidDeriv(z, s, d)
	v, q := make([]float64, len(z)), make([]float64, len(z))
	LogisticDeriv(z, v, q)
	rel := func(a, b float64) float64 {
		if a == b {
			return 0
		}
		return math.Abs(a-b) / math.Abs(b)
	}
	for i, x := range z {
		e := math.Exp(-math.Abs(x))
		ws := 1 / (1 + e)
		if x < 0 {
			ws = e / (1 + e)
		}
		wd := e / ((1 + e) * (1 + e))
		wl := math.Log1p(e) + math.Max(x, 0)
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"sigmoid", s[i], ws}, {"sigmoid'", d[i], wd}, {"logistic", v[i], wl}, {"logistic'", q[i], ws}} {
			if r := rel(c.got, c.want); r > 8e-16 {
				t.Fatalf("%s(%g) = %g, want %g (relative error %.3g)", c.name, x, c.got, c.want, r)
			}
		}
	}
}

// TestSigmoidMatchesExp requires the written-out exponentials of
// SigmoidDeriv, SigmoidNegDeriv and SigmoidTerms to be Exp bit for bit.
func TestSigmoidMatchesExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	z := make([]float64, 10000)
	for i := range z {
		z[i] = 200 * rng.NormFloat64()
	}
	z = append(z, -750, 750, 0)
	s, d := make([]float64, len(z)), make([]float64, len(z))
	SigmoidDeriv(z, s, d)
	sp, sm, dd := make([]float64, len(z)), make([]float64, len(z)), make([]float64, len(z))
	SigmoidTerms(z, sp, sm, dd)
	ns, nd := make([]float64, len(z)), make([]float64, len(z))
	SigmoidNegDeriv(z, ns, nd)
	for i, v := range z {
		e := Exp(-math.Abs(v))
		q := 1 / (1 + e)
		ws, wd := q, e*q*q
		if v < 0 {
			ws = q * e
		}
		if s[i] != ws || d[i] != wd {
			t.Fatalf("SigmoidDeriv(%g) = %g, %g; from Exp %g, %g", v, s[i], d[i], ws, wd)
		}
		wm := q * e
		if v < 0 {
			wm = q
		}
		if ns[i] != wm || nd[i] != -wd {
			t.Fatalf("SigmoidNegDeriv(%g) = %g, %g; from Exp %g, %g", v, ns[i], nd[i], wm, -wd)
		}
		if sp[i] != ws || sm[i] != wm || dd[i] != wd {
			t.Fatalf("SigmoidTerms(%g) = %g, %g, %g; from Exp %g, %g, %g", v, sp[i], sm[i], dd[i], ws, wm, wd)
		}
	}
}

// margins returns 1000 arguments in [-10, 10) in random order: the signs
// of a model's margins are random, so a loop that branched on the sign
// would be mispredicted half the time here, as in evaluation.
func margins() []float64 {
	z := make([]float64, 1000)
	for i := range z {
		z[i] = float64(i-500) / 50
	}
	rand.New(rand.NewPCG(5, 6)).Shuffle(len(z), func(i, j int) { z[i], z[j] = z[j], z[i] })
	return z
}

func BenchmarkSigmoidDeriv(b *testing.B) {
	z := margins()
	s, d := make([]float64, len(z)), make([]float64, len(z))
	for b.Loop() {
		SigmoidDeriv(z, s, d)
	}
}

func BenchmarkLogisticDeriv(b *testing.B) {
	z := margins()
	v, d := make([]float64, len(z)), make([]float64, len(z))
	for b.Loop() {
		LogisticDeriv(z, v, d)
	}
}

// BenchmarkMathSigmoid is SigmoidDeriv written plainly with math.Exp.
func BenchmarkMathSigmoid(b *testing.B) {
	z := margins()
	s, d := make([]float64, len(z)), make([]float64, len(z))
	for b.Loop() {
		for i, v := range z {
			e := math.Exp(-math.Abs(v))
			q := 1 / (1 + e)
			d[i] = e * q * q
			if v < 0 {
				q *= e
			}
			s[i] = q
		}
	}
}

// TestSigmoidFromExp: the sigmoid from ExpNegAbs of z, of -z and of c*z
// is SigmoidDeriv's and SigmoidNegDeriv's, bit for bit, in the tails, at
// zero and signed zeros, and for NaN.
func TestSigmoidFromExp(t *testing.T) {
	z := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, 0.3, -0.3, 2, -2, 36, -36, 700, -700, 745.2, -745.2, 1e10, -1e10, math.Inf(1), math.Inf(-1)}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		z = append(z, 40*rng.NormFloat64())
	}
	n := len(z)
	e, q := make([]float64, n), make([]float64, n)
	s, d, ws, wd := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	mz := make([]float64, n)
	for i, v := range z {
		mz[i] = -v
	}
	for _, neg := range []bool{false, true} {
		for _, from := range [][]float64{z, mz} { // e^-|z| = e^-|-z|
			ExpNegAbs(from, e, q)
			SigmoidFromExp(z, e, q, s, d, nil, neg)
			if neg {
				SigmoidNegDeriv(z, ws, wd)
			} else {
				SigmoidDeriv(z, ws, wd)
			}
			for i := range z {
				if math.Float64bits(s[i]) != math.Float64bits(ws[i]) || math.Float64bits(d[i]) != math.Float64bits(wd[i]) {
					t.Fatalf("neg=%v, z=%g: %g, %g; want %g, %g", neg, z[i], s[i], d[i], ws[i], wd[i])
				}
			}
			// of c*z, c = ±1: the sigmoid of the product, and its
			// derivative times c
			c, cz := make([]float64, n), make([]float64, n)
			for i := range c {
				c[i] = float64(2*rng.IntN(2) - 1)
				cz[i] = c[i] * z[i]
			}
			SigmoidFromExp(z, e, q, s, d, c, neg)
			if neg {
				SigmoidNegDeriv(cz, ws, wd)
			} else {
				SigmoidDeriv(cz, ws, wd)
			}
			for i := range z {
				if math.Float64bits(s[i]) != math.Float64bits(ws[i]) || math.Float64bits(d[i]) != math.Float64bits(c[i]*wd[i]) {
					t.Fatalf("neg=%v, c=%g, z=%g: %g, %g; want %g, %g", neg, c[i], z[i], s[i], d[i], ws[i], c[i]*wd[i])
				}
			}
		}
	}
	// at positions of a larger set: the same bits as gathering first
	idx := make([]int32, n/2)
	for i := range idx {
		idx[i] = int32(2*i + rng.IntN(2))
	}
	zs, es, qs := make([]float64, len(idx)), make([]float64, len(idx)), make([]float64, len(idx))
	ExpNegAbs(z, e, q)
	for i, k := range idx {
		zs[i], es[i], qs[i] = z[k], e[k], q[k]
	}
	for _, neg := range []bool{false, true} {
		SigmoidFromExp(zs, es, qs, ws, wd, nil, neg)
		SigmoidFromExpAt(zs, e, q, idx, s, d, nil, neg)
		for i := range idx {
			if math.Float64bits(s[i]) != math.Float64bits(ws[i]) || math.Float64bits(d[i]) != math.Float64bits(wd[i]) {
				t.Fatalf("at, neg=%v, z=%g: %g, %g; want %g, %g", neg, zs[i], s[i], d[i], ws[i], wd[i])
			}
		}
	}
	ExpNegAbs([]float64{math.NaN()}, e, q)
	SigmoidFromExp([]float64{math.NaN()}, e, q, s, d, nil, false)
	if !math.IsNaN(s[0]) || !math.IsNaN(d[0]) {
		t.Fatalf("NaN: %g, %g", s[0], d[0])
	}
}
