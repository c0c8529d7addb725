package main_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// robustJSON is the part of qrc solve --json the robustness tests read.
type robustJSON struct {
	Status        string               `json:"status"`
	Objective     float64              `json:"objective"`
	Infeasibility float64              `json:"infeasibility"`
	KKTResidual   *float64             `json:"kkt_residual"`
	KKTTolerance  *float64             `json:"kkt_tolerance"`
	Variables     map[string][]float64 `json:"variables"`
	Probe         *struct {
		Escapes []int `json:"escapes"`
		Found   bool  `json:"found"`
	} `json:"probe"`
	Verdict string `json:"verdict"`
}

// The projection of (3, 4, 0, 0) onto the unit ball: x* = (0.6, 0.8, 0, 0)
// to 1e-7, converged, with the KKT residual measured at x within its
// tolerance (the default eps of a smooth model without data, 1e-6).
func TestSolveBallProjectionAccurate(t *testing.T) {
	model := writeModel(t, "ball.qrc", `var x[4] in box(-10, 10)
minimize (x[1] - 3)^2 + (x[2] - 4)^2 + x[3]^2 + x[4]^2
subject to
    ball: sum(j in 1..4) x[j]^2 <= 1
`)
	s, r := jsonOut[robustJSON](t, false, "solve", "--quiet", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	x := s.Variables["x"]
	want := []float64{0.6, 0.8, 0, 0}
	d := 0.0
	for j := range want {
		d += (x[j] - want[j]) * (x[j] - want[j])
	}
	assert.Less(t, math.Sqrt(d), 1e-7)
	require.NotNil(t, s.KKTResidual)
	require.NotNil(t, s.KKTTolerance)
	assert.LessOrEqual(t, *s.KKTResidual, *s.KKTTolerance)
	assert.LessOrEqual(t, *s.KKTTolerance, 1e-6*1.05, "grad f0 at 0 is (-6, -8): IPOPT's scale is 1")
}

// A thin band (+-1e-4) around a linear and a sphere constraint, from 0:
// the optimum of -a.w on it is max over s of s mean(a) + sqrt(R^2 -
// s^2/n) ||a - mean(a)|| at the band's largest radius R^2 = 1 + 1e-4.
func TestSolveThinBand(t *testing.T) {
	model := writeModel(t, "band.qrc", `param a = [1, -2, 0.5, 3, -1]
var w[5] in box(-2, 2)
minimize -dot(a, w)
subject to
    budget_lo: sum(j in 1..5) w[j] >= 1 - 1e-4
    budget_hi: sum(j in 1..5) w[j] <= 1 + 1e-4
    sphere_lo: sum(j in 1..5) square(w[j]) >= 1 - 1e-4
    sphere_hi: sum(j in 1..5) square(w[j]) <= 1 + 1e-4
`)
	s, r := jsonOut[robustJSON](t, false, "solve", "--quiet", "--restarts", "0", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	assert.LessOrEqual(t, s.Infeasibility, 1e-6)
	a := []float64{1, -2, 0.5, 3, -1}
	mean, perp := 0.0, 0.0
	for _, v := range a {
		mean += v / 5
	}
	for _, v := range a {
		perp += (v - mean) * (v - mean)
	}
	best := math.Inf(-1)
	for k := 0; k <= 200000; k++ {
		sum := 1 - 1e-4 + 2e-4*float64(k)/200000
		best = math.Max(best, sum*mean+math.Sqrt(1+1e-4-sum*sum/5)*math.Sqrt(perp))
	}
	assert.InDelta(t, -best, s.Objective, 1e-6)
}

// Phase retrieval with the robust loss from the default start x = 0, a
// local maximum of mean |(a.x)^2 - b| where every certificate holds: the
// solve leaves it (the probe) and reaches the planted signal (0, 0, 1.5,
// 0, 0, 0, -1, 0) of examples/data/phase.csv up to sign, with an
// objective no higher than the signal's own, computed here from the file.
func TestSolvePhaseRetrievalLeavesTheStart(t *testing.T) {
	data, err := filepath.Abs(filepath.Join(repoRoot, "examples/data/phase.csv"))
	require.NoError(t, err)
	model := writeModel(t, "pr.qrc", `data meas = csv("`+data+`", label = "b")
var x[meas.d] in box(-10, 10)
minimize mean(i in meas) abs(dot(meas.X[i], x)^2 - meas.y[i])
`)
	s, r := jsonOut[robustJSON](t, false, "solve", "--quiet", model)
	require.Equal(t, 0, r.code, r.stderr)
	require.NotNil(t, s.Probe)
	require.NotEmpty(t, s.Probe.Escapes)
	assert.Equal(t, 0, s.Probe.Escapes[0], "the start was a maximum, and was left")
	truth := []float64{0, 0, 1.5, 0, 0, 0, -1, 0}
	x := s.Variables["x"]
	d1, d2 := 0.0, 0.0
	for j := range truth {
		d1 += (x[j] - truth[j]) * (x[j] - truth[j])
		d2 += (x[j] + truth[j]) * (x[j] + truth[j])
	}
	assert.Less(t, math.Sqrt(math.Min(d1, d2)), 1e-2)

	f, err := os.Open(data)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	fTruth := 0.0
	for _, row := range rows[1:] {
		dot := 0.0
		for j := range truth {
			v, err := strconv.ParseFloat(row[j], 64)
			require.NoError(t, err)
			dot += v * truth[j]
		}
		b, err := strconv.ParseFloat(row[len(truth)], 64)
		require.NoError(t, err)
		fTruth += math.Abs(dot*dot-b) / float64(len(rows)-1)
	}
	assert.LessOrEqual(t, s.Objective, fTruth+1e-6)
}

// --start random: seeded (the same --seed, the same point), inside the
// box, and not the declared start.
func TestSolveStartRandom(t *testing.T) {
	model := writeModel(t, "r.qrc", `var x[3] in box(-1, 2) = 0
var y[2] = 5
minimize sum(j in 1..3) square(x[j] - 1) + sum(k in 1..2) square(y[k])
`)
	first := func(seed string) []float64 {
		s, r := jsonOut[robustJSON](t, false, "solve", "--quiet", "--start", "random", "--seed", seed, "--oracle", "switching", "--inner", "2", "--outer", "1", model)
		require.Equal(t, 0, r.code, r.stderr)
		return append(s.Variables["x"], s.Variables["y"]...)
	}
	a, b, c := first("3"), first("3"), first("4")
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
	for _, v := range a[:3] {
		assert.True(t, v >= -1 && v <= 2, "in the box: %v", v)
	}
}

// A model whose kinks the domain keeps away (sqrt and abs on a box away
// from 0) is solved by the smooth oracle, and the note says why.
func TestSolveSmoothOnTheDomain(t *testing.T) {
	model := writeModel(t, "sq.qrc", `var x[2] in box(1, 5) = 2
minimize sqrt(x[1]) + abs(x[2] - 0.5)
subject to
    c: x[1] + x[2] <= 3
`)
	r := qrc(t, "", "solve", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "oracle smooth (auto: "+model+":2:10: sqrt is not differentiable everywhere, but the domain keeps every kink's argument away from it")
	assert.Contains(t, r.stdout, "status         converged\n")
	assert.Contains(t, r.stdout, "objective      1.5\n", "sqrt(1) + |1 - 0.5| at x = (1, 1)")
}

// An objective unbounded below ends with status unbounded, exit 5 and a
// verdict that says what to do.
func TestSolveUnbounded(t *testing.T) {
	model := writeModel(t, "unb.qrc", `var x[2]
minimize x[1] - 2 * x[2]
subject to
    c: x[2] - x[1] <= 5
`)
	r := qrc(t, "", "solve", "--quiet", model)
	require.Equal(t, 5, r.code, r.stderr)
	assert.Contains(t, r.stdout, "status         unbounded\n")
	assert.Contains(t, r.stdout, "verdict        unbounded: the objective fell to ")
}

// Hock-Schittkowski 13 (a cusp at x* = (1, 0) where the constraint
// qualification fails): the points the solve certifies keep having lower
// feasible points near them. After the escapes run out, the last one is
// not called converged: stalled, and the verdict says why.
func TestSolveNoConvergedWhereTheProbeFindsLower(t *testing.T) {
	s, r := jsonOut[struct {
		Status string `json:"status"`
		Probe  *struct {
			Escapes []int `json:"escapes"`
			Found   bool  `json:"found"`
		} `json:"probe"`
		Verdict string `json:"verdict"`
	}](t, false, "solve", "--quiet", "hs/models/hs013.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "stalled", s.Status, "HS 13 ends 8.8e-4 above f* = 1 with lower points near")
	require.NotNil(t, s.Probe)
	assert.True(t, s.Probe.Found)
	assert.Len(t, s.Probe.Escapes, 10)
	assert.Contains(t, s.Verdict, "a feasible point lower than it is near (the probe)")
}
