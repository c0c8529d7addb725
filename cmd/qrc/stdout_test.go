package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 42's findings, each through the
// binary.

// --cpuprofile naming the --out file (or --trace, --checkpoint, --start)
// is refused before anything runs: the profile, written last, replaced
// the JSON result without a word.
func TestProfileNamesAnOutput(t *testing.T) {
	dir := writeFiles(t, map[string]string{"m.qrc": obsModel, "obs.csv": obsCSV})
	for _, flag := range []string{"--out", "--trace", "--checkpoint"} {
		r := run1(t, dir, "", "solve", "--quiet", "m.qrc", flag, "f", "--cpuprofile", "./f")
		assert.Equal(t, 2, r.code, r.stderr)
		assert.Contains(t, r.stderr, "qrc solve: --cpuprofile and "+flag+" name the same file ./f; one would replace the other")
		_, err := os.Stat(filepath.Join(dir, "f"))
		assert.ErrorIs(t, err, os.ErrNotExist, flag)
	}
	r := run1(t, dir, "", "solve", "--quiet", "m.qrc", "--out", "r.json", "--cpuprofile", "cpu.prof")
	require.Equal(t, 0, r.code, r.stderr)
	var s solveJSON
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s), "r.json is the result")
	assert.Equal(t, "converged", s.Status)
}

// sqrtEdge is a model whose solve ends in numerical_error: its minimum is
// at the kink of sqrt at x = 1, which the steps cross.
const sqrtEdge = "var x in box(-3, 3) = 0\nminimize -x + sqrt(1 - x)\n"

// A failed write of the result to standard output is exit 2 (an output
// that could not be written), whatever the solve's status: with --json it
// was exit 4, numerical_error's code, as if the result had been given.
func TestStdoutErrorIsExit2(t *testing.T) {
	dir := writeFiles(t, map[string]string{"ne.qrc": sqrtEdge})
	r := run1(t, dir, "", "solve", "--quiet", "--json", "ne.qrc")
	require.Equal(t, 4, r.code, r.stderr)
	require.Contains(t, r.stdout, `"status": "numerical_error"`)
	for _, args := range [][]string{{"--json"}, {}} {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skip("no /dev/full")
		}
		cmd := exec.Command(qrcBin, append([]string{"solve", "--quiet", "ne.qrc"}, args...)...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &stderr
		err = cmd.Run()
		full.Close()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v: exit 0 with the result lost", args)
		assert.Equal(t, 2, ee.ExitCode(), "%v: %s", args, stderr.String())
		assert.Contains(t, stderr.String(), "no space left on device", args)
	}
}
