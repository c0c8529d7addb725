package solve

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSQPPolishClosedForm: min ||x - (2, 2)||^2 s.t. ||x||^2 - 2 <= 0 has
// its minimum at (1, 1) with multiplier 1 (2(x - 2) + 2 lambda x = 0 at
// x = 1). From the feasible start (0, 0), far from it, the polish reaches
// it to rounding, with the program's multiplier kept for the KKT check.
func TestSQPPolishClosedForm(t *testing.T) {
	t.Parallel()
	p := build(2, []fn{sqDist([]float64{2, 2}), sqNorm(1, -2)}, nil)
	p.Smooth = true
	sv := subproblemSolver(t, p, Settings{})
	start, err := sv.evaluate([]float64{0, 0}, 0)
	require.NoError(t, err)
	q := sv.sqpPolish(&start, nil)
	require.NotNil(t, q)
	assert.InDelta(t, 1, q.X[0], 1e-12)
	assert.InDelta(t, 1, q.X[1], 1e-12)
	assert.InDelta(t, 2, q.Objective, 1e-12)
	assert.LessOrEqual(t, q.Infeasibility, 1e-12)
	require.Len(t, sv.polishLam, 1)
	assert.InDelta(t, 1, sv.polishLam[0], 1e-8)
	// the multipliers are a candidate of the KKT check at that point
	k := sv.kktAt(q.X, sv.polishMultipliers(q.X))
	require.NotNil(t, k)
	assert.Equal(t, "the SQP polish's multipliers", k.From)
	assert.Less(t, k.Stationarity, 1e-10)
}

// TestSQPPolishBadlyScaled is the same problem with x2 in units a million
// times smaller, x2 = u2 / 1e6: min (x1 - 2)^2 + (u2 - 2e6)^2 / 1e12 s.t.
// x1^2 + u2^2 / 1e12 - 2 <= 0, minimum at (1, 1e6). The Hessian's two
// curvatures are 12 orders apart; the program is in the step over the
// variables' scales, so the polish solves it as well as the first.
func TestSQPPolishBadlyScaled(t *testing.T) {
	t.Parallel()
	const s = 1e6
	obj := fn{
		f: func(u []float64) float64 {
			return (u[0]-2)*(u[0]-2) + (u[1]-2*s)*(u[1]-2*s)/(s*s)
		},
		g: func(u, out []float64) {
			out[0], out[1] = 2*(u[0]-2), 2*(u[1]-2*s)/(s*s)
		},
	}
	con := fn{
		f: func(u []float64) float64 { return u[0]*u[0] + u[1]*u[1]/(s*s) - 2 },
		g: func(u, out []float64) { out[0], out[1] = 2*u[0], 2*u[1]/(s*s) },
	}
	p := build(2, []fn{obj, con}, nil)
	p.Smooth = true
	sv := subproblemSolver(t, p, Settings{})
	start, err := sv.evaluate([]float64{0, 1e5}, 0)
	require.NoError(t, err)
	q := sv.sqpPolish(&start, nil)
	require.NotNil(t, q)
	assert.InDelta(t, 1, q.X[0], 1e-10)
	assert.InDelta(t, 1, q.X[1]/s, 1e-10)
	assert.InDelta(t, 2, q.Objective, 1e-10)
}

// TestSQPPolishNotWorse: from the minimum itself the polish proposes no
// point worse than it, and from a point it cannot evaluate beyond (a
// constraint that is not finite off the start) it proposes nothing.
func TestSQPPolishNotWorse(t *testing.T) {
	t.Parallel()
	p := build(2, []fn{sqDist([]float64{2, 2}), sqNorm(1, -2)}, nil)
	p.Smooth = true
	sv := subproblemSolver(t, p, Settings{})
	at, err := sv.evaluate([]float64{1, 1}, 0)
	require.NoError(t, err)
	if q := sv.sqpPolish(&at, []float64{1}); q != nil {
		assert.LessOrEqual(t, q.Objective, at.Objective+1e-14)
	}

	wall := fn{
		f: func(x []float64) float64 {
			if x[0] != 0 || x[1] != 0 {
				return math.NaN()
			}
			return -1
		},
		g: func(x, out []float64) { out[0], out[1] = 0, 0 },
	}
	p = build(2, []fn{sqDist([]float64{2, 2}), wall}, nil)
	p.Smooth = true
	sv = subproblemSolver(t, p, Settings{})
	at, err = sv.evaluate([]float64{0, 0}, 0)
	require.NoError(t, err)
	assert.Nil(t, sv.sqpPolish(&at, nil))
}
