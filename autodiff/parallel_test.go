package autodiff

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
)

// evalAll returns every value and every function's subgradient at x.
func evalAll(t *testing.T, p *Program, x []float64) [][]float64 {
	t.Helper()
	nf := len(p.Functions())
	vals := make([]float64, nf)
	require.NoError(t, p.Eval(x, vals))
	out := [][]float64{vals}
	for f := range nf {
		w := make([]float64, nf)
		w[f] = 1
		g := make([]float64, p.NumVars())
		require.NoError(t, p.Gradient(w, g))
		out = append(out, g)
	}
	return out
}

// TestCoresBitwise evaluates the examples (whose means span several blocks
// of rows) with GOMAXPROCS 1, 2 and 4 and requires bitwise equal values and
// subgradients, on all rows and on a sample.
func TestCoresBitwise(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, name := range []string{"npc", "fairness", "phase"} {
		t.Run(name, func(t *testing.T) {
			m, p := loadWith(t, "../examples/"+name+".qrc", check.Options{}, allParallel(testOptions()))
			blocks := 0
			for _, ph := range p.fwd {
				for _, s := range ph.segs {
					blocks = max(blocks, s.ax.maxBlocks)
				}
			}
			require.Greater(t, blocks, 1, "the test needs means of several blocks")
			x := randomPoint(m, rand.New(rand.NewPCG(9, 10)))
			var want [][]float64
			for _, procs := range []int{1, 2, 4} {
				runtime.GOMAXPROCS(procs)
				for range 3 { // repeated runs take the blocks in other orders
					got := evalAll(t, p, x)
					if want == nil {
						want = got
						continue
					}
					for i := range want {
						for j := range want[i] {
							require.Equal(t, math.Float64bits(want[i][j]), math.Float64bits(got[i][j]), "GOMAXPROCS=%d, result %d, element %d", procs, i, j)
						}
					}
				}
			}
		})
	}
}

// TestBlocksMatchSerial compares the blocked evaluation with a plain serial
// sum over rows computed in the test, for a mean and its gradient.
func TestBlocksMatchSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(2)
	rng := rand.New(rand.NewPCG(11, 12))
	const n, d = 1000, 3
	var csv []byte
	csv = append(csv, "a,b,c,y\n"...)
	X := make([][d]float64, n)
	for i := range X {
		for j := range X[i] {
			X[i][j] = math.Round(rng.NormFloat64()*100) / 100
		}
		csv = append(csv, []byte(formatRow(X[i][:], float64(i%2)))...)
	}
	_, p, err := compileSource(t, "data s = csv(\"d.csv\", label = \"y\")\nvar x[3] in box(-3, 3)\nminimize mean(i in s) sigmoid(dot(s.X[i], x))\n", map[string]string{"d.csv": string(csv)})
	require.NoError(t, err)
	x := []float64{0.3, -0.2, 0.5}
	got := evalAll(t, p, x)
	// the reference: sigmoid and its derivative, summed serially
	v, g := 0.0, make([]float64, d)
	for i := range X {
		z := X[i][0]*x[0] + X[i][1]*x[1] + X[i][2]*x[2]
		s := 1 / (1 + math.Exp(-z))
		v += s
		for j := range g {
			g[j] += s * (1 - s) * X[i][j]
		}
	}
	require.InDelta(t, v/n, got[0][0], 1e-14)
	for j := range g {
		require.InDelta(t, g[j]/n, got[1][j], 1e-14)
	}
}

func formatRow(x []float64, y float64) string {
	s := ""
	for _, v := range x {
		s += strconvF(v) + ","
	}
	return s + strconvF(y) + "\n"
}

