package sparseqp

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkMethods compares the interior point, ADMM from a cold start
// and ADMM warm-started from the previous solve on the programs of the
// intended use: a sequence of 5 prox-linear steps of the chained CB3 at
// n = 1000 (the point moving by 1e-2 between steps: the outer loop near
// convergence), and the lifted LPs (newsvendor, 1001 scenarios; l1
// control, T = 1000). It reports CPU ms and iterations per program, and
// how many of the family's programs ended without Solved.
func BenchmarkMethods(b *testing.B) {
	rng := rand.New(rand.NewPCG(41, 42))
	n := 1000
	x := chainedStart(rng, n)
	var chain []*Problem
	for range 5 {
		chain = append(chain, chainedCB3(n, append([]float64(nil), x...), 1))
		for i := range x {
			x[i] += 1e-2 * rng.NormFloat64()
		}
	}
	d := make([]float64, 1001)
	for i := range d {
		d[i] = 100 + 20*rng.NormFloat64()
	}
	families := []struct {
		name  string
		progs []*Problem
	}{
		{"chained-sequence", chain},
		{"newsvendor", []*Problem{newsvendor(d, 1, 1, 3)}},
		{"control", []*Problem{l1Control(1000, 1, 5, 2, 0.5)}},
	}
	methods := []struct {
		name string
		set  Settings
	}{
		{"ipm", Settings{}},
		{"admm-cold", Settings{Method: ADMM}},
		{"admm-warm", Settings{Method: ADMM, WarmStart: true}},
	}
	for _, f := range families {
		for _, m := range methods {
			b.Run(f.name+"/"+m.name, func(b *testing.B) {
				iters, unsolved := 0, 0
				cpu0 := cpuTime()
				for b.Loop() {
					sv, err := NewSolver(f.progs[0], m.set)
					if err != nil {
						b.Fatal(err)
					}
					iters, unsolved = 0, 0
					for _, p := range f.progs {
						r, err := sv.Solve(p)
						if err != nil {
							b.Fatal(err)
						}
						if r.Status != Solved {
							unsolved++
						}
						iters += r.Iterations
					}
				}
				per := float64(b.N * len(f.progs))
				b.ReportMetric(float64(cpuTime()-cpu0)/1e6/per, "cpu-ms/prog")
				b.ReportMetric(float64(iters)/float64(len(f.progs)), "iters/prog")
				b.ReportMetric(float64(unsolved), "unsolved")
			})
		}
	}
}
