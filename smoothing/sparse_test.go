package smoothing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/internal/shareddata"
	"github.com/qrc-lang/qrc/modelfile"
)

func TestMain(m *testing.M) { os.Exit(shareddata.Main(m)) }

// writeSparse writes an a9a-like libsvm file: rows with 14 of 123 binary
// features set, labels +-1 at random.
func writeSparse(t *testing.T, rows int, rng *rand.Rand) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < rows; i++ {
		if rng.IntN(4) == 0 {
			b.WriteString("+1")
		} else {
			b.WriteString("-1")
		}
		j := 0
		for k := 0; k < 14; k++ {
			j += 1 + rng.IntN(8)
			if j > 123 {
				break
			}
			fmt.Fprintf(&b, " %d:1", j)
		}
		b.WriteString("\n")
	}
	path := filepath.Join(t.TempDir(), "a.libsvm")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// On a9a-like sparse data (the hinge Neyman-Pearson model of issue 30),
// generated and, when ../shared/data has it, a9a.t itself, at random
// points (some with every score near a kink), the smoothed
// functions are never below the exact ones nor more than mu/8 above (a
// mean of hinges), and the tangent values never above them.
func TestSparseUpperApproximation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	t.Run("generated", func(t *testing.T) { checkSparse(t, writeSparse(t, 3000, rng), rng) })
	t.Run("a9a", func(t *testing.T) {
		checkSparse(t, shareddata.Require(t, "a9a.t"), rng)
	})
}

func checkSparse(t *testing.T, path string, rng *rand.Rand) {
	src := fmt.Sprintf(`
data test = libsvm(%q, features = 123)
var w[test.d] in ball(10)
var b in box(-10, 10)
func score(i) = dot(test.X[i], w) + b
minimize mean(i in test where test.y[i] == -1) hinge(-score(i))
subject to
    pos_loss: mean(i in test where test.y[i] == 1) hinge(score(i)) <= 0.3
`, path)
	m, _, d := modelfile.LoadSource("t.qrc", []byte(src), check.Options{Dir: t.TempDir()})
	require.NoError(t, d.Err())
	s, why, err := New(m)
	require.NoError(t, err)
	require.NotNil(t, s, why)
	exact, err := autodiff.Compile(m)
	require.NoError(t, err)
	n, nf := exact.NumVars(), len(exact.Functions())
	x := make([]float64, n)
	f, fm, tv := make([]float64, nf), make([]float64, nf), make([]float64, nf)
	for trial := 0; trial < 20; trial++ {
		scale := []float64{1e-3, 0.05, 0.3}[trial%3]
		for j := range x {
			x[j] = scale * rng.NormFloat64()
		}
		if trial%3 == 0 {
			// b (the last variable) at +-1 and w near 0: every score is
			// within 1e-2 of a kink of hinge(score) or hinge(-score)
			x[n-1] = float64(1 - 2*(trial/3%2))
		}
		require.NoError(t, exact.Eval(x, f))
		for _, mu := range []float64{1e-1, 1e-3, 1e-6, 1e-9} {
			s.SetMu(mu)
			require.NoError(t, s.Eval(x, fm))
			require.NoError(t, s.Tangent(x, tv))
			for i := range f {
				tol := 1e-12 * (1 + math.Abs(f[i]))
				require.GreaterOrEqual(t, fm[i], f[i]-tol, "f_mu >= f (f%d, mu %g, trial %d)", i, mu, trial)
				require.LessOrEqual(t, fm[i]-f[i], mu/8+tol, "f_mu - f <= mu/8 (f%d, mu %g)", i, mu)
				require.LessOrEqual(t, tv[i], f[i]+tol, "tangent value <= f (f%d, mu %g)", i, mu)
			}
		}
	}
}
