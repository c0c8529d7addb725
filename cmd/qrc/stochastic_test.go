package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stochJSON is the part of a stochastic result the tests read.
type stochJSON struct {
	solveJSON
	Polish   int `json:"polish_rounds"`
	Settings struct {
		Oracle string  `json:"oracle"`
		Batch  int     `json:"batch"`
		V      float64 `json:"v"`
		Alpha  float64 `json:"alpha"`
		Inner  int     `json:"inner"`
	} `json:"settings"`
}

// Every example solves with the stochastic oracle through the binary: the
// result, computed on all rows, is feasible and below the start.
func TestSolveStochasticExamples(t *testing.T) {
	for _, tc := range []struct {
		model     string
		set, args []string
	}{
		{"examples/phase.qrc", nil, []string{"--outer", "10"}},
		{"examples/npc.qrc", nil, []string{"--outer", "3", "--inner", "300"}},
		{"examples/fairness.qrc", nil, []string{"--outer", "10"}},
	} {
		t.Run(tc.model, func(t *testing.T) {
			ev, _ := evalOut(t, append([]string{tc.model}, tc.set...)...)
			s, r := jsonOut[stochJSON](t, false, "solve", append(append([]string{"--oracle", "stochastic", "--batch", "32", tc.model}, tc.set...), tc.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			assert.True(t, s.Success, s.Status)
			assert.LessOrEqual(t, s.Infeasibility, 1e-3)
			assert.Less(t, s.Objective, ev.Objective.Value)
			assert.Equal(t, "stochastic", s.Settings.Oracle)
			assert.Equal(t, 32, s.Settings.Batch)
			assert.InDelta(t, float64(s.Settings.Inner), s.Settings.Alpha, 0)
			assert.InDelta(t, 0, s.Settings.V*s.Settings.V-float64(s.Settings.Inner), 1e-9)
			// the reported values are the model's on all rows: eval at the
			// returned point agrees
			dir := t.TempDir()
			pt := filepath.Join(dir, "x.json")
			require.NoError(t, os.WriteFile(pt, []byte(r.stdout), 0o644))
			ev2, r2 := evalOut(t, append([]string{tc.model, "--at", pt}, tc.set...)...)
			require.Equal(t, 0, r2.code, r2.stderr)
			assert.InDelta(t, ev2.Objective.Value, s.Objective, 1e-12)
		})
	}
}

// --oracle auto picks the bundle oracle for a small model with a kink and
// the smooth oracle for a differentiable one, and says why; the JSON
// result names the oracle used. --oracle smooth refuses a model with a
// kink, naming it.
func TestSolveOracleAuto(t *testing.T) {
	s, r := jsonOut[stochJSON](t, false, "solve", "examples/phase.qrc", "--outer", "2")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "bundle", s.Settings.Oracle)
	assert.Contains(t, r.stderr, "oracle bundle (auto: examples/phase.qrc:7:26: abs is not differentiable everywhere; the data means run over 200 rows, fewer than 50000)")
	s, r = jsonOut[stochJSON](t, false, "solve", "examples/npc.qrc", "--outer", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "smooth", s.Settings.Oracle)
	assert.Contains(t, r.stderr, "oracle smooth (auto: every function is differentiable; the data means run over 3000 rows, fewer than 50000)")
	r = qrc(t, "", "solve", "examples/phase.qrc", "--oracle", "sometimes")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--oracle must be auto, smooth, bundle, smoothed, dual, prox, epigraph, dynamic, switching or stochastic")
	r = qrc(t, "", "solve", "examples/phase.qrc", "--oracle", "smooth")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "--oracle smooth needs a differentiable model, and at examples/phase.qrc:7:26: abs is not differentiable everywhere")
	s, r = jsonOut[stochJSON](t, false, "solve", "examples/phase.qrc", "--outer", "1", "--oracle", "deterministic")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "switching", s.Settings.Oracle, "deterministic is the old name of switching")
}

const biasedModel = `data people = csv("examples/data/fairness.csv", label = "y", drop = ["group"])
var x[people.d] in ball(1)
func m() = mean(i in people) dot(people.X[i], x)
minimize log(1 + exp(m())) + mean(i in people) abs(dot(people.X[i], x))
`

