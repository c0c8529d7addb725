package main_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/qrc-lang/qrc/internal/longtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusDir holds the bad-input corpus (testdata/corpus/cases.txt says
// what each case must do).
const corpusDir = "../../testdata/corpus"

// Limits on a child run of the corpus: a virtual memory limit well under
// what the inputs used to take (4-5 GB), and CPU seconds (not wall-clock
// time) that a hang or a runaway computation would exceed. The memory limit
// was 1.5 GB until qrc linked the C library (see limitedRun), whose thread
// stacks and malloc arenas reserve address space that qrc does not use:
// inline_doubling, which peaks at 160 MB resident, then failed at 1.5 GB.
const (
	childMemKB  = 2_000_000
	childCPUSec = 60
)

// generated writes the corpus inputs too large to keep in the repository.
func generated(t *testing.T, dir string) {
	t.Helper()
	write := func(name, s string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644))
	}
	const head = "var x in box(-1, 1)\n"
	write("gen_deep_paren.qrc", head+"minimize\n"+strings.Repeat("(\n", 1_000_000)+"x"+strings.Repeat(")\n", 1_000_000)+"\n")
	write("gen_deep_neg.qrc", head+"minimize\n"+strings.Repeat("-\n", 1_000_000)+"x\n")
	write("gen_deep_pow.qrc", head+"minimize\n"+strings.Repeat("x^\n", 1_000_000)+"x\n")
	write("gen_deep_sum.qrc", head+"minimize\n"+strings.Repeat("sum(i in 1..1)\n", 1_000)+"x\n")
	write("gen_deep_sum_10k.qrc", head+"minimize\n"+strings.Repeat("sum(i in 1..1)\n", 10_000)+"x\n")
	write("gen_long_line.qrc", head+"minimize "+strings.Repeat("+x", 1_500_000)[1:]+"\n")
	write("gen_big_model.qrc", head+"minimize\n"+strings.Repeat("x +\n", 1_500_000)+"x\n")
	write("gen_many_terms.qrc", head+"minimize\n"+strings.Repeat("x +\n", 1_000_000)+"x\n")
	write("gen_param_vector.qrc", head+"param w = [\n"+strings.Repeat("1,\n", 1_000_000)+"1]\nminimize x * sum(w)\n")
	if runtime.GOOS == "linux" {
		require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "gen_fifo.qrc"), 0o644))
	}
}

type corpusCase struct {
	name, stderr, stdout string
	args                 []string
	code                 int
}

func readCases(t *testing.T) []corpusCase {
	f, err := os.Open(filepath.Join(corpusDir, "cases.txt"))
	require.NoError(t, err)
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		require.GreaterOrEqual(t, len(parts), 3, "cases.txt:%d: want name | args | code | stderr [| stdout]", n)
		c := corpusCase{name: parts[0], args: strings.Fields(parts[1])}
		_, err := fmt.Sscan(parts[2], &c.code)
		require.NoError(t, err, "cases.txt:%d: exit code", n)
		if len(parts) > 3 {
			c.stderr = parts[3]
		}
		if len(parts) > 4 {
			c.stdout = parts[4]
		}
		cases = append(cases, c)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, cases)
	return cases
}

// limitedRun runs qrc in dir with args under the child's memory and CPU
// limits (set by the shell with ulimit before it execs qrc).
func limitedRun(t *testing.T, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard only
	defer cancel()
	// MALLOC_ARENA_MAX: the binary links the C library (cgo) when cgo is
	// enabled, because the Parquet decoder's Thrift and UUID dependencies
	// import package net, and glibc reserves 64 MB of address space per
	// malloc arena, one per thread up to 8 per core. Those reservations,
	// not memory qrc uses, made the runtime fail under ulimit -v now and
	// then; two arenas keep the limit about qrc's own memory.
	script := fmt.Sprintf(`ulimit -v %d; ulimit -t %d; MALLOC_ARENA_MAX=2 exec "$0" "$@"`, childMemKB, childCPUSec)
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", script, qrcBin}, args...)...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("qrc %s was killed by %v (memory or CPU limit, or a hang)\nstderr: %s", strings.Join(args, " "), ws.Signal(), tail(errb.String()))
		}
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// tail is the end of a long output, for failure messages.
func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// snapshot maps the regular files of dir to their contents.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			files[e.Name()] = b
		}
	}
	return files
}

// crashMarks are what a Go panic, fatal error or runtime stack trace prints.
var crashMarks = []string{"panic:", "goroutine ", "fatal error:", "runtime.", "internal error", "[signal "}

// TestCorpus runs every case of testdata/corpus/cases.txt through the
// binary: the expected exit code and message, no stack trace, bounded
// memory and CPU time, and no file of the user's changed.
func TestCorpus(t *testing.T) {
	longtest.Require(t, "the bad-input corpus: every case under ulimit, minutes on a busy machine")
	if runtime.GOOS != "linux" {
		t.Skip("the corpus runs its children under ulimit, on Linux")
	}
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(corpusDir)))
	generated(t, dir)
	before := snapshot(t, dir)
	for _, c := range readCases(t) {
		t.Run(c.name, func(t *testing.T) {
			r := limitedRun(t, dir, c.args...)
			assert.Equal(t, c.code, r.code, "exit code\nstderr: %s\nstdout: %s", tail(r.stderr), tail(r.stdout))
			assert.True(t, strings.Contains(r.stderr, c.stderr), "stderr does not contain %q:\n%s", c.stderr, tail(r.stderr))
			assert.True(t, strings.Contains(r.stdout, c.stdout), "stdout does not contain %q:\n%s", c.stdout, tail(r.stdout))
			for _, m := range crashMarks {
				assert.False(t, strings.Contains(r.stderr, m), "stderr shows a crash (%q):\n%s", m, tail(r.stderr))
			}
			assert.LessOrEqual(t, strings.Count(r.stderr, ": 1 error"), 1)
			after := snapshot(t, dir)
			for name, b := range before {
				assert.True(t, bytes.Equal(b, after[name]), "%s changed", name)
			}
			for name := range after {
				assert.False(t, strings.Contains(name, ".tmp"), "temporary file %s left behind", name)
			}
		})
	}
}
