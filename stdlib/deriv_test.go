package stdlib_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/stdlib"
)

// atom is an elementwise built-in with typical parameters, how to sample its
// domain, and its kinks (points where the derivative is not continuous, or
// breakpoints of a piecewise definition).
type atom struct {
	name  string
	p     []float64
	lo    float64 // domain is z > lo (z >= lo when closed)
	below float64 // when not 0, the domain is also z < below (tan's branch)
	kinks []float64
}

var atoms = []atom{
	{name: "abs", lo: -inf, kinks: []float64{0}},
	{name: "pos", lo: -inf, kinks: []float64{0}},
	{name: "exp", lo: -inf},
	{name: "log", lo: 0},
	{name: "log1p", lo: -1},
	{name: "sqrt", lo: 0},
	{name: "square", lo: -inf},
	{name: "sigmoid", lo: -inf},
	{name: "logistic", lo: -inf},
	{name: "tanh", lo: -inf},
	{name: "sin", lo: -inf},
	{name: "cos", lo: -inf},
	{name: "tan", lo: -math.Pi / 2, below: math.Pi / 2},
	{name: "atan", lo: -inf},
	{name: "erf", lo: -inf},
	{name: "log10", lo: 0},
	{name: "hinge", lo: -inf, kinks: []float64{1}},
	{name: "huber", p: []float64{1}, lo: -inf, kinks: []float64{-1, 1}},
	{name: "mcp", p: []float64{1, 2}, lo: -inf, kinks: []float64{-2, 0, 2}},
	{name: "scad", p: []float64{1, 3.7}, lo: -inf, kinks: []float64{-3.7, -1, 0, 1, 3.7}},
}

var inf = math.Inf(1)

// sample returns a random point of a's domain: uniform on [-30, 30] for the
// functions defined everywhere, lo + e^u with u uniform on [-4, 3] otherwise.
func (a atom) sample(r *rand.Rand) float64 {
	if a.below != 0 { // within 2% of the width from either end
		return a.lo + (a.below-a.lo)*(0.02+0.96*r.Float64())
	}
	if math.IsInf(a.lo, -1) {
		return 60*r.Float64() - 30
	}
	return a.lo + math.Exp(7*r.Float64()-4)
}

// near returns a point of a's domain near x: x + d with |d| log-uniform on
// [1e-3, 10], so that pairs probe curvature at small and large scales.
func (a atom) near(r *rand.Rand, x float64) float64 {
	for {
		y := x + math.Copysign(math.Pow(10, 4*r.Float64()-3), r.Float64()-0.5)
		if y > a.lo && (a.below == 0 || y < a.below) {
			return y
		}
	}
}

func (a atom) nearKink(z float64) bool {
	for _, k := range a.kinks {
		if math.Abs(z-k) < 1e-3 {
			return true
		}
	}
	return false
}

func relerr(a, b float64) float64 {
	return math.Abs(a-b) / max(1, math.Abs(a), math.Abs(b))
}

func lookup(t *testing.T, name string) *stdlib.Func {
	t.Helper()
	f := stdlib.Lookup(name)
	require.NotNil(t, f, name)
	return f
}

// Every elementwise function but the n-ary max and min has Deriv; exactly
// the functions with Reduce have Grad; exactly those with parameters have
// PropsAt. The atoms table above covers every Deriv.
func TestAPICoverage(t *testing.T) {
	covered := map[string]bool{}
	for _, a := range atoms {
		covered[a.name] = true
	}
	for _, n := range stdlib.Names() {
		f := stdlib.Lookup(n)
		wantDeriv := f.Kind == stdlib.Elementwise && n != "max" && n != "min"
		assert.Equal(t, wantDeriv, f.Deriv != nil, "%s: Deriv", n)
		assert.Equal(t, f.Reduce != nil, f.Grad != nil, "%s: Grad", n)
		assert.Equal(t, f.ParamArgs > 0, f.PropsAt != nil, "%s: PropsAt", n)
		if f.Deriv != nil {
			assert.True(t, covered[n], "%s is missing from the atoms table", n)
		}
	}
}

func TestDerivFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, a := range atoms {
		f := lookup(t, a.name)
		for n := 0; n < 300; {
			z := a.sample(r)
			h := 1e-6 * max(1, math.Abs(z))
			if a.nearKink(z) || z-h <= a.lo || a.below != 0 && z+h >= a.below {
				continue
			}
			n++
			fd := (f.Scalar(z+h, a.p) - f.Scalar(z-h, a.p)) / (2 * h)
			d := f.Deriv(z, a.p)
			assert.LessOrEqual(t, relerr(fd, d), 1e-6, "%s'(%v) = %v, finite difference %v", a.name, z, d, fd)
		}
	}
}

