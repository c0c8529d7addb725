package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The write path (docs/reliability.md, "Output files"), end to end: every
// file qrc writes follows links, keeps owner, mode and hard links, never
// replaces a file the command reads, writes devices and pipes in place, and
// turns every write error into a message and a nonzero exit.

// obsModel is a small model over obs.csv with a parameter to sweep.
const obsModel = `data d = csv("obs.csv", label = "y")
param s = 1
var w[d.d] in box(-2, 2)
minimize mean(i in d) logistic(-d.y[i] * dot(w, d.X[i]))
subject to
    c: norm1(w) <= s
`

const obsCSV = "a,b,y\n1,2,1\n2,1,-1\n0.5,0.5,1\n"

// run1 runs the binary in dir with stdin, killing it after hangWait.
func run1(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, qrcBin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "qrc %v did not finish", args)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// noTemp fails when dir holds a temporary file of the write path.
func noTemp(t *testing.T, dir string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range es {
		assert.NotContains(t, e.Name(), ".tmp", "a temporary file was left in %s", dir)
	}
}

func TestFmtWriteKeepsLinksOwnerMode(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("owners and links as on Linux")
	}
	dir := writeFiles(t, map[string]string{"m.qrc": "var x in box(-1,1)\nminimize   x^2\n"})
	m := filepath.Join(dir, "m.qrc")
	require.NoError(t, os.Chmod(m, 0o640))
	root := os.Geteuid() == 0
	if root {
		require.NoError(t, os.Chown(m, 4321, 4322))
	}
	require.NoError(t, os.Link(m, filepath.Join(dir, "hard.qrc")))
	require.NoError(t, os.Symlink("m.qrc", filepath.Join(dir, "link.qrc")))
	before, err := os.Stat(m)
	require.NoError(t, err)

	r := run1(t, dir, "", "fmt", "-w", "link.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	want := "var x in box(-1, 1)\nminimize x^2\n"
	for _, name := range []string{"m.qrc", "hard.qrc", "link.qrc"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, want, string(b), name)
	}
	li, err := os.Lstat(filepath.Join(dir, "link.qrc"))
	require.NoError(t, err)
	assert.NotZero(t, li.Mode()&os.ModeSymlink, "the link is still a link")
	after, err := os.Stat(m)
	require.NoError(t, err)
	assert.True(t, os.SameFile(before, after), "hard links kept: the same file")
	assert.Equal(t, os.FileMode(0o640), after.Mode().Perm())
	if root {
		st := after.Sys().(*syscall.Stat_t)
		assert.Equal(t, []uint32{4321, 4322}, []uint32{st.Uid, st.Gid}, "the owner is kept")
	}
	noTemp(t, dir)

	// a file with one link and another owner is replaced, owner kept
	if root {
		o := filepath.Join(dir, "o.qrc")
		require.NoError(t, os.WriteFile(o, []byte("var y in box(0,1)\nminimize y\n"), 0o604))
		require.NoError(t, os.Chown(o, 4321, 4322))
		r := run1(t, dir, "", "fmt", "-w", "o.qrc")
		require.Equal(t, 0, r.code, r.stderr)
		info, err := os.Stat(o)
		require.NoError(t, err)
		st := info.Sys().(*syscall.Stat_t)
		assert.Equal(t, []uint32{4321, 4322}, []uint32{st.Uid, st.Gid})
		assert.Equal(t, os.FileMode(0o604), info.Mode().Perm())
	}
}

func TestOutputsNeverReplaceInputs(t *testing.T) {
	files := map[string]string{"m.qrc": obsModel, "obs.csv": obsCSV, "t.svg": "", "sweep.csv": obsCSV}
	dir := writeFiles(t, files)
	// a trace named like a figure, to plot onto itself
	r := run1(t, dir, "", "solve", "--quiet", "m.qrc", "--outer", "2", "--trace", "tr.csv")
	require.Equal(t, 0, r.code, r.stderr)
	tr, err := os.ReadFile(filepath.Join(dir, "tr.csv"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.svg"), tr, 0o644))
	files["t.svg"] = string(tr)

	sweepModel := strings.Replace(obsModel, "obs.csv", "sweep.csv", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "s.qrc"), []byte(sweepModel), 0o644))
	files["s.qrc"] = sweepModel
	cases := []struct {
		name, stdin string
		args        []string
	}{
		{"cpuprofile over the data", "", []string{"solve", "--quiet", "m.qrc", "--cpuprofile", "obs.csv"}},
		{"cpuprofile over the model", "", []string{"solve", "--quiet", "m.qrc", "--cpuprofile", "m.qrc"}},
		{"sweep table over its data", "", []string{"sweep", "--over", "s=1,2", "--out", ".", "--outer", "2", "s.qrc"}},
		{"compare trace over its data", "", []string{"compare", "--methods", "iqrc", "--time-limit", "0.2", "--out", ".", "--data", "d=iqrc.csv", "m.qrc"}},
		{"plot onto its trace", "", []string{"plot", "t.svg", "-o", "t.svg"}},
		{"repl :save over its data", ":save obs.csv\n", []string{"repl", "m.qrc"}},
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "iqrc.csv"), []byte(obsCSV), 0o644))
	files["iqrc.csv"] = obsCSV
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run1(t, dir, c.stdin, c.args...)
			if c.args[0] != "repl" {
				assert.NotEqual(t, 0, r.code, r.stderr)
			}
			assert.Regexp(t, `refusing to write|would be overwritten|cannot write`, r.stderr)
			for name, content := range files {
				b, err := os.ReadFile(filepath.Join(dir, name))
				require.NoError(t, err)
				assert.Equal(t, content, string(b), "%s changed", name)
			}
			noTemp(t, dir)
		})
	}
}

