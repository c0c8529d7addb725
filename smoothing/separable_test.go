package smoothing

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/stdlib"
)

// Each separable kink's pieces agree with the built-in's own value
// (stdlib) at random points and at its breakpoints, scaled by the
// coefficient.
func TestSepTermPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	for _, term := range []SepTerm{
		{Name: "pos", Coef: 1}, {Name: "abs", Coef: 0.5}, {Name: "hinge", Coef: 2},
		{Name: "mcp", Coef: 1, Params: []float64{0.02, 3}}, {Name: "mcp", Coef: 3, Params: []float64{1, 1.5}},
		{Name: "scad", Coef: 1, Params: []float64{0.5, 3.7}}, {Name: "scad", Coef: 0.1, Params: []float64{2, 2.5}},
	} {
		f := stdlib.Lookup(term.Name)
		br, q := term.Pieces()
		require.Len(t, q, len(br)+1, term.Name)
		at := func(z float64) float64 {
			k := 0
			for k < len(br) && z > br[k] {
				k++
			}
			return (q[k][0]*z+q[k][1])*z + q[k][2]
		}
		zs := append([]float64(nil), br...)
		for range 200 {
			zs = append(zs, 4*rng.NormFloat64())
		}
		for _, z := range zs {
			want := term.Coef * f.Scalar(z, term.Params)
			assert.InDelta(t, want, at(z), 1e-12*(1+math.Abs(want)), "%s(%g)", term.Name, z)
		}
	}
}

// Separable finds the kinks of single variables with their variable,
// coefficient and parameters, and its rest plus the kinks is the
// compiled model at random points.
func TestSeparableForm(t *testing.T) {
	m := load(t, `
var w[3] in box(-2, 2)
var b
minimize (w[1] - 1)^2 + (w[2] + b)^2 + w[3]^2 + 0.5 * sum(j in 1..3) mcp(w[j], 0.1, 3) + abs(b) / 4
subject to
    c: w[1] + w[2] <= 1
`)
	f, why, err := Separable(m)
	require.NoError(t, err)
	require.NotNil(t, f, why)
	require.Len(t, f.Terms, 4)
	for j := 0; j < 3; j++ {
		assert.Equal(t, SepTerm{Var: j, Name: "mcp", Coef: 0.5, Params: []float64{0.1, 3}}, f.Terms[j])
		assert.Equal(t, -2.0, f.Lo[j])
		assert.Equal(t, 2.0, f.Hi[j])
	}
	assert.Equal(t, SepTerm{Var: 3, Name: "abs", Coef: 0.25}, f.Terms[3])
	assert.True(t, math.IsInf(f.Lo[3], -1) && math.IsInf(f.Hi[3], 1))
	exact, err := autodiff.Compile(m)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(30, 2))
	x, want, got := make([]float64, 4), make([]float64, 2), make([]float64, 2)
	for range 20 {
		for j := range x {
			x[j] = 2 * rng.NormFloat64()
		}
		require.NoError(t, exact.Eval(x, want))
		require.NoError(t, f.Eval(x, got))
		for _, term := range f.Terms {
			got[0] += term.Coef * stdlib.Lookup(term.Name).Scalar(x[term.Var], term.Params)
		}
		assert.InDelta(t, want[0], got[0], 1e-12*(1+math.Abs(want[0])))
		assert.Equal(t, want[1], got[1])
	}
}

// Separable refuses, saying where, a kink of more than one variable, one
// in a constraint, and one on a variable in a ball.
func TestSeparableRefuses(t *testing.T) {
	for _, c := range []struct{ src, why string }{
		{"var x[2]\nminimize x[1]^2 + abs(x[1] - x[2])\n", "t.qrc:2:19: the argument of abs is not a single variable"},
		{"var x[2]\nminimize x[1]^2 + abs(2 * x[1])\n", "t.qrc:2:19: the argument of abs is not a single variable"},
		{"var x[2]\nminimize x[1]^2 + abs(x[2])\nsubject to\n    c: pos(x[1]) <= 1\n", "constraint c has a kink"},
		{"var x[2] in ball(1)\nminimize x[1]^2 + abs(x[2])\n", "lies in a ball"},
	} {
		f, why, err := Separable(load(t, c.src))
		require.NoError(t, err)
		assert.Nil(t, f)
		assert.Contains(t, why, c.why, c.src)
	}
}