// reductions are the functions with Grad.
var reductions = []string{"norm1", "norm2", "norminf", "sum", "mean", "max", "min", "logsumexp"}

// randVec returns a vector of length 1..7 with entries in [-5, 5] whose
// absolute values differ from 0 and from each other by more than 0.01.
func randVec(r *rand.Rand) []float64 {
	v := make([]float64, 1+r.IntN(7))
	for i := range v {
	retry:
		v[i] = 10*r.Float64() - 5
		if math.Abs(v[i]) < 0.01 {
			goto retry
		}
		for _, w := range v[:i] {
			if math.Abs(math.Abs(v[i])-math.Abs(w)) < 0.01 {
				goto retry
			}
		}
	}
	return v
}

func TestGradFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, name := range reductions {
		f := lookup(t, name)
		for range 200 {
			v := randVec(r)
			g := make([]float64, len(v))
			f.Grad(v, g)
			for j := range v {
				h := 1e-6 * max(1, math.Abs(v[j]))
				w := slices.Clone(v)
				w[j] = v[j] + h
				up := f.Reduce(w)
				w[j] = v[j] - h
				fd := (up - f.Reduce(w)) / (2 * h)
				assert.LessOrEqual(t, relerr(fd, g[j]), 1e-6, "%s grad at %v, element %d: %v, finite difference %v", name, v, j, g[j], fd)
			}
		}
	}
}

// The subgradient inequality f(y) >= f(x) + g (y - x) - rho/2 (y - x)^2 at
// kinks and random points, with rho the weak-convexity modulus (0 for the
// convex atoms): this checks both the kink choices and the moduli.
func TestSubgradientInequalityElementwise(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, a := range atoms {
		f := lookup(t, a.name)
		rho := f.PropsFor(a.p).WeakConvexity
		if math.IsInf(rho, 1) {
			continue
		}
		xs := slices.Clone(a.kinks)
		for range 50 {
			xs = append(xs, a.sample(r))
		}
		for _, x := range xs {
			fx, g := f.Scalar(x, a.p), f.Deriv(x, a.p)
			for range 200 {
				y := a.sample(r)
				if r.IntN(2) == 0 {
					y = a.near(r, x)
				}
				fy := f.Scalar(y, a.p)
				tol := 1e-12 * max(1, math.Abs(fx), math.Abs(fy))
				assert.GreaterOrEqual(t, fy, fx+g*(y-x)-rho/2*(y-x)*(y-x)-tol, "%s at x=%v, y=%v, g=%v", a.name, x, y, g)
			}
		}
	}
}

func TestSubgradientInequalityReductions(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	kinks := map[string][][]float64{
		"norm1":   {{0}, {0, 0, 0}, {1, 0, -2}, {0, -3}},
		"norm2":   {{0}, {0, 0}, {0, 0, 0, 0}},
		"norminf": {{0, 0}, {-2, 2}, {3, -3, 1}, {1, 1, 1}, {-1, 0.5, -1}},
		"max":     {{3, 3, 1}, {0, 0}, {-1, 2, 2, 2}},
		"min":     {{3, 3, 1, 1}, {0, 0}, {-1, -1, 2}},
		"sum":     {{0, 1, -1}},
		"mean":    {{0, 1, -1}},
		// smooth everywhere: ties and large magnitudes instead of kinks
		"logsumexp": {{0, 0}, {3, 3, 1}, {700, -700}, {-800, -801}},
	}
	for _, name := range reductions {
		f := lookup(t, name)
		xs := kinks[name]
		require.NotEmpty(t, xs, name)
		for range 20 {
			xs = append(xs, randVec(r))
		}
		for _, x := range xs {
			g := make([]float64, len(x))
			f.Grad(x, g)
			fx := f.Reduce(x)
			for range 200 {
				y := make([]float64, len(x))
				lin := fx
				for j := range y {
					y[j] = x[j] + 4*r.NormFloat64()
					if r.IntN(3) == 0 {
						y[j] = x[j] // stay on the kink in some directions
					}
					lin += g[j] * (y[j] - x[j])
				}
				fy := f.Reduce(y)
				if f.Props.Convex {
					assert.GreaterOrEqual(t, fy, lin-1e-12, "%s at %v, y=%v, g=%v", name, x, y, g)
				}
				if f.Props.Concave {
					assert.LessOrEqual(t, fy, lin+1e-12, "%s at %v, y=%v, g=%v", name, x, y, g)
				}
			}
		}
	}
}

