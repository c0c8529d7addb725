package penalty_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/qrc-lang/qrc/penalty"
)

// A hand-solved instance:
//
//	minimize  s1 - s2 + p max(0, 0.5 - s1)   over |s1|, |s2| <= 1.
//
// s2 = 1 always. For s1 < 0.5 the slope in s1 is 1 - p, above it 1: with
// p = 3 the minimum is at the kink s1 = 0.5 (value -0.5); with p = 0.5 the
// penalty does not pay and s1 = -1 (value -1 - 1 + 0.5*1.5 = -1.25).
func TestSubproblemHandSolved(t *testing.T) {
	for _, c := range []struct {
		p       float64
		s       []float64
		value   float64
		violate float64
	}{
		{3, []float64{0.5, 1}, -0.5, 0},
		{0.5, []float64{-1, 1}, -1.25, 1.5},
	} {
		sp := &penalty.Subproblem{G0: []float64{1, -1}, F: []float64{0.5}, G: [][]float64{{-1, 0}}, P: c.p, Delta: 1}
		s, _, err := sp.Solve()
		require.NoError(t, err)
		assert.InDeltaSlice(t, c.s, s, 1e-12, "p = %v", c.p)
		assert.InDelta(t, c.value, sp.Model(s), 1e-12)
		assert.InDelta(t, c.violate, sp.Violation(s), 1e-12)
	}

	// Two constraints whose linearisations cannot both hold inside the
	// box: 1 + s1 <= 0 and 1 - s1 <= 0 with |s1| <= 0.5. The violation
	// is (1 + s1) + (1 - s1) = 2 wherever both are positive, so the
	// objective decides: G0 = (-1) pushes s1 to the bound 0.5.
	sp := &penalty.Subproblem{G0: []float64{-1}, F: []float64{1, 1}, G: [][]float64{{1}, {-1}}, P: 10, Delta: 0.5}
	s, _, err := sp.Solve()
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{0.5}, s, 1e-12)
	assert.InDelta(t, -0.5+20, sp.Model(s), 1e-12)

	// No objective (the feasibility subproblem): reach the constraint
	// 2 - s1 - s2 <= 0 within |s| <= 1, at s = (1, 1), violation 0.
	sp = &penalty.Subproblem{F: []float64{2}, G: [][]float64{{-1, -1}}, P: 1, Delta: 1}
	s, _, err = sp.Solve()
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{1, 1}, s, 1e-12)
	assert.InDelta(t, 0, sp.Violation(s), 1e-12)
}

// On random instances the bounded simplex agrees with gonum's lp.Simplex on
// the same program in standard form (s = u - Delta, u + w = 2 Delta).
func TestSubproblemAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 40; trial++ {
		n, m := 2+rng.IntN(12), rng.IntN(8)
		sp := &penalty.Subproblem{G0: make([]float64, n), F: make([]float64, m), G: make([][]float64, m),
			P: math.Pow(10, rng.Float64()*3-1), Delta: math.Pow(10, rng.Float64()*2-1.5)}
		for j := range sp.G0 {
			sp.G0[j] = rng.NormFloat64()
		}
		for i := range sp.G {
			sp.F[i] = rng.NormFloat64() * sp.Delta * 3
			sp.G[i] = make([]float64, n)
			for j := range sp.G[i] {
				if rng.IntN(3) > 0 {
					sp.G[i][j] = rng.NormFloat64()
				}
			}
		}
		s, _, err := sp.Solve()
		require.NoError(t, err)
		for _, sj := range s {
			require.LessOrEqual(t, math.Abs(sj), sp.Delta)
		}
		want := gonumValue(t, sp)
		assert.InDelta(t, want, sp.Model(s), 1e-9*(1+math.Abs(want)), "trial %d (n=%d, m=%d)", trial, n, m)
	}
}

// gonumValue solves sp with lp.Simplex: variables (u, w, t, q) >= 0,
// u + w = 2 Delta, G u - t + q = -F + Delta G 1, min G0·u + P sum t.
func gonumValue(t *testing.T, sp *penalty.Subproblem) float64 {
	n, m := len(sp.G0), len(sp.F)
	rows, cols := n+m, 2*n+2*m
	A := mat.NewDense(rows, cols, nil)
	b := make([]float64, rows)
	c := make([]float64, cols)
	shift := 0.0
	for j := 0; j < n; j++ {
		A.Set(j, j, 1)
		A.Set(j, n+j, 1)
		b[j] = 2 * sp.Delta
		c[j] = sp.G0[j]
		shift -= sp.G0[j] * sp.Delta
	}
	for i := 0; i < m; i++ {
		sum := 0.0
		for j := 0; j < n; j++ {
			A.Set(n+i, j, sp.G[i][j])
			sum += sp.G[i][j]
		}
		A.Set(n+i, 2*n+i, -1)
		A.Set(n+i, 2*n+m+i, 1)
		b[n+i] = -sp.F[i] + sp.Delta*sum
		c[2*n+i] = sp.P
	}
	opt, _, err := lp.Simplex(c, A, b, 1e-12, nil)
	require.NoError(t, err)
	return opt + shift
}

func TestSubproblemErrors(t *testing.T) {
	for _, sp := range []*penalty.Subproblem{
		{G0: []float64{1}, Delta: 0, P: 1},
		{G0: []float64{1}, Delta: 1, P: math.NaN()},
		{G0: []float64{1}, F: []float64{1}, G: nil, Delta: 1, P: 1},
		{G0: []float64{1, 2}, F: []float64{1}, G: [][]float64{{1}}, Delta: 1, P: 1},
		{Delta: 1, P: 1},
	} {
		_, _, err := sp.Solve()
		assert.Error(t, err)
	}
}
