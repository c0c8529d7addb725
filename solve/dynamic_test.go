package solve

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rowsData is a data set of rows a_i, u_i in R^2 for the test problem
//
//	minimize  mean_i ||x - a_i||^2 / 2
//	s.t.      mean_i (u_i . x)^2 - 1 <= 0,
//
// with a Sampler that implements Subsampler (nested prefixes of one
// permutation). Its known answer: with abar the mean of a_i and S the
// mean of u_i u_i^T, the KKT conditions give x = (I + 2 lambda S)^-1 abar
// with x^T S x = 1 (the constraint is active when abar^T S abar > 1).
type rowsData struct {
	a, u [][2]float64
	sel  []int // the selected rows; nil for all
	perm []int
	last []float64
}

func newRowsData(n int, seed uint64) *rowsData {
	r := rand.New(rand.NewPCG(seed, 1))
	d := &rowsData{a: make([][2]float64, n), u: make([][2]float64, n)}
	for i := range n {
		d.a[i] = [2]float64{2 + r.NormFloat64(), 1 + r.NormFloat64()}
		d.u[i] = [2]float64{r.NormFloat64(), 0.5 * r.NormFloat64()}
	}
	d.perm = r.Perm(n)
	return d
}

func (d *rowsData) rows(f func(i int)) int {
	if d.sel == nil {
		for i := range d.a {
			f(i)
		}
		return len(d.a)
	}
	for _, i := range d.sel {
		f(i)
	}
	return len(d.sel)
}

func (d *rowsData) problem() *Problem {
	return &Problem{
		N: 2, M: 1, Smooth: true, Names: []string{"moment"},
		Eval: func(x, vals []float64) error {
			d.last = append(d.last[:0], x...)
			var f0, f1 float64
			n := d.rows(func(i int) {
				a, u := d.a[i], d.u[i]
				f0 += ((x[0]-a[0])*(x[0]-a[0]) + (x[1]-a[1])*(x[1]-a[1])) / 2
				z := u[0]*x[0] + u[1]*x[1]
				f1 += z * z
			})
			vals[0], vals[1] = f0/float64(n), f1/float64(n)-1
			return nil
		},
		Grad: func(w, g []float64) error {
			x := d.last
			clear(g)
			n := float64(d.rows(func(i int) {
				a, u := d.a[i], d.u[i]
				z := u[0]*x[0] + u[1]*x[1]
				for j := range 2 {
					g[j] += w[0]*(x[j]-a[j]) + w[1]*2*z*u[j]
				}
			}))
			g[0] /= n
			g[1] /= n
			return nil
		},
		Sampler: d,
	}
}

func (d *rowsData) Draw(*rand.Rand) error { return nil }
func (d *rowsData) Monitor() bool         { d.sel = nil; return true }
func (d *rowsData) Full()                 { d.sel = nil }
func (d *rowsData) Rows() int             { return len(d.a) }
func (d *rowsData) Subsample(frac float64) (int, error) {
	n := min(len(d.a), max(1, int(math.Ceil(frac*float64(len(d.a))))))
	d.sel = slices.Clone(d.perm[:n])
	return n, nil
}

