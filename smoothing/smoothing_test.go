package smoothing

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
)

func load(t *testing.T, src string) *check.Model {
	t.Helper()
	m, _, d := modelfile.LoadSource("t.qrc", []byte(src), check.Options{Dir: filepath.Join("..", "examples")})
	require.NoError(t, d.Err())
	return m
}

// A model with hinge, pos, abs and mcp kinks of affine scores.
const kinky = `
data d = csv("data/german.csv", label = "good")
var w[d.d] in box(-1, 1)
var b in box(-1, 1)
func score(i) = dot(d.X[i], w) + b
minimize mean(i in d where d.y[i] == -1) hinge(-score(i)) + 0.1 * sum(j in 1..d.d) mcp(w[j], 0.05, 3) + 0.01 * abs(b)
subject to
    c: mean(i in d where d.y[i] == 1) pos(1 - score(i)) / 2 <= 0.3
`

// At random points, for mu from 1 down to 1e-9: the smoothed functions lie
// above the exact ones and within the band's bound of them (pos: mu/8 per
// unit coefficient, abs mu/4), the tangent values below them; their
// gradient is the finite-difference one; and both tend to the exact
// values as mu goes to 0.
func TestSmoothingBounds(t *testing.T) {
	m := load(t, kinky)
	s, why, err := New(m)
	require.NoError(t, err)
	require.NotNil(t, s, why)
	exact, err := autodiff.Compile(m)
	require.NoError(t, err)
	n := exact.NumVars()
	nf := len(exact.Functions())
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, n)
	f, fm, tv := make([]float64, nf), make([]float64, nf), make([]float64, nf)
	// the largest total coefficient of the kinks' smoothing error, per unit mu:
	// f0: hinge mu/8 + 0.1 * 58 * 0.05 * mu/4 + 0.01 mu/4; f1: mu/16
	bound := []float64{1.0/8 + 0.1*float64(n-1)*0.05/4 + 0.01/4, 1.0 / 16}
	for trial := 0; trial < 5; trial++ {
		for j := range x {
			x[j] = 0.3 * rng.NormFloat64()
		}
		require.NoError(t, exact.Eval(x, f))
		for _, mu := range []float64{1, 1e-2, 1e-5, 1e-9} {
			s.SetMu(mu)
			require.NoError(t, s.Eval(x, fm))
			require.NoError(t, s.Tangent(x, tv))
			for i := range f {
				assert.GreaterOrEqual(t, fm[i], f[i]-1e-12, "f_mu >= f (f%d, mu %g)", i, mu)
				assert.LessOrEqual(t, fm[i]-f[i], bound[i]*mu+1e-12, "f_mu - f within the bound (f%d, mu %g)", i, mu)
				assert.LessOrEqual(t, tv[i], f[i]+1e-12, "tangent value <= f (f%d, mu %g)", i, mu)
			}
		}
		// the gradient at mu = 0.05 against central differences
		s.SetMu(0.05)
		for i := 0; i < nf; i++ {
			w := make([]float64, nf)
			w[i] = 1
			g := make([]float64, n)
			require.NoError(t, s.Eval(x, fm))
			require.NoError(t, s.Grad(w, g))
			for _, j := range []int{0, 7, n - 1} {
				h := 1e-6
				xp := append([]float64(nil), x...)
				xp[j] += h
				require.NoError(t, s.Eval(xp, fm))
				up := fm[i]
				xp[j] -= 2 * h
				require.NoError(t, s.Eval(xp, fm))
				fd := (up - fm[i]) / (2 * h)
				assert.InDelta(t, fd, g[j], 1e-5*(1+math.Abs(fd)), "d f%d / d x%d", i, j)
			}
		}
	}
}

// The tangent value is that of an affine minorant: for pos at t with
// slope s = pos_mu'(t), pos(r) >= tau(t) + s (r - t) for all r; the same
// for abs and hinge.
func TestTangentMinorants(t *testing.T) {
	for _, name := range []string{"pos", "abs", "hinge"} {
		k := kinks[name]
		for _, mu := range []float64{1, 0.1} {
			for t0 := -1.5; t0 <= 1.5; t0 += 0.01 {
				_, d, tan := k.smooth(t0, mu, nil)
				for r := -3.0; r <= 3; r += 0.05 {
					exact := map[string]float64{"pos": math.Max(0, r), "abs": math.Abs(r), "hinge": math.Max(0, 1-r)}[name]
					require.GreaterOrEqual(t, exact, tan+d*(r-t0)-1e-12, "%s at t %g, r %g, mu %g", name, t0, r, mu)
				}
			}
		}
	}
}

// Models that are not smoothable say why.
func TestNotSmoothable(t *testing.T) {
	for src, want := range map[string]string{
		"var x in box(-1, 1)\nminimize -abs(x)":                "negative|other than",
		"var x in box(-1, 1)\nminimize abs(x^2 - 1)":           "not affine",
		"var x[2] in box(-1, 1)\nminimize max(j in 1..2) x[j]": "not smoothed|other than",
		"var x in box(-1, 1)\nminimize abs(x) - abs(x - 1)":    "subtracted",
		"var x in box(-1, 1)\nminimize x^2":                    "no kink",
		"var x in box(-1, 1)\nminimize log(2 + abs(x))":        "enters log",
	} {
		s, why, err := New(load(t, src))
		require.NoError(t, err)
		assert.Nil(t, s, src)
		assert.Regexp(t, want, why, src)
	}
}
