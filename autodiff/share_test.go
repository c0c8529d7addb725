package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
)

// shareModels are models whose means run over subsets of one data set's
// rows of the same product dot(s.X[i], x), with a mean over all rows the
// subsets share it from: subsets that overlap, that are disjoint, that
// cover every row and that do not, and sigmoids of ±z and y*z.
var shareModels = map[string]string{
	"overlap": `
minimize mean(i in s) log(1 + exp(-s.y[i] * dot(s.X[i], x)))
subject to
    a: mean(i in s where s.u[i] > 0) sigmoid(dot(s.X[i], x)) <= 0.9
    b: mean(i in s where s.v[i] > 0) sigmoid(-dot(s.X[i], x)) + mean(i in s where s.u[i] > 0) dot(s.X[i], x)^2 <= 3
`,
	"disjoint-cover": `
func sigma(z) = 1 / (1 + exp(-z))
func phi(z)   = 1 / (1 + exp(z))
minimize mean(i in s) phi(s.y[i] * dot(s.X[i], x))
subject to
    p0: mean(i in s where s.g[i] == 0) sigma(dot(s.X[i], x)) + mean(i in s where s.g[i] != 0) sigma(-dot(s.X[i], x)) <= 0.8
    p1: mean(i in s where s.g[i] != 0) sigma(dot(s.X[i], x)) + 2 * mean(i in s where s.g[i] == 0) sigma(-dot(s.X[i], x)) <= 0.8
`,
	"not-covering": `
minimize mean(i in s) dot(s.X[i], x)^2
subject to
    c0: mean(i in s where s.g[i] == 0) sigmoid(dot(s.X[i], x)) <= 0.7
    c2: mean(i in s where s.g[i] == 2) sigmoid(-dot(s.X[i], x)) - mean(i in s where s.g[i] == 2) dot(s.X[i], x) <= 0.7
`,
}

// shareData returns a csv of n rows: 4 features, the columns u, v (signed,
// for overlapping filters), g in {0, 1, 2} and a label y in {-1, 1}.
func shareData(n int, rng *rand.Rand) string {
	csv := "a,b,c,d,u,v,g,y\n"
	for range n {
		row := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), 1, rng.NormFloat64(), rng.NormFloat64(), float64(rng.IntN(3))}
		csv += formatRow(row, float64(2*rng.IntN(2)-1))
	}
	return csv
}

// compileShare compiles a model of shareModels with the options (sharing
// off when they disable the pass "shares").
func compileShare(t *testing.T, body, csv string, o *Options) (*check.Model, *Program) {
	t.Helper()
	src := "data s = csv(\"d.csv\", label = \"y\", drop = [\"u\", \"v\", \"g\"])\nvar x[s.d] in ball(2)\n" + body
	m, p, err := compileSourceWith(t, src, map[string]string{"d.csv": csv}, o)
	require.NoError(t, err)
	return m, p
}

func countShares(p *Program) (dots, exps int) {
	for _, in := range p.insts {
		if p.plan[in.k].share != nil && in.op == opDot {
			dots++
		}
		if p.plan[in.k].share != nil && in.op == opExpAbs {
			exps++
		}
	}
	return dots, exps
}

// jacobianOf runs Eval and Jacobian and returns the values and the rows.
func jacobianOf(t *testing.T, p *Program, x []float64) [][]float64 {
	t.Helper()
	nf := len(p.Functions())
	vals := make([]float64, nf)
	require.NoError(t, p.Eval(x, vals))
	out := [][]float64{vals}
	rows := make([][]float64, nf)
	for f := range rows {
		rows[f] = make([]float64, p.NumVars())
	}
	require.NoError(t, p.Jacobian(rows))
	return append(out, rows...)
}

