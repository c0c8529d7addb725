package smoothing

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
)

// five rows: x = 1..5, y = +1, -1, +1, -1, +1
const fiveRows = "x,y\n1,1\n2,-1\n3,1\n4,-1\n5,1\n"

func loadFive(t *testing.T, src string) *check.Model {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "five.csv"), []byte(fiveRows), 0o644))
	m, _, d := modelfile.LoadSource("t.qrc", []byte(src), check.Options{Dir: dir})
	require.NoError(t, d.Err())
	return m
}

// means finds the data means of m, in source order.
func means(m *check.Model) []*check.Compr {
	var out []*check.Compr
	visit := func(e check.Expr) {
		check.Walk(e, func(e check.Expr) bool {
			if c, ok := e.(*check.Compr); ok && c.IsExpectation() {
				out = append(out, c)
			}
			return true
		})
	}
	visit(m.Objective.Expr)
	for _, c := range m.Constraints {
		visit(c.F)
	}
	return out
}

const fiveModel = `
data d = csv("five.csv", label = "y")
var w[1]
var b
minimize mean(i in d) hinge(d.y[i] * (dot(d.X[i], w) + b)) + 0.5 * b
subject to
    c: mean(i in d where d.y[i] > 0) pos(1 - dot(d.X[i], w) - b) <= 0.3
`

// The pieces of a selection are those of its rows only, each mean's
// coefficient divided by the rows it selects: by hand, with rows 2 and 4
// of the objective's mean and the first and third of the constraint's
// filtered rows (1, 3, 5: rows 1 and 5),
//
//	f0 = 1/2 [pos(1 + 2w + b) + pos(1 + 4w + b)] + 0.5 b
//	f1 = 1/2 [pos(1 - w - b) + pos(1 - 5w - b)] - 0.3
//
// and the compiled program sampled on the same positions agrees.
func TestPiecesOfSelection(t *testing.T) {
	m := loadFive(t, fiveModel)
	ms := means(m)
	require.Len(t, ms, 2)
	sel := Selection{ms[0].Src().Pos(): {1, 3}, ms[1].Src().Pos(): {0, 2}}
	pm, why, err := PiecesOf(m, sel)
	require.NoError(t, err)
	require.NotNil(t, pm, why)
	require.Equal(t, 4, pm.Rows())
	// the objective's rows: A = 1/2 (x, 1), B = 1/2
	assert.Equal(t, []int32{0, 0, 1, 1}, pm.Fn)
	assert.InDeltaSlice(t, []float64{1, 0.5, 2, 0.5, -0.5, -0.5, -2.5, -0.5}, pm.Val, 1e-15)
	assert.InDeltaSlice(t, []float64{0.5, 0.5, 0.5, 0.5}, pm.B, 1e-15)
	hand := func(x []float64) []float64 {
		w, b := x[0], x[1]
		pos := func(z float64) float64 { return math.Max(0, z) }
		return []float64{
			(pos(1+2*w+b)+pos(1+4*w+b))/2 + 0.5*b,
			(pos(1-w-b)+pos(1-5*w-b))/2 - 0.3,
		}
	}
	prog, err := autodiff.Compile(m)
	require.NoError(t, err)
	sets := prog.Samples()
	require.Len(t, sets, 2)
	for i, set := range sets {
		require.Len(t, set.Means, 1)
		require.NoError(t, prog.SetSample(i, sel[set.Means[0]]))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x, got, comp := make([]float64, 2), make([]float64, 2), make([]float64, 2)
	for k := 0; k < 20; k++ {
		x[0], x[1] = 2*rng.Float64()-1, 2*rng.Float64()-1
		pm.Values(x, got)
		require.NoError(t, prog.Eval(x, comp))
		want := hand(x)
		for i := range want {
			assert.InDelta(t, want[i], got[i], 1e-14, "pieces, function %d at %v", i, x)
			assert.InDelta(t, want[i], comp[i], 1e-14, "the sampled program, function %d at %v", i, x)
		}
	}
	// no selection: every row, as Pieces
	all, _, err := PiecesOf(m, nil)
	require.NoError(t, err)
	assert.Equal(t, 5+3, all.Rows(), "five rows of the objective's mean, three of the constraint's")
}

// A selected comprehension PiecesOf cannot take is refused with its
// position: a mean nested in a sum, a mean over two indices, a sum, and a
// position out of range.
func TestPiecesOfRefuses(t *testing.T) {
	cases := []struct {
		src, why string
		pos      []int
	}{
		{`data d = csv("five.csv", label = "y")
var w[1]
minimize sum(k in 1..2) mean(i in d) pos(k - dot(d.X[i], w))`, "inside another comprehension", []int{0}},
		{`data d = csv("five.csv", label = "y")
var w[1]
minimize mean(i in d, k in 1..2) pos(k - dot(d.X[i], w))`, "other than a mean over the rows of one data set", []int{0}},
		{`data d = csv("five.csv", label = "y")
var w[1]
minimize mean(i in d) pos(1 - dot(d.X[i], w))`, "out of the range", []int{5}},
	}
	for _, c := range cases {
		m := loadFive(t, c.src)
		ms := means(m)
		require.NotEmpty(t, ms)
		pm, why, err := PiecesOf(m, Selection{ms[len(ms)-1].Src().Pos(): c.pos})
		require.NoError(t, err)
		assert.Nil(t, pm)
		assert.Contains(t, why, c.why)
		assert.Contains(t, why, ms[len(ms)-1].Src().Pos().String())
	}
	// a sum over the rows is never sampled: a selection naming one is refused
	m := loadFive(t, `data d = csv("five.csv", label = "y")
var w[1]
minimize sum(i in d) pos(1 - dot(d.X[i], w))`)
	var sum ast.Pos
	check.Walk(m.Objective.Expr, func(e check.Expr) bool {
		if c, ok := e.(*check.Compr); ok {
			sum = c.Src().Pos()
		}
		return true
	})
	pm, why, err := PiecesOf(m, Selection{sum: {0}})
	require.NoError(t, err)
	assert.Nil(t, pm)
	assert.Contains(t, why, "other than a mean")
}
