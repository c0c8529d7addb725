package main_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckWeakConvexityText(t *testing.T) {
	r := qrc(t, "", "check", "examples/phase.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "\nweak convexity (docs/analysis.md)\n")
	// mcp(z, 1, 2): curvature -1/gamma = -0.5 on each coordinate, slope
	// at most lambda = 1 on each of 8: rho 0.5, M <= 8.
	assert.Contains(t, r.stdout, "  budget     weakly convex: rho <= 0.50, M <= 8.0, nonsmooth\n")
	assert.Regexp(t, `\n  objective  weakly convex: rho <= [0-9.]+, M <= [0-9.]+, nonsmooth\n`, r.stdout)
	assert.Regexp(t, `\n  overall    weakly convex: rho <= [0-9.]+, M <= [0-9.]+, nonsmooth; X has diameter D <= 12\n`, r.stdout) // 4 sqrt 8 = 11.3
}

func TestCheckWeakConvexityRefused(t *testing.T) {
	path := writeModel(t, "model.qrc", "var x[2] in box(-1, 1)\nminimize x[2] - abs(x[1])\nsubject to\n    c: sigmoid(x[1]) <= 0.9\n")
	r := qrc(t, "", "check", path)
	require.Equal(t, 0, r.code, "a model outside the class is still valid: %s", r.stderr)
	assert.Contains(t, r.stdout, "objective  not provably weakly convex: "+path+":2:10: x[2] - abs(x[1]): a negative multiple of a term with a convex kink")
	// sigmoid on [-1, 1]: the most negative sigmoid'' at log(2+sqrt 3) = 1.32
	// lies outside; on [0, 1] sigmoid'' decreases, to s(1-s)(1-2s) at 1.
	assert.Contains(t, r.stdout, "c          weakly convex: rho <= 0.091, M <= 0.25, smooth\n")
	assert.Contains(t, r.stdout, "overall    not provably weakly convex (objective is not)")
}

func TestCheckWeakConvexityJSON(t *testing.T) {
	path := writeModel(t, "model.qrc", "var x[2] in box(-1, 2)\nminimize sigmoid(x[1]) + abs(x[2])\nsubject to\n    c: min(x[1], x[2]) <= 0\n")
	type checkOut struct {
		Valid         bool `json:"valid"`
		WeakConvexity struct {
			Weak      bool     `json:"weak"`
			Rho       *float64 `json:"rho"`
			Diameter  float64  `json:"diameter"`
			Functions []struct {
				Name    string   `json:"name"`
				Weak    bool     `json:"weak"`
				Rho     *float64 `json:"rho"`
				M       *float64 `json:"m"`
				Smooth  bool     `json:"smooth"`
				Range   []float64
				Refused *struct{ Pos, Expr, Reason string }
			} `json:"functions"`
		} `json:"weak_convexity"`
	}
	out, r := jsonOut[checkOut](t, false, "check", path)
	require.Equal(t, 0, r.code, r.stderr)
	require.True(t, out.Valid)
	wc := out.WeakConvexity
	assert.False(t, wc.Weak)
	assert.Nil(t, wc.Rho)
	assert.InDelta(t, 3*math.Sqrt2, wc.Diameter, 1e-12)
	require.Len(t, wc.Functions, 2)
	obj := wc.Functions[0]
	require.True(t, obj.Weak)
	// sigmoid'' is most negative, -1/(6 sqrt 3), at log(2 + sqrt 3) = 1.32
	// in [-1, 2]; the slope bound is sigmoid'(0) + 1 for abs.
	assert.InEpsilon(t, 1/(6*math.Sqrt(3)), *obj.Rho, 1e-9)
	assert.InEpsilon(t, 1.25, *obj.M, 1e-9)
	assert.False(t, obj.Smooth)
	c := wc.Functions[1]
	assert.False(t, c.Weak)
	assert.Nil(t, c.Rho)
	require.NotNil(t, c.Refused)
	assert.Equal(t, path+":4:8", c.Refused.Pos)
	assert.Equal(t, "min(x[1], x[2])", c.Refused.Expr)
	assert.Contains(t, c.Refused.Reason, "concave kink")
}

func TestCheckExplain(t *testing.T) {
	csv, err := filepath.Abs(filepath.Join(repoRoot, "examples", "data", "fairness.csv"))
	require.NoError(t, err)
	// the sigmoid-loss classifier of the first fairness example
	model := writeModel(t, "model.qrc", `data people = csv("`+csv+`", label = "y", drop = ["group"])
var x[people.d] in ball(5)
func phi(z) = 1 / (1 + exp(z))
minimize mean(i in people) phi(people.y[i] * dot(people.X[i], x))
`)
	r := qrc(t, "", "check", "--explain", "objective", model)
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(r.stdout, "\n")
	assert.Regexp(t, `^objective: weakly convex: rho <= [0-9.]+, M <= [0-9.]+, smooth$`, lines[0])
	assert.Regexp(t, `^  mean\(i in people\) phi\(people.y\[i\] \* dot\(people.X\[i\], x\)\)  \[mean, at 1 point\(s\)\]  range \[.*\], rho <= `, lines[1])
	assert.Regexp(t, `^    1 / \(1 \+ exp\(z\)\)  \[one-variable, at 1000 point\(s\)\]`, lines[2])
	assert.Contains(t, r.stdout, "one variable u = people.y[i] * dot(people.X[i], x)")

	r = qrc(t, "", "check", "--explain", "cap[11]", "examples/npc.qrc")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `qrc check: --explain: no function "cap[11]"; the model's functions are objective, cap[2], cap[3]`)

	r = qrc(t, "", "check", "--explain", "objective", "--json", "examples/npc.qrc")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "does not combine with --json")
}

