package autodiff

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/internal/npcref"
	"github.com/qrc-lang/qrc/internal/vmath"
	"github.com/qrc-lang/qrc/internal/workers"
	"gonum.org/v1/gonum/floats"
)

// fullEval runs one full evaluation: every value, then every function's
// subgradient (Jacobian: what one Gradient call per function gives, with
// each data matrix read once for all the functions).
func fullEval(b *testing.B, p *Program, x []float64) {
	b.Helper()
	full := fullEvaluator(b, p, x)
	b.ReportAllocs()
	for b.Loop() {
		full()
	}
}

// benchNPC measures one full evaluation of examples/npc.qrc: the values of
// all ten functions and the subgradient of each, by the compiled program
// and by the hand-written kernel npcref.Kernel ("ref"), and the two
// interleaved ("ratio").
func benchNPC(b *testing.B, opts check.Options) {
	m, p := load(b, "../examples/npc.qrc", opts)
	x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
	b.Run("qrc", func(b *testing.B) { fullEval(b, p, x) })
	b.Run("ref", func(b *testing.B) {
		h := npcref.New(m.Data[0].Set, 10)
		b.ReportAllocs()
		for b.Loop() {
			h.Eval(x)
		}
	})
	b.Run("ratio", func(b *testing.B) {
		h := npcref.New(m.Data[0].Set, 10)
		benchRatio(b, p, x, func() { h.Eval(x) })
	})
	b.Run("cores", func(b *testing.B) {
		h := npcref.New(m.Data[0].Set, 10)
		benchCores(b, p, x, func() { h.Eval(x) })
	})
}

// benchRatio alternates a full evaluation by p (Eval and Jacobian) and one
// by the reference,
// timing each, and reports the fastest of each (qrc-us, ref-us, in
// microseconds) and their ratio (qrc/ref). On a machine shared with other
// work the fastest of many short interleaved runs is what each kernel
// takes when it gets the cores, and both see the same conditions.
func benchRatio(b *testing.B, p *Program, x []float64, ref func()) {
	benchPair(b, fullEvaluator(b, p, x), ref)
}

// benchPair is benchRatio for any two functions.
func benchPair(b *testing.B, full, ref func()) {
	full()
	ref()
	bestQ, bestR := math.Inf(1), math.Inf(1)
	for b.Loop() {
		t0 := time.Now()
		full()
		t1 := time.Now()
		ref()
		t2 := time.Now()
		bestQ = min(bestQ, t1.Sub(t0).Seconds())
		bestR = min(bestR, t2.Sub(t1).Seconds())
	}
	b.ReportMetric(bestQ*1e6, "qrc-us")
	b.ReportMetric(bestR*1e6, "ref-us")
	b.ReportMetric(bestQ/bestR, "qrc/ref")
}

