package main_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// facilityModel is a minimax facility location outside a disk: 20
// weighted demand points, the facility at (x, y) in [0, 10]^2 outside the
// disk of radius 2.5 around (5, 5), started at (9, 1). Its global minimum,
// by a grid of step 0.005 over the box (6.26498 at (3, 6.5)) refined five
// times around the best point, is f* = 6.2647420691 at (2.99965, 6.49954);
// from (9, 1) a local method ends at another local minimum near 7.83.
const facilityModel = `param px = [1, 2, 9, 8, 5, 3, 7, 1, 9, 4, 6, 2, 8, 5, 3, 7, 6, 4, 2, 8]
param py = [1, 8, 2, 9, 5, 3, 7, 5, 5, 9, 1, 2, 8, 7, 6, 3, 4, 1, 9, 6]
param wt = [1, 1.2, 0.8, 1, 1.5, 0.9, 1.1, 1, 0.7, 1.3, 1, 0.9, 1.2, 1, 0.8, 1.1, 1, 0.9, 1.2, 1]
var x in box(0, 10) = 9
var y in box(0, 10) = 1
minimize max(i in 1..20) wt[i] * sqrt((x - px[i])^2 + (y - py[i])^2)
subject to
    outside: 2.5^2 - (x - 5)^2 - (y - 5)^2 <= 0
`

type startsJSON struct {
	solveResult
	Multistart *struct {
		Starts []struct {
			Status    string  `json:"status"`
			Objective float64 `json:"objective"`
		} `json:"starts"`
		Returned  int `json:"returned"`
		Solutions []struct {
			Objective float64 `json:"objective"`
			Starts    int     `json:"starts"`
		} `json:"solutions"`
	} `json:"multistart"`
}

// --starts 8 solves from the given start and 7 random points of the domain
// and returns the global minimum, where the given start alone ends at a
// local one; the result lists every start and the distinct solutions.
func TestStartsFindTheGlobalMinimum(t *testing.T) {
	const fstar = 6.2647420691
	dir := t.TempDir()
	model := filepath.Join(dir, "facility.qrc")
	require.NoError(t, os.WriteFile(model, []byte(facilityModel), 0o644))

	one, r := jsonOut[startsJSON](t, false, "solve", "--quiet", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Greater(t, one.Objective, fstar+1, "the given start alone ends at a local minimum")
	assert.Nil(t, one.Multistart)

	s, r := jsonOut[startsJSON](t, false, "solve", "--quiet", "--starts", "8", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	assert.Equal(t, 0.0, s.Infeasibility)
	// eps = 1e-3 for a nonsmooth model: the stationarity the status claims
	assert.LessOrEqual(t, math.Abs(s.Objective-fstar), 1e-3*fstar, "f = %v", s.Objective)
	require.NotNil(t, s.Multistart)
	require.Len(t, s.Multistart.Starts, 8)
	assert.InDelta(t, one.Objective, s.Multistart.Starts[0].Objective, 1e-12, "the given start first, solved as alone")
	require.NotEmpty(t, s.Multistart.Solutions)
	assert.InDelta(t, s.Objective, s.Multistart.Solutions[0].Objective, 1e-3*fstar, "the lowest solution is the one returned")
	assert.GreaterOrEqual(t, len(s.Multistart.Solutions), 2, "the local minimum of the given start and the global one")
	total := 0
	for _, sol := range s.Multistart.Solutions {
		total += sol.Starts
	}
	assert.LessOrEqual(t, total, 8)

	r = qrc(t, "", "solve", "--starts", "0", model)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--starts must be between 1 and")
}
