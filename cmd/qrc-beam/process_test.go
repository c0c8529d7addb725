//go:build !race

package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longSolve is a qrc-beam solve that runs for many full passes: --eps far
// below what its rounds reach.
var longSolve = []string{"solve", "npc.qrc", "--eps", "1e-12"}

// exitCode is the exit status of a finished command (-1 when a signal
// killed it).
func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	return ee.ExitCode()
}

// SIGTERM, SIGHUP and SIGINT during a solve stop it as they stop qrc
// solve: exit 130, the result printed, --out a JSON result with status
// interrupted (issue 42: SIGTERM and SIGHUP killed qrc-beam, exit 143 and
// 129, with no result and no --out).
func TestBeamStopSignals(t *testing.T) {
	dir := shards(t, "20000")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			cmd := exec.Command(bin["qrc-beam"], append(longSolve, "--out", out)...)
			cmd.Dir = dir
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			pipe, err := cmd.StderrPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			var errText strings.Builder
			sc := bufio.NewScanner(pipe)
			sent := false
			for sc.Scan() {
				errText.WriteString(sc.Text() + "\n")
				if !sent && strings.Contains(sc.Text(), "engine: full pass 1 over") {
					require.NoError(t, cmd.Process.Signal(sig))
					sent = true
				}
			}
			code := exitCode(t, cmd.Wait())
			require.True(t, sent, errText.String())
			assert.Equal(t, 130, code, errText.String())
			assert.Contains(t, stdout.String(), "status         interrupted")
			b, err := os.ReadFile(out)
			require.NoError(t, err, errText.String())
			var r struct {
				Status    string
				Variables map[string]any
			}
			require.NoError(t, json.Unmarshal(b, &r), string(b))
			assert.Equal(t, "interrupted", r.Status)
			assert.Contains(t, r.Variables, "W")
		})
	}
}

// Standard output and error on a pipe whose reader goes after one line:
// exit 2 (not death by SIGPIPE, 141), --out written whole (issue 42).
func TestBeamClosedPipe(t *testing.T) {
	dir := shards(t, "2000")
	cmd := exec.Command(bin["qrc-beam"], "solve", "npc.qrc", "--out", "r.json")
	cmd.Dir = dir
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(t, cmd.Start())
	pw.Close()
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	assert.NotEmpty(t, line)
	pr.Close() // head -1
	assert.Equal(t, 2, exitCode(t, cmd.Wait()), "an exit code, not death by SIGPIPE")
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	var r struct{ Status string }
	require.NoError(t, json.Unmarshal(b, &r), string(b))
	assert.Equal(t, "converged", r.Status)
}

// A full standard output is exit 2 with a message, not exit 0 with the
// result lost (issue 42), with --json as without.
func TestBeamFullStdout(t *testing.T) {
	dir := shards(t, "2000")
	for _, json := range []bool{false, true} {
		args := []string{"solve", "npc.qrc", "--quiet"}
		if json {
			args = append(args, "--json")
		}
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skip("no /dev/full")
		}
		cmd := exec.Command(bin["qrc-beam"], args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &stderr
		code := exitCode(t, cmd.Run())
		full.Close()
		assert.Equal(t, 2, code, "--json %v: %s", json, stderr.String())
		assert.Contains(t, stderr.String(), "no space left on device", "--json %v", json)
	}
}

// The command line as qrc solve takes it: an unknown --runner is a
// message and exit 2 (it was exit 1 with no word), "--" ends the flags so
// that a model named -m.qrc can be solved (it was a usage error), and
// --cpuprofile, a flag of qrc solve, writes a profile (it was refused);
// --cpuprofile naming the --out file is refused before anything runs.
func TestBeamCommandLine(t *testing.T) {
	dir := shards(t, "400")
	_, stderr, code := run(t, dir, "qrc-beam", "solve", "npc.qrc", "--runner", "nosuch")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, `qrc-beam solve: --runner must be prism, direct, dataflow, flink, spark or universal, not "nosuch"`)

	src, err := os.ReadFile(filepath.Join(dir, "npc.qrc"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "-m.qrc"), src, 0o644))
	stdout, stderr, code := run(t, dir, "qrc-beam", "solve", "--quiet", "--json", "--cpuprofile", "cpu.prof", "--", "-m.qrc")
	require.Equal(t, 0, code, stderr)
	var r struct{ Status, File string }
	require.NoError(t, json.Unmarshal([]byte(stdout), &r), stdout)
	assert.Equal(t, "converged", r.Status)
	assert.Equal(t, "-m.qrc", r.File)
	f, err := os.Open(filepath.Join(dir, "cpu.prof"))
	require.NoError(t, err, "--cpuprofile wrote its file")
	magic := make([]byte, 2)
	_, err = io.ReadFull(f, magic)
	f.Close()
	require.NoError(t, err)
	assert.Equal(t, []byte{0x1f, 0x8b}, magic, "a gzipped pprof profile")

	_, stderr, code = run(t, dir, "qrc-beam", "solve", "npc.qrc", "--out", "same", "--cpuprofile", "same")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "--cpuprofile and --out name the same file same; one would replace the other")
	_, err = os.Stat(filepath.Join(dir, "same"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	_, stderr, code = run(t, dir, "qrc-beam", "solve", "npc.qrc", "--finish", "rows")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, `--finish must be rounds`)
}
