package solve

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ballProblem is min ||x - c||^2 s.t. ||x||^2 - 1 <= 0, c = (3, 4):
// x* = c/||c|| = (0.6, 0.8), and grad f0 + lambda grad f1 = 0 gives
// 2(x* - c) + 2 lambda x* = 0, lambda = ||c|| - 1 = 4.
func ballProblem() *Problem {
	p := build(2, []fn{sqDist([]float64{3, 4}), sqNorm(1, -1)}, nil)
	p.Names = []string{"unit"}
	return p
}

// l1Problem is min |x1-4| + 2|x2-1.5| + 3|x3+3| s.t. x1+x2+x3 <= 1,
// x in [-2,2]^3. Clipping c = (4, 1.5, -3) to the box gives (2, 1.5, -2)
// with sum 1.5, so the sum must come down by 1/2; lowering x1 costs 1 per
// unit, x2 costs 2, x3 is at its bound. So x* = (1.5, 1.5, -2), f* = 5.5,
// and the KKT conditions hold with lambda = 1: coordinate 1: -1 + 1 = 0;
// coordinate 2 is at its kink, 0 in [-2, 2] + 1; coordinate 3: the normal
// cone of the bound x3 >= -2 takes 3 + 1.
func l1Problem() *Problem {
	return build(3, []fn{weightedL1([]float64{1, 2, 3}, []float64{4, 1.5, -3}), sumMinus(1)}, box(-2, 2))
}

// circleProblem is min ||x - (1/2, 0)||^2 s.t. 1 - ||x||^2 <= 0 (stay out
// of the unit disc; a concave, 2-weakly convex constraint), x in
// [-2,2]^2. The nearest feasible point to (1/2, 0) is x* = (1, 0), a KKT
// point with 2(x* - c) - 2 lambda x* = 0, lambda = 1/2.
func circleProblem() *Problem {
	p := build(2, []fn{sqDist([]float64{0.5, 0}), sqNorm(-1, 1)}, box(-2, 2))
	p.WeakConvexity = 2
	return p
}

func distTo(x []float64, y ...float64) float64 { return dist(x, y) }

func TestBallKnownAnswer(t *testing.T) {
	t.Parallel()
	r, err := Minimize(context.Background(), ballProblem(), []float64{0, 0}, Settings{Oracle: Switching})
	require.NoError(t, err)
	assert.Equal(t, Converged, r.Status)
	assert.Less(t, distTo(r.X, 0.6, 0.8), 1e-2)
	assert.LessOrEqual(t, r.Infeasibility, 1e-3)
	require.NotNil(t, r.Certificate)
	c := r.Certificate
	assert.InDelta(t, 4, c.Multipliers[0], 0.1)
	assert.Less(t, c.Stationarity, 1e-2)
	// with the default 1000 inner iterations the oracle's bias stalls x
	// about 0.008 from x_hat; Converged needs a stationary certificate, so
	// the solver doubled Inner until it got one
	assert.InDelta(t, dist(r.X, c.XHat), c.Dist, 1e-15)
	assert.LessOrEqual(t, c.Dist, 1e-3)
	assert.True(t, c.Stationary)
	assert.Greater(t, r.Stats.InnerDoublings, 0)
	assert.Less(t, distTo(r.X, 0.6, 0.8), 1.5e-3)

	// ten times the inner iterations from the start: as close, without doubling
	r, err = Minimize(context.Background(), ballProblem(), []float64{0, 0}, Settings{Oracle: Switching, Inner: 10000})
	require.NoError(t, err)
	assert.Less(t, distTo(r.X, 0.6, 0.8), 1.5e-3)
	assert.InDelta(t, 16, r.Objective, 1e-2) // ||x* - c||^2 = (5-1)^2
	assert.Less(t, r.Certificate.Dist, 1e-3)
	assert.True(t, r.Certificate.Stationary)
}

