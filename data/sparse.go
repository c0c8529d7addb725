package data

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// CSR is a sparse matrix in compressed sparse row form: the nonzeros of row
// i are Val[RowPtr[i]:RowPtr[i+1]], in the 0-based columns
// ColIdx[RowPtr[i]:RowPtr[i+1]], which increase within a row. It takes
// 12 bytes per nonzero plus 8 per row.
type CSR struct {
	Rows, Cols int
	RowPtr     []int     // length Rows+1, RowPtr[0] = 0
	ColIdx     []int32   // length NNZ
	Val        []float64 // length NNZ
}

// NNZ returns the number of stored nonzeros.
func (m *CSR) NNZ() int { return len(m.Val) }

// Row returns the columns and values of row i's nonzeros (0-based i).
// The slices alias m and must not be modified.
func (m *CSR) Row(i int) (cols []int32, vals []float64) {
	a, b := m.RowPtr[i], m.RowPtr[i+1]
	return m.ColIdx[a:b], m.Val[a:b]
}

// Bytes returns the memory m's arrays take.
func (m *CSR) Bytes() int64 { return csrBytes(m.Rows, len(m.Val)) }

// Density returns the share of entries that are stored, NNZ/(Rows·Cols).
func (m *CSR) Density() float64 {
	if m.Rows == 0 || m.Cols == 0 {
		return 0
	}
	return float64(len(m.Val)) / (float64(m.Rows) * float64(m.Cols))
}

// CheckDense reports, without converting anything, the error [Set.Dense]
// would return: nil for a dense set or a sparse one whose dense matrix fits
// in the memory a data set may take.
func (s *Set) CheckDense() error {
	m := s.Sparse
	if m == nil {
		return nil
	}
	need := denseBytes(m.Rows, m.Cols)
	b := newBudget(s.maxMemory)
	if msg := b.exceeded(need, fmt.Sprintf("a dense %d × %d matrix of this sparse set (%d nonzeros, density %.2g)",
		m.Rows, m.Cols, m.NNZ(), m.Density())); msg != "" {
		return &Error{Path: s.Path, Line: s.maxIdxLine, Col: s.maxIdxCol, Msg: msg + "; the largest feature index is here"}
	}
	return nil
}

func csrBytes(n, nnz int) int64 { return 12*int64(nnz) + 8*int64(n+1) }

// denseBytes returns the memory of an n×d float64 matrix, saturating
// instead of overflowing.
func denseBytes(n, d int) int64 {
	if n == 0 || d == 0 {
		return 0
	}
	if int64(d) > (1<<62)/8/int64(n) {
		return 1 << 62
	}
	return 8 * int64(n) * int64(d)
}

// preferSparse reports whether a set of n rows, d features and nnz nonzeros
// is stored as CSR: when CSR takes less than half the memory of a dense
// matrix, that is, roughly when fewer than a third of the entries are nonzero.
func preferSparse(n, d, nnz int) bool {
	return 2*csrBytes(n, nnz) < denseBytes(n, d)
}

// Dense returns the set's feature matrix as a dense n×d matrix. For a dense
// set it is X. A sparse set (X nil, Sparse set) is converted on the first
// call, when the matrix fits in the memory a data set may take
// ([MemoryLimit]); the result is kept in X, so later calls and readers of X
// see it. The error for a matrix that does not fit names the file, the line
// where the largest feature index first appears, and the size it would need.
// Dense is safe for concurrent use.
func (s *Set) Dense() (*mat.Dense, error) {
	s.denseMu.Lock()
	defer s.denseMu.Unlock()
	if s.X != nil || s.Sparse == nil {
		return s.X, nil
	}
	if err := s.CheckDense(); err != nil {
		return nil, err
	}
	m := s.Sparse
	x := makeFloats(m.Rows*m.Cols, m.Rows*m.Cols)
	for i := range m.Rows {
		row := x[i*m.Cols : (i+1)*m.Cols]
		cols, vals := m.Row(i)
		for k, j := range cols {
			row[j] = vals[k]
		}
	}
	s.X = mat.NewDense(m.Rows, m.Cols, x)
	return s.X, nil
}
