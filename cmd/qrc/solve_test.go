package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qrc-lang/qrc/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// solveJSON is the part of qrc solve --json the tests read.
type solveJSON struct {
	Status        string   `json:"status"`
	Success       bool     `json:"success"`
	Objective     float64  `json:"objective"`
	Infeasibility float64  `json:"infeasibility"`
	Stationarity  *float64 `json:"stationarity"`
	Stationary    bool     `json:"stationary"`
	KKTResidual   *float64 `json:"kkt_residual"`
	KKTTolerance  *float64 `json:"kkt_tolerance"`
	NoCertificate string   `json:"no_certificate"`
	Constraints   []struct {
		Name       string   `json:"name"`
		Value      float64  `json:"value"`
		RHS        *float64 `json:"rhs"`
		Slack      float64  `json:"slack"`
		Multiplier *float64 `json:"multiplier"`
	} `json:"constraints"`
	Variables       map[string]json.RawMessage `json:"variables"`
	Violated        []string                   `json:"violated"`
	OuterIterations int                        `json:"outer_iterations"`
	InnerIterations int                        `json:"inner_iterations"`
	Settings        struct {
		RhoHat float64 `json:"rho_hat"`
		Eps    float64 `json:"eps"`
	} `json:"settings"`
}

func solveOut(t *testing.T, args ...string) (solveJSON, result) {
	t.Helper()
	return jsonOut[solveJSON](t, false, "solve", args...)
}

// TestSolveExamples solves every shipped example through the binary: the
// result is feasible, the objective is below its starting value, and the
// JSON result reads back through --start.
func TestSolveExamples(t *testing.T) {
	for _, tc := range []struct {
		model     string
		set, args []string
	}{
		{"examples/phase.qrc", nil, nil},
		{"examples/npc.qrc", nil, []string{"--outer", "3", "--inner", "300"}},
		{"examples/fairness.qrc", nil, []string{"--outer", "20"}},
		{"examples/adult.qrc", nil, []string{"--outer", "5", "--inner", "300"}},
		{"examples/german.qrc", nil, []string{"--outer", "5", "--inner", "300"}},
		{"examples/np.qrc", nil, []string{"--outer", "5", "--inner", "300"}},
	} {
		t.Run(tc.model, func(t *testing.T) {
			ev, _ := evalOut(t, append([]string{tc.model}, tc.set...)...)
			startObj := ev.Objective.Value
			dir := t.TempDir()
			out := filepath.Join(dir, "result.json")
			args := append(append([]string{tc.model, "--out", out}, tc.set...), tc.args...)
			s, r := solveOut(t, args...)
			require.Equal(t, 0, r.code, r.stderr)
			require.True(t, s.Success, s.Status)
			require.LessOrEqual(t, s.Infeasibility, 1e-3)
			require.Less(t, s.Objective, startObj)
			require.NotNil(t, s.Stationarity)
			require.NotEmpty(t, s.Variables)
			// the --out file holds the same result
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			var again solveJSON
			require.NoError(t, json.Unmarshal(data, &again))
			require.Equal(t, s.Objective, again.Objective)
			// and evaluating at it gives the reported objective
			e2, r2 := evalOut(t, append([]string{tc.model, "--at", out}, tc.set...)...)
			require.Equal(t, 0, r2.code, r2.stderr)
			require.InDelta(t, s.Objective, e2.Objective.Value, 1e-12)
			// warm start from it: not worse than a small tolerance
			s2, r3 := solveOut(t, append([]string{tc.model, "--start", out, "--outer", "3", "--inner", "300"}, tc.set...)...)
			require.Equal(t, 0, r3.code, r3.stderr)
			require.LessOrEqual(t, s2.Infeasibility, 1e-3)
			require.Less(t, s2.Objective, startObj)
		})
	}
}

// TestSolveInfeasible: the paper's parity constraints with beta = 1 and
// r = 0.8 cannot be satisfied (their left-hand sides add up to 2); phase 1
// says so, names the constraints, and exits 3.
func TestSolveInfeasible(t *testing.T) {
	const model = "cmd/qrc/testdata/parity_infeasible.qrc"
	s, r := solveOut(t, model, "--outer", "20")
	require.Equal(t, 3, r.code, r.stderr)
	require.Equal(t, "infeasible", s.Status)
	require.False(t, s.Success)
	require.NotEmpty(t, s.Violated)
	require.Greater(t, s.Infeasibility, 1e-3)
	// the most feasible point violates each by about 2 - 2r = 0.4 shared
	// equally: at least 0.2 each
	assert.GreaterOrEqual(t, s.Infeasibility, 0.2-1e-6)
	text := qrc(t, "", "solve", "--quiet", model, "--outer", "20")
	require.Equal(t, 3, text.code)
	require.Contains(t, text.stdout, "infeasible")
	require.Contains(t, text.stdout, "parity_")
}

