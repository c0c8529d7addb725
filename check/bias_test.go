package check_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
)

func TestBiasedMeans(t *testing.T) {
	head := `data D = csv("small.csv", label = "y")
param c = 2
var x[D.d] in ball(1)
func m(i) = mean(j in D) dot(D.X[j], x) * i
`
	cases := []struct {
		obj  string
		want []string // "line:col why" of each biased mean, in order
	}{
		// linear: unbiased
		{"mean(i in D) log(1 + exp(dot(D.X[i], x)))", nil},
		{"2 * m(1) - m(2) / c + sum(k in 1..3) m(k)", nil},
		{"mean(i in D) dot(D.X[i], x) * norm2(x)", nil},
		{"sum(mean(i in D) D.X[i]) + dot(x, mean(i in D) D.X[i])", nil},
		{"m(1) ^ 1", nil},
		// nonlinear: biased
		{"log(1 + exp(m(1)))", []string{"4:13 inside log(...)"}},
		{"max(m(1), 0.5)", []string{"4:13 inside max(...)"}},
		{"m(1) * m(2)", []string{"4:13 in a product with another mean", "4:13 in a product with another mean"}},
		{"x[1] / m(1)", []string{"4:13 in a denominator"}},
		{"m(1) ^ 2", []string{"4:13 raised to a power"}},
		{"max(k in 1..2) m(k)", []string{"4:13 inside a max comprehension"}},
		{"dot(mean(i in D) D.X[i], mean(i in D) D.X[i])", []string{"6:9 in a dot product with another mean", "6:30 in a dot product with another mean"}},
		// the outermost reason, one report for nested means
		{"exp(mean(i in D) mean(j in D) dot(D.X[i], x))", []string{"6:9 inside exp(...)"}},
		// a nonlinearity inside a mean's body
		{"mean(i in D) abs(m(1) - dot(D.X[i], x))", []string{"4:13 inside abs(...)"}},
	}
	for _, tc := range cases {
		t.Run(tc.obj, func(t *testing.T) {
			src := head + "minimize\n    " + tc.obj + "\n"
			m, _, diags := modelfile.LoadSource("m.qrc", []byte(src), check.Options{Dir: filepath.Join("testdata", "data")})
			require.NoError(t, diags.Err())
			var got []string
			for _, b := range check.BiasedMeans(m.Objective.Expr) {
				p := b.Mean.Src().Pos()
				got = append(got, fmt.Sprintf("%d:%d %s", p.Line, p.Column, b.Why))
				require.NotNil(t, b.Context)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestBiasedMeansExamples(t *testing.T) {
	for _, name := range []string{"npc.qrc", "fairness.qrc", "phase.qrc"} {
		m, _, diags := modelfile.Load(filepath.Join("..", "examples", name), check.Options{})
		require.NoError(t, diags.Err(), name)
		if m.Objective != nil {
			assert.Empty(t, check.BiasedMeans(m.Objective.Expr), name)
		}
		for _, c := range m.Constraints {
			assert.Empty(t, check.BiasedMeans(c.F), "%s %s", name, c.Name)
		}
	}
}

// An unused function may use a data set's fields: X in D.X is a field, not
// a name in scope (regression: it was reported as an unknown name when the
// member access was an argument of a call).
func TestUnusedFuncWithDataField(t *testing.T) {
	src := `data D = csv("small.csv", label = "y")
var x[D.d] in ball(1)
func m(i) = mean(j in D) dot(D.X[j], x) * i
func bad() = dot(D.X[1], zz)
minimize norm2(x)
`
	_, _, diags := modelfile.LoadSource("m.qrc", []byte(src), check.Options{Dir: filepath.Join("testdata", "data")})
	errs := diags.Errors()
	require.Len(t, errs, 1, "%v", diags)
	assert.Equal(t, `m.qrc:4:26: unknown name "zz"`, errs[0].Error())
}