// --out, --trace and standard output on devices and pipes: written in
// place; a full device is an error and a nonzero exit, never exit 0.
func TestWriteDevices(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/dev/full is Linux's")
	}
	dir := writeFiles(t, map[string]string{"m.qrc": obsModel, "obs.csv": obsCSV})

	r := run1(t, dir, "", "solve", "--quiet", "m.qrc", "--out", "/dev/stdout")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "status ")
	assert.Contains(t, r.stdout, `"status": "converged"`, "the JSON went to the pipe")
	info, err := os.Lstat("/dev/stdout")
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeSymlink, "/dev/stdout is still a link")

	// standard output redirected to a file: the JSON is appended to it
	outFile := filepath.Join(dir, "all.txt")
	f, err := os.Create(outFile)
	require.NoError(t, err)
	cmd := exec.Command(qrcBin, "solve", "--quiet", "m.qrc", "--out", "/dev/stdout")
	cmd.Dir, cmd.Stdout = dir, f
	require.NoError(t, cmd.Run())
	f.Close()
	b, err := os.ReadFile(outFile)
	require.NoError(t, err)
	assert.Contains(t, string(b), "status ")
	assert.Contains(t, string(b), `"status": "converged"`)

	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--out", "/dev/full"}, "writing /dev/full: no space left on device (the result above is complete)"},
		{[]string{"--trace", "/dev/full"}, "no space left on device"},
		{[]string{"--checkpoint", "/dev/full"}, "no space left on device"},
	} {
		r := run1(t, dir, "", append([]string{"solve", "--quiet", "m.qrc"}, c.args...)...)
		assert.Equal(t, 2, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.msg, c.args)
		assert.Contains(t, r.stdout, "status         converged", "%v: the solve is not cut short", c.args)
	}

	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	require.NoError(t, err)
	defer full.Close()
	for _, args := range [][]string{{"solve", "--quiet", "m.qrc"}, {"eval", "m.qrc"}, {"check", "m.qrc"}, {"fmt", "m.qrc"}} {
		cmd := exec.Command(qrcBin, args...)
		var errb bytes.Buffer
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, full, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v exited 0 with its output lost", args)
		assert.Equal(t, 2, ee.ExitCode(), args)
		assert.Contains(t, errb.String(), "writing standard output: write /dev/stdout: no space left on device", args)
	}
}

// A pipe closed by its reader (qrc solve ... 2>&1 | head -3): the solve
// goes on, --out is written whole, no temporary file stays, exit nonzero.
func TestClosedPipe(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGPIPE on Windows")
	}
	dir := writeFiles(t, map[string]string{"m.qrc": obsModel, "obs.csv": obsCSV})
	cmd := exec.Command(qrcBin, "solve", "m.qrc", "--out", "r.json", "--trace", "t.csv")
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
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "exit 0 with the output lost")
	assert.Equal(t, 2, ee.ExitCode(), "an exit code, not death by SIGPIPE")
	var s solveJSON
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	assert.Equal(t, "converged", s.Status)
	_, err = os.Stat(filepath.Join(dir, "t.csv"))
	assert.NoError(t, err)
	noTemp(t, dir)
}

// GNU timeout sends its signal to the process and to its group: one stop,
// not two; the result is printed and --out written every time.
func TestSignalToProcessAndGroup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process groups on Windows")
	}
	for i := range 4 {
		dir := t.TempDir()
		out := filepath.Join(dir, "r.json")
		cmd := exec.Command(qrcBin, "solve", "examples/npc.qrc", "--outer", "100000", "--oracle", "switching", "--out", out)
		cmd.Dir = repoRoot
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		stderr, err := cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		sc := bufio.NewScanner(stderr)
		var errb strings.Builder
		for sc.Scan() {
			errb.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "iqrc") {
				break
			}
		}
		pid := cmd.Process.Pid
		require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
		require.NoError(t, syscall.Kill(-pid, syscall.SIGTERM))
		rest, _ := io.ReadAll(stderr)
		errb.Write(rest)
		err = cmd.Wait()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		require.Equal(t, 130, ee.ExitCode(), "run %d: %s", i, errb.String())
		assert.NotContains(t, errb.String(), "exiting at once", "run %d", i)
		assert.Contains(t, stdout.String(), "status         interrupted", "run %d", i)
		b, err := os.ReadFile(out)
		require.NoError(t, err, "run %d: --out lost", i)
		assert.Contains(t, string(b), `"status": "interrupted"`)
	}
}

// A sweep stopped by SIGTERM keeps every finished value in sweep.csv. Each
// value has 3 s, so that the signal, sent when r = 5 starts, arrives
// before its limit even on a busy machine (with 0.5 s it could come after).
func TestSweepKeepsFinishedValues(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	dir := t.TempDir()
	cmd := exec.Command(qrcBin, "sweep", "--over", "r=4.5,5,6", "--out", dir, "--time-limit", "3", "--outer", "100000", "--oracle", "switching", "examples/npc.qrc")
	cmd.Dir = repoRoot
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stderr)
	var errb strings.Builder
	for sc.Scan() {
		errb.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "r = 5 ...") {
			break
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	rest, _ := io.ReadAll(stderr)
	errb.Write(rest)
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, errb.String())
	assert.Equal(t, 130, ee.ExitCode(), errb.String())
	b, err := os.ReadFile(filepath.Join(dir, "sweep.csv"))
	require.NoError(t, err, errb.String())
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 3, "the header, r = 4.5 and the interrupted r = 5: %s", b)
	assert.True(t, strings.HasPrefix(lines[1], "4.5,time_limit,"), lines[1])
	assert.True(t, strings.HasPrefix(lines[2], "5,interrupted,"), lines[2])
	noTemp(t, dir)
}