// answer is the known solution on all rows: lambda by bisection on
// x(lambda)^T S x(lambda) = 1.
func (d *rowsData) answer() (x [2]float64, obj float64) {
	var abar [2]float64
	var S [2][2]float64
	for i := range d.a {
		for j := range 2 {
			abar[j] += d.a[i][j]
			for k := range 2 {
				S[j][k] += d.u[i][j] * d.u[i][k]
			}
		}
	}
	n := float64(len(d.a))
	for j := range 2 {
		abar[j] /= n
		for k := range 2 {
			S[j][k] /= n
		}
	}
	at := func(l float64) ([2]float64, float64) {
		m := [2][2]float64{{1 + 2*l*S[0][0], 2 * l * S[0][1]}, {2 * l * S[1][0], 1 + 2*l*S[1][1]}}
		det := m[0][0]*m[1][1] - m[0][1]*m[1][0]
		y := [2]float64{(m[1][1]*abar[0] - m[0][1]*abar[1]) / det, (m[0][0]*abar[1] - m[1][0]*abar[0]) / det}
		q := y[0]*(S[0][0]*y[0]+S[0][1]*y[1]) + y[1]*(S[1][0]*y[0]+S[1][1]*y[1])
		return y, q
	}
	lo, hi := 0.0, 1e6
	for range 200 {
		mid := (lo + hi) / 2
		if _, q := at(mid); q > 1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	x, _ = at(hi)
	vals := make([]float64, 2)
	d.sel = nil
	p := d.problem()
	_ = p.Eval(x[:], vals)
	return x, vals[0]
}

// The dynamic oracle with growing samples (SampleRounds < 0) on 100 000
// rows: one stage on 10 000 of them, then all rows; it ends converged,
// exactly feasible, at the known answer, as the smooth oracle on all rows
// does.
func TestDynamicKnownAnswer(t *testing.T) {
	t.Parallel()
	d := newRowsData(100_000, 5)
	want, wantObj := d.answer()
	res, err := Minimize(context.Background(), d.problem(), []float64{0, 0}, Settings{Oracle: &DynamicOracle{Rounds: -1}})
	require.NoError(t, err)
	require.Len(t, res.Stages, 2)
	assert.Equal(t, DynamicStartRows, res.Stages[0].Rows)
	assert.InDelta(t, 0.1, res.Stages[0].Fraction, 1e-12)
	assert.Equal(t, 100_000, res.Stages[1].Rows)
	assert.Equal(t, 1.0, res.Stages[1].Fraction)
	assert.InDelta(t, DefaultEps*math.Sqrt(10), res.Stages[0].Eps, 1e-12)
	assert.Equal(t, Converged, res.Status)
	assert.Equal(t, 0.0, res.Infeasibility)
	require.NotNil(t, res.Certificate)
	assert.True(t, res.Certificate.Stationary)
	assert.InDelta(t, want[0], res.X[0], 2e-3)
	assert.InDelta(t, want[1], res.X[1], 2e-3)
	assert.InDelta(t, wantObj, res.Objective, 1e-5*wantObj)
	assert.InDelta(t, float64(res.Stages[0].Evals)*0.1+float64(res.Stages[1].Evals), Passes(res.Stages), 1e-9)
	assert.Equal(t, res.Stats.Evals, res.Stages[0].Evals+res.Stages[1].Evals)
	assert.Zero(t, res.Stages[0].RestoreEvals)
	assert.GreaterOrEqual(t, res.Stages[1].RestoreEvals, 1)
	assert.LessOrEqual(t, res.Stages[1].RestoreEvals, maxRestoreSteps+1)

	ref, err := Minimize(context.Background(), d.problem(), []float64{0, 0}, Settings{Oracle: Smooth})
	require.NoError(t, err)
	require.Equal(t, Converged, ref.Status)
	assert.InDelta(t, ref.Objective, res.Objective, 1e-5*ref.Objective)
}

// The default schedule: two rounds on one sample of 10 000 rows with
// control variates, then all rows; converged at the known answer, with
// one correction pass per round counted in the passes.
func TestDynamicControlVariates(t *testing.T) {
	t.Parallel()
	d := newRowsData(100_000, 5)
	want, wantObj := d.answer()
	res, err := Minimize(context.Background(), d.problem(), []float64{0, 0}, Settings{Oracle: Dynamic})
	require.NoError(t, err)
	require.Len(t, res.Stages, DynamicRounds+1)
	passes := 0.0
	for r, st := range res.Stages[:DynamicRounds] {
		assert.Equal(t, DynamicStartRows, st.Rows, "round %d", r)
		assert.InDelta(t, 0.1, st.Fraction, 1e-12)
		assert.Equal(t, 1.0, st.CorrectionPasses, "round %d", r)
		passes += float64(st.Evals)*0.1 + 1
	}
	last := res.Stages[DynamicRounds]
	assert.Equal(t, 100_000, last.Rows)
	assert.Zero(t, last.CorrectionPasses)
	passes += float64(last.Evals)
	assert.InDelta(t, passes, Passes(res.Stages), 1e-9)
	assert.Equal(t, Converged, res.Status)
	assert.Equal(t, 0.0, res.Infeasibility)
	assert.InDelta(t, want[0], res.X[0], 2e-3)
	assert.InDelta(t, want[1], res.X[1], 2e-3)
	assert.InDelta(t, wantObj, res.Objective, 1e-5*wantObj)
}

// corrected's functions agree with the data's in value and gradient at the
// point of correction; the objective, a quadratic whose Hessian (I) is the
// same on every sample, agrees everywhere; the constraint differs by
// (x - xs)^T (S_sample - S) (x - xs), S the second moment of the u_i; and
// its gradient is that of its values (central differences).
func TestCorrected(t *testing.T) {
	t.Parallel()
	d := newRowsData(20_000, 9)
	p := d.problem()
	// a Jacobian (as problem.New sets one), so that the corrected
	// problem's must be corrected too
	p.Jacobian = func(rows [][]float64) error {
		for f, r := range rows {
			w := make([]float64, len(rows))
			w[f] = 1
			if err := p.Grad(w, r); err != nil {
				return err
			}
		}
		return nil
	}
	xs := []float64{0.7, -0.3}
	var st Stats
	cq, _, fv, err := corrected(p, Smooth, d, 0.05, xs, &st)
	require.NoError(t, err)
	assert.Equal(t, Stats{Evals: 1, Grads: 2}, st)
	require.Len(t, d.sel, 1000, "the sample stays selected")
	second := func(rows []int) (S [2][2]float64) {
		for _, i := range rows {
			for j := range 2 {
				for k := range 2 {
					S[j][k] += d.u[i][j] * d.u[i][k] / float64(len(rows))
				}
			}
		}
		return S
	}
	sample := slices.Clone(d.sel)
	all := make([]int, len(d.a))
	for i := range all {
		all[i] = i
	}
	sS, sA := second(sample), second(all)
	fullAt := func(x []float64) ([]float64, []float64) {
		d.sel = nil
		vals, g := make([]float64, 2), make([]float64, 2)
		require.NoError(t, p.Eval(x, vals))
		require.NoError(t, p.Grad([]float64{0, 1}, g))
		d.sel = sample
		return vals, g
	}
	want, wantG := fullAt(xs)
	assert.InDeltaSlice(t, want, fv, 1e-15)
	got, g := make([]float64, 2), make([]float64, 2)
	require.NoError(t, cq.Eval(xs, got))
	assert.InDeltaSlice(t, want, got, 1e-12)
	require.NoError(t, cq.Grad([]float64{0, 1}, g))
	assert.InDeltaSlice(t, wantG, g, 1e-12)

	for _, x := range [][]float64{{2, 1}, {-1, 0.5}, {0.7, 3}} {
		want, _ := fullAt(x)
		require.NoError(t, cq.Eval(x, got))
		assert.InDelta(t, want[0], got[0], 1e-12*(1+math.Abs(want[0])), "objective at %v", x)
		dx := []float64{x[0] - xs[0], x[1] - xs[1]}
		quad := 0.0
		for j := range 2 {
			for k := range 2 {
				quad += dx[j] * (sS[j][k] - sA[j][k]) * dx[k]
			}
		}
		assert.InDelta(t, want[1]+quad, got[1], 1e-12*(1+math.Abs(want[1])), "constraint at %v", x)
		require.NoError(t, cq.Grad([]float64{1, 2}, g))
		rows := [][]float64{make([]float64, 2), make([]float64, 2)}
		require.NoError(t, cq.Jacobian(rows))
		for j := range 2 {
			assert.InDelta(t, g[j], rows[0][j]+2*rows[1][j], 1e-12, "Jacobian's rows at %v", x)
		}
		for j := range 2 {
			const h = 1e-6
			xp, xm := slices.Clone(x), slices.Clone(x)
			xp[j] += h
			xm[j] -= h
			vp, vm := make([]float64, 2), make([]float64, 2)
			require.NoError(t, cq.Eval(xp, vp))
			require.NoError(t, cq.Eval(xm, vm))
			fd := (vp[0] + 2*vp[1] - vm[0] - 2*vm[1]) / (2 * h)
			assert.InDelta(t, fd, g[j], 1e-6*(1+math.Abs(fd)), "gradient %d at %v", j, x)
		}
	}
}

// Without enough rows to sample (or without a Subsampler) Dynamic is the
// accurate oracle on all rows, in one stage.
func TestDynamicSmallData(t *testing.T) {
	t.Parallel()
	d := newRowsData(1000, 6)
	want, _ := d.answer()
	res, err := Minimize(context.Background(), d.problem(), []float64{0, 0}, Settings{Oracle: Dynamic})
	require.NoError(t, err)
	require.Len(t, res.Stages, 1)
	assert.Equal(t, 1.0, res.Stages[0].Fraction)
	assert.Equal(t, Converged, res.Status)
	assert.InDelta(t, want[0], res.X[0], 2e-3)

	p := ballProblem()
	p.Smooth = true
	res, err = Minimize(context.Background(), p, []float64{0, 0}, Settings{Oracle: Dynamic})
	require.NoError(t, err)
	assert.Equal(t, Converged, res.Status)
	assert.InDelta(t, 0.6, res.X[0], 1e-3)
	assert.InDelta(t, 0.8, res.X[1], 1e-3)
}

// A stage cut short by the time limit ends the solve with the stage's
// point evaluated on all rows, no certificate, and a feasible point or
// status Infeasible.
func TestDynamicTimeLimit(t *testing.T) {
	t.Parallel()
	d := newRowsData(100_000, 7)
	res, err := Minimize(context.Background(), d.problem(), []float64{0, 0}, Settings{Oracle: Dynamic, TimeLimit: 1})
	require.NoError(t, err)
	assert.Nil(t, res.Certificate)
	assert.NotEmpty(t, res.NoCertificate)
	require.NotNil(t, res.F)
	if res.Status.Success() {
		assert.LessOrEqual(t, res.Infeasibility, DefaultEps)
	} else {
		assert.Equal(t, Infeasible, res.Status)
	}
	vals := make([]float64, 2)
	d.sel = nil
	require.NoError(t, d.problem().Eval(res.X, vals))
	assert.Equal(t, vals, res.F, "the values are on all rows")
}

// restoreFeasible takes a point just outside the constraints to one inside
// in a few Gauss-Newton steps.
func TestRestoreFeasible(t *testing.T) {
	t.Parallel()
	d := newRowsData(1000, 8)
	p := d.problem()
	x := []float64{1.2, 0.9}
	vals := make([]float64, 2)
	require.NoError(t, p.Eval(x, vals))
	require.Greater(t, vals[1], 0.0)
	var st Stats
	ok, err := restoreFeasible(p, x, vals, &st)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.LessOrEqual(t, vals[1], 0.0)
	assert.LessOrEqual(t, st.Evals, 5)
	check := make([]float64, 2)
	require.NoError(t, p.Eval(x, check))
	assert.Equal(t, check, vals)

	// already feasible: one evaluation, x unchanged
	x = []float64{0.1, 0.1}
	st = Stats{}
	ok, err = restoreFeasible(p, x, vals, &st)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, []float64{0.1, 0.1}, x)
	assert.Equal(t, 1, st.Evals)

	// Cholesky on a 2x2 system
	z, ok := solveSPD([]float64{4, 2, 2, 3}, []float64{2, 1}, 2)
	require.True(t, ok)
	assert.InDelta(t, 0.5, z[0], 1e-15)
	assert.InDelta(t, 0.0, z[1], 1e-15)
	_, ok = solveSPD([]float64{1, 2, 2, 1}, []float64{1, 1}, 2)
	assert.False(t, ok)
}

