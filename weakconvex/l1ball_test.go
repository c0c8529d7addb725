package weakconvex

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The l1 ball of radius r has Euclidean diameter 2r (attained at ±r e_1;
// ||x - y||_2 <= ||x - y||_1 <= 2r) and an affine <a, x> ranges over
// ±r max|a_i| on it (the dual norm), so M and the ranges are finite.
func TestL1BallBounded(t *testing.T) {
	m := loadModel(t, "var w[3] in l1ball(2)\nminimize abs(w[1] - 3 * w[2]) + w[3]\n")
	r := Analyze(m)
	require.NoError(t, r.Err)
	assert.InEpsilon(t, 4, r.D, 1e-12)
	f := r.Functions[0]
	assert.True(t, f.Weak)
	// w[1] - 3 w[2] ranges over ±2·3, so abs over [0, 6]; w[3] over ±2;
	// the sum by interval arithmetic over [-2, 8]
	assert.InEpsilon(t, 8, f.Range.Hi, 1e-12)
	assert.InEpsilon(t, -2, f.Range.Lo, 1e-12)
	// M: ||(1, -3)|| for the abs plus 1 for w[3]
	assert.InEpsilon(t, 1+math.Sqrt(10), f.M, 1e-12)
}