func TestL1BoxKnownAnswer(t *testing.T) {
	t.Parallel()
	r, err := Minimize(context.Background(), l1Problem(), []float64{0, 0, 0}, Settings{Oracle: Switching})
	require.NoError(t, err)
	assert.Equal(t, Converged, r.Status)
	assert.Less(t, distTo(r.X, 1.5, 1.5, -2), 1e-3)
	assert.InDelta(t, 5.5, r.Objective, 1e-3)
	c := r.Certificate
	require.NotNil(t, c)
	assert.True(t, c.Stationary)
	assert.InDelta(t, 1, c.Multipliers[0], 0.02)
	// x3 sits on the box: the residual is only small because the domain's
	// normal cone is accounted for (without it, it would be about 4)
	assert.Less(t, c.Stationarity, 1e-2)
	require.NotNil(t, r.Best)
	assert.LessOrEqual(t, r.Best.Objective, r.Objective)
}

func TestNonconvexConstraintKnownStationaryPoint(t *testing.T) {
	t.Parallel()
	r, err := Minimize(context.Background(), circleProblem(), []float64{2, 0.5}, Settings{Oracle: Switching})
	require.NoError(t, err)
	assert.Equal(t, Converged, r.Status)
	assert.GreaterOrEqual(t, r.RhoHat, 4.0) // the default is 2*WeakConvexity
	assert.Less(t, distTo(r.X, 1, 0), 1e-2)
	assert.LessOrEqual(t, r.Infeasibility, 1e-3)
	require.NotNil(t, r.Certificate)
	assert.InDelta(t, 0.5, r.Certificate.Multipliers[0], 0.02)
	assert.Less(t, r.Certificate.Stationarity, 1e-2)
}

// An unconstrained nonsmooth problem: min ||x - c||_1 has x* = c. The
// switching method oscillates around the kinks; with 1000 inner iterations
// its average settles about 1e-3 away in one coordinate, which the
// certificate reports; ten times more inner iterations give ten times less.
func TestUnconstrained(t *testing.T) {
	t.Parallel()
	c := []float64{1, -2, 0.5}
	p := build(3, []fn{weightedL1([]float64{1, 1, 1}, c)}, nil)
	r, err := Minimize(context.Background(), p, []float64{0, 0, 0}, Settings{Oracle: Switching})
	require.NoError(t, err)
	assert.Equal(t, Converged, r.Status)
	assert.Less(t, distTo(r.X, c...), 5e-3)
	assert.Equal(t, 0.0, r.Infeasibility)
	require.NotNil(t, r.Certificate)
	assert.Empty(t, r.Certificate.Multipliers)
	assert.InDelta(t, distTo(r.X, c...), r.Certificate.Dist, 2e-4)

	r, err = Minimize(context.Background(), p, []float64{0, 0, 0}, Settings{Oracle: Switching, Inner: 10000})
	require.NoError(t, err)
	assert.Less(t, distTo(r.X, c...), 5e-4)
	assert.True(t, r.Certificate.Stationary)
	// the unconstrained KKT bound is RhoHat ||x - x_hat|| up to the
	// bound's slack, and x_hat = c
	assert.InDelta(t, r.RhoHat*distTo(r.X, c...), r.Certificate.Stationarity, 2*r.RhoHat*r.Certificate.DistBound+1e-9)
}

// The unit-disc problem from an infeasible start: phase 1 first.
func TestPhase1ThenSolve(t *testing.T) {
	t.Parallel()
	var rec recorder
	r, err := Minimize(context.Background(), ballProblem(), []float64{5, -5}, Settings{Oracle: Switching, Inner: 5000, Recorder: &rec})
	require.NoError(t, err)
	assert.Equal(t, Converged, r.Status)
	assert.Greater(t, r.Stats.Phase1Outer, 0)
	assert.Less(t, distTo(r.X, 0.6, 0.8), 5e-3)
	require.NotEmpty(t, rec.outer)
	assert.True(t, rec.outer[0].Phase1)
	assert.False(t, rec.outer[len(rec.outer)-1].Phase1)
	assert.Equal(t, 1, rec.outer[0].MaxViolated)
	assert.Greater(t, rec.outer[0].Infeasibility, 1.0)
}