func TestKinkChoices(t *testing.T) {
	d := func(name string, z float64, p ...float64) float64 { return lookup(t, name).Deriv(z, p) }
	assert.Equal(t, 0.0, d("abs", 0))
	assert.Equal(t, 0.0, d("pos", 0))
	assert.Equal(t, 0.0, d("hinge", 1))
	assert.Equal(t, -1.0, d("hinge", 1-1e-12))
	assert.Equal(t, 0.0, d("mcp", 0, 1, 2))
	assert.Equal(t, 0.0, d("scad", 0, 1, 3.7))
	assert.Equal(t, 0.0, d("mcp", 2, 1, 2))
	assert.Equal(t, 1.0, d("scad", 1, 1, 3.7))
	assert.Equal(t, 0.0, d("scad", -3.7, 1, 3.7))
	assert.Equal(t, 1.0, d("huber", 1, 1))
	assert.Equal(t, inf, d("sqrt", 0))
	assert.Equal(t, 0.5, d("log", 2))

	grad := func(name string, v ...float64) []float64 {
		g := []float64{7, 7, 7, 7}[:len(v)] // overwritten
		lookup(t, name).Grad(v, g)
		return g
	}
	assert.Equal(t, []float64{1, 0, 0}, grad("max", 3, 3, 1))
	assert.Equal(t, []float64{0, 1, 0}, grad("max", 1, 3, 3))
	assert.Equal(t, []float64{0, 0, 1, 0}, grad("min", 3, 3, 1, 1))
	assert.Equal(t, []float64{-1, 0}, grad("norminf", -2, 2))
	assert.Equal(t, []float64{0, 0}, grad("norminf", 0, 0))
	assert.Equal(t, []float64{0, 0, 0}, grad("norm2", 0, 0, 0))
	assert.Equal(t, []float64{0.6, -0.8}, grad("norm2", 3, -4))
	assert.Equal(t, []float64{1, 0, -1}, grad("norm1", 2, 0, -1))
	assert.Equal(t, []float64{1, 1, 1}, grad("sum", 2, 0, -1))
	assert.Equal(t, []float64{0.25, 0.25, 0.25, 0.25}, grad("mean", 2, 0, -1, 5))
}

func TestGradDoesNotAllocate(t *testing.T) {
	v := []float64{1, -3, 3, 0, 2}
	g := make([]float64, len(v))
	for _, name := range reductions {
		f := lookup(t, name)
		assert.Zero(t, testing.AllocsPerRun(100, func() { f.Grad(v, g) }), name)
	}
}

