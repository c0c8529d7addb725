package sparseqp

import (
	"errors"
	"fmt"
	"math"
)

// LDL is a sparse LDLᵀ factorisation P·(K + R)·Pᵀ = L·D·Lᵀ of a symmetric
// matrix K, with P a fill-reducing permutation (minimum degree), L unit
// lower triangular, D diagonal and R a diagonal regularisation (see
// Factor). It is meant for quasidefinite matrices [H, Bᵀ; B, −G] with H
// and G positive definite, whose every symmetric permutation has an LDLᵀ
// factorisation with n positive and m negative pivots (Vanderbei 1995),
// so that no pivoting for stability is needed and the order is chosen
// once for the pattern.
//
// NewLDL does the symbolic analysis of a pattern once (order, elimination
// tree, the nonzeros of each column of L); Factor computes the numbers for
// any matrix of that pattern, as often as needed, without allocating;
// Solve and SolveRefined use the last factorisation. Only the upper
// triangle (entries i <= j) of the matrices given is read.
type LDL struct {
	n          int
	perm, pinv []int // perm[k] is the original index of the k-th pivot

	// the analysed pattern, to check that Factor gets the same one
	colPtr, rowIdx []int
	// src[p] is the position in cx of the entry p of the analysed matrix,
	// -1 for an entry below the diagonal (not read)
	src []int
	// the permuted upper triangle, with every diagonal entry stored; diag[k]
	// is the position of (k, k) in cx
	cp, ci []int
	cx     []float64
	diag   []int

	parent []int // elimination tree; -1 at a root
	lp     []int // column k of L is li, lx [lp[k]:lp[k+1]]
	li     []int
	lx     []float64
	d      []float64

	// work space
	y                   []float64
	pattern             []int
	flag, lnz           []int
	work1, work2, work3 []float64

	factored bool
}

// DefaultMaxFactorNonzeros bounds the nonzeros of L that NewLDL accepts
// unless told otherwise (about 1.5 GB of factor).
const DefaultMaxFactorNonzeros = 100_000_000

// maxWorkPerNnz bounds the work of the order and of one numeric
// factorisation (Σ_j nnz(L_j)²) to this many operations per allowed
// nonzero of L: 10¹⁰ by default, tens of seconds.
const maxWorkPerNnz = 100

// NewLDL analyses the pattern of the square matrix k (its upper triangle):
// it orders it by minimum degree and finds the structure of L. maxNnz
// bounds L's nonzeros (0 means DefaultMaxFactorNonzeros), and 100·maxNnz
// the operations of the order and of one factorisation; a pattern whose
// factor would be larger or costlier is an error, so memory and time stay
// bounded.
func NewLDL(k *CSC, maxNnz int) (*LDL, error) {
	if err := k.Check(); err != nil {
		return nil, err
	}
	if k.Rows != k.Cols {
		return nil, fmt.Errorf("sparseqp: LDLᵀ of a %d×%d matrix", k.Rows, k.Cols)
	}
	if maxNnz <= 0 {
		maxNnz = DefaultMaxFactorNonzeros
	}
	n := k.Cols
	f := &LDL{n: n, colPtr: append([]int(nil), k.ColPtr...), rowIdx: append([]int(nil), k.RowIdx[:k.Nnz()]...)}
	maxWork := maxWorkPerNnz * float64(maxNnz)
	order, err := minDegreeOrder(n, k.ColPtr, k.RowIdx, maxNnz, maxWork)
	if err != nil {
		return nil, err
	}
	f.perm = order
	f.pinv = make([]int, n)
	for i, v := range order {
		f.pinv[v] = i
	}
	// the permuted upper triangle, diagonal included
	cnt := make([]int, n+1)
	hasDiag := make([]bool, n)
	for j := range n {
		for p := k.ColPtr[j]; p < k.ColPtr[j+1]; p++ {
			i := k.RowIdx[p]
			if i > j {
				continue
			}
			if i == j {
				hasDiag[j] = true
			}
			cnt[max(f.pinv[i], f.pinv[j])+1]++
		}
	}
	for j := range n {
		if !hasDiag[j] {
			cnt[f.pinv[j]+1]++
		}
	}
	for j := range n {
		cnt[j+1] += cnt[j]
	}
	f.cp = append([]int(nil), cnt...)
	f.ci = make([]int, cnt[n])
	f.cx = make([]float64, cnt[n])
	f.diag = make([]int, n)
	f.src = make([]int, k.Nnz())
	next := cnt[:n]
	for j := range n {
		for p := k.ColPtr[j]; p < k.ColPtr[j+1]; p++ {
			i := k.RowIdx[p]
			if i > j {
				f.src[p] = -1
				continue
			}
			pi, pj := f.pinv[i], f.pinv[j]
			c, r := max(pi, pj), min(pi, pj)
			f.ci[next[c]] = r
			f.src[p] = next[c]
			if r == c {
				f.diag[c] = next[c]
			}
			next[c]++
		}
	}
	for j := range n {
		if !hasDiag[j] {
			c := f.pinv[j]
			f.ci[next[c]] = c
			f.diag[c] = next[c]
			next[c]++
		}
	}
	// elimination tree and column counts (Liu; the up-looking form of
	// Davis's LDL)
	f.parent = make([]int, n)
	f.flag = make([]int, n)
	f.lnz = make([]int, n)
	for c := range n {
		f.parent[c] = -1
		f.flag[c] = c
		for p := f.cp[c]; p < f.cp[c+1]; p++ {
			for i := f.ci[p]; i < c && f.flag[i] != c; i = f.parent[i] {
				if f.parent[i] == -1 {
					f.parent[i] = c
				}
				f.lnz[i]++
				f.flag[i] = c
			}
		}
	}
	f.lp = make([]int, n+1)
	flops := 0.0
	for c := range n {
		f.lp[c+1] = f.lp[c] + f.lnz[c]
		if f.lp[c+1] > maxNnz {
			return nil, fmt.Errorf("sparseqp: the factor of the %d×%d system would exceed %d nonzeros", n, n, maxNnz)
		}
		flops += float64(f.lnz[c]) * float64(f.lnz[c])
	}
	if flops > maxWork {
		return nil, fmt.Errorf("sparseqp: factoring the %d×%d system would take more than %.3g operations", n, n, maxWork)
	}
	f.li = make([]int, f.lp[n])
	f.lx = make([]float64, f.lp[n])
	f.d = make([]float64, n)
	f.y = make([]float64, n)
	f.pattern = make([]int, n)
	f.work1 = make([]float64, n)
	f.work2 = make([]float64, n)
	f.work3 = make([]float64, n)
	return f, nil
}

