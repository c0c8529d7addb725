package main_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/internal/shareddata"
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
	code := shareddata.Main(m)
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

var examples = []string{"npc", "fairness", "phase", "adult", "german", "np"}

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

// jsonOut runs `qrc COMMAND --json ARGS...` and decodes its standard
// output into a T. With strict, the output must be exactly one object with
// no field T does not know, and the exit status 0.
func jsonOut[T any](t *testing.T, strict bool, command string, args ...string) (T, result) {
	t.Helper()
	r := qrc(t, "", append([]string{command, "--json"}, args...)...)
	var v T
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if strict {
		require.Equal(t, 0, r.code, r.stderr)
		dec.DisallowUnknownFields()
	}
	require.NoError(t, dec.Decode(&v), "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	if strict {
		assert.False(t, dec.More(), "exactly one JSON object")
	}
	return v, r
}

func checkJSON(t *testing.T, args ...string) (summaryJSON, result) {
	t.Helper()
	return jsonOut[summaryJSON](t, false, "check", args...)
}

func TestCheckJSON(t *testing.T) {
	s, r := checkJSON(t, "examples/npc.qrc")
	require.Equal(t, 0, r.code)
	assert.True(t, s.Valid)
	assert.Contains(t, r.stdout, `"op": "<="`) // as docs/cli.md shows it, not "\u003c="
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
	shareddata.Require(t, "pendigits")
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
		"adult":    "people=examples/data/adult.csv",
		"german":   "people=examples/data/german.csv",
		"np":       "test=examples/data/a9a.svm",
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
	assert.Contains(t, r.stderr, path+":1:11: syntax error: \"(\" is never closed")
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

// evalJSON is qrc eval --json's output.
type evalJSON struct {
	File      string `json:"file"`
	Point     string `json:"point"`
	Objective *struct {
		Value           float64 `json:"value"`
		SubgradientNorm float64 `json:"subgradient_norm"`
	} `json:"objective"`
	Constraints []struct {
		Name            string   `json:"name"`
		Op              string   `json:"op"`
		Value           float64  `json:"value"`
		RHS             *float64 `json:"rhs"`
		Violation       float64  `json:"violation"`
		SubgradientNorm float64  `json:"subgradient_norm"`
	} `json:"constraints"`
	Infeasibility    *float64 `json:"infeasibility"`
	DomainViolations []struct {
		Variable  string  `json:"variable"`
		Domain    string  `json:"domain"`
		Violation float64 `json:"violation"`
	} `json:"domain_violations"`
}

func evalOut(t *testing.T, args ...string) (evalJSON, result) {
	t.Helper()
	return jsonOut[evalJSON](t, true, "eval", args...)
}

// assertNPCStart checks qrc eval of examples/npc.qrc at W = 0, where every
// loss is 9 * phi(0) = 4.5 exactly and so every constraint is active.
func assertNPCStart(t *testing.T, e evalJSON) {
	t.Helper()
	assert.Equal(t, "start", e.Point)
	require.NotNil(t, e.Objective)
	assert.InDelta(t, 4.5, e.Objective.Value, 1e-12)
	assert.Positive(t, e.Objective.SubgradientNorm)
	require.Len(t, e.Constraints, 9)
	for i, c := range e.Constraints {
		assert.Equal(t, "cap["+itoa(i+2)+"]", c.Name)
		assert.Equal(t, "<=", c.Op)
		assert.InDelta(t, 0, c.Value, 1e-12) // loss(k) - r = 4.5 - 4.5
		require.NotNil(t, c.RHS)
		assert.Equal(t, 4.5, *c.RHS)
		assert.InDelta(t, 0, c.Violation, 1e-12)
		assert.GreaterOrEqual(t, c.Violation, 0.0)
		assert.Positive(t, c.SubgradientNorm)
	}
	require.NotNil(t, e.Infeasibility)
	assert.InDelta(t, 0, *e.Infeasibility, 1e-12)
	assert.NotNil(t, e.DomainViolations)
	assert.Empty(t, e.DomainViolations)
}

func TestEvalNPC(t *testing.T) {
	e, r := evalOut(t, "examples/npc.qrc")
	assert.Empty(t, r.stderr)
	assert.Equal(t, "examples/npc.qrc", e.File)
	assertNPCStart(t, e)

	text := qrc(t, "", "eval", "examples/npc.qrc")
	require.Equal(t, 0, text.code, text.stderr)
	golden(t, "eval_npc", text.stdout)
}

func TestEvalPendigits(t *testing.T) {
	shareddata.Require(t, "pendigits")
	e, _ := evalOut(t, "examples/npc.qrc", "--data", "train=../shared/data/pendigits")
	assertNPCStart(t, e)

	r := qrc(t, "", "gradcheck", "examples/npc.qrc", "--data", "train=../shared/data/pendigits", "--points", "1")
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "all 10 functions pass")
}

