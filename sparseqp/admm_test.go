package sparseqp

import (
	"math/rand/v2"
	"testing"
)

// TestADMM: OSQP's method, finished by the polish, on the closed forms'
// programs, random programs against the dense qp and the lifted LPs.
func TestADMM(t *testing.T) {
	set := Settings{Method: ADMM}
	rng := rand.New(rand.NewPCG(31, 32))
	iters := 0
	for trial := range 60 {
		n := 2 + rng.IntN(14)
		m := rng.IntN(2 * n)
		kind := trial % 3
		p := randomProblem(rng, n, m, kind == 0, kind == 2)
		r, err := Solve(p, set)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != Solved {
			t.Fatalf("trial %d (n %d, m %d, kind %d): %v after %d iterations", trial, n, m, kind, r.Status, r.Iterations)
		}
		failed := t.Failed()
		checkKKT(t, p, r, 1e-8)
		if !failed && t.Failed() {
			t.Fatalf("trial %d", trial)
		}
		ref := denseSolve(t, p, denseSettings)
		if !near(r.Objective, ref.obj, 1e-8) {
			t.Errorf("trial %d: objective %.12g, dense %.12g", trial, r.Objective, ref.obj)
		}
		iters += r.Iterations
	}
	t.Logf("random: %d iterations in all", iters)
	for name, p := range map[string]*Problem{
		"assignment": assignment(6),
		"newsvendor": newsvendor([]float64{3, 1, 4, 1, 5, 9, 2}, 1, 1, 3),
		"control":    l1Control(200, 1, 5, 2, 0.5),
		"chained":    chainedCB3(100, chainedStart(rng, 100), 1),
	} {
		r, err := Solve(p, set)
		if err != nil {
			t.Fatal(err)
		}
		checkKKT(t, p, r, 1e-8)
		t.Logf("%s: %d iterations, polished %v", name, r.Iterations, r.Polished)
	}
}