// N is the order of the matrix.
func (f *LDL) N() int { return f.n }

// FactorNnz is the number of nonzeros of L below its diagonal.
func (f *LDL) FactorNnz() int { return f.lp[f.n] }

// ErrZeroPivot says a pivot was zero or not finite (the matrix is singular
// or not quasidefinite) and no sign was given to regularise it.
var ErrZeroPivot = errors.New("sparseqp: zero pivot in LDLᵀ")

// Factor computes the numeric factorisation of k + R, k of the analysed
// pattern. With sign nil, R = 0 and a zero pivot is ErrZeroPivot. With
// sign given (one +1 or −1 per row, the sign each pivot of a quasidefinite
// k should have), R = reg·diag(sign) (static regularisation), and a pivot
// whose signed value is below 1e-13 (wrong sign, or nearly singular: the
// rounding of a dependent row's elimination) is replaced by sign·1e-7
// (dynamic regularisation); the number of pivots so replaced is returned.
// Solve then solves with k + R and the replaced pivots, and SolveRefined
// refines towards k itself.
func (f *LDL) Factor(k *CSC, sign []int8, reg float64) (int, error) {
	if k.Cols != f.n || k.Rows != f.n || !samePatternRaw(k, f.colPtr, f.rowIdx) {
		return 0, errors.New("sparseqp: Factor given a matrix of another pattern than the one analysed")
	}
	if sign != nil && len(sign) != f.n {
		return 0, fmt.Errorf("sparseqp: %d signs for a matrix of order %d", len(sign), f.n)
	}
	f.factored = false
	clear(f.cx)
	for p, q := range f.src {
		if q >= 0 {
			f.cx[q] = k.Val[p]
		}
	}
	if sign != nil {
		for j, s := range sign {
			f.cx[f.diag[f.pinv[j]]] += float64(s) * reg
		}
	}
	return f.numeric(sign, reg)
}

func samePatternRaw(k *CSC, colPtr, rowIdx []int) bool {
	if len(k.ColPtr) != len(colPtr) || k.Nnz() != len(rowIdx) {
		return false
	}
	for j := range colPtr {
		if k.ColPtr[j] != colPtr[j] {
			return false
		}
	}
	for p := range rowIdx {
		if k.RowIdx[p] != rowIdx[p] {
			return false
		}
	}
	return true
}

// dynEps and dynDelta are the dynamic regularisation of Factor: a pivot
// whose signed value is below dynEps is replaced by sign·dynDelta.
// (Variables so that tests may vary them.)
var dynEps, dynDelta = 1e-13, 1e-7

