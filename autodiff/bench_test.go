package autodiff

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/stdlib"
)

// npcKernel is a hand-written gonum computation of examples/npc.qrc: for
// every class k, loss(k) = mean over the rows i of class k of
// sum_{l != k} phi((W[k] - W[l]) . X[i]) with phi(z) = 1/(1+e^z), and its
// gradient with respect to W. It is the reference the compiled program is
// tested and benchmarked against.
type npcKernel struct {
	K, d   int
	blocks []*mat.Dense // the rows of each class, gathered
	scores []*mat.Dense // X_k W^T, m_k × K
	adj    []*mat.Dense // d loss(k) / d scores
	vals   []float64    // loss(k), k = 1..K
	grads  [][]float64  // d loss(k) / d W, K×d row-major
}

func newNPCKernel(set *data.Set, K int) *npcKernel {
	h := &npcKernel{K: K, d: set.D()}
	for k := 1; k <= K; k++ {
		var rows []int
		for i, y := range set.Y {
			if y == float64(k) {
				rows = append(rows, i)
			}
		}
		b := mat.NewDense(len(rows), h.d, nil)
		for r, i := range rows {
			b.SetRow(r, set.X.RawRowView(i))
		}
		h.blocks = append(h.blocks, b)
		h.scores = append(h.scores, mat.NewDense(len(rows), K, nil))
		h.adj = append(h.adj, mat.NewDense(len(rows), K, nil))
		h.grads = append(h.grads, make([]float64, K*h.d))
	}
	h.vals = make([]float64, K)
	return h
}

// eval computes every loss(k) and its gradient at W (K×d row-major).
func (h *npcKernel) eval(w []float64) {
	W := blas64.General{Rows: h.K, Cols: h.d, Stride: h.d, Data: w}
	for k := 0; k < h.K; k++ {
		B := h.blocks[k].RawMatrix()
		S := h.scores[k].RawMatrix()
		A := h.adj[k].RawMatrix()
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, B, W, 0, S)
		m := float64(B.Rows)
		sum := 0.0
		for i := 0; i < B.Rows; i++ {
			s := S.Data[i*S.Stride : i*S.Stride+h.K]
			a := A.Data[i*A.Stride : i*A.Stride+h.K]
			a[k] = 0
			for l := 0; l < h.K; l++ {
				if l == k {
					continue
				}
				// phi((W[k]-W[l]).x) = sigmoid(s_l - s_k)
				v := stdlib.Sigmoid(s[l] - s[k])
				sum += v
				dv := v * (1 - v) / m
				a[l] = dv
				a[k] -= dv
			}
		}
		h.vals[k] = sum / m
		G := blas64.General{Rows: h.K, Cols: h.d, Stride: h.d, Data: h.grads[k]}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, A, B, 0, G)
	}
}

// benchNPC measures one full evaluation of examples/npc.qrc: the values of
// all ten functions and the subgradient of each, by the compiled program
// and by the hand-written gonum kernel.
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
		h := newNPCKernel(m.Data[0].Set, 10)
		b.ReportAllocs()
		for b.Loop() {
			h.eval(x)
		}
	})
}

// BenchmarkNPC runs on the shipped synthetic data (3000 rows).
func BenchmarkNPC(b *testing.B) { benchNPC(b, check.Options{}) }

// BenchmarkNPCPendigits runs on ../shared/data/pendigits (7494 rows).
func BenchmarkNPCPendigits(b *testing.B) {
	benchNPC(b, check.Options{Data: []check.Assign{{Name: "train", Value: pendigits(b)}}})
}
