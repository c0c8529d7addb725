package solve

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProvenConvexRaisesK: f0 = 10 (x^2 - 1)^2 on [-2, 2] has f0” =
// 120 x^2 - 40 >= -40, so it is 40-weakly convex, and with Rho = 40 and
// RhoHat = 80 every subproblem (7) is 40-strongly convex. With K = 2 the
// switching oracle's output fails the descent test now and then. Told the
// modulus as a known one (Problem.WeakConvexity), the solver knows the
// failure is K's and doubles K, never RhoHat; given the same RhoHat and
// Rho only as settings, it cannot tell and doubles RhoHat. Either way f0
// never increases from one outer iterate to the next.
func TestProvenConvexRaisesK(t *testing.T) {
	t.Parallel()
	well := fn{
		f: func(x []float64) float64 { u := x[0]*x[0] - 1; return 10 * u * u },
		g: func(x, out []float64) { out[0] = 40 * x[0] * (x[0]*x[0] - 1) },
	}
	run := func(known bool) (*Result, []Iteration) {
		var rec recorder
		p := build(1, []fn{well}, box(-2, 2))
		set := Settings{Oracle: Switching, Outer: 30, Inner: 2, Recorder: &rec}
		if known {
			p.WeakConvexity = 40
		} else {
			set.RhoHat, set.Rho = 80, 40
		}
		r, err := Minimize(context.Background(), p, []float64{0.5}, set)
		require.NoError(t, err)
		prev := 10 * 0.75 * 0.75 // f0(0.5)
		for _, it := range rec.outer {
			assert.LessOrEqual(t, it.Objective, prev+1e-9)
			prev = it.Objective
		}
		return r, rec.outer
	}
	r, _ := run(false)
	assert.Greater(t, r.Stats.RhoDoublings, 0, "without a known modulus a failed test doubles RhoHat")

	r, its := run(true)
	assert.Equal(t, 0, r.Stats.RhoDoublings)
	assert.Greater(t, r.Stats.InnerDoublings, 0)
	for _, it := range its {
		assert.Equal(t, 80.0, it.RhoHat)
	}
	assert.Equal(t, 40.0, r.Rho)
}
