package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qrc-lang/qrc/internal/pqtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 42's findings, each through the
// binary.

// Messages: an empty model name says so (it was "-: cannot read model");
// compare's --time-limit beyond what 10 × the limit can hold runs (its
// wall-clock backstop overflowed into a negative time limit, which the
// solve refused with "negative ... TimeLimit").
func TestMessagesIssue42(t *testing.T) {
	for _, cmd := range []string{"check", "solve", "eval"} {
		r := qrc(t, "", cmd, "")
		assert.Equal(t, 2, r.code, r.stderr)
		assert.Equal(t, "qrc "+cmd+": argument 1 is empty; it must name a file\n", r.stderr)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, qrcBin, "compare", "--methods", "penalty", "--time-limit", "1e9", "--out", dir, "examples/phase.qrc")
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.NotContains(t, string(out), "negative")
	assert.Contains(t, string(out), "running penalty for 277777h46m40s of process CPU time")
	assert.True(t, strings.Contains(string(out), "\npenalty "), "the summary's row: %s", out)
}

// A Parquet (or CSV) text column with more distinct values than a text
// column may hold (65 536), which the model compares in a where filter,
// is refused by the loader saying so; it was left out and the model failed
// with "data set "P" has no field or column "id"".
func TestTooManyTextValues(t *testing.T) {
	const n = 70000
	ids, vals := make([]string, n), make([]string, n)
	var csv strings.Builder
	csv.WriteString("id,a\n")
	for i := range n {
		ids[i], vals[i] = fmt.Sprintf("user%06d", i), strconv.Itoa(i%7)
		fmt.Fprintf(&csv, "%s,%s\n", ids[i], vals[i])
	}
	dir := t.TempDir()
	pqtest.Write(t, filepath.Join(dir, "p.parquet"), []pqtest.Col{{Name: "id", Type: "string", Cells: ids}, {Name: "a", Type: "double", Cells: vals}}, 16384)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.csv"), []byte(csv.String()), 0o644))
	for _, loader := range []string{`parquet("p.parquet", drop = ["id"])`, `csv("p.csv", drop = ["id"])`} {
		model := "data P = " + loader + "\nvar w in box(-10, 10)\nminimize mean(i in P where P.id[i] == \"user000001\") (w - P.a[i])^2\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "m.qrc"), []byte(model), 0o644))
		r := run1(t, dir, "", "check", "m.qrc")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, `text column "id" has more than 65536 distinct values, the most a text column may hold to be compared in a where filter`, loader)
		assert.NotContains(t, r.stderr, "no field or column", loader)
	}
}
