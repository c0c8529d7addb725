package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJacobianSerial: a model of many indexed constraints without data
// rows takes jacSerial, which runs each function's reverse pass over its
// own instructions only; its rows are bit for bit those of one Gradient per
// function, kinks (abs, max), shared subexpressions and functions included.
// A constraint whose subgradient is not finite is still diagnosed.
func TestJacobianSerial(t *testing.T) {
	t.Parallel()
	src := `var x[6] in box(-2, 2)
func h(u) = abs(u) + max(u, 0.5 * u)
minimize sum(j in 1..6) h(x[j]) + norm2(x)
subject to
    c[k in 1..50, l in 1..6]: h(x[l] - k / 50) + x[1] * x[l] + exp(-x[3])^2 <= 1
    d: norm1(x) <= 4
`
	m, p, err := compileSource(t, src, nil)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(41, 42))
	for range 3 {
		x := randomPoint(m, rng)
		want := evalAll(t, p, x)
		before := p.jac.serialRuns
		got := jacobianOf(t, p, x)
		require.Equal(t, before+1, p.jac.serialRuns, "the serial path was taken")
		require.Len(t, got, 302+1)
		for i := range want {
			for j := range want[i] {
				require.Equal(t, math.Float64bits(want[i][j]), math.Float64bits(got[i][j]), "row %d, element %d", i, j)
			}
		}
	}

	_, q, err := compileSource(t, "var x[2] in box(-2, 2) = 0\nminimize x[1]\nsubject to\n    c[k in 1..3]: sqrt(x[2]) <= k\n", nil)
	require.NoError(t, err)
	vals := make([]float64, 4)
	require.NoError(t, q.Eval([]float64{0, 0}, vals))
	rows := make([][]float64, 4)
	for f := range rows {
		rows[f] = make([]float64, 2)
	}
	err = q.Jacobian(rows)
	require.Error(t, err, "sqrt's derivative at 0 is infinite")
	var ee *EvalError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, 4, ee.Pos.Line, "the error names the constraint's expression")
}
