package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
)

// streamSmall makes every program compiled with o stream, however small
// its data, in blocks of 16 rows (so that a worker's windows serve many
// blocks), or, with windows false, split into the same blocks with every
// register kept whole: the reference.
func streamSmall(o *Options, windows bool) *Options {
	o.tune.streamMinBytes, o.tune.streamBlockBytes, o.tune.streamMinRows = 0, 1, 16
	if !windows {
		without(o, "windows")
	}
	return o
}

// streamAuxToo windows the aux of windowed registers of the programs
// compiled with o too, however small: a reverse pass recomputes the values
// it reads.
func streamAuxToo(o *Options) *Options {
	o.tune.streamAuxMaxBytes = -1
	return o
}

// streamData is a data set for the stream tests: n rows of three
// features, a label in {-1, 1} and a group in {0, 1}.
func streamData(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.WriteString("a,b,c,g,y\n")
	for range n {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		y := 1.0
		if x[0]-0.5*x[1]+0.4*rng.NormFloat64() < 0 {
			y = -1
		}
		fmt.Fprintf(&b, "%.3f,%.3f,%.3f,%d,%g\n", x[0], x[1], x[2], rng.IntN(2), y)
	}
	return b.String()
}

// streamSparse is a LIBSVM set of n rows over 300 features with four
// nonzeros each: stored sparse.
func streamSparse(n int) string {
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	var b strings.Builder
	for range n {
		y := 2*rng.IntN(2) - 1
		fmt.Fprintf(&b, "%d", y)
		j := 0
		for range 4 {
			j += 1 + rng.IntN(70)
			fmt.Fprintf(&b, " %d:%.2f", j, rng.NormFloat64()+0.3*float64(y))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// streamModels are models whose registers over rows stream in different
// ways: chains within one block (all of them), a per-row product used
// again after a mean over the same rows (kept whole; the rest of its chain
// streams), a maximum over rows, subsets of rows that would share a
// product, and products over sparse rows.
var streamModels = []testModel{
	{name: "npc", path: "../examples/npc.qrc"},
	{name: "fairness", path: "../examples/fairness.qrc"},
	{name: "phase", path: "../examples/phase.qrc"},
	{name: "centred", src: `data s = csv("d.csv", label = "y", drop = ["g"])
var x[3] in ball(2)
minimize mean(i in s) (dot(s.X[i], x) - mean(j in s) dot(s.X[j], x))^2 + mean(i in s) logistic(-s.y[i] * dot(s.X[i], x))
subject to
    top: max(i in s) dot(s.X[i], x) <= 5
    hinge: mean(i in s where s.g[i] == 1) max(0, 1 - s.y[i] * dot(s.X[i], x)) <= 2
`, files: map[string]string{"d.csv": streamData(700, 1)}},
	{name: "sparse", src: `data s = libsvm("d.svm")
var w[s.d] in ball(3)
minimize mean(i in s) logistic(-s.y[i] * dot(w, s.X[i])) + 0.01 * sum(j in 1..s.d) w[j]^2
subject to
    pos: mean(i in s where s.y[i] == 1) sigmoid(-dot(w, s.X[i])) <= 0.4
`, files: map[string]string{"d.svm": streamSparse(600)}},
}

// A testModel is a model file of the examples, or a model's source with
// its data files.
type testModel struct {
	name, path, src string
	files           map[string]string
}

// compile checks and compiles the model.
func (tm testModel) compile(t testing.TB) (*check.Model, *Program) {
	t.Helper()
	return tm.compileWith(t, testOptions())
}

// compileWith checks and compiles the model with compile options.
func (tm testModel) compileWith(t testing.TB, o *Options) (*check.Model, *Program) {
	t.Helper()
	if tm.path != "" {
		return loadWith(t, tm.path, check.Options{}, o)
	}
	m, p, err := compileSourceWith(t, tm.src, tm.files, o)
	require.NoError(t, err)
	return m, p
}

// allResults returns the values, one Gradient per function, a Gradient
// with every function weighted, and the Jacobian at x.
func allResults(t *testing.T, p *Program, x []float64, rng *rand.Rand) [][]float64 {
	t.Helper()
	out := evalAll(t, p, x)
	w := make([]float64, len(p.Functions()))
	for f := range w {
		w[f] = rng.Float64()
	}
	g := make([]float64, p.NumVars())
	require.NoError(t, p.Gradient(w, g))
	out = append(out, g)
	return append(out, jacobianOf(t, p, x)[1:]...)
}

// TestStreamBitwise: a streamed program (windowed registers, their aux
// kept for every row or windowed too and recomputed in the reverse pass)
// gives bit for bit the values, subgradients and Jacobian of the same
// blocks with every register kept whole, on 1, 2 and 4 cores, on all rows
// and on a sample.
func TestStreamBitwise(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for i, sm := range streamModels {
		for _, auxToo := range []bool{false, true} {
			t.Run(sm.name+map[bool]string{false: "", true: "/aux"}[auxToo], func(t *testing.T) {
				streamBitwise(t, i, auxToo)
			})
		}
	}
}

func streamBitwise(t *testing.T, i int, auxToo bool) {
	sm := streamModels[i]
	{
		{
			_, whole := streamModels[i].compileWith(t, streamSmall(allParallel(testOptions()), false))
			require.False(t, whole.streamed())
			o := streamSmall(allParallel(testOptions()), true)
			if auxToo {
				streamAuxToo(o)
			}
			m, streamed := streamModels[i].compileWith(t, o)
			require.True(t, streamed.streamed(), "some registers are windowed")
			windowed, kept := 0, 0
			for _, in := range streamed.insts {
				if rowAxis(in.out) != nil && !in.out.konst && in.op != opVar {
					if in.out.windowed() {
						windowed++
					} else {
						kept++
					}
				}
			}
			t.Logf("%d registers over rows windowed, %d kept whole; work space %d floats, whole %d", windowed, kept, len(streamed.arena), len(whole.arena))
			if sm.name == "centred" {
				require.Positive(t, kept, "the product used after its mean is kept whole")
			}
			if sm.name == "fairness" {
				shared := 0
				for _, in := range streamed.insts {
					if streamed.plan[in.k].share != nil {
						shared++
						require.False(t, in.out.windowed(), "a sharer keeps every row")
						require.False(t, streamed.plan[in.k].share.base.out.windowed(), "so does its base")
					}
				}
				require.Positive(t, shared, "the groups' products share the product over all rows")
			}
			redo := 0
			for _, ph := range streamed.bwd {
				for _, sg := range ph.segs {
					redo += len(sg.redo)
				}
			}
			if auxToo {
				require.Positive(t, redo, "the reverse pass recomputes the aux")
			} else {
				// what the reverse passes of these models read is the aux,
				// the data and the variables: nothing to recompute
				require.Zero(t, redo, "instructions recomputed")
			}
			x := randomPoint(m, rand.New(rand.NewPCG(uint64(i), 3)))
			requireSameBits(t, whole, streamed, x, 3, 7)
		}
	}
}

// requireSameBits requires p to give bit for bit want's values,
// subgradients and Jacobian at x, on 1, 2 and 4 cores, on all rows and on
// a sample of every every-th row (the positions times mult, modulo the
// rows) of each row set.
func requireSameBits(t *testing.T, want, p *Program, x []float64, every, mult int) {
	t.Helper()
	defer want.ResetSamples()
	defer p.ResetSamples()
	for _, sampled := range []bool{false, true} {
		if sampled {
			for s, smp := range p.Samples() {
				pos := make([]int, 0, smp.Rows/every+1)
				for q := 0; q < smp.Rows; q += every {
					pos = append(pos, (q*mult+1)%smp.Rows)
				}
				require.NoError(t, p.SetSample(s, pos))
				require.NoError(t, want.SetSample(s, pos))
			}
		}
		for _, procs := range []int{1, 2, 4} {
			runtime.GOMAXPROCS(procs)
			a := allResults(t, want, x, rand.New(rand.NewPCG(7, uint64(procs))))
			b := allResults(t, p, x, rand.New(rand.NewPCG(7, uint64(procs))))
			for r := range a {
				for j := range a[r] {
					require.Equal(t, math.Float64bits(a[r][j]), math.Float64bits(b[r][j]),
						"sampled %v, GOMAXPROCS %d, result %d, element %d: %g, want %g", sampled, procs, r, j, b[r][j], a[r][j])
				}
			}
		}
	}
}

// TestStreamAgainstUnstreamed compares a streamed program with the
// default one (its own blocks, shared products) to rounding, and checks
// it against finite differences.
func TestStreamAgainstUnstreamed(t *testing.T) {
	t.Parallel()
	for i, sm := range streamModels {
		t.Run(sm.name, func(t *testing.T) {
			m, plain := streamModels[i].compileWith(t, allParallel(testOptions()))
			require.False(t, plain.streamed())
			_, streamed := streamModels[i].compileWith(t, streamSmall(allParallel(testOptions()), true))
			x := randomPoint(m, rand.New(rand.NewPCG(uint64(i), 5)))
			want, got := evalAll(t, plain, x), evalAll(t, streamed, x)
			for r := range want {
				for j := range want[r] {
					require.InDelta(t, want[r][j], got[r][j], 1e-12*math.Max(1, math.Abs(want[r][j])), "result %d, element %d", r, j)
				}
			}
			if sm.name != "phase" && sm.name != "centred" { // kinks: abs, max
				require.Less(t, fdCheck(t, streamed, x), 1e-6)
			}
		})
	}
}

// TestStreamErrors: a value or subgradient that is not finite in a
// windowed register is reported at the same place, with the same words,
// as without streaming.
func TestStreamErrors(t *testing.T) {
	t.Parallel()
	data := map[string]string{"d.csv": streamData(500, 2)}
	for i, tc := range []struct {
		src  string
		grad bool
	}{
		{`data s = csv("d.csv", label = "y", drop = ["g"])
var x[3] in box(-2, 2) = 1
minimize mean(i in s) log(dot(s.X[i], x) + 2)
`, false},
		{`data s = csv("d.csv", label = "y", drop = ["g"])
var x[3] in box(-2, 2) = 1
minimize mean(i in s) sqrt(pos(dot(s.X[i], x)))
`, true},
	} {
		for _, auxToo := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/aux=%v", i, auxToo), func(t *testing.T) {
				errorOf := func(p *Program, x []float64) string {
					vals := make([]float64, 1)
					err := p.Eval(x, vals)
					if tc.grad {
						require.NoError(t, err)
						err = p.Gradient([]float64{1}, make([]float64, p.NumVars()))
					}
					require.Error(t, err)
					var ee *EvalError
					require.ErrorAs(t, err, &ee)
					msg := err.Error()
					return msg[strings.LastIndex(msg, "m.qrc"):]
				}
				m, plain, err := compileSource(t, tc.src, data)
				require.NoError(t, err)
				require.False(t, plain.streamed())
				want := errorOf(plain, start(m))
				o := streamSmall(testOptions(), true)
				if auxToo {
					streamAuxToo(o)
				}
				_, streamed, err := compileSourceWith(t, tc.src, data, o)
				require.NoError(t, err)
				require.True(t, streamed.streamed())
				require.Equal(t, want, errorOf(streamed, start(m)))
				// the program is usable after the error: the same values
				// (and, where it is finite, subgradient) as the plain
				// one's, to rounding
				x := start(m)
				for j := range x {
					x[j] = 0.1
				}
				if tc.grad {
					a, b := []float64{0}, []float64{0}
					require.NoError(t, plain.Eval(x, a))
					require.NoError(t, streamed.Eval(x, b))
					require.InDelta(t, a[0], b[0], 1e-12)
					return
				}
				want2, got2 := evalAll(t, plain, x), evalAll(t, streamed, x)
				for r := range want2 {
					require.InDeltaSlice(t, want2[r], got2[r], 1e-12)
				}
			})
		}
	}
}