func TestEvalExamples(t *testing.T) {
	for _, name := range []string{"phase", "fairness"} {
		t.Run(name, func(t *testing.T) {
			e, _ := evalOut(t, "examples/"+name+".qrc")
			require.NotNil(t, e.Objective)
			require.NotEmpty(t, e.Constraints)
			worst := 0.0
			for _, c := range e.Constraints {
				assert.Equal(t, math.Max(0, c.Value), c.Violation)
				require.NotNil(t, c.RHS)
				worst = math.Max(worst, c.Violation)
			}
			assert.Equal(t, worst, *e.Infeasibility)

			r := qrc(t, "", "eval", "examples/"+name+".qrc")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "infeasibility ")
			assert.Contains(t, r.stdout, e.Constraints[0].Name)
		})
	}
	// phase starts at x = 0.5: budget = 8 * mcp(0.5, 1, 2) - 2 = 8 * 0.4375 - 2.
	e, _ := evalOut(t, "examples/phase.qrc")
	require.Len(t, e.Constraints, 1)
	assert.Equal(t, "budget", e.Constraints[0].Name)
	assert.InDelta(t, 1.5, e.Constraints[0].Value, 1e-12)
	assert.InDelta(t, 2, *e.Constraints[0].RHS, 0)
	// fairness at x = 0: every score is 0, so the objective is the mean of
	// logistic(0) = log 2, both groups' rates are sigmoid(0) = 1/2, and each
	// parity constraint is 1/2 - 1/2 - delta = -0.1.
	e, _ = evalOut(t, "examples/fairness.qrc")
	assert.InDelta(t, math.Log(2), e.Objective.Value, 1e-12)
	require.Len(t, e.Constraints, 2)
	assert.Equal(t, "parity_10", e.Constraints[1].Name)
	for _, c := range e.Constraints {
		assert.InDelta(t, -0.1, c.Value, 1e-12)
	}
}

// smallModel is a model without data whose values are easy to work out.
const smallModel = `var x[2] in box(-2, 2)
var t
minimize x[1]^2 + 3 * x[2] + t
subject to
    lo: t >= 1
    cap: abs(x[1]) + abs(x[2]) <= 1
`

