package problem_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/internal/npcref"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/problem"
)

// synthetic writes (once per size, in the temporary directory) a LIBSVM
// file of n rows in the shape of examples/npc.qrc's data: 16 features in
// [0, 1] around one centre per class, labels 1..10 drawn uniformly.
func synthetic(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("qrc-bench-npc-%d.svm", n))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	const K, d = 10, 16
	centres := make([][d]float64, K)
	for k := range centres {
		for j := range centres[k] {
			centres[k][j] = rng.Float64()
		}
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for range n {
		k := rng.IntN(K)
		fmt.Fprintf(w, "%d", k+1)
		for j := range d {
			v := min(max(centres[k][j]+0.2*rng.NormFloat64(), 0), 1)
			fmt.Fprintf(w, " %d:%.4f", j+1, v)
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkInnerStep measures one inner iteration's calls to the problem
// for examples/npc.qrc on synthetic data of 10^4, 10^5 and 10^6 rows:
//
//   - stochastic: what Algorithm 3 calls per iteration, a fresh minibatch
//     (Batch rows of each class's mean), the values of all ten functions
//     and the subgradient of each;
//   - deterministic: what Algorithm 2 calls per iteration, the values of
//     all functions on every row and the subgradient of one;
//   - gonum: the hand-written kernel npcref on the same minibatch (rows
//     gathered per class, values and every gradient by BLAS), the
//     reference for the stochastic step.
//
// The stochastic step's cost does not depend on the number of rows; the
// deterministic one's grows linearly (docs/performance.md has the numbers).
func BenchmarkInnerStep(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		path := synthetic(b, n)
		mm, _, diags := modelfile.Load(filepath.Join("..", "examples", "npc.qrc"), check.Options{Data: []check.Assign{{Name: "train", Value: path}}})
		if err := diags.Err(); err != nil {
			b.Fatal(err)
		}
		m, prog := compile(b, mm)
		p := problem.New(m, prog, problem.Options{Batch: problem.DefaultBatch})
		x := make([]float64, p.N)
		rng := rand.New(rand.NewPCG(1, 2))
		for j := range x {
			x[j] = 0.05 * rng.NormFloat64()
		}
		p.Project(x)
		vals, g, w := make([]float64, p.M+1), make([]float64, p.N), make([]float64, p.M+1)
		b.Run(fmt.Sprintf("stochastic/rows=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := p.Sampler.Draw(rng); err != nil {
					b.Fatal(err)
				}
				if err := p.Eval(x, vals); err != nil {
					b.Fatal(err)
				}
				for i := range w {
					w[i] = 1
					if err := p.Grad(w, g); err != nil {
						b.Fatal(err)
					}
					w[i] = 0
				}
			}
		})
		b.Run(fmt.Sprintf("gonum/rows=%d", n), func(b *testing.B) {
			set := m.Data[0].Set
			classes := npcref.ClassRows(set, 10)
			sizes := make([]int, 10)
			for k := range sizes {
				sizes[k] = min(problem.DefaultBatch, len(classes[k]))
			}
			h := npcref.NewSized(10, set.D(), sizes)
			pos := make([]int, problem.DefaultBatch)
			b.ReportAllocs()
			for b.Loop() {
				for k := range 10 {
					rows := pos[:sizes[k]]
					for r := range rows {
						rows[r] = classes[k][rng.IntN(len(classes[k]))]
					}
					h.Gather(set, k, rows)
				}
				h.Eval(x)
			}
		})
		p.Sampler.Full()
		b.Run(fmt.Sprintf("deterministic/rows=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := p.Eval(x, vals); err != nil {
					b.Fatal(err)
				}
				w[1] = 1
				if err := p.Grad(w, g); err != nil {
					b.Fatal(err)
				}
				w[1] = 0
			}
		})
	}
}
