package solve

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A context cancelled, or a time limit reached, during phase 1 ends the
// solve as Interrupted or TimeLimit, not Infeasible: the point is the most
// feasible one so far, with its violated constraints listed.
func TestStopDuringPhase1(t *testing.T) {
	t.Parallel()
	for k := 1; k <= 4; k++ {
		p, _ := outsideUnitBall()
		ctx, cancel := context.WithCancel(context.Background())
		evals := 0
		eval := p.Eval
		p.Eval = func(x, vals []float64) error {
			if evals++; evals == k {
				cancel()
			}
			return eval(x, vals)
		}
		r, _, err := MinimizeRestarts(ctx, p, []float64{0.05, 0}, Settings{}, Restarts{Seed: 1})
		cancel()
		require.NoError(t, err)
		assert.Equal(t, Interrupted, r.Status, "cancelled at evaluation %d", k)
		assert.Greater(t, r.Infeasibility, 1e-3, "still infeasible")
		assert.Equal(t, []int{1}, r.Violated)
		require.NotNil(t, r.MostFeasible)
		assert.Equal(t, r.MostFeasible.Infeasibility, r.Infeasibility, "the most feasible point so far")
		assert.Nil(t, r.Certificate)
	}

	p, _ := outsideUnitBall()
	r, _, err := MinimizeRestarts(context.Background(), p, []float64{0.05, 0}, Settings{TimeLimit: time.Nanosecond}, Restarts{Seed: 1})
	require.NoError(t, err)
	assert.Equal(t, TimeLimit, r.Status)
	assert.Greater(t, r.Infeasibility, 1e-3)
	assert.Equal(t, []int{1}, r.Violated)
}

// A context cancelled while phase 1's restarts run (here, as restart 1
// starts, after the first attempt gave up at x = 0) ends the solve as
// Interrupted with the most feasible point of the attempts, and no more
// restarts are tried. (The switching oracle: its phase 1 is the paper's
// alone, which stops at x = 0; an accurate oracle's elastic phase 1 leaves
// it.)
func TestStopDuringRestarts(t *testing.T) {
	t.Parallel()
	p, _ := outsideUnitBall()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var restarts []int
	r, d, err := MinimizeRestarts(ctx, p, []float64{0, 0}, Settings{Oracle: Switching}, Restarts{Seed: 1, Notify: func(k int, _ float64, _ []float64) {
		restarts = append(restarts, k)
		cancel()
	}})
	require.NoError(t, err)
	assert.Equal(t, Interrupted, r.Status)
	assert.Equal(t, []int{1}, restarts, "no restart after the cancellation")
	assert.LessOrEqual(t, d.Tried, 1)
	assert.LessOrEqual(t, r.Infeasibility, 1.0, "at least as feasible as the first attempt's x = 0 (1 - ||0||^2 = 1)")
	assert.Greater(t, r.Infeasibility, 1e-3)
	assert.Equal(t, []int{1}, r.Violated)

	// cancelled after the first attempt, before any restart: Interrupted
	p, _ = outsideUnitBall()
	ctx2, cancel2 := context.WithCancel(context.Background())
	rec := recorderFunc(func(it Iteration) error {
		if it.Phase1 && it.K == 0 {
			cancel2() // phase 1's first outer step is its last: x = 0 is stationary
		}
		return nil
	})
	r, d, err = MinimizeRestarts(ctx2, p, []float64{0, 0}, Settings{Recorder: rec, Oracle: Switching}, Restarts{Seed: 1})
	cancel2()
	require.NoError(t, err)
	assert.Equal(t, Interrupted, r.Status)
	assert.Equal(t, 0, d.Tried)
}

// recorderFunc is a Recorder calling the function.
type recorderFunc func(Iteration) error

func (f recorderFunc) Record(it Iteration) error { return f(it) }
