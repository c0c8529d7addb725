package autodiff

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/internal/npcref"
	"github.com/qrc-lang/qrc/internal/shareddata"
	"github.com/qrc-lang/qrc/modelfile"
)

// testOptions returns the options the tests compile with: the default
// thresholds, and the IR verifier run after every pass. The helpers below
// change them for a test.
func testOptions() *Options {
	tune := defaultTuning()
	return &Options{verify: true, tune: &tune}
}

// allParallel makes the programs compiled with o run every phase on as
// many cores as GOMAXPROCS allows, however few its rows.
func allParallel(o *Options) *Options {
	o.tune.parallelMinRows = 0
	return o
}

// without makes the programs compiled with o skip the named passes.
func without(o *Options, passes ...string) *Options {
	o.Disable = append(o.Disable, passes...)
	return o
}

// load checks a model file (with --data style overrides) and compiles it.
func load(t testing.TB, path string, opts check.Options) (*check.Model, *Program) {
	t.Helper()
	return loadWith(t, path, opts, testOptions())
}

// loadWith is load with compile options.
func loadWith(t testing.TB, path string, opts check.Options, o *Options) (*check.Model, *Program) {
	t.Helper()
	m, src, diags := modelfile.Load(path, opts)
	if m == nil {
		var b bytes.Buffer
		diags.Print(&b, src)
		t.Fatalf("%s: %s", path, b.String())
	}
	p, err := CompileWith(m, *o)
	require.NoError(t, err)
	return m, p
}

// compileSource checks and compiles a model given as text, written to a
// temporary directory together with the given data files.
func compileSource(t testing.TB, src string, files map[string]string) (*check.Model, *Program, error) {
	t.Helper()
	return compileSourceWith(t, src, files, testOptions())
}

// compileSourceWith is compileSource with compile options.
func compileSourceWith(t testing.TB, src string, files map[string]string, o *Options) (*check.Model, *Program, error) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	path := filepath.Join(dir, "m.qrc")
	m, srcs, diags := modelfile.LoadSource(path, []byte(src), check.Options{})
	if m == nil {
		var b bytes.Buffer
		diags.Print(&b, srcs)
		t.Fatalf("model does not check:\n%s\n%s", src, b.String())
	}
	p, err := CompileWith(m, *o)
	return m, p, err
}

func start(m *check.Model) []float64 {
	x := make([]float64, m.NumScalars)
	for _, v := range m.Vars {
		copy(x[v.Offset:], v.Start)
	}
	return x
}

// randomPoint returns a point strictly inside every variable's domain.
func randomPoint(m *check.Model, rng *rand.Rand) []float64 {
	x := make([]float64, m.NumScalars)
	for _, v := range m.Vars {
		seg := x[v.Offset : v.Offset+v.Size]
		d := v.Domain
		for i := range seg {
			seg[i] = rng.NormFloat64()
		}
		switch d.Kind {
		case domain.Box:
			for i := range seg {
				lo, hi := d.Lo[i], d.Hi[i]
				seg[i] = lo + (hi-lo)*(0.05+0.9*rng.Float64())
			}
		default:
			// shrink into the domain: project a scaled normal, then pull
			// it slightly inside
			for i := range seg {
				seg[i] *= 0.1
			}
			d.Project(seg)
			for i := range seg {
				seg[i] *= 0.9
			}
		}
	}
	return x
}

// fdCheck compares every function's subgradient at x with central finite
// differences and returns the worst relative error.
func fdCheck(t *testing.T, p *Program, x []float64) float64 {
	t.Helper()
	nf, n := len(p.Functions()), p.NumVars()
	vals := make([]float64, nf)
	require.NoError(t, p.Eval(x, vals))
	grads := make([][]float64, nf)
	for f := range grads {
		w := make([]float64, nf)
		w[f] = 1
		grads[f] = make([]float64, n)
		require.NoError(t, p.Gradient(w, grads[f]))
	}
	worst := 0.0
	plus, minus := make([]float64, nf), make([]float64, nf)
	for j := 0; j < n; j++ {
		h := 1e-6 * math.Max(1, math.Abs(x[j]))
		xj := x[j]
		x[j] = xj + h
		require.NoError(t, p.Eval(x, plus))
		x[j] = xj - h
		require.NoError(t, p.Eval(x, minus))
		x[j] = xj
		for f := 0; f < nf; f++ {
			fd := (plus[f] - minus[f]) / (2 * h)
			err := math.Abs(fd-grads[f][j]) / math.Max(1, math.Abs(fd))
			if err > worst {
				worst = err
			}
		}
	}
	return worst
}

