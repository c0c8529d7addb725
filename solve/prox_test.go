package solve

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mcpPieces is lambda |z| - z^2/(2 gamma) for |z| <= gamma lambda and
// gamma lambda^2/2 beyond, as a Piecewise1D.
func mcpPieces(lam, gam float64) *Piecewise1D {
	top := gam * lam * lam / 2
	return &Piecewise1D{
		Breaks: []float64{-gam * lam, 0, gam * lam},
		Q:      [][3]float64{{0, 0, top}, {-1 / (2 * gam), -lam, 0}, {-1 / (2 * gam), lam, 0}, {0, 0, top}},
	}
}

func mcpValue(z, lam, gam float64) float64 {
	if a := math.Abs(z); a <= gam*lam {
		return lam*a - z*z/(2*gam)
	}
	return gam * lam * lam / 2
}

// firm is the closed-form prox of alpha mcp (alpha < gamma): firm
// thresholding, 0 up to alpha lambda, v beyond gamma lambda, linear
// between.
func firm(v, alpha, lam, gam float64) float64 {
	switch a := math.Abs(v); {
	case a <= alpha*lam:
		return 0
	case a <= gam*lam:
		return math.Copysign((a-alpha*lam)/(1-alpha/gam), v)
	}
	return v
}

// MinQuad of mcp plus (z - v)^2/(2 alpha) is firm thresholding, unboxed;
// boxed, with concave pieces or not, its value is the least of a fine
// grid's to the grid's resolution and never above it.
func TestPiecewiseMinQuad(t *testing.T) {
	t.Parallel()
	const lam, gam = 0.5, 3
	p := mcpPieces(lam, gam)
	require.NoError(t, p.Check())
	rng := rand.New(rand.NewPCG(30, 3))
	inf := math.Inf(1)
	for range 200 {
		v := 3 * rng.NormFloat64()
		alpha := 0.1 + 2.5*rng.Float64() // below gamma: convex
		z, _ := p.MinQuad(1/alpha, -v/alpha, -inf, inf)
		assert.InDelta(t, firm(v, alpha, lam, gam), z, 1e-12, "v %g alpha %g", v, alpha)
	}
	for range 200 {
		a := 2*rng.Float64() - 0.2 // some negative: concave pieces
		b := 2 * rng.NormFloat64()
		lo := -1 - 2*rng.Float64()
		hi := lo + 4*rng.Float64()
		z, v := p.MinQuad(a, b, lo, hi)
		f := func(z float64) float64 { return a/2*z*z + b*z + mcpValue(z, lam, gam) }
		assert.InDelta(t, f(z), v, 1e-12)
		assert.True(t, z >= lo && z <= hi)
		grid := math.Inf(1)
		const n = 200000
		for k := 0; k <= n; k++ {
			grid = math.Min(grid, f(lo+(hi-lo)*float64(k)/n))
		}
		assert.LessOrEqual(t, v, grid+1e-12)
		// the grid's minimum is within a Lipschitz constant of f on
		// [lo, hi] (|a| 3 + |b| + lambda) times its spacing of the true one
		h := (hi - lo) / n
		assert.InDelta(t, grid, v, (3*math.Abs(a)+math.Abs(b)+lam)*h)
	}
	// unbounded below: concave on an infinite end
	_, v := p.MinQuad(-1, 0, -inf, inf)
	assert.True(t, math.IsInf(v, -1))
}

// Sum adds two pieces' functions and Slopes gives the one-sided
// derivatives at a kink.
func TestPiecewiseSumSlopes(t *testing.T) {
	t.Parallel()
	abs := &Piecewise1D{Breaks: []float64{0}, Q: [][3]float64{{0, -1, 0}, {0, 1, 0}}}
	m := mcpPieces(1, 2)
	s := abs.Sum(m)
	require.NoError(t, s.Check())
	for _, z := range []float64{-5, -2, -1.5, -0.3, 0, 0.7, 2, 9} {
		assert.InDelta(t, math.Abs(z)+mcpValue(z, 1, 2), s.Value(z), 1e-12, "z %g", z)
	}
	l, r := s.Slopes(0)
	assert.Equal(t, -2.0, l)
	assert.Equal(t, 2.0, r)
	l, r = s.Slopes(1) // mcp' = 1 - 1/2, abs' = 1
	assert.InDelta(t, 1.5, l, 1e-15)
	assert.InDelta(t, 1.5, r, 1e-15)
}

// The prox oracle on a composite problem with a known minimiser:
//
//	min sum_j (x_j - c_j)^2 + mcp(x_j; 1, 3)  s.t.  sum x <= 1.6,  x in [-10, 10]^3
//
// with c = (0.3, -2, 4), convex (2 > 1/3). Its KKT conditions make
// x_j = firm(c_j - t, 1/2) with t = nu/2 and nu the multiplier; t = 0.6/2.2
// makes the sum 1.6 (the first coordinate stays at 0, the third beyond
// gamma lambda), so x* = (0, -1.2 (1.5 + t), 4 - t).
func TestProxOracleComposite(t *testing.T) {
	t.Parallel()
	c := []float64{0.3, -2, 4}
	const lam, gam = 1, 3
	smooth := sqDist(c)
	con := sumMinus(1.6)
	full := fn{
		f: func(x []float64) float64 {
			v := smooth.f(x)
			for _, z := range x {
				v += mcpValue(z, lam, gam)
			}
			return v
		},
		g: func(x, out []float64) {
			smooth.g(x, out)
			for j, z := range x {
				if a := math.Abs(z); a <= gam*lam && z != 0 {
					out[j] += math.Copysign(lam-a/gam, z)
				}
			}
		},
	}
	p := build(3, []fn{full, con}, box(-10, 10))
	rest := build(3, []fn{smooth, con}, nil)
	sep := &Separable{Eval: rest.Eval, Grad: rest.Grad}
	for j := range c {
		sep.Coords = append(sep.Coords, SeparableCoord{J: j, P: mcpPieces(lam, gam), Lo: -10, Hi: 10})
	}
	res, err := Minimize(context.Background(), p, []float64{0, 0, 0}, Settings{Oracle: &ProxOracle{Separable: sep}})
	require.NoError(t, err)
	assert.Equal(t, Converged, res.Status)
	require.NotNil(t, res.Certificate)
	assert.True(t, res.Certificate.Stationary)
	tt := 0.6 / 2.2
	want := []float64{0, -1.2 * (1.5 + tt), 4 - tt}
	for j := range want {
		// Eps = 1e-3: the certified distance to a nearly stationary point
		assert.InDelta(t, want[j], res.X[j], 1e-3, "x[%d]", j)
	}
	assert.Equal(t, 0.0, res.X[0], "the prox step makes a zero exact")
	assert.GreaterOrEqual(t, res.F[0], full.f(want)-1e-9)
	assert.InDelta(t, full.f(want), res.F[0], 1e-5)
}