// ||x||^2 + 1 <= 0 cannot hold: phase 1 ends at x = 0, g = 1, and says
// which constraint is violated; the second constraint (x1 <= 5) is not.
func TestInfeasible(t *testing.T) {
	t.Parallel()
	p := build(2, []fn{sumMinus(0), sqNorm(1, 1), {f: func(x []float64) float64 { return x[0] - 5 }, g: func(x, out []float64) { out[0], out[1] = 1, 0 }}}, nil)
	p.Names = []string{"impossible", "cap"}
	r, err := Minimize(context.Background(), p, []float64{1, 1}, Settings{Oracle: Switching})
	require.NoError(t, err)
	assert.Equal(t, Infeasible, r.Status)
	assert.False(t, r.Status.Success())
	assert.Equal(t, []int{1}, r.Violated)
	assert.InDelta(t, 1, r.Infeasibility, 1e-3)
	assert.Less(t, distTo(r.X, 0, 0), 0.05)
	assert.Nil(t, r.Best)
	require.NotNil(t, r.MostFeasible)
	assert.Equal(t, r.MostFeasible.X, r.X)
	assert.Nil(t, r.Certificate)
	assert.Equal(t, 0, r.Stats.Outer)
	assert.Greater(t, r.Stats.Phase1Outer, 0)
	assert.Less(t, r.Stats.Phase1Outer, 100) // it stalls before the budget
}

func TestInvalid(t *testing.T) {
	t.Parallel()
	p := ballProblem()
	x0 := []float64{0, 0}
	for _, s := range []Settings{
		{RhoHat: 1, Rho: 1},
		{RhoHat: 1, Rho: 2},
		{Rho: 3}, // default RhoHat 1
		{Eps: -1},
		{Inner: -1},
		{Inner: 1},
		{RhoHat: math.NaN()},
		{Pick: 7},
	} {
		_, err := Minimize(context.Background(), p, x0, s)
		assert.Error(t, err, "%+v", s)
	}
	_, err := Minimize(context.Background(), p, x0, Settings{RhoHat: 1, Rho: 1})
	assert.ErrorContains(t, err, "Rho = 1 must be below RhoHat = 1")

	q := ballProblem()
	q.WeakConvexity = 3 // Rho defaults to 3, above the given RhoHat
	_, err = Minimize(context.Background(), q, x0, Settings{RhoHat: 1})
	assert.Error(t, err)
	r, err := Minimize(context.Background(), q, x0, Settings{Outer: 1}) // RhoHat defaults to 6
	require.NoError(t, err)
	assert.GreaterOrEqual(t, r.RhoHat, 6.0)

	_, err = Minimize(context.Background(), p, []float64{0}, Settings{Oracle: Switching})
	assert.ErrorContains(t, err, "the start has 1 values")
	_, err = Minimize(context.Background(), p, []float64{0, math.Inf(1)}, Settings{Oracle: Switching})
	assert.Error(t, err)
	q = ballProblem()
	q.Names = []string{"a", "b"}
	_, err = Minimize(context.Background(), q, x0, Settings{Oracle: Switching})
	assert.Error(t, err)
	q = ballProblem()
	q.Eval = nil
	_, err = Minimize(context.Background(), q, x0, Settings{Oracle: Switching})
	assert.Error(t, err)
	_, err = Minimize(context.Background(), nil, x0, Settings{Oracle: Switching})
	assert.Error(t, err)
}

