package qrc

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/solve"
)

// When a row set is monitored on a sample, the progress table says so
// above its header; on all rows it says nothing.
func TestMonitorNote(t *testing.T) {
	m, prog := compiledFile(t, "examples/fairness.qrc")

	p := problem.New(m, prog, problem.Options{MonitorRows: 100})
	note := monitorNote(p, prog)
	assert.Contains(t, note, "fixed sample (100 of the")
	assert.Contains(t, note, "rows of people")
	assert.Contains(t, note, "the result is on all rows")

	var buf bytes.Buffer
	pr := NewPrinter(&buf)
	pr.Prefix = "qrc solve: "
	require.NoError(t, pr.Init(Run{MonitorNote: note}))
	require.NoError(t, pr.Record(Iteration{Iteration: solve.Iteration{T: 1}}))
	assert.Contains(t, buf.String(), "qrc solve: objective and infeasibility at outer iterations are on a fixed sample")

	assert.Empty(t, monitorNote(problem.New(m, prog, problem.Options{}), prog))
}

// A heartbeat of a long phase-1 step that comes before any outer record
// prints the table's head and a row saying what runs; one of the
// certificate before any row prints nothing (the solve ended before its
// first iteration was shown).
func TestPrinterStepHeartbeat(t *testing.T) {
	var buf bytes.Buffer
	pr := NewPrinter(&buf)
	require.NoError(t, pr.Record(Iteration{Iteration: solve.Iteration{Stage: "certificate", K: 3}}))
	assert.Empty(t, buf.String())
	require.NoError(t, pr.Record(Iteration{Iteration: solve.Iteration{Stage: "phase1", T: 4, K: 1200, Objective: 2, Infeasibility: 0.5}}))
	out := buf.String()
	assert.Contains(t, out, "phase        t   seconds     objective infeasibility")
	assert.Contains(t, out, "(phase1 of x_4: 1200 inner iterations so far)")
}

// compiledFile loads the model file at path (relative to the module's
// root) and compiles it, failing the test on an error.
func compiledFile(t *testing.T, path string) (*check.Model, *autodiff.Program) {
	t.Helper()
	m, _, diags := modelfile.Load(path, check.Options{})
	require.NoError(t, diags.Err())
	prog, err := autodiff.Compile(m)
	require.NoError(t, err)
	return m, prog
}
