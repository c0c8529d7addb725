package plan

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
)

// samplePieces gives the pieces of the rows the Sampler selects: on a
// tenth of np_hinge_gen.qrc's 2000 rows, a tenth of each mean's rows, with
// the Problem's values on that sample at random points of X; after Full,
// every row's.
func TestSamplePieces(t *testing.T) {
	m, prog := compiledFile(t, "../docs/experiments/np_hinge_gen.qrc")
	prob := problem.New(m, prog, problem.Options{Seed: 4})
	smp := prob.Sampler.(*problem.Sampler)
	var notes []string
	piecesOf := samplePieces(m, prob, smp, prog.Samples(), func(s string) { notes = append(notes, s) })

	_, err := smp.Subsample(0.1)
	require.NoError(t, err)
	pm, err := piecesOf()
	require.NoError(t, err)
	require.NotNil(t, pm, notes)
	selected := 0
	for _, pos := range smp.Selected() {
		require.NotNil(t, pos)
		selected += len(pos)
	}
	assert.Equal(t, selected, pm.Rows(), "one piece per selected row")
	assert.Less(t, selected, 2000/5)
	rng := rand.New(rand.NewPCG(9, 9))
	x := make([]float64, prob.N)
	want, got := make([]float64, prob.M+1), make([]float64, prob.M+1)
	for k := 0; k < 10; k++ {
		for j := range x {
			x[j] = 3 * rng.NormFloat64()
		}
		prob.Project(x)
		require.NoError(t, prob.Eval(x, want))
		pm.Values(x, got)
		for i := range want {
			assert.InDelta(t, want[i], got[i], 1e-12*(1+math.Abs(want[i])), "function %d at point %d", i, k)
		}
	}
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "solved by the dual oracle")

	smp.Full()
	all, err := piecesOf()
	require.NoError(t, err)
	require.NotNil(t, all)
	assert.Equal(t, 2000, all.Rows(), "every row of the file in one of the two means")
	assert.Len(t, notes, 1, "told once")
}

// A model the dual oracle cannot take (an mcp term) gets no pieces, with
// a note that says why, once; the later calls return nil at once.
func TestSamplePiecesRefuses(t *testing.T) {
	src := `
data d = csv("data/german.csv", label = "good")
var w[d.d] in box(-1, 1)
var b in box(-1, 1)
func score(i) = dot(d.X[i], w) + b
minimize mean(i in d where d.y[i] == -1) hinge(-score(i)) + 0.1 * sum(j in 1..d.d) mcp(w[j], 0.05, 3)
subject to
    c: mean(i in d where d.y[i] == 1) pos(1 - score(i)) <= 0.3
`
	m, _, diags := modelfile.LoadSource("t.qrc", []byte(src), check.Options{Dir: filepath.Join("..", "examples")})
	require.NoError(t, diags.Err())
	prog, err := autodiff.Compile(m)
	require.NoError(t, err)
	prob := problem.New(m, prog, problem.Options{})
	smp := prob.Sampler.(*problem.Sampler)
	require.NotEmpty(t, prog.Samples())
	var notes []string
	piecesOf := samplePieces(m, prob, smp, prog.Samples(), func(s string) { notes = append(notes, s) })
	_, err = smp.Subsample(0.2)
	require.NoError(t, err)
	for range 2 {
		pm, err := piecesOf()
		require.NoError(t, err)
		assert.Nil(t, pm)
	}
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "solved by the bundle oracle")
	assert.Contains(t, notes[0], "mcp is not piecewise linear")
}

// compiledFile loads and compiles the model file at path.
func compiledFile(t *testing.T, path string) (*check.Model, *autodiff.Program) {
	t.Helper()
	m, _, diags := modelfile.Load(path, check.Options{})
	require.NoError(t, diags.Err())
	prog, err := autodiff.Compile(m)
	require.NoError(t, err)
	return m, prog
}
