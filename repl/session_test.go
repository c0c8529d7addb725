package repl

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/solve"
)

// fakeSolver stands in for the library's solve: it records the requests
// and returns the point at (or, when nil, the start it was given).
type fakeSolver struct {
	at   []float64
	reqs []*solveRequest
}

func (f *fakeSolver) solve(req *solveRequest) (*solve.Result, error) {
	f.reqs = append(f.reqs, req)
	x := slices.Clone(req.x0)
	if f.at != nil {
		x = slices.Clone(f.at)
	}
	res := &solve.Result{Status: solve.Converged, Point: solve.Point{X: x}}
	res.Certificate = &solve.Certificate{Multipliers: make([]float64, len(req.model.Constraints))}
	for i := range res.Certificate.Multipliers {
		res.Certificate.Multipliers[i] = float64(i + 1)
	}
	return res, nil
}

type harness struct {
	s        *Session
	out, err bytes.Buffer
	solver   *fakeSolver
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{solver: &fakeSolver{}}
	h.s = New(Options{Out: &h.out, Err: &h.err})
	h.s.solveFn = h.solver.solve
	return h
}

// exec runs text, requires it to succeed or fail as ok says, and returns
// and clears what it printed.
func (h *harness) exec(t *testing.T, text string, ok bool) (stdout, stderr string) {
	t.Helper()
	got := h.s.Exec(text)
	stdout, stderr = h.out.String(), h.err.String()
	h.out.Reset()
	h.err.Reset()
	require.Equal(t, ok, got, "Exec(%q)\nstdout: %s\nstderr: %s", text, stdout, stderr)
	return stdout, stderr
}

func TestStatementsErrorsAndRecovery(t *testing.T) {
	h := newHarness(t)
	h.exec(t, "param K = 2\nvar x[K] in box(-1, 1) = 0.5", true)
	// an unknown name: the error points into the line typed (line 3 of the
	// input), and the model is unchanged
	_, stderr := h.exec(t, "minimize sum(j in 1..K) y[j]^2", false)
	assert.Equal(t, `<input>:3:25: unknown name "y" (did you mean "K"?)
    minimize sum(j in 1..K) y[j]^2
                            ^
1 error: the model is unchanged
`, stderr)
	require.NotNil(t, h.s.model)
	assert.Nil(t, h.s.model.Objective)
	// the session goes on
	h.exec(t, "minimize sum(j in 1..K) x[j]^2", true)
	require.NotNil(t, h.s.model.Objective)

	// a syntax error on the second line of a statement
	_, stderr = h.exec(t, "subject to\n    c1: x[1] <= 1\n    c2: x[2] <= * 2\n", false)
	assert.Contains(t, stderr, "<input>:7:17: syntax error")
	assert.Contains(t, stderr, "        c2: x[2] <= * 2\n                    ^\n")
	assert.Empty(t, h.s.model.Constraints)

	// a change that breaks another declaration is refused
	_, stderr = h.exec(t, "let K = 0", false)
	assert.Contains(t, stderr, "a dimension must be at least 1")
	assert.Equal(t, 2.0, h.s.param("K").Value.Data[0])

	// redefinitions are reported
	_, stderr = h.exec(t, "param K = 3", true)
	assert.Equal(t, "redefined parameter K (was: param K = 2)\n", stderr)
	stdout, _ := h.exec(t, "let K = 4", true)
	assert.Equal(t, "K = 4 (was 3)\n", stdout)
	// an error in a let continued on the next line points there
	_, stderr = h.exec(t, "let K =\n    2 * * 3", false)
	assert.Contains(t, stderr, "<input>:12:9: syntax error")
	assert.Contains(t, stderr, "        2 * * 3\n            ^\n")
	assert.Equal(t, 4, h.s.model.NumScalars)

	// let only changes parameters; drop needs a declared name
	_, stderr = h.exec(t, "let x = 1", false) // line 13
	assert.Contains(t, stderr, "let changes a parameter; x is a variable")
	_, stderr = h.exec(t, "drop c", false)
	assert.Contains(t, stderr, "nothing is declared as c")
	_, stderr = h.exec(t, "drop K", false) // x uses it
	assert.Contains(t, stderr, `unknown name "K"`)
	h.exec(t, "c: x[1] + x[2] >= 0.5", true)
	stdout, _ = h.exec(t, "drop c", true)
	assert.Equal(t, "dropped constraint c\n", stdout)
	assert.Empty(t, h.s.model.Constraints)

	// unknown commands and names
	_, stderr = h.exec(t, ":slove", false)
	assert.Contains(t, stderr, `unknown command :slove (did you mean ":solve"?)`)
	_, stderr = h.exec(t, ":show xx", false)
	assert.Contains(t, stderr, `nothing is called "xx" (did you mean "x"?)`)
	assert.True(t, h.s.Failed())
}

