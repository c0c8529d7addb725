package main_test

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// verdictJSON is the part of qrc solve --json the verdict tests read.
type verdictJSON struct {
	Status        string                    `json:"status"`
	Objective     float64                   `json:"objective"`
	Infeasibility float64                   `json:"infeasibility"`
	Stationary    bool                      `json:"stationary"`
	Verdict       string                    `json:"verdict"`
	Variables     map[string]any            `json:"variables"`
	Constraints   []struct{ Value float64 } `json:"constraints"`
	Restarts      *struct {
		Phase1 string  `json:"phase1"`
		Tried  int     `json:"tried"`
		Used   int     `json:"used"`
		Scale  float64 `json:"scale"`
	} `json:"restarts"`
}

// writeModel writes src to a model file in a temporary directory.
func writeModel(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

// min ||x - c||^2 s.t. norm2(x)^2 >= 1 from x = 0, where the violation's
// subgradient is 0. With ||c|| = 0.5 the solution is c/||c|| = (0.6, 0.8)
// and the optimum (1 - 0.5)^2 = 0.25.
const outsideBall = `param c = [0.3, 0.4]
var x[2] in box(-2, 2)
minimize norm2(x - c)^2
subject to
    outside: norm2(x)^2 >= 1
`

func TestSolveLocallyInfeasible(t *testing.T) {
	model := writeModel(t, "outside.qrc", outsideBall)

	// the default (accurate) oracle: the elastic phase 1 and the probe
	// around its stationary point leave x = 0 without a restart
	s, r := jsonOut[verdictJSON](t, false, "solve", "--quiet", "--restarts", "0", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	assert.InDelta(t, 0.25, s.Objective, 1e-6)
	assert.LessOrEqual(t, s.Infeasibility, 1e-6)

	// the paper's phase 1 alone (the switching oracle), without restarts:
	// exit 3 and the verdict says why, and what to do
	r = qrc(t, "", "solve", "--quiet", "--oracle", "switching", "--restarts", "0", model)
	require.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stdout, "status         infeasible\n")
	assert.Contains(t, r.stdout, "verdict        locally infeasible: phase 1 stopped at a stationary point of the violation; the model may be feasible from another start (--start); no other start was tried (--restarts 0)\n")
	s, _ = jsonOut[verdictJSON](t, false, "solve", "--quiet", "--oracle", "switching", "--restarts", "0", model)
	assert.Equal(t, "infeasible", s.Status)
	require.NotNil(t, s.Restarts)
	assert.Equal(t, "stationary", s.Restarts.Phase1)
	assert.Equal(t, 0, s.Restarts.Tried)

	// by default, phase 1 retries from perturbed starts: the first one
	// reaches the solution
	r = qrc(t, "", "solve", "--oracle", "switching", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "qrc solve: phase 1 found no feasible point from this start; restart 1 of 4 from a perturbed start (scale 0.1, --seed 1)")
	assert.Contains(t, r.stdout, "verdict        phase 1 stopped at a stationary point of the violation from the given start; restart 1 (a perturbed start, scale 0.1, --seed 1) found this feasible point\n")
	s, r = jsonOut[verdictJSON](t, false, "solve", "--quiet", "--oracle", "switching", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, s.Status == "converged" || s.Status == "iteration_limit", s.Status)
	assert.LessOrEqual(t, s.Infeasibility, 1e-3)
	assert.InDelta(t, 0.25, s.Objective, 2e-3)
	x := s.Variables["x"].([]any)
	assert.InDelta(t, 0.6, x[0].(float64), 0.02)
	assert.InDelta(t, 0.8, x[1].(float64), 0.02)
	require.NotNil(t, s.Restarts)
	assert.Equal(t, 1, s.Restarts.Used)

	// a model infeasible everywhere: every restart fails, and says so
	r = qrc(t, "", "solve", "--quiet", "cmd/qrc/testdata/parity_infeasible.qrc", "--outer", "20", "--restarts", "2")
	require.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stdout, "; 2 perturbed start(s) (--restarts, --seed 1) found none either")
}

// adviceFlag extracts the setting the verdict recommends, e.g.
// "(e.g. --outer 200)" gives ["--outer", "200"].
func adviceFlag(t *testing.T, verdict string) []string {
	t.Helper()
	m := regexp.MustCompile(`\(e\.g\. (--[a-z-]+) (\S+)\)`).FindStringSubmatch(verdict)
	require.NotNil(t, m, "the verdict names a setting: %q", verdict)
	return m[1:]
}

// fairness.qrc with delta = 1 (no active constraint) and the switching
// oracle (Algorithm 2) does not stop within 50 outer iterations: the steps
// are still longer than eps. (The default smooth oracle converges there.) The
// verdict says so and recommends --outer; following it converges, and
// lowers the objective.
func TestSolveIterationLimitAdviceOuter(t *testing.T) {
	s, r := jsonOut[verdictJSON](t, false, "solve", "--quiet", "--oracle", "switching", "examples/fairness.qrc", "--set", "delta=1", "--outer", "50")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "iteration_limit", s.Status)
	assert.Contains(t, s.Verdict, "stopped on the outer-iteration limit while the iterates were still moving")
	advice := adviceFlag(t, s.Verdict)
	assert.Equal(t, []string{"--outer", "200"}, advice)

	s2, r2 := jsonOut[verdictJSON](t, false, "solve", append([]string{"--quiet", "--oracle", "switching", "examples/fairness.qrc", "--set", "delta=1"}, advice...)...)
	require.Equal(t, 0, r2.code, r2.stderr)
	assert.Equal(t, "converged", s2.Status)
	assert.True(t, s2.Stationary)
	assert.Empty(t, s2.Verdict)
	assert.Less(t, s2.Objective, s.Objective)
}