// fullEvaluator returns a function that runs one full evaluation of p at
// x: every value, then every function's subgradient (Program.Jacobian).
func fullEvaluator(b *testing.B, p *Program, x []float64) func() {
	nf := len(p.Functions())
	vals := make([]float64, nf)
	rows := make([][]float64, nf)
	for f := range rows {
		rows[f] = make([]float64, p.NumVars())
	}
	return func() {
		if err := p.Eval(x, vals); err != nil {
			b.Fatal(err)
		}
		if err := p.Jacobian(rows); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCores alternates full evaluations by p and by the reference on one
// core and on two (GOMAXPROCS 1 and 2), each timed right after an untimed
// one, as in a solve's run of evaluations, and reports the fastest of each
// (qrc1-us, qrc2-us, ref1-us, ref2-us) and the speedups from one core to
// two (qrc-x2, ref-x2), all from one run, beside probes of the host
// (cpu-x2, l2-x2, xcore-ns). Run it with -cpu 2 or more.
func benchCores(b *testing.B, p *Program, x []float64, ref func()) {
	full := fullEvaluator(b, p, x)
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	if procs < 2 {
		b.Skip("needs -cpu 2 or more")
	}
	var best [4][2]float64 // [qrc, ref, compute probe, cache probe][1 core, 2 cores]
	for k := range best {
		best[k] = [2]float64{math.Inf(1), math.Inf(1)}
	}
	fns := [4]func(){full, ref, computeProbe(), cacheProbe()}
	xcore := math.Inf(1)
	for b.Loop() {
		runtime.GOMAXPROCS(2)
		xcore = min(xcore, crossCoreProbe(200))
		for c := range 2 {
			runtime.GOMAXPROCS(c + 1)
			for k, fn := range fns {
				fn() // the pool's helpers park after a while on one core; wake them
				t0 := time.Now()
				fn()
				best[k][c] = min(best[k][c], time.Since(t0).Seconds())
			}
		}
	}
	b.ReportMetric(best[0][0]*1e6, "qrc1-us")
	b.ReportMetric(best[0][1]*1e6, "qrc2-us")
	b.ReportMetric(best[1][0]*1e6, "ref1-us")
	b.ReportMetric(best[1][1]*1e6, "ref2-us")
	b.ReportMetric(best[0][0]/best[0][1], "qrc-x2")
	b.ReportMetric(best[1][0]/best[1][1], "ref-x2")
	b.ReportMetric(best[2][0]/best[2][1], "cpu-x2")
	b.ReportMetric(best[3][0]/best[3][1], "l2-x2")
	b.ReportMetric(xcore, "xcore-ns")
}

// crossCoreProbe passes a cache line back and forth n times between the
// caller and a helper of the worker pool and returns the nanoseconds one
// pass takes (xcore-ns): what the host makes every cache line cost that
// one worker writes and the other then reads. On the build machine it is
// about 50 ns when the two vCPUs share a last-level cache and 200-250 ns
// when they do not, which the host decides and changes from minute to
// minute. A helper that does not join within a second gives +Inf.
func crossCoreProbe(n int) float64 {
	var line struct {
		_ [64]byte
		v atomic.Int64
		_ [64]byte
	}
	var job workers.Job
	var late atomic.Bool
	var took time.Duration
	deadline := time.Now().Add(time.Second)
	job.Fn = func(_, i int) {
		var t0 time.Time
		for k := int64(i); k < int64(2*n); k += 2 {
			for spins := 0; line.v.Load() != k; spins++ {
				if late.Load() || spins%4096 == 0 && time.Now().After(deadline) {
					late.Store(true)
					return
				}
			}
			switch {
			case i == 0 && k == 2: // timed from the first return, once both run
				t0 = time.Now()
			case i == 0 && k == int64(2*n-2):
				took = time.Since(t0)
			}
			line.v.Store(k + 1)
		}
	}
	job.RunParts([]int{1, 2})
	if late.Load() {
		return math.Inf(1)
	}
	return took.Seconds() * 1e9 / float64(2*n-4)
}

// computeProbe returns a function that runs a fixed amount of work that
// only computes (sigmoids over 12 KiB per worker, in its L1 cache) in two
// equal items on the worker pool. On two cores that the host gives in
// full, two items take as long as one (cpu-x2 = 2); a host that gives
// less shows it here, for every kernel measured in the same run.
func computeProbe() func() {
	const n = 512
	return poolProbe(3*n, func(buf []float64) {
		for range 60 {
			vmath.SigmoidDeriv(buf[:n], buf[n:2*n], buf[2*n:])
		}
	})
}

// cacheProbe is computeProbe for work that reads memory: dot products
// over 512 KiB per worker, in its L2 cache when the worker has one of
// its own (l2-x2).
func cacheProbe() func() {
	return poolProbe(64<<10, func(buf []float64) {
		for range 8 {
			floats.Dot(buf, buf) // an assembly routine: the call is not dropped
		}
	})
}

// poolProbe returns a function that runs work on two buffers of n floats,
// one per item, as two items on the worker pool.
func poolProbe(n int, work func(buf []float64)) func() {
	var bufs [2][]float64
	for w := range bufs {
		bufs[w] = make([]float64, n)
		for i := range bufs[w] {
			bufs[w][i] = float64(i%97)/10 - 4.8
		}
	}
	var job workers.Job
	job.Fn = func(_, i int) { work(bufs[i]) }
	return func() { job.Run(2) }
}

// BenchmarkNPC runs on the shipped synthetic data (3000 rows).
func BenchmarkNPC(b *testing.B) { benchNPC(b, check.Options{}) }

// BenchmarkNPCPendigits runs on ../shared/data/pendigits (7494 rows).
func BenchmarkNPCPendigits(b *testing.B) {
	benchNPC(b, check.Options{Data: []check.Assign{{Name: "train", Value: pendigits(b)}}})
}

// npcSumForm is examples/npc.qrc with its dot product written as a sum
// over the features, as a user might write it; the compiler reads it as
// the dot product (docs/autodiff.md), so it runs at npc.qrc's speed.
const npcSumForm = `data train = libsvm(%q)
param K      = 10
param lambda = 0.1
param r      = 4.5
var W[K, train.d] in ball(lambda, rows)
func phi(z) = 1 / (1 + exp(z))
func loss(k) = mean(i in train where train.y[i] == k)
                   sum(l in 1..K where l != k) phi(sum(j in 1..train.d) (W[k, j] - W[l, j]) * train.X[i, j])
minimize loss(1)
subject to
    cap[k in 2..K]: loss(k) <= r
`

// BenchmarkNPCSumForm measures npcSumForm on ../shared/data/pendigits
// against the same reference kernel as BenchmarkNPCPendigits.
func BenchmarkNPCSumForm(b *testing.B) {
	m, p, err := compileSource(b, fmt.Sprintf(npcSumForm, pendigits(b)), nil)
	if err != nil {
		b.Fatal(err)
	}
	x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
	h := npcref.New(m.Data[0].Set, 10)
	benchAgainst(b, p, x, func() { h.Eval(x) })
}

// BenchmarkNPCUSPS runs on a synthetic set the size of USPS: 7291 rows,
// 256 features, 10 classes.
func BenchmarkNPCUSPS(b *testing.B) {
	benchNPC(b, check.Options{Data: []check.Assign{{Name: "train", Value: syntheticSVM(b, 7291, 256, 10)}}})
}

// syntheticSVM writes (once, in the temporary directory) a dense LIBSVM
// file of n rows and d features in [0, 1] around one centre per class,
// labels 1..K drawn uniformly.
func syntheticSVM(b testing.TB, n, d, K int) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("qrc-bench-%dx%d-%d.svm", n, d, K))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
	centres := make([][]float64, K)
	for k := range centres {
		centres[k] = make([]float64, d)
		for j := range centres[k] {
			centres[k][j] = rng.Float64()
		}
	}
	tmp := path + fmt.Sprintf(".%d.tmp", os.Getpid())
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for range n {
		k := rng.IntN(K)
		fmt.Fprintf(w, "%d", k+1)
		for j := range d {
			v := min(max(centres[k][j]+0.2*rng.NormFloat64(), 0), 1)
			fmt.Fprintf(w, " %d:%.4f", j+1, v)
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// fairAdult is examples/fairness.qrc on ../shared/data/adult.csv: label
// income in {-1, 1}, the group is the column male.
const fairAdult = `data people = csv(%q, label = "income", drop = ["male"])

param lambda = 5
param beta   = 1
param r      = 0.8

var x[people.d] in ball(lambda)

func sigma(z) = 1 / (1 + exp(-z))
func phi(z)   = 1 / (1 + exp(z))

minimize mean(i in people) phi(people.y[i] * dot(people.X[i], x))

subject to
    parity_m: mean(i in people where people.male[i] == 0) sigma(dot(people.X[i], x))
              + beta * mean(i in people where people.male[i] == 1) sigma(-dot(people.X[i], x)) <= r
    parity_f: mean(i in people where people.male[i] == 1) sigma(dot(people.X[i], x))
              + beta * mean(i in people where people.male[i] == 0) sigma(-dot(people.X[i], x)) <= r
`

func adult(t testing.TB) string {
	path, err := filepath.Abs("../../shared/data/adult.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skip("../shared/data/adult.csv is absent")
	}
	return path
}

// BenchmarkFairAdult measures one full evaluation (three values, three
// subgradients) of the fairness model on adult.csv (30162 rows, 58
// features) against npcref.Fair.
func BenchmarkFairAdult(b *testing.B) {
	m, p, err := compileSource(b, fmt.Sprintf(fairAdult, adult(b)), nil)
	if err != nil {
		b.Fatal(err)
	}
	x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
	set := m.Data[0].Set
	h, err := npcref.NewFair(set, set.Columns["male"], 1, 0.8)
	if err != nil {
		b.Fatal(err)
	}
	benchAgainst(b, p, x, func() { h.Eval(x) })
}

// BenchmarkScale measures a full evaluation of examples/npc.qrc against the
// number of rows (10^3 .. 10^6, 16 features) and of features (16 .. 256,
// 10^4 rows) on synthetic data, with the reference kernel beside it. The
// files are written once to the temporary directory (the 10^6-row one is
// 150 MB).
func BenchmarkScale(b *testing.B) {
	type size struct{ n, d int }
	var sizes []size
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		sizes = append(sizes, size{n, 16})
	}
	for _, d := range []int{64, 256} {
		sizes = append(sizes, size{10_000, d})
	}
	for _, s := range sizes {
		b.Run(fmt.Sprintf("rows=%d/d=%d", s.n, s.d), func(b *testing.B) {
			benchNPC(b, check.Options{Data: []check.Assign{{Name: "train", Value: syntheticSVM(b, s.n, s.d, 10)}}})
		})
	}
}

// sparseLogistic is a logistic regression whose dot products run over the
// nonzeros of a sparse set.
const sparseLogistic = `data D = libsvm(%q)
var w[D.d] in box(-1, 1)
minimize mean(i in D) log(1 + exp(-D.y[i] * dot(w, D.X[i])))
`

// loadSparseLogistic writes (once, in directory dir) the generated
// 10^4 × 10^5 set at 0.1% density (10^6 nonzeros) and compiles
// sparseLogistic on it.
func loadSparseLogistic(b testing.TB, dir string) (*check.Model, *Program) {
	b.Helper()
	path := filepath.Join(dir, "qrc-bench-sparse-10000x100000.svm")
	if _, err := os.Stat(path); err != nil {
		tmp := path + fmt.Sprintf(".%d.tmp", os.Getpid())
		sparseGen{n: 10_000, d: 100_000, perRow: 100}.write(b, tmp)
		if err := os.Rename(tmp, path); err != nil {
			b.Fatal(err)
		}
	}
	m, p, err := compileSource(b, fmt.Sprintf(sparseLogistic, path), nil)
	if err != nil {
		b.Fatal(err)
	}
	return m, p
}

// benchAgainst runs a full evaluation of p at x ("qrc"), the reference
// kernel's ("ref") and their ratio from one run ("ratio").
func benchAgainst(b *testing.B, p *Program, x []float64, ref func()) {
	b.Run("qrc", func(b *testing.B) { fullEval(b, p, x) })
	b.Run("ref", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ref()
		}
	})
	b.Run("ratio", func(b *testing.B) { benchRatio(b, p, x, ref) })
	b.Run("cores", func(b *testing.B) { benchCores(b, p, x, ref) })
}

