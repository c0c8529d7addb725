package solve

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// saddle is f0 = x1^2 - x2^2 on [-1, 1]^2 (2-weakly convex): the start
// (0, 0) is a saddle point, where every certificate of near stationarity
// holds; the minima are (0, +-1), f* = -1.
func saddle() *Problem {
	p := build(2, []fn{{
		f: func(x []float64) float64 { return x[0]*x[0] - x[1]*x[1] },
		g: func(x, out []float64) { out[0], out[1] = 2*x[0], -2*x[1] },
	}}, box(-1, 1))
	p.Smooth = true
	return p
}

// TestProbeLeavesASaddle: from the saddle the solve does not stop with
// Converged after 0 steps: the probe finds a lower point, the solve goes
// on from it and ends at a minimum; the Result says which iterate it left.
func TestProbeLeavesASaddle(t *testing.T) {
	t.Parallel()
	for _, o := range []Oracle{Smooth, Bundle, Switching} {
		t.Run(o.String(), func(t *testing.T) {
			res, err := Minimize(context.Background(), saddle(), []float64{0, 0}, Settings{Oracle: o, Outer: 200})
			require.NoError(t, err)
			assert.InDelta(t, -1, res.Objective, 1e-3)
			assert.InDelta(t, 1, math.Abs(res.X[1]), 1e-3)
			require.NotNil(t, res.Probe)
			require.NotEmpty(t, res.Probe.Escapes)
			// the smooth and bundle oracles certify the start itself; the
			// switching oracle's first step stays there (its gradient is 0)
			assert.LessOrEqual(t, res.Probe.Escapes[0], 1, "the saddle was left")
		})
	}
}

// TestProbeSkipsConvex: a problem marked convex is not probed.
func TestProbeSkipsConvex(t *testing.T) {
	t.Parallel()
	p := ballProblem()
	p.Smooth, p.Convex = true, true
	res, err := Minimize(context.Background(), p, []float64{0, 0}, Settings{})
	require.NoError(t, err)
	assert.Equal(t, Converged, res.Status)
	assert.Nil(t, res.Probe)
}

// TestKKTCheckKnownAnswer: min (x1 - 2)^2 + (x2 - 2)^2 s.t. x1 + x2 <= 2
// has x* = (1, 1) with lambda* = 2. At x* the KKT residual is 0 (to
// rounding) with any multiplier estimate the fit starts from; at x =
// (0.5, 1.5) with lambda = 2, grad L = (2(0.5-2) + 2, 2(1.5-2) + 2) =
// (-1, 1), X = R^2, so the residual is sqrt(2) before the fit; the best
// multiplier there (lambda = 2: the gradient's components have opposite
// signs whatever lambda is) cannot lower it, and the check says so.
func TestKKTCheckKnownAnswer(t *testing.T) {
	t.Parallel()
	p := build(2, []fn{sqDist([]float64{2, 2}), sumMinus(2)}, nil)
	p.Smooth = true
	sv := subproblemSolver(t, p, Settings{})
	sv.gradScale = 1
	k := sv.kktAt([]float64{1, 1}, multipliers{[]float64{0}, "test"})
	require.NotNil(t, k)
	assert.InDelta(t, 0, k.Stationarity, 1e-12)
	assert.InDelta(t, 0, k.Complementarity, 1e-12)
	assert.True(t, k.Holds(1e-9))

	k = sv.kktAt([]float64{0.5, 1.5}, multipliers{[]float64{2}, "test"})
	require.NotNil(t, k)
	assert.InDelta(t, math.Sqrt2, k.Stationarity, 1e-12)
	assert.False(t, k.Holds(1e-3))
}

// TestConstraintProxKeepsStepsLong: min -x1 x2 x3 s.t. x1 + 2 x2 + 2 x3
// <= 72 on [0,20] x [0,11] x [0,42] (Hock-Schittkowski 36: x* = (20, 11,
// 15), f* = -3300). The linear constraint's multiplier is 110 at x*; with
// RhoHat added to it, as in the paper's (7), the steps shrink by that
// factor. With its proven modulus 0 (ConstraintRho) it gets no proximal
// term and the solve converges to x*.
func TestConstraintProxKeepsStepsLong(t *testing.T) {
	t.Parallel()
	p := &Problem{N: 3, M: 1, Smooth: true, ConstraintRho: []float64{0}}
	var last []float64
	p.Eval = func(x, vals []float64) error {
		last = append(last[:0], x...)
		vals[0] = -x[0] * x[1] * x[2]
		vals[1] = x[0] + 2*x[1] + 2*x[2] - 72
		return nil
	}
	p.Grad = func(w, g []float64) error {
		x := last
		g[0] = w[0]*(-x[1]*x[2]) + w[1]
		g[1] = w[0]*(-x[0]*x[2]) + 2*w[1]
		g[2] = w[0]*(-x[0]*x[1]) + 2*w[1]
		return nil
	}
	hi := []float64{20, 11, 42}
	p.Project = func(x []float64) {
		for j := range x {
			x[j] = math.Min(math.Max(x[j], 0), hi[j])
		}
	}
	res, err := Minimize(context.Background(), p, []float64{10, 10, 10}, Settings{})
	require.NoError(t, err)
	assert.Equal(t, Converged, res.Status)
	assert.InDelta(t, -3300, res.Objective, 1e-6*3300)
	assert.InDelta(t, 0, dist(res.X, []float64{20, 11, 15}), 1e-5)
	require.NotNil(t, res.Certificate)
	assert.InDelta(t, 110, res.Certificate.Multipliers[0], 1e-3)
}

