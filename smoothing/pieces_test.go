package smoothing

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
)

// A model of hinge, pos and abs of affine scores with affine rests, a
// nested sum and a row ball.
const piecewiseModel = `
data d = csv("data/german.csv", label = "good")
var w[d.d] in ball(2)
var V[2, 3] in ball(1, rows)
var b in box(-1, 1)
func score(i) = dot(d.X[i], w) + b
minimize mean(i in d where d.y[i] == -1) hinge(-score(i)) + 0.01 * abs(b - 0.5) + sum(k in 1..2) pos(V[k, 1] - V[k, 2]) - 0.2 * b
subject to
    c: mean(i in d where d.y[i] == 1) pos(1 - score(i)) / 2 + 3 * V[1, 3] <= 0.3
    e: sum(k in 1..2) abs(V[k, 2] + 0.1) <= 0.5
`

// The pieces' values agree with the compiled functions at random points
// (an independent evaluation of the same model), and the domain's
// projection is X's.
func TestPiecesValues(t *testing.T) {
	m := load(t, piecewiseModel)
	pm, why, err := Pieces(m)
	require.NoError(t, err)
	require.NotNil(t, pm, why)
	require.NotNil(t, pm.X)
	prog, err := autodiff.Compile(m)
	require.NoError(t, err)
	n := prog.NumVars()
	require.Equal(t, n, pm.N)
	require.Equal(t, len(prog.Functions())-1, pm.M)
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, n)
	want, got := make([]float64, pm.M+1), make([]float64, pm.M+1)
	for k := 0; k < 20; k++ {
		for j := range x {
			x[j] = 2*rng.Float64() - 1
		}
		require.NoError(t, prog.Eval(x, want))
		pm.Values(x, got)
		for i := range want {
			assert.InDelta(t, want[i], got[i], 1e-12*(1+math.Abs(want[i])), "function %d at point %d", i, k)
		}
	}
	// the projection: w scaled into its ball, each row of V into its own,
	// b clamped
	for j := range x {
		x[j] = 5
	}
	pm.X.Project(x)
	for _, v := range m.Vars {
		y := append([]float64(nil), x[v.Offset:v.Offset+v.Size]...)
		want := append([]float64(nil), y...)
		for j := range want {
			want[j] = 5
		}
		v.Domain.Project(want)
		for j := range y {
			assert.InDelta(t, want[j], y[j], 1e-12, "%s[%d]", v.Name, j)
		}
	}
}

// A model with a kink the dual cannot take says which and where.
func TestPiecesRefuses(t *testing.T) {
	pm, why, err := Pieces(load(t, kinky))
	require.NoError(t, err)
	assert.Nil(t, pm)
	assert.Contains(t, why, "mcp is not piecewise linear")
	pm, why, err = Pieces(load(t, strings.Replace(piecewiseModel, "- 0.2 * b", "+ b^2", 1)))
	require.NoError(t, err)
	assert.Nil(t, pm)
	assert.Contains(t, why, "not affine")
}