func TestExamplesFiniteDifferences(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"npc", "fairness", "phase"} {
		t.Run(name, func(t *testing.T) {
			m, p := load(t, "../examples/"+name+".qrc", check.Options{})
			for k := 0; k < 3; k++ {
				x := randomPoint(m, rng)
				if err := fdCheck(t, p, x); err > 1e-6 {
					t.Errorf("point %d: worst relative error %.3g > 1e-6", k, err)
				}
			}
		})
	}
}

func pendigits(t testing.TB) string { return shareddata.Require(t, "pendigits") }

func TestNPCAtZeroPendigits(t *testing.T) {
	t.Parallel()
	path := pendigits(t)
	m, p := load(t, "../examples/npc.qrc", check.Options{Data: []check.Assign{{Name: "train", Value: path}}})
	vals := make([]float64, len(p.Functions()))
	require.NoError(t, p.Eval(start(m), vals))
	require.Len(t, vals, 10)
	// phi(0) = 1/2 for nine terms: loss(k) = 4.5; constraints loss(k) - r = 0.
	require.Equal(t, 4.5, vals[0])
	for f, v := range vals[1:] {
		require.InDelta(t, 0, v, 1e-12, "cap[%d]", f+2)
	}
}

// TestNPCAgainstKernel compares values and every subgradient with the
// hand-written gonum kernel at random points.
func TestNPCAgainstKernel(t *testing.T) {
	t.Parallel()
	m, p := load(t, "../examples/npc.qrc", check.Options{})
	requireNPCKernel(t, m, p, npcref.New(m.Data[0].Set, 10), rand.New(rand.NewPCG(3, 4)), 3)
}

// requireNPCKernel checks the values and every subgradient of p, compiled
// from examples/npc.qrc, against the hand-written kernel h at points
// random points of m's domain.
func requireNPCKernel(t *testing.T, m *check.Model, p *Program, h *npcref.Kernel, rng *rand.Rand, points int) {
	t.Helper()
	nf := len(p.Functions())
	vals := make([]float64, nf)
	g := make([]float64, p.NumVars())
	for range points {
		x := randomPoint(m, rng)
		require.NoError(t, p.Eval(x, vals))
		h.Eval(x)
		for f := 0; f < nf; f++ {
			r := 4.5
			if f == 0 {
				r = 0
			}
			require.InDelta(t, h.Vals[f]-r, vals[f], 1e-12)
			w := make([]float64, nf)
			w[f] = 1
			require.NoError(t, p.Gradient(w, g))
			for j := range g {
				require.InDelta(t, h.Grads[f][j], g[j], 1e-12, "function %d, element %d", f, j)
			}
		}
		rows := jacobianOf(t, p, x)[1:]
		for f := range nf {
			require.InDeltaSlice(t, h.Grads[f], rows[f], 1e-12, "Jacobian, function %d", f)
		}
	}
}

func TestCombination(t *testing.T) {
	t.Parallel()
	m, p := load(t, "../examples/npc.qrc", check.Options{})
	rng := rand.New(rand.NewPCG(5, 6))
	x := randomPoint(m, rng)
	nf, n := len(p.Functions()), p.NumVars()
	vals := make([]float64, nf)
	require.NoError(t, p.Eval(x, vals))
	w := make([]float64, nf)
	want := make([]float64, n)
	gi := make([]float64, n)
	for f := range w {
		w[f] = rng.Float64()
		e := make([]float64, nf)
		e[f] = 1
		require.NoError(t, p.Gradient(e, gi))
		for j := range want {
			want[j] += w[f] * gi[j]
		}
	}
	got := make([]float64, n)
	require.NoError(t, p.Gradient(w, got))
	require.InDeltaSlice(t, want, got, 1e-12)
}

