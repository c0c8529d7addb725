package sparseqp

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// CSC is a sparse matrix in compressed sparse column form. Column j holds
// the entries RowIdx[ColPtr[j]:ColPtr[j+1]] with values
// Val[ColPtr[j]:ColPtr[j+1]].
//
// Invariants of a matrix built by NewCSC (and checked by Check): len(ColPtr)
// = Cols+1, ColPtr[0] = 0, ColPtr is nondecreasing, len(RowIdx) = len(Val)
// = ColPtr[Cols], and within each column the row indices are strictly
// increasing and in [0, Rows): no duplicates. Explicit zeros may be
// stored; they are part of the pattern, which is what a Solver analyses,
// so a pattern can keep an entry whose value is sometimes zero.
type CSC struct {
	Rows, Cols int
	ColPtr     []int
	RowIdx     []int
	Val        []float64
}

// NewCSC builds a rows×cols matrix from triplets: the entry (ri[k], ci[k])
// has value v[k], and duplicate positions are summed (their sum is kept
// even when it is zero). The three slices must have one length; an index
// out of range or a value that is not finite is an error naming the
// triplet.
func NewCSC(rows, cols int, ri, ci []int, v []float64) (*CSC, error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("sparseqp: matrix of %d×%d", rows, cols)
	}
	if len(ri) != len(ci) || len(ri) != len(v) {
		return nil, fmt.Errorf("sparseqp: %d row indices, %d column indices and %d values", len(ri), len(ci), len(v))
	}
	for k := range ri {
		if ri[k] < 0 || ri[k] >= rows || ci[k] < 0 || ci[k] >= cols {
			return nil, fmt.Errorf("sparseqp: triplet %d at (%d, %d) is outside the %d×%d matrix", k, ri[k], ci[k], rows, cols)
		}
		if math.IsNaN(v[k]) || math.IsInf(v[k], 0) {
			return nil, fmt.Errorf("sparseqp: triplet %d at (%d, %d) has value %g", k, ri[k], ci[k], v[k])
		}
	}
	// counting sort by column, then by row within each column
	cnt := make([]int, cols+1)
	for _, j := range ci {
		cnt[j+1]++
	}
	for j := range cols {
		cnt[j+1] += cnt[j]
	}
	order := make([]int, len(ri))
	next := slices.Clone(cnt[:cols])
	for k, j := range ci {
		order[next[j]] = k
		next[j]++
	}
	a := &CSC{Rows: rows, Cols: cols, ColPtr: make([]int, cols+1)}
	a.RowIdx = make([]int, 0, len(ri))
	a.Val = make([]float64, 0, len(ri))
	for j := range cols {
		col := order[cnt[j]:cnt[j+1]]
		slices.SortStableFunc(col, func(p, q int) int { return ri[p] - ri[q] })
		for _, k := range col {
			if n := len(a.RowIdx); n > a.ColPtr[j] && a.RowIdx[n-1] == ri[k] {
				a.Val[n-1] += v[k]
				continue
			}
			a.RowIdx = append(a.RowIdx, ri[k])
			a.Val = append(a.Val, v[k])
		}
		a.ColPtr[j+1] = len(a.RowIdx)
	}
	return a, nil
}

// Check reports whether a meets the invariants of CSC and its values are
// finite.
func (a *CSC) Check() error {
	if a == nil {
		return errors.New("sparseqp: nil matrix")
	}
	if a.Rows < 0 || a.Cols < 0 || len(a.ColPtr) != a.Cols+1 || a.ColPtr[0] != 0 {
		return fmt.Errorf("sparseqp: malformed %d×%d matrix (%d column pointers)", a.Rows, a.Cols, len(a.ColPtr))
	}
	nnz := a.ColPtr[a.Cols]
	if len(a.RowIdx) != nnz || len(a.Val) != nnz {
		return fmt.Errorf("sparseqp: matrix has %d entries, %d row indices and %d values", nnz, len(a.RowIdx), len(a.Val))
	}
	for j := range a.Cols {
		if a.ColPtr[j+1] < a.ColPtr[j] {
			return fmt.Errorf("sparseqp: column pointers decrease at column %d", j)
		}
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			i := a.RowIdx[p]
			if i < 0 || i >= a.Rows {
				return fmt.Errorf("sparseqp: entry at (%d, %d) is outside the %d×%d matrix", i, j, a.Rows, a.Cols)
			}
			if p > a.ColPtr[j] && i <= a.RowIdx[p-1] {
				return fmt.Errorf("sparseqp: column %d has row indices out of order or repeated at row %d", j, i)
			}
			if v := a.Val[p]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("sparseqp: entry (%d, %d) is %g", i, j, v)
			}
		}
	}
	return nil
}

// Nnz is the number of stored entries.
func (a *CSC) Nnz() int { return a.ColPtr[a.Cols] }

// At returns the entry (i, j), 0 where none is stored.
func (a *CSC) At(i, j int) float64 {
	rows := a.RowIdx[a.ColPtr[j]:a.ColPtr[j+1]]
	if k, ok := slices.BinarySearch(rows, i); ok {
		return a.Val[a.ColPtr[j]+k]
	}
	return 0
}

// MulVec sets dst = A x (len(dst) = Rows, len(x) = Cols).
func (a *CSC) MulVec(dst, x []float64) {
	clear(dst[:a.Rows])
	for j := range a.Cols {
		xj := x[j]
		if xj == 0 {
			continue
		}
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			dst[a.RowIdx[p]] += a.Val[p] * xj
		}
	}
}

// MulTransVec sets dst = Aᵀ y (len(dst) = Cols, len(y) = Rows).
func (a *CSC) MulTransVec(dst, y []float64) {
	for j := range a.Cols {
		s := 0.0
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			s += a.Val[p] * y[a.RowIdx[p]]
		}
		dst[j] = s
	}
}

// Transpose returns Aᵀ, with sorted row indices.
func (a *CSC) Transpose() *CSC {
	t := &CSC{Rows: a.Cols, Cols: a.Rows, ColPtr: make([]int, a.Rows+1)}
	nnz := a.Nnz()
	t.RowIdx = make([]int, nnz)
	t.Val = make([]float64, nnz)
	for _, i := range a.RowIdx[:nnz] {
		t.ColPtr[i+1]++
	}
	for i := range a.Rows {
		t.ColPtr[i+1] += t.ColPtr[i]
	}
	next := slices.Clone(t.ColPtr[:a.Rows])
	for j := range a.Cols {
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			i := a.RowIdx[p]
			t.RowIdx[next[i]] = j
			t.Val[next[i]] = a.Val[p]
			next[i]++
		}
	}
	return t
}

// samePattern reports whether a and b store entries at the same positions.
func samePattern(a, b *CSC) bool {
	return a.Rows == b.Rows && a.Cols == b.Cols && slices.Equal(a.ColPtr, b.ColPtr) &&
		slices.Equal(a.RowIdx[:a.Nnz()], b.RowIdx[:b.Nnz()])
}