func TestEvalAndGrad(t *testing.T) {
	h := newHarness(t)
	h.exec(t, "param a = [1, 2, 3]\nvar x[3] in box(-5, 5) = [0.5, -1, 2]\nminimize sum(j in 1..3) a[j] * x[j]^2", true)
	stdout, _ := h.exec(t, ":eval x", true)
	assert.Equal(t, "vector of length 3: [0.5, -1, 2]\n", stdout)
	stdout, _ = h.exec(t, ":eval sum(j in 1..3) a[j] * x[j]^2", true)
	assert.Equal(t, "scalar: 14.25\n", stdout) // 0.25 + 2 + 12
	stdout, _ = h.exec(t, ":eval 2 * a", true)
	assert.Equal(t, "vector of length 3: [2, 4, 6]\n", stdout)
	stdout, _ = h.exec(t, ":grad sum(j in 1..3) a[j] * x[j]^2", true)
	// d/dx_j = 2 a_j x_j
	assert.Contains(t, stdout, "d/dx = vector of length 3: [1, -4, 12]")
	assert.Contains(t, stdout, "value 14.25")
	_, stderr := h.exec(t, ":grad x", false)
	assert.Contains(t, stderr, ":grad needs a scalar expression; this is a vector of length 3")
	// an expression error points at the right column of the command line
	_, stderr = h.exec(t, ":eval x[4]", false)
	assert.Contains(t, stderr, "<input>:9:9: index 4 is out of range")
	assert.Contains(t, stderr, "    :eval x[4]\n            ^\n")
	_, stderr = h.exec(t, ":eval log(x[2])", false) // log of -1
	assert.Contains(t, stderr, "<input>:10:7: log of a negative number")
	// comparisons are 0 or 1 in :eval (x = [0.5, -1, 2]: two of three positive)
	stdout, _ = h.exec(t, ":eval mean(j in 1..3) (x[j] > 0)", true)
	assert.Equal(t, "scalar: 0.666667\n", stdout)
	stdout, _ = h.exec(t, ":eval sum(j in 1..3) (x[j] > 0) * (a[j] >= 2)", true)
	assert.Equal(t, "scalar: 1\n", stdout)
	stdout, _ = h.exec(t, ":eval (x[2] == -1) + (x[1] < 0)", true)
	assert.Equal(t, "scalar: 1\n", stdout)
	// but not in :grad, nor in the model
	_, stderr = h.exec(t, ":grad sum(j in 1..3) (x[j] > 0)", false)
	assert.Contains(t, stderr, "not differentiable")
	_, stderr = h.exec(t, "c: sum(j in 1..3) (x[j] > 0) <= 1", false)
	assert.Contains(t, stderr, "sigmoid(k * (a - b))")
}