// BenchmarkSparseLogistic measures one full evaluation (value and
// gradient) of a logistic regression on the generated sparse set, by the
// compiled program and by the hand-written CSR kernel npcref.Logistic.
func BenchmarkSparseLogistic(b *testing.B) {
	m, p := loadSparseLogistic(b, os.TempDir())
	x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
	h, err := npcref.NewLogistic(m.Data[0].Set)
	if err != nil {
		b.Fatal(err)
	}
	benchAgainst(b, p, x, func() { h.Eval(x) })
}

// BenchmarkStream compares, on npc.qrc over 10^5 and 10^6 synthetic rows
// (16 features), a streamed program (windowed registers, the reverse pass
// recomputing the rows' values; the default from tuning.streamMinBytes) with the
// same model keeping every register whole, interleaved: full evaluations
// (Eval and Jacobian: "full"), Eval with one weighted Gradient, as the
// smooth oracle does ("grad"), and Eval alone, as its line search does
// ("eval"). qrc-us is the streamed program, ref-us the whole one; both
// report their work space (MB).
func BenchmarkStream(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			opts := check.Options{Data: []check.Assign{{Name: "train", Value: syntheticSVM(b, n, 16, 10)}}}
			o := testOptions()
			o.tune.streamMinBytes = math.MaxInt64
			m, whole := loadWith(b, "../examples/npc.qrc", opts, o)
			o = testOptions()
			o.tune.streamMinBytes = 0
			_, streamed := loadWith(b, "../examples/npc.qrc", opts, o)
			if !streamed.streamed() || whole.streamed() {
				b.Fatal("the programs do not stream as asked")
			}
			x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
			b.Run("full", func(b *testing.B) {
				benchRatio(b, streamed, x, fullEvaluator(b, whole, x))
				b.ReportMetric(float64(len(streamed.arena))*8/1e6, "qrc-MB")
				b.ReportMetric(float64(len(whole.arena))*8/1e6, "ref-MB")
			})
			b.Run("grad", func(b *testing.B) {
				benchPair(b, gradEvaluator(b, streamed, x), gradEvaluator(b, whole, x))
			})
			b.Run("eval", func(b *testing.B) {
				vals := make([]float64, len(whole.Functions()))
				benchPair(b, func() { _ = streamed.Eval(x, vals) }, func() { _ = whole.Eval(x, vals) })
			})
		})
	}
}

