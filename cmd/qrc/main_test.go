package main_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// qrcBin is the qrc binary built once for the end-to-end tests.
var qrcBin string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "qrc-e2e")
	if err != nil {
		panic(err)
	}
	qrcBin = filepath.Join(dir, "qrc")
	if runtime.GOOS == "windows" {
		qrcBin += ".exe"
	}
	build := exec.Command("go", "build", "-o", qrcBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building qrc: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// repoRoot is where commands run, so paths read as a user types them.
const repoRoot = "../.."

type result struct {
	stdout, stderr string
	code           int
}

// qrc runs the binary in the repository root.
func qrc(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(qrcBin, args...)
	cmd.Dir = repoRoot
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./cmd/qrc -update to create it")
	assert.Equal(t, string(want), got)
}

var examples = []string{"npc", "fairness", "phase"}

func TestCheckExamples(t *testing.T) {
	for _, name := range examples {
		t.Run(name, func(t *testing.T) {
			r := qrc(t, "", "check", "examples/"+name+".qrc")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Empty(t, r.stderr)
			golden(t, "check_"+name, r.stdout)
		})
	}
}

// summaryJSON is the part of qrc check --json the tests look at.
type summaryJSON struct {
	File  string `json:"file"`
	Valid bool   `json:"valid"`
	Data  []struct {
		Name     string    `json:"name"`
		Rows     int       `json:"rows"`
		Features int       `json:"features"`
		Labels   []float64 `json:"labels"`
		Columns  []string  `json:"columns"`
	} `json:"data"`
	Params []struct {
		Name       string `json:"name"`
		Value      any    `json:"value"`
		Overridden bool   `json:"overridden"`
	} `json:"params"`
	Variables []struct {
		Name   string `json:"name"`
		Shape  []int  `json:"shape"`
		Domain struct {
			Kind string `json:"kind"`
		} `json:"domain"`
		Start any `json:"start"`
	} `json:"variables"`
	Objective *struct {
		Expr  string `json:"expr"`
		Means []struct {
			Data  string `json:"data"`
			Rows  int    `json:"rows"`
			Total int    `json:"total"`
		} `json:"means"`
	} `json:"objective"`
	Constraints []struct {
		Name  string `json:"name"`
		Index []int  `json:"index"`
	} `json:"constraints"`
	Scalars     int `json:"scalars"`
	Diagnostics []struct {
		Severity string `json:"severity"`
		Line     int    `json:"line"`
		Column   int    `json:"column"`
		Message  string `json:"message"`
	} `json:"diagnostics"`
}

func checkJSON(t *testing.T, args ...string) (summaryJSON, result) {
	t.Helper()
	r := qrc(t, "", append([]string{"check", "--json"}, args...)...)
	var s summaryJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &s), r.stdout)
	return s, r
}

func TestCheckJSON(t *testing.T) {
	s, r := checkJSON(t, "examples/npc.qrc")
	require.Equal(t, 0, r.code)
	assert.True(t, s.Valid)
	require.Len(t, s.Data, 1)
	assert.Equal(t, 3000, s.Data[0].Rows)
	assert.Equal(t, 16, s.Data[0].Features)
	assert.Equal(t, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, s.Data[0].Labels)
	require.Len(t, s.Variables, 1)
	assert.Equal(t, []int{10, 16}, s.Variables[0].Shape)
	assert.Equal(t, "ball_rows", s.Variables[0].Domain.Kind)
	assert.Equal(t, 160, s.Scalars)
	require.Len(t, s.Constraints, 9)
	for i, c := range s.Constraints {
		assert.Equal(t, []int{i + 2}, c.Index)
		assert.Equal(t, "cap["+itoa(i+2)+"]", c.Name)
	}
	require.NotNil(t, s.Objective)
	require.Len(t, s.Objective.Means, 1)
	assert.Equal(t, 300, s.Objective.Means[0].Rows)

	s, _ = checkJSON(t, "examples/fairness.qrc")
	assert.Equal(t, []string{"group", "x1", "x2", "x3", "x4", "x5", "y"}, s.Data[0].Columns)
	assert.Equal(t, []float64{-1, 1}, s.Data[0].Labels)

	s, _ = checkJSON(t, "examples/phase.qrc")
	assert.Equal(t, 0.5, s.Variables[0].Start)
	assert.Equal(t, "box", s.Variables[0].Domain.Kind)
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestCheckPendigits(t *testing.T) {
	path := filepath.Join(repoRoot, "..", "shared", "data", "pendigits")
	if _, err := os.Stat(path); err != nil {
		t.Skip("../shared/data/pendigits is absent")
	}
	s, r := checkJSON(t, "examples/npc.qrc", "--data", "train=../shared/data/pendigits")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 7494, s.Data[0].Rows)
	assert.Equal(t, 16, s.Data[0].Features)
	assert.Equal(t, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, s.Data[0].Labels)

	text := qrc(t, "", "check", "examples/npc.qrc", "--data", "train=../shared/data/pendigits")
	assert.Contains(t, text.stdout, "7494 rows, 16 features, labels 1..10")
}

