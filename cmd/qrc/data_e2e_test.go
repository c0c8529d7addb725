package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// qrcIn runs the binary in dir with extra environment variables, killing it
// after a minute so that a hang fails the test instead of stalling it.
func qrcIn(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, qrcBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
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

// writeFiles writes name → content into a fresh directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	return dir
}

// people returns a ';'-separated CSV with a text column, a row with a
// missing value, and the mean of a² over the complete rows whose sex is
// "female" (the known answer of the model in TestTextColumnsAndMissing).
func people() (string, float64, int) {
	var b strings.Builder
	b.WriteString("a;sex;y\n")
	sum, n := 0.0, 0
	for i := range 30 {
		a := float64(i%7) - 2.5
		sex := []string{"female", "male", " female "}[i%3] // spaces are trimmed
		fmt.Fprintf(&b, "%g;%s;%d\n", a, sex, 2*(i%2)-1)
		if i%3 != 1 {
			sum += a * a
			n++
		}
	}
	b.WriteString(";female;1\n") // dropped: a is missing
	return b.String(), sum / float64(n), n
}

func TestTextColumnsAndMissing(t *testing.T) {
	csv, want, rows := people()
	model := `data P = csv("p.csv", label = "y", drop = ["sex"], sep = ";", missing = "drop")
var w in box(-1, 1)
minimize mean(i in P where P.sex[i] == "female") (w - P.a[i])^2
`
	dir := writeFiles(t, map[string]string{"p.csv": csv, "m.qrc": model})
	r := qrcIn(t, dir, nil, "check", "m.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, fmt.Sprintf("mean over P %d/30 rows", rows))

	r = qrcIn(t, dir, nil, "eval", "m.qrc", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var e struct {
		Objective struct{ Value float64 } `json:"objective"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &e))
	assert.InDelta(t, want, e.Objective.Value, 1e-12) // at w = 0

	// != selects the complement.
	neq := strings.Replace(model, `== "female"`, `!= "female"`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "neq.qrc"), []byte(neq), 0o644))
	r = qrcIn(t, dir, nil, "check", "neq.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, fmt.Sprintf("mean over P %d/30 rows", 30-rows))

	// Without missing = "drop" the empty cell is reported where it is.
	strict := strings.Replace(model, `, missing = "drop"`, "", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "strict.qrc"), []byte(strict), 0o644))
	r = qrcIn(t, dir, nil, "check", "strict.qrc")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `strict.qrc:1:14: cannot load data set "P": p.csv:32:1: missing value (empty cell) in column "a"; csv(..., missing = "drop") leaves such rows out`)
}

func TestDataOptionErrors(t *testing.T) {
	csv, _, _ := people()
	dir := writeFiles(t, map[string]string{"p.csv": csv})
	tests := []struct {
		name, model, want string
	}{
		{"misspelt value",
			`data P = csv("p.csv", drop = ["sex"], sep = ";", missing = "drop")
var w
minimize mean(i in P where P.sex[i] == "femal") w`,
			`m.qrc:3:40: no row of P.sex has the value "femal" (did you mean "female"?); its values are "female", "male"`},
		{"text in arithmetic",
			`data P = csv("p.csv", drop = ["sex"], sep = ";", missing = "drop")
var w
minimize mean(i in P) w * P.sex[i]`,
			`m.qrc:3:29: column "sex" of P holds text; compare it with a string in a where filter, e.g. where P.sex[i] == "female"`},
		{"text ordered",
			`data P = csv("p.csv", drop = ["sex"], sep = ";", missing = "drop")
var w
minimize mean(i in P where P.sex[i] < "m") w`,
			`m.qrc:3:37: text can only be compared with == or !=, not <`},
		{"string against a number",
			`data P = csv("p.csv", drop = ["sex"], sep = ";", missing = "drop")
var w
minimize mean(i in P where P.a[i] == "1") w`,
			`m.qrc:3:28: P.a[i] is compared with a string, but it is not a text column of a data set`},
		{"unknown dropped column points at it",
			`data P = csv("p.csv", drop = ["sx"], sep = ";")
var w
minimize w`,
			`m.qrc:1:31: cannot load data set "P": p.csv:1: unknown column "sx" (columns: a, sex, y)`},
		{"wrong separator",
			`data P = csv("p.csv", label = "y")
var w
minimize w`,
			`m.qrc:1:31: cannot load data set "P": p.csv:1: unknown column "y" (columns: a;sex;y)`},
		{"bad sep option",
			`data P = csv("p.csv", sep = ";;")
var w
minimize w`,
			`m.qrc:1:29: sep must be one character in quotes`},
		{"bad missing option",
			`data P = csv("p.csv", sep = ";", missing = "zero")
var w
minimize w`,
			`m.qrc:1:44: missing must be "error" (the default: an empty cell is an error) or "drop"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "m.qrc"), []byte(tt.model+"\n"), 0o644))
			r := qrcIn(t, dir, nil, "check", "m.qrc")
			assert.Equal(t, 1, r.code)
			assert.Contains(t, r.stderr, tt.want)
			assert.NotContains(t, r.stderr, "panic")
		})
	}
}