func strconvF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TestLossesBlocks checks a hinge and a logistic loss over one shared dot
// product, on rows spanning several blocks, against finite differences,
// and requires the same bits on 1 and 2 cores.
func TestLossesBlocks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(17, 18))
	csv := []byte("a,b,c,y\n")
	for range 900 {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		y := 1.0
		if x[0]-x[1]+0.5*rng.NormFloat64() < 0 {
			y = -1
		}
		csv = append(csv, formatRow(x, y)...)
	}
	src := `data s = csv("d.csv", label = "y")
var w[3] in ball(3)
minimize mean(i in s) max(0, 1 - s.y[i] * dot(w, s.X[i]))
subject to
    c: mean(i in s) log(1 + exp(-s.y[i] * dot(w, s.X[i]))) <= 1
`
	m, p, err := compileSource(t, src, map[string]string{"d.csv": string(csv)})
	require.NoError(t, err)
	dots := 0
	for _, in := range p.insts {
		if in.op == opDot {
			dots++
		}
	}
	require.Equal(t, 1, dots, "the dot product is shared")
	x := randomPoint(m, rng)
	var want [][]float64
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		got := evalAll(t, p, x)
		if want == nil {
			want = got
			if err := fdCheck(t, p, x); err > 1e-6 {
				t.Errorf("worst relative error %.3g > 1e-6", err)
			}
			continue
		}
		for i := range want {
			for j := range want[i] {
				require.Equal(t, math.Float64bits(want[i][j]), math.Float64bits(got[i][j]), "result %d, element %d", i, j)
			}
		}
	}
}

// TestSmallPhaseOnCaller: a phase of fewer than tuning.parallelMinRows rows runs
// on the caller alone (worker 0), a larger one on every core.
func TestSmallPhaseOnCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	m, p := load(t, "../examples/npc.qrc", check.Options{}) // 3000 rows
	x := randomPoint(m, rand.New(rand.NewPCG(41, 42)))
	vals := make([]float64, len(p.Functions()))
	workersSeen := func() map[int]bool {
		seen := map[int]bool{}
		var mu sync.Mutex
		block := p.job.Fn
		p.job.Fn = func(w, i int) {
			mu.Lock()
			seen[w] = true
			mu.Unlock()
			block(w, i)
		}
		defer func() { p.job.Fn = block }()
		for range 50 {
			require.NoError(t, p.Eval(x, vals))
		}
		return seen
	}
	require.Equal(t, map[int]bool{0: true}, workersSeen(), "3000 rows run on the caller")
	p.tune.parallelMinRows = 0
	seen := workersSeen()
	require.True(t, seen[0])
	for w := range seen {
		require.Less(t, w, 2)
	}
}

// TestNewFunctionsCoresBitwise: the trigonometric functions, atan, erf,
// prod and x^y with a variable exponent inside means over rows give
// bitwise the same values and subgradients on 1, 2 and 4 cores, and
// agree with finite differences.
func TestNewFunctionsCoresBitwise(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(29, 30))
	csv := []byte("a,b,c,y\n")
	for range 1500 {
		csv = append(csv, formatRow([]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, float64(2*rng.IntN(2)-1))...)
	}
	src := `data s = csv("d.csv", label = "y")
var w[3] in box(0.5, 2)
minimize mean(i in s) (sin(dot(w, s.X[i])) + atan(s.y[i] * dot(w, s.X[i]))) + prod(w) + w[1]^w[2]
subject to
    c: mean(i in s) erf(dot(w, s.X[i]))^2 * cos(w[3]) + mean(i in s) tan(dot(w, s.X[i]) / 20) <= 1
`
	m, p, err := compileSourceWith(t, src, map[string]string{"d.csv": string(csv)}, allParallel(testOptions()))
	require.NoError(t, err)
	x := randomPoint(m, rng)
	var want [][]float64
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		for range 3 {
			got := evalAll(t, p, x)
			if want == nil {
				want = got
				if err := fdCheck(t, p, x); err > 1e-6 {
					t.Errorf("worst relative error %.3g > 1e-6", err)
				}
				continue
			}
			for i := range want {
				for j := range want[i] {
					require.Equal(t, math.Float64bits(want[i][j]), math.Float64bits(got[i][j]), "GOMAXPROCS=%d, result %d, element %d", procs, i, j)
				}
			}
		}
	}
}
