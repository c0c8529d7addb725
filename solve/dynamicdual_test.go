package solve

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/dualqp"
)

// absData is the piecewise-linear problem on rows a_i, u_i in R
//
//	minimize  mean_i |x - a_i|
//	s.t.      mean_i pos(x - u_i) - c <= 0,  x in [-10, 10],
//
// with a Subsampler (rowsData's nested prefixes) and its pieces, built from
// the rows selected, for Problem.PiecesOf. Its known answer: f0 is convex
// with its minimum at the median of the a_i, the constraint nondecreasing
// in x, so x* = min(median, xc) with xc the root of the constraint.
type absData struct {
	rowsData
	a, u  []float64
	c     float64
	built int // the pieces built
}

func newAbsData(n int, seed uint64) *absData {
	r := rand.New(rand.NewPCG(seed, 3))
	d := &absData{a: make([]float64, n), u: make([]float64, n), c: 0.05}
	d.rowsData.a = make([][2]float64, n) // rowsData's Rows and Subsample count these
	for i := range n {
		d.a[i] = 1 + r.NormFloat64()
		d.u[i] = r.NormFloat64()
	}
	d.perm = r.Perm(n)
	return d
}

func (d *absData) problem() *Problem {
	p := &Problem{
		N: 1, M: 1, Names: []string{"budget"},
		Project: func(x []float64) { x[0] = math.Max(-10, math.Min(10, x[0])) },
		Eval: func(x, vals []float64) error {
			var f0, f1 float64
			n := d.rows(func(i int) {
				f0 += math.Abs(x[0] - d.a[i])
				f1 += math.Max(0, x[0]-d.u[i])
			})
			vals[0], vals[1] = f0/float64(n), f1/float64(n)-d.c
			d.last = append(d.last[:0], x...)
			return nil
		},
		Grad: func(w, g []float64) error {
			x := d.last[0]
			g[0] = 0
			n := float64(d.rows(func(i int) {
				if x > d.a[i] {
					g[0] += w[0]
				} else if x < d.a[i] {
					g[0] -= w[0]
				}
				if x > d.u[i] {
					g[0] += w[1]
				}
			}))
			g[0] /= n
			return nil
		},
		Sampler: d,
	}
	return p
}

// dynamic is the dynamic oracle o with, when pieces is set, the pieces of
// the rows selected as its PiecesOf.
func (d *absData) dynamic(o DynamicOracle, pieces bool) *DynamicOracle {
	if pieces {
		o.PiecesOf = func() (*dualqp.Model, error) { return d.pieces(), nil }
	}
	return &o
}

// pieces are the functions on the rows selected: |x - a_i| / n and
// pos(x - u_i) / n, one row each.
func (d *absData) pieces() *dualqp.Model {
	d.built++
	m := &dualqp.Model{N: 1, M: 1, Ptr: []int{0}, Q: make([][]float64, 2), E: []float64{0, -d.c},
		X: &dualqp.Domain{Lo: []float64{-10}, Hi: []float64{10}, Ball: []int32{-1}}}
	var rows []int
	n := float64(d.rows(func(i int) { rows = append(rows, i) }))
	for _, i := range rows {
		m.Col, m.Val = append(m.Col, 0), append(m.Val, 1/n)
		m.Ptr = append(m.Ptr, len(m.Col))
		m.B, m.Lo, m.Hi, m.Fn = append(m.B, -d.a[i]/n), append(m.Lo, -1), append(m.Hi, 1), append(m.Fn, 0)
	}
	for _, i := range rows {
		m.Col, m.Val = append(m.Col, 0), append(m.Val, 1/n)
		m.Ptr = append(m.Ptr, len(m.Col))
		m.B, m.Lo, m.Hi, m.Fn = append(m.B, -d.u[i]/n), append(m.Lo, 0), append(m.Hi, 1), append(m.Fn, 1)
	}
	return m
}