func TestCheckSetOverride(t *testing.T) {
	s, r := checkJSON(t, "--set", "r=2*3", "examples/npc.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	for _, p := range s.Params {
		if p.Name == "r" {
			assert.Equal(t, 6.0, p.Value)
			assert.True(t, p.Overridden)
		}
	}
	bad := qrc(t, "", "check", "examples/npc.qrc", "--set", "rr=3")
	assert.Equal(t, 1, bad.code)
	assert.Contains(t, bad.stderr, `--set rr: the model has no parameter "rr" (did you mean "r"?)`)
	bad = qrc(t, "", "check", "examples/npc.qrc", "--set", "r=3 +")
	assert.Equal(t, 1, bad.code)
	assert.Contains(t, bad.stderr, "--set r:1:")
	bad = qrc(t, "", "check", "examples/npc.qrc", "--data", "tain=x.svm")
	assert.Equal(t, 1, bad.code)
	assert.Contains(t, bad.stderr, `(did you mean "train"?)`)
}

func TestCheckInvalidModel(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "bad.qrc")
	require.NoError(t, os.WriteFile(model, []byte("param lambda = 1\nvar x[3] in ball(lamda)\nminimize norm2(x)\n"), 0o644))
	r := qrc(t, "", "check", model)
	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, model+`:2:18: unknown name "lamda" (did you mean "lambda"?)
    var x[3] in ball(lamda)
                     ^^^^^
`+model+": 1 error\n", r.stderr)

	s, r := checkJSON(t, model)
	assert.Equal(t, 1, r.code)
	assert.False(t, s.Valid)
	require.Len(t, s.Diagnostics, 1)
	assert.Equal(t, "error", s.Diagnostics[0].Severity)
	assert.Equal(t, 2, s.Diagnostics[0].Line)
	assert.Equal(t, 18, s.Diagnostics[0].Column)

	r = qrc(t, "", "check", filepath.Join(dir, "missing.qrc"))
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "missing.qrc: cannot read model: no such file or directory")
}

func TestFmt(t *testing.T) {
	for _, name := range examples {
		t.Run(name, func(t *testing.T) {
			r := qrc(t, "", "fmt", "examples/"+name+".qrc")
			require.Equal(t, 0, r.code, r.stderr)
			// Formatting the formatted text changes nothing.
			again := qrc(t, r.stdout, "fmt")
			require.Equal(t, 0, again.code, again.stderr)
			assert.Equal(t, r.stdout, again.stdout)
			// And it is the same model.
			dir := t.TempDir()
			formatted := filepath.Join(dir, name+".qrc")
			require.NoError(t, os.WriteFile(formatted, []byte(r.stdout), 0o644))
			a, _ := checkJSON(t, "examples/"+name+".qrc")
			b, _ := checkJSON(t, "--data", dataOverride(name), formatted)
			assert.Equal(t, len(a.Constraints), len(b.Constraints))
			assert.Equal(t, a.Scalars, b.Scalars)
			assert.Equal(t, a.Objective.Expr, b.Objective.Expr)
		})
	}
}

// dataOverride points a copied example's data set at the shipped file.
func dataOverride(name string) string {
	return map[string]string{
		"npc":      "train=examples/data/digits.svm",
		"fairness": "people=examples/data/fairness.csv",
		"phase":    "meas=examples/data/phase.csv",
	}[name]
}

func TestFmtWriteAndList(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.qrc")
	messy := "param   a=1   # one\nvar x[2] in box( -1,1 )\nminimize   norm2( x )+a\n"
	require.NoError(t, os.WriteFile(path, []byte(messy), 0o644))
	r := qrc(t, "", "fmt", "-l", path)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, path+"\n", r.stdout)
	r = qrc(t, "", "fmt", "-w", path)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "param a = 1  # one\nvar x[2] in box(-1, 1)\nminimize norm2(x) + a\n", string(got))
	r = qrc(t, "", "fmt", "-l", path)
	assert.Equal(t, 0, r.code)
	assert.Empty(t, r.stdout)

	require.NoError(t, os.WriteFile(path, []byte("param a = (1\n"), 0o644))
	r = qrc(t, "", "fmt", path)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, path+":2:1: syntax error")
}

func TestUsage(t *testing.T) {
	r := qrc(t, "")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "Commands:")
	r = qrc(t, "", "help")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "check")
	assert.Contains(t, r.stdout, "fmt")
	r = qrc(t, "", "help", "check")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "--json")
	assert.Contains(t, r.stdout, "--set NAME=EXPR")
	r = qrc(t, "", "check", "--help")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "Usage: qrc check")
	r = qrc(t, "", "check")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "want one model file")
	r = qrc(t, "", "frobnicate")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `unknown command "frobnicate"`)
	r = qrc(t, "", "check", "--set", "oops", "examples/npc.qrc")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "want NAME=VALUE")
	r = qrc(t, "", "version")
	assert.Equal(t, 0, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, "qrc "))
}

func TestCheckWarningsKeepModelValid(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "w.qrc")
	require.NoError(t, os.WriteFile(model, []byte("var x[2]\nminimize norm1(x)\n"), 0o644))
	r := qrc(t, "", "check", model)
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stderr, model+`:1:5: warning: variable "x" has no domain`)
	assert.Contains(t, r.stderr, "    var x[2]\n        ^\n")
	assert.Contains(t, r.stdout, "in unbounded")
	s, r := checkJSON(t, model)
	assert.Equal(t, 0, r.code)
	assert.True(t, s.Valid)
	require.Len(t, s.Diagnostics, 1)
	assert.Equal(t, "warning", s.Diagnostics[0].Severity)
}
