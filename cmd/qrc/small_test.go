package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionAndItsHelp(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := qrc(t, "", args...)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Regexp(t, `^qrc \S+ \(go1\.[0-9.]+[^)]*\)\n$`, r.stdout)
	}
	r := qrc(t, "", "help", "version")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Usage: qrc version\n")
	assert.Contains(t, r.stdout, "the Go version it was built with")
	r = qrc(t, "", "version", "extra")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "qrc version: takes no arguments; \"qrc help version\" says what it prints\n", r.stderr)
}

// A bad flag or flag value is one line that names the help, not the usage.
func TestBadFlagIsOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"solve", "--outer", "x", "examples/phase.qrc"}, `qrc solve: invalid value "x" for flag -outer: parse error; "qrc help solve" lists the flags` + "\n"},
		{[]string{"check", "--bogus", "examples/phase.qrc"}, `qrc check: flag provided but not defined: -bogus; "qrc help check" lists the flags` + "\n"},
		{[]string{"eval"}, `qrc eval: want one model file, got 0; "qrc help eval" shows the usage` + "\n"},
		{[]string{"fmt", "-d", "-w", "examples/phase.qrc"}, "qrc fmt: -d goes with neither -w nor -l\n"},
	} {
		r := qrc(t, "", tc.args...)
		assert.Equal(t, 2, r.code, "%v", tc.args)
		assert.Equal(t, tc.want, r.stderr, "%v", tc.args)
		assert.Empty(t, r.stdout)
	}
	// -h still prints the full usage
	r := qrc(t, "", "solve", "-h")
	assert.Contains(t, r.stderr, "Usage: qrc solve [flags] MODEL.qrc")
	assert.Contains(t, r.stderr, "--restarts N")
}

// qrc fmt -d prints a unified diff against the formatted text, and
// nothing (exit 0) for a formatted file.
func TestFmtDiff(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.qrc")
	require.NoError(t, os.WriteFile(path, []byte("param  a=1\nvar x in box(-1,1)\nminimize (x-a)^2\n"), 0o644))
	r := qrc(t, "", "fmt", "-d", path)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, "--- "+path+" (original)\n+++ "+path+" (formatted)\n@@ -1,3 +1,3 @@\n"+
		"-param  a=1\n-var x in box(-1,1)\n-minimize (x-a)^2\n"+
		"+param a = 1\n+var x in box(-1, 1)\n+minimize (x - a)^2\n", r.stdout)
	before, _ := os.ReadFile(path)
	assert.Equal(t, "param  a=1\nvar x in box(-1,1)\nminimize (x-a)^2\n", string(before), "-d does not write")

	r = qrc(t, "", "fmt", "-w", path)
	require.Equal(t, 0, r.code, r.stderr)
	r = qrc(t, "", "fmt", "-d", path)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
}

// A model without data: the oracle note says there is nothing to sample
// rather than "0 rows, fewer than 50000"; a matrix of up to 10x10 is
// printed in full, one row a line.
func TestNoDataNoteAndMatrixReport(t *testing.T) {
	model := writeModel(t, "m.qrc", "param C = [[1, -2.5, 0], [0.0625, 3, 1]]\nvar W[2, 3] in box(-5, 5)\nminimize norm2(W - C)^2\n")
	r := qrc(t, "", "solve", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "; the model has no means over data rows to sample)\n")
	assert.NotContains(t, r.stderr, "0 rows")
	// the solution is C; each printed value is within 1e-3 of it
	m := regexp.MustCompile(`(?m)^W = \[\[(.*)\],\n     \[(.*)\]\]$`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	want := [][]float64{{1, -2.5, 0}, {0.0625, 3, 1}}
	for i, row := range m[1:] {
		cells := strings.Split(row, ",")
		require.Len(t, cells, 3)
		for j, c := range cells {
			assert.InDelta(t, want[i][j], parseFloat(t, strings.TrimSpace(c)), 1e-3, "W[%d, %d]", i+1, j+1)
		}
	}
	// 11 columns: summarised
	big := writeModel(t, "big.qrc", "var W[2, 11] in box(-1, 1)\nminimize norm2(W)^2\n")
	r = qrc(t, "", "solve", "--quiet", big)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "W: 2×11 matrix, min")
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err, s)
	return v
}
