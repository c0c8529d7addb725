package weakconvex

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/problem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomPoint draws a point of X: uniform in a box, a Gaussian projected
// onto a ball, ball rows or simplex (so both inside and on the boundary),
// a Gaussian of scale 3 for an unbounded variable.
func randomPoint(m *check.Model, rng *rand.Rand) []float64 {
	x := make([]float64, m.NumScalars)
	for _, v := range m.Vars {
		xv := v.Of(x)
		d := v.Domain
		switch {
		case d == nil || d.Kind == domain.Unbounded:
			for i := range xv {
				xv[i] = 3 * rng.NormFloat64()
			}
		case d.Kind == domain.Box:
			for i := range xv {
				lo, hi := math.Max(d.Lo[i], -10), math.Min(d.Hi[i], 10)
				xv[i] = lo + (hi-lo)*rng.Float64()
			}
		default:
			s := d.Radius * (0.3 + rng.Float64()) / math.Sqrt(float64(len(xv)))
			for i := range xv {
				xv[i] = s * rng.NormFloat64()
			}
			d.Project(xv)
		}
	}
	return x
}

// near moves x by a small random step and projects back onto X: pairs of
// nearby points are where a missing curvature bound shows.
func near(m *check.Model, x []float64, step float64, rng *rand.Rand) []float64 {
	y := make([]float64, len(x))
	for i := range y {
		y[i] = x[i] + step*rng.NormFloat64()
	}
	for _, v := range m.Vars {
		if v.Domain != nil {
			v.Domain.Project(v.Of(y))
		}
	}
	return y
}

// checkSound asserts, at pairs random pairs of points of X, that every
// function the analysis calls weakly convex satisfies
// f(y) >= f(x) + <g, y - x> - rho/2 ||y - x||^2 with autodiff's
// subgradient g, and ||g|| <= M. It returns the number of functions
// checked.
func checkSound(t *testing.T, name string, m *check.Model, pairs int) int {
	t.Helper()
	r := Analyze(m)
	require.NoError(t, r.Err, name)
	prog, err := autodiff.Compile(m)
	require.NoError(t, err, name)
	p := problem.New(m, prog, problem.Options{})
	nf := p.M + 1
	vx, vy := make([]float64, nf), make([]float64, nf)
	w := make([]float64, nf)
	g := make([][]float64, nf)
	for i := range g {
		g[i] = make([]float64, p.N)
	}
	rng := rand.New(rand.NewPCG(7, uint64(len(name))))
	checked := 0
	for k := 0; k < pairs; k++ {
		x := randomPoint(m, rng)
		var y []float64
		switch k % 3 {
		case 0:
			y = randomPoint(m, rng)
		case 1:
			y = near(m, x, 0.1, rng)
		default:
			y = near(m, x, 1e-3, rng)
		}
		require.NoError(t, p.Eval(y, vy))
		require.NoError(t, p.Eval(x, vx))
		for i := range w {
			clear(w)
			w[i] = 1
			require.NoError(t, p.Grad(w, g[i]))
		}
		d2, gd := 0.0, make([]float64, nf)
		for j := range x {
			dj := y[j] - x[j]
			d2 += dj * dj
			for i := range gd {
				gd[i] += g[i][j] * dj
			}
		}
		for i, f := range r.Functions {
			if !f.Weak {
				continue
			}
			if k == 0 {
				checked++
			}
			gn := math.Sqrt(sumsq(g[i]))
			require.LessOrEqual(t, gn, f.M*(1+1e-9)+1e-12, "%s %s: ||g|| = %v > M = %v at %v", name, f.Name, gn, f.M, x)
			model := vx[i] + gd[i] - f.Rho/2*d2
			tol := 1e-9 * (1 + math.Abs(vx[i]) + math.Abs(vy[i]) + math.Abs(gd[i]))
			require.GreaterOrEqual(t, vy[i], model-tol, "%s %s: f(y) = %v below the lower model %v (rho = %v, |y-x| = %v)", name, f.Name, vy[i], model, f.Rho, math.Sqrt(d2))
			require.True(t, f.Range.Contains(vx[i]), "%s %s: f(x) = %v outside the range %v", name, f.Name, vx[i], f.Range)
		}
	}
	return checked
}

func TestSoundTable(t *testing.T) {
	for _, c := range table {
		if c.why != "" {
			continue
		}
		m := loadExpr(t, c.expr)
		require.Equal(t, 1, checkSound(t, c.expr, m, 600), c.expr)
	}
}

// soundOnly are expressions whose bounds have no short hand derivation:
// only their soundness is checked (and that they are proven at all).
var soundOnly = []string{
	"prod(x)",
	"prod(j in 1..3) (x[j] + 2)",
	"(x[1] + 2)^y",
	"y^x[2]",
	"2^x[1] + x[2]^2",
	"x[1] * sin(x[2])",
	"sin(x[1]) * cos(x[2]) - tan(y / 2)",
	"x[1] * x[2] * x[3] - dot(x, x)",
	"sq(y)^(x[1] / 4)",
}

func TestSoundProducts(t *testing.T) {
	for _, e := range soundOnly {
		m := loadExpr(t, e)
		require.Equal(t, 1, checkSound(t, e, m, 900), e)
	}
}

func TestSoundModels(t *testing.T) {
	files, err := filepath.Glob("../examples/*.qrc")
	require.NoError(t, err)
	corpus, err := filepath.Glob("testdata/*.qrc")
	require.NoError(t, err)
	require.NotEmpty(t, corpus)
	for _, f := range append(files, corpus...) {
		m, _, diags := modelfile.Load(f, check.Options{})
		require.NotNil(t, m, "%s: %v", f, diags)
		// npc.qrc has ten functions over 3000 rows: fewer pairs keep the
		// test within seconds.
		pairs := 2000
		if filepath.Base(f) == "npc.qrc" {
			pairs = 300
		}
		if why, ok := notProvable[filepath.Base(f)]; ok {
			r := Analyze(m)
			require.NoError(t, r.Err, f)
			require.False(t, r.Weak, f)
			require.NotNil(t, r.Functions[0].Why, f)
			assert.Contains(t, r.Functions[0].Why.Reason, why, f)
			continue
		}
		n := checkSound(t, f, m, pairs)
		require.Equal(t, len(m.Constraints)+1, n, "%s: every function is weakly convex", f)
	}
}

// notProvable are the examples whose objective the rules cannot prove
// weakly convex, with the reason they give: Wolfe's function is convex,
// but written piece by piece with a conditional on the variables.
var notProvable = map[string]string{
	"wolfe.qrc": "a conditional whose condition depends on the variables",
}
