package main_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/qrc-lang/qrc/internal/shareddata"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --oracle dual on a piecewise-linear model with a closed-form answer,
// min |x - 2| + pos(x - 3) s.t. pos(x - 0.5) <= 0.25 over [-5, 5]:
// the constraint holds x <= 0.75, where |x - 2| is least, so x* = 0.75
// and f* = 1.25.

// solveResult is the part of `qrc solve --json` that the oracles'
// end-to-end tests read.
type solveResult struct {
	Status        string                     `json:"status"`
	Objective     float64                    `json:"objective"`
	Infeasibility float64                    `json:"infeasibility"`
	Variables     map[string]json.RawMessage `json:"variables"`
	Settings      struct {
		Oracle string `json:"oracle"`
	} `json:"settings"`
	Stages []struct {
		Rows     int     `json:"rows"`
		Fraction float64 `json:"fraction"`
		Oracle   string  `json:"oracle"`
	} `json:"stages"`
}

// scalar is the scalar variable name's value (NaN when it is not one).
func (r solveResult) scalar(name string) float64 {
	var v float64
	if json.Unmarshal(r.Variables[name], &v) != nil {
		return math.NaN()
	}
	return v
}

func TestDualOracleClosedForm(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "dual.qrc")
	require.NoError(t, os.WriteFile(model, []byte(`var x in box(-5, 5)
minimize abs(x - 2) + pos(x - 3)
subject to
    c: pos(x - 0.5) <= 0.25
`), 0o644))
	s, r := jsonOut[solveResult](t, false, "solve", "--quiet", "--oracle", "dual", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	assert.Equal(t, "dual", s.Settings.Oracle)
	assert.Equal(t, 0.0, s.Infeasibility)
	// a certified point is within Eps = 1e-3 of x*, and f is 1-Lipschitz
	assert.InDelta(t, 0.75, s.scalar("x"), 1e-3)
	assert.InDelta(t, 1.25, s.Objective, 1e-3)
	assert.GreaterOrEqual(t, s.Objective, 1.25-1e-12, "below the minimum")
}

// --oracle dual refuses a model outside its class, saying where.
func TestDualOracleRefuses(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "sq.qrc")
	require.NoError(t, os.WriteFile(model, []byte(`var x in box(-5, 5)
minimize abs(x^2 - 2)
`), 0o644))
	r := qrc(t, "", "solve", "--oracle", "dual", model)
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "--oracle dual needs")
	assert.Contains(t, r.stderr, "sq.qrc:2:10: the argument of abs is not affine")
}

// Issue 30's Neyman-Pearson hinge model on a9a.t with defaults (auto
// picks the dual oracle):
// converged, feasible, and within 1e-4 relative of 0.524743, the LP
// optimum with the ball as tangent cuts (HiGHS).
func TestDualOracleA9a(t *testing.T) {
	if testing.Short() {
		t.Skip("a solve of several seconds")
	}
	data := shareddata.Require(t, "a9a.t")
	model := filepath.Join(t.TempDir(), "a9a.qrc")
	require.NoError(t, os.WriteFile(model, []byte(fmt.Sprintf(`data test = libsvm(%q, features = 123)
param lambda = 10
param r      = 0.3
var w[test.d] in ball(lambda)
var b in box(-10, 10)
func score(i) = dot(test.X[i], w) + b
minimize mean(i in test where test.y[i] == -1) hinge(-score(i))
subject to
    pos_loss: mean(i in test where test.y[i] == 1) hinge(score(i)) <= r
`, data)), 0o644))
	// with defaults (issue 30 asks it of --oracle auto), which picks the
	// dual oracle for this piecewise-linear model
	s, r := jsonOut[solveResult](t, false, "solve", "--quiet", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "dual", s.Settings.Oracle)
	assert.Equal(t, "converged", s.Status)
	assert.Equal(t, 0.0, s.Infeasibility)
	assert.InEpsilon(t, 0.524743, s.Objective, 1e-4)
}
