package qp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

func TestClosedForms(t *testing.T) {
	cases := []struct {
		name string
		p    Problem
		x    []float64
		y, z []float64
	}{
		{
			name: "unconstrained",
			p:    Problem{H: [][]float64{{2, 0}, {0, 4}}, C: []float64{-2, -4}},
			x:    []float64{1, 1},
		},
		{
			// the projection of (3, 4) onto x + y <= 1: (3, 4) - 3·(1, 1)
			name: "half-plane projection",
			p: Problem{H: [][]float64{{1, 0}, {0, 1}}, C: []float64{-3, -4},
				G: [][]float64{{1, 1}}, Hv: []float64{1}},
			x: []float64{0, 1},
			z: []float64{3},
		},
		{
			// min x² + y² on x + y = 1: (1/2, 1/2), 2x + y = 0
			name: "equality",
			p: Problem{H: [][]float64{{2, 0}, {0, 2}}, C: []float64{0, 0},
				A: [][]float64{{1, 1}}, B: []float64{1}},
			x: []float64{0.5, 0.5},
			y: []float64{-1},
		},
		{
			// a linear program (H = 0): min -x - 2y on x + y <= 2.5,
			// x <= 1, y <= 2, x, y >= 0 is at (0.5, 2)
			name: "linear",
			p: Problem{H: [][]float64{{0, 0}, {0, 0}}, C: []float64{-1, -2},
				G:  [][]float64{{1, 1}, {1, 0}, {0, 1}, {-1, 0}, {0, -1}},
				Hv: []float64{2.5, 1, 2, 0, 0}},
			x: []float64{0.5, 2},
			z: []float64{1, 0, 1, 0, 0},
		},
		{
			// badly scaled: min 1e6 (x-1)² + 1e-6 (y-1)² on x + y >= 3
			// has x = 1 + 1e-12·(y... solved from the KKT conditions:
			// 2e6 (x-1) = z, 2e-6 (y-1) = z, x + y = 3
			name: "badly scaled",
			p: Problem{H: [][]float64{{2e6, 0}, {0, 2e-6}}, C: []float64{-2e6, -2e-6},
				G: [][]float64{{-1, -1}}, Hv: []float64{-3}},
			x: []float64{1 + 1e-12/(1+1e-12), 3 - 1 - 1e-12/(1+1e-12)},
			z: []float64{2e-6 * (1 - 1e-12/(1+1e-12))},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sol, err := Solve(&c.p, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.x {
				if math.Abs(sol.X[i]-c.x[i]) > 1e-8*(1+math.Abs(c.x[i])) {
					t.Errorf("x = %v, want %v", sol.X, c.x)
					break
				}
			}
			for i := range c.y {
				if math.Abs(sol.Y[i]-c.y[i]) > 1e-7*(1+math.Abs(c.y[i])) {
					t.Errorf("y = %v, want %v", sol.Y, c.y)
				}
			}
			for i := range c.z {
				if math.Abs(sol.Z[i]-c.z[i]) > 1e-7*(1+math.Abs(c.z[i])) {
					t.Errorf("z = %v, want %v", sol.Z, c.z)
				}
			}
		})
	}
}

// TestRandomKKT solves random feasible convex programs and checks the KKT
// conditions, which prove optimality for a convex program, at the answer.
func TestRandomKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 2 + rng.IntN(12)
		ne := rng.IntN(n / 2)
		ni := rng.IntN(2 * n)
		// H = MᵀM (semidefinite when M has fewer rows than n)
		rows := 1 + rng.IntN(n)
		M := randMat(rng, rows, n)
		H := make([][]float64, n)
		for i := range H {
			H[i] = make([]float64, n)
			for j := range H[i] {
				for k := range rows {
					H[i][j] += M[k][i] * M[k][j]
				}
			}
		}
		// constraints that a known point x0 meets, and a box that keeps
		// the program bounded
		x0 := randVec(rng, n)
		A := randMat(rng, ne, n)
		B := make([]float64, ne)
		for k := range A {
			B[k] = floats.Dot(A[k], x0)
		}
		G := randMat(rng, ni, n)
		Hv := make([]float64, ni)
		for k := range G {
			Hv[k] = floats.Dot(G[k], x0) + rng.Float64()
		}
		for i := range n {
			e := make([]float64, n)
			e[i] = 1
			G = append(G, e, floats.ScaleTo(make([]float64, n), -1, e))
			Hv = append(Hv, 5, 5)
		}
		p := &Problem{H: H, C: randVec(rng, n), A: A, B: B, G: G, Hv: Hv}
		sol, err := Solve(p, Settings{})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		g := make([]float64, n)
		for i := range g {
			g[i] = p.C[i] + floats.Dot(H[i], sol.X)
		}
		for k := range A {
			floats.AddScaled(g, sol.Y[k], A[k])
			if r := floats.Dot(A[k], sol.X) - B[k]; math.Abs(r) > 1e-8 {
				t.Errorf("trial %d: equality %d off by %g", trial, k, r)
			}
		}
		for k := range G {
			floats.AddScaled(g, sol.Z[k], G[k])
			slack := Hv[k] - floats.Dot(G[k], sol.X)
			if slack < -1e-8 || sol.Z[k] < -1e-12 || math.Abs(slack*sol.Z[k]) > 1e-7 {
				t.Errorf("trial %d: inequality %d slack %g multiplier %g", trial, k, slack, sol.Z[k])
			}
		}
		if r := floats.Norm(g, math.Inf(1)); r > 1e-7 {
			t.Errorf("trial %d: stationarity residual %g", trial, r)
		}
	}
}

func TestInfeasible(t *testing.T) {
	// x <= -1 and x >= 1
	p := &Problem{H: [][]float64{{1}}, C: []float64{0}, G: [][]float64{{1}, {-1}}, Hv: []float64{-1, -1}}
	if _, err := Solve(p, Settings{}); !errors.Is(err, ErrNotSolved) {
		t.Fatalf("err = %v, want ErrNotSolved", err)
	}
}

func TestMalformed(t *testing.T) {
	for _, p := range []*Problem{
		{},
		{H: [][]float64{{1}}, C: []float64{0, 1}},
		{H: [][]float64{{1}}, C: []float64{0}, A: [][]float64{{1}}},
		{H: [][]float64{{1}}, C: []float64{math.NaN()}},
		{H: [][]float64{{1}}, C: []float64{0}, G: [][]float64{{1, 2}}, Hv: []float64{1}},
	} {
		if _, err := Solve(p, Settings{}); err == nil || errors.Is(err, ErrNotSolved) {
			t.Errorf("%+v: err = %v, want a malformed-input error", p, err)
		}
	}
}

func randMat(rng *rand.Rand, r, c int) [][]float64 {
	m := make([][]float64, r)
	for i := range m {
		m[i] = randVec(rng, c)
	}
	return m
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}