// A model whose mean sits inside log: qrc check reports it with the
// mean's position; the stochastic oracle refuses it (exit 1, the same
// position) unless --allow-biased.
func TestStochasticRefusesBiased(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "biased.qrc")
	require.NoError(t, os.WriteFile(model, []byte(strings.ReplaceAll(biasedModel, "examples/", mustAbs(t, filepath.Join(repoRoot, "examples"))+"/")), 0o644))

	r := qrc(t, "", "check", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, model+":3:12: objective: the mean over data rows is inside log(...) ("+model+":4:10)")
	sum, _ := jsonOut[struct {
		Biased []struct{ Function, Mean, Why, Context string } `json:"biased"`
	}](t, false, "check", model)
	require.Len(t, sum.Biased, 1)
	assert.Equal(t, model+":3:12", sum.Biased[0].Mean)

	r = qrc(t, "", "solve", "--oracle", "stochastic", model)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, model+":3:12: objective: this mean over data rows is inside log(...)")
	assert.Contains(t, r.stderr, "--allow-biased")
	assert.Contains(t, r.stderr, "    func m() = mean(i in people) dot(people.X[i], x)\n               ^\n") // the caret under the mean

	r = qrc(t, "", "solve", "--oracle", "stochastic", "--allow-biased", "--outer", "3", "--json", model)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"allow_biased": true`)
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	require.NoError(t, err)
	return a
}

// The same model, flags and seed give bitwise the same result whatever
// the number of cores; another seed gives another result.
func TestStochasticReproducible(t *testing.T) {
	run := func(procs, seed string) string {
		cmd := exec.Command(qrcBin, "solve", "--json", "--quiet", "--oracle", "stochastic", "--seed", seed,
			"--outer", "4", "--inner", "200", "examples/npc.qrc")
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs)
		var out bytes.Buffer
		cmd.Stdout = &out
		require.NoError(t, cmd.Run())
		// everything but the timings
		return regexp.MustCompile(`"seconds": [0-9.e+-]+`).ReplaceAllString(out.String(), "")
	}
	a, b, c := run("1", "5"), run("2", "5"), run("2", "6")
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
	assert.Contains(t, a, `"oracle": "stochastic"`)
}

// bigCSV writes a CSV of n rows, two features and a label in {-1, 1}.
func bigCSV(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range n {
		y := 1 - 2*(i%2)
		fmt.Fprintf(&b, "%.3f,%.3f,%d\n", float64(i%97)/97, float64(i%89)/89-0.5, y)
	}
	path := filepath.Join(t.TempDir(), "big.csv")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// --oracle auto picks the dynamic oracle from 50000 rows and says so (the
// smooth oracle, or the bundle oracle for a model with a kink, on growing
// samples), biased means or not: each stage solves a sample-average
// problem, not minibatch estimates. --v and --alpha reach Algorithm 3.
func TestSolveOracleAutoLarge(t *testing.T) {
	data := bigCSV(t, 50000)
	dir := t.TempDir()
	linear := filepath.Join(dir, "linear.qrc")
	require.NoError(t, os.WriteFile(linear, []byte(`data d = csv("`+data+`", label = "y")
