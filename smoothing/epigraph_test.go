package smoothing

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
)

// A model of every kink the epigraph form lifts: pos of a kink, max of
// scalars and of a vector, a max comprehension, abs, hinge, norm1 and
// norminf of lists and of variables, means over data rows, an affine
// equality and boxes.
const epigraphModel = `
data d = csv("data/german.csv", label = "good")
var w[d.d] in box(-1, 1)
var b in box(-2, 2)
var u[3]
func score(i) = dot(d.X[i], w) + b
minimize mean(i in d where d.y[i] == -1) hinge(-score(i)) + 0.5 * max(u[1] - 1, pos(u[2]) + abs(b), 2 * u[3]) + norm1(u) / 3 - 0.1 * b
subject to
    c: mean(i in d) pos(pos(1 - score(i)) - 0.5) + max(u) <= 2
    m: max(k in 1..3) (u[k] - k) + norminf([u[1] - u[2], b]) <= 1
    e: u[1] + 2 * u[2] - u[3] == 0.5
    s: sum(u) - mean(u) == 1
`

// The form's values (the epigraph variables computed in order) agree with
// the compiled functions at random points, an independent evaluation of
// the same model.
func TestEpigraphValues(t *testing.T) {
	m := load(t, epigraphModel)
	g, why, err := Epigraph(m)
	require.NoError(t, err)
	require.NotNil(t, g, why)
	require.NoError(t, g.Check())
	assert.Nil(t, g.Smooth, "every piece and rest is affine: a linear program")
	prog, err := autodiff.Compile(m)
	require.NoError(t, err)
	n := prog.NumVars()
	require.Equal(t, n, g.N)
	require.Equal(t, len(prog.Functions())-1, g.M)
	assert.Equal(t, -1.0, g.Lo[0])
	assert.Equal(t, 2.0, g.Hi[n-4]) // b's box
	assert.True(t, math.IsInf(g.Lo[n-1], -1))
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, n)
	tt := make([]float64, g.Aux)
	want, got := make([]float64, g.M+1), make([]float64, g.M+1)
	for k := 0; k < 20; k++ {
		for j := range x {
			x[j] = 3 * (2*rng.Float64() - 1)
		}
		require.NoError(t, prog.Eval(x, want))
		require.NoError(t, g.Values(x, tt, nil, got))
		for i := range want {
			assert.InDelta(t, want[i], got[i], 1e-12*(1+math.Abs(want[i])), "point %d function %d", k, i)
		}
	}
}

// Models the form cannot take are refused with the reason and position:
// a domain that is not a box, an equality that is not affine, no kink.
func TestEpigraphRefusals(t *testing.T) {
	for _, tc := range []struct{ src, why string }{
		{"var x in ball(1)\nminimize abs(x)", "the domain of x is not a box"},
		{"var x\nvar y\nminimize abs(x)\nsubject to e: abs(y) == 1", "e is an equality that is not affine"},
		{"var x\nvar y\nminimize abs(x)\nsubject to e: y^2 == 1", "e is an equality that is not affine"},
		{"var x\nminimize (x - 1)^2", "the model has no kink"},
	} {
		m := load(t, tc.src)
		g, why, err := Epigraph(m)
		require.NoError(t, err, tc.src)
		assert.Nil(t, g, tc.src)
		assert.Contains(t, why, tc.why, tc.src)
	}
}

// A kink the form cannot lift where it stands (a concave one, one inside
// a nonlinear function, a conditional) stays inside a smooth function,
// and the form says where and why (EpigraphSmooth.Kinked); its values
// still agree with the model's.
func TestEpigraphKinkedTerms(t *testing.T) {
	for _, tc := range []struct{ src, why string }{
		{"var x\nminimize -abs(x) + x^2", "2:10: a kink is negated"},
		{"var x\nvar y\nminimize abs(x) - pos(y)", "a kink is subtracted"},
		{"var x\nminimize abs(abs(x) - 1)", "2:14: a kink inside a nonlinear function"},
		{"var x\nminimize min(k in 1..2) abs(x - k)", "a min comprehension of kinks"},
		{"var x\nminimize -2 * abs(x)", "a kink with a negative coefficient"},
		{"var x\nvar y\nminimize x * abs(y)", "a kink multiplied with or divided by a term that depends on the variables"},
		{"var x\nminimize if x > 0 then x else -x", "a conditional (if) on the variables"},
		{"var x\nminimize max(log(1 + abs(x)), x)", "a kink inside a nonlinear function"},
	} {
		m := load(t, tc.src)
		g, why, err := Epigraph(m)
		require.NoError(t, err, tc.src)
		require.NotNil(t, g, "%s: %s", tc.src, why)
		require.NotNil(t, g.Smooth, tc.src)
		assert.Contains(t, g.Smooth.Kinked, tc.why, tc.src)
		prog, err := autodiff.Compile(m)
		require.NoError(t, err)
		x := make([]float64, g.N)
		want, got := make([]float64, g.M+1), make([]float64, g.M+1)
		tt, sv := make([]float64, g.Aux), make([]float64, g.Smooth.K)
		for _, v := range []float64{-1.7, 0.3, 2.5} {
			for j := range x {
				x[j] = v + float64(j)
			}
			require.NoError(t, prog.Eval(x, want))
			require.NoError(t, g.Values(x, tt, sv, got))
			assert.InDeltaSlice(t, want, got, 1e-12, tc.src)
		}
	}
}
