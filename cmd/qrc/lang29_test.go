package main_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSolveHS5 solves Hock-Schittkowski problem 5, which needs sin, as
// written: min sin(x1 + x2) + (x1 - x2)^2 - 1.5 x1 + 2.5 x2 + 1 on
// [-1.5, 4] x [-3, 3], whose minimum is -sqrt(3)/2 - pi/3 at
// x = (1/2 - pi/3, -1/2 - pi/3) (Hock & Schittkowski 1981).
func TestSolveHS5(t *testing.T) {
	path := writeModel(t, "hs5.qrc", `var x1 in box(-1.5, 4)
var x2 in box(-3, 3)
minimize sin(x1 + x2) + (x1 - x2)^2 - 1.5 * x1 + 2.5 * x2 + 1
`)
	out, r := solveOut(t, path)
	require.Equal(t, 0, r.code, r.stderr)
	fstar := -math.Sqrt(3)/2 - math.Pi/3
	// the criterion: within 1e-4 max(1, |f*|) of the published optimum
	assert.InDelta(t, fstar, out.Objective, 1e-4*math.Abs(fstar))
	var x1, x2 float64
	require.NoError(t, json.Unmarshal(out.Variables["x1"], &x1))
	require.NoError(t, json.Unmarshal(out.Variables["x2"], &x2))
	assert.InDelta(t, 0.5-math.Pi/3, x1, 1e-3)
	assert.InDelta(t, -0.5-math.Pi/3, x2, 1e-3)

	c := qrc(t, "", "check", path)
	require.Equal(t, 0, c.code, c.stderr)
	// sin'' = -sin reaches -1 on the range of x1 + x2; (x1 - x2)^2 is convex.
	assert.Contains(t, c.stdout, "objective  weakly convex: rho <= 2.0,")
}

// TestSolveNewFunctions: tan, atan, erf, log10, prod and x^y with a
// variable exponent in one model, solved, with the optimum known in closed
// form: every term is increasing in its variable on the box, so the
// minimum is at the lower corner.
func TestSolveNewFunctions(t *testing.T) {
	path := writeModel(t, "fns.qrc", `var x[3] in box(0.5, 1)
var y in box(1, 2)
minimize tan(x[1]) + atan(x[2]) + erf(x[3]) + log10(y) + prod(x) + y^x[1] + prod(j in 1..3) (1 + x[j])
subject to
    c: x[1]^y <= 0.9
`)
	out, r := solveOut(t, path)
	require.Equal(t, 0, r.code, r.stderr)
	want := math.Tan(0.5) + math.Atan(0.5) + math.Erf(0.5) + 0 + 0.125 + 1 + 1.5*1.5*1.5
	assert.InDelta(t, want, out.Objective, 1e-4*want)
	assert.LessOrEqual(t, out.Infeasibility, 1e-6)

	g := qrc(t, "", "gradcheck", path)
	require.Equal(t, 0, g.code, g.stdout+g.stderr)
	assert.Contains(t, g.stdout, "all 2 functions pass")
}

