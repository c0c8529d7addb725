package qrc_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/solve"
)

// Nil contexts, options and recorders are errors or defaults, never panics.
func TestNilArguments(t *testing.T) {
	_, err := qrc.Parse("fit.qrc", fitModel, nil)
	assert.ErrorContains(t, err, "option 1 of 1 is nil")
	_, err = qrc.Parse("fit.qrc", fitModel, qrc.WithData("d", lineData()), nil)
	assert.ErrorContains(t, err, "option 2 of 2 is nil")

	m, err := qrc.Parse("fit.qrc", fitModel, qrc.WithData("d", lineData()))
	require.NoError(t, err)
	//lint:ignore SA1012 a nil context is what this test checks
	rep, err := m.Solve(nil) //nolint:staticcheck
	require.NoError(t, err, "a nil context is context.Background()")
	assert.True(t, rep.Success)
	_, err = m.Solve(context.Background(), nil)
	assert.ErrorContains(t, err, "option 1 of 1 is nil")
	_, err = m.Solve(context.Background(), qrc.WithRecorder(nil))
	assert.ErrorContains(t, err, "WithRecorder: nil Recorder")
	_, err = m.Solve(context.Background(), qrc.WithMethod(nil))
	assert.ErrorContains(t, err, "WithMethod: nil method")
}

// A context cancelled before Solve: interrupted, not infeasible, with the
// start's violated constraint listed and no success.
func TestSolveCancelledBefore(t *testing.T) {
	m, err := qrc.Parse("c.qrc", "var x[3] in box(-2, 2) = 0\nminimize sum(j in 1..3) x[j]\nsubject to\n    c: x[1] >= 1\n")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, method := range []qrc.Method{qrc.IQRC, qrc.Penalty} {
		rep, err := m.Solve(ctx, qrc.WithMethod(method))
		require.NoError(t, err)
		assert.Equal(t, "interrupted", rep.Status, method.Name())
		assert.False(t, rep.Success, "an infeasible point is no success")
		assert.Equal(t, []string{"c"}, rep.Violated, method.Name())
		assert.InDelta(t, 1, rep.Infeasibility, 1e-12)
	}
}

// badMethod returns what its function makes of the start.
type badMethod struct {
	status solve.Status
	point  func(x0 []float64) []float64
}

func (b badMethod) Name() string { return "bad" }

func (b badMethod) Minimize(_ context.Context, p *solve.Problem, x0 []float64, s solve.Settings) (*solve.Result, error) {
	return &solve.Result{Status: b.status, Point: solve.Point{X: b.point(x0), Objective: 42}}, nil
}

// A caller's Method's result is checked before it becomes a report.
func TestCustomMethodResultChecked(t *testing.T) {
	m, err := qrc.Parse("fit.qrc", fitModel, qrc.WithData("d", lineData()))
	require.NoError(t, err)
	_, err = m.Solve(context.Background(), qrc.WithMethod(badMethod{solve.Converged, func(x []float64) []float64 { return append(x, 1) }}))
	assert.ErrorContains(t, err, "method bad returned a point of 2 values; the model has 1 variables")
	_, err = m.Solve(context.Background(), qrc.WithMethod(badMethod{solve.Converged, func([]float64) []float64 { return nil }}))
	assert.ErrorContains(t, err, "a point of 0 values")
	_, err = m.Solve(context.Background(), qrc.WithMethod(badMethod{solve.Status(99), func(x []float64) []float64 { return x }}))
	assert.ErrorContains(t, err, "unknown status 99")

	rep, err := m.Solve(context.Background(), qrc.WithMethod(badMethod{solve.Converged, func([]float64) []float64 { return []float64{math.NaN()} }}))
	require.NoError(t, err)
	assert.Equal(t, "numerical_error", rep.Status)
	assert.False(t, rep.Success)

	// the values are computed, not trusted: w = 1 gives (1-2)^2.. mean 7.5
	rep, err = m.Solve(context.Background(), qrc.WithMethod(badMethod{solve.Converged, func([]float64) []float64 { return []float64{1} }}))
	require.NoError(t, err)
	assert.InDelta(t, (1+4+9+16)/4.0, rep.Objective, 1e-12)
	// an infeasible point called converged is infeasible (cap: w <= 5)
	rep, err = m.Solve(context.Background(), qrc.WithMethod(badMethod{solve.Converged, func([]float64) []float64 { return []float64{7} }}))
	require.NoError(t, err)
	assert.Equal(t, "infeasible", rep.Status)
	assert.InDelta(t, 2, rep.Infeasibility, 1e-12)
}

// WithData sets are validated as loaded ones are.
func TestWithDataValidated(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{1, 2, 3, 4})
	for _, c := range []struct {
		set  *data.Set
		want string
	}{
		{nil, "the set is nil"},
		{&data.Set{}, "the set has no feature matrix"},
		{&data.Set{X: x, Y: []float64{1, 2, 3}}, "Y has 3 labels for the 4 rows of X"},
		{&data.Set{X: x, Y: []float64{1, 2, math.NaN(), 4}}, "Y[3] is NaN"},
		{&data.Set{X: mat.NewDense(2, 1, []float64{1, math.Inf(1)}), Y: []float64{1, 2}}, "X[2, 1] is +Inf"},
		{&data.Set{X: x, Y: []float64{1, 2, 3, 4}, Features: []string{"a", "b"}}, "Features has 2 names for the 1 columns"},
		{&data.Set{X: x, Y: []float64{1, 2, 3, 4}, Columns: map[string][]float64{"age": {1, 2}}}, `column "age" has 2 values for the 4 rows`},
		{&data.Set{Sparse: &data.CSR{Rows: 2, Cols: 2, RowPtr: []int{0, 1}, ColIdx: []int32{0}, Val: []float64{1}}}, "the sparse matrix is malformed"},
		{&data.Set{Sparse: &data.CSR{Rows: 1, Cols: 2, RowPtr: []int{0, 1}, ColIdx: []int32{5}, Val: []float64{1}}}, "the sparse matrix's column index 5"},
	} {
		_, err := qrc.Parse("fit.qrc", fitModel, qrc.WithData("d", c.set))
		require.Error(t, err, c.want)
		assert.Contains(t, err.Error(), `WithData("d"): `+c.want)
	}
}
