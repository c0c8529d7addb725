package main_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The two linear programs a user wrote as nonsmooth models (issue 40),
// shipped as examples: auto picks the epigraph oracle, and the solve is
// converged, feasible, within 1e-9 relative of HiGHS's optimum
// (nonsmooth/ref/lp.py, TestLPReference checks these numbers against
// HiGHS when SciPy is at hand), in a handful of outer steps.
func TestEpigraphLinearPrograms(t *testing.T) {
	for _, tc := range []struct {
		file  string
		fstar float64
	}{
		{"control.qrc", 1.3793103448275867},
		{"newsvendor.qrc", -457.97871142482734},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, r := jsonOut[struct {
				solveResult
				Outer int `json:"outer_iterations"`
			}](t, false, "solve", "--quiet", "examples/"+tc.file)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "converged", s.Status)
			assert.Equal(t, "epigraph", s.Settings.Oracle)
			assert.LessOrEqual(t, s.Infeasibility, 1e-9)
			assert.LessOrEqual(t, math.Abs(s.Objective-tc.fstar), 1e-9*math.Abs(tc.fstar), "f = %v", s.Objective)
			assert.LessOrEqual(t, s.Outer, 5)
		})
	}
}

// An infeasible linear program is called infeasible with the proof, the
// constraints in conflict named, and no restarts (no start can help).
func TestEpigraphInfeasibleProof(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "inf.qrc")
	require.NoError(t, os.WriteFile(model, []byte(`var x in box(-5, 5)
var y in box(-5, 5)
minimize abs(x) + abs(y)
subject to
    low: x + y <= -4
    high: x - y >= 3
    far: y >= 2
`), 0o644))
	r := qrc(t, "", "solve", "--quiet", model)
	out := r.stdout
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, out, "status         infeasible")
	assert.Contains(t, out, "verdict        infeasible: the constraints are a linear program with no feasible point in X")
	assert.Contains(t, out, "no start can change that")
	assert.NotContains(t, out, "restart")
	verdict := out[strings.Index(out, "verdict"):]
	verdict = verdict[:strings.Index(verdict, "\n")]
	for _, name := range []string{"low", "high", "far"} {
		assert.Contains(t, verdict, name)
	}
}

// A chained nonsmooth problem of the large-scale set at n = 1000 (chained
// CB3 I of Haarala, Miettinen and Mäkelä, f* = 2 (n - 1)): auto lifts
// its 999 maxima of three smooth pieces and solves it by SQP steps to f*
// within 1e-6 relative, converged.
func TestEpigraphChainedLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("a solve at n = 1000")
	}
	s, r := jsonOut[solveResult](t, false, "solve", "--quiet", "--set", "n=1000", "nonsmooth/models/large/chained_cb3_1.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	assert.Equal(t, "epigraph", s.Settings.Oracle)
	assert.LessOrEqual(t, math.Abs(s.Objective-1998), 1998e-6, "f = %v", s.Objective)
}

// --oracle epigraph on a model it cannot take is refused before the
// solve, saying why and where (exit 1): a ball domain is not a box.
func TestEpigraphRefusesABall(t *testing.T) {
	model := filepath.Join(t.TempDir(), "ball.qrc")
	require.NoError(t, os.WriteFile(model, []byte("var x[2] in ball(3)\nminimize abs(x[1] - 1) + pos(x[2])\n"), 0o644))
	r := qrc(t, "", "solve", "--oracle", "epigraph", model)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "--oracle epigraph needs every function to be a kink-free rest plus maxima, pos, abs, hinge and norms")
	assert.Contains(t, r.stderr, "ball.qrc:1:5: the domain of x is not a box")
}