func TestExtremeInputs(t *testing.T) {
	zs := []float64{0, 1e-300, -1e-300, 1, -1, 30, -30, 700, -700, 1000, -1000, 1e300, -1e300}
	for _, a := range atoms {
		f := lookup(t, a.name)
		for _, z := range zs {
			if z < a.lo || z == a.lo && a.name != "sqrt" || a.below != 0 && z >= a.below {
				continue
			}
			assert.False(t, math.IsNaN(f.Scalar(z, a.p)), "%s(%v)", a.name, z)
			assert.False(t, math.IsNaN(f.Deriv(z, a.p)), "%s'(%v)", a.name, z)
		}
	}
	assert.Equal(t, 1.0, stdlib.Sigmoid(1000))
	assert.Equal(t, 0.0, stdlib.Sigmoid(-1000))
	assert.Equal(t, 1000.0, stdlib.Logistic(1000))
	assert.GreaterOrEqual(t, stdlib.Logistic(-1000), 0.0)
	assert.Equal(t, 0.0, stdlib.SigmoidDeriv(1000))
	assert.Equal(t, 0.0, stdlib.SigmoidDeriv(-1000))
	assert.Equal(t, 0.25, stdlib.SigmoidDeriv(0))
	d := func(name string, z float64) float64 { return lookup(t, name).Deriv(z, nil) }
	assert.Equal(t, 0.0, d("sigmoid", 1000))
	assert.Equal(t, 1.0, d("logistic", 1000))
	assert.Equal(t, 0.0, d("logistic", -1000))
	assert.Equal(t, 0.0, d("tanh", -1000))
	assert.Equal(t, 1.0, d("tanh", 0))
	// Full relative accuracy in the tails, where 1 - s and 1 - tanh^2 cancel.
	assert.InEpsilon(t, math.Exp(-50), stdlib.SigmoidDeriv(50), 1e-13)
	assert.InEpsilon(t, math.Exp(-50), stdlib.SigmoidDeriv(-50), 1e-13)
	assert.InEpsilon(t, 4*math.Exp(-60), d("tanh", 30), 1e-13)

	big := []float64{1e300, -1e300, 1e300}
	for _, name := range reductions {
		f := lookup(t, name)
		g := make([]float64, len(big))
		f.Grad(big, g)
		v := f.Reduce(big)
		assert.False(t, math.IsNaN(v) || math.IsInf(v, 0), "%s = %v", name, v)
		for _, x := range g {
			assert.False(t, math.IsNaN(x) || math.IsInf(x, 0), "%s grad %v", name, g)
		}
	}
	n2 := lookup(t, "norm2")
	assert.InEpsilon(t, math.Sqrt(3)*1e300, n2.Reduce(big), 1e-15)
	g := make([]float64, 3)
	n2.Grad(big, g)
	for j := range g {
		assert.InEpsilon(t, big[j]/1e300/math.Sqrt(3), g[j], 1e-15)
	}
	// The norm itself overflows here, its gradient does not.
	huge := []float64{1.5e308, 1.5e308}
	g = g[:2]
	n2.Grad(huge, g)
	assert.InEpsilon(t, math.Sqrt(0.5), g[0], 1e-15)
	assert.InEpsilon(t, math.Sqrt(0.5), g[1], 1e-15)
	// Tiny (subnormal) elements.
	tiny := []float64{3e-320, -4e-320}
	n2.Grad(tiny, g)
	assert.InDelta(t, 0.6, g[0], 1e-3)
	assert.InDelta(t, -0.8, g[1], 1e-3)
	// Infinite elements: the value is +Inf, the gradient the limit direction.
	assert.Equal(t, inf, n2.Reduce([]float64{inf, -inf}))
	n2.Grad([]float64{inf, 1}, g)
	assert.Equal(t, []float64{1, 0}, g)
}

// pairs calls check on random pairs (x, y) in the domain (lo, hi] (in
// [-hi, hi] when lo is -Inf): half of them far apart, half close together.
func pairs(r *rand.Rand, lo, hi float64, check func(x, y float64)) {
	a, start := atom{lo: lo}, lo
	if math.IsInf(lo, -1) {
		start = -hi
	}
	for range 4000 {
		u := r.Float64()
		if !math.IsInf(lo, -1) {
			u *= r.Float64() // more points near the open end
		}
		x := start + (hi-start)*u
		y := start + (hi-start)*r.Float64()
		if r.IntN(2) == 0 {
			y = a.near(r, x)
		}
		if x <= lo || y <= lo || x > hi || y > hi {
			continue
		}
		check(x, y)
	}
}

// checkProps checks the claims in p about the scalar function f on (lo, hi]
// on random pairs: midpoint convexity or concavity, the Lipschitz constant,
// the weak-convexity modulus (f + rho/2 z^2 midpoint convex) and monotonicity.
func checkProps(t *testing.T, what string, f func(float64) float64, p stdlib.Props, lo, hi float64, r *rand.Rand) {
	t.Helper()
	failed := false
	fail := func(ok bool, format string, args ...any) {
		if !ok && !failed {
			failed = true
			t.Errorf(what+": "+format, args...)
		}
	}
	rho := p.WeakConvexity
	pairs(r, lo, hi, func(x, y float64) {
		fx, fy, fm := f(x), f(y), f((x+y)/2)
		tol := 1e-12 * max(1, math.Abs(fx), math.Abs(fy))
		if p.Convex {
			fail(fm <= (fx+fy)/2+tol, "not convex: f(%v)=%v, f(%v)=%v, midpoint %v", x, fx, y, fy, fm)
		}
		if p.Concave {
			fail(fm >= (fx+fy)/2-tol, "not concave: f(%v)=%v, f(%v)=%v, midpoint %v", x, fx, y, fy, fm)
		}
		if !math.IsInf(p.Lipschitz, 1) && !math.IsNaN(p.Lipschitz) {
			fail(math.Abs(fx-fy) <= p.Lipschitz*math.Abs(x-y)+1e-12, "not %v-Lipschitz at %v, %v", p.Lipschitz, x, y)
		}
		if !math.IsInf(rho, 1) && !math.IsNaN(rho) {
			m := (x + y) / 2
			gx, gy, gm := fx+rho/2*x*x, fy+rho/2*y*y, fm+rho/2*m*m
			tol := 1e-12 * max(1, math.Abs(gx), math.Abs(gy))
			fail(gm <= (gx+gy)/2+tol, "f + %v/2 z^2 is not convex at %v, %v", rho, x, y)
		}
		if x < y && p.Monotone > 0 {
			fail(fx <= fy, "not nondecreasing at %v < %v", x, y)
		}
		if x < y && p.Monotone < 0 {
			fail(fx >= fy, "not nonincreasing at %v < %v", x, y)
		}
	})
}