// TestVectorBoundsWithInf: inf inside the vector bounds of a box leaves
// those sides free, element by element, in the check summary (text and
// JSON), the start's projection and the solution.
func TestVectorBoundsWithInf(t *testing.T) {
	path := writeModel(t, "box.qrc", `var x[2] in box([-inf, -1.5], [inf, inf]) = [-5, -7]
var W[2, 2] in box([[0, -inf], [-1, 1]], [[inf, 2], [1, inf]])
minimize (x[1] - 3)^2 + (x[2] + 3)^2 + sum(j in 1..2) (W[1, j] - 5)^2 + (W[2, 1] + 4)^2 + (W[2, 2] + 4)^2
`)
	c := qrc(t, "", "check", path)
	require.Equal(t, 0, c.code, c.stderr)
	assert.Contains(t, c.stdout, "in box([-inf, -1.5], [inf, inf])")
	assert.Contains(t, c.stdout, "start [-5, -1.5]") // projected, with a warning
	assert.Contains(t, c.stderr, "outside its domain")

	type boxJSON struct {
		Variables []struct {
			Name   string `json:"name"`
			Domain struct {
				Kind string `json:"kind"`
				Lo   any    `json:"lo"`
				Hi   any    `json:"hi"`
			} `json:"domain"`
		} `json:"variables"`
	}
	j, r := jsonOut[boxJSON](t, false, "check", path)
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, j.Variables, 2)
	assert.Equal(t, []any{"-inf", -1.5}, j.Variables[0].Domain.Lo)
	assert.Equal(t, "inf", j.Variables[0].Domain.Hi) // a uniform bound is one value
	assert.Equal(t, []any{[]any{0.0, "-inf"}, []any{-1.0, 1.0}}, j.Variables[1].Domain.Lo)

	out, r := solveOut(t, path)
	require.Equal(t, 0, r.code, r.stderr)
	var x []float64
	var w [][]float64
	require.NoError(t, json.Unmarshal(out.Variables["x"], &x))
	require.NoError(t, json.Unmarshal(out.Variables["W"], &w))
	// each coordinate's minimiser clipped to its own bounds: the active
	// bounds exactly (projection), the free coordinates to the solver's
	// accuracy (its default eps 1e-3 on stationarity)
	assert.Equal(t, -1.5, x[1])
	assert.Equal(t, 2.0, w[0][1])
	assert.Equal(t, []float64{-1, 1}, w[1])
	assert.InDelta(t, 3, x[0], 1e-2)
	assert.InDelta(t, 5, w[0][0], 1e-2)

	bad := writeModel(t, "bad.qrc", "var x[2] in box([inf, 0], [inf, 1])\nminimize sum(x)\n")
	b := qrc(t, "", "check", bad)
	assert.Equal(t, 1, b.code)
	assert.Contains(t, b.stderr, "empty box: a lower bound of inf")
	inval := writeModel(t, "inval.qrc", "param p = [inf, 1]\nvar x[2] in box(p, 2)\nminimize sum(x)\n")
	b = qrc(t, "", "check", inval)
	assert.Equal(t, 1, b.code)
	assert.Contains(t, b.stderr, "inf is only meaningful as a bound of a box")
}

// TestNaturalSpellingsVerdicts: qrc check gives dot(x, x) and norm2(x)^2
// the verdict of sum(j) square(x[j]), and x' Q x with an indefinite Q the
// rho of its eigenvalue (Q_sym = [[1, 2], [2, -2]]: -3, so rho = 6).
func TestNaturalSpellingsVerdicts(t *testing.T) {
	path := writeModel(t, "spell.qrc", `param Q = [[1, 3], [1, -2]]
var x[2] in box(-1, 1)
minimize sum(j in 1..2) x[j] * dot(Q[j], x)
subject to
    a: dot(x, x) <= 4
    b: norm2(x)^2 <= 4
    c: sum(j in 1..2) square(x[j]) <= 4
`)
	r := qrc(t, "", "check", path)
	require.Equal(t, 0, r.code, r.stderr)
	// squares: convex; |2 x_j| <= 2 on each of 2
	for _, name := range []string{"a", "b", "c"} {
		assert.Contains(t, r.stdout, "\n  "+name+"          weakly convex: rho <= 0, M <= 4.0, smooth\n")
	}
	assert.Contains(t, r.stdout, "\n  objective  weakly convex: rho <= 6.0,")
}

// readFairness reads examples/data/fairness.csv (x1..x5, group, y) the
// plain way, for an independent reference.
func readFairness(t *testing.T, path string) (X [][]float64, group, y []float64) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		row := make([]float64, 7)
		for k := range row {
			row[k], err = strconv.ParseFloat(f[k], 64)
			require.NoError(t, err)
		}
		X = append(X, row[:5])
		group, y = append(group, row[5]), append(y, row[6])
	}
	return X, group, y
}

// accuracy is the share of rows with y * <X, w> > 0, and the share of
// group-g rows with <X, w> > 0.
func accuracy(X [][]float64, group, y, w []float64, g float64) (acc, pos float64) {
	n, ng := 0, 0
	for i, row := range X {
		s := 0.0
		for j, v := range row {
			s += v * w[j]
		}
		if y[i]*s > 0 {
			n++
		}
		if group[i] == g {
			ng++
			if s > 0 {
				pos++
			}
		}
	}
	return float64(n) / float64(len(X)), pos / float64(ng)
}