var x[d.d] in ball(1)
minimize mean(i in d) logistic(-d.y[i] * dot(d.X[i], x))
`), 0o644))
	s, r := jsonOut[stochJSON](t, false, "solve", linear, "--outer", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "oracle dynamic (auto: the data means run over 50000 rows, at least 50000): smooth on samples of the rows, then on all of them")
	assert.Equal(t, "dynamic", s.Settings.Oracle)
	// two rounds on one sample with control variates, then all rows
	assert.Contains(t, r.stderr, "stage 1, sample of 10000 rows (20%), eps 0.00224")
	assert.Contains(t, r.stderr, "stage 2, sample of 10000 rows (20%), eps 0.001")
	assert.Contains(t, r.stderr, "stage 3, all 50000 rows, eps 0.001")
	assert.Contains(t, r.stderr, "\nfull ", "each round's start on all rows")
	assert.Contains(t, r.stdout, `"correction_passes": 1`)
	assert.Contains(t, r.stdout, `"stages": [`)
	assert.Contains(t, r.stdout, `"data_passes": `)

	// rounds that stop at their step limit are followed by more, up to
	// four (here no round can meet eps 1e-9 in its one step)
	_, r = jsonOut[stochJSON](t, false, "solve", linear, "--outer", "1", "--eps", "1e-9")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "stage 4, sample of 10000 rows (20%), eps 1e-09, smooth oracle: iteration_limit after 1 outer steps")
	assert.NotContains(t, r.stderr, "samples are solved by", "a smooth model's samples keep the smooth oracle, without a note")
	assert.Contains(t, r.stderr, "stage 5, all 50000 rows, eps 1e-09")

	// --sample-rounds 3: three rounds, whatever they do
	_, r = jsonOut[stochJSON](t, false, "solve", linear, "--outer", "1", "--sample-rounds", "3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "stage 3, sample of 10000 rows (20%), eps 0.001")
	assert.Contains(t, r.stderr, "stage 4, all 50000 rows, eps 0.001")

	// --sample-rounds 0: growing samples, without control variates (one
	// stage on 20% of the rows, then all); a negative count is refused
	_, r = jsonOut[stochJSON](t, false, "solve", linear, "--outer", "1", "--sample-rounds", "0")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "stage 1, sample of 10000 rows (20%), eps 0.00224")
	assert.Contains(t, r.stderr, "stage 2, all 50000 rows, eps 0.001")
	assert.NotContains(t, r.stderr, "cv ")
	r = qrc(t, "", "solve", linear, "--sample-rounds", "-1")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--sample-rounds must be at least 0")

	s, r = jsonOut[stochJSON](t, false, "solve", linear, "--outer", "1", "--inner", "20", "--v", "2", "--alpha", "40", "--oracle", "stochastic")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "stochastic", s.Settings.Oracle)
	assert.Equal(t, 2.0, s.Settings.V)
	assert.Equal(t, 40.0, s.Settings.Alpha)

	biased := filepath.Join(dir, "biased.qrc")
	require.NoError(t, os.WriteFile(biased, []byte(`data d = csv("`+data+`", label = "y")
var x[d.d] in ball(1)
minimize log(1 + mean(i in d) abs(dot(d.X[i], x) - 0.1))
`), 0o644))
	s, r = jsonOut[stochJSON](t, false, "solve", biased, "--outer", "1")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "oracle dynamic (auto: the data means run over 50000 rows, at least 50000): bundle on samples of the rows")
	assert.Equal(t, "dynamic", s.Settings.Oracle)
}

// --method stochastic is IQRC with the stochastic oracle, and refuses
// another --oracle.
func TestSolveMethodStochastic(t *testing.T) {
	s, r := jsonOut[stochJSON](t, false, "solve", "examples/phase.qrc", "--method", "stochastic", "--outer", "2")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "stochastic", s.Settings.Oracle)
	assert.Contains(t, r.stdout, `"method": "stochastic"`)

	r = qrc(t, "", "solve", "examples/phase.qrc", "--method", "stochastic", "--oracle", "deterministic")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--method stochastic is IQRC with --oracle stochastic; it does not go with --oracle deterministic")
}

// A time-limited solve ends within a second of the limit (a bare number is
// seconds) by its own clock, the result's seconds (the limit, the 0.5 s
// grace for the certificate and a step), with a certificate only if it
// could finish in that second, and says why when not. The process's start
// and the loading are not asserted on: on a busy machine they take what
// they take (issue 42 item 7).
func TestSolveTimeLimit(t *testing.T) {
	for _, oracle := range []string{"switching", "smooth", "stochastic"} {
		s, r := solveOut(t, "examples/npc.qrc", "--time-limit", "1", "--outer", "100000", "--eps", "1e-9", "--oracle", oracle)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "time_limit", s.Status, oracle)
		assert.True(t, s.Success)
		var own struct{ Seconds float64 }
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &own))
		assert.Less(t, own.Seconds, 2.5, "%s: the limit, the grace for the certificate and a step", oracle)
		if s.Stationarity == nil {
			assert.NotEmpty(t, s.NoCertificate, oracle)
		}
	}
}