func TestPropsNumerically(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, a := range atoms {
		f := lookup(t, a.name)
		hi := 30.0
		if a.name == "exp" {
			hi = 10
		}
		if a.below != 0 {
			hi = a.below - 0.01
		}
		checkProps(t, a.name, func(z float64) float64 { return f.Scalar(z, a.p) }, f.PropsFor(a.p), a.lo, hi, r)
	}
	// Other parameters than the typical ones.
	for _, c := range []struct {
		name string
		p    []float64
	}{{"huber", []float64{0.1}}, {"mcp", []float64{0.5, 4}}, {"mcp", []float64{3, 1.5}}, {"scad", []float64{2, 2.1}}, {"scad", []float64{0.3, 10}}} {
		f := lookup(t, c.name)
		checkProps(t, c.name, func(z float64) float64 { return f.Scalar(z, c.p) }, f.PropsFor(c.p), -inf, 30, r)
	}
	// n-ary max and min as functions of their first argument.
	for _, name := range []string{"max", "min"} {
		f := lookup(t, name)
		checkProps(t, name, func(z float64) float64 { return f.Scalar(z, []float64{0.5, -1}) }, f.Props, -inf, 10, r)
	}
	// Reductions: convexity, concavity and the Lipschitz constant for the
	// Euclidean norm on random pairs of vectors.
	for _, name := range reductions {
		f := lookup(t, name)
		p := f.Props
		for range 2000 {
			x := randVec(r)
			y := make([]float64, len(x))
			m := make([]float64, len(x))
			d := 0.0
			for j := range x {
				y[j] = x[j] + r.NormFloat64()
				m[j] = (x[j] + y[j]) / 2
				d += (x[j] - y[j]) * (x[j] - y[j])
			}
			fx, fy, fm := f.Reduce(x), f.Reduce(y), f.Reduce(m)
			if p.Convex {
				require.LessOrEqual(t, fm, (fx+fy)/2+1e-12, "%s not convex at %v, %v", name, x, y)
			}
			if p.Concave {
				require.GreaterOrEqual(t, fm, (fx+fy)/2-1e-12, "%s not concave at %v, %v", name, x, y)
			}
			if !math.IsNaN(p.Lipschitz) {
				require.LessOrEqual(t, math.Abs(fx-fy), p.Lipschitz*math.Sqrt(d)+1e-12, "%s not %v-Lipschitz at %v, %v", name, p.Lipschitz, x, y)
			}
		}
	}
}

