// Package npcref holds hand-written kernels that the compiled programs are
// tested and benchmarked against, written as a performance engineer would
// write them for one model each:
//
//   - Kernel computes examples/npc.qrc: for every class k, loss(k) = mean
//     over the rows i of class k of sum_{l != k} phi((W[k] - W[l]) . X[i])
//     with phi(z) = 1/(1+e^z), and its gradient with respect to W;
//   - Fair computes the logistic-regression-with-fairness model of
//     examples/fairness.qrc (fair.go);
//   - Logistic computes a logistic regression over a sparse set's CSR rows
//     (logistic.go; described there).
//
// Kernel and Fair keep the data feature-major (X transposed, d x n) with the rows
// sorted so that every mean runs over one contiguous block of columns,
// compute scores with serial gonum GEMMs on tiles of at most 192 rows (so
// gonum starts no goroutines), apply the table-and-polynomial exponential of
// package vmath fused with the sigmoid and its derivative, form every
// gradient as one GEMM, and spread their work over GOMAXPROCS goroutines.
package npcref

import (
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/internal/vmath"
	"github.com/qrc-lang/qrc/internal/workers"
)

// tile is the most rows whose scores one GEMM computes.
const tile = 192

// Kernel holds the class blocks of examples/npc.qrc's data and the buffers
// of one evaluation.
type Kernel struct {
	K, D  int
	Off   []int       // class k's rows are columns Off[k] .. Off[k+1]-1 of Xt
	Xt    []float64   // D x N, row-major (feature-major data)
	Vals  []float64   // loss(k), k = 1..K, after Eval
	Grads [][]float64 // d loss(k) / d W, K x D row-major, after Eval
	adj   []float64   // K x N: column i holds d loss(k) / d scores of row i
	s     [][]float64 // per worker: the scores of one tile, K x tile, and two tiles of scratch
	w     []float64   // the point of the running Eval
	job   workers.Job // the classes
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
	h := &Kernel{K: K, D: d, Off: make([]int, K+1), Vals: make([]float64, K)}
	for k, m := range sizes {
		h.Off[k+1] = h.Off[k] + m
		h.Grads = append(h.Grads, make([]float64, K*d))
	}
	n := h.Off[K]
	h.Xt = make([]float64, d*n)
	h.adj = make([]float64, K*n)
	h.job.Fn = func(g, k int) { h.class(h.w, k, h.s[g]) }
	return h
}

// Gather copies the given rows of set into class k's block (0-based class
// index; len(rows) is the block's size).
func (h *Kernel) Gather(set *data.Set, k int, rows []int) {
	n := h.Off[h.K]
	raw := set.X.RawMatrix()
	for r, i := range rows {
		c := h.Off[k] + r
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+h.D] {
			h.Xt[j*n+c] = v
		}
	}
}

// Eval computes every loss(k) and its gradient at W (K x D row-major),
// the classes spread over the worker pool.
func (h *Kernel) Eval(w []float64) {
	for len(h.s) < runtime.GOMAXPROCS(0) {
		h.s = append(h.s, make([]float64, (h.K+2)*tile))
	}
	h.w = w
	h.job.Run(h.K)
	h.w = nil
}

// class computes loss(k) and its gradient.
func (h *Kernel) class(w []float64, k int, s []float64) {
	K, d, n := h.K, h.D, h.Off[h.K]
	W := blas64.General{Rows: K, Cols: d, Stride: d, Data: w}
	lo, hi := h.Off[k], h.Off[k+1]
	m := float64(hi - lo)
	inv := 1 / m
	buf := s[K*tile:]
	sum := 0.0
	for t := lo; t < hi; t += tile {
		c := min(tile, hi-t)
		// S (K x c) = W Xt[:, t:t+c]
		X := blas64.General{Rows: d, Cols: c, Stride: n, Data: h.Xt[t:]}
		S := blas64.General{Rows: K, Cols: c, Stride: c, Data: s[:K*c]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, W, X, 0, S)
		sk := s[k*c : (k+1)*c]
		ak := h.adj[k*n+t : k*n+t+c]
		clear(ak)
		for l := 0; l < K; l++ {
			if l == k {
				continue
			}
			sl := s[l*c : (l+1)*c]
			al := h.adj[l*n+t : l*n+t+c]
			// phi((W[k]-W[l]).x) = sigmoid(s_l - s_k), with its derivative
			// from one exponential
			z, v := buf[:c], buf[tile:tile+c]
			for i := range z {
				z[i] = sl[i] - sk[i]
			}
			vmath.SigmoidDeriv(z, v, al)
			for i, dv := range al {
				sum += v[i]
				dv *= inv
				al[i] = dv
				ak[i] -= dv
			}
		}
	}
	h.Vals[k] = sum / m
	// the gradient as one GEMM, G^T (D x K) = Xt[:, lo:hi] A^T (A is K x m),
	// which streams the class's data once; cut into tiles of features only
	// to keep gonum serial
	A := blas64.General{Rows: K, Cols: hi - lo, Stride: n, Data: h.adj[lo:]}
	g := h.Grads[k]
	for j := 0; j < d; j += tile {
		e := min(j+tile, d)
		X := blas64.General{Rows: e - j, Cols: hi - lo, Stride: n, Data: h.Xt[j*n+lo:]}
		GT := blas64.General{Rows: e - j, Cols: K, Stride: K, Data: s[:(e-j)*K]}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, X, A, 0, GT)
		for jj := j; jj < e; jj++ {
			for l, v := range s[(jj-j)*K : (jj-j+1)*K] {
				g[l*d+jj] = v
			}
		}
	}
}
