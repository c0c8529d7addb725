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

// The CVaR-capped portfolio of verdict_test.go with the simplex written
// as a box and an affine equality, sum(w) == 1: the bundle oracle keeps
// the equality exact (to 1e-9) and reaches the optimum of the LP of
// Rockafellar & Uryasev (gonum's simplex method, an independent
// reference). (It does not certify the point today: RhoHat comes down to
// 1/64 and the distance bound sqrt(2 gap/mu) with it stays above Eps;
// docs/solver.md says so.)
func TestAffineEqualityBesideCVaR(t *testing.T) {
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
	assert.Contains(t, []string{"converged", "stalled"}, s.Status)
	assert.Equal(t, "bundle", s.Settings.Oracle)
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
	assert.LessOrEqual(t, math.Abs(s.Objective-opt), 1e-5*math.Abs(opt))
}
