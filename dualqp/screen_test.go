package dualqp

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// manyRows is min mean_k |y - c_k| + P/2 (y - xt)^2 s.t. mean_k pos(y -
// d_k) <= r over y in [lo, hi], with K rows in each mean (c_k, d_k drawn
// uniformly from [0, 1]): one variable, so that the reference solution
// is found by bisection on derivatives, independently of the dual.
type manyRows struct {
	sign          float64 // -1: the problem in -y (rows of slope -1/K), so that signs and bounds are mirrored
	c, d          []float64
	r, p, xt      float64
	lo, hi        float64
	model         *Model
	yStar, fStar  float64
	mustBeActive  bool
	constraintMax float64 // the largest feasible y
}

func newManyRows(K int, r, p, xt float64, seed uint64) *manyRows {
	return newManyRowsSigned(K, r, p, xt, seed, 1)
}

// newManyRowsSigned is newManyRows in the variable sign*y: Xt is sign*xt
// and the minimiser sign*y*.
func newManyRowsSigned(K int, r, p, xt float64, seed uint64, sign float64) *manyRows {
	rng := rand.New(rand.NewPCG(seed, 7))
	t := &manyRows{sign: sign, c: make([]float64, K), d: make([]float64, K), r: r, p: p, xt: xt, lo: -2, hi: 2}
	for k := range t.c {
		t.c[k], t.d[k] = rng.Float64(), rng.Float64()
	}
	m := &Model{N: 1, M: 1, Ptr: []int{0}, Q: make([][]float64, 2), E: []float64{0, -r},
		X: &Domain{Lo: []float64{t.lo}, Hi: []float64{t.hi}, Ball: []int32{-1}}}
	w := 1 / float64(K)
	for _, c := range t.c { // |y - c| / K: slopes [-1, 1] of w (y - c)
		m.Col, m.Val = append(m.Col, 0), append(m.Val, sign*w)
		m.Ptr = append(m.Ptr, len(m.Col))
		m.B, m.Lo, m.Hi, m.Fn = append(m.B, -w*c), append(m.Lo, -1), append(m.Hi, 1), append(m.Fn, 0)
	}
	for _, d := range t.d { // pos(y - d) / K
		m.Col, m.Val = append(m.Col, 0), append(m.Val, sign*w)
		m.Ptr = append(m.Ptr, len(m.Col))
		m.B, m.Lo, m.Hi, m.Fn = append(m.B, -w*d), append(m.Lo, 0), append(m.Hi, 1), append(m.Fn, 1)
	}
	t.model = m
	t.reference()
	return t
}

// F is the subproblem's objective at y (u = sign y the variable of the
// unsigned problem, xt its Xt).
func (t *manyRows) F(y float64) float64 {
	u, s := t.sign*y, 0.0
	for _, c := range t.c {
		s += math.Abs(u - c)
	}
	return s/float64(len(t.c)) + t.p/2*(u-t.xt)*(u-t.xt)
}

// g is the constraint's value at y.
func (t *manyRows) g(y float64) float64 {
	u, s := t.sign*y, 0.0
	for _, d := range t.d {
		s += math.Max(0, u-d)
	}
	return s/float64(len(t.d)) - t.r
}

