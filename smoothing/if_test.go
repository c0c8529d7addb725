package smoothing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A conditional on the variables is a kink that none of the smoothed
// forms takes: the smoothing, the dual oracle's pieces and the separable
// form each refuse it with the reason and its position, so that the
// automatic choice of an oracle falls back (to the bundle oracle).
func TestConditionalRefused(t *testing.T) {
	const src = "var x[2] in box(-1, 1)\nminimize abs(x[2]) + (if x[1] > 0 then x[1] else -x[1] / 2)\n"
	m := load(t, src)
	s, why, err := New(m)
	require.NoError(t, err)
	assert.Nil(t, s)
	assert.Contains(t, why, "a conditional (if) whose condition depends on the variables is not smoothed")
	assert.Contains(t, why, ":2:")
	pm, why, err := Pieces(m)
	require.NoError(t, err)
	assert.Nil(t, pm)
	assert.Regexp(t, `:2:\d+: a conditional \(if\) on the variables is not written out as pieces`, why)
	sf, why, err := Separable(m)
	require.NoError(t, err)
	assert.Nil(t, sf)
	assert.NotEmpty(t, why)

	// a kink inside a conditional on an index only
	m = load(t, "var x[2] in box(-1, 1)\nminimize sum(j in 1..2) (if j == 1 then abs(x[j]) else x[j]^2)\n")
	s, why, err = New(m)
	require.NoError(t, err)
	assert.Nil(t, s)
	assert.Contains(t, why, "a kink inside a conditional (if) is not smoothed")
}
