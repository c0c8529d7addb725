package solve

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
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
	t.Parallel()
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
	r, err := Minimize(context.Background(), p, []float64{0}, Settings{Oracle: Bundle, NoSafeguard: true, Outer: 200})
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
	t.Parallel()
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
// not outer records. The long-step heartbeats ("step", after a second of
// an outer step without a record) are put off by an hour, so that a slow
// machine's steps do not make them.
func TestCertificateHeartbeat(t *testing.T) {
	t.Parallel()
	var rec recorder
	r, err := Minimize(context.Background(), ballProblem(), []float64{0, 0}, Settings{Oracle: Switching, Recorder: &rec, heartbeat: time.Nanosecond, stepBeat: time.Hour})
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

// A full bundle is compressed without lowering the bound: the dual value
// at the aggregated weights equals the value before, and the Newton
// refinement never lowers the value it starts from. The cuts are random
// (their validity does not matter for the identity), over a box.
func TestBundleCompressionKeepsTheDualValue(t *testing.T) {
	t.Parallel()
	const n, m = 5, 2
	p := build(n, []fn{sqDist(make([]float64, n)), sqNorm(1, -1), sqNorm(1, -2)}, box(-1, 1))
	sv, err := newSolver(context.Background(), p, make([]float64, n), Settings{Oracle: Bundle})
	require.NoError(t, err)
	s := sv.acc.(*bundleMethod)
	s.bundle = &bundleState{y: make([]float64, n), s: make([]float64, n), z: make([]float64, n)}
	rng := rand.New(rand.NewPCG(1, 2))
	xt := []float64{0.3, -0.2, 0.5, 0.1, -0.7}
	mu := 0.5
	for k := range bundleMaxCuts {
		c := cut{fn: k % (m + 1), a: rng.NormFloat64(), b: make([]float64, n)}
		for j := range c.b {
			c.b[j] = 3 * rng.NormFloat64()
		}
		s.bundle.cuts = append(s.bundle.cuts, c)
		w := 0.0
		if k%4 != 1 { // a quarter of the cuts carry no weight
			w = rng.Float64()
		}
		s.bundle.w = append(s.bundle.w, w)
	}
	normaliseObjective(s.bundle.cuts, s.bundle.w)
	y := make([]float64, n)
	before := s.dualEval(xt, mu, s.bundle.w, y, nil)
	s.compressBundle()
	assert.Len(t, s.bundle.cuts, m+1, "aggregated to one cut per function")
	assert.Len(t, s.bundle.w, m+1)
	after := s.dualEval(xt, mu, s.bundle.w, y, nil)
	assert.InDelta(t, before, after, 1e-12*(1+math.Abs(before)))
	// Newton steps from here only raise it
	w := slices.Clone(s.bundle.w)
	assert.GreaterOrEqual(t, s.dualNewton(xt, mu, w, after), after)
	assert.GreaterOrEqual(t, s.dualEval(xt, mu, w, y, nil), after-1e-12)
}
