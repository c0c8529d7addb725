package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replScript runs qrc repl --echo with the script testdata/repl/NAME.txt on
// standard input ($TMP in it is a temporary directory) and returns the
// transcript (standard output and error as they interleave, $TMP masked)
// and the exit code.
func replScript(t *testing.T, name, tmp string, args ...string) (string, int) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("testdata", "repl", name+".txt"))
	require.NoError(t, err)
	cmd := exec.Command(qrcBin, append([]string{"repl", "--echo"}, args...)...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+tmp, "HOME="+tmp)
	cmd.Stdin = strings.NewReader(strings.ReplaceAll(string(script), "$TMP", tmp))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return strings.ReplaceAll(out.String(), tmp, "$TMP"), code
}

// TestReplTranscripts runs scripted sessions and compares their
// transcripts with testdata/repl/*.golden (go test ./cmd/qrc -run Repl
// -update rewrites them).
func TestReplTranscripts(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"scratch", nil, 0},
		{"errors", nil, 1}, // a script with errors runs to its end and exits 1
		{"phase", []string{"examples/phase.qrc"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			out, code := replScript(t, tc.name, tmp, tc.args...)
			assert.Equal(t, tc.code, code, out)
			for _, line := range strings.Split(out, "\n") {
				assert.False(t, strings.HasPrefix(line, "time "), "a script's transcript has no timings: %q", line)
				assert.NotContains(t, line, "qrc> qrc>", "one prompt per line")
			}
			golden(t, "repl/"+tc.name, out)
		})
	}
}

// TestReplSaveSolves: the model a session saves is one qrc solve accepts,
// and solving it gives the same answer as the session's cold solve of it.
func TestReplSaveSolves(t *testing.T) {
	tmp := t.TempDir()
	out, code := replScript(t, "scratch", tmp)
	require.Equal(t, 0, code, out)
	const last = "qrc> :solve --cold\n"
	i := strings.LastIndex(out, last)
	require.GreaterOrEqual(t, i, 0, out)
	session := out[i+len(last):]

	r := qrc(t, "", "solve", "--quiet", filepath.Join(tmp, "saved.qrc"))
	require.Equal(t, 0, r.code, r.stderr)
	var lines []string
	for _, l := range strings.SplitAfter(r.stdout, "\n") {
		if !strings.HasPrefix(l, "time ") {
			lines = append(lines, l)
		}
	}
	assert.Equal(t, session, strings.Join(lines, ""))
	assert.Contains(t, session, "status         converged")
}

// TestReplUsage: the command line of qrc repl.
func TestReplUsage(t *testing.T) {
	r := qrc(t, "", "help", "repl")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "Usage: qrc repl [flags] [MODEL.qrc]")
	r = qrc(t, "", "help")
	assert.Contains(t, r.stdout, "repl ")
	r = qrc(t, "", "repl", "a.qrc", "b.qrc")
	assert.Equal(t, 2, r.code)
	r = qrc(t, "", "repl", "no/such/model.qrc")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "no/such/model.qrc: cannot read model")
	// --data and --set apply to the model file
	r = qrc(t, ":show meas\n:show s\n", "repl", "examples/phase.qrc", "--data", "meas=examples/data/phase.csv", "--set", "s=3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "data set meas: csv examples/data/phase.csv, 200 rows, 8 features")
	assert.Contains(t, r.stdout, "parameter s = 3")
	r = qrc(t, "", "repl", "examples/phase.qrc", "--set", "nope=3")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "let changes a parameter; nope is not declared")
}
