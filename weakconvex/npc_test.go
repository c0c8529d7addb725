package weakconvex

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/problem"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

const pendigits = "../../shared/data/pendigits.scale"

// TestNPCPendigitsTight compares the derived rho of examples/npc.qrc on
// pendigits.scale with the true modulus, estimated as the most negative
// eigenvalue of each function's Hessian (central differences of autodiff
// gradients) at random points of X: the bound must hold (up to the
// differences' error) and be within a factor of 10.
func TestNPCPendigitsTight(t *testing.T) {
	if _, err := os.Stat(pendigits); err != nil {
		t.Skipf("the pendigits data are not here (%v)", err)
	}
	if testing.Short() {
		t.Skip("finite-difference Hessians over 7494 rows take a while")
	}
	m, _, diags := modelfile.Load("../examples/npc.qrc", check.Options{Data: []check.Assign{{Name: "train", Value: pendigits}}})
	require.NotNil(t, m, "%v", diags)
	r := Analyze(m)
	require.NoError(t, r.Err)
	require.True(t, r.Weak, r.Verdict())
	prog, err := autodiff.Compile(m)
	require.NoError(t, err)
	p := problem.New(m, prog, problem.Options{})
	n, nf := p.N, p.M+1
	rng := rand.New(rand.NewPCG(3, 5))
	est := make([]float64, nf)
	const h = 1e-4
	vals := make([]float64, nf)
	w := make([]float64, nf)
	gp, gm := make([]float64, n), make([]float64, n)
	W := m.Vars[0]
	lambda := W.Domain.Radius
	for pt := 0; pt < 3; pt++ {
		// Rows on the sphere of radius lambda, where the margins, and
		// with them the curvature of the sigmoid loss, are largest.
		x := make([]float64, n)
		for k := 0; k < W.Shape[0]; k++ {
			row := W.Of(x)[k*W.Shape[1] : (k+1)*W.Shape[1]]
			for j := range row {
				row[j] = rng.NormFloat64()
			}
			s := lambda / math.Sqrt(sumsq(row))
			for j := range row {
				row[j] *= s
			}
		}
		H := make([]*mat.Dense, nf)
		for i := range H {
			H[i] = mat.NewDense(n, n, nil)
		}
		for j := 0; j < n; j++ {
			xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
			xp[j] += h
			xm[j] -= h
			for i := 0; i < nf; i++ {
				clear(w)
				w[i] = 1
				require.NoError(t, p.Eval(xp, vals))
				require.NoError(t, p.Grad(w, gp))
				require.NoError(t, p.Eval(xm, vals))
				require.NoError(t, p.Grad(w, gm))
				for k := 0; k < n; k++ {
					H[i].Set(k, j, (gp[k]-gm[k])/(2*h))
				}
			}
		}
		for i := 0; i < nf; i++ {
			sym := mat.NewSymDense(n, nil)
			for a := 0; a < n; a++ {
				for b := a; b < n; b++ {
					sym.SetSym(a, b, (H[i].At(a, b)+H[i].At(b, a))/2)
				}
			}
			var eig mat.EigenSym
			require.True(t, eig.Factorize(sym, false))
			est[i] = math.Max(est[i], -eig.Values(nil)[0])
		}
	}
	worst := 0.0
	for i, f := range r.Functions {
		t.Logf("%s: derived rho %.3g, estimated %.3g", f.Name, f.Rho, est[i])
		require.GreaterOrEqual(t, f.Rho, est[i]*0.999, "%s: the bound is below the estimate", f.Name)
		worst = math.Max(worst, est[i])
	}
	t.Logf("overall: derived rho %.3g, estimated %.3g", r.Rho, worst)
	require.LessOrEqual(t, r.Rho, 10*worst, "the derived rho is more than 10 times the estimate")
}
