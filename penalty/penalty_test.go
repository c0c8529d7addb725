package penalty_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/penalty"
	"github.com/qrc-lang/qrc/solve"
)

// smooth builds a problem from functions and their gradients.
func smooth(n int, fs []func(x []float64) float64, gs []func(x, g []float64)) *solve.Problem {
	var last []float64
	return &solve.Problem{
		N: n, M: len(fs) - 1,
		Eval: func(x, vals []float64) error {
			last = append(last[:0], x...)
			for i, f := range fs {
				vals[i] = f(x)
			}
			return nil
		},
		Grad: func(w, g []float64) error {
			clear(g)
			tmp := make([]float64, len(g))
			for i, wi := range w {
				if wi != 0 {
					gs[i](last, tmp)
					for j := range g {
						g[j] += wi * tmp[j]
					}
				}
			}
			return nil
		},
	}
}

// min (x1-2)^2 + (x2-1)^2 subject to x1^2 + x2^2 <= 1: the projection of
// (2, 1) onto the unit disc, x* = (2, 1)/sqrt(5), f* = (sqrt(5)-1)^2.
func disc() *solve.Problem {
	return smooth(2,
		[]func([]float64) float64{
			func(x []float64) float64 { return (x[0]-2)*(x[0]-2) + (x[1]-1)*(x[1]-1) },
			func(x []float64) float64 { return x[0]*x[0] + x[1]*x[1] - 1 },
		},
		[]func(x, g []float64){
			func(x, g []float64) { g[0], g[1] = 2*(x[0]-2), 2*(x[1]-1) },
			func(x, g []float64) { g[0], g[1] = 2*x[0], 2*x[1] },
		})
}

func TestSmoothKnownOptimum(t *testing.T) {
	for _, x0 := range [][]float64{{0, 0}, {3, -2}, {-0.5, 0.5}} {
		res, rep, err := penalty.MinimizeReport(context.Background(), disc(), x0, penalty.Settings{Eps: 1e-6, MaxIter: 5000})
		require.NoError(t, err)
		assert.Equal(t, solve.Converged, res.Status, "from %v: %+v", x0, rep)
		s5 := math.Sqrt(5)
		assert.InDeltaSlice(t, []float64{2 / s5, 1 / s5}, res.X, 1e-5, "from %v", x0)
		assert.InDelta(t, (s5-1)*(s5-1), res.Objective, 1e-6)
		assert.LessOrEqual(t, res.Infeasibility, 1e-6)
		assert.Nil(t, res.Certificate)
		assert.Equal(t, res.Stats.Outer, rep.Rejected+acceptedSteps(t, disc(), x0))
	}
}

// acceptedSteps counts the iterations that moved, by recording.
func acceptedSteps(t *testing.T, p *solve.Problem, x0 []float64) int {
	var rec counter
	_, err := penalty.Minimize(context.Background(), p, x0, penalty.Settings{Eps: 1e-6, MaxIter: 5000, Recorder: &rec})
	require.NoError(t, err)
	return rec.moved
}

type counter struct {
	n, moved int
	last     solve.Iteration
	failAt   int
}

func (c *counter) Record(it solve.Iteration) error {
	c.n++
	if it.Step > 0 {
		c.moved++
	}
	c.last = it
	if c.failAt > 0 && c.n >= c.failAt {
		return errors.New("recorder full")
	}
	return nil
}

// A linear program with the domain as constraints: max x1 + x2 over the
// box [0, 1]^2 with x1 + 2 x2 <= 2; the solution is the vertex (1, 1/2).
// The start (3, 3) is outside the box and the constraint.
func TestDomainConstraints(t *testing.T) {
	box := &domain.Domain{Kind: domain.Box, Lo: []float64{0, 0}, Hi: []float64{1, 1}}
	p := smooth(2,
		[]func([]float64) float64{
			func(x []float64) float64 { return -x[0] - x[1] },
			func(x []float64) float64 { return x[0] + 2*x[1] - 2 },
		},
		[]func(x, g []float64){
			func(x, g []float64) { g[0], g[1] = -1, -1 },
			func(x, g []float64) { g[0], g[1] = 1, 2 },
		})
	p.Project = box.Project
	_, err := penalty.Minimize(context.Background(), p, []float64{3, 3}, penalty.Settings{})
	require.Error(t, err, "a domain without DomainConstraints is refused")

	p.DomainConstraints = box.Constraints
	var rec counter
	res, err := penalty.Minimize(context.Background(), p, []float64{3, 3}, penalty.Settings{Recorder: &rec})
	require.NoError(t, err)
	assert.Equal(t, solve.Converged, res.Status)
	assert.InDeltaSlice(t, []float64{1, 0.5}, res.X, 1e-9)
	assert.InDelta(t, -1.5, res.Objective, 1e-9)
	assert.Equal(t, "penalty", rec.last.Method)
	assert.Equal(t, res.Stats.Outer, rec.n)

	// the start's infeasibility counts the domain: x = (3, 3) has
	// x1 + 2 x2 - 2 = 7 and x - hi = 2
	res, err = penalty.Minimize(context.Background(), p, []float64{3, 3}, penalty.Settings{TimeLimit: 1})
	require.NoError(t, err)
	// stopped at once by the clock, before any feasible point: the status
	// says so (it said infeasible, a claim the method had no ground for)
	assert.Equal(t, solve.TimeLimit, res.Status)
	assert.Equal(t, 7.0, res.Infeasibility)
	assert.Equal(t, []int{1}, res.Violated)
	p.M = 0
	p.Eval = func(x, vals []float64) error { vals[0] = -x[0] - x[1]; return nil }
	res, err = penalty.Minimize(context.Background(), p, []float64{3, 0.5}, penalty.Settings{TimeLimit: 1})
	require.NoError(t, err)
	assert.Equal(t, 2.0, res.Infeasibility, "the domain's violation alone")
}

