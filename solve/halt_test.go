package solve

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rosenbrock is Rosenbrock's function, whose curved valley makes line
// searches backtrack.
var rosenbrock = fn{
	f: func(x []float64) float64 {
		a, b := 1-x[0], x[1]-x[0]*x[0]
		return a*a + 100*b*b
	},
	g: func(x, out []float64) {
		b := x[1] - x[0]*x[0]
		out[0] = -2*(1-x[0]) - 400*x[0]*b
		out[1] = 200 * b
	},
}

// TestSmoothStopsInLineSearch: once the solve's context is cancelled, the
// smooth oracle evaluates at most a few more points, wherever the
// cancellation finds it, even in the middle of a line search: on 10^7
// rows an evaluation takes a second, and a 10-step line search after the
// time limit was a 16 s overrun. The problem is Rosenbrock's function in a
// box, whose curved valley makes the line searches backtrack; the context
// is cancelled after each number of evaluations in turn.
func TestSmoothStopsInLineSearch(t *testing.T) {
	t.Parallel()
	worst := 0
	for k := 1; k <= 80; k++ {
		p := build(2, []fn{rosenbrock}, box(-2, 2))
		p.Smooth = true
		ctx, cancel := context.WithCancel(context.Background())
		evals, after := 0, 0
		eval := p.Eval
		p.Eval = func(x, vals []float64) error {
			evals++
			if evals > k {
				after++
			}
			if evals == k {
				cancel()
			}
			return eval(x, vals)
		}
		r, err := Minimize(ctx, p, []float64{-1.5, 2}, Settings{Oracle: Smooth, Eps: 1e-9})
		cancel()
		require.NoError(t, err)
		if r.Status == Converged {
			break // it finished before k evaluations
		}
		require.Equal(t, Interrupted, r.Status, "k = %d", k)
		worst = max(worst, after)
	}
	assert.LessOrEqual(t, worst, 2, "evaluations after the cancellation")
}

// TestCertificateSkippedWhenNoTimeLeft: when an evaluation takes longer
// than what is left of the grace time after the time limit, the
// certificate does not start (it could not finish, and would overrun the
// limit by its first evaluation and gradient), and the result says so.
// Evaluations here take 300 ms, the limit is 50 ms and the grace 0.5 s:
// no evaluation may start after limit + grace.
func TestCertificateSkippedWhenNoTimeLeft(t *testing.T) {
	t.Parallel()
	p := build(1, []fn{sqDist([]float64{3})}, box(-5, 5))
	p.Smooth = true
	eval := p.Eval
	var starts []time.Time
	p.Eval = func(x, vals []float64) error {
		starts = append(starts, time.Now())
		time.Sleep(300 * time.Millisecond)
		return eval(x, vals)
	}
	const limit = 50 * time.Millisecond
	began := time.Now()
	r, err := Minimize(context.Background(), p, []float64{0}, Settings{Oracle: Smooth, TimeLimit: limit})
	require.NoError(t, err)
	assert.Equal(t, TimeLimit, r.Status)
	assert.Nil(t, r.Certificate)
	assert.Equal(t, errHalted, r.NoCertificate)
	for i, s := range starts {
		assert.False(t, s.After(began.Add(limit+GraceTime)), "evaluation %d started %v after the solve began", i, s.Sub(began))
	}
}

// outerRecorder keeps the objective of every outer iterate recorded.
type outerRecorder struct{ obj []float64 }

func (r *outerRecorder) Record(it Iteration) error {
	if it.K == 0 && it.Stage == "" {
		r.obj = append(r.obj, it.Objective)
	}
	return nil
}

// TestHaltedStepRecorded: when the time limit (here a cancelled context)
// ends a subproblem whose best feasible point descends, that point is the
// next outer iterate, and the Recorder (the trace) gets it like any other:
// the trace ended one iterate early, at a worse objective than the
// result's.
func TestHaltedStepRecorded(t *testing.T) {
	t.Parallel()
	kept := 0
	for k := 5; k <= 200; k += 5 {
		p := build(2, []fn{rosenbrock}, box(-2, 2))
		p.Smooth = true
		ctx, cancel := context.WithCancel(context.Background())
		evals := 0
		eval := p.Eval
		p.Eval = func(x, vals []float64) error {
			if evals++; evals == k {
				cancel()
			}
			return eval(x, vals)
		}
		rec := &outerRecorder{}
		r, err := Minimize(ctx, p, []float64{-1.5, 2}, Settings{Oracle: Smooth, Eps: 1e-9, RhoHat: 100, Recorder: rec})
		cancel()
		require.NoError(t, err)
		if r.Status == Converged {
			break
		}
		require.Len(t, rec.obj, r.Stats.Outer+r.Stats.Phase1Outer, "k = %d: every outer iterate is recorded", k)
		if len(rec.obj) > 0 && r.Objective == rec.obj[len(rec.obj)-1] {
			kept++
		}
	}
	assert.Positive(t, kept, "some cancellation ended in a kept, recorded step")
}
