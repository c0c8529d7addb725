package gradcheck

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fn is a hand-written function with its (sub)gradient.
type fn struct {
	f    func(x []float64) float64
	grad func(x, g []float64)
}

// prog is a Program made of hand-written functions. fail, when set, makes
// Eval fail at points where it returns an error; gradFail makes Gradient
// fail for the functions with a nonzero weight it lists.
type prog struct {
	n        int
	fns      []fn
	fail     func(x []float64) error
	gradFail map[int]bool
	last     []float64
	evals    int
}

func (p *prog) NumVars() int { return p.n }

func (p *prog) Eval(x, values []float64) error {
	p.evals++
	if p.fail != nil {
		if err := p.fail(x); err != nil {
			return err
		}
	}
	for i, f := range p.fns {
		values[i] = f.f(x)
	}
	p.last = append(p.last[:0], x...)
	return nil
}

func (p *prog) Gradient(w, g []float64) error {
	clear(g)
	tmp := make([]float64, p.n)
	for i, f := range p.fns {
		if w[i] == 0 {
			continue
		}
		if p.gradFail[i] {
			return errors.New("subgradient is infinite")
		}
		clear(tmp)
		f.grad(p.last, tmp)
		for j := range g {
			g[j] += w[i] * tmp[j]
		}
	}
	return nil
}

func check1(t *testing.T, p *prog, xs ...[]float64) *Report {
	t.Helper()
	pts := make([]Point, len(xs))
	for i, x := range xs {
		pts[i] = Point{Label: "p", X: x}
	}
	r, err := Check(p, len(p.fns), pts, Options{})
	require.NoError(t, err)
	return r
}

// smooth is f(x) = sum_j sin(x_j) x_{j+1} + exp(x_0) + log(1 + |x|^2).
var smooth = fn{
	f: func(x []float64) float64 {
		s, q := math.Exp(x[0]), 0.0
		for j := range x {
			if j+1 < len(x) {
				s += math.Sin(x[j]) * x[j+1]
			}
			q += x[j] * x[j]
		}
		return s + math.Log(1+q)
	},
	grad: func(x, g []float64) {
		q := 0.0
		for _, v := range x {
			q += v * v
		}
		g[0] += math.Exp(x[0])
		for j := range x {
			if j+1 < len(x) {
				g[j] += math.Cos(x[j]) * x[j+1]
				g[j+1] += math.Sin(x[j])
			}
			g[j] += 2 * x[j] / (1 + q)
		}
	},
}

func TestSmoothPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var xs [][]float64
	for range 5 {
		x := make([]float64, 6)
		for j := range x {
			x[j] = 3 * rng.NormFloat64()
		}
		xs = append(xs, x)
	}
	p := &prog{n: 6, fns: []fn{smooth}}
	r := check1(t, p, xs...)
	require.Len(t, r.Functions, 1)
	f := r.Functions[0]
	assert.False(t, r.Failed())
	assert.False(t, f.Failed)
	assert.Less(t, f.WorstError(), 1e-8)
	for _, res := range f.Results {
		assert.True(t, res.Checked())
		assert.Empty(t, res.Kinks)
		assert.Equal(t, 6, res.Compared)
	}
	// One Eval at x and two per coordinate, nothing more for a smooth function.
	assert.Equal(t, 5*(1+2*6), p.evals)
	assert.Equal(t, DefaultTol, r.Tol)
	assert.Equal(t, DefaultStep, r.Step)
}

func TestWrongGradientFails(t *testing.T) {
	// f(x) = x0^2 + 3 x1 with the factor 2 lost from the first component.
	wrong := fn{
		f:    func(x []float64) float64 { return x[0]*x[0] + 3*x[1] },
		grad: func(x, g []float64) { g[0] = x[0]; g[1] = 3 },
	}
	r := check1(t, &prog{n: 2, fns: []fn{smooth, wrong}}, []float64{0.5, 1}, []float64{2, -1})
	assert.True(t, r.Failed())
	assert.False(t, r.Functions[0].Failed)
	f := r.Functions[1]
	assert.True(t, f.Failed)
	assert.Equal(t, 1, f.Worst) // at x0 = 2 the error is largest
	res := f.Results[1]
	assert.Equal(t, 0, res.Coord)
	assert.InDelta(t, 2.0, res.AD, 1e-12)
	assert.InDelta(t, 4.0, res.FD, 1e-6)
	assert.InDelta(t, 2.0/4, res.RelErr, 1e-6) // |2 - 4| / max(1, 4)
	assert.True(t, res.Failed)
}

