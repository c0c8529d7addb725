package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// phase1Model starts far from feasibility, and with --inner 10^8 and the
// switching oracle its first phase-1 step takes far longer than the tests
// wait: a stop lands in phase 1.
const phase1Model = `var x[2000] in box(-10, 10) = 5
minimize sum(j in 1..2000) x[j]
subject to
    c: norm1(x) <= 1
`

var phase1Flags = []string{"--oracle", "switching", "--inner", "100000000"}

// A stop signal or a time limit during phase 1 reports interrupted (130) or
// time_limit (3: no feasible point), not infeasible, with the most
// feasible point so far.
func TestStopInPhase1(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	dir := writeFiles(t, map[string]string{"p1.qrc": phase1Model})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(qrcBin, append([]string{"solve", "p1.qrc", "--quiet", "--out", "r.json"}, phase1Flags...)...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		require.NoError(t, cmd.Start())
		time.Sleep(time.Second) // into phase 1's first step (no row to wait for)
		require.NoError(t, cmd.Process.Signal(sig))
		err := cmd.Wait()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, errb.String())
		assert.Equal(t, 130, ee.ExitCode(), "%v: %s", sig, errb.String())
		assert.Contains(t, out.String(), "status         interrupted")
		assert.Contains(t, out.String(), "violated       c")
		var s solveJSON
		b, err := os.ReadFile(filepath.Join(dir, "r.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &s))
		assert.Equal(t, "interrupted", s.Status)
	}

	r := run1(t, dir, "", append([]string{"solve", "p1.qrc", "--quiet", "--json", "--time-limit", "0.5"}, phase1Flags...)...)
	assert.Equal(t, 3, r.code, r.stderr)
	var s struct {
		Status   string   `json:"status"`
		Success  bool     `json:"success"`
		Violated []string `json:"violated"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s), r.stdout)
	assert.Equal(t, "time_limit", s.Status)
	assert.False(t, s.Success)
	assert.Equal(t, []string{"c"}, s.Violated)
}

// The same duration syntax in solve, sweep and compare, and values below
// the clock's resolution refused rather than taken as "no limit".
func TestTimeLimitSyntax(t *testing.T) {
	dir := writeFiles(t, map[string]string{"m.qrc": obsModel, "obs.csv": obsCSV})
	for _, args := range [][]string{
		{"solve", "m.qrc"},
		{"sweep", "--over", "s=1", "--out", "sw", "m.qrc"},
		{"compare", "--methods", "iqrc", "--out", "cmp", "m.qrc"},
	} {
		for _, v := range []string{"1e-10", "0.1ns"} {
			r := run1(t, dir, "", append(args, "--time-limit", v)...)
			assert.Equal(t, 2, r.code, "%v %s", args, v)
			assert.Contains(t, r.stderr, `"`+v+`" is below the clock's resolution of 1ns (0 means no limit)`, args)
		}
	}
	r := run1(t, dir, "", "compare", "--methods", "iqrc", "--out", "cmp", "--time-limit", "0.2", "m.qrc")
	assert.Equal(t, 0, r.code, "compare takes a number of seconds: %s", r.stderr)
	r = run1(t, dir, "", "sweep", "--over", "s=1", "--out", "sw", "--time-limit", "2", "m.qrc")
	assert.Equal(t, 0, r.code, r.stderr)
}

// Point files: a variable named twice is refused (the last used to win
// silently), a byte order mark is skipped, 1e400 is out of range.
func TestPointFileProblems(t *testing.T) {
	dir := writeFiles(t, map[string]string{"m.qrc": obsModel, "obs.csv": obsCSV,
		"twice.json": `{"variables": {"w": [0, 0], "w": [1, 1]}}`,
		"bom.json":   "\ufeff{\"variables\": {\"w\": [0.1, 0.2]}}",
		"huge.json":  `{"variables": {"w": [1e400, 0]}}`,
	})
	r := run1(t, dir, "", "eval", "m.qrc", "--at", "twice.json")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, `twice.json: variable "w" is given more than once`)
	r = run1(t, dir, "", "eval", "m.qrc", "--at", "bom.json")
	assert.Equal(t, 0, r.code, r.stderr)
	r = run1(t, dir, "", "solve", "--quiet", "m.qrc", "--start", "huge.json")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, `huge.json: variable "w": 1e400 is out of range (the largest magnitude is about 1.8e308)`)
	assert.NotContains(t, r.stderr, "cannot unmarshal")
}
