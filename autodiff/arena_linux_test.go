//go:build linux

package autodiff

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/internal/npcref"
)

// A program whose arena is mapped from the kernel (npc.qrc on 60 000
// generated rows: tens of megabytes of registers) computes the values and
// subgradients of the hand-written kernel, and programs dropped and
// collected before it (their mappings released) do not disturb it.
func TestMappedArena(t *testing.T) {
	const n, d = 60_000, 16
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(1 + i%10)
		for j := range d {
			x[i*d+j] = rng.Float64()
		}
	}
	set := &data.Set{X: mat.NewDense(n, d, x), Y: y}
	opts := check.Options{Sets: map[string]*data.Set{"train": set}}
	before := mappedArenas.Load()
	for range 3 { // compiled and dropped
		load(t, "../examples/npc.qrc", opts)
	}
	runtime.GC()
	runtime.GC()
	m, p := load(t, "../examples/npc.qrc", opts)
	require.Equal(t, before+4, mappedArenas.Load(), "every program's arena is mapped")
	h := npcref.New(set, 10)
	nf := len(p.Functions())
	vals := make([]float64, nf)
	g := make([]float64, p.NumVars())
	for range 2 {
		pt := randomPoint(m, rng)
		require.NoError(t, p.Eval(pt, vals))
		h.Eval(pt)
		for f := range nf {
			r := 4.5
			if f == 0 {
				r = 0
			}
			require.InDelta(t, h.Vals[f]-r, vals[f], 1e-12)
			w := make([]float64, nf)
			w[f] = 1
			require.NoError(t, p.Gradient(w, g))
			for j := range g {
				require.InDelta(t, h.Grads[f][j], g[j], 1e-12, "function %d, element %d", f, j)
			}
		}
	}
	runtime.KeepAlive(p)
}
