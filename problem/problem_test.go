package problem_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/solve"
)

func load(t testing.TB, name string, src string) (*check.Model, *autodiff.Program) {
	t.Helper()
	var m *check.Model
	var diags interface{ Err() error }
	if src == "" {
		mm, _, d := modelfile.Load(filepath.Join("..", "examples", name), check.Options{})
		m, diags = mm, d
	} else {
		mm, _, d := modelfile.LoadSource(name, []byte(src), check.Options{Dir: filepath.Join("..", "examples")})
		m, diags = mm, d
	}
	require.NoError(t, diags.Err())
	return compile(t, m)
}

func compile(t testing.TB, m *check.Model) (*check.Model, *autodiff.Program) {
	t.Helper()
	prog, err := autodiff.Compile(m)
	require.NoError(t, err)
	return m, prog
}

// The minibatch estimates of every function and of its subgradient,
// averaged over many draws, equal the full-data values: within 4 standard
// errors of the mean, per function and per gradient component.
func TestDrawsAreUnbiased(t *testing.T) {
	for _, name := range []string{"npc.qrc", "fairness.qrc"} {
		t.Run(name, func(t *testing.T) {
			m, prog := load(t, name, "")
			p := problem.New(m, prog, problem.Options{Batch: 16})
			require.NotNil(t, p.Sampler)
			rng := rand.New(rand.NewPCG(7, 8))
			x := make([]float64, p.N)
			for j := range x {
				x[j] = 0.05 * rng.NormFloat64()
			}
			p.Project(x)
			nf := p.M + 1
			full := make([]float64, nf)
			fullG := make([][]float64, nf)
			p.Sampler.Full()
			require.NoError(t, p.Eval(x, full))
			w := make([]float64, nf)
			for i := range nf {
				fullG[i] = make([]float64, p.N)
				w[i] = 1
				require.NoError(t, p.Grad(w, fullG[i]))
				w[i] = 0
			}
			const draws = 3000
			sum, sum2 := make([]float64, nf), make([]float64, nf)
			gsum, gsum2 := make([][]float64, nf), make([][]float64, nf)
			for i := range nf {
				gsum[i], gsum2[i] = make([]float64, p.N), make([]float64, p.N)
			}
			vals, g := make([]float64, nf), make([]float64, p.N)
			for range draws {
				require.NoError(t, p.Sampler.Draw(rng))
				require.NoError(t, p.Eval(x, vals))
				for i := range nf {
					sum[i] += vals[i]
					sum2[i] += vals[i] * vals[i]
					w[i] = 1
					require.NoError(t, p.Grad(w, g))
					w[i] = 0
					for j, v := range g {
						gsum[i][j] += v
						gsum2[i][j] += v * v
					}
				}
			}
			within := func(s, s2, want float64) bool {
				mean := s / draws
				se := math.Sqrt(math.Max(s2/draws-mean*mean, 0) / draws)
				return math.Abs(mean-want) <= 4*se+1e-12
			}
			bad := 0
			for i := range nf {
				assert.True(t, within(sum[i], sum2[i], full[i]), "function %d: mean of draws %v, full %v", i, sum[i]/draws, full[i])
				for j := range p.N {
					if !within(gsum[i][j], gsum2[i][j], fullG[i][j]) {
						bad++
					}
				}
			}
			// 4 standard errors: a few of thousands of components may
			// fall outside by chance, not more
			assert.LessOrEqual(t, bad, nf*p.N/1000+1)
			// and a draw is not the full value (the test can fail)
			require.NoError(t, p.Sampler.Draw(rng))
			require.NoError(t, p.Eval(x, vals))
			assert.NotEqual(t, full, vals)
			// Full restores the exact values
			p.Sampler.Full()
			require.NoError(t, p.Eval(x, vals))
			assert.Equal(t, full, vals)
		})
	}
}

// A model without data means has no Sampler; a mean inside log is biased
// and reported with its position, a linear use is not.
func TestBiased(t *testing.T) {
	m, prog := load(t, "nodata.qrc", "var x[2] in box(-1, 1)\nminimize norm1(x - 0.5)\n")
	assert.Nil(t, problem.New(m, prog, problem.Options{}).Sampler)
	assert.Empty(t, problem.Biased(m, prog))
	assert.Equal(t, 0, problem.SampledRows(prog))

	src := `data people = csv("data/fairness.csv", label = "y", drop = ["group"])
var x[people.d] in ball(1)
func m() = mean(i in people) dot(people.X[i], x)
minimize log(1 + exp(m())) + mean(i in people) abs(dot(people.X[i], x))
subject to
    c: 2 * m() <= 1
`
	m, prog = load(t, "b.qrc", src)
	b := problem.Biased(m, prog)
	require.Len(t, b, 1)
	assert.Equal(t, "objective", b[0].Function)
	assert.Equal(t, "b.qrc:3:12", b[0].Mean.Src().Pos().String())
	assert.Equal(t, "inside log(...)", b[0].Why)
	assert.Greater(t, problem.SampledRows(prog), 0)
}

