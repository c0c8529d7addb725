package qrc_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/trace"
)

// A model with errors comes back as an *Error whose diagnostics carry the
// position, the message and the severity.
func TestParseErrorDiagnostics(t *testing.T) {
	_, err := qrc.Parse("bad.qrc", "param lambda = 1\nvar x[3] in ball(lamda)\nminimize norm2(x)\n")
	var e *qrc.Error
	require.ErrorAs(t, err, &e)
	require.Len(t, e.Diagnostics, 1)
	d := e.Diagnostics[0]
	assert.Equal(t, diag.Error, d.Severity)
	assert.Equal(t, "bad.qrc", d.Pos.Filename)
	assert.Equal(t, 2, d.Pos.Line)
	assert.Equal(t, 18, d.Pos.Column) // lamda
	assert.Contains(t, d.Msg, "lamda")
	var out strings.Builder
	e.Print(&out)
	assert.Contains(t, out.String(), "var x[3] in ball(lamda)")
}

// WithParam overrides a scalar or a vector parameter; the values show in
// the objective at a point, computed here by hand.
func TestWithParam(t *testing.T) {
	src := "param a = 1\nparam c = [1, 2]\nvar x in box(-10, 10)\nvar y[2]\nminimize (x - a)^2 + norm2(y - c)^2\n"
	m, err := qrc.Parse("p.qrc", src)
	require.NoError(t, err)
	ev, err := m.Eval(make([]float64, 3))
	require.NoError(t, err)
	assert.InDelta(t, 1+1+4, ev.Objective, 1e-12)

	m, err = qrc.Parse("p.qrc", src, qrc.WithParam("a", 3.0), qrc.WithParam("c", []float64{-1, 0.5}))
	require.NoError(t, err)
	ev, err = m.Eval(make([]float64, 3))
	require.NoError(t, err)
	assert.InDelta(t, 9+1+0.25, ev.Objective, 1e-12)

	m, err = qrc.Parse("p.qrc", src, qrc.WithParamExpr("a", "2 * 2"))
	require.NoError(t, err)
	ev, err = m.Eval(make([]float64, 3))
	require.NoError(t, err)
	assert.InDelta(t, 16+1+4, ev.Objective, 1e-12)

	_, err = qrc.Parse("p.qrc", src, qrc.WithParam("a", math.NaN()))
	assert.Error(t, err)
	_, err = qrc.Parse("p.qrc", src, qrc.WithParam("b", 1.0))
	var e *qrc.Error
	require.ErrorAs(t, err, &e)
	assert.Contains(t, e.Error(), `no parameter "b"`)
}

// lineData is y = 2 x on x = 1, 2, 3, 4, built in Go.
func lineData() *data.Set {
	return &data.Set{X: mat.NewDense(4, 1, []float64{1, 2, 3, 4}), Y: []float64{2, 4, 6, 8}}
}

const fitModel = `data d = csv("never-read.csv", label = "y")
var w[d.d] in box(-10, 10)
minimize mean(i in d) (dot(d.X[i], w) - d.y[i])^2
subject to
    cap: w[1] <= cap_value
param cap_value = 5
`

// WithData gives a data set in memory: the model's file is not read, and
// the least-squares fit finds the slope of the data.
func TestWithDataSolve(t *testing.T) {
	m, err := qrc.Parse("fit.qrc", fitModel, qrc.WithData("d", lineData()))
	require.NoError(t, err)
	ev, err := m.Eval([]float64{0})
	require.NoError(t, err)
	assert.InDelta(t, (4+16+36+64)/4.0, ev.Objective, 1e-12)
	require.Len(t, ev.Constraints, 1)
	assert.InDelta(t, -5, ev.Constraints[0].Value, 1e-12)

	rep, err := m.Solve(context.Background())
	require.NoError(t, err)
	assert.True(t, rep.Success, rep.Status)
	w, ok := m.Var(rep.X(), "w")
	require.True(t, ok)
	assert.InDelta(t, 2, w[0], 1e-3)
	assert.Equal(t, "fit.qrc", rep.File)
	assert.Equal(t, "iqrc", rep.Method)

	// the cap binds at 1.5: the fit stops there
	m, err = qrc.Parse("fit.qrc", fitModel, qrc.WithData("d", lineData()), qrc.WithParam("cap_value", 1.5))
	require.NoError(t, err)
	rep, err = m.Solve(context.Background(), qrc.WithStart(rep.X()))
	require.NoError(t, err)
	w, _ = m.Var(rep.X(), "w")
	assert.InDelta(t, 1.5, w[0], 2e-3)
	require.NotNil(t, rep.Constraints[0].Multiplier)
	assert.Greater(t, *rep.Constraints[0].Multiplier, 0.0)

	_, err = qrc.Parse("fit.qrc", fitModel, qrc.WithData("e", lineData()))
	assert.ErrorContains(t, err, `no data set "e"`)
}

