package npcref

import (
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/internal/vmath"
	"github.com/qrc-lang/qrc/internal/workers"
)

// Fair computes the model of examples/fairness.qrc on labels y in {-1, 1}
// and a 0/1 group column, at x in R^D:
//
//	f0 = mean_i phi(y_i x.X_i)                                    phi(u) = 1/(1+e^u)
//	f1 = mean_{g=0} sigma(x.X_i) + beta mean_{g=1} sigma(-x.X_i) - r    sigma(u) = 1/(1+e^-u)
//	f2 = mean_{g=1} sigma(x.X_i) + beta mean_{g=0} sigma(-x.X_i) - r
//
// and their gradients. The margins x.X_i are computed once for all three
// functions; one exponential per row gives every sigmoid and derivative.
type Fair struct {
	D, N    int
	Beta, R float64
	N0      int          // the rows of group 0 are columns 0..N0-1 of Xt
	Xt      []float64    // D x N, row-major (feature-major data)
	Y       []float64    // the labels, in Xt's column order
	Vals    [3]float64   // f0, f1, f2 after Eval
	Grads   [3][]float64 // their gradients, after Eval
	z       []float64    // the margins
	sp, sm  []float64    // sigma(z), sigma(-z)
	d       []float64    // sigma'(z)
	adj     []float64    // 3 x N: d f / d z per row
	sums    [][3]float64 // per tile of rows: the partial sums of the three means
	g, gt   []float64    // 3 x D, the gradients' storage, and D x 3 for G^T
	x       []float64    // the point of the running Eval
	cols    [][2]int     // the gradients' columns, cut in halves for two workers
	rowJob  workers.Job  // the tiles of rows
	colJob  workers.Job  // the gradients' columns
}

// NewFair returns the kernel for set with group column group (0 or 1 per
// row), beta and r.
func NewFair(set *data.Set, group []float64, beta, r float64) (*Fair, error) {
	n, d := len(set.Y), set.D()
	if len(group) != n {
		return nil, fmt.Errorf("npcref: %d group entries for %d rows", len(group), n)
	}
	h := &Fair{D: d, N: n, Beta: beta, R: r, Xt: make([]float64, d*n), Y: make([]float64, n),
		z: make([]float64, n), sp: make([]float64, n), sm: make([]float64, n), d: make([]float64, n), adj: make([]float64, 3*n), sums: make([][3]float64, (n+tile-1)/tile)}
	h.g, h.gt = make([]float64, 3*d), make([]float64, 3*d)
	for f := range h.Grads {
		h.Grads[f] = h.g[f*d : (f+1)*d]
	}
	h.rowJob.Fn = func(_, t int) { h.rowTile(t) }
	h.colJob.Fn = func(_, c int) { h.grads(h.cols[c][0], h.cols[c][1]) }
	half := (d + 1) / 2
	h.cols = [][2]int{{0, half}, {half, d}}
	var order []int
	for _, g := range []float64{0, 1} {
		for i, v := range group {
			if v == g {
				order = append(order, i)
			}
		}
		if g == 0 {
			h.N0 = len(order)
		}
	}
	if len(order) != n || h.N0 == 0 || h.N0 == n {
		return nil, fmt.Errorf("npcref: the group column must be 0 or 1 with both groups present")
	}
	raw := set.X.RawMatrix()
	for c, i := range order {
		if y := set.Y[i]; y != 1 && y != -1 {
			return nil, fmt.Errorf("npcref: label %g of row %d is not -1 or 1", y, i+1)
		}
		h.Y[c] = set.Y[i]
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+d] {
			h.Xt[j*n+c] = v
		}
	}
	return h, nil
}

// Eval computes the three values and gradients at x (len D), the tiles of
// rows, then the gradients' columns, spread over the worker pool.
func (h *Fair) Eval(x []float64) {
	h.x = x
	h.rowJob.Run(len(h.sums))
	var v [3]float64
	for _, s := range h.sums { // in tile order
		for f := range v {
			v[f] += s[f]
		}
	}
	h.Vals[0] = v[0] / float64(h.N)
	h.Vals[1] = v[1] - h.R
	h.Vals[2] = v[2] - h.R
	// the gradients as one GEMM, G (3 x D) = A (3 x N) Xt^T, its columns cut
	// in two halves for two workers
	if runtime.GOMAXPROCS(0) < 2 {
		h.grads(0, h.D)
	} else {
		h.colJob.Run(len(h.cols))
	}
	h.x = nil
}

// rowTile computes tile t of rows: margins by one serial GEMV, then every
// sigmoid and derivative from one exponential per row.
func (h *Fair) rowTile(t int) {
	n, x := h.N, h.x
	inv, inv0, inv1 := 1/float64(n), 1/float64(h.N0), 1/float64(n-h.N0)
	a0, a1, a2 := h.adj[:n], h.adj[n:2*n], h.adj[2*n:]
	lo := t * tile
	hi := min(lo+tile, n)
	X := blas64.General{Rows: h.D, Cols: hi - lo, Stride: n, Data: h.Xt[lo:]}
	blas64.Gemv(blas.Trans, 1, X, blas64.Vector{N: h.D, Inc: 1, Data: x}, 0, blas64.Vector{N: hi - lo, Inc: 1, Data: h.z[lo:hi]})
	var s [3]float64
	// sigma(z), sigma(-z) and the derivative, from one exponential
	spt, smt, dt := h.sp[lo:hi], h.sm[lo:hi], h.d[lo:hi]
	vmath.SigmoidTerms(h.z[lo:hi], spt, smt, dt)
	for i := lo; i < hi; i++ {
		sp, sm, d := spt[i-lo], smt[i-lo], dt[i-lo]
		// phi(y z) = sigma(-y z)
		if h.Y[i] > 0 {
			s[0] += sm
		} else {
			s[0] += sp
		}
		a0[i] = -h.Y[i] * d * inv
		if i < h.N0 {
			s[1] += sp * inv0
			s[2] += h.Beta * sm * inv0
			a1[i] = d * inv0
			a2[i] = -h.Beta * d * inv0
		} else {
			s[1] += h.Beta * sm * inv1
			s[2] += sp * inv1
			a1[i] = -h.Beta * d * inv1
			a2[i] = d * inv1
		}
	}
	h.sums[t] = s
}

// grads computes columns lo..hi-1 of the three gradients.
func (h *Fair) grads(lo, hi int) {
	n := h.N
	// G^T (D x 3) = Xt A^T streams the data once; tiles keep gonum serial
	A := blas64.General{Rows: 3, Cols: n, Stride: n, Data: h.adj}
	for j := lo; j < hi; j += tile {
		e := min(j+tile, hi)
		X := blas64.General{Rows: e - j, Cols: n, Stride: n, Data: h.Xt[j*n:]}
		GT := blas64.General{Rows: e - j, Cols: 3, Stride: 3, Data: h.gt[3*j : 3*e]}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, X, A, 0, GT)
		for jj := j; jj < e; jj++ {
			for f := range 3 {
				h.g[f*h.D+jj] = h.gt[3*jj+f]
			}
		}
	}
}
