package solve

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// linear is <a, x> + b.
func linear(a []float64, b float64) fn {
	return fn{
		f: func(x []float64) float64 { return dot(a, x) + b },
		g: func(x, out []float64) { copy(out, a) },
	}
}

// subproblemSolver is a solver ready to call an oracle on (7) directly.
func subproblemSolver(t *testing.T, p *Problem, s Settings) *solver {
	t.Helper()
	sv, err := newSolver(context.Background(), p, make([]float64, p.N), s)
	require.NoError(t, err)
	return sv
}

// The smooth oracle on (7) with a closed-form solution: f0 = <a, y>,
// f1 = ||y||^2 - 1, x_t = 0, RhoHat = 1. (7) is min <a, y> + 1/2 ||y||^2
// s.t. (3/2) ||y||^2 <= 1: the unconstrained minimiser -a has norm
// ||a|| = 5 > r = sqrt(2/3), so x_hat = -r a/||a||, with multiplier
// lambda solving a + y + lambda 3 y = 0: lambda = (||a||/r - 1)/3.
// The certified distance bound must hold, and be small.
func TestSmoothOracleClosedForm(t *testing.T) {
	t.Parallel()
	a := []float64{3, 4}
	p := build(2, []fn{linear(a, 0), sqNorm(1, -1)}, nil)
	p.Smooth = true
	sv := subproblemSolver(t, p, Settings{Oracle: Smooth})
	res, halt, err := sv.acc.solve([]float64{0, 0}, accuracy{Abs: 1e-9, MaxEvals: 5000})
	require.NoError(t, err)
	require.Equal(t, running, halt)
	r := math.Sqrt(2.0 / 3)
	xhat := []float64{-r * 3 / 5, -r * 4 / 5}
	require.True(t, res.Feasible)
	bound := res.DistBound(sv.rhoHat - sv.rho)
	assert.LessOrEqual(t, dist(sv.out, xhat), bound+1e-12, "the certified bound bounds the distance to x_hat")
	assert.Less(t, bound, 1e-6) // a gap of about 1e-13 on values near -3: rounding
	assert.GreaterOrEqual(t, res.Gap(), -1e-12)
	assert.InDelta(t, (5/r-1)/3, res.Lambda[0], 1e-5)
	assert.False(t, res.Nonconvex)
}

// The bundle oracle on a nonsmooth (7) with a closed form: f0 = |y1 - 2| +
// |y2 + 0.5| + |y3 + 3|, an inactive constraint y1 + y2 + y3 <= 5,
// x_t = 0, RhoHat = 1: (7) separates into min |y - c| + y^2/2, whose
// solution is clip(c, -1, 1): x_hat = (1, -0.5, -1).
func TestBundleOracleClosedForm(t *testing.T) {
	t.Parallel()
	c := []float64{2, -0.5, -3}
	p := build(3, []fn{weightedL1([]float64{1, 1, 1}, c), sumMinus(5)}, nil)
	sv := subproblemSolver(t, p, Settings{Oracle: Bundle})
	res, halt, err := sv.acc.solve([]float64{0, 0, 0}, accuracy{Abs: 1e-7, MaxEvals: 5000})
	require.NoError(t, err)
	require.Equal(t, running, halt)
	xhat := []float64{1, -0.5, -1}
	require.True(t, res.Feasible)
	bound := res.DistBound(sv.rhoHat - sv.rho)
	assert.LessOrEqual(t, dist(sv.out, xhat), bound+1e-12, "the certified bound bounds the distance to x_hat")
	// F(x_hat) = 1 + 2 + (1 + 0.25 + 1)/2; the bound's dual is solved by a
	// first-order method, which leaves a gap of a few 1e-6 here
	assert.InDelta(t, 4.125, res.F, 1e-5)
	assert.LessOrEqual(t, res.Lower, 4.125+1e-12, "a lower bound")
	assert.Less(t, res.Gap(), 1e-5)
	assert.Less(t, bound, 1e-2)
	assert.InDelta(t, 0, res.Lambda[0], 1e-6)
	assert.False(t, res.Nonconvex)
}