// A context with a deadline ends a long solve within a second of it, with
// status interrupted and the best point so far (better than the start).
// The first deadline, 700 ms, can pass before the first outer step under
// the race detector on a loaded machine; then a 3 s and a 15 s deadline
// are tried (an outer step takes milliseconds on an idle machine).
func TestSolveContextTimeout(t *testing.T) {
	m, err := qrc.Load("examples/fairness.qrc")
	require.NoError(t, err)
	start, err := m.Eval(m.Start())
	require.NoError(t, err)
	for _, timeout := range []time.Duration{700 * time.Millisecond, 3 * time.Second, 15 * time.Second} {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		began := time.Now()
		rep, err := m.Solve(ctx, qrc.WithOracle(solve.Switching),
			qrc.WithSettings(solve.Settings{Outer: 1_000_000, Eps: 1e-9}))
		elapsed := time.Since(began)
		cancel()
		require.NoError(t, err)
		assert.Less(t, elapsed, timeout+time.Second)
		assert.Equal(t, "interrupted", rep.Status)
		require.Len(t, rep.X(), m.NumVars())
		ev, err := m.Eval(rep.X())
		require.NoError(t, err)
		assert.InDelta(t, ev.Objective, rep.Objective, 1e-9, "the report's objective is at its point")
		assert.InDelta(t, ev.Infeasibility, rep.Infeasibility, 1e-9)
		if rep.Success {
			assert.LessOrEqual(t, rep.Infeasibility, 1e-9)
		}
		if rep.OuterIterations+rep.Phase1Outer == 0 {
			t.Logf("no outer step within %v; trying a longer deadline", timeout)
			continue
		}
		assert.NotEqual(t, start.Objective, rep.Objective, "the solve moved before the deadline")
		return
	}
	t.Fatal("no outer step within 15 s")
}

// A deadline shorter than the weak-convexity analysis (seconds on
// npc.qrc's 3000 rows under load) still ends the solve within a second:
// the analysis gets a quarter of the time left and gives way.
func TestSolveContextTimeoutDuringAnalysis(t *testing.T) {
	m, err := qrc.Load("examples/npc.qrc")
	require.NoError(t, err)
	const timeout = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	began := time.Now()
	rep, err := m.Solve(ctx, qrc.WithOracle(solve.Switching), qrc.WithSettings(solve.Settings{Outer: 1_000_000, Eps: 1e-9}))
	require.NoError(t, err)
	assert.Less(t, time.Since(began), timeout+time.Second)
	assert.Equal(t, "interrupted", rep.Status)
	require.Len(t, rep.X(), m.NumVars())

	// a context cancelled before the start returns at once
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	began = time.Now()
	rep, err = m.Solve(ctx, qrc.WithOracle(solve.Switching))
	require.NoError(t, err)
	assert.Less(t, time.Since(began), time.Second)
	assert.Equal(t, "interrupted", rep.Status)
}

// countingMethod is a Method of the caller's: it returns the start.
type countingMethod struct{ calls int }

func (c *countingMethod) Name() string { return "start" }

func (c *countingMethod) Minimize(_ context.Context, p *solve.Problem, x0 []float64, s solve.Settings) (*solve.Result, error) {
	c.calls++
	f := make([]float64, p.M+1)
	if err := p.Eval(x0, f); err != nil {
		return nil, err
	}
	inf := 0.0
	for _, v := range f[1:] {
		inf = math.Max(inf, v)
	}
	if s.Recorder != nil {
		if err := s.Recorder.Record(solve.Iteration{T: 0, X: x0, Objective: f[0], Infeasibility: inf, Method: "start"}); err != nil {
			return nil, err
		}
	}
	return &solve.Result{Status: solve.IterationLimit, Point: solve.Point{X: x0, F: f, Objective: f[0], Infeasibility: inf}}, nil
}

