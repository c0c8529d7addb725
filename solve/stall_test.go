package solve

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An accurate oracle that can neither move x_t nor certify it gets more
// effort twice (4 and 16 times its budget), then the solve ends Stalled
// at x_t with x_t's (not stationary) certificate, instead of repeating
// the same subproblem until the iteration limit. The objective |x - 1|
// carries a wiggle of amplitude 1e-6 and slope 10 that no cut of a weakly
// convex function fits, and the safeguard that would double RhoHat on
// that evidence is off, so the bundle oracle gives up at once every time.
func TestStalled(t *testing.T) {
	wiggly := fn{
		f: func(x []float64) float64 { return math.Abs(x[0]-1) + 1e-6*math.Cos(1e7*x[0]) },
		g: func(x, out []float64) {
			s := 1.0
			if x[0] < 1 {
				s = -1
			}
			out[0] = s - 10*math.Sin(1e7*x[0])
		},
	}
	p := build(1, []fn{wiggly, sumMinus(5)}, nil)
	r, err := Minimize(p, []float64{0}, Settings{Oracle: Bundle, NoSafeguard: true, Outer: 200})
	require.NoError(t, err)
	assert.Equal(t, Stalled, r.Status)
	assert.True(t, r.Status.Success())
	assert.Equal(t, []float64{0}, r.X)
	assert.Equal(t, 2, r.Stats.InnerDoublings)
	require.NotNil(t, r.Certificate)
	assert.False(t, r.Certificate.Stationary)
	assert.Equal(t, 0.0, r.Certificate.Dist)
}

// projectDual keeps the objective's weights exactly on the simplex even
// after a long ascent step has made them large (the sort-based threshold
// loses precision there; a dual point off the simplex gave a "bound"
// above the minimum of an LP-like model).
func TestProjectDualLargeWeights(t *testing.T) {
	cuts := []cut{{fn: 0}, {fn: 0}, {fn: 1}, {fn: 0}}
	v := []float64{3e6 + 0.123456789, 3e6 - 0.7, -5, 3e6 + 0.31}
	projectDual(cuts, v, nil)
	sum := v[0] + v[1] + v[3]
	assert.InDelta(t, 1, sum, 1e-15)
	assert.Equal(t, 0.0, v[2])
	for _, x := range v {
		assert.GreaterOrEqual(t, x, 0.0)
	}
}

// The final certificate tells the Recorder that it runs (Stage records,
// here at every check of the clock), about the point returned; they are
// not outer records.
func TestCertificateHeartbeat(t *testing.T) {
	defer func(d time.Duration) { heartbeatEvery = d }(heartbeatEvery)
	heartbeatEvery = 0
	var rec recorder
	r, err := Minimize(ballProblem(), []float64{0, 0}, Settings{Oracle: Switching, Recorder: &rec})
	require.NoError(t, err)
	require.NotNil(t, r.Certificate)
	var last *Iteration
	for i, it := range rec.inner {
		if it.Stage == "" {
			continue
		}
		last = &rec.inner[i]
		assert.Equal(t, "certificate", it.Stage)
		assert.Positive(t, it.K)
	}
	for _, it := range rec.outer {
		assert.Empty(t, it.Stage)
	}
	require.NotNil(t, last, "no heartbeat")
	assert.Equal(t, r.T, last.T)
	assert.Equal(t, r.Objective, last.Objective)
	assert.Equal(t, r.X, last.X)
}
