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
	for range 3 { // compiled and dropped
		_, q := load(t, "../examples/npc.qrc", opts)
		require.True(t, q.mapped, "every program's arena is mapped")
	}
	runtime.GC()
	runtime.GC()
	m, p := load(t, "../examples/npc.qrc", opts)
	require.True(t, p.mapped, "every program's arena is mapped")
	requireNPCKernel(t, m, p, npcref.New(set, 10), rng, 2)
	runtime.KeepAlive(p)
}
