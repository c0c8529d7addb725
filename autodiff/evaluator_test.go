package autodiff

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
)

// evaluatorResults returns what e computes at x on all rows or on a
// sample of a third of every sample set's rows drawn with rng: the values,
// the gradient of a weighted sum, and the Jacobian.
type evaluatorLike interface {
	Functions() []Function
	NumVars() int
	Samples() []Sample
	Eval(x, values []float64) error
	Gradient(w, g []float64) error
	Jacobian(rows [][]float64) error
	SetSample(s int, positions []int) error
	ResetSamples()
}

func evaluatorResults(e evaluatorLike, x []float64, sampled bool, rng *rand.Rand) ([][]float64, error) {
	nf, nv := len(e.Functions()), e.NumVars()
	e.ResetSamples()
	if sampled {
		for s, smp := range e.Samples() {
			if err := e.SetSample(s, rng.Perm(smp.Rows)[:smp.Rows/3]); err != nil {
				return nil, err
			}
		}
	}
	vals := make([]float64, nf)
	if err := e.Eval(x, vals); err != nil {
		return nil, err
	}
	w := make([]float64, nf)
	for f := range w {
		w[f] = rng.Float64()
	}
	g := make([]float64, nv)
	if err := e.Gradient(w, g); err != nil {
		return nil, err
	}
	rows := make([][]float64, nf)
	for f := range rows {
		rows[f] = make([]float64, nv)
	}
	if err := e.Jacobian(rows); err != nil {
		return nil, err
	}
	return append([][]float64{vals, g}, rows...), nil
}

// TestEvaluatorsAtOnce: one compiled program evaluated by 8 evaluators
// at once, each at its own point and on its own sample of the rows (or all
// of them), every phase on every core, gives bit for bit the values,
// gradients and Jacobians of the program's own methods run one call after
// the other; on npc.qrc (rows in blocks, early tails), the fairness model
// (shared products, rows by reference) and npc.qrc streamed (windows). Run
// under -race it checks that the evaluators share nothing they write.
func TestEvaluatorsAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path string
		opts       *Options
	}{
		{"npc", "../examples/npc.qrc", allParallel(testOptions())},
		{"fairness", "../examples/fairness.qrc", rowRefsAll(allParallel(testOptions()), true)},
		{"npc-streamed", "../examples/npc.qrc", streamSmall(allParallel(testOptions()), true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, p := loadWith(t, tc.path, check.Options{}, tc.opts)
			const n = 8
			xs := make([][]float64, n)
			want := make([][][]float64, n)
			for i := range n {
				xs[i] = randomPoint(m, rand.New(rand.NewPCG(uint64(i), 91)))
				var err error
				want[i], err = evaluatorResults(p, xs[i], i%2 == 1, rand.New(rand.NewPCG(uint64(i), 92)))
				require.NoError(t, err)
			}
			got := make([][][]float64, n)
			errs := make([]error, n)
			evs := make([]*Evaluator, n)
			for i := range evs {
				evs[i] = p.NewEvaluator()
			}
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 2 { // a second round reuses the evaluator's state
						got[i], errs[i] = evaluatorResults(evs[i], xs[i], i%2 == 1, rand.New(rand.NewPCG(uint64(i), 92)))
					}
				}()
			}
			wg.Wait()
			for i := range n {
				require.NoError(t, errs[i])
				for r := range want[i] {
					for j := range want[i][r] {
						require.Equal(t, math.Float64bits(want[i][r][j]), math.Float64bits(got[i][r][j]), "evaluator %d, result %d, element %d", i, r, j)
					}
				}
			}
		})
	}
}