func TestNoAllocations(t *testing.T) {
	m, p := load(t, "../examples/npc.qrc", check.Options{})
	x := randomPoint(m, rand.New(rand.NewPCG(7, 8)))
	vals := make([]float64, len(p.Functions()))
	g := make([]float64, p.NumVars())
	w := make([]float64, len(vals))
	for i := range w {
		w[i] = 1
	}
	run := func() {
		if err := p.Eval(x, vals); err != nil {
			t.Fatal(err)
		}
		if err := p.Gradient(w, g); err != nil {
			t.Fatal(err)
		}
	}
	requireNoAllocations(t, p, run)
}

// requireNoAllocations checks that run (an evaluation and a gradient of
// p) allocates nothing once warm, on one core and on 2 and 4 (every phase
// of p on every core).
func requireNoAllocations(t *testing.T, p *Program, run func()) {
	t.Helper()
	p.tune.parallelMinRows = 0
	require.Zero(t, testing.AllocsPerRun(20, run), "allocations per Eval+Gradient")
	if raceEnabled {
		// 10 in 100 runs under the race detector on a loaded machine, none
		// of them in this package's code (the memory profile shows none)
		t.Log("the race detector's runtime allocates: allocations on 2 and 4 cores not counted")
		return
	}
	// AllocsPerRun runs on one core; count by hand with the worker pool
	// (started by the first evaluation, outside the counted runs)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{2, 4} {
		runtime.GOMAXPROCS(procs)
		for range 50 {
			run()
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 100 {
			run()
		}
		runtime.ReadMemStats(&after)
		// What testing.AllocsPerRun would report (the integer mean) is 0,
		// which fewer than 100 in 100 runs shows; half that is asked. The
		// runtime may now and then allocate the record of a worker
		// blocking on the pool's channel (its cache of them is emptied by
		// every collection): a few in a hundred runs, 10 once on the
		// 2-core VM with two other test runs beside it, never one a run.
		require.Less(t, after.Mallocs-before.Mallocs, uint64(50), "allocations in 100 runs with GOMAXPROCS=%d", procs)
	}
}