// f0 = 10 (x^2 - 1)^2 on [-2, 2] is 40-weakly convex (f0” >= -40 at 0),
// far more than RhoHat = 1 can convexify. Without the safeguard the
// oracle's output climbs and then sticks at x = 0.9167, where f0' = -5.9:
// not a stationary point. The safeguard doubles RhoHat until the
// subproblems behave, and f0 never increases.
func TestSafeguard(t *testing.T) {
	t.Parallel()
	well := fn{
		f: func(x []float64) float64 { u := x[0]*x[0] - 1; return 10 * u * u },
		g: func(x, out []float64) { out[0] = 40 * x[0] * (x[0]*x[0] - 1) },
	}
	run := func(noSafeguard bool) (*Result, []Iteration) {
		var rec recorder
		r, err := Minimize(context.Background(), build(1, []fn{well}, box(-2, 2)), []float64{0.5}, Settings{Oracle: Switching, Outer: 20, NoSafeguard: noSafeguard, Recorder: &rec})
		require.NoError(t, err)
		return r, rec.outer
	}

	r, its := run(true)
	increased := false
	for i := 1; i < len(its); i++ {
		increased = increased || its[i].Objective > its[i-1].Objective+1e-3
	}
	assert.True(t, increased, "without the safeguard f0 should increase")
	assert.Equal(t, 0, r.Stats.RhoDoublings)
	assert.Equal(t, 1.0, r.RhoHat)
	assert.Greater(t, r.Objective, 0.2)

	r, its = run(false)
	prev := 10 * 0.75 * 0.75 // f0(0.5)
	for _, it := range its {
		assert.LessOrEqual(t, it.Objective, prev+1e-6)
		prev = it.Objective
	}
	assert.Greater(t, r.Stats.RhoDoublings, 0)
	top := 0.0
	for _, it := range its {
		top = math.Max(top, it.RhoHat)
	}
	assert.Greater(t, top, 1.0) // (it may come down again once the steps are accepted)
	assert.Equal(t, r.RhoHat/2, r.Rho)
	assert.True(t, its[0].RhoDoubled || its[1].RhoDoubled)
	assert.Less(t, r.Objective, 0.02)
	assert.Less(t, math.Abs(math.Abs(r.X[0])-1), 0.02)
}

type recorder struct {
	outer, inner []Iteration
	onOuter      func(it Iteration) error
}

func (r *recorder) Record(it Iteration) error {
	it.X = clone(it.X)
	if it.K > 0 {
		r.inner = append(r.inner, it)
		return nil
	}
	r.outer = append(r.outer, it)
	if r.onOuter != nil {
		return r.onOuter(it)
	}
	return nil
}

func TestRecorder(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	r, err := Minimize(context.Background(), circleProblem(), []float64{2, 0.5}, Settings{Oracle: Switching, Outer: 8, RecordEvery: 250, Recorder: rec, NoSafeguard: true})
	require.NoError(t, err)
	assert.Equal(t, IterationLimit, r.Status)
	require.Len(t, rec.outer, 8)
	assert.Len(t, rec.inner, 8*1000/250)
	for i, it := range rec.outer {
		assert.Equal(t, i+1, it.T)
		assert.Equal(t, 0, it.K)
		assert.False(t, it.Phase1)
		assert.Equal(t, 4.0, it.RhoHat)
		assert.InDelta(t, dist(it.X, prevX(rec.outer, i, []float64{2, 0.5})), it.Step, 1e-15)
		assert.Greater(t, it.FeasibleFraction, 0.0)
		assert.LessOrEqual(t, it.FeasibleFraction, 1.0)
	}
	for i, it := range rec.inner {
		assert.Equal(t, i/4+1, it.T)
		assert.Equal(t, (i%4+1)*250, it.K)
	}
	assert.Equal(t, rec.outer[7].X, r.X)
	assert.Equal(t, 8, r.T)
}

func prevX(its []Iteration, i int, x0 []float64) []float64 {
	if i == 0 {
		return x0
	}
	return its[i-1].X
}

func TestRecorderError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk full")
	rec := &recorder{onOuter: func(it Iteration) error {
		if it.T == 2 {
			return boom
		}
		return nil
	}}
	r, err := Minimize(context.Background(), circleProblem(), []float64{2, 0.5}, Settings{Oracle: Switching, Recorder: rec})
	require.NoError(t, err)
	assert.Equal(t, Interrupted, r.Status)
	assert.ErrorIs(t, r.Err, boom)
	assert.Equal(t, 2, r.Stats.Outer)
	assert.Equal(t, 2, r.T)
}

