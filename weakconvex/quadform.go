package weakconvex

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The quadratic-form rule. A function that is exactly quadratic in the
// variables, 1/2 x^T H x + <a, x> + b (a product of two affine terms, and
// sums and constant multiples of such and of affine terms:
// sum(j) x[j] * dot(Q[j], x) is x^T Q x, H = Q + Q^T), carries H along
// (fnv.hess). Its curvature bounds are then H's eigenvalues, exactly: the
// rank-one terms the product rule gives (1/2 (a-b)(a-b)^T per product)
// add up to more than H's negative part (for Q = 2I they claim rho = 1/2
// where x^T Q x is convex). hess is dropped (and the product rule's bounds
// stand) for a function of more than maxHessDim variables or a Hessian of
// more than maxHessEntries entries.
const (
	maxHessDim     = 400
	maxHessEntries = 1 << 20
)

// hessian is a symmetric matrix by its entries (i, j), i <= j.
type hessian map[[2]int32]float64

// outerHess is a b^T + b a^T, the Hessian of the product of the affine
// functions with coefficients a and b.
func outerHess(a, b *affine) hessian {
	if len(a.idx)*len(b.idx) > maxHessEntries {
		return nil
	}
	h := hessian{}
	for k, i := range a.idx {
		for l, j := range b.idx {
			v := a.coef[k] * b.coef[l]
			if i == j {
				h[[2]int32{i, i}] += 2 * v
				continue
			}
			key := [2]int32{min(i, j), max(i, j)}
			h[key] += v
		}
	}
	return h
}

// addHess returns wf*f + wg*g (a new map); nil when too large.
func addHess(f hessian, wf float64, g hessian, wg float64) hessian {
	if len(f)+len(g) > maxHessEntries {
		return nil
	}
	h := make(hessian, len(f)+len(g))
	for k, v := range f {
		h[k] += wf * v
	}
	for k, v := range g {
		h[k] += wg * v
	}
	return h
}

// quadOK reports whether f is affine or exactly quadratic (hess known).
func quadOK(f *fnv) bool { return f.aff != nil || f.hess != nil }

// hessOf is f's Hessian: nil (zero) for an affine f.
func hessOf(f *fnv) hessian { return f.hess }

// tighten replaces the curvature bounds of an exactly quadratic f by the
// eigenvalues of its Hessian H: lo = the negative eigenvalues' rank-one
// terms, hi the positive ones'. Eigenvalues within the rounding of the
// computation, (n + 10) 1e-15 ||H||_F, of 0 count as 0: a positive
// semidefinite Q is convex, checked numerically. It returns f itself when
// there is nothing to do.
func tighten(f *fnv) *fnv {
	if f.hess == nil || f.tight {
		return f
	}
	pos := map[int32]int{}
	var vars []int32
	for k := range f.hess {
		for _, i := range k {
			if _, ok := pos[i]; !ok {
				pos[i] = len(vars)
				vars = append(vars, i)
			}
		}
	}
	n := len(vars)
	if n > maxHessDim {
		return f
	}
	slices.Sort(vars)
	for k, i := range vars {
		pos[i] = k
	}
	out := *f
	out.tight = true
	out.lo, out.hi = quad{}, quad{}
	if n == 0 {
		return &out
	}
	data := make([]float64, n*n)
	fro := 0.0
	for k, v := range f.hess {
		i, j := pos[k[0]], pos[k[1]]
		data[i*n+j], data[j*n+i] = v, v
		fro += v * v
		if i != j {
			fro += v * v
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, data), true) {
		return f
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	tol := float64(n+10) * 1e-15 * math.Sqrt(fro)
	for k, lam := range vals {
		if math.Abs(lam) <= tol {
			continue
		}
		v := &affine{idx: slices.Clone(vars), coef: make([]float64, n)}
		for i := range n {
			v.coef[i] = vecs.At(i, k)
		}
		t := quad{terms: []term{{math.Abs(lam) + tol, v}}, nnz: n}
		if lam < 0 {
			out.lo = out.lo.plus(t, false)
		} else {
			out.hi = out.hi.plus(t, true)
		}
	}
	return &out
}