// The Lipschitz constants and weak-convexity moduli are tight: on a fine
// grid of [-10, 10], the largest |f'| and the largest negative second
// derivative (central differences of Deriv, away from kinks) match the table.
func TestPropsTightOnGrid(t *testing.T) {
	cases := []struct {
		name  string
		p     []float64
		kinks []float64
	}{
		{"sigmoid", nil, nil}, {"tanh", nil, nil}, {"sin", nil, nil}, {"cos", nil, nil}, {"atan", nil, nil}, {"erf", nil, nil},
		{"mcp", []float64{1, 2}, []float64{0}}, {"mcp", []float64{0.5, 4}, []float64{0}},
		{"scad", []float64{1, 3.7}, []float64{0, -1, 1, -3.7, 3.7}}, {"scad", []float64{2, 2.5}, []float64{0, -2, 2, -5, 5}},
	}
	for _, c := range cases {
		f := lookup(t, c.name)
		p := f.PropsFor(c.p)
		// One-sided limits at 0, where mcp and scad have their kink.
		lip := max(math.Abs(f.Deriv(1e-300, c.p)), math.Abs(f.Deriv(-1e-300, c.p)))
		wc := 0.0
		const h = 1e-5
		for i := -200000; i <= 200000; i++ {
			z := float64(i) * 5e-5
			lip = max(lip, math.Abs(f.Deriv(z, c.p)))
			near := false
			for _, k := range c.kinks {
				near = near || math.Abs(z-k) < 2*h
			}
			if !near {
				wc = max(wc, -(f.Deriv(z+h, c.p)-f.Deriv(z-h, c.p))/(2*h))
			}
		}
		assert.InEpsilon(t, p.Lipschitz, lip, 1e-9, "%s%v Lipschitz", c.name, c.p)
		assert.InEpsilon(t, p.WeakConvexity, wc, 1e-6, "%s%v weak convexity", c.name, c.p)
	}
	assert.InEpsilon(t, 1/(6*math.Sqrt(3)), lookup(t, "sigmoid").Props.WeakConvexity, 1e-15)
	assert.InEpsilon(t, 4/(3*math.Sqrt(3)), lookup(t, "tanh").Props.WeakConvexity, 1e-15)
	// erf'' peaks at 1/sqrt 2, atan'' at 1/sqrt 3: the closed forms.
	assert.InEpsilon(t, 2*math.Sqrt(2/math.Pi)*math.Exp(-0.5), -(lookup(t, "erf").Deriv(1/math.Sqrt2+1e-6, nil)-lookup(t, "erf").Deriv(1/math.Sqrt2-1e-6, nil))/2e-6, 1e-8)
	assert.InEpsilon(t, 3*math.Sqrt(3)/8, -(lookup(t, "atan").Deriv(1/math.Sqrt(3)+1e-6, nil)-lookup(t, "atan").Deriv(1/math.Sqrt(3)-1e-6, nil))/2e-6, 1e-8)
}

// Smooth atoms have a continuous derivative, also across their breakpoints;
// the others have a jump at one of their kinks.
func TestSmoothMeansContinuousDerivative(t *testing.T) {
	for _, a := range atoms {
		f := lookup(t, a.name)
		jump := 0.0
		for _, z := range append([]float64{0.5, 1, 2}, a.kinks...) {
			if z <= a.lo || a.below != 0 && z >= a.below {
				continue
			}
			jump = max(jump, math.Abs(f.Deriv(z+1e-9, a.p)-f.Deriv(z-1e-9, a.p)))
		}
		if f.Props.Smooth {
			assert.Less(t, jump, 1e-6, a.name)
		} else if a.name != "sqrt" { // sqrt is not differentiable at the end of its domain
			assert.Greater(t, jump, 0.1, a.name)
		}
	}
}

func TestPropsFor(t *testing.T) {
	p := lookup(t, "mcp").PropsFor([]float64{2, 4})
	assert.Equal(t, 2.0, p.Lipschitz)
	assert.Equal(t, 0.25, p.WeakConvexity)
	assert.False(t, p.Convex || p.Smooth)
	p = lookup(t, "scad").PropsFor([]float64{0.5, 3})
	assert.Equal(t, 0.5, p.Lipschitz)
	assert.Equal(t, 0.5, p.WeakConvexity)
	p = lookup(t, "huber").PropsFor([]float64{0.1})
	assert.True(t, p.Convex && p.Smooth)
	assert.Equal(t, 1.0, p.Lipschitz)
	assert.Equal(t, lookup(t, "abs").Props, lookup(t, "abs").PropsFor(nil))
}

var powExps = []float64{0, 0.5, 1, 2, 3, 4, 5, 1.5, 2.5, 0.3, 0.9, -1, -2, -3, -0.5, -1.7}