// TestAtoms checks every built-in, through the compiler, against finite
// differences at random smooth points.
func TestAtoms(t *testing.T) {
	t.Parallel()
	pos := "var x[3] in box(0.2, 3)\n"
	any := "var x[3] in box(-3, 3)\n"
	cases := []struct{ decl, obj string }{
		{any, "sum(j in 1..3) abs(x[j])"},
		{any, "sum(j in 1..3) pos(x[j])"},
		{any, "sum(j in 1..3) exp(x[j])"},
		{pos, "sum(j in 1..3) log(x[j])"},
		{pos, "sum(j in 1..3) log1p(x[j])"},
		{pos, "sum(j in 1..3) sqrt(x[j])"},
		{any, "sum(j in 1..3) square(x[j])"},
		{any, "sum(j in 1..3) sigmoid(x[j])"},
		{any, "sum(j in 1..3) logistic(x[j])"},
		{any, "sum(j in 1..3) tanh(x[j])"},
		{any, "sum(j in 1..3) hinge(x[j])"},
		{any, "sum(j in 1..3) sin(x[j]) + sum(j in 1..3) cos(2 * x[j])"},
		{any, "sum(j in 1..3) tan(x[j] / 2)"},
		{any, "sum(j in 1..3) atan(x[j]) + sum(j in 1..3) erf(x[j])"},
		{pos, "sum(j in 1..3) log10(x[j])"},
		{any, "prod(x) + prod(j in 1..3) (x[j] + 4)"},
		{any, "prod(j in 1..3 where j != 2) sin(x[j])"},
		{pos, "x[1]^x[2] + x[3]^(x[1] - 1) + 2^x[2]"},
		{pos, "sum(j in 1..3) x[j]^x[j]"},
		{any, "sum(j in 1..3) huber(x[j], 0.5)"},
		{any, "sum(j in 1..3) mcp(x[j], 1, 2)"},
		{any, "sum(j in 1..3) scad(x[j], 0.5, 3.7)"},
		{any, "max(x[1], x[2], x[3])"},
		{any, "min(x[1], 2 * x[2], x[3] - 1)"},
		{any, "max(x) + min(x)"},
		{any, "max(i in 1..3) x[i]^2"},
		{any, "min(i in 1..3) (x[i] - 1)^2"},
		{any, "norm1(x) + norm2(x) + norminf(x)"},
		{any, "sum(x) + mean(x)"},
		{any, "dot(x, x) + dot(x, [1, 2, 3])"},
		{any, "x[1]^3"},
		{any, "x[2]^2 * x[3]"},
		{any, "x[1] / (x[2]^2 + 1)"},
		{any, "x[1]^3 + x[2]^2 * x[3] - x[1] / (x[2]^2 + 1)"},
		{pos, "sum(j in 1..3) x[j]^0.5 + x[1]^-1.5"},
		{any, "1 / (1 + exp(3 * x[1])) + log(1 + exp(x[2] - x[3]))"},
		{any, "1 / (1 + exp(-(-x[1]))) + 1 / (1 + exp(-x[2])) + 1 / (1 + exp(-(-(-x[3]))))"},
		{any, "sum(j in 1..3) x[j] * x[j] + sum(j in 1..3) (x[j] - 1) * (2 * x[j])"},
		{any, "sum(i in 1..3) sum(j in 1..3 where j != i) x[i] * x[j]"},
		{any, "sum(i in 1..3) sum(j in 1..i) x[j] * i"},
		{any, "mean(i in 1..3) mean(j in 1..3 where j >= i) sigmoid(x[j] * i)"},
		{any, "max(i in 1..3) max(j in 1..3 where j > i) (x[i] - x[j])"},
		{"var W[3, 2] in box(-1, 1)\nvar v[2] in box(-1, 1)\n", "norm2(dot(W, v) - [1, 2, 3]) + sum(k in 1..3) dot(W[k], v)^2"},
		{"var W[3, 2] in box(-1, 1)\n", "sum(k in 1..3) sum(l in 1..3 where l != k) logistic(dot(W[k] - W[l], [1, -2]))"},
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range cases {
		t.Run(tc.obj, func(t *testing.T) {
			m, p, err := compileSource(t, tc.decl+"minimize "+tc.obj+"\n", nil)
			require.NoError(t, err)
			for k := 0; k < 5; k++ {
				x := randomPoint(m, rng)
				if e := fdCheck(t, p, x); e > 1e-6 {
					t.Errorf("point %v: worst relative error %.3g > 1e-6", x, e)
				}
			}
		})
	}
}

// TestKnownValues checks values and subgradients against closed forms,
// including the documented choices at kinks.
func TestKnownValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		decl, obj string
		x         []float64
		val       float64
		grad      []float64
	}{
		{"var x[4] in box(-5, 5)\n", "sum(i in 1..4) sum(j in 1..4 where j != i) x[i] * x[j]",
			[]float64{1, 2, 3, 4}, 100 - 30, []float64{18, 16, 14, 12}},
		{"var x[4] in box(-5, 5)\n", "sum(i in 1..4) sum(j in 1..i) x[j]",
			[]float64{1, 2, 3, 4}, 4*1 + 3*2 + 2*3 + 4, []float64{4, 3, 2, 1}},
		{"var x[3] in box(-5, 5)\n", "mean(i in 1..3) mean(j in 1..3 where j >= i) x[j]",
			[]float64{3, 6, 9}, (6 + 7.5 + 9) / 3, []float64{1.0 / 9, 1.0/9 + 1.0/6, 1.0/9 + 1.0/6 + 1.0/3}},
		// ties go to the lowest index
		{"var x[3] in box(-5, 5)\n", "max(i in 1..3) x[i]", []float64{2, 2, 1}, 2, []float64{1, 0, 0}},
		{"var x[3] in box(-5, 5)\n", "min(i in 1..3) x[i]", []float64{1, 2, 1}, 1, []float64{1, 0, 0}},
		{"var x[3] in box(-5, 5)\n", "max(x[1], x[2], x[3])", []float64{1, 3, 3}, 3, []float64{0, 1, 0}},
		{"var x[3] in box(-5, 5)\n", "max(x)", []float64{3, 1, 3}, 3, []float64{1, 0, 0}},
		// kinks: abs'(0) = 0, pos'(0) = 0, hinge'(1) = 0, norm2'(0) = 0
		{"var x[3] in box(-5, 5)\n", "abs(x[1]) + pos(x[2]) + hinge(x[3])", []float64{0, 0, 1}, 0, []float64{0, 0, 0}},
		{"var x[3] in box(-5, 5)\n", "norm2(x)", []float64{0, 0, 0}, 0, []float64{0, 0, 0}},
		{"var x[3] in box(-5, 5)\n", "norminf(x)", []float64{-2, 2, 1}, 2, []float64{-1, 0, 0}},
		{"var x[2] in box(-5, 5)\n", "x[1] * x[1] + x[2] / x[2]", []float64{3, 2}, 10, []float64{6, 0}},
		// closed forms of the new functions: sin(pi/6) = 1/2, cos' = -sin,
		// tan(pi/4) = 1 with slope 2, atan(1) = pi/4 with slope 1/2
		{"var x[2] in box(-5, 5)\n", "sin(x[1]) + cos(x[2])", []float64{math.Pi / 6, math.Pi / 2}, 0.5 + math.Cos(math.Pi/2), []float64{math.Sqrt(3) / 2, -1}},
		{"var x[2] in box(-5, 5)\n", "tan(x[1]) + atan(x[2])", []float64{math.Pi / 4, 1}, 1 + math.Pi/4, []float64{2, 0.5}},
		{"var x[2] in box(-5, 5)\n", "erf(x[1]) + log10(x[2])", []float64{0, 100}, 2, []float64{2 / math.Sqrt(math.Pi), 1 / (100 * math.Ln10)}},
		// prod: 2*3*4 with the products of the others; one zero element
		{"var x[3] in box(-5, 5)\n", "prod(x)", []float64{2, 3, 4}, 24, []float64{12, 8, 6}},
		{"var x[3] in box(-5, 5)\n", "prod(i in 1..3) x[i]", []float64{2, 0, 4}, 0, []float64{0, 8, 0}},
		// x^y = e^(y log x): 2^3 = 8, d/dx = y x^(y-1) = 12, d/dy = x^y log x
		{"var x[2] in box(0.1, 5)\n", "x[1]^x[2]", []float64{2, 3}, 8, []float64{12, 8 * math.Ln2}},
	}
	for _, tc := range cases {
		t.Run(tc.obj, func(t *testing.T) {
			_, p, err := compileSource(t, tc.decl+"minimize "+tc.obj+"\n", nil)
			require.NoError(t, err)
			vals := make([]float64, 1)
			require.NoError(t, p.Eval(tc.x, vals))
			require.InDelta(t, tc.val, vals[0], 1e-12)
			g := make([]float64, len(tc.x))
			require.NoError(t, p.Gradient([]float64{1}, g))
			require.InDeltaSlice(t, tc.grad, g, 1e-12)
		})
	}
}