// A caller's Method runs in place of IQRC; its records reach the
// Recorders with their phase named.
func TestCustomMethodAndRecorder(t *testing.T) {
	m, err := qrc.Parse("fit.qrc", fitModel, qrc.WithData("d", lineData()))
	require.NoError(t, err)
	method := &countingMethod{}
	var phases []string
	var run qrc.Run
	rec := &funcRecorder{init: func(r qrc.Run) { run = r }, record: func(it qrc.Iteration) { phases = append(phases, it.Phase) }}
	rep, err := m.Solve(context.Background(), qrc.WithMethod(method), qrc.WithStart([]float64{1}), qrc.WithRecorder(rec))
	require.NoError(t, err)
	assert.Equal(t, 1, method.calls)
	assert.Equal(t, "start", rep.Method)
	assert.Equal(t, "iteration_limit", rep.Status)
	assert.InDelta(t, (1+4+9+16)/4.0, rep.Objective, 1e-12)
	assert.Equal(t, []string{"start"}, phases)
	assert.Equal(t, "start", run.Method)
	assert.Empty(t, run.Oracle)
	assert.True(t, rec.finished)

	_, err = m.Solve(context.Background(), qrc.WithMethod(method), qrc.WithTheory(1))
	assert.Error(t, err, "WithTheory is IQRC's")

	// settings IQRC would refuse (Rho above RhoHat) mean nothing to this
	// method: the report is still made
	rep, err = m.Solve(context.Background(), qrc.WithMethod(method), qrc.WithSettings(solve.Settings{RhoHat: 1, Rho: 2}))
	require.NoError(t, err)
	assert.Equal(t, "iteration_limit", rep.Status)
}

type funcRecorder struct {
	init     func(qrc.Run)
	record   func(qrc.Iteration)
	finished bool
}

func (f *funcRecorder) Init(r qrc.Run) error { f.init(r); return nil }

func (f *funcRecorder) Record(it qrc.Iteration) error { f.record(it); return nil }

func (f *funcRecorder) Finish() { f.finished = true }

// A Recorder's error stops the solve with status interrupted and the error
// in the report; an Init error stops it before it starts.
func TestRecorderErrors(t *testing.T) {
	m, err := qrc.Parse("fit.qrc", fitModel, qrc.WithData("d", lineData()))
	require.NoError(t, err)
	rep, err := m.Solve(context.Background(), qrc.WithRecorder(qrc.RecorderFunc(func(qrc.Iteration) error { return errBoom })))
	require.NoError(t, err)
	assert.Equal(t, "interrupted", rep.Status)
	assert.Equal(t, "boom", rep.Error)

	_, err = m.Solve(context.Background(), qrc.WithRecorder(&failingInit{}))
	assert.ErrorIs(t, err, errBoom)
}

type failingInit struct{ qrc.RecorderFunc }

func (failingInit) Init(qrc.Run) error { return fmt.Errorf("init: %w", errBoom) }

var errBoom = errors.New("boom")

// The smooth oracle refuses a model with a kink, naming where it is.
func TestRefusal(t *testing.T) {
	m, err := qrc.Parse("k.qrc", "var x[2] in box(-1, 1)\nminimize norm1(x - 0.5)\n")
	require.NoError(t, err)
	_, err = m.Solve(context.Background(), qrc.WithOracle(solve.Smooth))
	var r *qrc.RefusalError
	require.ErrorAs(t, err, &r)
	assert.Contains(t, r.Msg, "k.qrc:2:")
	assert.Error(t, m.CheckOracle(solve.Smooth, false))
	assert.NoError(t, m.CheckOracle(solve.Bundle, false))
}

// Gradcheck passes on a smooth model and reports a kink on a nonsmooth one
// without failing.
func TestGradcheck(t *testing.T) {
	m, err := qrc.Parse("g.qrc", "var x[2] in box(-1, 2) = 1\nminimize sigmoid(x[1]) + x[2]^3\nsubject to\n    c: x[1] * x[2] <= 1\n")
	require.NoError(t, err)
	rep, err := m.Gradcheck(qrc.GradcheckOptions{Points: 3, Seed: 1})
	require.NoError(t, err)
	require.Len(t, rep.Functions, 2)
	for _, f := range rep.Functions {
		assert.False(t, f.Failed)
		assert.Equal(t, 4, f.CheckedPoints())
	}
	_, err = m.Gradcheck(qrc.GradcheckOptions{Points: -1})
	assert.Error(t, err)
}

// What TraceWriter writes (qrc solve --trace) is what qrc plot reads: one
// outer record per outer iteration the solve reports.
func TestTraceWriterPlots(t *testing.T) {
	m, err := qrc.Parse("fit.qrc", fitModel, qrc.WithData("d", lineData()))
	require.NoError(t, err)
	var buf bytes.Buffer
	rep, err := m.Solve(context.Background(), qrc.WithRecorder(qrc.NewTraceWriter(&buf)))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(buf.String(), trace.SolveHeader+"\n"))
	recs, err := trace.Read(&buf, "trace.csv")
	require.NoError(t, err)
	assert.Len(t, recs, rep.OuterIterations+rep.Phase1Outer)
	require.NotEmpty(t, recs)
	last := recs[len(recs)-1]
	assert.Equal(t, "iqrc", last.Method)
	assert.InDelta(t, rep.Objective, last.Objective, 1e-12)
}
