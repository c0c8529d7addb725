package trace_test

import (
	"bytes"
	"image"
	_ "image/png"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/trace"
)

func records() []trace.Record {
	return []trace.Record{
		{Method: "iqrc", Series: trace.Outer, CPU: 0, Objective: 4.5},
		{Method: "iqrc", Series: trace.Inner, CPU: 1, T: 0, K: 100, Objective: 4.2, Infeasibility: 0.01},
		{Method: "iqrc", Series: trace.Outer, CPU: 2, T: 1, Objective: 4.0},
		{Method: "iqrc", Series: trace.Outer, CPU: 6, T: 2, Objective: 3.0},
		{Method: "penalty", Series: trace.Outer, CPU: 0, Objective: 4.5},
		{Method: "penalty", Series: trace.Outer, CPU: 1.5, T: 1, Objective: 2.0, Infeasibility: 0.5},
		{Method: "penalty", Series: trace.Outer, CPU: 3, T: 2, Objective: 3.02, Infeasibility: 1e-4},
		{Method: "penalty", Series: trace.Outer, CPU: 7.9, T: 3, Objective: 3.01, Infeasibility: 0},
	}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := trace.NewWriter(&buf)
	recs := records()
	recs[2].Objective = 1.0 / 3 // full precision
	for _, r := range recs {
		require.NoError(t, w.Write(r))
	}
	assert.True(t, strings.HasPrefix(buf.String(), trace.Header+"\n"))
	got, err := trace.Read(&buf, "t.csv")
	require.NoError(t, err)
	assert.Equal(t, recs, got)

	var empty bytes.Buffer
	require.NoError(t, trace.NewWriter(&empty).Flush())
	got, err = trace.Read(&empty, "e.csv")
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{"", "x.csv: empty file"},
		{"a,b\n", "x.csv:1: the header is"},
		{trace.Header + "\niqrc,outer,1,1,0,0,abc,0\n", `x.csv:2: objective "abc" is not a number`},
		{trace.Header + "\niqrc,middle,1,1,0,0,1,0\n", `x.csv:2: series "middle"`},
		{trace.Header + "\niqrc,outer,1,1,0,0,1\n", "x.csv:2: 7 fields"},
		{trace.Header + "\niqrc,outer,-1,1,0,0,1,0\n", "x.csv:2: cpu_seconds -1"},
	} {
		_, err := trace.Read(strings.NewReader(c.in), "x.csv")
		require.Error(t, err, c.in)
		assert.Contains(t, err.Error(), c.msg)
	}
}

func TestLinesAndSummary(t *testing.T) {
	lines := trace.Lines(records())
	require.Len(t, lines, 3)
	assert.Equal(t, []string{"iqrc", "iqrc inner z_k", "penalty"}, []string{lines[0].Label(), lines[1].Label(), lines[2].Label()})
	assert.Len(t, lines[0].Records, 3)

	rows, best := trace.Summarize(lines, 8, 1e-3)
	// the best feasible outer objective: iqrc's 3.0 (penalty's 2.0 is infeasible)
	assert.Equal(t, 3.0, best)
	require.Len(t, rows, 3)
	// at 25% (2 s), 50% (4 s), 100% (8 s)
	iq := rows[0]
	assert.Equal(t, []float64{4.0, 4.0, 3.0}, []float64{iq.At[0].Objective, iq.At[1].Objective, iq.At[2].Objective})
	assert.Equal(t, 6.0, iq.ToBest)
	pen := rows[2]
	assert.Equal(t, []float64{2.0, 3.02, 3.01}, []float64{pen.At[0].Objective, pen.At[1].Objective, pen.At[2].Objective})
	assert.Equal(t, 0.5, pen.At[0].Infeasibility)
	assert.Equal(t, 3.0, pen.ToBest, "3.02 is within 1% of 3 and feasible within eps")
	assert.True(t, math.IsNaN(rows[1].ToBest), "the inner iterates never reach 3.03")
	_, ok := lines[1].At(0.5)
	assert.False(t, ok, "no inner record before 1 s")
}

func TestDraw(t *testing.T) {
	lines := trace.Lines(records())
	var png bytes.Buffer
	require.NoError(t, trace.Draw(&png, "png", lines, "test"))
	cfg, format, err := image.DecodeConfig(bytes.NewReader(png.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, "png", format)
	assert.Equal(t, 960, cfg.Width)
	assert.Equal(t, 360, cfg.Height)

	var svg bytes.Buffer
	require.NoError(t, trace.Draw(&svg, "svg", lines, ""))
	assert.Contains(t, svg.String(), "<svg")
	assert.Contains(t, svg.String(), "iqrc inner z_k")
	assert.Contains(t, svg.String(), "CPU seconds")

	assert.Error(t, trace.Draw(&svg, "gif", lines, ""))
	assert.Error(t, trace.Draw(&svg, "png", nil, ""))
	assert.Error(t, trace.DrawFile(t.TempDir()+"/f.gif", lines, ""))
	assert.Equal(t, 1e-6, trace.InfeasibilityFloor(lines), "a tenth of 1e-4, capped at 1e-6")
}

// A qrc solve --trace file reads as Outer records of the method each row's
// phase names, timed by its seconds.
func TestReadSolveTrace(t *testing.T) {
	src := trace.SolveHeader + "\n" +
		"0.010000,1,phase1,2.5,0.25,\"cap[1, 2]\",0.5,0.000000,1\n" +
		"0.020000,2,iqrc,2,0,,0.25,1.000000,2\n"
	recs, err := trace.Read(strings.NewReader(src), "s.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.Record{
		{Method: "phase1", Series: trace.Outer, CPU: 0.01, Wall: 0.01, T: 1, Objective: 2.5, Infeasibility: 0.25},
		{Method: "iqrc", Series: trace.Outer, CPU: 0.02, Wall: 0.02, T: 2, Objective: 2, Infeasibility: 0},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("got %+v, want %+v", recs, want)
	}
	if _, err := trace.Read(strings.NewReader(trace.SolveHeader+"\n1,2,iqrc\n"), "s.csv"); err == nil || !strings.Contains(err.Error(), "s.csv:2: 3 fields") {
		t.Errorf("a short row: %v", err)
	}
}