func TestSolveTextAndTrace(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.csv")
	r := qrc(t, "", "solve", "examples/phase.qrc", "--trace", trace)
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{"status", "objective", "infeasibility", "stationarity", "budget", "x = ["} {
		require.Contains(t, r.stdout, want)
	}
	require.Contains(t, r.stderr, "infeasibility", "the progress table")
	data, err := os.ReadFile(trace)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Equal(t, "seconds,t,phase,objective,infeasibility,max_violated,step,feasible_fraction,rho_hat", lines[0])
	require.Greater(t, len(lines), 1)
	require.Len(t, strings.Split(lines[1], ","), 9)
	quiet := qrc(t, "", "solve", "--quiet", "examples/phase.qrc")
	require.Equal(t, 0, quiet.code)
	require.Empty(t, quiet.stderr)
}

func TestSolveUsage(t *testing.T) {
	for _, args := range [][]string{
		{"solve"},
		{"solve", "examples/phase.qrc", "--pick", "best"},
		{"solve", "examples/phase.qrc", "--eps", "-1"},
		{"solve", "examples/phase.qrc", "--rho-hat", "1", "--rho", "2"},
	} {
		r := qrc(t, "", args...)
		require.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		require.NotEmpty(t, r.stderr)
	}
	h := qrc(t, "", "help", "solve")
	require.Equal(t, 0, h.code)
	require.Contains(t, h.stdout, "--rho-hat")
	bad := qrc(t, "", "solve", "examples/phase.qrc", "--start", "nonexistent.json")
	require.Equal(t, 1, bad.code)
	require.Contains(t, bad.stderr, "nonexistent.json")
}

func TestSolveNumericalError(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.qrc")
	require.NoError(t, os.WriteFile(model, []byte("var x in box(-1, 1) = 0.5\nminimize log(x - 0.9)\n"), 0o644))
	r := qrc(t, "", "solve", "--quiet", model)
	require.Equal(t, 4, r.code, r.stderr)
	require.Contains(t, r.stderr, "m.qrc:2:10: log of a negative number")
}

// TestSolvePendigits: npc.qrc from W = 0 with default settings on the real
// pendigits data, scaled and raw, stays feasible at every outer iterate and
// lowers loss(1) well below its starting value 4.5 within two outer steps
// (the 60 s trajectories are in docs/solver.md). The budget is in outer
// steps, not seconds: with --time-limit 20s the raw data's first outer step
// (3 s on an idle machine) did not finish when the machine was loaded.
func TestSolvePendigits(t *testing.T) {
	for _, name := range []string{"pendigits.scale", "pendigits"} {
		t.Run(name, func(t *testing.T) {
			shareddata.Require(t, name)
			data := "../shared/data/" + name
			trace := filepath.Join(t.TempDir(), "trace.csv")
			s, r := solveOut(t, "examples/npc.qrc", "--data", "train="+data, "--outer", "2", "--trace", trace)
			require.Equal(t, 0, r.code, r.stderr)
			require.True(t, s.Success)
			require.Less(t, s.Objective, 4.0)
			require.LessOrEqual(t, s.Infeasibility, 1e-3)
			raw, err := os.ReadFile(trace)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(raw)), "\n")[1:]
			require.NotEmpty(t, lines)
			for _, l := range lines {
				f := strings.Split(l, ",")
				inf, err := strconv.ParseFloat(f[4], 64)
				require.NoError(t, err)
				require.LessOrEqual(t, inf, 1e-3, "outer iterate %s", f[1])
			}
		})
	}
}

// TestSolvePendigitsAccurate: the solver-core issue's accuracy targets,
// checked by result (never by time) with default settings from W = 0. On
// pendigits.scale the answer is feasible to 1e-6 and within 0.01% of
// IPOPT 3.11's optimum 3.5153887 (an independent solver's, run outside the
// project), with status converged; on raw pendigits, where every
// constraint is inactive and the infimum is near 0 (IPOPT and the penalty
// method reach 2e-7 and below), the objective goes below 1e-6, converged.
func TestSolvePendigitsAccurate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		atMost  float64
		atLeast float64
	}{
		{"pendigits.scale", 3.5153887 * (1 + 1e-4), 3.5153887 * (1 - 1e-4)},
		{"pendigits", 1e-6, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shareddata.Require(t, tc.name)
			s, r := solveOut(t, "examples/npc.qrc", "--data", "train=../shared/data/"+tc.name)
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, "converged", s.Status)
			assert.LessOrEqual(t, s.Infeasibility, 1e-6)
			assert.LessOrEqual(t, s.Objective, tc.atMost)
			assert.GreaterOrEqual(t, s.Objective, tc.atLeast)
			require.NotNil(t, s.Stationarity)
			assert.True(t, s.Stationary)
			// nearly stationary at x_hat, or KKT at x itself (a smooth model)
			if *s.Stationarity > s.Settings.Eps {
				require.NotNil(t, s.KKTResidual)
				require.NotNil(t, s.KKTTolerance)
				assert.LessOrEqual(t, *s.KKTResidual, *s.KKTTolerance)
				assert.LessOrEqual(t, *s.KKTTolerance, s.Settings.Eps*1.01, "an objective gradient of at most 101 at W = 0: the scale is at most 1.01")
			}
		})
	}
}