// TestShareSubsets compares the shared evaluation of shareModels with the
// unshared one (to 1e-12), by Gradient and by Jacobian, checks it against
// finite differences on 1 and 2 cores, bitwise the same on 1, 2 and 4,
// and on samples of the subsets (which are not shared).
func TestShareSubsets(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(21, 22))
	csv := shareData(1500, rng) // several blocks of rows
	// exponentials are shared where the base has one (a sigmoid over all rows)
	wantShares := map[string][2]int{"overlap": {2, 0}, "disjoint-cover": {2, 2}, "not-covering": {2, 0}}
	for name, body := range shareModels {
		t.Run(name, func(t *testing.T) {
			m, p := compileShare(t, body, csv, allParallel(testOptions()))
			_, q := compileShare(t, body, csv, without(allParallel(testOptions()), "shares"))
			d, e := countShares(p)
			require.Equal(t, wantShares[name], [2]int{d, e}, "shared products and exponentials")
			d, e = countShares(q)
			require.Zero(t, d+e)
			for _, procs := range []int{1, 2} {
				runtime.GOMAXPROCS(procs)
				x := randomPoint(m, rng)
				want, got, jac := evalAll(t, q, x), evalAll(t, p, x), jacobianOf(t, p, x)
				for i := range want {
					require.InDeltaSlice(t, want[i], got[i], 1e-12, "result %d", i)
					require.InDeltaSlice(t, got[i], jac[i], 1e-12, "Jacobian, result %d", i)
				}
				require.Less(t, fdCheck(t, p, x), 1e-6, "GOMAXPROCS=%d", procs)
			}
			x := randomPoint(m, rng)
			var first [][]float64
			for _, procs := range []int{1, 2, 4} {
				runtime.GOMAXPROCS(procs)
				for _, got := range [][][]float64{evalAll(t, p, x), jacobianOf(t, p, x)} {
					if first == nil {
						first = got
					}
					for i := range first {
						for j := range first[i] {
							require.Equal(t, math.Float64bits(first[i][j]), math.Float64bits(got[i][j]), "GOMAXPROCS=%d, result %d, element %d", procs, i, j)
						}
					}
				}
			}
			// a sample of one row set at a time: the others still share
			// where neither they nor their base are sampled
			for s, smp := range p.Samples() {
				pos := make([]int, 50)
				for i := range pos {
					pos[i] = rng.IntN(smp.Rows)
				}
				require.NoError(t, p.SetSample(s, pos))
				require.NoError(t, q.SetSample(s, pos))
				want, got, jac := evalAll(t, q, x), evalAll(t, p, x), jacobianOf(t, p, x)
				for i := range want {
					require.InDeltaSlice(t, want[i], got[i], 1e-12, "set %d sampled, result %d", s, i)
					require.InDeltaSlice(t, got[i], jac[i], 1e-12, "set %d sampled, Jacobian, result %d", s, i)
				}
				p.ResetSamples()
				q.ResetSamples()
			}
			// samples of every row set: the sharers compute their own
			// products, as the unshared program does, bit for bit
			for s, smp := range p.Samples() {
				pos := make([]int, 1+s%3*40)
				for i := range pos {
					pos[i] = rng.IntN(smp.Rows)
				}
				require.NoError(t, p.SetSample(s, pos))
				require.NoError(t, q.SetSample(s, pos))
			}
			want, got, jac := evalAll(t, q, x), evalAll(t, p, x), jacobianOf(t, p, x)
			for i := range want {
				require.Equal(t, want[i], got[i], "sampled, result %d", i)
				require.InDeltaSlice(t, got[i], jac[i], 1e-12, "sampled, Jacobian, result %d", i)
			}
			require.Less(t, fdCheck(t, p, x), 1e-6, "sampled")
			// back on every row: shared again
			p.ResetSamples()
			q.ResetSamples()
			want, got = evalAll(t, q, x), evalAll(t, p, x)
			for i := range want {
				require.InDeltaSlice(t, want[i], got[i], 1e-12, "reset, result %d", i)
			}
		})
	}
}

// TestShareNeedsBase: subsets without a mean over a superset of their rows
// (nor of other data) share nothing, and products of other data or of
// other variables are not mistaken for the base's.
func TestShareNeedsBase(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(23, 24))
	csv := shareData(300, rng)
	for _, body := range []string{`
minimize mean(i in s where s.g[i] == 0) sigmoid(dot(s.X[i], x)) + mean(i in s where s.g[i] == 1) sigmoid(dot(s.X[i], x))
`, `
var v[s.d] in ball(2)
minimize mean(i in s) sigmoid(dot(s.X[i], v)) + mean(i in s where s.g[i] == 1) sigmoid(dot(s.X[i], x))
`, `
minimize mean(i in s) sigmoid(dot(s.X[i], x)) + mean(i in s where s.g[i] == 1) sigmoid(dot(2 * s.X[i], x))
`} {
		m, p := compileShare(t, body, csv, testOptions())
		d, e := countShares(p)
		require.Zero(t, d+e, body)
		require.Less(t, fdCheck(t, p, randomPoint(m, rng)), 1e-6, body)
	}
}

// TestJacobian compares Jacobian with one Gradient per function on the
// examples (npc.qrc's products are not of a variable, so its Jacobian is
// those Gradient calls), requires no allocations once warm, and refuses
// calls without an Eval or with rows of the wrong length.
func TestJacobian(t *testing.T) {
	for _, name := range []string{"npc", "fairness", "phase"} {
		m, p := load(t, fmt.Sprintf("../examples/%s.qrc", name), check.Options{})
		x := randomPoint(m, rand.New(rand.NewPCG(25, 26)))
		want, got := evalAll(t, p, x), jacobianOf(t, p, x)
		for i := range want {
			require.InDeltaSlice(t, want[i], got[i], 1e-12, "%s, result %d", name, i)
		}
	}
	m, p := load(t, "../examples/fairness.qrc", check.Options{})
	require.NotEmpty(t, p.jac.dots, "the fairness model's products are deferred")
	nf := len(p.Functions())
	rows := make([][]float64, nf)
	for f := range rows {
		rows[f] = make([]float64, p.NumVars())
	}
	require.Error(t, p.Jacobian(rows), "without an Eval")
	x := randomPoint(m, rand.New(rand.NewPCG(27, 28)))
	vals := make([]float64, nf)
	require.NoError(t, p.Eval(x, vals))
	require.Error(t, p.Jacobian(rows[:nf-1]))
	short := append([][]float64{make([]float64, 1)}, rows[1:]...)
	require.Error(t, p.Jacobian(short))
	requireNoAllocations(t, p, func() {
		if err := p.Eval(x, vals); err != nil {
			t.Fatal(err)
		}
		if err := p.Jacobian(rows); err != nil {
			t.Fatal(err)
		}
	})
}