func TestStop(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &recorder{onOuter: func(it Iteration) error {
		if it.T == 3 {
			cancel()
		}
		return nil
	}}
	r, err := Minimize(ctx, circleProblem(), []float64{2, 0.5}, Settings{Oracle: Switching, Recorder: rec})
	require.NoError(t, err)
	assert.Equal(t, Interrupted, r.Status)
	assert.True(t, r.Status.Success())
	assert.NoError(t, r.Err)
	assert.Equal(t, 3, r.Stats.Outer)
	assert.Equal(t, rec.outer[2].X, r.X)
	assert.Nil(t, r.Certificate)
	// the context is checked before every inner iteration: the fourth step did none
	assert.Equal(t, 3*1000, r.Stats.Inner)
}

func TestTimeLimit(t *testing.T) {
	t.Parallel()
	slow := ballProblem()
	eval := slow.Eval
	slow.Eval = func(x, vals []float64) error {
		time.Sleep(20 * time.Microsecond)
		return eval(x, vals)
	}
	start := time.Now()
	r, err := Minimize(context.Background(), slow, []float64{0, 0}, Settings{Oracle: Switching, TimeLimit: 30 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, TimeLimit, r.Status)
	assert.Less(t, time.Since(start), time.Second)
	assert.Less(t, r.Stats.Outer, 100)
	assert.LessOrEqual(t, r.Infeasibility, 1e-3)
	// the certificate may use GraceTime more; if it could not, it says so
	assert.Less(t, time.Since(start), 30*time.Millisecond+GraceTime+200*time.Millisecond)
	if r.Certificate == nil {
		assert.NotEmpty(t, r.NoCertificate)
	}
}

// An objective that cannot be evaluated near the solution: the error is
// kept, and the point is the last good outer iterate.
func TestNumericalError(t *testing.T) {
	t.Parallel()
	bad := errors.New("model.qrc:3:7: log of a negative number")
	p := ballProblem()
	eval := p.Eval
	p.Eval = func(x, vals []float64) error {
		if x[0] > 0.59 {
			return bad
		}
		return eval(x, vals)
	}
	r, err := Minimize(context.Background(), p, []float64{0, 0}, Settings{Oracle: Switching})
	require.NoError(t, err)
	assert.Equal(t, NumericalError, r.Status)
	assert.False(t, r.Status.Success())
	assert.Same(t, bad, r.Err)
	assert.LessOrEqual(t, r.X[0], 0.59)
	assert.NotNil(t, r.F)

	// a NaN names the constraint
	p = ballProblem()
	p.Eval = func(x, vals []float64) error {
		vals[0], vals[1] = 0, math.NaN()
		return nil
	}
	r, err = Minimize(context.Background(), p, []float64{0, 0}, Settings{Oracle: Switching})
	require.NoError(t, err)
	assert.Equal(t, NumericalError, r.Status)
	assert.ErrorContains(t, r.Err, "constraint unit (f1) = NaN")
	assert.Nil(t, r.F)
	assert.True(t, math.IsNaN(r.Objective))
}

func TestPickRandom(t *testing.T) {
	t.Parallel()
	solve := func(seed uint64) (*Result, *recorder) {
		rec := &recorder{}
		r, err := Minimize(context.Background(), circleProblem(), []float64{2, 0.5}, Settings{Oracle: Switching, Outer: 12, Pick: PickRandom, Seed: seed, Recorder: rec})
		require.NoError(t, err)
		return r, rec
	}
	a, rec := solve(1)
	b, _ := solve(1)
	assert.Equal(t, a.X, b.X)
	assert.Equal(t, a.T, b.T)
	assert.Equal(t, IterationLimit, a.Status)
	// R is in 0..T-1: x_0 (the start) or a recorded iterate other than the last
	assert.GreaterOrEqual(t, a.T, 0)
	assert.Less(t, a.T, a.Stats.Outer)
	if a.T == 0 {
		assert.Equal(t, []float64{2, 0.5}, a.X)
	} else {
		assert.Equal(t, rec.outer[a.T-1].X, a.X)
	}
	seen := map[int]bool{}
	for seed := uint64(0); seed < 40; seed++ {
		r, _ := solve(seed)
		seen[r.T] = true
	}
	assert.Greater(t, len(seen), 5, "different seeds pick different iterates")
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	a, err := Minimize(context.Background(), l1Problem(), []float64{0, 0, 0}, Settings{Oracle: Switching})
	require.NoError(t, err)
	b, err := Minimize(context.Background(), l1Problem(), []float64{0, 0, 0}, Settings{Oracle: Switching})
	require.NoError(t, err)
	a.Stats.Time, b.Stats.Time = 0, 0
	assert.True(t, reflect.DeepEqual(a, b))
}

func TestStatus(t *testing.T) {
	t.Parallel()
	names := map[Status]string{Converged: "converged", IterationLimit: "iteration_limit", TimeLimit: "time_limit", Interrupted: "interrupted", Infeasible: "infeasible", NumericalError: "numerical_error"}
	for s, n := range names {
		assert.Equal(t, n, s.String())
		assert.Equal(t, s <= Interrupted, s.Success())
	}
	assert.Equal(t, "Status(9)", Status(9).String())
	assert.False(t, Status(9).Success())
}

func TestStartNotModifiedAndProjected(t *testing.T) {
	t.Parallel()
	x0 := []float64{5, -5, 0.3}
	r, err := Minimize(context.Background(), l1Problem(), x0, Settings{Outer: 1})
	require.NoError(t, err)
	assert.Equal(t, []float64{5, -5, 0.3}, x0)
	require.NotNil(t, r.MostFeasible)
	for _, v := range r.X {
		assert.LessOrEqual(t, math.Abs(v), 2.0)
	}
}

func TestWithDefaults(t *testing.T) {
	t.Parallel()
	s, err := Settings{}.WithDefaults(ballProblem()) // not marked Smooth: Auto is Bundle
	require.NoError(t, err)
	// an accurate oracle: no fixed outer budget, the progress rule
	assert.Equal(t, Settings{RhoHat: 1, Rho: 0.5, Eps: 1e-3, EpsHat: 1e-3, Inner: 1000, Outer: MaxOuter, Oracle: Bundle, MaxEvals: DefaultMaxEvals, progressRule: true}, s)
	smooth := ballProblem()
	smooth.Smooth = true
	s, err = Settings{}.WithDefaults(smooth)
	require.NoError(t, err)
	assert.Equal(t, Smooth, s.Oracle)
	assert.Equal(t, 1e-6, s.Eps, "the smooth oracle's default")
	assert.Equal(t, 1e-3, s.EpsHat, "an accurate oracle's EpsHat is at least 1e-3")
	s, err = Settings{Eps: 1e-2, Inner: 50}.WithDefaults(circleProblem()) // WeakConvexity 2
	require.NoError(t, err)
	assert.Equal(t, Settings{RhoHat: 4, Rho: 2, Eps: 1e-2, EpsHat: 1e-2, Inner: 50, Outer: MaxOuter, Oracle: Bundle, MaxEvals: DefaultMaxEvals, progressRule: true}, s)
	s, err = Settings{Oracle: Switching}.WithDefaults(circleProblem())
	require.NoError(t, err)
	assert.Equal(t, DefaultOuter, s.Outer, "the paper's oracles keep a fixed T")
	assert.False(t, s.progressRule)
	s, err = Settings{Outer: 7}.WithDefaults(circleProblem())
	require.NoError(t, err)
	assert.Equal(t, 7, s.Outer)
	assert.False(t, s.progressRule, "a given Outer is a plain limit")
	_, err = Settings{RhoHat: 1, Rho: 1}.WithDefaults(ballProblem())
	assert.Error(t, err)
}

// Phase 1 hands over a point on the edge of the feasible set, the nearest
// feasible point on the segment from x_t to the first feasible inner
// iterate, not that iterate: its first step (gamma_0 = 2/(RhoHat-Rho)
// times 2x) overshoots from (5, -5) deep into the unit disc.
func TestPhase1StopsAtTheEdge(t *testing.T) {
	t.Parallel()
	var rec recorder
	_, err := Minimize(context.Background(), ballProblem(), []float64{5, -5}, Settings{Recorder: &rec, Outer: 2})
	require.NoError(t, err)
	var last *Iteration // the last phase-1 iterate: the first feasible one
	for i := range rec.outer {
		if rec.outer[i].Phase1 {
			last = &rec.outer[i]
		}
	}
	require.NotNil(t, last)
	assert.Greater(t, last.T, 1) // phase 1 took several outer steps
	n := math.Hypot(last.X[0], last.X[1])
	assert.LessOrEqual(t, n*n-1, 1e-6) // feasible to target = Eps^2
	assert.Greater(t, n, 0.999)        // and on the edge, not inside
}

// TestGradsFinite: every function's subgradient by Jacobian when the
// problem has one, else by one Grad per function, the same rows either
// way, and a component that is not finite is a *NonFiniteError naming the
// function.
func TestGradsFinite(t *testing.T) {
	t.Parallel()
	grad := func(w, g []float64) error {
		for j := range g {
			g[j] = 0
			for i, wi := range w {
				g[j] += wi * float64(10*i+j)
			}
		}
		return nil
	}
	p := &Problem{N: 3, M: 2, Grad: grad, Names: []string{"a", "b"}}
	rows := [][]float64{make([]float64, 3), make([]float64, 3), make([]float64, 3)}
	w := make([]float64, 3)
	require.NoError(t, p.GradsFinite(rows, w))
	require.Equal(t, [][]float64{{0, 1, 2}, {10, 11, 12}, {20, 21, 22}}, rows)
	require.Equal(t, []float64{0, 0, 0}, w)
	calls := 0
	p.Jacobian = func(rows [][]float64) error {
		calls++
		for i, r := range rows {
			for j := range r {
				r[j] = float64(10*i + j)
			}
		}
		return nil
	}
	for _, r := range rows {
		clear(r)
	}
	require.NoError(t, p.GradsFinite(rows, w))
	require.Equal(t, 1, calls)
	require.Equal(t, [][]float64{{0, 1, 2}, {10, 11, 12}, {20, 21, 22}}, rows)
	p.Jacobian = func(rows [][]float64) error {
		rows[2][1] = math.Inf(1)
		return nil
	}
	err := p.GradsFinite(rows, w)
	var nf *NonFiniteError
	require.ErrorAs(t, err, &nf)
	require.Contains(t, err.Error(), "b")
}

// A function whose subgradient is not finite at some inner iterates (a
// kink such as sqrt's at 0; its value is fine there) ends Algorithm 2's
// inner loop at that iterate instead of the solve: min ||x - (3, 4)||^2
// over the unit ball, with the gradients refused wherever x1 > 0.59, still
// ends at a feasible point with a status other than numerical_error.
func TestSubgradientFailureEndsInnerLoop(t *testing.T) {
	t.Parallel()
	p := ballProblem()
	var last []float64
	eval, grad := p.Eval, p.Grad
	p.Eval = func(x, vals []float64) error {
		last = append(last[:0], x...)
		return eval(x, vals)
	}
	p.Grad = func(w, g []float64) error {
		if last[0] > 0.59 {
			return &NonFiniteError{"a subgradient is not finite"}
		}
		return grad(w, g)
	}
	r, err := Minimize(context.Background(), p, []float64{0, 0}, Settings{Oracle: Switching, Outer: 50})
	require.NoError(t, err)
	assert.NotEqual(t, NumericalError, r.Status, "%v", r.Err)
	assert.LessOrEqual(t, r.Infeasibility, DefaultEps)
	assert.LessOrEqual(t, r.X[0], 0.59+1e-12, "every outer iterate is where the gradients are defined")
}