// smoothModel: sigmoid(x[1]) + tanh(x[2]) on [-1, 2]^2 has Hessian
// diag(sigmoid”, tanh”), most negative -1/(6 sqrt 3) and -4/(3 sqrt 3)
// (at log(2+sqrt 3) = 1.32 and atanh(1/sqrt 3) = 0.66, both in [-1, 2]), so
// rho = 4/(3 sqrt 3) on its own coordinate; the constraint is affine.
const smoothModel = "var x[2] in box(-1, 2)\nminimize sigmoid(x[1]) + tanh(x[2])\nsubject to\n    c: x[1] + x[2] <= 1\n"

type solveSettingsJSON struct {
	Status       string `json:"status"`
	RhoDoublings int    `json:"rho_doublings"`
	Settings     struct {
		RhoHat      float64 `json:"rho_hat"`
		RhoHatStart float64 `json:"rho_hat_start"`
		Rho         float64 `json:"rho"`
		EpsHat      float64 `json:"eps_hat"`
		InnerStart  int     `json:"inner_start"`
		Outer       int     `json:"outer"`
	} `json:"settings"`
}

// The switching oracle starts RhoHat at twice the derived rho; the
// accurate oracles start it at 1 and report whether the certificate's Rho
// reached the proven bound.
func TestSolveUsesDerivedRho(t *testing.T) {
	path := writeModel(t, "model.qrc", smoothModel)
	rho := 4 / (3 * math.Sqrt(3))
	acc, r := jsonOut[struct {
		solveSettingsJSON
		RhoProven bool `json:"rho_proven"`
	}](t, false, "solve", path, "--outer", "3")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "qrc solve: rho <= 0.77 by the weak-convexity analysis; the smooth oracle starts RhoHat at 1 and moves it on evidence")
	assert.Equal(t, 1.0, acc.Settings.RhoHatStart)
	assert.Equal(t, acc.Settings.Rho >= rho, acc.RhoProven, "rho_proven says whether the final Rho reaches the bound")

	s, r := jsonOut[solveSettingsJSON](t, false, "solve", path, "--outer", "3", "--inner", "200", "--oracle", "switching")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "qrc solve: rho = 0.77 from the weak-convexity analysis (qrc check --explain shows it); RhoHat starts at 1.54\n")
	assert.InEpsilon(t, 2*rho, s.Settings.RhoHatStart, 1e-9)
	require.Equal(t, 0, s.RhoDoublings)
	assert.InEpsilon(t, rho, s.Settings.Rho, 1e-9)

	// --rho-hat given: the analysis does not set rho (the default, half).
	s, r = jsonOut[solveSettingsJSON](t, false, "solve", path, "--outer", "3", "--inner", "200", "--rho-hat", "3", "--oracle", "switching")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stderr, "from the weak-convexity analysis")
	assert.Equal(t, 3.0, s.Settings.RhoHatStart)
	require.Equal(t, 0, s.RhoDoublings)
	assert.Equal(t, 1.5, s.Settings.Rho)
}

// TestSolveDerivedRhoNoDoublings: on examples/phase.qrc (nonsmooth, rho <=
// 2.83 by the analysis) the switching oracle from the derived start takes
// K doublings where its safeguard fails, never RhoHat doublings, and
// converges; from RhoHat 1 (no proven modulus) the same safeguard doubles
// RhoHat.
func TestSolveDerivedRhoNoDoublings(t *testing.T) {
	s, r := jsonOut[solveSettingsJSON](t, false, "solve", "examples/phase.qrc", "--oracle", "switching")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "converged", s.Status)
	assert.Equal(t, 0, s.RhoDoublings)
	assert.Equal(t, s.Settings.RhoHatStart, s.Settings.RhoHat)
	assert.Greater(t, s.Settings.RhoHatStart, 1.0)

	s, r = jsonOut[solveSettingsJSON](t, false, "solve", "examples/phase.qrc", "--oracle", "switching", "--rho-hat", "1", "--outer", "5")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Greater(t, s.RhoDoublings, 0)
}