// numeric is the up-looking LDLᵀ of the permuted matrix in cp, ci, cx:
// row c of L is found by walking the elimination tree from each nonzero of
// column c of the upper triangle.
func (f *LDL) numeric(sign []int8, reg float64) (int, error) {
	n := f.n
	y, pattern, flag, lnz := f.y, f.pattern, f.flag, f.lnz
	replaced := 0
	for c := range n {
		y[c] = 0
		top := n
		flag[c] = c
		lnz[c] = 0
		for p := f.cp[c]; p < f.cp[c+1]; p++ {
			i := f.ci[p]
			y[i] += f.cx[p]
			l := 0
			for ; flag[i] != c; i = f.parent[i] {
				pattern[l] = i
				l++
				flag[i] = c
			}
			for l > 0 {
				top--
				l--
				pattern[top] = pattern[l]
			}
		}
		dc := y[c]
		y[c] = 0
		for ; top < n; top++ {
			i := pattern[top]
			yi := y[i]
			y[i] = 0
			p2 := f.lp[i] + lnz[i]
			for p := f.lp[i]; p < p2; p++ {
				y[f.li[p]] -= f.lx[p] * yi
			}
			lci := yi / f.d[i]
			dc -= lci * yi
			f.li[p2] = c
			f.lx[p2] = lci
			lnz[i]++
		}
		if sign != nil {
			s := float64(sign[f.perm[c]])
			if !(s*dc >= dynEps) {
				dc = s * dynDelta
				replaced++
			}
		} else if dc == 0 || math.IsNaN(dc) || math.IsInf(dc, 0) {
			return 0, ErrZeroPivot
		}
		f.d[c] = dc
	}
	f.factored = true
	return replaced, nil
}

// Solve overwrites b with the solution x of (k + R) x = b for the last
// factorisation.
func (f *LDL) Solve(b []float64) {
	if !f.factored {
		panic("sparseqp: LDL.Solve before a successful Factor")
	}
	n := f.n
	x := f.work1
	for k := range n {
		x[k] = b[f.perm[k]]
	}
	for j := range n {
		xj := x[j]
		for p := f.lp[j]; p < f.lp[j+1]; p++ {
			x[f.li[p]] -= f.lx[p] * xj
		}
	}
	for j := range n {
		x[j] /= f.d[j]
	}
	for j := n - 1; j >= 0; j-- {
		s := x[j]
		for p := f.lp[j]; p < f.lp[j+1]; p++ {
			s -= f.lx[p] * x[f.li[p]]
		}
		x[j] = s
	}
	for k := range n {
		b[f.perm[k]] = x[k]
	}
}

// SolveRefined sets x to the solution of k x = b by Solve and at most
// steps rounds of iterative refinement against k (whose upper triangle is
// read; k of the analysed pattern, usually the matrix factored without its
// regularisation R). Refinement stops when the residual's largest entry is
// at most tol·(1 + ‖b‖∞), or when a round does not halve it (a round that
// does not lower it is undone). The returned value is ‖b − k x‖∞ of the x
// returned. x and b must not overlap.
func (f *LDL) SolveRefined(k *CSC, x, b []float64, steps int, tol float64) float64 {
	copy(x, b)
	f.Solve(x)
	r, c := f.work2, f.work3
	res := symResidual(k, r, x, b)
	goal := tol * (1 + normInf(b))
	for range steps {
		if res <= goal {
			break
		}
		copy(c, r)
		f.Solve(c)
		for i := range x {
			x[i] += c[i]
		}
		newRes := symResidual(k, r, x, b)
		if !(newRes < res) {
			for i := range x {
				x[i] -= c[i]
			}
			break
		}
		halved := newRes <= res/2
		res = newRes
		if !halved {
			break
		}
	}
	return res
}

// symResidual sets r = b − k x with k symmetric given by its upper
// triangle, and returns ‖r‖∞.
func symResidual(k *CSC, r, x, b []float64) float64 {
	copy(r, b)
	for j := range k.Cols {
		for p := k.ColPtr[j]; p < k.ColPtr[j+1]; p++ {
			i := k.RowIdx[p]
			if i > j {
				continue
			}
			v := k.Val[p]
			r[i] -= v * x[j]
			if i != j {
				r[j] -= v * x[i]
			}
		}
	}
	m := 0.0
	for _, v := range r {
		if a := math.Abs(v); a > m || math.IsNaN(a) {
			m = a
		}
	}
	return m
}
