package main_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// condResult is the part of qrc solve --json these tests read.
type condResult struct {
	Status    string         `json:"status"`
	Objective float64        `json:"objective"`
	Variables map[string]any `json:"variables"`
	Settings  struct {
		Oracle string `json:"oracle"`
	} `json:"settings"`
}

// within is the project's rule for a published optimum:
// |f - f*| <= max(1e-6, 1e-4 |f*|).
func withinOptimum(t *testing.T, got, want float64) {
	t.Helper()
	assert.LessOrEqual(t, math.Abs(got-want), math.Max(1e-6, 1e-4*math.Abs(want)), "objective %v, published optimum %v", got, want)
}

// Wolfe's function (Lukšan & Vlček 2000), written piece by piece with the
// conditional (examples/wolfe.qrc), solves from its standard start (3, 2)
// to its published optimum -8, at (-1, 0). qrc check says why the
// analysis cannot prove it weakly convex, and the solve falls back to the
// bundle oracle, the smoothing and the dual oracle's pieces refusing the
// conditional.
func TestWolfeConditional(t *testing.T) {
	r := qrc(t, "", "check", "examples/wolfe.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "not provably weakly convex: examples/wolfe.qrc:10:10: if x[1] > abs(x[2]) then")
	assert.Contains(t, r.stdout, "a conditional whose condition depends on the variables")

	s, r := jsonOut[condResult](t, false, "solve", "--quiet", "examples/wolfe.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	assert.Equal(t, "bundle", s.Settings.Oracle)
	withinOptimum(t, s.Objective, -8)
	x := vector(t, s.Variables["x"])
	require.Len(t, x, 2)
	assert.InDelta(t, -1, x[0], 1e-3)
	assert.InDelta(t, 0, x[1], 1e-3)

	// the oracle notes say why it is the bundle oracle
	r = qrc(t, "", "solve", "examples/wolfe.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "oracle bundle (auto: examples/wolfe.qrc:10:10: a conditional whose condition depends on the variables is not differentiable")
	// asked for, the smoothed oracle refuses the model with the reason
	r = qrc(t, "", "solve", "--quiet", "--oracle", "smoothed", "examples/wolfe.qrc")
	assert.Equal(t, 1, r.code, r.stdout)
	assert.Contains(t, r.stderr, "a conditional (if) whose condition depends on the variables is not smoothed")
}

// A list of expressions in a vector position: norm2([a - b, c]) is the
// Euclidean norm of the vector (a - b, c), checked, proven convex and
// solved. min over the box x in [1, 3]^2, y in [-2, 2] of
// norm2([x[1] - x[2] - 1, y]) + (x[1] - 2)^2 is 0 (x[2] = x[1] - 1 = 1,
// y = 0).
func TestListOfExpressions(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "list.qrc")
	require.NoError(t, os.WriteFile(model, []byte(`var x[2] in box(1, 3) = [3, 3]
var y in box(-2, 2) = 1.5
minimize norm2([x[1] - x[2] - 1, y]) + (x[1] - 2)^2
subject to
    ratio: sum([x[1], 2 * x[2]]) >= 4
`), 0o644))
	c, r := checkJSON(t, model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, c.Valid)
	r = qrc(t, "", "check", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "objective  weakly convex: rho <= 0")

	s, r := jsonOut[condResult](t, false, "solve", "--quiet", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	withinOptimum(t, s.Objective, 0)
	x := vector(t, s.Variables["x"])
	require.Len(t, x, 2)
	assert.InDelta(t, 2, x[0], 1e-2)
	assert.InDelta(t, 1, x[1], 1e-2)
	assert.InDelta(t, 0, s.Variables["y"], 1e-3)
}

// vector is a JSON array of numbers.
func vector(t *testing.T, v any) []float64 {
	t.Helper()
	list, ok := v.([]any)
	require.True(t, ok, "a vector: %v", v)
	out := make([]float64, len(list))
	for i, e := range list {
		out[i], ok = e.(float64)
		require.True(t, ok, "a number: %v", e)
	}
	return out
}
