package solve

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// l1Form is the epigraph form of f0 = sum_j a_j |y_j - c_j| with the
// constraints sum_j y_j - b_i <= 0 (one per b), on the box [lo, hi]^n:
// t_j >= ±(y_j - c_j) for each j, f0 = sum_j a_j t_j.
func l1Form(a, c, b []float64, lo, hi float64) *EpigraphForm {
	n := len(c)
	g := &EpigraphForm{N: n, M: len(b), Aux: n, Ptr: []int{0}, CPtr: []int{0}}
	for j := range n {
		g.Floor = append(g.Floor, 0)
		for _, s := range []float64{1, -1} {
			g.Col = append(g.Col, int32(j))
			g.Val = append(g.Val, s)
			g.Ptr = append(g.Ptr, len(g.Col))
			g.B = append(g.B, -s*c[j])
			g.Def = append(g.Def, int32(j))
		}
		g.CCol = append(g.CCol, int32(n+j))
		g.CVal = append(g.CVal, a[j])
		g.Lo, g.Hi = append(g.Lo, lo), append(g.Hi, hi)
	}
	g.CPtr = append(g.CPtr, len(g.CCol))
	g.E = append(g.E, 0)
	for _, bi := range b {
		for j := range n {
			g.CCol = append(g.CCol, int32(j))
			g.CVal = append(g.CVal, 1)
		}
		g.CPtr = append(g.CPtr, len(g.CCol))
		g.E = append(g.E, -bi)
	}
	return g
}

// l1EpiProblem is the Problem l1Form stands for.
func l1EpiProblem(a, c, b []float64, lo, hi float64) *Problem {
	fs := []fn{weightedL1(a, c)}
	for _, bi := range b {
		fs = append(fs, sumMinus(bi))
	}
	return build(len(c), fs, box(lo, hi))
}

// The epigraph oracle on (7) with a closed form (the bundle oracle's
// test): f0 = |y1 - 2| + |y2 + 0.5| + |y3 + 3| with an inactive budget
// y1 + y2 + y3 <= 5, x_t = 0, RhoHat = 1: (7) separates into
// min |y - c| + y^2/2, solved by clip(c, -1, 1), so x_hat = (1, -0.5, -1)
// and F(x_hat) = 1 + 2 + (1 + 0.25 + 1)/2 = 4.125. The program is solved
// exactly: the gap and the certified distance are at rounding level.
func TestEpigraphOracleClosedForm(t *testing.T) {
	t.Parallel()
	a, c, b := []float64{1, 1, 1}, []float64{2, -0.5, -3}, []float64{5}
	p := l1EpiProblem(a, c, b, -10, 10)
	sv := subproblemSolver(t, p, Settings{Oracle: &EpigraphOracle{Form: l1Form(a, c, b, -10, 10)}})
	res, halt, err := sv.acc.solve([]float64{0, 0, 0}, accuracy{Abs: 1e-9, MaxEvals: 10})
	require.NoError(t, err)
	require.Equal(t, running, halt)
	xhat := []float64{1, -0.5, -1}
	require.True(t, res.Feasible)
	bound := res.DistBound(sv.rhoHat - sv.rho)
	assert.LessOrEqual(t, dist(sv.out, xhat), bound+1e-12, "the certified bound bounds the distance to x_hat")
	assert.InDelta(t, 4.125, res.F, 1e-9)
	assert.LessOrEqual(t, res.Lower, 4.125+1e-12, "a lower bound")
	assert.Less(t, res.Gap(), 1e-8)
	assert.Less(t, bound, 1e-4)
	assert.InDelta(t, 0, res.Lambda[0], 1e-8)
}

