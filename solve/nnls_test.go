package solve

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Columns c1 = (1,0,1), c2 = (0,1,1), b = (2,-1,1). The unconstrained least
// squares solution is (2,-1); with x >= 0 the second component is held at
// 0 and x1 minimises (x1-2)^2 + 1 + (x1-1)^2, so x1 = 3/2 and the residual
// b - Ax = (1/2, -1, -1/2) has norm sqrt(3/2). Optimality: c2 . r = -3/2 <= 0.
func TestNNLSHandSolved(t *testing.T) {
	x, res := nnls([][]float64{{1, 0, 1}, {0, 1, 1}}, []float64{2, -1, 1})
	require.Len(t, x, 2)
	assert.InDelta(t, 1.5, x[0], 1e-12)
	assert.Equal(t, 0.0, x[1])
	assert.InDelta(t, math.Sqrt(1.5), res, 1e-12)
}

// When the unconstrained solution is nonnegative it is the answer: with
// b = 2c1 + 3c2 the fit is exact.
func TestNNLSInterior(t *testing.T) {
	x, res := nnls([][]float64{{1, 0, 1}, {0, 1, 1}}, []float64{2, 3, 5})
	assert.InDelta(t, 2, x[0], 1e-12)
	assert.InDelta(t, 3, x[1], 1e-12)
	assert.InDelta(t, 0, res, 1e-12)
}

// b in the polar cone of the columns: x = 0.
func TestNNLSZero(t *testing.T) {
	x, res := nnls([][]float64{{1, 0, 1}, {0, 1, 1}}, []float64{-1, -1, -1})
	assert.Equal(t, []float64{0, 0}, x)
	assert.InDelta(t, math.Sqrt(3), res, 1e-12)
}

// Two equal columns (two constraints with the same subgradient) and a third
// one pointing away: b = (2, 2) = 2 * (1, 1); the fit is exact, the two
// equal columns carry a total weight of 2, the third is 0.
func TestNNLSDependent(t *testing.T) {
	x, res := nnls([][]float64{{1, 1}, {1, 1}, {-1, 0}}, []float64{2, 2})
	assert.InDelta(t, 0, res, 1e-12)
	assert.InDelta(t, 2, x[0]+x[1], 1e-12)
	assert.Equal(t, 0.0, x[2])
}

// No columns: the residual is ||b||.
func TestNNLSEmpty(t *testing.T) {
	x, res := nnls(nil, []float64{3, 4})
	assert.Empty(t, x)
	assert.Equal(t, 5.0, res)
}
