package check_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/modelfile"
)

// The rows a where filter selects, evaluated column-wise for the simple
// forms (a column of the row against a value, and, or, not) and row by row
// for the others, are those a direct loop over the columns selects; NaN
// compares false, as in the interpreter.
func TestWhereRows(t *testing.T) {
	const n = 500
	rng := rand.New(rand.NewPCG(3, 4))
	y, g := make([]float64, n), make([]float64, n)
	for i := range n {
		y[i] = float64(rng.IntN(5) - 2)
		g[i] = float64(rng.IntN(3))
	}
	y[7], g[11] = math.NaN(), math.NaN()
	set := &data.Set{X: mat.NewDense(n, 1, make([]float64, n)), Y: y, Columns: map[string][]float64{"g": g}}
	for _, tc := range []struct {
		where string
		keep  func(y, g float64) bool
	}{
		{"d.g[i] == 1", func(y, g float64) bool { return g == 1 }},
		{"1 == d.g[i]", func(y, g float64) bool { return g == 1 }},
		{"d.g[i] == k - 1", func(y, g float64) bool { return g == 2 }},
		{"d.y[i] > 0 and d.g[i] != 0", func(y, g float64) bool { return y > 0 && g != 0 }},
		{"not (d.y[i] < 0) or d.g[i] == 0", func(y, g float64) bool { return !(y < 0) || g == 0 }},
		{"d.y[i] >= d.g[i]", func(y, g float64) bool { return y >= g }},
		{"d.g[i] + 0 == 1", func(y, g float64) bool { return g+0 == 1 }}, // row by row
	} {
		src := "data d = csv(\"x.csv\", label = \"y\")\nparam k = 3\nvar w\nminimize w + mean(i in d where " + tc.where + ") w\n"
		m, _, diags := modelfile.LoadSource("m.qrc", []byte(src), check.Options{Sets: map[string]*data.Set{"d": set}})
		require.NoError(t, diags.Err(), tc.where)
		var rows []int
		check.Walk(m.Objective.Expr, func(e check.Expr) bool {
			if c, ok := e.(*check.Compr); ok && c.Rows != nil {
				rows = c.Rows
			}
			return true
		})
		want := []int{}
		for i := range n {
			if tc.keep(y[i], g[i]) {
				want = append(want, i+1)
			}
		}
		require.Equal(t, want, rows, tc.where)
	}
}