// An active constraint and its multiplier: f0 = |y1 - 2| + |y2 - 2| with
// y1 + y2 <= 1, x_t = 0, RhoHat = 1. Without the constraint x_hat would
// be (1, 1); with it, by symmetry y1 = y2 = 1/2, where the subgradient of
// |y - 2| is -1, so stationarity -1 + 1/2 + lambda = 0 gives lambda = 1/2.
func TestEpigraphOracleMultiplier(t *testing.T) {
	t.Parallel()
	a, c, b := []float64{1, 1}, []float64{2, 2}, []float64{1}
	p := l1EpiProblem(a, c, b, -10, 10)
	sv := subproblemSolver(t, p, Settings{Oracle: &EpigraphOracle{Form: l1Form(a, c, b, -10, 10)}})
	res, _, err := sv.acc.solve([]float64{0, 0}, accuracy{Abs: 1e-9, MaxEvals: 10})
	require.NoError(t, err)
	require.True(t, res.Feasible)
	assert.InDelta(t, 0.5, sv.out[0], 1e-8)
	assert.InDelta(t, 0.5, sv.out[1], 1e-8)
	assert.InDelta(t, 0.5, res.Lambda[0], 1e-7)
	assert.InDelta(t, 3+0.25, res.F, 1e-8) // 1.5 + 1.5 + (0.25 + 0.25)/2
}

// Minimize with the epigraph oracle: an LP with affine equalities,
// min |x1| + |x2| + |x3| s.t. x1 + x2 + x3 = 3, x1 - x2 = 0 on [-5, 5]^3,
// whose minimum is 3 (every nonnegative point of the plane with x1 = x2,
// by |x|_1 >= x1 + x2 + x3); and an infeasible one (x1 + x2 + x3 <= -20 on
// the same box) is Infeasible.
func TestEpigraphMinimize(t *testing.T) {
	t.Parallel()
	a, c := []float64{1, 1, 1}, []float64{0, 0, 0}
	g := l1Form(a, c, []float64{3, 0}, -5, 5)
	// the second constraint is x1 - x2: rewrite its row
	g.CVal[g.CPtr[2]+1] = -1
	g.CCol = g.CCol[:g.CPtr[2]+2]
	g.CVal = g.CVal[:g.CPtr[2]+2]
	g.CPtr[3] = len(g.CCol)
	p := build(3, []fn{weightedL1(a, c), sumMinus(3), linear([]float64{1, -1, 0}, 0)}, box(-5, 5))
	p.Kinds = []ConstraintKind{AffineEquality, AffineEquality}
	res, err := Minimize(context.Background(), p, []float64{-4, 1, 2}, Settings{Oracle: &EpigraphOracle{Form: g}, Eps: 1e-6})
	require.NoError(t, err)
	assert.Equal(t, Converged, res.Status)
	assert.InDelta(t, 3, res.Objective, 1e-8)
	assert.Less(t, res.Infeasibility, 1e-9)
	assert.InDelta(t, res.X[0], res.X[1], 1e-9)

	inf := l1EpiProblem(a, c, []float64{-20}, -5, 5)
	res, err = Minimize(context.Background(), inf, []float64{0, 0, 0}, Settings{Oracle: &EpigraphOracle{Form: l1Form(a, c, []float64{-20}, -5, 5)}})
	require.NoError(t, err)
	assert.Equal(t, Infeasible, res.Status)
}

// Check refuses forms that break the invariants Values relies on, and
// the oracle refuses a form of another size.
func TestEpigraphFormCheck(t *testing.T) {
	t.Parallel()
	a, c, b := []float64{1, 1}, []float64{0, 0}, []float64{1}
	ok := l1Form(a, c, b, -1, 1)
	require.NoError(t, ok.Check())
	later := l1Form(a, c, b, -1, 1)
	later.Col[0], later.Val[0] = int32(later.N+1), 1 // t_0's row uses t_1
	assert.ErrorContains(t, later.Check(), "uses t_1")
	neg := l1Form(a, c, b, -1, 1)
	neg.CVal[0] = -1 // f0 = -t_0 + t_1: not an epigraph
	assert.ErrorContains(t, neg.Check(), "function 0 has entry -1")
	order := l1Form(a, c, b, -1, 1)
	order.Def[0], order.Def[2] = 1, 0
	assert.ErrorContains(t, order.Check(), "out of order")
	p := l1EpiProblem([]float64{1, 1, 1}, []float64{0, 0, 0}, b, -1, 1)
	_, err := newSolver(context.Background(), p, make([]float64, 3), Settings{Oracle: &EpigraphOracle{Form: ok}})
	assert.ErrorContains(t, err, "the Epigraph oracle's form has 2 variables")
}