// TestEvalMetrics: qrc eval --metric computes hard rates with comparisons
// (0 or 1) on the training data and, through --data, on a held-out file;
// a comparison in the objective or a constraint stays an error that points
// to a smooth surrogate.
func TestEvalMetrics(t *testing.T) {
	w := []float64{0.5, -0.3, 0.2, 0.1, -0.4}
	dir := t.TempDir()
	at := filepath.Join(dir, "point.json")
	require.NoError(t, os.WriteFile(at, []byte(`{"variables": {"x": [0.5, -0.3, 0.2, 0.1, -0.4]}}`), 0o644))
	acc := `acc=mean(i in people) (people.y[i] * dot(people.X[i], x) > 0)`
	pos := `pos1=mean(i in people where people.group[i] == 1) (dot(people.X[i], x) > 0)`
	type metricsJSON struct {
		Metrics []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
		} `json:"metrics"`
	}
	X, group, y := readFairness(t, filepath.Join(repoRoot, "examples/data/fairness.csv"))
	wantAcc, wantPos := accuracy(X, group, y, w, 1)
	out, r := jsonOut[metricsJSON](t, false, "eval", "examples/fairness.qrc", "--at", at, "--metric", acc, "--metric", pos)
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, out.Metrics, 2)
	assert.Equal(t, "acc", out.Metrics[0].Name)
	assert.InDelta(t, wantAcc, out.Metrics[0].Value, 1e-12)
	assert.InDelta(t, wantPos, out.Metrics[1].Value, 1e-12)
	assert.Greater(t, wantAcc, 0.0) // the point is not degenerate
	assert.Less(t, wantAcc, 1.0)

	// A held-out file: the last 300 rows, with every other label flipped.
	raw, err := os.ReadFile(filepath.Join(repoRoot, "examples/data/fairness.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	held := []string{lines[0]}
	for k, l := range lines[len(lines)-300:] {
		if k%2 == 0 {
			if strings.HasSuffix(l, ",1") {
				l = strings.TrimSuffix(l, ",1") + ",-1"
			} else {
				l = strings.TrimSuffix(l, ",-1") + ",1"
			}
		}
		held = append(held, l)
	}
	heldPath := filepath.Join(dir, "held.csv")
	require.NoError(t, os.WriteFile(heldPath, []byte(strings.Join(held, "\n")+"\n"), 0o644))
	hX, hg, hy := readFairness(t, heldPath)
	wantHeld, _ := accuracy(hX, hg, hy, w, 1)
	require.NotEqual(t, wantAcc, wantHeld)
	out, r = jsonOut[metricsJSON](t, false, "eval", "examples/fairness.qrc", "--data", "people="+heldPath, "--at", at, "--metric", acc)
	require.Equal(t, 0, r.code, r.stderr)
	assert.InDelta(t, wantHeld, out.Metrics[0].Value, 1e-12)

	// The text report lists the metrics.
	txt := qrc(t, "", "eval", "examples/fairness.qrc", "--at", at, "--metric", acc)
	require.Equal(t, 0, txt.code, txt.stderr)
	assert.Contains(t, txt.stdout, "\nmetric  value")
	assert.Contains(t, txt.stdout, "\nacc     "+strconv.FormatFloat(wantAcc, 'g', 10, 64)+"  mean(i in people)")

	// Errors in a metric are positioned in it.
	bad := qrc(t, "", "eval", "examples/fairness.qrc", "--metric", "m=mean(i in people) (dot(people.X[i], z) > 0)")
	assert.Equal(t, 1, bad.code)
	assert.Contains(t, bad.stderr, `--metric m:1:37: unknown name "z"`)
	vec := qrc(t, "", "eval", "examples/fairness.qrc", "--metric", "v=(x > 0)")
	assert.Equal(t, 1, vec.code)
	assert.Contains(t, vec.stderr, "compares scalars, not a vector of length 5")

	// In a constraint the comparison is refused, pointing to sigmoid.
	path := writeModel(t, "cmp.qrc", "var x[3] in box(-1, 1)\nminimize sum(x)\nsubject to\n    rate: mean(i in 1..3) (x[i] > 0) <= 0.5\n")
	c := qrc(t, "", "check", path)
	assert.Equal(t, 1, c.code)
	assert.Contains(t, c.stderr, path+":4:33: a comparison is 0 or 1, a step that is not differentiable")
	assert.Contains(t, c.stderr, "sigmoid(k * (a - b))")
}

// TestEqualityConstraints: == constraints check (the summary shows them),
// format, evaluate (value and violation |f|) and solve: the only feasible
// point has w1 = w2 = a (w >= 0 and the two circles), 2a + w3 = 1 and
// a^2 + w3^2 = 1/2, so a = (4 - sqrt 6)/10 and w3 = (1 + sqrt 6)/5.
func TestEqualityConstraints(t *testing.T) {
	src := `var w[3] in box(0, 1) = [0.2, 0.3, 0.1]
minimize sum(j in 1..3) square(w[j] - 0.5)
subject to
    bal: sum(w) == 1
    circ[k in 1..2]: w[k]^2 + w[3]^2 == 0.5
    cap: w[1] <= 0.8
`
	path := writeModel(t, "eq.qrc", src)
	c := qrc(t, "", "check", path)
	require.Equal(t, 0, c.code, c.stderr)
	assert.Contains(t, c.stdout, "  bal: sum(w) == 1\n")
	assert.Contains(t, c.stdout, "  circ[k in 1..2]: w[k]^2 + w[3]^2 == 0.5\n")
	f := qrc(t, "", "fmt", path)
	require.Equal(t, 0, f.code, f.stderr)
	assert.Equal(t, src, f.stdout)

	type evalEq struct {
		Constraints []struct {
			Name      string  `json:"name"`
			Op        string  `json:"op"`
			Value     float64 `json:"value"`
			Violation float64 `json:"violation"`
		} `json:"constraints"`
		Infeasibility float64 `json:"infeasibility"`
	}
	e, r := jsonOut[evalEq](t, false, "eval", path)
	require.Equal(t, 0, r.code, r.stderr)
	require.Len(t, e.Constraints, 4)
	// at w = (0.2, 0.3, 0.1): sum 0.6, so f = -0.4 and |f| = 0.4;
	// 0.04 + 0.01 - 0.5 = -0.45; 0.09 + 0.01 - 0.5 = -0.4
	assert.Equal(t, "==", e.Constraints[0].Op)
	assert.InDelta(t, -0.4, e.Constraints[0].Value, 1e-15)
	assert.InDelta(t, 0.4, e.Constraints[0].Violation, 1e-15)
	assert.InDelta(t, 0.45, e.Constraints[1].Violation, 1e-15)
	assert.InDelta(t, 0.4, e.Constraints[2].Violation, 1e-15)
	assert.Equal(t, 0.0, e.Constraints[3].Violation) // 0.2 <= 0.8
	assert.InDelta(t, 0.45, e.Infeasibility, 1e-15)
	txt := qrc(t, "", "eval", path)
	assert.Contains(t, txt.stdout, "\nbal        -0.4   ==  1    0.4")

	type solved struct {
		Status        string               `json:"status"`
		Infeasibility float64              `json:"infeasibility"`
		OutsideTheory string               `json:"outside_theory"`
		Variables     map[string][]float64 `json:"variables"`
		Constraints   []struct {
			Name       string   `json:"name"`
			Op         string   `json:"op"`
			Value      float64  `json:"value"`
			Violation  float64  `json:"violation"`
			Multiplier *float64 `json:"multiplier"`
		} `json:"constraints"`
	}
	s, sr := jsonOut[solved](t, false, "solve", path)
	require.Equal(t, 0, sr.code, sr.stderr)
	assert.Equal(t, "converged", s.Status)
	assert.Contains(t, sr.stderr, `equality constraint "circ[1]" is not affine: the model is outside the weakly convex theory`)
	assert.Contains(t, s.OutsideTheory, `"circ[1]" is not affine`)
	a := (4 - math.Sqrt(6)) / 10
	// the feasible set is this one point: a point whose constraints are
	// met to 1e-6 is within 1e-6 ||(J)^-1|| of it, and the Jacobian J of
	// the three equalities there has smallest singular value 0.3101
	require.Len(t, s.Variables["w"], 3)
	for j, want := range []float64{a, a, 1 - 2*a} {
		assert.InDelta(t, want, s.Variables["w"][j], math.Sqrt(3)*1e-6/0.3101, "w[%d]", j+1)
	}
	assert.LessOrEqual(t, s.Infeasibility, 1e-6)
	require.Len(t, s.Constraints, 4)
	assert.Equal(t, "==", s.Constraints[0].Op)
	assert.Equal(t, "<=", s.Constraints[3].Op)
	for _, c := range s.Constraints[:3] {
		assert.LessOrEqual(t, c.Violation, 1e-6, c.Name)
		assert.InDelta(t, math.Abs(c.Value), c.Violation, 0, c.Name)
		assert.NotNil(t, c.Multiplier, c.Name)
	}
}
