package check_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/lang"
	"github.com/qrc-lang/qrc/modelfile"
)

// load parses and checks a model file.
func load(t *testing.T, path string, opts check.Options) (*check.Model, error) {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	f, errs := lang.Parse(path, src)
	if errs != nil {
		return nil, errs
	}
	if opts.Loader == nil {
		opts.Loader = modelfile.Data{}
	}
	m, diags := check.Check(f, opts)
	return m, diags.Err()
}

func TestExamplesCheck(t *testing.T) {
	m, err := load(t, filepath.Join("..", "examples", "npc.qrc"), check.Options{})
	require.NoError(t, err)
	require.Len(t, m.Vars, 1)
	assert.Equal(t, check.Shape{10, 16}, m.Vars[0].Shape)
	assert.Equal(t, 160, m.NumScalars)
	require.Len(t, m.Constraints, 9)
	assert.Equal(t, "cap[2]", m.Constraints[0].Name)
	assert.Equal(t, "cap[10]", m.Constraints[8].Name)
	means := check.Means(m.Objective.Expr)
	require.Len(t, means, 1)
	assert.Equal(t, "train", means[0].Data.Name)
	assert.Len(t, means[0].Rows, 300)
	for _, d := range m.Diagnostics {
		t.Log(d)
	}
}

// src checks a model given as text, with data paths relative to examples/.
func src(t *testing.T, text string, opts check.Options) (*check.Model, error) {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = filepath.Join("..", "examples")
	}
	m, _, diags := modelfile.LoadSource("m.qrc", []byte(text), opts)
	return m, diags.Err()
}

func TestFairnessMeans(t *testing.T) {
	m, err := load(t, filepath.Join("..", "examples", "fairness.qrc"), check.Options{})
	require.NoError(t, err)
	require.Len(t, m.Constraints, 2)
	means := check.Means(m.Constraints[0].F)
	require.Len(t, means, 2)
	g := m.Data[0].Set.Columns["group"]
	for k, want := range []float64{0, 1} {
		for _, r := range means[k].Rows {
			assert.Equal(t, want, g[r-1])
		}
		count := 0
		for _, v := range g {
			if v == want {
				count++
			}
		}
		assert.Len(t, means[k].Rows, count)
	}
	assert.Nil(t, check.Means(m.Objective.Expr)[0].Rows, "an unfiltered mean keeps Rows nil: all rows")
}

func TestParamsAndOverrides(t *testing.T) {
	m, err := src(t, `
param b = a * 2        # order does not matter
param a = 3
param v = [1, 2, 3] + a
param M = [[1, 2], [3, 4]]
param s = sum(j in 1..3 where j != 2) v[j]
param d = train.d
data train = libsvm("data/digits.svm")
var x[d] in box(-1, 1)
minimize norm2(x)
`, check.Options{Set: []check.Assign{{Name: "a", Value: "5"}}})
	require.NoError(t, err)
	vals := map[string]check.Tensor{}
	for _, p := range m.Params {
		vals[p.Name] = p.Value
	}
	assert.Equal(t, []float64{10}, vals["b"].Data)
	assert.Equal(t, []float64{6, 7, 8}, vals["v"].Data)
	assert.Equal(t, check.Shape{2, 2}, vals["M"].Shape)
	assert.Equal(t, []float64{14}, vals["s"].Data)
	assert.Equal(t, []float64{16}, vals["d"].Data)
	assert.Equal(t, 16, m.NumScalars)
}

func TestConstraintExpansion(t *testing.T) {
	m, err := src(t, `
var x[4] in ball(1)
minimize sum(j in 1..4) x[j]
subject to
    pair[j in 1..3, k in j+1..4]: x[j] - x[k] <= 1
    lo: x[1] >= -0.5
`, check.Options{})
	require.NoError(t, err)
	var names []string
	for _, c := range m.Constraints {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"pair[1,2]", "pair[1,3]", "pair[1,4]", "pair[2,3]", "pair[2,4]", "pair[3,4]", "lo"}, names)
	assert.Equal(t, []int{2, 4}, m.Constraints[4].Index)
	assert.Equal(t, ">=", m.Constraints[6].Op)
}

func TestIndexBoundsUseFilters(t *testing.T) {
	// l + 1 exceeds 1..4 only when l = 4, which the filter excludes.
	_, err := src(t, `
var x[4] in box(0, 1)
minimize sum(l in 1..4 where l < 4) x[l + 1]
`, check.Options{})
	require.NoError(t, err)
	_, err = src(t, `
var x[4] in box(0, 1)
minimize sum(l in 1..4) x[l + 1]
`, check.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "index l + 1 = 5 is out of range when l = 4: x has length 4")
}