// TestThinBand: sum(x) in [1 - 1e-4, 1 + 1e-4] and ||x||^2 in [1 - 1e-4,
// 1 + 1e-4], min -a.x from x = 0, where the paper's phase 1 stops at a
// stationary point of the violation (at x = c 1 the two violated
// constraints' gradients are parallel): the elastic phase 1 and its probe
// find the band, and the solve reaches the optimum, which for the largest
// radius is max over s of s mean(a) + sqrt(R^2 - s^2/n) ||a - mean(a)||.
func TestThinBand(t *testing.T) {
	t.Parallel()
	a := []float64{1, -2, 0.5, 3, -1}
	n := len(a)
	lin := func(sign, b float64) fn { // sign (sum(x) - b)
		return fn{f: func(x []float64) float64 {
			s := 0.0
			for _, v := range x {
				s += v
			}
			return sign * (s - b)
		}, g: func(x, out []float64) {
			for j := range out {
				out[j] = sign
			}
		}}
	}
	obj := fn{f: func(x []float64) float64 { return -dot(a, x) }, g: func(x, out []float64) {
		for j := range out {
			out[j] = -a[j]
		}
	}}
	p := build(n, []fn{obj, lin(-1, 1-1e-4), lin(1, 1+1e-4), sqNorm(-1, 1-1e-4), sqNorm(1, -(1 + 1e-4))}, box(-2, 2))
	p.Smooth = true
	res, err := Minimize(context.Background(), p, make([]float64, n), Settings{})
	require.NoError(t, err)
	assert.Equal(t, Converged, res.Status)
	assert.LessOrEqual(t, res.Infeasibility, 1e-9)

	mean := 0.0
	for _, v := range a {
		mean += v / float64(n)
	}
	perp := 0.0
	for _, v := range a {
		perp += (v - mean) * (v - mean)
	}
	perp = math.Sqrt(perp)
	best := math.Inf(-1)
	for k := 0; k <= 200000; k++ {
		s := 1 - 1e-4 + 2e-4*float64(k)/200000
		best = math.Max(best, s*mean+math.Sqrt(1+1e-4-s*s/float64(n))*perp)
	}
	assert.InDelta(t, -best, res.Objective, 1e-6)
}

// TestProgressRuleStops: with the progress rule a solve that keeps
// moving but neither converges nor improves ends Stalled with NoProgress
// well before MaxOuter: f0 = x^4 from x = 0.5, whose proximal steps shrink
// like x^3 (x_t ~ 1/sqrt(t)), with an Eps no certificate reaches.
func TestProgressRuleStops(t *testing.T) {
	t.Parallel()
	p := build(1, []fn{{
		f: func(x []float64) float64 { return x[0] * x[0] * x[0] * x[0] },
		g: func(x, out []float64) { out[0] = 4 * x[0] * x[0] * x[0] },
	}}, box(-1, 1))
	p.Smooth, p.Convex = true, true
	res, err := Minimize(context.Background(), p, []float64{0.5}, Settings{Eps: 1e-300})
	require.NoError(t, err)
	assert.Equal(t, Stalled, res.Status)
	assert.True(t, res.NoProgress)
	assert.Less(t, res.Stats.Outer, MaxOuter)
	assert.Less(t, res.Objective, 1e-8)
}

// TestUnbounded: exp(-x) - x on [0, inf) has no minimum; the solve says
// Unbounded (its steps grow geometrically once they stop shrinking) with
// a feasible point beyond DivergingIterates, not an overflow or the
// iteration limit.
func TestUnbounded(t *testing.T) {
	t.Parallel()
	p := build(1, []fn{{
		f: func(x []float64) float64 { return math.Exp(-x[0]) - x[0] },
		g: func(x, out []float64) { out[0] = -math.Exp(-x[0]) - 1 },
	}}, func(x []float64) { x[0] = math.Max(x[0], 0) })
	p.Smooth = true
	res, err := Minimize(context.Background(), p, []float64{1}, Settings{})
	require.NoError(t, err)
	assert.Equal(t, Unbounded, res.Status)
	assert.False(t, res.Status.Success())
	assert.GreaterOrEqual(t, res.X[0], DivergingIterates)
	assert.Less(t, res.Stats.Outer, 1000)
	assert.Nil(t, res.Certificate)
}

// TestLongStepsAreNotSilent: an outer step of phase 1 or phase 2 that
// runs past Settings.stepBeat without a record gets a heartbeat naming it
// ("phase1", "step"), so that a progress table shows what runs.
func TestLongStepsAreNotSilent(t *testing.T) {
	t.Parallel()
	p, _ := outsideUnitBall()
	stages := map[string]int{}
	rec := recorderFunc(func(it Iteration) error {
		if it.Stage != "" {
			stages[it.Stage]++
			assert.Len(t, it.X, 2)
		}
		return nil
	})
	// stepBeat 1ns: every check of the clock is a second late
	res, err := Minimize(context.Background(), p, []float64{0.05, 0}, Settings{Recorder: rec, stepBeat: time.Nanosecond})
	require.NoError(t, err)
	require.True(t, res.Status.Success(), res.Status)
	assert.Positive(t, stages["phase1"], "phase 1's steps: %v", stages)
	assert.Positive(t, stages["step"], "phase 2's steps: %v", stages)
}
