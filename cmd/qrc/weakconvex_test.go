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

// writeModel writes src to a model file in a fresh directory and returns
// its absolute path.
func writeModel(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.qrc")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

func TestCheckWeakConvexityText(t *testing.T) {
	r := qrc(t, "", "check", "examples/phase.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "\nweak convexity (docs/analysis.md)\n")
	// mcp(z, 1, 2): curvature -1/gamma = -0.5 on each coordinate, slope
	// at most lambda = 1 on each of 8: rho 0.5, M <= 8.
	assert.Contains(t, r.stdout, "  budget     weakly convex: rho <= 0.50, M <= 8.0, nonsmooth\n")
	assert.Regexp(t, `\n  objective  weakly convex: rho <= [0-9.]+, M <= [0-9.]+, nonsmooth\n`, r.stdout)
	assert.Regexp(t, `\n  overall    weakly convex: rho <= [0-9.]+, M <= [0-9.]+, nonsmooth; X has diameter D <= 12\n`, r.stdout) // 4 sqrt 8 = 11.3
}

func TestCheckWeakConvexityRefused(t *testing.T) {
	path := writeModel(t, "var x[2] in box(-1, 1)\nminimize x[2] - abs(x[1])\nsubject to\n    c: sigmoid(x[1]) <= 0.9\n")
	r := qrc(t, "", "check", path)
	require.Equal(t, 0, r.code, "a model outside the class is still valid: %s", r.stderr)
	assert.Contains(t, r.stdout, "objective  not provably weakly convex: "+path+":2:10: x[2] - abs(x[1]): a negative multiple of a term with a convex kink")
	// sigmoid on [-1, 1]: the most negative sigmoid'' at log(2+sqrt 3) = 1.32
	// lies outside; on [0, 1] sigmoid'' decreases, to s(1-s)(1-2s) at 1.
	assert.Contains(t, r.stdout, "c          weakly convex: rho <= 0.091, M <= 0.25, smooth\n")
	assert.Contains(t, r.stdout, "overall    not provably weakly convex (objective is not)")
}

func TestCheckWeakConvexityJSON(t *testing.T) {
	path := writeModel(t, "var x[2] in box(-1, 2)\nminimize sigmoid(x[1]) + abs(x[2])\nsubject to\n    c: min(x[1], x[2]) <= 0\n")
	type checkOut struct {
		Valid         bool `json:"valid"`
		WeakConvexity struct {
			Weak      bool     `json:"weak"`
			Rho       *float64 `json:"rho"`
			Diameter  float64  `json:"diameter"`
			Functions []struct {
				Name    string   `json:"name"`
				Weak    bool     `json:"weak"`
				Rho     *float64 `json:"rho"`
				M       *float64 `json:"m"`
				Smooth  bool     `json:"smooth"`
				Range   []float64
				Refused *struct{ Pos, Expr, Reason string }
			} `json:"functions"`
		} `json:"weak_convexity"`
	}
	out, r := jsonOut[checkOut](t, false, "check", path)
	require.Equal(t, 0, r.code, r.stderr)
	require.True(t, out.Valid)
	wc := out.WeakConvexity
	assert.False(t, wc.Weak)
	assert.Nil(t, wc.Rho)
	assert.InDelta(t, 3*math.Sqrt2, wc.Diameter, 1e-12)
	require.Len(t, wc.Functions, 2)
	obj := wc.Functions[0]
	require.True(t, obj.Weak)
	// sigmoid'' is most negative, -1/(6 sqrt 3), at log(2 + sqrt 3) = 1.32
	// in [-1, 2]; the slope bound is sigmoid'(0) + 1 for abs.
	assert.InEpsilon(t, 1/(6*math.Sqrt(3)), *obj.Rho, 1e-9)
	assert.InEpsilon(t, 1.25, *obj.M, 1e-9)
	assert.False(t, obj.Smooth)
	c := wc.Functions[1]
	assert.False(t, c.Weak)
	assert.Nil(t, c.Rho)
	require.NotNil(t, c.Refused)
	assert.Equal(t, path+":4:8", c.Refused.Pos)
	assert.Equal(t, "min(x[1], x[2])", c.Refused.Expr)
	assert.Contains(t, c.Refused.Reason, "concave kink")
}

func TestCheckExplain(t *testing.T) {
	r := qrc(t, "", "check", "--explain", "objective", "examples/fairness.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(r.stdout, "\n")
	assert.Regexp(t, `^objective: weakly convex: rho <= [0-9.]+, M <= [0-9.]+, smooth$`, lines[0])
	assert.Regexp(t, `^  mean\(i in people\) phi\(people.y\[i\] \* dot\(people.X\[i\], x\)\)  \[mean, at 1 point\(s\)\]  range \[.*\], rho <= `, lines[1])
	assert.Regexp(t, `^    1 / \(1 \+ exp\(z\)\)  \[one-variable, at 1000 point\(s\)\]`, lines[2])
	assert.Contains(t, r.stdout, "one variable u = people.y[i] * dot(people.X[i], x)")

	r = qrc(t, "", "check", "--explain", "cap[11]", "examples/npc.qrc")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `qrc check: --explain: no function "cap[11]"; the model's functions are objective, cap[2], cap[3]`)

	r = qrc(t, "", "check", "--explain", "objective", "--json", "examples/npc.qrc")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "does not combine with --json")
}