func TestEvalAt(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.qrc")
	require.NoError(t, os.WriteFile(model, []byte(smallModel), 0o644))
	// A solver's result file: "variables" and other fields.
	at := filepath.Join(dir, "result.json")
	require.NoError(t, os.WriteFile(at, []byte(`{"status": "stationary", "variables": {"x": [1, -0.5], "t": 2}, "iterations": 3}`), 0o644))

	e, r := evalOut(t, model, "--at", at)
	assert.Empty(t, r.stderr)
	assert.Equal(t, at, e.Point)
	assert.InDelta(t, 1-1.5+2, e.Objective.Value, 1e-15)
	assert.InDelta(t, math.Sqrt(4+9+1), e.Objective.SubgradientNorm, 1e-12)
	require.Len(t, e.Constraints, 2)
	lo, cp := e.Constraints[0], e.Constraints[1]
	assert.Equal(t, ">=", lo.Op)
	assert.InDelta(t, -1, lo.Value, 1e-15) // 1 - t
	assert.Equal(t, 1.0, *lo.RHS)
	assert.Equal(t, 0.0, lo.Violation)
	assert.InDelta(t, 1, lo.SubgradientNorm, 1e-15)
	assert.InDelta(t, 0.5, cp.Value, 1e-15) // |1| + |-0.5| - 1
	assert.InDelta(t, 0.5, cp.Violation, 1e-15)
	assert.InDelta(t, math.Sqrt2, cp.SubgradientNorm, 1e-12)
	assert.InDelta(t, 0.5, *e.Infeasibility, 1e-15)
	assert.Empty(t, e.DomainViolations)

	// At the start (x = 0, t = 0).
	e, _ = evalOut(t, model)
	assert.InDelta(t, 0, e.Objective.Value, 0)
	assert.InDelta(t, 1, *e.Infeasibility, 0) // lo: 1 - 0

	// Outside the domain: evaluated, with a warning.
	require.NoError(t, os.WriteFile(at, []byte(`{"variables": {"x": [3, 0], "t": 2}}`), 0o644))
	e, _ = evalOut(t, model, "--at", at)
	require.Len(t, e.DomainViolations, 1)
	assert.Equal(t, "x", e.DomainViolations[0].Variable)
	assert.Equal(t, "box(-2, 2)", e.DomainViolations[0].Domain)
	assert.InDelta(t, 1, e.DomainViolations[0].Violation, 1e-15)
	assert.InDelta(t, 9+2, e.Objective.Value, 1e-15)
	r = qrc(t, "", "eval", model, "--at", at)
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stderr, at+`: warning: variable "x" is outside its domain box(-2, 2) by 1`)
	assert.Contains(t, r.stdout, "at the point in "+at)
}

func TestEvalBadPoint(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.qrc")
	require.NoError(t, os.WriteFile(model, []byte(smallModel), 0o644))
	at := filepath.Join(dir, "p.json")
	require.NoError(t, os.WriteFile(at, []byte(`{"variables": {"x": [1, 2, 3], "tt": 1}}`), 0o644))
	r := qrc(t, "", "eval", model, "--at", at)
	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, at+`: unknown variable "tt" (did you mean "t"?)`)
	assert.Contains(t, r.stderr, at+`: variable "x": want a vector of length 2 (an array), got a vector of length 3`)
	assert.Contains(t, r.stderr, at+`: missing variable "t" (scalar)`)

	r = qrc(t, "", "eval", "--json", model, "--at", filepath.Join(dir, "none.json"))
	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "none.json: cannot read point: no such file or directory")

	require.NoError(t, os.WriteFile(at, []byte("{\"variables\": {\n  \"x\": [1, 2],\n}}"), 0o644))
	r = qrc(t, "", "eval", model, "--at", at)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, at+":3:1: invalid JSON")
}

func TestEvalErrors(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.qrc")
	require.NoError(t, os.WriteFile(model, []byte("var x[2] in box(-2, 2) = -1\nminimize log(x[1]) + x[2]\n"), 0o644))
	r := qrc(t, "", "eval", model)
	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)
	assert.True(t, strings.HasPrefix(r.stderr, model+":2:"), r.stderr)
	assert.Contains(t, r.stderr, "log")
	assert.Contains(t, r.stderr, "\n    minimize log(x[1]) + x[2]\n")
	r = qrc(t, "", "eval", "--json", model)
	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)
	assert.True(t, strings.HasPrefix(r.stderr, model+":2:"), r.stderr)

	// An invalid model is reported as by qrc check.
	require.NoError(t, os.WriteFile(model, []byte("param lambda = 1\nvar x[3] in ball(lamda)\nminimize norm2(x)\n"), 0o644))
	for _, cmd := range []string{"eval", "gradcheck"} {
		r = qrc(t, "", cmd, model)
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, model+`:2:18: unknown name "lamda" (did you mean "lambda"?)`)
		assert.Contains(t, r.stderr, model+": 1 error\n")
	}
}