// answer is x* = min(median a, xc) and f0 there, on every row.
func (d *absData) answer() (float64, float64) {
	a := slices.Clone(d.a)
	sort.Float64s(a)
	med := a[len(a)/2]
	g := func(x float64) float64 {
		s := 0.0
		for _, u := range d.u {
			s += math.Max(0, x-u)
		}
		return s/float64(len(d.u)) - d.c
	}
	lo, hi := -10.0, 10.0
	for range 200 {
		if mid := (lo + hi) / 2; g(mid) > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	x := math.Min(med, lo)
	f := 0.0
	for _, v := range d.a {
		f += math.Abs(x - v)
	}
	return x, f / float64(len(d.a))
}

// With DynamicOracle.PiecesOf the dynamic oracle's rounds on the sample run the
// dual oracle (Stage.Oracle), on the sample's pieces built once for all
// its rounds, and so does the stage on every row, on every row's pieces;
// the solve ends feasible at the known answer. Without it every stage is
// bundle's.
func TestDynamicDualSamples(t *testing.T) {
	t.Parallel()
	for _, pieces := range []bool{true, false} {
		d := newAbsData(3000, 4)
		xstar, fstar := d.answer()
		res, err := Minimize(context.Background(), d.problem(), []float64{3}, Settings{Oracle: d.dynamic(DynamicOracle{Start: 500}, pieces), Eps: 1e-4})
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(res.Stages), DynamicRounds+1)
		last := len(res.Stages) - 1
		for r, st := range res.Stages[:last] {
			assert.Less(t, st.Fraction, 1.0)
			if pieces {
				assert.IsType(t, &DualOracle{}, st.Oracle, "round %d", r)
			} else {
				assert.IsType(t, &BundleOracle{}, st.Oracle, "round %d", r)
			}
		}
		if pieces {
			assert.IsType(t, &DualOracle{}, res.Stages[last].Oracle, "every row")
			assert.Equal(t, 2, d.built, "one sample's pieces, built once, and every row's")
		} else {
			assert.IsType(t, &BundleOracle{}, res.Stages[last].Oracle, "every row")
		}
		assert.LessOrEqual(t, res.Infeasibility, 0.0)
		assert.InDelta(t, fstar, res.Objective, 1e-4*fstar, "pieces %v", pieces)
		assert.InDelta(t, xstar, res.X[0], 1e-2, "pieces %v", pieces)
	}
}

// The control variates shift the pieces' affine rests as they shift the
// functions: the corrected problem's pieces agree with its Eval, and the
// sample's own pieces are left as they were.
func TestCorrectedPieces(t *testing.T) {
	t.Parallel()
	d := newAbsData(2000, 8)
	p := d.problem()
	_, err := d.Subsample(0.1)
	require.NoError(t, err)
	o := &DualOracle{Pieces: d.pieces()}
	before := *o.Pieces
	before.Q, before.E = slices.Clone(o.Pieces.Q), slices.Clone(o.Pieces.E)
	xs := []float64{0.4}
	var st Stats
	cq, co, _, err := corrected(p, o, d, 0.1, xs, &st)
	require.NoError(t, err)
	require.IsType(t, &DualOracle{}, co)
	cp := co.(*DualOracle).Pieces
	require.NotNil(t, cp)
	assert.NotSame(t, o.Pieces, cp)
	want, got := make([]float64, 2), make([]float64, 2)
	for _, x := range []float64{-3, 0.4, 0.9, 1.7, 6} {
		require.NoError(t, cq.Eval([]float64{x}, want))
		cp.Values([]float64{x}, got)
		assert.InDeltaSlice(t, want, got, 1e-12, "at %g", x)
	}
	assert.Equal(t, before.E, o.Pieces.E)
	assert.Equal(t, before.Q, o.Pieces.Q)
}

// With growing samples (SampleRounds < 0) every sample and every row run
// the dual oracle on their own pieces (each stage on new rows starting it
// cold, at DualStageRhoHatFactor times the last RhoHat).
func TestDynamicDualGrowingSamples(t *testing.T) {
	t.Parallel()
	d := newAbsData(3000, 4)
	_, fstar := d.answer()
	res, err := Minimize(context.Background(), d.problem(), []float64{3}, Settings{Oracle: d.dynamic(DynamicOracle{Rounds: -1, Start: 500, Growth: 2}, true), Eps: 1e-4})
	require.NoError(t, err)
	require.Len(t, res.Stages, 3, "500 rows, 1000 rows, all 3000")
	for i, st := range res.Stages {
		assert.IsType(t, &DualOracle{}, st.Oracle, "stage %d", i)
	}
	assert.Equal(t, 3, d.built, "each stage's pieces, once")
	assert.LessOrEqual(t, res.Infeasibility, 0.0)
	assert.InDelta(t, fstar, res.Objective, 1e-4*fstar)
}

// With too few rows to sample, the dynamic oracle solves on every row with
// the accurate oracle: the dual oracle when the model has its pieces.
func TestDynamicDualSmallData(t *testing.T) {
	t.Parallel()
	d := newAbsData(3000, 4)
	xstar, fstar := d.answer()
	res, err := Minimize(context.Background(), d.problem(), []float64{3}, Settings{Oracle: d.dynamic(DynamicOracle{}, true), Eps: 1e-4})
	require.NoError(t, err)
	require.Len(t, res.Stages, 1)
	assert.IsType(t, &DualOracle{}, res.Stages[0].Oracle)
	assert.Equal(t, 1.0, res.Stages[0].Fraction)
	// from an infeasible start: phase 1 ends at max_i f_i <= Eps^2, and
	// the status promises Infeasibility <= Eps
	assert.LessOrEqual(t, res.Infeasibility, 1e-8)
	assert.InDelta(t, fstar, res.Objective, 1e-4*fstar)
	assert.InDelta(t, xstar, res.X[0], 1e-2)
}
