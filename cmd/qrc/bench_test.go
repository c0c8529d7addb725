package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchRun runs qrc bench with GOMAXPROCS set in its environment.
func benchRun(t *testing.T, procs string, args ...string) result {
	t.Helper()
	cmd := exec.Command(qrcBin, append([]string{"bench"}, args...)...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// TestBenchJSON times examples/npc.qrc through the binary and checks the
// JSON keys, the evaluations and threads asked for, and the operation
// count behind GFLOP/s, derived by hand for the shipped 3000 rows: each
// class's mean over its m_k rows costs, forward, a dot over 9 other
// classes and 16 features (2*9*16 m_k), phi (the sigmoid of the negated
// score, one pass) and a sum over l (9 m_k each) and the mean (m_k), plus
// W[k] - W[l] (144); the reverse pass of its function the same again (the
// dot into the differences only, X being data) plus 2*144 for the
// subtraction; each of the nine constraints subtracts r forward and
// backward. Total 614*3000 + 10*(144+288) + 2*9.
func TestBenchJSON(t *testing.T) {
	for _, procs := range []string{"1", "2"} {
		// 50 evaluations: a real allocation in the evaluation shows as at
		// least 1 per evaluation, while the few the runtime makes now and
		// then on a loaded machine (channel waits) stay below it
		r := benchRun(t, procs, "--json", "--evals", "50", "examples/npc.qrc")
		require.Equal(t, 0, r.code, r.stderr)
		var raw map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &raw))
		keys := []string{}
		for k := range raw {
			keys = append(keys, k)
		}
		assert.ElementsMatch(t, []string{"seconds_per_eval", "allocs_per_eval", "gflops", "evals", "threads"}, keys)
		var b struct {
			Seconds float64 `json:"seconds_per_eval"`
			Allocs  float64 `json:"allocs_per_eval"`
			GFlops  float64 `json:"gflops"`
			Evals   int     `json:"evals"`
			Threads int     `json:"threads"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &b))
		assert.Equal(t, 50, b.Evals)
		assert.Equal(t, procs, itoa(b.Threads))
		assert.Greater(t, b.Seconds, 0.0)
		assert.Less(t, b.Allocs, 1.0, "allocations per evaluation")
		assert.InEpsilon(t, 614*3000+10*(144+288)+2*9, b.GFlops*1e9*b.Seconds, 1e-9)
	}
}

func TestBenchTextAndErrors(t *testing.T) {
	r := benchRun(t, "2", "--evals", "3", "examples/fairness.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "seconds per evaluation")
	assert.Contains(t, r.stdout, "(median of 3)")
	assert.Contains(t, r.stdout, "threads                 2")
	r = benchRun(t, "2", "--evals", "0", "examples/npc.qrc")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--evals must be between 1 and 10000000 (limits.MaxBenchEvals), got 0")
	r = benchRun(t, "2")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "want one model file")
	r = benchRun(t, "2", "examples/npc.qrc", "--data", "train=nonexistent.svm")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "nonexistent.svm")
}
