package main_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Models of a few bytes that used to end in the Go runtime's fatal "out of
// memory" (no recovery can catch it), each run under a 3 GiB address-space
// limit: a comprehension whose body does not use its index is folded, a
// filter comparing the index with constants narrows the range, and what is
// left beyond the limits table is refused with its position.
func TestSizesUnderAddressLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ulimit -v as on Linux")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := writeFiles(t, map[string]string{
		"sum.qrc":   "var x[3] in box(-1, 1) = 0.5\nminimize sum(j in 1..1e8) x[1]\n",
		"where.qrc": "var x[3] in box(-1, 1) = 0.5\nminimize sum(j in 1..1e8 where j == 1) x[1] + sum(j in 1..1e8 where j > 2 and j <= 5) x[2]\n",
		"max.qrc":   "var x[3] in box(-1, 1) = 0.5\nminimize max(j in 1..1e8) x[1] + mean(k in 1..1e8) x[2]\n",
		"uses.qrc":  "var x[3] in box(-1, 1)\nminimize sum(j in 1..1e8) x[1] * j\n",
		"big.qrc":   "var x[60000000] in box(-1, 1)\nminimize x[1]\n",
		"tiny.svm":  "1 1:1 150000000:1\n-1 2:1\n",
		"dense.qrc": "data D = libsvm(\"tiny.svm\")\nvar t in box(-1, 1)\nminimize t * mean(i in D) D.X[i, 1]\n",
		"small.qrc": "var x in box(-1, 1)\nminimize x^2\n",
	})
	limited := func(args ...string) result {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", append([]string{"-c", `ulimit -v 3145728 && exec "$@"`, "bash", qrcBin}, args...)...)
		cmd.Dir = dir
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		require.NoError(t, ctx.Err(), "%v did not finish", args)
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		assert.NotContains(t, errb.String(), "fatal error", args)
		assert.NotContains(t, errb.String(), "goroutine ", args)
		return result{out.String(), errb.String(), code}
	}
	// folded: the values are the closed forms at x = 0.5
	for _, c := range []struct {
		file      string
		objective float64
	}{{"sum.qrc", 0.5e8}, {"where.qrc", 0.5 + 3*0.5}, {"max.qrc", 0.5 + 0.5}} {
		r := limited("eval", "--json", c.file)
		require.Equal(t, 0, r.code, "%s: %s", c.file, r.stderr)
		var ev struct {
			Objective struct{ Value float64 } `json:"objective"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &ev), r.stdout)
		assert.InDelta(t, c.objective, ev.Objective.Value, 1e-9*c.objective, c.file)
		r = limited("solve", "--quiet", "--outer", "2", c.file)
		assert.Contains(t, []int{0, 3}, r.code, "%s: %s", c.file, r.stderr)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"eval", "uses.qrc"}, "uses.qrc:2:14: the range of j has 1e+08 values, more than the 33554432 qrc expands (limits.MaxRangeValues)"},
		{[]string{"check", "big.qrc"}, `big.qrc:1:5: variable "x" brings the model's decision variables to 60000000 scalars, more than the 4194304 qrc takes (limits.MaxVarScalars)`},
		{[]string{"check", "dense.qrc"}, "more than the 1.00 GiB a data set may take (half of what the address-space limit of 3.00 GiB (ulimit -v) leaves"},
		{[]string{"bench", "--evals", "2000000000", "small.qrc"}, "--evals must be between 1 and 10000000 (limits.MaxBenchEvals)"},
		{[]string{"bench", "--evals", "9223372036854775807", "small.qrc"}, "--evals must be between 1 and 10000000"},
	} {
		r := limited(c.args...)
		assert.NotEqual(t, 0, r.code, c.args)
		assert.Contains(t, r.stderr, c.msg, c.args)
	}
}
