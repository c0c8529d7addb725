package solve

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kinkFn is a function of the form <a, y> + e + sum_k c_k pos(<b_k, y> + d_k)
// with c_k > 0: the class of functions package smoothing smooths, written
// out here independently of it.
type kinkFn struct {
	a     []float64
	e     float64
	kinks []kinkTerm
}

type kinkTerm struct {
	c, d float64
	b    []float64
}

// absTerm returns the two pos terms of c |<b, y> + d|.
func absTerm(c, d float64, b []float64) []kinkTerm {
	nb := make([]float64, len(b))
	for j := range b {
		nb[j] = -b[j]
	}
	return []kinkTerm{{c, d, b}, {c, -d, nb}}
}

// pos's smoothing on the band |t| <= mu/2, (t + mu/2)^2 / (2 mu), with its
// slope and the tangent value s t of the minorant r -> s r (s the slope).
func testPosSmooth(t, mu float64) (v, d, tan float64) {
	switch {
	case mu == 0 || t >= mu/2:
		return math.Max(t, 0), step(t), math.Max(t, 0)
	case t <= -mu/2:
		return 0, 0, 0
	}
	s := (t + mu/2) / mu
	return (t + mu/2) * (t + mu/2) / (2 * mu), s, s * t
}

func step(t float64) float64 {
	if t > 0 {
		return 1
	}
	return 0
}

// value returns f (mu = 0) or f_mu at y, its (sub)gradient in g (if not
// nil) and the tangent value.
func (f kinkFn) value(y []float64, mu float64, g []float64) (v, tan float64) {
	v = f.e + dot(f.a, y)
	tan = v
	if g != nil {
		copy(g, f.a)
	}
	for _, k := range f.kinks {
		kv, kd, kt := testPosSmooth(dot(k.b, y)+k.d, mu)
		v += k.c * kv
		tan += k.c * kt
		for j := range g {
			g[j] += k.c * kd * k.b[j]
		}
	}
	return v, tan
}

// kinkProblem is the Problem of the functions fs with their smoothing.
type kinkProblem struct {
	fs   []kinkFn
	mu   float64
	last []float64
	tmp  []float64
}

func (k *kinkProblem) SetMu(mu float64) { k.mu = mu }

func (k *kinkProblem) eval(x, vals []float64, mu float64) {
	k.last = append(k.last[:0], x...)
	for i, f := range k.fs {
		vals[i], _ = f.value(x, mu, nil)
	}
}

func (k *kinkProblem) grad(w, g []float64, mu float64) {
	clear(g)
	for i, f := range k.fs {
		if w[i] != 0 {
			f.value(k.last, mu, k.tmp)
			for j := range g {
				g[j] += w[i] * k.tmp[j]
			}
		}
	}
}

func (k *kinkProblem) Eval(x, vals []float64) error { k.eval(x, vals, k.mu); return nil }

func (k *kinkProblem) Grad(w, g []float64) error { k.grad(w, g, k.mu); return nil }

func (k *kinkProblem) Tangent(x, vals []float64) error {
	for i, f := range k.fs {
		_, vals[i] = f.value(x, k.mu, nil)
	}
	return nil
}

func newKinkProblem(n int, fs []kinkFn, project func([]float64)) (*Problem, *kinkProblem) {
	k := &kinkProblem{fs: fs, mu: 1, tmp: make([]float64, n)}
	exact := &kinkProblem{fs: fs, tmp: make([]float64, n)} // its own last x
	p := &Problem{
		N: n, M: len(fs) - 1,
		Eval:    func(x, vals []float64) error { exact.eval(x, vals, 0); return nil },
		Grad:    func(w, g []float64) error { exact.grad(w, g, 0); return nil },
		Project: project,
	}
	return p, k
}

func boxProject(lo, hi float64) func([]float64) {
	return func(x []float64) {
		for j := range x {
			x[j] = math.Min(hi, math.Max(lo, x[j]))
		}
	}
}