// TestJacobianNotFinite: a subgradient that is not finite is the same
// *EvalError from Jacobian as from Gradient.
func TestJacobianNotFinite(t *testing.T) {
	t.Parallel()
	csv := "a,b,y\n0,0,1\n1,2,-1\n"
	src := "data s = csv(\"d.csv\", label = \"y\")\nvar x[2] in box(-1, 1)\nminimize mean(i in s) sqrt(sigmoid(dot(s.X[i], x)) - 0.5)\n"
	_, p, err := compileSource(t, src, map[string]string{"d.csv": csv})
	require.NoError(t, err)
	x := []float64{0.5, 0.5}
	vals := make([]float64, 1)
	require.NoError(t, p.Eval(x, vals))
	g := make([]float64, 2)
	gerr := p.Gradient([]float64{1}, g)
	require.Error(t, gerr)
	jerr := p.Jacobian([][]float64{make([]float64, 2)})
	require.Error(t, jerr)
	require.Equal(t, gerr.Error(), jerr.Error())
}

// TestExpSharing counts exponentials: in the disjoint-cover model phi(y z)
// over all rows and sigma(z), sigma(-z) over each group take one
// exponential register over all rows, gathered for the groups, and the
// product y z is not formed; npc.qrc's
// phi(z), the only sigmoid of its margins, keeps the plain fused sigmoid
// (no register of exponentials).
func TestExpSharing(t *testing.T) {
	t.Parallel()
	count := func(p *Program) (exps, fromExp, plain int) {
		for _, in := range p.insts {
			switch {
			case in.op == opExpAbs:
				exps++
			case in.op == opSigmoidE:
				fromExp++
			case in.op == opUnary && in.fn.Name == "sigmoid":
				plain++
			}
		}
		return exps, fromExp, plain
	}
	rng := rand.New(rand.NewPCG(29, 30))
	_, p := compileShare(t, shareModels["disjoint-cover"], shareData(300, rng), testOptions())
	e, f, u := count(p)
	require.Equal(t, [3]int{3, 5, 0}, [3]int{e, f, u})
	for _, in := range p.insts {
		require.False(t, in.op == opMul && rowAxis(in.out) != nil, "y*z is not formed: phi takes y's signs (and is checked against finite differences in TestShareSubsets)")
	}
	_, p = load(t, "../examples/npc.qrc", check.Options{})
	e, f, u = count(p)
	require.Equal(t, [3]int{0, 0, 10}, [3]int{e, f, u})
}

// TestJacobianApart: npc.qrc's functions are apart in their first reverse
// phase (each class's rows serve one function), so Jacobian runs it once
// for all of them; its rows are bit for bit those of one Gradient per
// function, on all rows and on a sample, on 1, 2 and 4 cores, whether
// each function's tail runs as soon as its blocks are done (tails.go) or
// after all of them. The fairness model's functions share their rows and
// do not take that path.
func TestJacobianApart(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	m, early := loadWith(t, "../examples/npc.qrc", check.Options{}, allParallel(testOptions()))
	early.linkApart()
	require.True(t, early.jac.tails.ok, "npc's tails can run early")
	_, afterAll := loadWith(t, "../examples/npc.qrc", check.Options{}, without(allParallel(testOptions()), "tails"))
	afterAll.linkApart()
	require.False(t, afterAll.jac.tails.ok, "without the pass the tails run after every block")
	x := randomPoint(m, rand.New(rand.NewPCG(31, 32)))
	for _, sampled := range []bool{false, true} {
		if sampled {
			for _, p := range []*Program{early, afterAll} {
				require.NoError(t, p.SetSample(0, []int{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4}))
			}
		}
		for _, procs := range []int{1, 2, 4} {
			for _, p := range []*Program{early, afterAll} {
				late := p == afterAll
				runtime.GOMAXPROCS(procs)
				want := evalAll(t, p, x)
				before := p.jac.apartRuns
				got := jacobianOf(t, p, x)
				require.Equal(t, before+1, p.jac.apartRuns, "npc's Jacobian runs its first phase once")
				for i := range want {
					for j := range want[i] {
						require.Equal(t, math.Float64bits(want[i][j]), math.Float64bits(got[i][j]), "sampled %v, GOMAXPROCS %d, late tails %v, row %d, element %d", sampled, procs, late, i, j)
					}
				}
			}
		}
	}
	early.ResetSamples()
	afterAll.ResetSamples()
	_, q := load(t, "../examples/fairness.qrc", check.Options{})
	q.linkApart()
	require.Equal(t, int8(-1), q.jac.apart, "the fairness model's functions share x's product")
}