func TestHeaderlessTabSeparated(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"t.tsv": "1\t2\t-1\n3\t4\t1\n",
		"m.qrc": "data T = csv(\"t.tsv\", header = false, sep = \"\\t\", label = \"c3\")\nvar w[T.d]\nminimize mean(i in T) T.y[i] * dot(T.X[i], w)\n",
	})
	r := qrcIn(t, dir, nil, "check", "m.qrc", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var s summaryJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s))
	require.Len(t, s.Data, 1)
	assert.Equal(t, 2, s.Data[0].Rows)
	assert.Equal(t, 2, s.Data[0].Features)
	assert.Equal(t, []float64{-1, 1}, s.Data[0].Labels)
}

func TestDataLimitsEndToEnd(t *testing.T) {
	secret := "root:$6$saltsalt$0123456789abcdefghijklmnopqrstuvwxyz:20228:0:99999:7:::\n"
	dir := writeFiles(t, map[string]string{
		"tiny.svm":   "1 1:1\n-1 100000000:0.5\n",
		"secret.txt": secret,
		"big.csv":    "a,b\n" + strings.Repeat("1,2\n", 1000),
		"sparse.qrc": "data D = libsvm(\"tiny.svm\")\nvar w\nminimize mean(i in D) D.y[i] * abs(D.X[i, 1] * w)\n",
		"secret.qrc": "data D = libsvm(\"secret.txt\")\nvar w\nminimize w\n",
		"big.qrc":    "data D = csv(\"big.csv\")\nvar w\nminimize w\n",
		"pipe.qrc":   "data D = csv(\"pipe\")\nvar w\nminimize w\n",
	})
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644))

	// A LIBSVM index of 10^8 in a 30-byte file: loaded sparse at once; an
	// elementwise use needs the dense matrix, refused with its size.
	r := qrcIn(t, dir, []string{"QRC_DATA_MEMORY=200MB"}, "check", "sparse.qrc")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `sparse.qrc:3:36: cannot use D.X: tiny.svm:2:4: a dense 2 × 100000000 matrix of this sparse set (2 nonzeros, density 1e-08) needs about 1.49 GiB, more than the 191 MiB a data set may take (QRC_DATA_MEMORY=200MB); the largest feature index is here`)

	// (A dot product of its rows with a vector runs over the nonzeros and
	// needs no dense matrix: TestSolveSparseLogistic.)

	// File content is quoted short.
	r = qrcIn(t, dir, nil, "check", "secret.qrc")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `secret.txt:1:1: invalid label "root:$6$saltsalt$0123456..."`)
	assert.NotContains(t, r.stderr, "abcdefghijklmnopqrstuvwxyz")

	// The memory limit, overridden from the environment.
	r = qrcIn(t, dir, []string{"QRC_DATA_MEMORY=10KB"}, "check", "big.qrc")
	assert.Equal(t, 1, r.code)
	// (the model names no column, so the set keeps none by column: X and
	// its 1000·2·8 bytes only)
	assert.Contains(t, r.stderr, `big.csv: a dense 1000 × 2 matrix needs about 15.6 KiB, more than the 9.77 KiB a data set may take (QRC_DATA_MEMORY=10KB)`)
	r = qrcIn(t, dir, []string{"QRC_DATA_MEMORY=1MB"}, "check", "big.qrc")
	assert.Equal(t, 0, r.code, r.stderr)

	// The evaluator's work space counts against the same limit, before
	// anything is allocated: npc.qrc's scores of each class (300 rows of
	// digits.svm against the 9 other classes: 2700 values) with their
	// adjoints and the other registers need more than 10^6 bytes (977 KiB).
	npc, err := filepath.Abs(filepath.Join(repoRoot, "examples", "npc.qrc"))
	require.NoError(t, err)
	for _, cmd := range []string{"eval", "solve"} {
		r = qrcIn(t, dir, []string{"QRC_DATA_MEMORY=1MB"}, cmd, npc)
		assert.Equal(t, 1, r.code, cmd)
		assert.Contains(t, r.stderr, "npc.qrc:13:52: evaluating the model needs ", cmd)
		assert.Contains(t, r.stderr, "(this expression alone holds 2700 values, over every data row), more than the limit of 977 KiB (QRC_DATA_MEMORY=1MB)", cmd)
	}
	r = qrcIn(t, dir, []string{"QRC_DATA_MEMORY=64MB"}, "eval", npc)
	assert.Equal(t, 0, r.code, r.stderr)

	// A named pipe is refused before it is opened (opening it would block).
	r = qrcIn(t, dir, nil, "check", "pipe.qrc")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `cannot load data set "D": pipe: cannot read a named pipe (FIFO): a data set must be a regular file`)
	r = qrcIn(t, dir, nil, "check", "big.qrc", "--data", "D=/dev/zero")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `/dev/zero: cannot read a character device: a data set must be a regular file`)
}