// TestSolveCPUProfile: --cpuprofile writes a pprof profile (gzip-compressed
// protocol buffer) of the run, and an unwritable path is a usage error.
func TestSolveCPUProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	r := qrc(t, "", "solve", "--quiet", "--cpuprofile", prof, "examples/phase.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	raw, err := os.ReadFile(prof)
	require.NoError(t, err)
	require.Greater(t, len(raw), 2)
	assert.Equal(t, []byte{0x1f, 0x8b}, raw[:2], "a pprof profile is gzip data")
	r = qrc(t, "", "solve", "--quiet", "--cpuprofile", filepath.Join(t.TempDir(), "no", "such", "dir", "p"), "examples/phase.qrc")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--cpuprofile")
}

// TestSolvePickRandom: --pick random returns an outer iterate chosen with
// the seed: the same seed gives the same point.
func TestSolvePickRandom(t *testing.T) {
	args := []string{"examples/phase.qrc", "--pick", "random", "--outer", "6", "--seed", "7"}
	a, r := solveOut(t, args...)
	require.Equal(t, 0, r.code, r.stderr)
	b, _ := solveOut(t, args...)
	require.Equal(t, a.Objective, b.Objective)
	require.Equal(t, a.Variables, b.Variables)
	require.LessOrEqual(t, a.Infeasibility, 1e-3)
}

// TestSolveInterrupt: Ctrl-C (SIGINT) stops a long solve, which still
// prints its result, with status interrupted and exit code 130.
func TestSolveInterrupt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on Windows")
	}
	cmd := exec.Command(qrcBin, "solve", "--json", "examples/npc.qrc", "--outer", "100000", "--oracle", "switching")
	cmd.Dir = repoRoot
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	// wait for the first progress row: the solve is under way
	started := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		seen := false
		for sc.Scan() { // read to the end, so the solve never blocks on stderr
			if !seen && strings.HasPrefix(sc.Text(), "iqrc") {
				seen = true
				close(started)
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(hangWait):
		cmd.Process.Kill()
		t.Fatalf("no progress row within %v", hangWait)
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	<-drained // Wait must come after the last read of the pipe
	err = cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 130, exit.ExitCode())
	var s solveJSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &s), out.String())
	require.Equal(t, "interrupted", s.Status)
	require.LessOrEqual(t, s.Infeasibility, 1e-3)
	require.NotEmpty(t, s.Variables)
}

// From an infeasible start (r = 4.4 < 4.5, the loss at W = 0), phase 1
// must not hand phase 2 a point where class 1's sigmoids saturate (loss 9,
// a flat stationary point it used to certify): the solve gets far below
// the start's 4.5. After 200 inner iterations the descent was still under
// way and where it stood depended on the last bits of every evaluation
// (0.0066 before evaluation summed in blocks, 0.33 after); with 300 both
// are below 0.002. The result stays sensitive to rounding: the same sums
// with math.Exp in the sigmoid stop at a saturated 5.47 even after 300.
func TestSolvePhase1DoesNotSaturate(t *testing.T) {
	s, r := solveOut(t, "examples/npc.qrc", "--set", "r=4.4", "--outer", "2", "--inner", "300")
	require.Equal(t, 0, r.code, r.stderr)
	require.True(t, s.Success, s.Status)
	require.Less(t, s.Objective, 0.1)
	require.LessOrEqual(t, s.Infeasibility, 1e-3)
}

// settings.inner is the final Inner, after the doublings; inner_start the
// given one. 20 outer steps double it 6 times (300 took minutes on a busy
// machine: each doubling doubles the work of every later step).
func TestSolveReportsFinalInner(t *testing.T) {
	s, r := jsonOut[struct {
		InnerDoublings int `json:"inner_doublings"`
		Settings       struct {
			Inner      int `json:"inner"`
			InnerStart int `json:"inner_start"`
		} `json:"settings"`
	}](t, false, "solve", "examples/phase.qrc", "--inner", "2", "--outer", "20", "--oracle", "switching")
	require.Equal(t, 0, r.code, r.stderr)
	require.Greater(t, s.InnerDoublings, 0)
	assert.Equal(t, 2, s.Settings.InnerStart)
	assert.Equal(t, 2<<s.InnerDoublings, s.Settings.Inner)
}

// qrc solve says first how long loading the data and compiling took, in
// wall and CPU seconds, unless --quiet (or the model has no data).
func TestSolveLoadingNote(t *testing.T) {
	r := qrc(t, "", "solve", "examples/phase.qrc", "--outer", "1")
	require.Equal(t, 0, r.code, r.stderr)
	first, _, _ := strings.Cut(r.stderr, "\n")
	assert.Regexp(t, `^qrc solve: loading the data and compiling: [0-9.]+ s \(CPU [0-9.]+ s\)$`, first)

	r = qrc(t, "", "solve", "examples/phase.qrc", "--outer", "1", "--quiet")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "loading the data")
}
