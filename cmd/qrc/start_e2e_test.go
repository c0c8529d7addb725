package main_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Burer-Monteiro max-cut of a path of 12 nodes in rank 3 with no start
// given (V = 0, where the gradients of the objective and of every
// equality vanish): the solve restarts from a perturbed start instead of
// calling the model infeasible (issue 41), and ends converged, feasible to
// 1e-8, at the cut of a bipartite graph, every neighbour opposite:
// f* = -(n - 1) = -11, which is also the SDP relaxation's value.
func TestMaxCutFromZeroStart(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "maxcut.qrc")
	require.NoError(t, os.WriteFile(model, []byte(`param n = 12
param k = 3
var V[n, k] in box(-1, 1)
minimize sum(i in 1..n-1) dot(V[i], V[i + 1])
subject to
    unit[i in 1..n]: dot(V[i], V[i]) == 1
`), 0o644))
	s, r := jsonOut[solveResult](t, false, "solve", "--quiet", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	assert.LessOrEqual(t, s.Infeasibility, 1e-8)
	assert.LessOrEqual(t, math.Abs(s.Objective+11), 1e-6, "f = %v", s.Objective)
}
