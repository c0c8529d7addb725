package main_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/internal/longtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The CVaR-capped portfolio of verdict_test.go with the simplex written
// as a box and an affine equality, sum(w) == 1: a linear program once
// its max(0, ...) terms are lifted, which auto gives the epigraph oracle;
// it keeps the equality exact (to 1e-9), reaches the optimum of the LP of
// Rockafellar & Uryasev (gonum's simplex method, an independent
// reference) to 1e-9 and certifies it. (The bundle oracle, before, came
// within 1e-5 and did not certify: RhoHat came down to 1/64 and the
// distance bound sqrt(2 gap/mu) with it stayed above Eps.)
func TestAffineEqualityBesideCVaR(t *testing.T) {
	longtest.Require(t, "an LP-checked solve of a 200-row CVaR model: minutes on a busy machine")
	dir := t.TempDir()
	data, R := cvarData(t, dir, 200)
	const alpha, c = 0.95, 10.0
	model := filepath.Join(dir, "cvar.qrc")
	require.NoError(t, os.WriteFile(model, []byte(strings.ReplaceAll(`data R = csv("DATA", label = "y")
param alpha = 0.95
param c = 10
var w[R.d] in box(0, 1)
var t in box(-100, 100)
minimize -mean(i in R) dot(R.X[i], w)
subject to
    budget: sum(w) == 1
    cvar: t + mean(i in R) max(0, -dot(R.X[i], w) - t) / (1 - alpha) <= c
`, "DATA", data)), 0o644))
	opt := cvarOptimum(t, R, alpha, c)

	type out struct {
		Status        string         `json:"status"`
		Objective     float64        `json:"objective"`
		Infeasibility float64        `json:"infeasibility"`
		Variables     map[string]any `json:"variables"`
		Constraints   []struct {
			Name       string   `json:"name"`
			Op         string   `json:"op"`
			Value      float64  `json:"value"`
			Multiplier *float64 `json:"multiplier"`
		} `json:"constraints"`
		Settings struct {
			Oracle string  `json:"oracle"`
			Eps    float64 `json:"eps"`
		} `json:"settings"`
	}
	s, r := jsonOut[out](t, false, "solve", "--quiet", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	assert.Equal(t, "epigraph", s.Settings.Oracle)
	sum := 0.0
	w, ok := s.Variables["w"].([]any)
	require.True(t, ok, "w is a vector: %v", s.Variables["w"])
	for _, v := range w {
		sum += v.(float64)
	}
	assert.LessOrEqual(t, math.Abs(sum-1), 1e-9, "sum(w) = 1 + %g", sum-1)
	require.Len(t, s.Constraints, 2)
	assert.Equal(t, "==", s.Constraints[0].Op)
	assert.LessOrEqual(t, math.Abs(s.Constraints[0].Value), 1e-9)
	assert.LessOrEqual(t, s.Infeasibility, s.Settings.Eps)
	t.Logf("objective %v, LP optimum %v, relative gap %.2g", s.Objective, opt, (s.Objective-opt)/math.Abs(opt))
	assert.LessOrEqual(t, math.Abs(s.Objective-opt), 1e-9*math.Abs(opt))
}

// A model with a kink runs the bundle oracle, which takes affine
// equalities only: the nonlinear one is refused at its ==, naming why,
// and the affine one is not named.
func TestBundleRefusesOnlyNonlinearEquality(t *testing.T) {
	path := writeModel(t, "mixed.qrc", `var x in box(-10, 10) = 0
var y in box(-10, 10) = 0
minimize abs(x - 3) + (y - 4)^2
subject to
    line: x + y == 1
    circle: x^2 + y^2 == 2
`)
	r := qrc(t, "", "solve", path)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, path+`:6:23: equality constraint "circle": the bundle oracle takes affine equalities only (this one is not affine by its form), and the smooth oracle, which takes any equality, needs a differentiable model`)
	assert.NotContains(t, r.stderr, `"line"`)
}
