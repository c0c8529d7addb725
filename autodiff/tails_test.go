package autodiff

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
)

// TestTailsOnCaller: with the functions' tails run on the caller
// (tails.go), every Jacobian of many in a row on 2 and 4 cores has every
// row, bit for bit the rows of one Gradient per function, the rows filled
// with NaN before each call so that a tail that did not run shows; and
// the helpers' queue of finished segments is empty after each call. It
// checks that the helpers did queue segments (else the queue went
// untested, and it says so).
func TestTailsOnCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	m, p := loadWith(t, "../examples/npc.qrc", check.Options{}, allParallel(testOptions()))
	x := randomPoint(m, rand.New(rand.NewPCG(71, 72)))
	runtime.GOMAXPROCS(1)
	want := evalAll(t, p, x)[1:]
	nf := len(p.Functions())
	rows := make([][]float64, nf)
	for f := range rows {
		rows[f] = make([]float64, p.NumVars())
	}
	vals := make([]float64, nf)
	queued := 0
	for _, procs := range []int{2, 4} {
		runtime.GOMAXPROCS(procs)
		for range 200 {
			require.NoError(t, p.Eval(x, vals))
			for _, r := range rows {
				for j := range r {
					r[j] = math.NaN()
				}
			}
			require.NoError(t, p.Jacobian(rows))
			tl := &p.jac.tails
			require.Equal(t, tl.queued.Load(), tl.finished, "the caller finished every segment a helper queued")
			queued += int(tl.queued.Load())
			for f := range rows {
				for j := range rows[f] {
					require.Equal(t, math.Float64bits(want[f][j]), math.Float64bits(rows[f][j]), "GOMAXPROCS %d, row %d, element %d", procs, f, j)
				}
			}
		}
	}
	if queued == 0 {
		t.Skip("no helper ran the last block of a segment: the queue went untested")
	}
	t.Logf("segments queued by the helpers: %d in 400 Jacobians", queued)
}
