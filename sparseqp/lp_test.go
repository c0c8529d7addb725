package sparseqp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// newsvendor is the lifted LP of the newsvendor problem on S equally
// likely demand scenarios d: minimize c·x + (1/S) Σ t_s on t_s >= h(x − d_s),
// t_s >= b(d_s − x), x >= 0. Its optimum is the (b−c)/(b+h) quantile of the
// demands (the critical fractile): with F the empirical distribution,
// the least x with F(x) >= (b−c)/(b+h). x is in every row, a dense column.
func newsvendor(d []float64, c, h, b float64) *Problem {
	S := len(d)
	N := 1 + S
	p := &Problem{Q: make([]float64, N), LB: filled(N, math.Inf(-1)), UB: filled(N, math.Inf(1))}
	p.Q[0] = c
	p.LB[0] = 0
	var ri, ci []int
	var v []float64
	for s := range S {
		p.Q[1+s] = 1 / float64(S)
		// t_s − h x >= −h d_s ; t_s + b x >= b d_s
		r := len(p.L)
		ri, ci, v = append(ri, r, r), append(ci, 1+s, 0), append(v, 1, -h)
		p.L, p.U = append(p.L, -h*d[s]), append(p.U, math.Inf(1))
		ri, ci, v = append(ri, r+1, r+1), append(ci, 1+s, 0), append(v, 1, b)
		p.L, p.U = append(p.L, b*d[s]), append(p.U, math.Inf(1))
	}
	p.A, _ = NewCSC(len(p.L), N, ri, ci, v)
	return p
}