func TestGradcheckExamples(t *testing.T) {
	want := map[string]int{"npc": 10, "fairness": 3, "phase": 2, "adult": 3, "german": 3, "np": 2}
	for _, name := range examples {
		t.Run(name, func(t *testing.T) {
			r := qrc(t, "", "gradcheck", "examples/"+name+".qrc")
			assert.Equal(t, 0, r.code, r.stdout+r.stderr)
			assert.Empty(t, r.stderr)
			assert.Contains(t, r.stdout, "all "+itoa(want[name])+" functions pass")

			r = qrc(t, "", "gradcheck", "--json", "--points", "2", "--seed", "7", "examples/"+name+".qrc")
			assert.Equal(t, 0, r.code, r.stderr)
			var g struct {
				Tolerance float64  `json:"tolerance"`
				Seed      uint64   `json:"seed"`
				Points    []string `json:"points"`
				Pass      bool     `json:"pass"`
				Functions []struct {
					Name       string   `json:"name"`
					WorstError *float64 `json:"worst_error"`
					Pass       bool     `json:"pass"`
					Points     []struct {
						Checked  bool `json:"checked"`
						Compared int  `json:"compared"`
					} `json:"points"`
				} `json:"functions"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &g), r.stdout)
			assert.True(t, g.Pass)
			assert.Equal(t, 1e-4, g.Tolerance)
			assert.Equal(t, uint64(7), g.Seed)
			assert.Equal(t, []string{"start", "random 1", "random 2"}, g.Points)
			require.Len(t, g.Functions, want[name])
			assert.Equal(t, "objective", g.Functions[0].Name)
			for _, f := range g.Functions {
				assert.True(t, f.Pass, f.Name)
				require.NotNil(t, f.WorstError)
				assert.Less(t, *f.WorstError, 1e-6, f.Name)
				require.Len(t, f.Points, 3)
				for _, p := range f.Points {
					assert.True(t, p.Checked)
					assert.Positive(t, p.Compared)
				}
			}
		})
	}
}

func TestGradcheckNonsmooth(t *testing.T) {
	// At the start (x = 0) abs and the tie in max are kinks: reported, not
	// failures.
	dir := t.TempDir()
	model := filepath.Join(dir, "m.qrc")
	require.NoError(t, os.WriteFile(model, []byte(smallModel), 0o644))
	r := qrc(t, "", "gradcheck", model)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "cap at start: nonsmooth at this point (2 coordinates skipped)")
	assert.Contains(t, r.stdout, "all 3 functions pass")

	// Nowhere evaluable: nothing was checked, which is not a pass.
	require.NoError(t, os.WriteFile(model, []byte("var x[2] in box(-2, -1)\nminimize log(x[1]) + x[2]\n"), 0o644))
	r = qrc(t, "", "gradcheck", model)
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "at start: nothing checked: cannot evaluate: "+model+":2:")
	assert.Contains(t, r.stdout, "not checked at any point")
}

func TestEvalGradcheckUsage(t *testing.T) {
	r := qrc(t, "", "help")
	assert.Contains(t, r.stdout, "eval ")
	assert.Contains(t, r.stdout, "gradcheck ")
	r = qrc(t, "", "help", "eval")
	assert.Equal(t, 0, r.code)
	for _, flag := range []string{"--at FILE", "--json", "--set NAME=EXPR", "--data NAME=PATH"} {
		assert.Contains(t, r.stdout, flag)
	}
	r = qrc(t, "", "help", "gradcheck")
	assert.Equal(t, 0, r.code)
	for _, flag := range []string{"--points N", "--seed S", "--tol T", "--json", "--set NAME=EXPR", "--data NAME=PATH"} {
		assert.Contains(t, r.stdout, flag)
	}
	r = qrc(t, "", "eval", "--help")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "Usage: qrc eval")
	r = qrc(t, "", "eval")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "want one model file")
	r = qrc(t, "", "gradcheck", "examples/npc.qrc", "--points", "-1")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--points must be between 0 and 100000")
	r = qrc(t, "", "gradcheck", "examples/npc.qrc", "--tol", "0")
	assert.Equal(t, 2, r.code)
	r = qrc(t, "", "gradcheck", "examples/npc.qrc", "--seed", "x")
	assert.Equal(t, 2, r.code)
}