// gradEvaluator returns a function that runs Eval and one Gradient with
// every function weighted at x.
func gradEvaluator(b *testing.B, p *Program, x []float64) func() {
	nf := len(p.Functions())
	vals, w, g := make([]float64, nf), make([]float64, nf), make([]float64, p.NumVars())
	for f := range w {
		w[f] = 1 / float64(f+1)
	}
	return func() {
		if err := p.Eval(x, vals); err != nil {
			b.Fatal(err)
		}
		if err := p.Gradient(w, g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRowRefs compares, on npc.qrc over 10^6 synthetic rows, a
// program that reads its class blocks by reference (rows.go) with one
// that gathers them at compile time, both streamed, interleaved: full
// evaluations; qrc-us is by reference, ref-us gathered.
func BenchmarkRowRefs(b *testing.B) {
	opts := check.Options{Data: []check.Assign{{Name: "train", Value: syntheticSVM(b, 1_000_000, 16, 10)}}}
	m, gathered := loadWith(b, "../examples/npc.qrc", opts, rowRefsAll(testOptions(), false))
	_, refs := loadWith(b, "../examples/npc.qrc", opts, rowRefsAll(testOptions(), true))
	if refProducts(refs) == 0 || refProducts(gathered) > 0 {
		b.Fatal("the programs do not read their rows as asked")
	}
	x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
	b.Run("full", func(b *testing.B) { benchRatio(b, refs, x, fullEvaluator(b, gathered, x)) })
	b.Run("eval", func(b *testing.B) {
		vals := make([]float64, len(m.Constraints)+1)
		benchPair(b, func() { _ = refs.Eval(x, vals) }, func() { _ = gathered.Eval(x, vals) })
	})
}
