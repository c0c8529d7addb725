package main_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hock & Schittkowski's problem 29, min -x1 x2 x3 s.t. x1^2 + 2 x2^2 +
// 4 x3^2 <= 48, has its minimum -16 sqrt 2 at (4, 2 sqrt 2, 2) (and at
// its sign changes in two coordinates). The smooth oracle alone stalls a
// KKT residual of 4e-6 short of the tolerance 1e-6 there; the Newton
// polish brings it down, and the point is certified converged by the KKT
// residual at it.
func TestNewtonPolishCertifiesHS029(t *testing.T) {
	type out struct {
		Status         string             `json:"status"`
		Objective      float64            `json:"objective"`
		Infeasibility  float64            `json:"infeasibility"`
		KKTResidual    *float64           `json:"kkt_residual"`
		KKTTolerance   *float64           `json:"kkt_tolerance"`
		NewtonPolishes int                `json:"newton_polishes"`
		Variables      map[string]float64 `json:"variables"`
	}
	model, err := filepath.Abs(filepath.Join("..", "..", "hs", "models", "hs029.qrc"))
	require.NoError(t, err)
	s, r := jsonOut[out](t, false, "solve", "--quiet", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	assert.Positive(t, s.NewtonPolishes)
	require.NotNil(t, s.KKTResidual)
	require.NotNil(t, s.KKTTolerance)
	assert.LessOrEqual(t, *s.KKTResidual, *s.KKTTolerance)
	assert.LessOrEqual(t, s.Infeasibility, 1e-6)
	assert.InDelta(t, -16*math.Sqrt2, s.Objective, 1e-6)
	x := []float64{math.Abs(s.Variables["x1"]), math.Abs(s.Variables["x2"]), math.Abs(s.Variables["x3"])}
	for j, want := range []float64{4, 2 * math.Sqrt2, 2} {
		assert.InDelta(t, want, x[j], 1e-6, "x%d", j+1)
	}
}