func TestPointFollowsSolvesAndChanges(t *testing.T) {
	h := newHarness(t)
	h.exec(t, "param r = 1\nvar x[2] in ball(r) = 0.1\nvar y in box(0, 1)\nminimize x[1] + x[2] + y\nc: x[1] >= -0.5", true)
	h.solver.at = []float64{0.6, -0.6, 0.5}
	h.exec(t, ":solve --inner=10", true)
	require.Len(t, h.solver.reqs, 1)
	assert.Equal(t, []string{"--inner=10"}, h.solver.reqs[0].args)
	assert.Equal(t, []float64{0.1, 0.1, 0}, h.solver.reqs[0].x0)
	stdout, _ := h.exec(t, ":show c", true)
	assert.Contains(t, stdout, "at the last solve (converged)")
	assert.Regexp(t, `c +-1\.1 +1\.1 +1\n`, stdout) // f = -0.5 - 0.6, multiplier 1 from the solver

	// a parameter change keeps the point, projected onto the new ball
	h.exec(t, "let r = 0.5", true)
	stdout, _ = h.exec(t, ":eval x", true)
	assert.Equal(t, "vector of length 2: [0.353553, -0.353553]\n", stdout)
	stdout, _ = h.exec(t, ":show c", true)
	assert.Contains(t, stdout, "(before the model changed)")

	// the next solve starts there, with :set options first; --cold starts
	// at the start
	h.exec(t, ":set outer=5", true)
	h.solver.at = nil
	h.exec(t, ":solve", true)
	assert.Equal(t, []string{"--outer=5"}, h.solver.reqs[1].args)
	assert.InDeltaSlice(t, []float64{0.353553, -0.353553, 0.5}, h.solver.reqs[1].x0, 1e-6)
	h.exec(t, ":solve --cold", true)
	assert.InDeltaSlice(t, []float64{0.1, 0.1, 0}, h.solver.reqs[2].x0, 1e-12)
	_, stderr := h.exec(t, ":set bogus=1", false)
	assert.Contains(t, stderr, ":set:")

	// a redefined variable starts again; the others keep their values
	h.solver.at = []float64{0.2, 0.3, 0.7}
	h.exec(t, ":solve", true)
	h.exec(t, "var y in box(0, 2) = 1.5", true)
	stdout, _ = h.exec(t, ":eval x", true)
	assert.Equal(t, "vector of length 2: [0.2, 0.3]\n", stdout)
	stdout, _ = h.exec(t, ":eval y", true)
	assert.Equal(t, "scalar: 1.5\n", stdout)
	// :reset point
	h.exec(t, ":reset point", true)
	stdout, _ = h.exec(t, ":eval x", true)
	assert.Equal(t, "vector of length 2: [0.1, 0.1]\n", stdout)
}

func TestDataCacheAndProgramReuse(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "d.csv")
	require.NoError(t, os.WriteFile(csvPath, []byte("a,b,y\n1,2,1\n3,4,0\n"), 0o644))
	h := newHarness(t)
	h.exec(t, `data d = csv("`+csvPath+`", label = "y")
param lambda = 0.1
var w[d.d] in ball(1)
minimize mean(i in d) abs(dot(d.X[i], w) - d.y[i]) + lambda * norm2(w)`, true)
	assert.Equal(t, 1, h.s.cache.Reads())
	h.exec(t, ":solve", true)
	prog := h.s.comp.prog
	require.NotNil(t, prog)

	// a new starting point: same program, no reading
	h.exec(t, "var w[d.d] in ball(1) = 0.2", true)
	h.exec(t, ":solve", true)
	assert.Same(t, prog, h.s.comp.prog)
	// a parameter: compiled again, the data still from the cache
	h.exec(t, "let lambda = 0.2", true)
	h.exec(t, ":solve", true)
	assert.NotSame(t, prog, h.s.comp.prog)
	assert.Equal(t, 1, h.s.cache.Reads())

	// the file changes: read again
	require.NoError(t, os.WriteFile(csvPath, []byte("a,b,y\n1,2,1\n3,4,0\n5,6,1\n"), 0o644))
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(csvPath, later, later))
	h.exec(t, ":check", true)
	assert.Equal(t, 2, h.s.cache.Reads())
	assert.Equal(t, 3, h.s.model.Data[0].Set.N())
}