func TestSolveLargeDerivedRhoKeepsDefault(t *testing.T) {
	// -100 x^2 on [-1, 1]: rho = 200, so 2 rho > 64.
	path := writeModel(t, "model.qrc", "var x in box(-1, 1) = 0.5\nminimize -100 * x^2\n")
	s, r := jsonOut[solveSettingsJSON](t, false, "solve", path, "--outer", "2", "--inner", "50", "--oracle", "switching")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "the weak-convexity analysis bounds rho by 200 over all of X; starting RhoHat at twice that would make the steps tiny, so it starts at 1")
	assert.Equal(t, 1.0, s.Settings.RhoHatStart)
}

func TestSolveWarnsNotWeaklyConvex(t *testing.T) {
	path := writeModel(t, "model.qrc", "var x[2] in box(-1, 1) = 0.5\nminimize x[2] - abs(x[1])\n")
	s, r := jsonOut[solveSettingsJSON](t, false, "solve", path, "--outer", "2", "--inner", "50")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "qrc solve: warning: objective is not provably weakly convex ("+path+":2:10: x[2] - abs(x[1]): a negative multiple of a term with a convex kink")
	assert.Contains(t, r.stderr, "a certificate holds only locally")
	assert.Equal(t, 1.0, s.Settings.RhoHatStart)
}

// TestSolveTheory recomputes the printed EpsHat, K and T from the printed
// rho, M, D, sigma and f(x0) - f_lb with the paper's formulas, and checks
// the solve used them.
func TestSolveTheory(t *testing.T) {
	path := writeModel(t, "model.qrc", "var x[2] in box(-1, 2) = 1\nminimize sigmoid(x[1]) + tanh(x[2])\nsubject to\n    c: x[1] + x[2] <= 3\n")
	s, r := jsonOut[solveSettingsJSON](t, false, "solve", path, "--theory", "--sigma", "2", "--eps", "0.1", "--time-limit", "1s")
	require.Equal(t, 0, r.code, r.stderr)
	var rho, m, d, sigma, gap, rhoHat, epsHat, k, tt float64
	line := r.stderr[strings.Index(r.stderr, "--theory:"):]
	_, err := fmt.Sscanf(line, "--theory: rho = %g, M = %g, D = %g, sigma = %g, f(x0) - f_lb <= %g: RhoHat = %g, EpsHat = %g (Algorithm 1), K = %g (Algorithm 2, line 3), T = %g (Theorem 1)",
		&rho, &m, &d, &sigma, &gap, &rhoHat, &epsHat, &k, &tt)
	require.NoError(t, err, line)
	assert.InEpsilon(t, 4/(3*math.Sqrt(3)), rho, 1e-3)
	assert.InEpsilon(t, math.Sqrt2, m, 1e-3) // the constraint's ||(1, 1)||, above the objective's 1/4 + 1
	assert.InEpsilon(t, 3*math.Sqrt2, d, 1e-3)
	assert.Equal(t, 2.0, sigma)
	assert.InEpsilon(t, 2*rho, rhoHat, 1e-3)
	mu := rhoHat - rho
	wantEps := math.Min(1, math.Sqrt(mu/4)*math.Pow((m+rhoHat*d)/math.Sqrt(2*sigma*mu)+1, -0.5)) * 0.1
	assert.InEpsilon(t, wantEps, epsHat, 2e-3)
	assert.InEpsilon(t, math.Ceil(4*(m*m+rhoHat*d*d)/(mu*wantEps*wantEps)), k, 5e-3)
	// f(x0) = sigmoid(1) + tanh(1); f_lb = sigmoid(-1) + tanh(-1).
	wantGap := stdSigmoid(1) + math.Tanh(1) - stdSigmoid(-1) - math.Tanh(-1)
	assert.InEpsilon(t, wantGap, gap, 1e-3)
	assert.InEpsilon(t, math.Ceil(4*wantGap/(0.01*mu)), tt, 1e-3)
	assert.InEpsilon(t, epsHat, s.Settings.EpsHat, 1e-3)
	assert.InEpsilon(t, k, float64(s.Settings.InnerStart), 1e-3)
	assert.InEpsilon(t, tt, float64(s.Settings.Outer), 1e-3)
	assert.InEpsilon(t, rhoHat, s.Settings.RhoHatStart, 1e-3)

	r = qrc(t, "", "solve", "--theory", "--quiet", writeModel(t, "model.qrc", "var x in box(-1, 1)\nminimize -abs(x)\n"))
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--theory needs every function provably weakly convex")
}

func stdSigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