// A time limit in a sampled stage: the stage's point is restored to
// feasibility on all rows within the grace, or returned as it is (status
// Infeasible when it violates a constraint by more than Eps) when the grace
// is over; Stop returns it as it is.
func TestHaltedStages(t *testing.T) {
	t.Parallel()
	d := newRowsData(1000, 9)
	p := d.problem()
	_, err := d.Subsample(0.1)
	require.NoError(t, err)
	x := []float64{1.2, 0.9} // outside the constraint on all rows
	vals := make([]float64, 2)
	d.sel = nil
	require.NoError(t, p.Eval(x, vals))
	require.Greater(t, vals[1], DefaultEps)
	stages := []Stage{{Rows: 100, Fraction: 0.1}}
	began := time.Now()

	_, _ = d.Subsample(0.1)
	res, err := haltedStages(p, d, &Result{Status: TimeLimit, Point: Point{X: x}}, stages, Stats{}, began, 3, DefaultEps, began.Add(time.Hour))
	require.NoError(t, err)
	assert.Nil(t, d.sel, "all rows selected")
	assert.Equal(t, TimeLimit, res.Status)
	assert.Equal(t, 0.0, res.Infeasibility)
	assert.NotEmpty(t, res.NoCertificate)
	assert.Equal(t, stages, res.Stages)
	require.NotNil(t, res.Best)
	assert.Greater(t, res.Stats.Evals, 1)

	res, err = haltedStages(p, d, &Result{Status: TimeLimit, Point: Point{X: x}}, stages, Stats{}, began, 3, DefaultEps, began.Add(-time.Second))
	require.NoError(t, err)
	assert.Equal(t, Infeasible, res.Status, "no time to restore")
	assert.Equal(t, []int{1}, res.Violated)
	assert.Equal(t, 1, res.Stats.Evals)
	assert.Equal(t, []float64{1.2, 0.9}, x, "the stage's point is not modified")

	res, err = haltedStages(p, d, &Result{Status: Interrupted, Point: Point{X: []float64{0.1, 0.1}}}, stages, Stats{}, began, 3, DefaultEps, began.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, Interrupted, res.Status)
	assert.Equal(t, "the solve was interrupted", res.NoCertificate)
	assert.Equal(t, []float64{0.1, 0.1}, res.X)

	// a last stage halted in its restoration reports the values of the
	// point returned, computed on every row, not zeros (lastStageValues)
	two := []Stage{{Rows: 100, Fraction: 0.1, Objective: 7}, {Rows: 1000, Fraction: 1}}
	res, err = haltedStages(p, d, &Result{Status: Interrupted, Point: Point{X: []float64{0.3, 0.2}}}, two, Stats{}, began, 3, DefaultEps, began.Add(time.Hour))
	require.NoError(t, err)
	lastStageValues(res)
	require.NoError(t, p.Eval([]float64{0.3, 0.2}, vals))
	assert.Equal(t, vals[0], res.Stages[1].Objective)
	assert.NotZero(t, res.Stages[1].Objective)
	assert.Equal(t, infeasibility(vals), res.Stages[1].Infeasibility)
	assert.Equal(t, 7.0, res.Stages[0].Objective, "the earlier stage keeps its own")
}