func TestComplete(t *testing.T) {
	h := newHarness(t)
	h.exec(t, "data d = csv(\"../examples/data/phase.csv\", label = \"b\")\nparam lambda = 1\nparam lamb2 = 2\nvar x[d.d] in box(-1, 1)\nminimize norm2(x)\nbudget: norm1(x) <= lambda", true)
	complete := func(line string) []string {
		head, cands, tail := h.s.Complete(line, len([]rune(line)))
		var out []string
		for _, c := range cands {
			out = append(out, head+c+tail)
		}
		return out
	}
	assert.Equal(t, []string{"minimize lamb2", "minimize lambda"}, complete("minimize lam"))
	assert.Equal(t, []string{":save", ":set", ":show", ":solve"}, complete(":s"))
	assert.Equal(t, []string{":show budget"}, complete(":show bu"))
	assert.Equal(t, []string{":set eps="}, complete(":set ep"))
	assert.Equal(t, []string{":solve --cold"}, complete(":solve --co"))
	assert.Equal(t, []string{":help solve"}, complete(":help so"))
	assert.Equal(t, []string{":eval d.X"}, complete(":eval d.X"))
	assert.Equal(t, []string{"minimize norm2(d.d"}, complete("minimize norm2(d.d"))
	assert.Equal(t, []string{"minimize d.X", "minimize d.a1", "minimize d.a2"}, complete("minimize d.")[:3])
	assert.Subset(t, complete("minimize d."), []string{"minimize d.n", "minimize d.d", "minimize d.b", "minimize d.y"})
	assert.Contains(t, complete("minimize su"), "minimize sum")
	assert.Contains(t, complete("minimize si"), "minimize sin")
	assert.Equal(t, []string{"minimize tan", "minimize tanh"}, complete("minimize ta"))
	assert.Equal(t, []string{"minimize erf"}, complete("minimize er"))
	assert.Equal(t, []string{"minimize prod"}, complete("minimize pr"))
	assert.Contains(t, complete("minimize at"), "minimize atan")
	assert.Contains(t, complete("minimize log1"), "minimize log10")
	assert.Contains(t, complete("var z in bo"), "var z in box")
	assert.Contains(t, complete("su"), "subject")
	assert.Equal(t, []string{":load ../examples/np.qrc", ":load ../examples/npc.qrc"}, complete(":load ../examples/np"))
	assert.Equal(t, []string{":load ../examples/npc.qrc"}, complete(":load ../examples/npc"))
	assert.Equal(t, []string{":load ../examples/data/"}, complete(":load ../examples/da"))
	// the cursor inside the line: the word before it, the rest kept
	head, cands, tail := h.s.Complete("minimize lamb + x", len("minimize lamb"))
	assert.Equal(t, "minimize ", head)
	assert.Equal(t, []string{"lamb2", "lambda"}, cands)
	assert.Equal(t, " + x", tail)
}

func TestSaveWritesAModelQrcAccepts(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t)
	require.True(t, h.s.Load("../examples/phase.qrc"))
	h.exec(t, "let s = 1.5  # ignored comment\nparam extra = 2 * s  # a comment\nsubject to\n    cap: sum(j in 1..meas.d) abs(x[j]) <= extra\n", true)
	path := filepath.Join(dir, "sub", "saved.qrc")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	stdout, _ := h.exec(t, ":save "+path, true)
	assert.Equal(t, "wrote "+path+"\n", stdout)
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	// the data path is relative to the saved file
	rel, err := filepath.Rel(filepath.Dir(path), "../examples/data/phase.csv")
	if abs, err2 := filepath.Abs("../examples/data/phase.csv"); err2 == nil {
		rel, err = filepath.Rel(filepath.Dir(path), abs)
	}
	require.NoError(t, err)
	assert.Contains(t, string(text), `data meas = csv("`+filepath.ToSlash(rel)+`", label = "b")`)
	assert.Contains(t, string(text), "# explicit starting point") // comments are kept
	assert.Contains(t, string(text), "param extra = 2 * s  # a comment")
	assert.Contains(t, string(text), "subject to\n    budget: ")
	// it is a valid model: the same one
	m, _, diags := modelfile.Load(path, check.Options{})
	require.NotNil(t, m, "%v\n%s", diags, text)
	assert.Equal(t, h.s.model.NumScalars, m.NumScalars)
	assert.Len(t, m.Constraints, 2)
	assert.Equal(t, 1.5, m.Params[0].Value.Data[0])
	// and formatted: saving is idempotent through qrc fmt
	again, err := h.s.ModelText(path)
	require.NoError(t, err)
	assert.Equal(t, string(text), string(again))
}

// :save into a folder that does not exist says so, in one line, and
// writes nothing; into a file that is a folder, says it cannot write.
func TestSaveIntoMissingFolder(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t)
	require.True(t, h.s.Load("../examples/phase.qrc"))
	path := filepath.Join(dir, "no", "such", "m.qrc")
	_, stderr := h.exec(t, ":save "+path, false)
	assert.Equal(t, ":save "+path+": the folder "+filepath.Dir(path)+" does not exist; create it first (or save elsewhere)\n", stderr)
	_, err := os.Stat(filepath.Dir(path))
	assert.True(t, os.IsNotExist(err))

	file := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, stderr = h.exec(t, ":save "+filepath.Join(file, "m.qrc"), false)
	assert.Contains(t, stderr, file+" is not a folder")

	_, stderr = h.exec(t, ":save "+dir, false)
	assert.Contains(t, stderr, ":save "+dir+": cannot write it: "+dir+" is not a regular file (a directory)")
}
