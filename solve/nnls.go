package solve

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// nnls solves the nonnegative least-squares problem
//
//	minimize ||A x - b||_2  subject to  x >= 0
//
// for the n×p matrix A whose columns are cols (each of length n), by the
// active-set method of Lawson and Hanson (Solving Least Squares Problems,
// 1974, chapter 23). It returns x (length p) and the residual norm
// ||A x - b||. The unconstrained least-squares problems on the passive set
// are solved by a thin SVD with a relative rank cutoff, so linearly
// dependent columns (two constraints with the same subgradient) are
// handled: the minimum-norm solution on the passive set is taken.
//
// The method terminates in finitely many steps in exact arithmetic; the
// outer loop is capped at 3p+10 passes as a guard against cycling in
// floating point.
func nnls(cols [][]float64, b []float64) (x []float64, resid float64) {
	p := len(cols)
	n := len(b)
	x = make([]float64, p)
	if p == 0 {
		return x, norm(b)
	}
	// scale for the tolerances
	scale := norm(b)
	for _, c := range cols {
		scale = math.Max(scale, norm(c))
	}
	if scale == 0 {
		return x, 0
	}
	tol := 1e-12 * scale * scale * float64(max(n, p))

	passive := make([]bool, p)
	r := make([]float64, n) // b - A x
	w := make([]float64, p) // A^T (b - A x)
	s := make([]float64, p)
	residual := func(x []float64) {
		copy(r, b)
		for j, c := range cols {
			if x[j] != 0 {
				for i := range r {
					r[i] -= x[j] * c[i]
				}
			}
		}
	}
	gradient := func() {
		for j, c := range cols {
			w[j] = dot(c, r)
		}
	}
	residual(x)
	gradient()
	for pass := 0; pass < 3*p+10; pass++ {
		// the zero-set column with the largest positive gradient
		t := -1
		for j := range p {
			if !passive[j] && w[j] > tol && (t < 0 || w[j] > w[t]) {
				t = j
			}
		}
		if t < 0 {
			break
		}
		passive[t] = true
		for inner := 0; inner < 3*p+10; inner++ {
			lsq(cols, b, passive, s)
			// all passive components positive: accept
			ok := true
			for j := range p {
				if passive[j] && s[j] <= 0 {
					ok = false
					break
				}
			}
			if ok {
				break
			}
			// move from x towards s until a passive component hits zero
			alpha := math.Inf(1)
			for j := range p {
				if passive[j] && s[j] <= 0 {
					if a := x[j] / (x[j] - s[j]); a < alpha {
						alpha = a
					}
				}
			}
			if math.IsInf(alpha, 1) || math.IsNaN(alpha) {
				alpha = 0
			}
			for j := range p {
				if passive[j] {
					x[j] += alpha * (s[j] - x[j])
					if x[j] <= 1e-15*scale {
						x[j] = 0
						passive[j] = false
					}
				}
			}
			if !anyTrue(passive) {
				break
			}
		}
		for j := range p {
			if passive[j] {
				x[j] = math.Max(s[j], 0)
			} else {
				x[j] = 0
			}
		}
		residual(x)
		gradient()
	}
	return x, norm(r)
}

// lsq stores in s the minimum-norm least-squares solution of
// A_P s_P = b on the passive columns P, with s = 0 off P.
func lsq(cols [][]float64, b []float64, passive []bool, s []float64) {
	var idx []int
	for j, in := range passive {
		s[j] = 0
		if in {
			idx = append(idx, j)
		}
	}
	if len(idx) == 0 {
		return
	}
	n := len(b)
	a := mat.NewDense(n, len(idx), nil)
	for k, j := range idx {
		for i := range n {
			a.Set(i, k, cols[j][i])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return
	}
	rank := svd.Rank(1e-12)
	if rank == 0 {
		return
	}
	var sol mat.VecDense
	svd.SolveVecTo(&sol, mat.NewVecDense(n, append([]float64(nil), b...)), rank)
	for k, j := range idx {
		s[j] = sol.AtVec(k)
	}
}

func anyTrue(v []bool) bool {
	for _, b := range v {
		if b {
			return true
		}
	}
	return false
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func norm(a []float64) float64 { return math.Sqrt(dot(a, a)) }