func TestSmallErrorWithinTolerance(t *testing.T) {
	// A gradient off by 1e-6 (relative) passes the default tolerance and
	// fails a tighter one.
	off := fn{
		f:    func(x []float64) float64 { return 10 * x[0] },
		grad: func(x, g []float64) { g[0] = 10 * (1 + 1e-6) },
	}
	p := &prog{n: 1, fns: []fn{off}}
	pts := []Point{{Label: "start", X: []float64{1}}}
	r, err := Check(p, 1, pts, Options{})
	require.NoError(t, err)
	assert.False(t, r.Failed())
	assert.InDelta(t, 1e-6, r.Functions[0].WorstError(), 1e-8)
	r, err = Check(p, 1, pts, Options{Tol: 1e-7})
	require.NoError(t, err)
	assert.True(t, r.Failed())
}

var absFn = fn{
	// |x0| + x1^2, with sign(0) = 0 as the subgradient at the kink.
	f: func(x []float64) float64 { return math.Abs(x[0]) + x[1]*x[1] },
	grad: func(x, g []float64) {
		switch {
		case x[0] > 0:
			g[0] = 1
		case x[0] < 0:
			g[0] = -1
		}
		g[1] = 2 * x[1]
	},
}

func TestKinkIsNotAFailure(t *testing.T) {
	negAbs := fn{ // -|x0|: weakly convex, kink pointing up
		f: func(x []float64) float64 { return -math.Abs(x[0]) },
		grad: func(x, g []float64) {
			if x[0] > 0 {
				g[0] = -1
			} else {
				g[0] = 1
			}
		},
	}
	maxFn := fn{ // max(x0, x1): a kink along both coordinates where they tie
		f: func(x []float64) float64 { return math.Max(x[0], x[1]) },
		grad: func(x, g []float64) {
			if x[0] >= x[1] {
				g[0] = 1
			} else {
				g[1] = 1
			}
		},
	}
	p := &prog{n: 2, fns: []fn{absFn, negAbs, maxFn}}
	r := check1(t, p, []float64{0, 1}, []float64{0.3, 0.3}, []float64{-0.5, 2})
	assert.False(t, r.Failed())

	at0 := r.Functions[0].Results[0]
	assert.True(t, at0.Checked())
	assert.True(t, at0.Nonsmooth())
	assert.Equal(t, []int{0}, at0.Kinks)
	assert.Equal(t, 1, at0.Compared)
	assert.False(t, at0.Failed)
	assert.Less(t, at0.RelErr, 1e-8) // x1 still compared

	assert.Equal(t, []int{0}, r.Functions[1].Results[0].Kinks)
	assert.Equal(t, []int{0, 1}, r.Functions[2].Results[1].Kinks)
	assert.Equal(t, 0, r.Functions[2].Results[1].Compared)
	for _, f := range r.Functions {
		assert.Empty(t, f.Results[2].Kinks, "smooth at (-0.5, 2)")
	}
}

func TestKinkNearThePointIsResolved(t *testing.T) {
	// The kink of |x0| is 5e-7 from x, inside the first interval (h = 1e-6)
	// but outside the refined one: the coordinate is compared, not skipped.
	r := check1(t, &prog{n: 2, fns: []fn{absFn}}, []float64{5e-7, 1})
	res := r.Functions[0].Results[0]
	assert.Empty(t, res.Kinks)
	assert.Equal(t, 2, res.Compared)
	assert.False(t, res.Failed)
	assert.Less(t, res.RelErr, 1e-8)
}

func TestCurvatureIsNotAKink(t *testing.T) {
	// Strong but smooth curvature: f'' = 2e3 with slope 0 at x makes the
	// one-sided differences differ by 2e-3 at h = 1e-6, above the threshold;
	// the refined steps show the gap shrinking, so it is compared.
	curved := fn{
		f:    func(x []float64) float64 { return 1e3 * (x[0] - 1) * (x[0] - 1) },
		grad: func(x, g []float64) { g[0] = 2e3 * (x[0] - 1) },
	}
	r := check1(t, &prog{n: 1, fns: []fn{curved}}, []float64{1})
	res := r.Functions[0].Results[0]
	assert.Empty(t, res.Kinks)
	assert.Equal(t, 1, res.Compared)
	assert.False(t, res.Failed)
}