func TestNewsvendor(t *testing.T) {
	sizes := []int{11, 1001, 10001}
	if raceEnabled {
		sizes = sizes[:2] // the race detector slows the solver twentyfold
	}
	for _, S := range sizes {
		rng := rand.New(rand.NewPCG(uint64(S), 1))
		d := make([]float64, S)
		for i := range d {
			d[i] = 100 + 20*rng.NormFloat64()
		}
		c, h, b := 1.0, 1.0, 3.0
		p := newsvendor(d, c, h, b)
		r, err := Solve(p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		checkKKT(t, p, r, 1e-8)
		sorted := slices.Clone(d)
		slices.Sort(sorted)
		// F(x) >= 1/2 first at the ((S+1)/2)-th smallest demand (S odd)
		want := sorted[(S+1)/2-1]
		obj := c * want
		for _, ds := range d {
			obj += (h*math.Max(want-ds, 0) + b*math.Max(ds-want, 0)) / float64(S)
		}
		if !near(r.X[0], want, 1e-8) {
			t.Errorf("S = %d: x = %.12g, the critical fractile %.12g", S, r.X[0], want)
		}
		if !near(r.Objective, obj, 1e-9) {
			t.Errorf("S = %d: objective %.12g, want %.12g", S, r.Objective, obj)
		}
		if r.Iterations > 40 {
			t.Errorf("S = %d: %d iterations", S, r.Iterations)
		}
		t.Logf("S = %d: %d iterations, polished %v", S, r.Iterations, r.Polished)
	}
}

// l1Control is the LP of steering x_{k+1} = a x_k + u_k from x_0 to 0 with
// least Σ|u_k| + w Σ|x_k| over T steps, |u_k| <= umax, lifted: variables
// x_1..x_T, u_0..u_{T−1}, and the epigraphs tu, tx; dynamics as equality
// rows, each |·| as two rows.
func l1Control(T int, a, x0, umax, w float64) *Problem {
	// indices: x_k (k = 1..T) at k−1, u_k at T+k, tu_k at 2T+k, tx_k at 3T+k−1
	N := 4 * T
	p := &Problem{Q: make([]float64, N), LB: filled(N, math.Inf(-1)), UB: filled(N, math.Inf(1))}
	X := func(k int) int { return k - 1 }
	U := func(k int) int { return T + k }
	TU := func(k int) int { return 2*T + k }
	TX := func(k int) int { return 3*T + k - 1 }
	var ri, ci []int
	var v []float64
	row := func(l, u float64, cols []int, vals []float64) {
		r := len(p.L)
		for k := range cols {
			ri, ci, v = append(ri, r), append(ci, cols[k]), append(v, vals[k])
		}
		p.L, p.U = append(p.L, l), append(p.U, u)
	}
	for k := range T {
		p.LB[U(k)], p.UB[U(k)] = -umax, umax
		p.Q[TU(k)] = 1
		p.Q[TX(k+1)] = w
		// x_{k+1} − a x_k − u_k = 0 (x_0 given)
		if k == 0 {
			row(a*x0, a*x0, []int{X(1), U(0)}, []float64{1, -1})
		} else {
			row(0, 0, []int{X(k + 1), X(k), U(k)}, []float64{1, -a, -1})
		}
		row(0, math.Inf(1), []int{TU(k), U(k)}, []float64{1, -1})
		row(0, math.Inf(1), []int{TU(k), U(k)}, []float64{1, 1})
		row(0, math.Inf(1), []int{TX(k + 1), X(k + 1)}, []float64{1, -1})
		row(0, math.Inf(1), []int{TX(k + 1), X(k + 1)}, []float64{1, 1})
	}
	p.A, _ = NewCSC(len(p.L), N, ri, ci, v)
	return p
}

// TestL1Control: with a = 1 (an integrator) and w > 0 every unit of state
// left costs w per step, so the optimal control spends the largest
// allowed |u| at once: from x0 = 5 with umax = 2 the steps are −2, −2, −1
// and the cost is 5 + w·(3 + 1) (states 3, 1, 0, ...). At T = 20 it is
// compared with the dense qp too; at T = 5000 only the known optimum and
// the iteration count are checked.
func TestL1Control(t *testing.T) {
	w := 0.5
	want := 5 + w*(3+1)
	sizes := []int{20, 5000}
	if raceEnabled {
		sizes = []int{20, 500}
	}
	for _, T := range sizes {
		p := l1Control(T, 1, 5, 2, w)
		r, err := Solve(p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		checkKKT(t, p, r, 1e-8)
		if !near(r.Objective, want, 1e-9) {
			t.Errorf("T = %d: objective %.12g, want %.12g", T, r.Objective, want)
		}
		if got := r.X[T : T+3]; !nearAll(got, []float64{-2, -2, -1}, 1e-8) {
			t.Errorf("T = %d: u = %v...", T, got)
		}
		if r.Iterations > 40 {
			t.Errorf("T = %d: %d iterations", T, r.Iterations)
		}
		if T == 20 {
			if ref := denseSolve(t, p, denseSettings); !near(r.Objective, ref.obj, 1e-9) {
				t.Errorf("dense qp's objective %.12g", ref.obj)
			}
		}
		t.Logf("T = %d: %d iterations, polished %v", T, r.Iterations, r.Polished)
	}
}

// TestBadlyScaled: min 1e6 (x−1)² + 1e-6 (y−1)² on x + y >= 3, solved from
// the KKT conditions: 2e6 (x−1) = 2e-6 (y−1) = −y_row... x = 1 + e/(1+e),
// y = 3 − x with e = 1e-12.
func TestBadlyScaled(t *testing.T) {
	p := &Problem{P: diagonal(2e6, 2e-6), Q: []float64{-2e6, -2e-6},
		A: dense([][]float64{{1, 1}}), L: []float64{3}, U: []float64{inf}}
	r, err := Solve(p, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	checkKKT(t, p, r, 1e-8)
	e := 1e-12
	x := 1 + e/(1+e)
	if !nearAll(r.X, []float64{x, 3 - x}, 1e-8) {
		t.Errorf("x = %v, want (%v, %v)", r.X, x, 3-x)
	}
}

// TestDegenerateLPs: Klee–Minty-like and highly degenerate programs with a
// known optimum: min −Σ 2^{n−j} x_j on the Klee–Minty cube of dimension
// 8 (optimum 5^8 at x = (0, ..., 0, 5^8)), and the assignment LP of
// order 6 with cost (i+j) mod 6 (every permutation matrix is a vertex,
// massively degenerate; optimum 0 by the permutation i+j ≡ 0).
func TestDegenerateLPs(t *testing.T) {
	t.Run("Klee-Minty", func(t *testing.T) {
		n := 8
		rows := make([][]float64, n)
		U := make([]float64, n)
		L := make([]float64, n)
		q := make([]float64, n)
		for i := range n {
			rows[i] = make([]float64, n)
			for j := range i {
				rows[i][j] = math.Pow(2, float64(i-j+1))
			}
			rows[i][i] = 1
			U[i] = math.Pow(5, float64(i+1))
			L[i] = math.Inf(-1)
			q[i] = -math.Pow(2, float64(n-1-i))
		}
		p := &Problem{Q: q, A: dense(rows), L: L, U: U, LB: make([]float64, n)}
		r, err := Solve(p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		checkKKT(t, p, r, 1e-8)
		if !near(r.Objective, -math.Pow(5, float64(n)), 1e-9) {
			t.Errorf("objective %.12g, want %g", r.Objective, -math.Pow(5, float64(n)))
		}
		t.Logf("%d iterations", r.Iterations)
	})
	t.Run("assignment", func(t *testing.T) {
		p := assignment(6)
		r, err := Solve(p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		checkKKT(t, p, r, 1e-8)
		if math.Abs(r.Objective) > 1e-9 {
			t.Errorf("objective %g, want 0", r.Objective)
		}
		t.Logf("%d iterations", r.Iterations)
	})
}
