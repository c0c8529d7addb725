package solve

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// min ||x - c||^2 s.t. ||x||^2 >= 1 (written 1 - ||x||^2 <= 0) over the
// box [-2, 2]^2, with ||c|| = 0.5 < 1: the solution is c/||c||, at
// distance 1 - ||c|| = 0.5 from c. From x = 0 the violation's subgradient
// is 0: phase 1 stops there at once.
func outsideUnitBall() (*Problem, []float64) {
	c := []float64{0.3, 0.4}
	return build(2, []fn{sqDist(c), sqNorm(-1, 1)}, box(-2, 2)), []float64{0.6, 0.8}
}

// With an accurate oracle the elastic phase 1 leaves x = 0 by itself: its
// problem min t s.t. 1 - ||y||^2 - t <= 0 is certified stationary at
// (0, 1), and the probe around it finds lower t.
func TestElasticPhase1LeavesAStationaryPointOfTheViolation(t *testing.T) {
	t.Parallel()
	p, want := outsideUnitBall()
	res, err := Minimize(context.Background(), p, []float64{0, 0}, Settings{})
	require.NoError(t, err)
	require.Equal(t, Converged, res.Status)
	assert.InDelta(t, 0.25, res.Objective, 1e-6, "f* = (1 - ||c||)^2")
	assert.InDelta(t, 0, dist(res.X, want), 1e-3)
}

func TestRestartsLeaveAStationaryPointOfTheViolation(t *testing.T) {
	t.Parallel()
	p, want := outsideUnitBall()
	x0 := []float64{0, 0}

	// the switching oracle's phase 1 is the paper's alone
	plain, err := Minimize(context.Background(), p, x0, Settings{Oracle: Switching})
	require.NoError(t, err)
	require.Equal(t, Infeasible, plain.Status, "without restarts phase 1 is stuck at x = 0")
	assert.Equal(t, 1, plain.Stats.Phase1Outer)

	var notified []float64
	res, d, err := MinimizeRestarts(context.Background(), p, x0, Settings{Oracle: Switching}, Restarts{Seed: 1, Notify: func(k int, scale float64, x []float64) {
		notified = append(notified, scale)
		assert.Equal(t, len(notified), k)
	}})
	require.NoError(t, err)
	assert.Equal(t, Phase1Stationary, d.Phase1)
	require.True(t, res.Status.Success(), res.Status)
	assert.Equal(t, 1, d.Restart, "the first perturbed start (scale 0.1) already leaves x = 0")
	assert.Equal(t, []float64{0.1}, notified)
	assert.InDelta(t, 0.1, d.Scale, 0)
	assert.LessOrEqual(t, res.Infeasibility, 1e-3)
	assert.InDelta(t, 0.25, res.Objective, 2e-3, "f* = (1 - ||c||)^2")
	assert.InDelta(t, 0, dist(res.X, want), 0.05)
	// the work of both attempts is counted: the stuck step and the restart's
	assert.Greater(t, res.Stats.Phase1Outer, plain.Stats.Phase1Outer)

	// the same seed gives the same result; no restarts when Starts < 0
	again, _, err := MinimizeRestarts(context.Background(), p, x0, Settings{Oracle: Switching}, Restarts{Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, res.X, again.X)
	none, d, err := MinimizeRestarts(context.Background(), p, x0, Settings{Oracle: Switching}, Restarts{Starts: -1})
	require.NoError(t, err)
	assert.Equal(t, Infeasible, none.Status)
	assert.Equal(t, 0, d.Tried)
	assert.Equal(t, Phase1Stationary, d.Phase1)
}

// 1 + ||x||^2 <= 0 holds nowhere: every restart ends infeasible, and the
// result is the attempt with the lowest violation, which is 1 at x = 0.
func TestRestartsOnAnInfeasibleProblem(t *testing.T) {
	t.Parallel()
	p := build(2, []fn{sqDist([]float64{1, 1}), sqNorm(1, 1)}, box(-1, 1))
	res, d, err := MinimizeRestarts(context.Background(), p, []float64{0.5, 0.5}, Settings{Outer: 20}, Restarts{Seed: 3})
	require.NoError(t, err)
	assert.Equal(t, Infeasible, res.Status)
	assert.Equal(t, DefaultRestarts, d.Tried)
	assert.NotEqual(t, Phase1NotStopped, d.Phase1)
	assert.InDelta(t, 1, res.Infeasibility, 1e-2)
}

// A feasible start: one solve, no restarts, and the last phase-2 step is
// reported.
func TestRestartsNotNeeded(t *testing.T) {
	t.Parallel()
	p, _ := outsideUnitBall()
	res, d, err := MinimizeRestarts(context.Background(), p, []float64{1, 1}, Settings{}, Restarts{})
	require.NoError(t, err)
	assert.Equal(t, Converged, res.Status)
	assert.Equal(t, Phase1NotStopped, d.Phase1)
	assert.Equal(t, 0, d.Tried)
	assert.False(t, math.IsNaN(d.LastStep))
	assert.False(t, d.LastMoving, "converged: the last step is below eps")
}

// A Burer-Monteiro max-cut of a path of 12 nodes in rank 3: min sum_i
// <v_i, v_i+1> s.t. ||v_i||^2 == 1, v in [-1, 1]^36, from V = 0, where the
// gradients of the objective and of every equality vanish: the
// equalities' path gives up at the start without a step, and the restarts
// run there too (as they do for inequalities), reaching a minimum: every
// neighbour opposite, f = -11, from a perturbed start.
func TestRestartsLeaveAStationaryStartOfAnEquality(t *testing.T) {
	t.Parallel()
	const n, k = 12, 3
	fs := []fn{{
		f: func(x []float64) float64 {
			s := 0.0
			for i := 0; i+1 < n; i++ {
				for c := range k {
					s += x[k*i+c] * x[k*i+k+c]
				}
			}
			return s
		},
		g: func(x, out []float64) {
			clear(out)
			for i := 0; i+1 < n; i++ {
				for c := range k {
					out[k*i+c] += x[k*i+k+c]
					out[k*i+k+c] += x[k*i+c]
				}
			}
		},
	}}
	for i := range n {
		fs = append(fs, fn{
			f: func(x []float64) float64 {
				s := -1.0
				for c := range k {
					s += x[k*i+c] * x[k*i+c]
				}
				return s
			},
			g: func(x, out []float64) {
				clear(out)
				for c := range k {
					out[k*i+c] = 2 * x[k*i+c]
				}
			},
		})
	}
	p := build(n*k, fs, box(-1, 1))
	p.Smooth = true
	p.Kinds = make([]ConstraintKind, n)
	for i := range p.Kinds {
		p.Kinds[i] = NonlinearEquality
	}
	x0 := make([]float64, n*k)
	plain, err := Minimize(context.Background(), p, x0, Settings{})
	require.NoError(t, err)
	require.Equal(t, Infeasible, plain.Status, "without restarts the solve is stuck at V = 0")
	assert.Zero(t, plain.Stats.Phase1Outer, "no step from the start")

	res, d, err := MinimizeRestarts(context.Background(), p, x0, Settings{}, Restarts{Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, Phase1Stationary, d.Phase1)
	assert.GreaterOrEqual(t, d.Tried, 1)
	require.True(t, res.Status.Success(), res.Status)
	assert.LessOrEqual(t, res.Infeasibility, 1e-6)
	assert.InDelta(t, -(n - 1), res.Objective, 1e-5)
}