// TestStableForms: 1/(1+exp(z)), logistic and sigmoid at extreme z give
// the right value and a finite subgradient.
func TestStableForms(t *testing.T) {
	t.Parallel()
	decl := "var x[2] in box(-2000, 2000)\n"
	for _, tc := range []struct {
		obj  string
		x    []float64
		val  float64
		grad []float64
	}{
		{"1 / (1 + exp(x[1]))", []float64{1000, 0}, 0, []float64{0, 0}},
		{"1 / (1 + exp(x[1]))", []float64{-1000, 0}, 1, []float64{0, 0}},
		{"1 / (1 + exp(-x[1]))", []float64{-1000, 0}, 0, []float64{0, 0}},
		{"1 / (1 + exp(-(-x[1])))", []float64{1000, 0}, 0, []float64{0, 0}},
		{"1 / (1 + exp(-(-x[1])))", []float64{-1000, 0}, 1, []float64{0, 0}},
		{"sigmoid(x[1]) + sigmoid(x[2])", []float64{1000, -1000}, 1, []float64{0, 0}},
		{"logistic(x[1]) + logistic(x[2])", []float64{-1000, 1000}, 1000, []float64{0, 1}},
		{"log(1 + exp(x[1]))", []float64{1000, 0}, 1000, []float64{1, 0}},
	} {
		t.Run(tc.obj, func(t *testing.T) {
			_, p, err := compileSource(t, decl+"minimize "+tc.obj+"\n", nil)
			require.NoError(t, err)
			vals := make([]float64, 1)
			require.NoError(t, p.Eval(tc.x, vals))
			require.InDelta(t, tc.val, vals[0], 1e-12)
			g := make([]float64, 2)
			require.NoError(t, p.Gradient([]float64{1}, g))
			require.InDeltaSlice(t, tc.grad, g, 1e-12)
		})
	}
}

func TestEvalErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src, want string
		grad      bool
	}{
		{"var x in box(-1, 1) = 0.7\nminimize log(x - 1)\n", "m.qrc:2:10: log of a negative number (-0.3", false},
		{"var x in box(-1, 1) = 1\nminimize log(x - 1)\n", "m.qrc:2:10: log of zero", false},
		{"var x in box(-1, 1) = 0\nminimize 1 / x\n", "m.qrc:2:10: division by zero", false},
		{"var x in box(-1, 1) = -0.5\nminimize x ^ 0.5\n", "m.qrc:2:10: negative number (-0.5) to the fractional power 0.5", false},
		{"var x in box(-1, 1) = 0\nminimize sqrt(x - 0.5) + 1\n", "m.qrc:2:10: square root of a negative number (-0.5)", false},
		{"var x in box(0, 1) = 0\nminimize sqrt(x)\n", "m.qrc:2:10: the subgradient of sqrt at 0 is not finite", true},
		// a NaN must not be hidden by a max, a min or a function whose
		// branches would map it to a finite value (found by
		// FuzzCompileEval)
		{"var x in box(-2, 2) = -2\nminimize mcp(max(max(log1p(x), 0), 0), 1, 2)\n", "m.qrc:2:22: log1p", false},
		{"var x in box(-2, 2) = -2\nminimize min(0, sqrt(x))\n", "m.qrc:2:17: square root of a negative number", false},
		{"var x[2] in box(-2, 2) = -2\nminimize max(j in 1..2) log(x[j])\n", "m.qrc:2:25: log of a negative number", false},
		{"var x[2] in box(-2, 2) = -2\nminimize norminf(sqrt(x))\n", "m.qrc:2:18: square root of a negative number", false},
	} {
		m, p, err := compileSource(t, tc.src, nil)
		require.NoError(t, err)
		vals := make([]float64, 1)
		err = p.Eval(start(m), vals)
		if tc.grad {
			require.NoError(t, err)
			err = p.Gradient([]float64{1}, make([]float64, 1))
		}
		require.Error(t, err, tc.src)
		var ee *EvalError
		require.ErrorAs(t, err, &ee)
		msg := err.Error()
		require.True(t, strings.HasSuffix(ee.Pos.Filename, "m.qrc"))
		msg = msg[strings.LastIndex(msg, "m.qrc"):]
		require.Contains(t, msg, tc.want)
	}
}

// TestDataBlocks covers data comprehensions: filters resolved into row
// blocks, a matrix-vector product, and columns.
func TestDataBlocks(t *testing.T) {
	t.Parallel()
	csv := "a,b,g,y\n1,2,0,1\n3,-1,1,-1\n0.5,0.5,0,1\n-2,1,1,1\n"
	src := `data d = csv("d.csv", label = "y", drop = ["g"])
var x[2] in box(-3, 3) = 0.5
minimize mean(i in d where d.g[i] == 0) logistic(-d.y[i] * dot(d.X[i], x))
         + sum(i in d) square(dot(d.X[i], x) - d.y[i]) + norm2(dot(d.X, x))
subject to
    c: mean(i in d where d.g[i] == 1) hinge(d.y[i] * dot(d.X[i], x)) <= 1
`
	m, p, err := compileSource(t, src, map[string]string{"d.csv": csv})
	require.NoError(t, err)
	X := [][]float64{{1, 2}, {3, -1}, {0.5, 0.5}, {-2, 1}}
	y := []float64{1, -1, 1, 1}
	grp := []float64{0, 1, 0, 1}
	rng := rand.New(rand.NewPCG(11, 12))
	for k := 0; k < 5; k++ {
		x := randomPoint(m, rng)
		vals := make([]float64, 2)
		require.NoError(t, p.Eval(x, vals))
		dot := func(i int) float64 { return X[i][0]*x[0] + X[i][1]*x[1] }
		var mean0, n0, sq, ss, h, n1 float64
		for i := range X {
			if grp[i] == 0 {
				mean0 += math.Log1p(math.Exp(-y[i] * dot(i)))
				n0++
			} else {
				h += math.Max(0, 1-y[i]*dot(i))
				n1++
			}
			sq += (dot(i) - y[i]) * (dot(i) - y[i])
			ss += dot(i) * dot(i)
		}
		require.InDelta(t, mean0/n0+sq+math.Sqrt(ss), vals[0], 1e-12)
		require.InDelta(t, h/n1-1, vals[1], 1e-12)
		if e := fdCheck(t, p, x); e > 1e-6 {
			t.Errorf("worst relative error %.3g", e)
		}
	}
}

