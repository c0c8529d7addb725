package weakconvex

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// quad is a bound on a function's (generalized) Hessian H by a multiple of
// the identity and rank-one terms, w_j >= 0: as a lower bound
// H >= s I - sum_j w_j a_j a_j^T, as an upper bound
// H <= s I + sum_j w_j a_j a_j^T. Keeping the rank-one terms of sums over
// data rows, instead of adding up their norms, is what makes the bound use
// the data's structure: the lower bound's modulus is
// -s + lambda_max(sum_j w_j a_j a_j^T), the top eigenvalue of a weighted
// second-moment matrix of the rows (docs/analysis.md).
type quad struct {
	s     float64
	terms []term
	nnz   int // total coefficients in terms
}

type term struct {
	w float64
	a *affine
}

// Limits on the exact (eigenvalue) form of a lower bound.
const (
	maxTermNNZ  = 4_000_000 // coefficients kept in a term list before it is folded into s
	maxEigenDim = 1500      // variables an eigenvalue bound may involve
	maxEigenOps = 400_000_000
)

// plus is the sum of two bounds of the same side (upper: an upper bound).
func (l quad) plus(m quad, upper bool) quad {
	out := quad{s: l.s + m.s}
	if math.IsInf(out.s, 0) || math.IsNaN(out.s) {
		return quad{s: out.s}
	}
	out.terms = make([]term, 0, len(l.terms)+len(m.terms))
	out.terms = append(append(out.terms, l.terms...), m.terms...)
	out.nnz = l.nnz + m.nnz
	if out.nnz > maxTermNNZ {
		out = quad{s: out.bound(true, upper)}
	}
	return out
}

// times is w*l for w >= 0.
func (l quad) times(w float64) quad {
	if w == 0 {
		return quad{}
	}
	out := quad{s: mulf(w, l.s), nnz: l.nnz}
	if len(l.terms) > 0 {
		out.terms = make([]term, len(l.terms))
		for i, t := range l.terms {
			out.terms[i] = term{w * t.w, t.a}
		}
	}
	return out
}

// scalar returns a number r with H >= r I for a lower bound l.
func (l quad) scalar(exact bool) float64 { return l.bound(exact, false) }

// upperScalar returns a number r with H <= r I for an upper bound l.
func (l quad) upperScalar(exact bool) float64 { return l.bound(exact, true) }

// bound is s minus (lower) or plus (upper) the top eigenvalue of the
// terms: exact, when they are few enough and exact is set, or bounded by
// the sum of w_j ||a_j||^2 (their trace).
func (l quad) bound(exact, upper bool) float64 {
	if math.IsInf(l.s, 0) || len(l.terms) == 0 {
		return l.s
	}
	tr := 0.0
	for _, t := range l.terms {
		tr += t.w * t.a.norm2()
	}
	ev := up(tr)
	if len(l.terms) > 1 && exact {
		if e, ok := topEigen(l.terms, tr); ok && e < tr {
			ev = e
		}
	}
	if upper {
		return up(l.s + ev)
	}
	return down(l.s - ev)
}

// topEigen bounds the top eigenvalue of sum_j w_j a_j a_j^T from above:
// the computed eigenvalue plus a margin for rounding. ok is false when the
// matrix would be too large.
func topEigen(terms []term, trace float64) (float64, bool) {
	pos := map[int32]int{}
	ops := 0
	for _, t := range terms {
		for _, j := range t.a.idx {
			if _, ok := pos[j]; !ok {
				pos[j] = len(pos)
			}
		}
		ops += len(t.a.idx) * len(t.a.idx)
	}
	n := len(pos)
	if n == 0 {
		return 0, true
	}
	if n > maxEigenDim || ops > maxEigenOps {
		return 0, false
	}
	data := make([]float64, n*n)
	p := make([]int, 0, 64)
	for _, t := range terms {
		p = p[:0]
		for _, j := range t.a.idx {
			p = append(p, pos[j])
		}
		for u, pu := range p {
			cu := t.w * t.a.coef[u]
			row := data[pu*n:]
			for v, pv := range p {
				row[pv] += cu * t.a.coef[v]
			}
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, data), false) {
		return 0, false
	}
	vals := eig.Values(nil)
	top := vals[len(vals)-1]
	// The eigenvalues of the computed symmetric matrix are within about
	// n u ||A|| of the exact ones, and ||A|| <= trace.
	return top + float64(n+10)*1e-15*trace + 1e-300, true
}