// x^2 + 1 <= 0 has no solution; the method ends at a critical point of
// the infeasibility, x = 0.
func TestInfeasible(t *testing.T) {
	p := smooth(1,
		[]func([]float64) float64{
			func(x []float64) float64 { return x[0] },
			func(x []float64) float64 { return x[0]*x[0] + 1 },
		},
		[]func(x, g []float64){
			func(x, g []float64) { g[0] = 1 },
			func(x, g []float64) { g[0] = 2 * x[0] },
		})
	res, err := penalty.Minimize(context.Background(), p, []float64{2}, penalty.Settings{})
	require.NoError(t, err)
	assert.Equal(t, solve.Infeasible, res.Status)
	assert.InDelta(t, 0, res.X[0], 1e-2)
	assert.Equal(t, []int{1}, res.Violated)
}

func TestStopsAndErrors(t *testing.T) {
	// the recorder's error interrupts
	rec := counter{failAt: 3}
	res, err := penalty.Minimize(context.Background(), disc(), []float64{0, 0}, penalty.Settings{Eps: 1e-9, Recorder: &rec})
	require.NoError(t, err)
	assert.Equal(t, solve.Interrupted, res.Status)
	assert.EqualError(t, res.Err, "recorder full")
	assert.Equal(t, 3, rec.n)

	// the iteration limit
	res, err = penalty.Minimize(context.Background(), disc(), []float64{0, 0}, penalty.Settings{Eps: 1e-12, MaxIter: 4})
	require.NoError(t, err)
	assert.Equal(t, solve.IterationLimit, res.Status)
	assert.Equal(t, 4, res.Stats.Outer)

	// a cancelled context
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = penalty.Minimize(ctx, disc(), []float64{0, 0}, penalty.Settings{})
	require.NoError(t, err)
	assert.Equal(t, solve.Interrupted, res.Status)
	assert.Equal(t, 0, res.Stats.Outer)

	// a value that is not finite
	p := disc()
	eval := p.Eval
	p.Eval = func(x, v []float64) error {
		err := eval(x, v)
		if x[0] > 0.5 {
			v[1] = math.NaN()
		}
		return err
	}
	res, err = penalty.Minimize(context.Background(), p, []float64{0, 0}, penalty.Settings{})
	require.NoError(t, err)
	assert.Equal(t, solve.NumericalError, res.Status)
	assert.ErrorContains(t, res.Err, "constraint f1 = NaN")

	// invalid settings and problems
	for _, s := range []penalty.Settings{{Xi: 1.5}, {Tau: 0.5}, {Eta1: 0.8, Eta2: 0.5}, {Gamma1: 0.9, Gamma2: 0.5}, {Gamma2: 2}, {Eps: -1}} {
		_, err := penalty.Minimize(context.Background(), disc(), []float64{0, 0}, s)
		assert.Error(t, err, "%+v", s)
	}
	_, err = penalty.Minimize(context.Background(), disc(), []float64{0}, penalty.Settings{})
	assert.Error(t, err)
	_, err = penalty.Minimize(context.Background(), disc(), []float64{0, math.Inf(1)}, penalty.Settings{})
	assert.Error(t, err)
}

// The defaults are the paper's.
func TestDefaults(t *testing.T) {
	s, err := penalty.Settings{}.WithDefaults()
	require.NoError(t, err)
	assert.Equal(t, penalty.Settings{Xi: 0.1, Tau: 100, P0: 10, Eps: 1e-3, Delta0: 1, Eta1: 0.3, Eta2: 0.7,
		Gamma1: 0.5, Gamma2: 1, MaxIter: 1000, MinDelta: 1e-10}, s)
}
