package solve

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSmoothStopsInLineSearch: once the solve's context is cancelled, the
// smooth oracle evaluates at most a few more points, wherever the
// cancellation finds it, even in the middle of a line search: on 10^7
// rows an evaluation takes a second, and a 10-step line search after the
// time limit was a 16 s overrun. The problem is Rosenbrock's function in a
// box, whose curved valley makes the line searches backtrack; the context
// is cancelled after each number of evaluations in turn.
func TestSmoothStopsInLineSearch(t *testing.T) {
	rosen := fn{
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
	worst := 0
	for k := 1; k <= 80; k++ {
		p := build(2, []fn{rosen}, box(-2, 2))
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
		r, err := Minimize(p, []float64{-1.5, 2}, Settings{Oracle: Smooth, Context: ctx, Eps: 1e-9})
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
