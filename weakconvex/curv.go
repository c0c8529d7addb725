package weakconvex

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// lower is a lower bound on a function's (generalized) Hessian:
// H >= s I - sum_j w_j a_j a_j^T with every w_j >= 0. Keeping the rank-one
// terms of sums over data rows, instead of adding up their norms, is what
// makes the bound use the data's structure: its modulus is
// -s + lambda_max(sum_j w_j a_j a_j^T), the top eigenvalue of a weighted
// second-moment matrix of the rows (docs/analysis.md).
type lower struct {
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

func (l lower) plus(m lower) lower {
	out := lower{s: l.s + m.s}
	if math.IsInf(out.s, -1) {
		return lower{s: out.s}
	}
	out.terms = make([]term, 0, len(l.terms)+len(m.terms))
	out.terms = append(append(out.terms, l.terms...), m.terms...)
	out.nnz = l.nnz + m.nnz
	if out.nnz > maxTermNNZ {
		out = lower{s: out.scalar(true)}
	}
	return out
}

// times is w*l for w >= 0.
func (l lower) times(w float64) lower {
	if w == 0 {
		return lower{}
	}
	out := lower{s: mulf(w, l.s), nnz: l.nnz}
	if len(l.terms) > 0 {
		out.terms = make([]term, len(l.terms))
		for i, t := range l.terms {
			out.terms[i] = term{w * t.w, t.a}
		}
	}
	return out
}

// scalar returns a number r with H >= r I: s minus the top eigenvalue of
// the terms (exact, when they are few enough and exact is set) or minus
// the sum of w_j ||a_j||^2 (their trace, which bounds that eigenvalue).
func (l lower) scalar(exact bool) float64 {
	if math.IsInf(l.s, -1) || len(l.terms) == 0 {
		return l.s
	}
	tr := 0.0
	for _, t := range l.terms {
		tr += t.w * t.a.norm2()
	}
	if len(l.terms) == 1 || !exact {
		return down(l.s - up(tr))
	}
	if ev, ok := topEigen(l.terms, tr); ok && ev < tr {
		return down(l.s - ev)
	}
	return down(l.s - up(tr))
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