func TestFunctionsInlineAtAnyShape(t *testing.T) {
	m, err := src(t, `
func sq(z) = z * z
var x[3] in ball(1)
minimize sum(sq(x)) + sq(x[1])
`, check.Options{})
	require.NoError(t, err)
	assert.True(t, m.Objective.Expr.Shape().IsScalar())
	v, err := check.Eval(m.Objective.Expr, nil)
	assert.Error(t, err, "the objective depends on x and cannot be evaluated statically")
	assert.Nil(t, v.Data)
}

func TestWarnings(t *testing.T) {
	m, _, diags := modelfile.LoadSource("m.qrc", []byte(`
var x[2]
var y[2] in box(0, 1) = 3
minimize norm1(x) + sum(y)
subject to
    c: 1 <= 2
`), check.Options{})
	require.NotNil(t, m)
	msgs := diags.Warnings().Error()
	assert.Contains(t, msgs, `variable "x" has no domain`)
	assert.Contains(t, msgs, `the starting point of "y" is outside its domain box(0, 1)`)
	assert.Contains(t, msgs, "constraint c does not depend on any variable; it always holds")
	assert.Equal(t, []float64{1, 1}, m.Vars[1].Start)
}

func TestConstantIndexFolds(t *testing.T) {
	m, err := src(t, `
param p = [1, 3]
var x[2] in box(0, 1)
minimize sum(x^p[2])
`, check.Options{})
	require.NoError(t, err, "p[2] is a constant, so it is a valid exponent")
	assert.True(t, m.Objective.Expr.Shape().IsScalar())
}

// A name after a comprehension's body that the comprehension binds: a
// warning when it resolves to a global of the same name; nothing when the
// right operand does not use the binder, or parenthesises the body.
func TestSumBodyEndsWarning(t *testing.T) {
	_, _, diags := modelfile.LoadSource("m.qrc", []byte(`param j = 2
param c = [1, 2, 3]
var x[3] in box(-1, 1)
minimize sum(j in 1..3) x[j]^2 + x[j]
`), check.Options{})
	require.False(t, diags.HasErrors(), diags.Error())
	msgs := diags.Warnings().Error()
	assert.Contains(t, msgs, `m.qrc:4:36: warning: "j" here is the parameter "j", not the binder of the sum before it: the body of sum(j ...) ends before the "+" at 4:32`)

	for _, ok := range []string{
		"minimize sum(j in 1..3) x[j]^2 + 1",                   // a constant after the sum: meant
		"minimize sum(j in 1..3) (x[j]^2 - c[j] * x[j])",       // parenthesised
		"minimize sum(j in 1..3) x[j]^2 + sum(j in 1..3) x[j]", // rebinds j
		"minimize mean(j in 1..3) x[j]^2 + norm1(x)",
	} {
		_, _, diags := modelfile.LoadSource("m.qrc", []byte("param c = [1, 2, 3]\nvar x[3] in box(-1, 1)\n"+ok+"\n"), check.Options{})
		require.False(t, diags.HasErrors(), "%s: %s", ok, diags.Error())
		assert.NotContains(t, diags.Warnings().Error(), "ends before", ok)
	}
}

// Options.Sets gives a data set in memory: its file is never read, its
// sizes and columns come from the set, and a name the model does not
// declare is an error.
func TestInMemorySets(t *testing.T) {
	set := &data.Set{X: mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6}), Y: []float64{1, -1, 1},
		Columns: map[string][]float64{"g": {0, 1, 1}}}
	src := "data d = csv(\"does-not-exist.csv\", label = \"y\")\nparam n = d.n\nvar w[d.d]\nminimize mean(i in d where d.g[i] == 1) dot(d.X[i], w)\n"
	m, _, diags := modelfile.LoadSource("m.qrc", []byte(src), check.Options{Sets: map[string]*data.Set{"d": set}})
	require.NoError(t, diags.Err())
	require.Len(t, m.Data, 1)
	assert.Same(t, set, m.Data[0].Set)
	assert.True(t, m.Data[0].Override)
	assert.Equal(t, 2, m.NumScalars)

	_, _, diags = modelfile.LoadSource("m.qrc", []byte(src), check.Options{Sets: map[string]*data.Set{"d": set, "e": set}})
	require.Error(t, diags.Err())
	assert.Contains(t, diags.Error(), `no data set "e"`)

	_, _, diags = modelfile.LoadSource("m.qrc", []byte(src), check.Options{})
	require.Error(t, diags.Err(), "without the set the file is read, and it does not exist")
}