// TestStreamNoAllocations: a streamed evaluation allocates nothing.
func TestStreamNoAllocations(t *testing.T) {
	m, p := loadWith(t, "../examples/npc.qrc", check.Options{}, streamSmall(testOptions(), true))
	require.True(t, p.streamed())
	x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
	vals := make([]float64, len(p.Functions()))
	rows := make([][]float64, len(vals))
	for f := range rows {
		rows[f] = make([]float64, p.NumVars())
	}
	requireNoAllocations(t, p, func() {
		if err := p.Eval(x, vals); err != nil {
			t.Fatal(err)
		}
		if err := p.Jacobian(rows); err != nil {
			t.Fatal(err)
		}
	})
}

// TestStreamWorkSpace: on data whose registers exceed tuning.streamMinBytes the
// program streams by default, and its work space grows with the rows only
// by the derivatives its reverse pass reads (the windowed registers' aux,
// a few floats a row), or not at all when those are windowed too: the
// same model on 20 000 and on 80 000 rows.
func TestStreamWorkSpace(t *testing.T) {
	t.Parallel()
	o := testOptions()
	o.tune.streamMinBytes, o.tune.streamBlockBytes = 256<<10, 16<<10
	src := `data s = csv("d.csv", label = "y", drop = ["g"])
var x[3] in ball(2)
minimize mean(i in s) logistic(-s.y[i] * dot(s.X[i], x))
subject to
    rate: mean(i in s) sigmoid(dot(s.X[i], x)) <= 0.7
`
	// rest is the work space without the aux kept for every row
	rest := func(n int) (floats, aux int) {
		_, p, err := compileSourceWith(t, src, map[string]string{"d.csv": streamData(n, 3)}, o)
		require.NoError(t, err)
		for _, in := range p.insts {
			if o := in.out; o.store == storeWindow && in.needsAux() {
				aux += o.fullBatch() * o.esize
			}
		}
		if n == 1000 {
			require.False(t, p.streamed(), "1000 rows take less than 256 KiB")
		} else {
			require.True(t, p.streamed())
		}
		return len(p.arena) - aux, aux
	}
	whole, _ := rest(1000)
	small, aux := rest(20000)
	require.Positive(t, aux)
	require.LessOrEqual(t, aux, 2*20000, "the logistic's and the sigmoid's derivatives")
	large, _ := rest(80000)
	require.Equal(t, small, large, "the windows do not grow with the rows")
	require.Less(t, large, 80*whole/4, "80 times the registers of 1000 rows")
	streamAuxToo(o)
	small, aux = rest(20000)
	require.Zero(t, aux)
	large, _ = rest(80000)
	require.Equal(t, small, large, "with the aux windowed nothing grows with the rows")
}

// TestStreamDefault: by default a program streams once its registers over
// rows reach 2 MiB (tuning.streamMinBytes): planStream counts 592 bytes of them
// a row for npc.qrc, so its 3000 shipped rows (1.7 MiB) are kept whole
// and 5000 rows (2.8 MiB) stream.
func TestStreamDefault(t *testing.T) {
	t.Parallel()
	require.Equal(t, int64(2<<20), defaultTuning().streamMinBytes)
	_, small := load(t, "../examples/npc.qrc", check.Options{})
	require.False(t, small.streamed(), "3000 rows")
	_, large := load(t, "../examples/npc.qrc", check.Options{Data: []check.Assign{{Name: "train", Value: syntheticSVM(t, 5000, 16, 10)}}})
	require.True(t, large.streamed(), "5000 rows")
}