func TestPow(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 1000 {
		z := 20*r.Float64() - 10
		assert.Equal(t, z*z, stdlib.Pow(z, 2))
		assert.Equal(t, z, stdlib.Pow(z, 1))
		assert.Equal(t, 1.0, stdlib.Pow(z, 0))
		assert.Equal(t, 2*z, stdlib.PowDeriv(z, 2))
	}
	assert.Equal(t, 1.0, stdlib.Pow(0, 0))
	assert.Equal(t, math.Sqrt(2), stdlib.Pow(2, 0.5))
	assert.Equal(t, -8.0, stdlib.Pow(-2, 3))
	assert.Equal(t, 16.0, stdlib.Pow(-2, 4))
	assert.Equal(t, -0.5, stdlib.Pow(-2, -1))
	assert.Equal(t, 12.0, stdlib.PowDeriv(-2, 3))
	assert.True(t, math.IsNaN(stdlib.Pow(-2, 0.5)))
	assert.True(t, math.IsNaN(stdlib.Pow(-2, 1.5)))
	assert.True(t, math.IsNaN(stdlib.PowDeriv(-2, 1.5)))
	assert.True(t, math.IsNaN(stdlib.PowDeriv(-2, 0.5)))
	for _, p := range []float64{1.5, 2, 3, 4, 2.5} {
		assert.Equal(t, 0.0, stdlib.PowDeriv(0, p), "p=%v", p)
	}
	assert.Equal(t, 1.0, stdlib.PowDeriv(0, 1))
	assert.Equal(t, 0.0, stdlib.PowDeriv(0, 0))
	assert.Equal(t, inf, stdlib.PowDeriv(0, 0.5))
	assert.Equal(t, inf, stdlib.PowDeriv(0, 0.3))
	assert.Equal(t, math.Inf(-1), stdlib.PowDeriv(0, -1))

	// Finite differences on the domain, away from 0.
	for _, p := range powExps {
		lo := -10.0
		if p != math.Trunc(p) {
			lo = 0
		}
		for n := 0; n < 200; {
			z := lo + (10-lo)*r.Float64()
			if math.Abs(z) < 0.05 {
				continue
			}
			n++
			h := 1e-6 * max(1, math.Abs(z))
			fd := (stdlib.Pow(z+h, p) - stdlib.Pow(z-h, p)) / (2 * h)
			d := stdlib.PowDeriv(z, p)
			assert.LessOrEqual(t, relerr(fd, d), 1e-6, "d/dz %v^%v = %v, finite difference %v", z, p, d, fd)
		}
	}
}

func TestPowProps(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, p := range powExps {
		props := stdlib.PowProps(p)
		// The domain: all of R, or z >= 0 for a non-integer p, or z > 0
		// (z != 0) for p < 0; for a negative integer p the claims are about
		// R \ {0}, so check each half line and across 0.
		lo := -inf
		if p != math.Trunc(p) || p < 0 {
			lo = 0
		}
		checkProps(t, fmt.Sprintf("z^%v", p), func(z float64) float64 { return stdlib.Pow(z, p) }, props, lo, 5, r)
		if p < 0 && p == math.Trunc(p) {
			assert.False(t, props.Convex || props.Concave || props.Monotone != 0 || !math.IsInf(props.WeakConvexity, 1), "z^%v", p)
		}
		// The special cases agree with the atoms.
		switch p {
		case 0.5:
			assert.Equal(t, lookup(t, "sqrt").Props, props)
		case 2:
			assert.Equal(t, lookup(t, "square").Props, props)
		}
	}
	assert.Equal(t, stdlib.Props{Smooth: true, Lipschitz: inf, WeakConvexity: inf, Monotone: 1}, stdlib.PowProps(3))
	assert.True(t, math.IsNaN(stdlib.PowProps(math.NaN()).Lipschitz))
}

// TestValueDeriv: ValueDeriv, which the compiled program calls, agrees
// exactly with Scalar and Deriv for every elementwise function.
func TestValueDeriv(t *testing.T) {
	params := map[string][]float64{"huber": {1}, "mcp": {1, 2}, "scad": {1, 3.7}}
	for _, name := range stdlib.Names() {
		f := stdlib.Lookup(name)
		if (f.Deriv == nil) != (f.ValueDeriv == nil) {
			t.Fatalf("%s: Deriv and ValueDeriv must be set together", name)
		}
		if f.Deriv == nil {
			continue
		}
		for _, z := range []float64{-1000, -40, -3, -0.5, 0, 0.25, 0.5, 2, 40, 1000} {
			if (name == "log" || name == "log10" || name == "sqrt") && z <= 0 || name == "log1p" && z <= -1 {
				continue
			}
			p := params[name]
			v, d := f.ValueDeriv(z, p)
			if v != f.Scalar(z, p) || d != f.Deriv(z, p) {
				t.Errorf("%s(%g): ValueDeriv gives (%g, %g), Scalar and Deriv (%g, %g)", name, z, v, d, f.Scalar(z, p), f.Deriv(z, p))
			}
		}
	}
}