// TestSamples: a sample of all rows in order reproduces the full value
// bit for bit; a subset gives the mean over that subset; the estimate is
// unbiased.
func TestSamples(t *testing.T) {
	t.Parallel()
	m, p := load(t, "../examples/fairness.qrc", check.Options{})
	rng := rand.New(rand.NewPCG(13, 14))
	x := randomPoint(m, rng)
	nf := len(p.Functions())
	full := make([]float64, nf)
	require.NoError(t, p.Eval(x, full))
	gfull := make([]float64, p.NumVars())
	w := []float64{1, 0.5, 0.25}
	require.NoError(t, p.Gradient(w, gfull))

	ss := p.Samples()
	require.NotEmpty(t, ss)
	for s, smp := range ss {
		all := make([]int, smp.Rows)
		for i := range all {
			all[i] = i
		}
		require.NoError(t, p.SetSample(s, all))
	}
	same := make([]float64, nf)
	require.NoError(t, p.Eval(x, same))
	require.Equal(t, full, same)
	g := make([]float64, p.NumVars())
	require.NoError(t, p.Gradient(w, g))
	require.Equal(t, gfull, g)

	// The objective's mean over people: a subset of rows.
	set := m.Data[0].Set
	obj := -1
	for s, smp := range ss {
		if smp.Rows == set.N() {
			obj = s
		}
	}
	require.GreaterOrEqual(t, obj, 0)
	p.ResetSamples()
	sub := []int{5, 17, 17, 400, 999}
	require.NoError(t, p.SetSample(obj, sub))
	require.NoError(t, p.Eval(x, same))
	want := 0.0
	for _, i := range sub {
		z := set.Y[i] * dotRow(set.X.RawRowView(i), x)
		want += math.Log1p(math.Exp(-z)) // the logistic loss log(1 + e^-z)
	}
	require.InDelta(t, want/float64(len(sub)), same[0], 1e-12)

	// Unbiased: the average over many samples approaches the full value.
	p.ResetSamples()
	require.NoError(t, p.Eval(x, full))
	sum := make([]float64, nf)
	const draws = 4000
	for k := 0; k < draws; k++ {
		for s, smp := range ss {
			pos := make([]int, 10)
			for i := range pos {
				pos[i] = rng.IntN(smp.Rows)
			}
			require.NoError(t, p.SetSample(s, pos))
		}
		require.NoError(t, p.Eval(x, same))
		for f := range sum {
			sum[f] += same[f]
		}
	}
	for f := range sum {
		require.InDelta(t, full[f], sum[f]/draws, 0.01, "function %d", f)
	}
	p.ResetSamples()
	require.NoError(t, p.Eval(x, same))
	require.Equal(t, full, same)
	require.Error(t, p.SetSample(len(ss), []int{0}))
	require.Error(t, p.SetSample(0, []int{-1}))
	require.Error(t, p.SetSample(0, nil))
}

