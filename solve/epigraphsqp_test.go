package solve

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxOfSquares is f0(y) = max(y^2, (y - 2)^2) in one variable with the
// constraints c_i(y) = a_i y + b_i <= 0, as a Problem and as its epigraph
// form with smooth terms s_0 = y^2, s_1 = (y - 2)^2.
func maxOfSquares(cons [][2]float64) (*Problem, *EpigraphForm) {
	f0 := fn{
		f: func(x []float64) float64 { return math.Max(x[0]*x[0], (x[0]-2)*(x[0]-2)) },
		g: func(x, out []float64) {
			if x[0] >= 1 {
				out[0] = 2 * x[0]
			} else {
				out[0] = 2 * (x[0] - 2)
			}
		},
	}
	fs := []fn{f0}
	for _, c := range cons {
		fs = append(fs, linear([]float64{c[0]}, c[1]))
	}
	p := build(1, fs, nil)
	var last float64
	g := &EpigraphForm{N: 1, M: len(cons), Aux: 1, Floor: []float64{math.Inf(-1)},
		Ptr: []int{0, 0, 0}, B: []float64{0, 0}, Def: []int32{0, 0},
		CPtr: []int{0, 1}, CCol: []int32{1}, CVal: []float64{1}, E: []float64{0},
		Lo: []float64{math.Inf(-1)}, Hi: []float64{math.Inf(1)},
		SPtr: []int{0, 1, 2}, SOut: []int32{0, 1}, SCoef: []float64{1, 1},
		FSPtr: []int{0, 0}}
	for _, c := range cons {
		g.CCol = append(g.CCol, 0)
		g.CVal = append(g.CVal, c[0])
		g.CPtr = append(g.CPtr, len(g.CCol))
		g.E = append(g.E, c[1])
		g.FSPtr = append(g.FSPtr, 0)
	}
	g.Smooth = &EpigraphSmooth{K: 2, Support: [][]int32{{0}, {0}},
		Eval: func(x, vals []float64) error {
			last = x[0]
			vals[0], vals[1] = x[0]*x[0], (x[0]-2)*(x[0]-2)
			return nil
		},
		Grad: func(w, g []float64) error {
			g[0] = w[0]*2*last + w[1]*2*(last-2)
			return nil
		}}
	return p, g
}

// The SQP run of the epigraph oracle on (7) with closed forms, RhoHat = 1:
//   - at x_t = 3, min max(y^2, (y-2)^2) + (y-3)^2/2 is at the kink y = 1,
//     where the subdifferential [-2, 2] + (1 - 3) holds 0: F = 1 + 2 = 3;
//   - at x_t = 0 with y >= 1.5 (1.5 - y <= 0), the max is y^2 there and
//     y^2 + y^2/2 increases: y = 1.5, F = 3.375, the multiplier 3 y = 4.5.
func TestEpigraphSQPClosedForm(t *testing.T) {
	t.Parallel()
	p, g := maxOfSquares(nil)
	sv := subproblemSolver(t, p, Settings{Oracle: &EpigraphOracle{Form: g}, RhoHat: 1})
	res, halt, err := sv.acc.solve([]float64{3}, accuracy{Abs: 1e-10, MaxEvals: 1000})
	require.NoError(t, err)
	require.Equal(t, running, halt)
	require.True(t, res.Feasible)
	assert.InDelta(t, 1, sv.out[0], 1e-7)
	assert.InDelta(t, 3, res.F, 1e-9)
	assert.LessOrEqual(t, res.Lower, 3+1e-12, "a lower bound")
	assert.Less(t, res.Gap(), 1e-6)
	assert.LessOrEqual(t, dist(sv.out, []float64{1}), res.DistBound(sv.rhoHat-sv.rho)+1e-12)

	p, g = maxOfSquares([][2]float64{{-1, 1.5}})
	sv = subproblemSolver(t, p, Settings{Oracle: &EpigraphOracle{Form: g}, RhoHat: 1})
	res, _, err = sv.acc.solve([]float64{0}, accuracy{Abs: 1e-10, MaxEvals: 1000})
	require.NoError(t, err)
	require.True(t, res.Feasible)
	assert.InDelta(t, 1.5, sv.out[0], 1e-8)
	assert.InDelta(t, 3.375, res.F, 1e-8)
	assert.InDelta(t, 4.5, res.Lambda[0], 1e-5)
	assert.LessOrEqual(t, res.Lower, 3.375+1e-12)
	assert.Less(t, res.Gap(), 1e-6)
}

// Minimize with the SQP run from y = 5 ends at the minimiser y = 1 of
// max(y^2, (y-2)^2), certified, in few outer steps.
func TestEpigraphSQPMinimize(t *testing.T) {
	t.Parallel()
	p, g := maxOfSquares(nil)
	res, err := Minimize(context.Background(), p, []float64{5}, Settings{Oracle: &EpigraphOracle{Form: g}})
	require.NoError(t, err)
	assert.Equal(t, Converged, res.Status)
	assert.InDelta(t, 1, res.Objective, 1e-8)
	assert.InDelta(t, 1, res.X[0], 1e-6)
	assert.Less(t, res.Stats.Outer, 30)
}
