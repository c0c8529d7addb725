package autodiff

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// sumBackModels are the models of TestSumBackBitwise: the stream tests'
// models, a mean over a class axis (its scale is 1/3), and a sum over
// classes multiplied by another function of the same products.
var sumBackModels = append(append([]testModel{}, streamModels...),
	testModel{name: "classmean", src: `data s = csv("d.csv", label = "y", drop = ["g"])
var W[3, s.d] in ball(2, rows)
minimize mean(i in s) mean(k in 1..3) logistic(-s.y[i] * dot(W[k], s.X[i]))
subject to
    spread: mean(i in s where s.y[i] == 1) sum(k in 1..3) sigmoid(dot(W[k] - W[1], s.X[i])) <= 1.2
`, files: map[string]string{"d.csv": streamData(900, 3)}},
	testModel{name: "product", src: `data s = csv("d.csv", label = "y", drop = ["g"])
var W[3, s.d] in ball(2, rows)
func z(i, k) = logistic(-s.y[i] * dot(W[k], s.X[i]))
minimize mean(i in s) (sum(k in 1..3) z(i, k)) * z(i, 1)
`, files: map[string]string{"d.csv": streamData(500, 4)}},
)

// fusedSums counts p's sums whose reverse pass runs fused.
func fusedSums(p *Program) int {
	n := 0
	for _, in := range p.insts {
		if p.plan[in.k].sumBack != nil && in.op == opAxis {
			n++
		}
	}
	return n
}

// TestSumBackBitwise: with the reverse of a sum over an elementwise
// function's last axis fused into the function's (sumback.go), values,
// gradients and Jacobians are bitwise those of the reverse passes run
// apart, on 1, 2 and 4 cores, with registers whole, windowed, and windowed
// with their aux recomputed.
func TestSumBackBitwise(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	wantFused := map[string]int{"npc": 20, "fairness": 3, "phase": 1, "centred": 2, "sparse": 2, "classmean": 4, "product": 1}
	for _, tm := range sumBackModels {
		for _, mode := range []string{"whole", "windowed", "aux"} {
			t.Run(tm.name+"/"+mode, func(t *testing.T) {
				opts := func() *Options {
					o := allParallel(testOptions())
					if mode != "whole" {
						streamSmall(o, true)
					}
					if mode == "aux" {
						streamAuxToo(o)
					}
					return o
				}
				_, apart := tm.compileWith(t, without(opts(), "sumback"))
				require.Zero(t, fusedSums(apart))
				m, fused := tm.compileWith(t, opts())
				if n, ok := wantFused[tm.name]; ok {
					require.Equal(t, n, fusedSums(fused), "fused sums")
				}
				t.Logf("%d sums fused", fusedSums(fused))
				x := randomPoint(m, rand.New(rand.NewPCG(61, 62)))
				for _, procs := range []int{1, 2, 4} {
					runtime.GOMAXPROCS(procs)
					want := allResults(t, apart, x, rand.New(rand.NewPCG(63, 64)))
					got := allResults(t, fused, x, rand.New(rand.NewPCG(63, 64)))
					for i := range want {
						for j := range want[i] {
							require.Equal(t, math.Float64bits(want[i][j]), math.Float64bits(got[i][j]), "GOMAXPROCS %d, result %d, element %d", procs, i, j)
						}
					}
				}
			})
		}
	}
}