func dotRow(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestSharing: a subexpression written in several functions is computed
// once per evaluation. In fairness.qrc, rate(0) and rate(1) (a mean of
// sigmoid(dot(people.X[i], x)) over the rows of group 0, of group 1) appear
// in both constraints; with the objective's dot over all rows that is 3
// products, not 5, and one mean per group, not two.
func TestSharing(t *testing.T) {
	t.Parallel()
	_, p := load(t, "../examples/fairness.qrc", check.Options{})
	dots, means := 0, 0
	for _, in := range p.insts {
		if in.op == opDot {
			dots++
		}
	}
	require.Equal(t, 3, dots)
	var b bytes.Buffer
	p.Disasm(&b)
	require.Equal(t, p.NumInstructions(), strings.Count(b.String(), "\n"))
	require.Contains(t, b.String(), "dot")
	require.Contains(t, b.String(), "17:69", "instructions carry their source positions (the dot in rate)")
	means = strings.Count(b.String(), "comprehension mean")
	require.Equal(t, 3, means, "the objective's mean and one per group")
	// The mean over group 0 runs over one row set; it lists both
	// constraints' uses of rate(0), at rate's mean.
	found := false
	for _, s := range p.Samples() {
		if s.Rows == 498 {
			found = true
			require.Len(t, s.Means, 2)
			require.Equal(t, s.Means[0], s.Means[1])
		}
	}
	require.True(t, found)
}

// TestFairAgainstKernel compares the fairness model on adult.csv, values
// and every subgradient (by Gradient and by Jacobian), with the
// hand-written kernel npcref.Fair.
func TestFairAgainstKernel(t *testing.T) {
	t.Parallel()
	m, p, err := compileSource(t, fmt.Sprintf(fairAdult, adult(t)), nil)
	require.NoError(t, err)
	set := m.Data[0].Set
	h, err := npcref.NewFair(set, set.Columns["male"], 1, 0.8)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(5, 6))
	nf := len(p.Functions())
	vals := make([]float64, nf)
	g := make([]float64, p.NumVars())
	for range 2 {
		x := randomPoint(m, rng)
		require.NoError(t, p.Eval(x, vals))
		h.Eval(x)
		for f := range nf {
			require.InDelta(t, h.Vals[f], vals[f], 1e-12, "function %d", f)
			w := make([]float64, nf)
			w[f] = 1
			require.NoError(t, p.Gradient(w, g))
			for j := range g {
				require.InDelta(t, h.Grads[f][j], g[j], 1e-12, "function %d, element %d", f, j)
			}
		}
		rows := jacobianOf(t, p, x)[1:]
		for f := range nf {
			require.InDeltaSlice(t, h.Grads[f], rows[f], 1e-12, "Jacobian, function %d", f)
		}
	}
}

// TestSumDot compiles npc.qrc with its dot product written as a sum over
// features: the same values and subgradients as dot(...) (to rounding), and
// no elementwise product over rows x classes x features is formed.
func TestSumDot(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../examples/npc.qrc")
	require.NoError(t, err)
	text := strings.Replace(string(src), "dot(W[k] - W[l], train.X[i])", "sum(j in 1..train.d) (W[k,j] - W[l,j]) * train.X[i,j]", 1)
	require.NotEqual(t, string(src), text)
	digits, err := filepath.Abs("../examples/data/digits.svm")
	require.NoError(t, err)
	text = strings.Replace(text, `"data/digits.svm"`, strconv.Quote(digits), 1)
	_, q, err := compileSource(t, text, nil)
	require.NoError(t, err)
	for _, in := range q.insts {
		require.NotEqual(t, opMul, in.op, "an elementwise product is left")
	}
	m, p := load(t, "../examples/npc.qrc", check.Options{})
	x := randomPoint(m, rand.New(rand.NewPCG(13, 14)))
	want, got := evalAll(t, p, x), evalAll(t, q, x)
	for i := range want {
		require.InDeltaSlice(t, want[i], got[i], 1e-12, "result %d", i)
	}
}

// TestSumDotViews checks sums over features whose factors both depend on
// the variables, on rows and not, against finite differences, on 1 and 2
// cores (the rows span several blocks).
func TestSumDotViews(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(15, 16))
	csv := "a,b,c,y\n"
	for i := range 700 {
		csv += formatRow([]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, float64(i%2))
	}
	src := `data s = csv("d.csv", label = "y")
var x[3] in box(-2, 2)
var v[3] in box(-2, 2)
minimize mean(i in s) sigmoid(sum(j in 1..3) x[j] * (s.X[i,j] * v[j]))
subject to
    c: mean(i in s) sum(j in 1..3) (x[j] - v[j]) * s.X[i,j] <= 1
`
	m, p, err := compileSource(t, src, map[string]string{"d.csv": csv})
	require.NoError(t, err)
	views := 0
	for _, in := range p.insts {
		if in.op == opView {
			views++
		}
	}
	require.Equal(t, 3, views, "x, x*v over rows and x-v read as vectors")
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		x := randomPoint(m, rng)
		if err := fdCheck(t, p, x); err > 1e-6 {
			t.Errorf("GOMAXPROCS=%d: worst relative error %.3g > 1e-6", procs, err)
		}
	}
}
