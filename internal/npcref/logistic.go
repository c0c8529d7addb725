package npcref

import (
	"fmt"
	"runtime"

	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/internal/vmath"
	"github.com/qrc-lang/qrc/internal/workers"
)

// Logistic computes logistic regression on a sparse set (labels y in
// {-1, 1}, rows in CSR form) at w in R^d:
//
//	f(w) = mean_i log(1 + exp(-y_i w.X_i)),   grad f = X^T a / n,  a_i = -y_i sigma(-y_i w.X_i)
//
// as a hand-written CSR kernel: the rows are split into one contiguous
// chunk per GOMAXPROCS goroutine, each computing its margins over the
// row's nonzeros, the fused logistic and its derivative (package vmath),
// its part of the sum and its part of X^T a into a gradient of its own;
// the parts are added at the end.
type Logistic struct {
	M    *data.CSR
	Y    []float64
	Val  float64   // f after Eval
	Grad []float64 // its gradient after Eval
	z    []float64 // -y_i w.X_i, then the losses
	dz   []float64 // the losses' derivatives in z
	vals []float64 // per chunk, its sum of losses
	part [][]float64
	w    []float64   // the point of the running Eval
	p    int         // the chunks of the running Eval
	job  workers.Job // the chunks
}

// NewLogistic returns the kernel for a sparse set with labels.
func NewLogistic(set *data.Set) (*Logistic, error) {
	if set.Sparse == nil || len(set.Y) != set.N() {
		return nil, fmt.Errorf("npcref: Logistic needs a sparse set with labels")
	}
	n := set.N()
	h := &Logistic{M: set.Sparse, Y: set.Y, Grad: make([]float64, set.D()), z: make([]float64, n), dz: make([]float64, n)}
	h.job.Fn = func(_, c int) { h.chunk(c) }
	return h, nil
}

// Eval computes Val and Grad at w (len d).
func (h *Logistic) Eval(w []float64) {
	n := h.M.Rows
	p := max(1, min(runtime.GOMAXPROCS(0), n))
	for len(h.part) < p {
		h.part = append(h.part, make([]float64, len(h.Grad)))
		h.vals = append(h.vals, 0)
	}
	h.w, h.p = w, p
	h.job.Run(p)
	h.w = nil
	h.Val = 0
	copy(h.Grad, h.part[0])
	for c := range p {
		h.Val += h.vals[c]
		if c > 0 {
			for j, v := range h.part[c] {
				h.Grad[j] += v
			}
		}
	}
	h.Val /= float64(n)
}

// chunk computes chunk c of the running Eval's rows: its margins, losses
// and derivatives, its sum and its part of the gradient.
func (h *Logistic) chunk(c int) {
	n, p, w := h.M.Rows, h.p, h.w
	lo, hi := c*n/p, (c+1)*n/p
	m := h.M
	for i := lo; i < hi; i++ {
		t := 0.0
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			t += m.Val[k] * w[m.ColIdx[k]]
		}
		h.z[i] = -h.Y[i] * t
	}
	vmath.LogisticDeriv(h.z[lo:hi], h.z[lo:hi], h.dz[lo:hi])
	s := 0.0
	g := h.part[c]
	clear(g)
	inv := 1 / float64(n)
	for i := lo; i < hi; i++ {
		s += h.z[i]
		a := -h.Y[i] * h.dz[i] * inv
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			g[m.ColIdx[k]] += a * m.Val[k]
		}
	}
	h.vals[c] = s
}
