package solve

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One call of Algorithm 3 on min -x s.t. x - 1 <= 0 at x_t = 0 with
// RhoHat = 1, V = 1, alpha = 1 (step 1/(2 alpha) = 1/2), K = 4, worked by
// hand (every number is a dyadic fraction, so the comparison is exact):
//
//	k  z_k     theta~_1    d + weight*RhoHat*(z-xt)  z_{k+1}   lin = theta~_1 + zeta~_1*dz   Q_{k+1}
//	0  0       -1          -1                        0.5       -1 + 1*0.5 = -0.5             0
//	1  0.5     -0.375      -1 + 0.5 = -0.5           0.75      -0.375 + 1.5*0.25 = 0         0
//	2  0.75    0.03125     -1 + 0.75 = -0.25         0.875     0.03125 + 1.75*0.125 = 0.25   0.25
//	3  0.875   0.2578125   (-1 + 0.25) + 1.25*0.875  0.703125  0.2578125 - 1.875*0.171875   0.185546875
//
// output (0 + 0.5 + 0.75 + 0.875)/4 = 0.53125.
func TestStochasticOracleByHand(t *testing.T) {
	t.Parallel()
	p := build(1, []fn{
		{f: func(x []float64) float64 { return -x[0] }, g: func(x, out []float64) { out[0] = -1 }},
		{f: func(x []float64) float64 { return x[0] - 1 }, g: func(x, out []float64) { out[0] = 1 }},
	}, nil)
	s, err := newSolver(context.Background(), p, []float64{0}, Settings{Oracle: &StochasticOracle{V: 1, Alpha: 1}, RhoHat: 1, Rho: 0.5})
	require.NoError(t, err)
	m := s.steps.(*stochasticMethod)
	info, err := m.algorithm3([]float64{0}, 4, false)
	require.NoError(t, err)
	assert.Equal(t, 4, info.k)
	assert.Equal(t, 0.53125, s.out[0])
	assert.Equal(t, 0.185546875, m.queue[1])
	assert.Equal(t, 0.703125, s.z[0]) // z_4
	assert.Equal(t, 2, info.nObj)     // theta~_1 <= 0 at k = 0, 1
}

// noisy adds zero-mean noise, drawn by its Sampler, to every value and
// subgradient of a problem: an unbiased stochastic version of it.
type noisy struct {
	*Problem
	noise float64
	sigma float64
	rng   *rand.Rand
}

func (n *noisy) Draw(rng *rand.Rand) error {
	n.rng = rng
	n.noise = n.sigma * (2*rng.Float64() - 1)
	return nil
}
func (n *noisy) Monitor() bool { n.noise = 0; return true }
func (n *noisy) Full()         { n.noise = 0 }

func noisyProblem(p *Problem, sigma float64) *Problem {
	n := &noisy{Problem: p, sigma: sigma}
	q := *p
	q.Eval = func(x, vals []float64) error {
		if err := p.Eval(x, vals); err != nil {
			return err
		}
		for i := range vals {
			vals[i] += n.noise
		}
		return nil
	}
	q.Grad = func(w, g []float64) error {
		if err := p.Grad(w, g); err != nil {
			return err
		}
		for j := range g {
			g[j] += n.noise
		}
		return nil
	}
	q.Sampler = n
	return &q
}

// The unit-disc problem with noisy values and subgradients: the stochastic
// oracle ends near x* = (0.6, 0.8) and, after polishing on the exact
// values, feasible. The same seed gives the same result bit for bit;
// another seed another one.
func TestStochasticBallAndSeeds(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) *Result {
		r, err := Minimize(context.Background(), noisyProblem(ballProblem(), 0.05), []float64{0, 0}, Settings{Oracle: Stochastic, Seed: seed, Outer: 30})
		require.NoError(t, err)
		return r
	}
	a, b, c := run(1), run(1), run(2)
	assert.True(t, a.Status.Success(), a.Status)
	assert.LessOrEqual(t, a.Infeasibility, 1e-3)
	assert.Less(t, distTo(a.X, 0.6, 0.8), 0.03)
	assert.InDelta(t, 16, a.Objective, 0.3)
	a.Stats.Time, b.Stats.Time = 0, 0
	assert.True(t, reflect.DeepEqual(a, b), "same seed, different results")
	assert.NotEqual(t, a.X, c.X)
	// the polish ran: Algorithm 3's own output violates the constraint by
	// O(1/sqrt(K)) here
	assert.Greater(t, a.Stats.Polish, 0)
}

// From an infeasible start, phase 1 runs on minibatch estimates and hands
// over a point feasible on the exact values.
func TestStochasticPhase1(t *testing.T) {
	t.Parallel()
	r, err := Minimize(context.Background(), noisyProblem(ballProblem(), 0.1), []float64{5, -5}, Settings{Oracle: Stochastic, Outer: 20})
	require.NoError(t, err)
	assert.Greater(t, r.Stats.Phase1Outer, 0)
	assert.True(t, r.Status.Success(), r.Status)
	assert.LessOrEqual(t, r.Infeasibility, 1e-3)
	assert.Less(t, r.Objective, 25.0) // ||(0,0)-c||^2 = 25; the stochastic steps get below
}

func TestOracleSettings(t *testing.T) {
	t.Parallel()
	_, err := Minimize(context.Background(), ballProblem(), []float64{0, 0}, Settings{Oracle: Smooth})
	assert.ErrorContains(t, err, "smooth Problem")
	_, err = Minimize(context.Background(), ballProblem(), []float64{0, 0}, Settings{Oracle: &StochasticOracle{V: -1}})
	assert.ErrorContains(t, err, "V = -1")
	assert.Equal(t, "stochastic", Stochastic.String())
	assert.Equal(t, "switching", Switching.String())
	for _, name := range []string{"switching", "stochastic", "smooth", "bundle"} {
		o, ok := OracleNamed(name)
		require.True(t, ok)
		assert.Equal(t, name, o.String())
	}
	o, ok := OracleNamed("deterministic")
	assert.True(t, ok)
	assert.Equal(t, Switching, o)
}

// costly is a noisy sampler whose full evaluations are expensive.
type costly struct{ *noisy }

func (costly) FullCost() float64 { return 2 * MaxPolishCost }

// On costly data polish only bisects towards the best feasible iterate:
// no deterministic rounds, and still a point feasible to Eps.
func TestStochasticPolishBisectsOnCostlyData(t *testing.T) {
	t.Parallel()
	p := noisyProblem(ballProblem(), 0.05)
	p.Sampler = costly{p.Sampler.(*noisy)}
	r, err := Minimize(context.Background(), p, []float64{0, 0}, Settings{Oracle: Stochastic, Outer: 30})
	require.NoError(t, err)
	assert.True(t, r.Status.Success(), r.Status)
	assert.Equal(t, 0, r.Stats.Polish)
	assert.LessOrEqual(t, r.Infeasibility, 1e-3)
	assert.Greater(t, r.Infeasibility, 0.0) // on the boundary the bisection found, not at the start
	assert.Less(t, distTo(r.X, 0.6, 0.8), 0.05)
}
