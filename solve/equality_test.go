package solve

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The projection of (3, 4) onto the line x + y = 1 is (0, 1), with the
// multiplier 6 of x + y - 1 = 0 (2 (x - 3) + lambda = 0). An affine
// equality is met to 1e-9 and the point is certified.
func TestAffineEqualityClosedForm(t *testing.T) {
	t.Parallel()
	p := build(2, []fn{sqDist([]float64{3, 4}), linear([]float64{1, 1}, -1)}, nil)
	p.Smooth = true
	p.Kinds = []ConstraintKind{AffineEquality}
	p.ConstraintRho = []float64{0}
	res, err := Minimize(context.Background(), p, []float64{5, 5}, Settings{})
	require.NoError(t, err)
	require.Equal(t, Converged, res.Status)
	// converged certifies ||x - x_hat|| <= Eps = 1e-6 for the proximal
	// point x_hat of x; f0 is 2-strongly convex on the line, so
	// ||x - x*|| <= (1 + RhoHat/2) ||x - x_hat||
	assert.LessOrEqual(t, math.Hypot(res.X[0], res.X[1]-1), (1+res.RhoHat/2)*1e-6)
	require.Len(t, res.F, 2)
	assert.LessOrEqual(t, math.Abs(res.X[0]+res.X[1]-1), 1e-9)
	assert.InDelta(t, res.X[0]+res.X[1]-1, res.F[1], 1e-15, "F holds f1 itself, not a shifted band")
	assert.Equal(t, math.Abs(res.F[1]), res.Infeasibility)
	require.NotNil(t, res.Certificate)
	require.Len(t, res.Certificate.Multipliers, 1)
	assert.InDelta(t, 6, res.Certificate.Multipliers[0], 1e-4)
}

// min x + y s.t. x^2 + y^2 = 2: the minimum is (-1, -1) with the
// multiplier 1/2 (1 + 2 lambda x = 0); the maximum (1, 1) is a KKT point
// too, with multiplier -1/2. From the start (1.5, 0.5) the solve must
// reach the minimum, certified by the KKT residual at x.
func TestNonlinearEqualityCircle(t *testing.T) {
	t.Parallel()
	circle := fn{
		f: func(x []float64) float64 { return x[0]*x[0] + x[1]*x[1] - 2 },
		g: func(x, out []float64) { out[0], out[1] = 2*x[0], 2*x[1] },
	}
	p := build(2, []fn{linear([]float64{1, 1}, 0), circle}, nil)
	p.Smooth = true
	p.Kinds = []ConstraintKind{NonlinearEquality}
	res, err := Minimize(context.Background(), p, []float64{1.5, 0.5}, Settings{})
	require.NoError(t, err)
	require.Equal(t, Converged, res.Status, "%+v", res.Certificate)
	assert.InDelta(t, -1, res.X[0], 1e-6)
	assert.InDelta(t, -1, res.X[1], 1e-6)
	assert.LessOrEqual(t, res.Infeasibility, 1e-6)
	assert.InDelta(t, math.Abs(res.X[0]*res.X[0]+res.X[1]*res.X[1]-2), res.Infeasibility, 1e-15)
	require.NotNil(t, res.Certificate)
	assert.False(t, res.Certificate.Proven, "a nonlinear equality is outside the theory")
	require.NotNil(t, res.Certificate.KKT)
	assert.InDelta(t, 0.5, res.Certificate.Multipliers[0], 1e-3)
}

// Algorithms 2 and 3 refuse equalities, and the bundle oracle nonlinear
// ones, naming the constraint.
func TestEqualityRefusedByOtherOracles(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		o    Oracle
		kind ConstraintKind
	}{{Switching, AffineEquality}, {Stochastic, AffineEquality}, {Bundle, NonlinearEquality}} {
		p := build(2, []fn{sqDist([]float64{3, 4}), linear([]float64{1, 1}, -1)}, nil)
		p.Smooth = true
		p.Names = []string{"budget"}
		p.Kinds = []ConstraintKind{c.kind}
		_, err := Minimize(context.Background(), p, []float64{0, 0}, Settings{Oracle: c.o})
		require.Error(t, err, c.o.String())
		assert.True(t, strings.Contains(err.Error(), "budget") && strings.Contains(err.Error(), c.o.String()+" oracle"), err.Error())
	}
}

// The bundle oracle keeps an affine equality exact: min (x-3)^2 + |y-4|
// s.t. x + y = 1 is, on the line, (x-3)^2 + |x+3|, minimal at x = 2.5
// (2(x - 3) + 1 = 0), y = -1.5, f = 5.75, with the multiplier 1 of
// x + y - 1 = 0 (both components of grad f + lambda grad h vanish).
func TestBundleAffineEquality(t *testing.T) {
	t.Parallel()
	f0 := fn{
		f: func(x []float64) float64 { return (x[0]-3)*(x[0]-3) + math.Abs(x[1]-4) },
		g: func(x, out []float64) {
			out[0] = 2 * (x[0] - 3)
			out[1] = 1
			if x[1] < 4 {
				out[1] = -1
			}
		},
	}
	p := build(2, []fn{f0, linear([]float64{1, 1}, -1)}, box(-10, 10))
	p.Kinds = []ConstraintKind{AffineEquality}
	p.ConstraintRho = []float64{0}
	res, err := Minimize(context.Background(), p, []float64{0, 0}, Settings{Oracle: Bundle})
	require.NoError(t, err)
	require.Equal(t, Converged, res.Status, "%v at %v, f %v, %+v %s", res.Status, res.X, res.F, res.Certificate, res.NoCertificate)
	assert.LessOrEqual(t, math.Abs(res.X[0]+res.X[1]-1), 1e-9)
	// converged certifies ||x - x_hat|| <= Eps (the default 1e-3 of a
	// nonsmooth problem); f0 is 2-strongly convex along the line, so
	// ||x - x*|| <= (1 + RhoHat/2) Eps, and f0 is 6-Lipschitz near x*
	d := (1 + res.RhoHat/2) * DefaultEps
	assert.LessOrEqual(t, math.Hypot(res.X[0]-2.5, res.X[1]+1.5), d)
	assert.InDelta(t, 5.75, res.Objective, 6*d)
}
