// Package npcref is a hand-written gonum computation of examples/npc.qrc,
// the reference that the compiled program is tested and benchmarked
// against: for every class k, loss(k) = mean over the rows i of class k of
// sum_{l != k} phi((W[k] - W[l]) . X[i]) with phi(z) = 1/(1+e^z), and its
// gradient with respect to W.
package npcref

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/stdlib"
)

// Kernel holds the rows of each class and the buffers of one evaluation.
type Kernel struct {
	K, D   int
	Blocks []*mat.Dense // the rows of each class, gathered
	Vals   []float64    // loss(k), k = 1..K, after Eval
	Grads  [][]float64  // d loss(k) / d W, K×D row-major, after Eval
	scores []*mat.Dense // X_k W^T, m_k × K
	adj    []*mat.Dense // d loss(k) / d scores
}

// ClassRows returns, for each class k = 1..K, the rows of set labelled k.
func ClassRows(set *data.Set, K int) [][]int {
	rows := make([][]int, K)
	for i, y := range set.Y {
		if k := int(y); float64(k) == y && k >= 1 && k <= K {
			rows[k-1] = append(rows[k-1], i)
		}
	}
	return rows
}

// New returns a kernel over all rows of set with K classes.
func New(set *data.Set, K int) *Kernel {
	rows := ClassRows(set, K)
	sizes := make([]int, K)
	for k := range rows {
		sizes[k] = len(rows[k])
	}
	h := NewSized(K, set.D(), sizes)
	for k := range rows {
		h.Gather(set, k, rows[k])
	}
	return h
}

// NewSized returns a kernel whose class k has sizes[k] rows, to be filled
// by Gather.
func NewSized(K, d int, sizes []int) *Kernel {
	h := &Kernel{K: K, D: d, Vals: make([]float64, K)}
	for k := 0; k < K; k++ {
		h.Blocks = append(h.Blocks, mat.NewDense(sizes[k], d, nil))
		h.scores = append(h.scores, mat.NewDense(sizes[k], K, nil))
		h.adj = append(h.adj, mat.NewDense(sizes[k], K, nil))
		h.Grads = append(h.Grads, make([]float64, K*d))
	}
	return h
}

// Gather copies the given rows of set into class k's block (0-based class
// index; len(rows) is the block's size).
func (h *Kernel) Gather(set *data.Set, k int, rows []int) {
	b := h.Blocks[k]
	for r, i := range rows {
		b.SetRow(r, set.X.RawRowView(i))
	}
}

// Eval computes every loss(k) and its gradient at W (K×D row-major).
func (h *Kernel) Eval(w []float64) {
	W := blas64.General{Rows: h.K, Cols: h.D, Stride: h.D, Data: w}
	for k := 0; k < h.K; k++ {
		B := h.Blocks[k].RawMatrix()
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
		h.Vals[k] = sum / m
		G := blas64.General{Rows: h.K, Cols: h.D, Stride: h.D, Data: h.Grads[k]}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, A, B, 0, G)
	}
}
