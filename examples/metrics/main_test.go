package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Four rows counted by hand: scores 2, -1, 0.5, -3 with w = 1, b = 0 give
// predictions +, -, +, -; labels +, +, -, - make one false negative (row 2)
// and one false positive (row 3).
func TestMeasure(t *testing.T) {
	X := []float64{2, -1, 0.5, -3}
	y := []float64{1, 1, -1, -1}
	g := []float64{0, 0, 1, 1}
	m := measure(X, 1, y, []float64{1}, 0, g)
	assert.Equal(t, 4, m.Rows)
	assert.Equal(t, 0.5, m.Accuracy)
	assert.Equal(t, 0.5, m.FPR)
	assert.Equal(t, 0.5, m.FNR)
	assert.Equal(t, map[string]float64{"0": 0.5, "1": 0.5}, m.PosRate)
	assert.Equal(t, 0.0, m.ParityGap)
	// a bias of 1.5 gives scores 3.5, 0.5, 2, -1.5: predictions +, +, +, -
	m = measure(X, 1, y, []float64{1}, 1.5, g)
	assert.Equal(t, 0.75, m.Accuracy)
	assert.Equal(t, 0.5, m.FPR)
	assert.Equal(t, 0.0, m.FNR)
	assert.Equal(t, 0.5, m.ParityGap) // group 0: 2/2, group 1: 1/2
}
