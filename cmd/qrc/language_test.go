package main_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The domains l1ball(r), nonneg, box(0, inf) and box(-inf, 1) through the
// binary. The objective separates, so the solution is each variable's
// projection of its target: with c = (1.5, -0.5, 0.2),
//
//	x = proj onto {||x||_1 <= 1} of c: soft thresholding of |c| =
//	    (1.5, 0.5, 0.2) at theta = 0.5 ((1.5-t) + (0.5-t) = 1): (1, 0, 0);
//	y = max(c, 0) = (1.5, 0, 0.2);  z = max(-c, 0) = (0, 0.5, 0);  u = 1,
//
// and the objective is 0.54 + 0.25 + 2.29 + 4 = 7.08.
func TestDomainsThroughTheBinary(t *testing.T) {
	model := writeModel(t, "domains.qrc", `param c = [1.5, -0.5, 0.2]
var x[3] in l1ball(1)
var y[3] in box(0, inf)
var z[3] in nonneg
var u in box(-inf, 1)
minimize norm2(x - c)^2 + norm2(y - c)^2 + norm2(z + c)^2 + (u - 3)^2
`)
	r := qrc(t, "", "check", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "in l1ball(1)")
	assert.Contains(t, r.stdout, "in nonneg")
	assert.Contains(t, r.stdout, "in box(-inf, 1)")

	s, r := jsonOut[verdictJSON](t, false, "solve", "--quiet", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.InDelta(t, 7.08, s.Objective, 1e-3)
	want := map[string][]float64{"x": {1, 0, 0}, "y": {1.5, 0, 0.2}, "z": {0, 0.5, 0}}
	for name, w := range want {
		got := s.Variables[name].([]any)
		for i := range w {
			assert.InDelta(t, w[i], got[i].(float64), 1e-3, "%s[%d]", name, i+1)
		}
	}
	assert.InDelta(t, 1, s.Variables["u"].(float64), 1e-9)

	// the domains' random points are inside them, and the subgradients
	// agree with finite differences there
	r = qrc(t, "", "gradcheck", model)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "all 1 function pass")

	// check --json writes the infinite bound as "inf"
	r = qrc(t, "", "check", "--json", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"hi": "inf"`)
	assert.Contains(t, r.stdout, `"lo": "-inf"`)
}

// logsumexp through the binary: evaluated stably where e^1000 overflows,
// with gradcheck passing, and minimised to a closed form:
// logsumexp(x) + ||x||^2/2 over R^2 has its minimum where x = -softmax(x),
// i.e. x = (-1/2, -1/2), with value log 2 - 1/2 + 1/4 = log 2 - 1/4.
func TestLogSumExpThroughTheBinary(t *testing.T) {
	model := writeModel(t, "lse.qrc", `param a = [1000, 1000]
var x[2] in box(-5, 5)
minimize logsumexp(x) + norm2(x)^2 / 2
subject to
    big: logsumexp(a + x) <= 1001
`)
	e, r := evalOut(t, model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.InDelta(t, math.Log(2), e.Objective.Value, 1e-12)
	require.Len(t, e.Constraints, 1)
	assert.InDelta(t, 1000+math.Log(2)-1001, e.Constraints[0].Value, 1e-12)

	r = qrc(t, "", "gradcheck", model)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "all 2 functions pass")

	s, r := jsonOut[verdictJSON](t, false, "solve", "--quiet", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.InDelta(t, math.Log(2)-0.25, s.Objective, 1e-5)
	x := s.Variables["x"].([]any)
	assert.InDelta(t, -0.5, x[0].(float64), 2e-3)
	assert.InDelta(t, -0.5, x[1].(float64), 2e-3)
}

// "sum(j ...) a[j] + b[j]" ends the sum before the "+": the binary says
// so instead of suggesting another name.
func TestSumBodyEndsThroughTheBinary(t *testing.T) {
	model := writeModel(t, "sum.qrc", "var x[3] in box(-1, 1)\nminimize sum(j in 1..3) x[j]^2 + 2 * x[j]\n")
	r := qrc(t, "", "check", model)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, model+`:2:40: unknown name "j": the body of sum(j ...) ends before the "+" at 2:32, so this j is not the one it binds; to take the sum of both terms, parenthesise them: sum(j in ...) (... + ...)`)
	assert.NotContains(t, r.stderr, "did you mean")
}
