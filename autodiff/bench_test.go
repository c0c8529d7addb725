package autodiff

import (
	"math/rand/v2"
	"testing"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/internal/npcref"
)

// benchNPC measures one full evaluation of examples/npc.qrc: the values of
// all ten functions and the subgradient of each, by the compiled program
// and by the hand-written gonum kernel npcref.
func benchNPC(b *testing.B, opts check.Options) {
	m, p := load(b, "../examples/npc.qrc", opts)
	x := randomPoint(m, rand.New(rand.NewPCG(1, 1)))
	nf := len(p.Functions())
	b.Run("qrc", func(b *testing.B) {
		vals := make([]float64, nf)
		g := make([]float64, p.NumVars())
		w := make([]float64, nf)
		b.ReportAllocs()
		for b.Loop() {
			if err := p.Eval(x, vals); err != nil {
				b.Fatal(err)
			}
			for f := range w {
				clear(w)
				w[f] = 1
				if err := p.Gradient(w, g); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("gonum", func(b *testing.B) {
		h := npcref.New(m.Data[0].Set, 10)
		b.ReportAllocs()
		for b.Loop() {
			h.Eval(x)
		}
	})
}

// BenchmarkNPC runs on the shipped synthetic data (3000 rows).
func BenchmarkNPC(b *testing.B) { benchNPC(b, check.Options{}) }

// BenchmarkNPCPendigits runs on ../shared/data/pendigits (7494 rows).
func BenchmarkNPCPendigits(b *testing.B) {
	benchNPC(b, check.Options{Data: []check.Assign{{Name: "train", Value: pendigits(b)}}})
}