// Monitoring samples: a set larger than MonitorRows is monitored on a
// fixed sample of that many rows, the same one every time.
func TestMonitor(t *testing.T) {
	m, prog := load(t, "fairness.qrc", "")
	p := problem.New(m, prog, problem.Options{MonitorRows: 50})
	s := p.Sampler.(*problem.Sampler)
	for _, n := range s.MonitorRows() {
		assert.Equal(t, 50, n)
	}
	x := make([]float64, p.N)
	x[0] = 0.3
	a, b, full := make([]float64, p.M+1), make([]float64, p.M+1), make([]float64, p.M+1)
	assert.False(t, s.Monitor())
	require.NoError(t, p.Eval(x, a))
	s.Full()
	require.NoError(t, p.Eval(x, full))
	assert.False(t, s.Monitor())
	require.NoError(t, p.Eval(x, b))
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, full)

	p = problem.New(m, prog, problem.Options{})
	assert.True(t, p.Sampler.Monitor())
}

// Subsample selects ceil(frac * rows) rows of every row set, the same ones
// for the same seed; all rows give the full values, and Full restores them.
func TestSubsample(t *testing.T) {
	m, prog := load(t, "npc.qrc", "")
	p := problem.New(m, prog, problem.Options{Seed: 3})
	s := p.Sampler.(*problem.Sampler)
	var _ solve.Subsampler = s
	assert.Equal(t, 3000, s.Rows())
	x := make([]float64, p.N)
	for j := range x {
		x[j] = 0.01 * float64(j%7-3)
	}
	p.Project(x)
	full, a, b := make([]float64, p.M+1), make([]float64, p.M+1), make([]float64, p.M+1)
	s.Full()
	require.NoError(t, p.Eval(x, full))

	n, err := s.Subsample(0.1)
	require.NoError(t, err)
	assert.Equal(t, 10*30, n) // 10 classes of 300 rows
	require.NoError(t, p.Eval(x, a))
	assert.NotEqual(t, full, a)
	for i := range a {
		assert.InDelta(t, full[i], a[i], 0.5, "function %d on a tenth of the rows", i)
	}
	q := problem.New(m, prog, problem.Options{Seed: 3}).Sampler.(*problem.Sampler)
	_, err = q.Subsample(0.1)
	require.NoError(t, err)
	require.NoError(t, p.Eval(x, b))
	assert.Equal(t, a, b, "the same seed, the same sample")

	n, err = s.Subsample(1)
	require.NoError(t, err)
	assert.Equal(t, 3000, n)
	require.NoError(t, p.Eval(x, b))
	assert.Equal(t, full, b)

	_, err = s.Subsample(1e-9)
	require.NoError(t, err)
	s.Full()
	require.NoError(t, p.Eval(x, b))
	assert.Equal(t, full, b)

	_, err = s.Subsample(0)
	assert.Error(t, err)
}

// Selected names the positions the program runs each row set over: a
// second program of the model on those positions (SetSample) gives the
// same values; nil after Full, the monitoring samples after Monitor.
func TestSelected(t *testing.T) {
	m, prog := load(t, "npc.qrc", "")
	p := problem.New(m, prog, problem.Options{Seed: 3, MonitorRows: 50})
	s := p.Sampler.(*problem.Sampler)
	sets := prog.Samples()
	for _, sel := range s.Selected() {
		assert.Nil(t, sel, "every row before any sample")
	}
	x := make([]float64, p.N)
	for j := range x {
		x[j] = 0.01 * float64(j%5-2)
	}
	p.Project(x)
	_, other := compile(t, m)
	want, got := make([]float64, p.M+1), make([]float64, p.M+1)
	_, err := s.Subsample(0.1)
	require.NoError(t, err)
	require.NoError(t, p.Eval(x, want))
	sel := s.Selected()
	require.Len(t, sel, len(sets))
	for i, pos := range sel {
		require.Len(t, pos, 30, "set %d: a tenth of its 300 rows", i)
		for k, q := range pos {
			assert.True(t, q >= 0 && q < sets[i].Rows && (k == 0 || q > pos[k-1]), "set %d: position %d is %d", i, k, q)
		}
		require.NoError(t, other.SetSample(i, pos))
	}
	require.NoError(t, other.Eval(x, got))
	assert.Equal(t, want, got)

	s.Full()
	for _, pos := range s.Selected() {
		assert.Nil(t, pos)
	}
	s.Monitor()
	for i, pos := range s.Selected() {
		assert.Len(t, pos, 50, "set %d's monitoring sample", i)
	}
}