func TestManyKinksAveraged(t *testing.T) {
	// Like a mean over data rows of |a_i . x - b_i|: many kinks, each
	// changing the slope a little. At random points nothing fails.
	rng := rand.New(rand.NewPCG(7, 7))
	const rows, n = 200, 8
	a := make([][]float64, rows)
	b := make([]float64, rows)
	for i := range a {
		a[i] = make([]float64, n)
		for j := range a[i] {
			a[i][j] = rng.NormFloat64()
		}
		b[i] = rng.NormFloat64()
	}
	meanAbs := fn{
		f: func(x []float64) float64 {
			s := 0.0
			for i := range a {
				d := -b[i]
				for j := range x {
					d += a[i][j] * x[j]
				}
				s += math.Abs(d*d - 1)
			}
			return s / rows
		},
		grad: func(x, g []float64) {
			for i := range a {
				d := -b[i]
				for j := range x {
					d += a[i][j] * x[j]
				}
				sg := 1.0
				if d*d-1 < 0 {
					sg = -1
				}
				for j := range x {
					g[j] += sg * 2 * d * a[i][j] / rows
				}
			}
		},
	}
	var xs [][]float64
	for range 20 {
		x := make([]float64, n)
		for j := range x {
			x[j] = rng.Float64()*4 - 2
		}
		xs = append(xs, x)
	}
	r := check1(t, &prog{n: n, fns: []fn{meanAbs}}, xs...)
	assert.False(t, r.Failed(), "worst %g", r.Functions[0].WorstError())
	kinks := 0
	for _, res := range r.Functions[0].Results {
		kinks += len(res.Kinks)
	}
	t.Logf("worst relative error %.3g, %d kinks skipped", r.Functions[0].WorstError(), kinks)
}

func TestEvalErrors(t *testing.T) {
	// log(x0): cannot be evaluated at x0 <= 0.
	logFn := fn{
		f:    func(x []float64) float64 { return math.Log(x[0]) + x[1] },
		grad: func(x, g []float64) { g[0] = 1 / x[0]; g[1] = 1 },
	}
	p := &prog{n: 2, fns: []fn{logFn, smooth}, fail: func(x []float64) error {
		if x[0] <= 0 {
			return errors.New("log of a nonpositive number")
		}
		return nil
	}}
	r := check1(t, p, []float64{-1, 0}, []float64{5e-7, 0}, []float64{2, 0})
	assert.False(t, r.Failed())
	for _, f := range r.Functions {
		res := f.Results[0]
		assert.False(t, res.Checked())
		assert.EqualError(t, res.Err, "cannot evaluate: log of a nonpositive number")
		assert.False(t, res.Failed)

		// x0 - h < 0: the coordinate is skipped for every function.
		res = f.Results[1]
		assert.True(t, res.Checked())
		assert.Equal(t, []int{0}, res.Unevaluable)
		assert.Equal(t, 1, res.Compared)
		assert.False(t, res.Failed)

		assert.Equal(t, 2, f.Results[2].Compared)
	}
	assert.Positive(t, r.Functions[0].Worst) // a checked point

	// A function whose subgradient cannot be computed is not checked there.
	p = &prog{n: 2, fns: []fn{smooth, logFn}, gradFail: map[int]bool{1: true}}
	r = check1(t, p, []float64{1, 1})
	assert.True(t, r.Functions[0].Results[0].Checked())
	assert.EqualError(t, r.Functions[1].Results[0].Err, "cannot compute the subgradient: subgradient is infinite")
	assert.Equal(t, -1, r.Functions[1].Worst)
	assert.Equal(t, 0.0, r.Functions[1].WorstError())
	assert.False(t, r.Failed())

	// NaN values count as an evaluation failure.
	nan := fn{f: func([]float64) float64 { return math.NaN() }, grad: func(x, g []float64) {}}
	r = check1(t, &prog{n: 1, fns: []fn{nan}}, []float64{0})
	assert.EqualError(t, r.Functions[0].Results[0].Err, "cannot evaluate: function 0 is NaN")
}

func TestCheckArguments(t *testing.T) {
	p := &prog{n: 2, fns: []fn{absFn}}
	_, err := Check(p, 1, []Point{{Label: "start", X: []float64{1}}}, Options{})
	assert.EqualError(t, err, `gradcheck: point "start" has 1 coordinates, the program has 2 variables`)
	_, err = Check(p, 0, nil, Options{})
	assert.Error(t, err)
}