// cvarData writes n scenarios of the returns of five assets, means 2% to
// 14% and standard deviations 5% to 45% (in percent), from a fixed seed.
func cvarData(t *testing.T, dir string, n int) (path string, X [][]float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 17))
	mu := []float64{2, 5, 8, 11, 14}
	sd := []float64{5, 10, 20, 30, 45}
	path = filepath.Join(dir, "returns.csv")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "r1,r2,r3,r4,r5,y")
	for range n {
		row := make([]float64, len(mu))
		for j := range row {
			row[j] = math.Round((mu[j]+sd[j]*rng.NormFloat64())*1e4) / 1e4
			fmt.Fprintf(w, "%.4f,", row[j])
		}
		fmt.Fprintln(w, "0")
		X = append(X, row)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return path, X
}

// cvarOptimum solves the CVaR-capped portfolio as the linear program of
// Rockafellar & Uryasev: max mean(R w) s.t. t + sum_i u_i / (n (1-alpha))
// <= c, u_i >= -R_i w - t, u >= 0, w in the simplex, with gonum's simplex
// method (an independent reference). It returns the optimal mean return.
func cvarOptimum(t *testing.T, R [][]float64, alpha, c float64) float64 {
	n, d := len(R), len(R[0])
	// variables: w (d), t+ and t-, u (n), the slack of the CVaR row, the
	// slacks of the n scenario rows; all >= 0
	nv := d + 2 + n + 1 + n
	A := mat.NewDense(n+2, nv, nil)
	b := make([]float64, n+2)
	obj := make([]float64, nv)
	for j := range d {
		for i := range n {
			obj[j] -= R[i][j] / float64(n)
		}
	}
	A.Set(0, d, 1)
	A.Set(0, d+1, -1)
	for i := range n {
		A.Set(0, d+2+i, 1/(float64(n)*(1-alpha)))
	}
	A.Set(0, d+2+n, 1)
	b[0] = c
	for i := range n {
		for j := range d {
			A.Set(1+i, j, -R[i][j])
		}
		A.Set(1+i, d, -1)
		A.Set(1+i, d+1, 1)
		A.Set(1+i, d+2+i, -1)
		A.Set(1+i, d+3+n+i, 1)
	}
	for j := range d {
		A.Set(n+1, j, 1)
	}
	b[n+1] = 1
	opt, _, err := lp.Simplex(obj, A, b, 0, nil)
	require.NoError(t, err)
	return opt
}

// A CVaR-capped portfolio, convex, in percent units: the safeguard
// mistakes the loosely solved subproblems for nonconvexity and raises
// rho_hat until the steps are tiny, and the run ends on the outer limit
// more than 0.5% above the optimum. The verdict says so and recommends
// --inner; following it gets within 0.05% of the optimum of the LP.
func TestSolveIterationLimitAdviceInner(t *testing.T) {
	dir := t.TempDir()
	data, R := cvarData(t, dir, 200)
	const alpha, c = 0.95, 10.0
	model := filepath.Join(dir, "cvar.qrc")
	require.NoError(t, os.WriteFile(model, []byte(strings.ReplaceAll(`data R = csv("DATA", label = "y")
param alpha = 0.95
param c = 10
var w[R.d] in simplex
var t in box(-100, 100)
minimize -mean(i in R) dot(R.X[i], w)
subject to
    cvar: t + mean(i in R) max(0, -dot(R.X[i], w) - t) / (1 - alpha) <= c
`, "DATA", data)), 0o644))
	opt := cvarOptimum(t, R, alpha, c)
	require.Less(t, opt, 0.0)

	s, r := jsonOut[verdictJSON](t, false, "solve", "--quiet", "--oracle", "switching", model)
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, "iteration_limit", s.Status)
	gap := (s.Objective - opt) / math.Abs(opt)
	require.Greater(t, gap, 0.005, "the default run stops short (objective %v, optimum %v)", s.Objective, opt)
	assert.Contains(t, s.Verdict, "the safeguard raised rho_hat")
	advice := adviceFlag(t, s.Verdict)
	assert.Equal(t, []string{"--inner", "4000"}, advice)

	s2, r2 := jsonOut[verdictJSON](t, false, "solve", append([]string{"--quiet", "--oracle", "switching", model}, advice...)...)
	require.Equal(t, 0, r2.code, r2.stderr)
	assert.LessOrEqual(t, s2.Infeasibility, 1e-3)
	gap2 := (s2.Objective - opt) / math.Abs(opt)
	assert.Less(t, math.Abs(gap2), 5e-4, "with the advice: objective %v, optimum %v", s2.Objective, opt)
}