// TestDynamicRoundsAdaptive: rounds that stop at their step limit are
// followed by more, up to DynamicMaxRounds; an explicit SampleRounds is
// the number of rounds, whatever they do; every round takes at most
// DynamicRoundOuter outer steps (or Outer, when lower).
func TestDynamicRoundsAdaptive(t *testing.T) {
	t.Parallel()
	d := newRowsData(100_000, 5)
	res, err := Minimize(context.Background(), d.problem(), []float64{0, 0}, Settings{Oracle: Dynamic, Outer: 1})
	require.NoError(t, err)
	require.Len(t, res.Stages, DynamicMaxRounds+1, "every round stopped at its one step")
	for r, st := range res.Stages[:DynamicMaxRounds] {
		assert.Equal(t, IterationLimit, st.Status, "round %d", r)
		assert.LessOrEqual(t, st.Outer, 1, "round %d", r)
	}
	res, err = Minimize(context.Background(), d.problem(), []float64{0, 0}, Settings{Oracle: &DynamicOracle{Rounds: 3}, Outer: 1})
	require.NoError(t, err)
	require.Len(t, res.Stages, 3+1)
	res, err = Minimize(context.Background(), d.problem(), []float64{0, 0}, Settings{Oracle: Dynamic, Outer: 500})
	require.NoError(t, err)
	require.Len(t, res.Stages, DynamicRounds+1, "the rounds converged")
	for _, st := range res.Stages[:DynamicRounds] {
		assert.LessOrEqual(t, st.Outer, DynamicRoundOuter)
		assert.Equal(t, Converged, st.Status)
	}
}
