package smoothing

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
)

// The smoothed and tangent programs do not disturb the exact program's
// values: evaluations interleaved give the same exact values.
func TestInterleavedPrograms(t *testing.T) {
	m := load(t, kinky)
	exact, err := autodiff.Compile(m)
	require.NoError(t, err)
	s, _, err := New(m)
	require.NoError(t, err)
	nf := len(exact.Functions())
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float64, exact.NumVars())
	for j := range x {
		x[j] = 0.3 * rng.NormFloat64()
	}
	before, after, v := make([]float64, nf), make([]float64, nf), make([]float64, nf)
	require.NoError(t, exact.Eval(x, before))
	s.SetMu(1e-6)
	require.NoError(t, s.Eval(x, v))
	require.NoError(t, s.Tangent(x, v))
	require.NoError(t, exact.Eval(x, after))
	require.Equal(t, before, after)
}