// reference solves the one-variable problem in u = sign y: the feasible
// set is [lo, umax] (g is nondecreasing in u), and F's minimiser over it
// is the root of its right derivative, clamped.
func (t *manyRows) reference() {
	bisect := func(lo, hi float64, pos func(float64) bool) float64 {
		for range 200 {
			mid := (lo + hi) / 2
			if pos(mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
		return (lo + hi) / 2
	}
	gu := func(u float64) float64 { return t.g(t.sign * u) }
	t.constraintMax = t.hi
	if gu(t.hi) > 0 {
		t.constraintMax = bisect(t.lo, t.hi, func(u float64) bool { return gu(u) > 0 })
	}
	c := append([]float64(nil), t.c...)
	sort.Float64s(c)
	// the right derivative of F in u: (#{c <= u} - #{c > u}) / K + P (u - xt)
	right := func(u float64) float64 {
		below := sort.SearchFloat64s(c, math.Nextafter(u, math.Inf(1)))
		return float64(2*below-len(c))/float64(len(c)) + t.p*(u-t.xt)
	}
	u := bisect(t.lo, t.hi, func(u float64) bool { return right(u) >= 0 })
	t.mustBeActive = u > t.constraintMax
	t.yStar = t.sign * math.Min(u, t.constraintMax)
	t.fStar = t.F(t.yStar)
}

// TestScreenedSolveMatchesReference solves manyRows with enough rows that
// Solve screens (screenMinRows), from a cold and a warm start, and checks
// the result against the reference found by bisection: the lower bound
// below F*, the point's F above it, the gap closed, the point within the
// distance the gap allows, and rows screened.
func TestScreenedSolveMatchesReference(t *testing.T) {
	K := screenMinRows // two means of K rows each
	for _, c := range []struct {
		r, p, xt float64
		screens  bool    // xt is feasible, so the first round screens
		sign     float64 // -1: mirrored (manyRows.sign)
	}{
		{0.08, 1, 0.3, true, 1},     // the constraint active
		{0.6, 1, 0.3, true, 1},      // inactive
		{0.08, 0.01, 0.3, true, 1},  // active, small P: the screening radius is wide
		{0.08, 0.01, 0.3, true, -1}, // the same mirrored
		{0.05, 0.01, 1, false, 1},   // xt infeasible: epochs on every row first
		{0.2, 1, 0.9, false, 1},     // the same, P = 1
		{0.2, 1, 0.9, false, -1},    // mirrored
	} {
		tc := newManyRowsSigned(K, c.r, c.p, c.xt, 11, c.sign)
		if err := tc.model.Check(); err != nil {
			t.Fatal(err)
		}
		s := NewSolver(tc.model)
		for _, warm := range []bool{false, true} {
			// every bound the caller sees is a bound, and every point
			// it sees is feasible with the F it is given
			res := s.Solve(Sub{Xt: []float64{c.sign * c.xt}, P: c.p}, 5000, 1, func(lower, upper float64, y []float64, _ int) bool {
				if lower > tc.fStar+1e-12 {
					t.Errorf("%+v warm %v: a lower bound %.15g above F* %.15g", c, warm, lower, tc.fStar)
				}
				if y != nil && (tc.g(y[0]) > 1e-12 || math.Abs(tc.F(y[0])-upper) > 1e-12) {
					t.Errorf("%+v warm %v: y = %.15g with g %g, F %.15g, told F %.15g", c, warm, y[0], tc.g(y[0]), tc.F(y[0]), upper)
				}
				return upper-lower <= 1e-11
			})
			if res.Y == nil {
				t.Fatalf("%+v warm %v: no feasible point", c, warm)
			}
			if tc.g(res.Y[0]) > 1e-12 {
				t.Errorf("%+v warm %v: y = %.15g violates the constraint by %g", c, warm, res.Y[0], tc.g(res.Y[0]))
			}
			if res.Lower > tc.fStar+1e-12 || res.F < tc.fStar-1e-12 {
				t.Errorf("%+v warm %v: Lower %.15g, F %.15g around F* %.15g", c, warm, res.Lower, res.F, tc.fStar)
			}
			if math.Abs(tc.F(res.Y[0])-res.F) > 1e-12 {
				t.Errorf("%+v warm %v: F reported %.15g, F(y) %.15g", c, warm, res.F, tc.F(res.Y[0]))
			}
			if gap := res.F - res.Lower; gap > 1e-9 {
				t.Errorf("%+v warm %v: gap %g after %d epochs", c, warm, gap, res.Iters)
			}
			if d := math.Abs(res.Y[0] - tc.yStar); d > math.Sqrt(2*math.Max(0, res.F-tc.fStar)/c.p)+1e-9 {
				t.Errorf("%+v warm %v: y = %.12g, y* = %.12g", c, warm, res.Y[0], tc.yStar)
			}
			if c.screens && !warm && res.Screened == 0 {
				t.Errorf("%+v warm %v: no row screened", c, warm)
			}
			if tc.mustBeActive && res.Lambda[0] <= 0 {
				t.Errorf("%+v warm %v: the active constraint has multiplier %g", c, warm, res.Lambda[0])
			}
		}
	}
}

// TestScreenFixesOnlySafeRows checks screen's rule directly: with the
// radius of a valid gap around a feasible point, every row it fixes has
// the fixed slope's sign at the reference minimiser.
func TestScreenFixesOnlySafeRows(t *testing.T) {
	tc := newManyRows(4096, 0.2, 1, 0.9, 5)
	s := NewSolver(tc.model)
	s.cd = s.cdInit()
	y := tc.yStar + 1e-3 // feasible? pull it inside when not
	if tc.g(y) > 0 {
		y = tc.yStar - 1e-3
	}
	gap := tc.F(y) - tc.fStar // F(y) - H for the best dual value H = F*
	active := s.screen([]float64{y}, math.Sqrt(2*gap/tc.p), nil)
	fixed := tc.model.Rows() - len(active)
	if fixed == 0 || len(active) == 0 {
		t.Fatalf("fixed %d, active %d: the test does not exercise the rule", fixed, len(active))
	}
	isActive := make(map[int32]bool, len(active))
	for _, r := range active {
		isActive[r] = true
	}
	m := tc.model
	for r := range m.B {
		if isActive[int32(r)] {
			continue
		}
		z := m.Val[r]*tc.yStar + m.B[r]
		if (s.cd.s[r] == m.Hi[r] && z < 0) || (s.cd.s[r] == m.Lo[r] && z > 0) {
			t.Errorf("row %d fixed at slope %g but its score at y* is %g", r, s.cd.s[r], z)
		}
	}
}

// TestScreenedStartBound checks the bound a screened solve starts from
// (no epoch run): the dual value at its first dual point (the slopes at
// the subgradient at Xt, each multiplier maximised), recomputed here from
// that point: g = sum over the rows of lambda_i s_r a_r, y = clamp(Xt -
// g/P), H = g y + P/2 (y - Xt)^2 + sum_r lambda_i s_r b_r + sum_i lambda_i
// e_i.
func TestScreenedStartBound(t *testing.T) {
	for _, c := range []struct{ r, p, xt, sign float64 }{
		{0.08, 0.01, 0.3, 1}, {0.08, 0.01, 0.3, -1}, {0.08, 1, 0.3, 1}, {0.2, 1, 0.9, -1},
	} {
		tc := newManyRowsSigned(screenMinRows, c.r, c.p, c.xt, 3, c.sign)
		m := tc.model
		s := NewSolver(m)
		xt := c.sign * c.xt
		res := s.Solve(Sub{Xt: []float64{xt}, P: c.p}, 0, 1, nil)
		g, h := 0.0, m.E[0]
		for i := 1; i <= m.M; i++ {
			h += s.lam[i] * m.E[i]
		}
		for r := range m.B {
			a := s.lam[m.Fn[r]] * s.cd.s[r]
			g += a * m.Val[r]
			h += a * m.B[r]
		}
		y := math.Max(tc.lo, math.Min(tc.hi, xt-g/c.p))
		h += g*y + c.p/2*(y-xt)*(y-xt)
		if h > 0 && math.Abs(res.Lower-h) > 1e-12 {
			t.Errorf("%+v: the start's bound %.15g, the dual value at its point %.15g", c, res.Lower, h)
		}
		if res.Lower > tc.fStar+1e-12 {
			t.Errorf("%+v: the start's bound %.15g is above F* %.15g", c, res.Lower, tc.fStar)
		}
	}
}