// A nonconvex f0 = -||y||^2 (2-weakly convex) with RhoHat = 1, Rho = 1/2:
// (7) is not convex, and both oracles must say so rather than certify.
func TestOraclesDetectNonconvexity(t *testing.T) {
	t.Parallel()
	for _, o := range []Oracle{Smooth, Bundle} {
		p := build(2, []fn{sqNorm(-1, 0), sumMinus(10)}, box(-1, 1))
		p.Smooth = true
		sv := subproblemSolver(t, p, Settings{Oracle: o, RhoHat: 1})
		res, _, err := sv.acc.solve([]float64{0.3, 0.1}, accuracy{Abs: 1e-9, MaxEvals: 2000})
		require.NoError(t, err)
		assert.True(t, res.Nonconvex, o.String())
	}
}

// Convex known answers, solved to 1e-6 with Converged and no doubling of
// RhoHat, by the oracle Auto picks: projection onto the unit disc (smooth),
// a weighted l1 in a box with a budget (bundle), and an LP-like model
// (bundle): min -x1 - 2 x2 s.t. x1 + x2 <= 1 on [0, 1]^2, x* = (0, 1).
func TestConvexKnownAnswers(t *testing.T) {
	t.Parallel()
	ball := ballProblem()
	ball.Smooth = true
	lp := build(2, []fn{linear([]float64{-1, -2}, 0), sumMinus(1)}, box(0, 1))
	for _, tc := range []struct {
		name   string
		p      *Problem
		x0, x  []float64
		oracle Oracle
		eps    float64
	}{
		{"ball", ball, []float64{0, 0}, []float64{0.6, 0.8}, Smooth, 1e-6},
		{"l1box", l1Problem(), []float64{0, 0, 0}, []float64{1.5, 1.5, -2}, Bundle, 1e-6},
		{"lp", lp, []float64{0.2, 0.2}, []float64{0, 1}, Bundle, 1e-6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Minimize(context.Background(), tc.p, tc.x0, Settings{Eps: tc.eps})
			require.NoError(t, err)
			s, _ := Settings{}.WithDefaults(tc.p)
			assert.Equal(t, tc.oracle, s.Oracle)
			assert.Equal(t, Converged, r.Status)
			assert.Less(t, dist(r.X, tc.x), 1e-6)
			assert.Equal(t, 0, r.Stats.RhoDoublings)
			require.NotNil(t, r.Certificate)
			assert.True(t, r.Certificate.Stationary)
			if k := r.Certificate.KKT; k != nil {
				// a smooth problem: the KKT residual at x itself
				assert.True(t, r.Certificate.Stationarity <= tc.eps || k.Holds(tc.eps), "stationarity %g, KKT %+v", r.Certificate.Stationarity, *k)
			} else {
				assert.LessOrEqual(t, r.Certificate.Stationarity, tc.eps)
			}
		})
	}
}

// Every path that can return must give a status that matches the
// certificate of the point returned: Converged only with a certificate
// computed at that point that shows it stationary; Uncertified when an
// iterate was certified but another point is returned.
func TestStatusMatchesCertificate(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, r *Result) {
		t.Helper()
		if r.Certificate != nil {
			assert.InDelta(t, dist(r.X, r.Certificate.XHat), r.Certificate.Dist, 1e-12, "the certificate is the returned point's")
		}
		switch r.Status {
		case Converged:
			require.NotNil(t, r.Certificate)
			assert.True(t, r.Certificate.Stationary)
			assert.LessOrEqual(t, r.Certificate.Stationarity, 1e-3)
		case IterationLimit, Uncertified:
			if r.Certificate != nil {
				assert.False(t, r.Certificate.Stationary && r.Status == Uncertified)
			}
		}
		if r.Status.Success() && r.Certificate == nil {
			assert.NotEmpty(t, r.NoCertificate)
		}
	}
	ball := ballProblem()
	ball.Smooth = true
	for seed := uint64(0); seed < 6; seed++ {
		for _, o := range []Oracle{Switching, Smooth, Bundle} {
			r, err := Minimize(context.Background(), ball, []float64{0, 0}, Settings{Oracle: o, Pick: PickRandom, Seed: seed, Outer: 8})
			require.NoError(t, err)
			check(t, r)
		}
	}
	// the stochastic oracle's polish returns another point than its last
	// iterate
	r, err := Minimize(context.Background(), noisyProblem(ballProblem(), 0.1), []float64{0, 0}, Settings{Oracle: Stochastic, Outer: 5})
	require.NoError(t, err)
	check(t, r)
	// the fallback to Best: a last iterate that is infeasible
	r, err = Minimize(context.Background(), circleProblem(), []float64{2, 0.5}, Settings{Oracle: Switching, Inner: 20, Outer: 5})
	require.NoError(t, err)
	check(t, r)
}