// logsumexp against closed forms, where the naive formula overflows or
// underflows, and its gradient (softmax) against the same.
func TestLogSumExp(t *testing.T) {
	f := lookup(t, "logsumexp")
	ln := math.Log
	cases := []struct {
		v    []float64
		want float64
		grad []float64
	}{
		{[]float64{0, 0}, ln(2), []float64{0.5, 0.5}},
		{[]float64{ln(1), ln(2), ln(3)}, ln(6), []float64{1.0 / 6, 2.0 / 6, 3.0 / 6}},
		{[]float64{1000, 1000}, 1000 + ln(2), []float64{0.5, 0.5}},    // e^1000 overflows
		{[]float64{-1000, -1000}, -1000 + ln(2), []float64{0.5, 0.5}}, // e^-1000 underflows to 0
		{[]float64{5}, 5, []float64{1}},
		{[]float64{0, math.Inf(-1)}, 0, []float64{1, 0}},
		{[]float64{1, math.Inf(1), math.Inf(1)}, math.Inf(1), []float64{0, 0.5, 0.5}},
		{[]float64{math.Inf(-1), math.Inf(-1)}, math.Inf(-1), []float64{0.5, 0.5}},
	}
	for _, c := range cases {
		got := f.Reduce(c.v)
		if math.IsInf(c.want, 0) {
			assert.Equal(t, c.want, got, "%v", c.v)
		} else {
			assert.InDelta(t, c.want, got, 1e-12*max(1, math.Abs(c.want)), "%v", c.v)
		}
		g := make([]float64, len(c.v))
		f.Grad(c.v, g)
		assert.InDeltaSlice(t, c.grad, g, 1e-15, "gradient at %v", c.v)
	}
	assert.True(t, math.IsNaN(f.Reduce([]float64{1, math.NaN()})))
	p := f.Props
	assert.True(t, p.Convex && p.Smooth)
	assert.Equal(t, 1.0, p.Lipschitz)
}

// sin, cos, tan, atan, erf, log10 and prod against closed forms.
func TestTrigAndFriends(t *testing.T) {
	v := func(name string, z float64) float64 { return lookup(t, name).Scalar(z, nil) }
	d := func(name string, z float64) float64 { return lookup(t, name).Deriv(z, nil) }
	assert.InDelta(t, 1, v("sin", math.Pi/2), 1e-15)
	assert.InDelta(t, math.Sqrt(3)/2, v("cos", math.Pi/6), 1e-15)
	assert.InDelta(t, 1, v("tan", math.Pi/4), 1e-15)
	assert.InDelta(t, 2, d("tan", math.Pi/4), 1e-14) // 1 + tan^2
	assert.InDelta(t, math.Pi/4, v("atan", 1), 1e-15)
	assert.InDelta(t, 0.5, d("atan", 1), 1e-15)
	assert.InDelta(t, 0.8427007929497149, v("erf", 1), 1e-15) // erf(1), Abramowitz & Stegun table 7.1
	assert.InDelta(t, 2/math.Sqrt(math.Pi), d("erf", 0), 1e-15)
	assert.Equal(t, 0.0, d("erf", 40)) // underflows, no NaN
	assert.Equal(t, 3.0, v("log10", 1000))
	assert.InDelta(t, 1/(100*math.Ln10), d("log10", 100), 1e-18)
	assert.Equal(t, -1.0, d("cos", math.Pi/2)) // -sin
	assert.True(t, math.IsNaN(v("log10", -1)))

	prod := lookup(t, "prod")
	assert.Equal(t, 24.0, prod.Reduce([]float64{1, 2, 3, 4}))
	assert.Equal(t, 1.0, prod.Reduce([]float64{}))
	g := make([]float64, 4)
	prod.Grad([]float64{1, 2, 3, 4}, g)
	assert.Equal(t, []float64{24, 12, 8, 6}, g)
	// At a zero only that element's entry is nonzero; with two zeros none is.
	prod.Grad([]float64{2, 0, 3, 5}, g)
	assert.Equal(t, []float64{0, 30, 0, 0}, g)
	prod.Grad([]float64{0, 0, 3, 5}, g)
	assert.Equal(t, []float64{0, 0, 0, 0}, g)
	assert.True(t, stdlib.IsComprehension("prod"))
	// The gradient against central differences at random vectors.
	r := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		v := randVec(r)
		g := make([]float64, len(v))
		prod.Grad(v, g)
		for j := range v {
			h := 1e-6 * max(1, math.Abs(v[j]))
			w := slices.Clone(v)
			w[j] = v[j] + h
			up := prod.Reduce(w)
			w[j] = v[j] - h
			fd := (up - prod.Reduce(w)) / (2 * h)
			assert.LessOrEqual(t, relerr(fd, g[j]), 1e-6, "prod grad at %v, element %d: %v, finite difference %v", v, j, g[j], fd)
		}
	}
}
