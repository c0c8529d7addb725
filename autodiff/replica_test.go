package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
)

// TestReplicas: npc.qrc's differences W[k] − W[l] are replicated on every
// helper (the first forward phase is full); values, subgradients and the
// Jacobian are bitwise those of one core at two points taken in turn on 2
// and 4 cores (a helper's replicas of the other point would show), and
// after an Eval on one core followed by a Gradient on two (the helpers'
// replicas are of an older Eval and must be refreshed); and a helper's
// replicas, when it made them, are the caller's values bit for bit.
func TestReplicas(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	m, p := loadWith(t, "../examples/npc.qrc", check.Options{}, allParallel(testOptions()))
	require.True(t, p.fwd[0].full, "the first forward phase is replicated")
	require.Positive(t, p.repSize)
	rng := rand.New(rand.NewPCG(51, 52))
	xs := [][]float64{randomPoint(m, rng), randomPoint(m, rng)}
	all := func(x []float64) [][]float64 {
		out := evalAll(t, p, x)
		jac := make([][]float64, len(p.Functions()))
		for f := range jac {
			jac[f] = make([]float64, p.NumVars())
		}
		require.NoError(t, p.Jacobian(jac))
		return append(out, jac...)
	}
	same := func(want, got [][]float64, what string) {
		t.Helper()
		for i := range want {
			for j := range want[i] {
				require.Equal(t, math.Float64bits(want[i][j]), math.Float64bits(got[i][j]), "%s: result %d, element %d", what, i, j)
			}
		}
	}
	runtime.GOMAXPROCS(1)
	want := [][][]float64{all(xs[0]), all(xs[1])}
	// On a loaded machine a helper may join no job of a short evaluation;
	// here the caller's first block of each evaluation waits (up to 5 s)
	// for a helper to start one, so that every evaluation below has a
	// helper make its replicas.
	var joined atomic.Bool
	block := p.job.Fn
	p.job.Fn = func(w, i int) {
		if w > 0 {
			joined.Store(true)
		}
		for end := time.Now().Add(5 * time.Second); w == 0 && !joined.Load() && time.Now().Before(end); {
			runtime.Gosched()
		}
		block(w, i)
	}
	defer func() { p.job.Fn = block }()
	made, evals := 0, 0
	for _, procs := range []int{2, 4} {
		runtime.GOMAXPROCS(procs)
		for round := range 6 {
			k := round % 2
			joined.Store(false)
			evals++
			same(want[k], all(xs[k]), "alternating points")
			for w := 1; w < min(procs, len(p.repBufs)); w++ {
				if p.repAt[w][0] != p.evalGen {
					continue // the helper took no block of the phase
				}
				made++
				for _, in := range p.fwd[0].serial {
					o := in.out
					n := o.size()
					for q, v := range p.repBufs[w][o.repOff : o.repOff+n] {
						require.Equal(t, math.Float64bits(o.val[q]), math.Float64bits(v), "worker %d's replica of register %d, element %d", w, o.id, q)
					}
				}
			}
		}
	}
	require.GreaterOrEqual(t, made, evals, "helpers made their replicas in fewer than the %d evaluations", evals)
	// Eval on one core after the helpers replicated the other point, then
	// the reverse pass on two
	runtime.GOMAXPROCS(2)
	all(xs[1])
	runtime.GOMAXPROCS(1)
	nf := len(p.Functions())
	vals := make([]float64, nf)
	require.NoError(t, p.Eval(xs[0], vals))
	runtime.GOMAXPROCS(2)
	for f := range nf {
		w := make([]float64, nf)
		w[f] = 1
		g := make([]float64, p.NumVars())
		require.NoError(t, p.Gradient(w, g))
		same(want[0][1+f:2+f], [][]float64{g}, "Gradient on 2 cores after Eval on 1")
	}
}

// BenchmarkReplicas measures full evaluations (Eval and Jacobian) on one
// core and on two without replicas and with them, interleaved, and
// reports the fastest of each (1core-us, plain2-us, rep2-us) and the
// speedups from one core to two (plain-x2, rep-x2), all from one run:
// npc.qrc on pendigits and on the USPS-sized set, the fairness model on
// adult.csv. Run it with -cpu 2.
func BenchmarkReplicas(b *testing.B) {
	b.Run("pendigits", func(b *testing.B) {
		opts := check.Options{Data: []check.Assign{{Name: "train", Value: pendigits(b)}}}
		benchReplicas(b, func(o *Options) (*check.Model, *Program) { return loadWith(b, "../examples/npc.qrc", opts, o) })
	})
	b.Run("usps", func(b *testing.B) {
		opts := check.Options{Data: []check.Assign{{Name: "train", Value: syntheticSVM(b, 7291, 256, 10)}}}
		benchReplicas(b, func(o *Options) (*check.Model, *Program) { return loadWith(b, "../examples/npc.qrc", opts, o) })
	})
	b.Run("fair", func(b *testing.B) {
		benchReplicas(b, func(o *Options) (*check.Model, *Program) {
			m, p, err := compileSourceWith(b, fmt.Sprintf(fairAdult, adult(b)), nil, o)
			if err != nil {
				b.Fatal(err)
			}
			return m, p
		})
	})
}

// benchReplicas compiles a model with replicas and without (the pass
// "replicas" disabled) and times both.
func benchReplicas(b *testing.B, compile func(o *Options) (*check.Model, *Program)) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs -cpu 2 or more")
	}
	m, p := compile(testOptions())
	_, plain := compile(without(testOptions(), "replicas"))
	x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
	fulls := [3]func(){fullEvaluator(b, p, x), fullEvaluator(b, plain, x), fullEvaluator(b, p, x)}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	best := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)} // 1 core; 2 without; 2 with
	order := []int{0, 1, 2}
	for b.Loop() {
		order[1], order[2] = order[2], order[1] // neither two-core run always comes first
		for _, k := range order {
			runtime.GOMAXPROCS(min(k+1, 2))
			full := fulls[k]
			full() // as in benchCores: wake the pool's helpers
			t0 := time.Now()
			full()
			best[k] = min(best[k], time.Since(t0).Seconds())
		}
	}
	b.ReportMetric(best[0]*1e6, "1core-us")
	b.ReportMetric(best[1]*1e6, "plain2-us")
	b.ReportMetric(best[2]*1e6, "rep2-us")
	b.ReportMetric(best[0]/best[1], "plain-x2")
	b.ReportMetric(best[0]/best[2], "rep-x2")
}