// Subproblems (7) at x_t = 0 with RhoHat = 1 and closed-form solutions:
// soft thresholds (the minimiser of |y - c| + y^2/2 is c for |c| <= 1,
// else sign(c)), clipped by a box, and a kink constraint active at its
// kink. The smoothed oracle's point must be feasible on the exact
// functions, F its exact value of (7), Lower <= min (7) <= F with the gap
// within what was asked, and the point within the certified distance of
// the solution.
func TestSmoothedOracleClosedForm(t *testing.T) {
	t.Parallel()
	e1, e2 := []float64{1, 0}, []float64{0, 1}
	for _, tc := range []struct {
		name    string
		fs      []kinkFn
		project func([]float64)
		xhat    []float64
		opt     float64
	}{{
		// |y1 - 0.3| + |y2 + 2|: y = (0.3, -1), 0.045 + 1.5
		name: "soft thresholds",
		fs:   []kinkFn{{a: []float64{0, 0}, kinks: append(absTerm(1, -0.3, e1), absTerm(1, 2, e2)...)}},
		xhat: []float64{0.3, -1}, opt: 0.045 + 1.5,
	}, {
		// |y1 - 2| + |y2 + 0.3| on [-0.5, 0.5]^2: y1 = 0.5 (the slope
		// -1 + 0.5 < 0 there), y2 = -0.3: 1.5 + 0.125 + 0.045
		name:    "box",
		fs:      []kinkFn{{a: []float64{0, 0}, kinks: append(absTerm(1, -2, e1), absTerm(1, 0.3, e2)...)}},
		project: boxProject(-0.5, 0.5),
		xhat:    []float64{0.5, -0.3}, opt: 1.5 + 0.125 + 0.045,
	}, {
		// min -y1 + |y2| s.t. 10 pos(y1 - 0.5) - 0.125 <= 0: G1 =
		// 10 pos(y1 - 0.5) + |y|^2/2 - 0.125 is 0 at y = (0.5, 0), the kink,
		// and the objective -y1 + |y|^2/2 + |y2| is lowest there: -0.375
		name: "constraint at its kink",
		fs: []kinkFn{
			{a: []float64{-1, 0}, kinks: absTerm(1, 0, e2)},
			{a: []float64{0, 0}, e: -0.125, kinks: []kinkTerm{{10, -0.5, e1}}},
		},
		xhat: []float64{0.5, 0}, opt: -0.375,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p, k := newKinkProblem(2, tc.fs, tc.project)
			sv := subproblemSolver(t, p, Settings{Oracle: &SmoothedOracle{Smoothing: k}, RhoHat: 1, Rho: 0.5, EpsHat: 1e-3})
			xt := []float64{0, 0}
			acc := accuracy{Abs: 2.5e-4, MaxEvals: 20000} // what the outer loop asks at Eps = 1e-3
			res, halt, err := sv.acc.solve(xt, acc)
			require.NoError(t, err)
			require.Equal(t, running, halt)
			require.True(t, res.Feasible)
			exact := make([]float64, len(tc.fs))
			require.NoError(t, p.Eval(sv.out, exact))
			q := sv.rhoHat / 2 * (sv.out[0]*sv.out[0] + sv.out[1]*sv.out[1])
			for i := 1; i < len(exact); i++ {
				assert.LessOrEqual(t, exact[i]+q, 0.0, "the point is feasible for the exact (7)")
			}
			assert.Equal(t, exact, sv.outF, "outF are the exact values at the point")
			assert.InDelta(t, exact[0]+q, res.F, 1e-15, "F is the exact (7)'s value at the point")
			assert.LessOrEqual(t, res.Lower, tc.opt+1e-12, "Lower is a lower bound")
			assert.GreaterOrEqual(t, res.F, tc.opt-1e-12, "F is a value of (7)")
			assert.LessOrEqual(t, res.Gap(), sv.gapTol(acc, dist(sv.out, xt), res.KKTFactor(sv.rhoHat)), "the gap is what was asked")
			assert.LessOrEqual(t, dist(sv.out, tc.xhat), res.DistBound(sv.rhoHat-sv.rho)+1e-12, "the distance bound holds")
		})
	}
}

// lowSmoothing breaks the Smoothing contract: its constraint values are
// below the exact ones by 0.5 (more than the smoothing adds at any mu), so the smoothed (7)'s points near its
// boundary are outside the exact (7).
type lowSmoothing struct{ *kinkProblem }

func (l lowSmoothing) Eval(x, vals []float64) error {
	l.kinkProblem.Eval(x, vals)
	for i := 1; i < len(vals); i++ {
		vals[i] -= 0.5
	}
	return nil
}

// Whatever the Smoothing, the smoothed oracle reports a point feasible
// only when the exact constraints of (7) hold there: with a smoothing
// below the constraint it pulls the smoothed (7)'s point back towards
// x_t, which is strictly feasible.
func TestSmoothedOracleFeasibleOnExact(t *testing.T) {
	t.Parallel()
	e1, e2 := []float64{1, 0}, []float64{0, 1}
	fs := []kinkFn{
		{a: []float64{-1, 0}, kinks: absTerm(1, 0, e2)},
		{a: []float64{0, 0}, e: -0.125, kinks: []kinkTerm{{10, -0.5, e1}}},
	}
	p, k := newKinkProblem(2, fs, nil)
	sv := subproblemSolver(t, p, Settings{Oracle: &SmoothedOracle{Smoothing: lowSmoothing{k}}, RhoHat: 1, Rho: 0.5, EpsHat: 1e-3})
	xt := []float64{0, 0}
	res, _, err := sv.acc.solve(xt, accuracy{Abs: 2.5e-4, MaxEvals: 20000})
	require.NoError(t, err)
	require.True(t, res.Feasible, "the pulled-back point is feasible")
	exact := make([]float64, 2)
	require.NoError(t, p.Eval(sv.out, exact))
	q := (sv.out[0]*sv.out[0] + sv.out[1]*sv.out[1]) / 2
	assert.LessOrEqual(t, exact[1]+q, 0.0, "the exact constraint of (7) holds at the point")
	assert.InDelta(t, exact[0]+q, res.F, 1e-15, "F is the exact value")
	assert.Equal(t, exact, sv.outF)
	// the smoothed (7)'s solutions have y1 about 0.5 + 0.5/10.5, outside
	assert.Less(t, sv.out[0], 0.5)
}
