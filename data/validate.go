package data

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Validate checks a set built in memory (qrc.WithData) as the loaders check
// the sets they build: a feature matrix, dense or sparse, with finite
// values; labels, feature names and every column of the set's row count;
// a sparse matrix whose row pointers and column indices are in range; text
// columns whose codes (in Columns) name one of their levels.
func (s *Set) Validate() error {
	switch {
	case s == nil:
		return fmt.Errorf("the set is nil")
	case s.X == nil && s.Sparse == nil:
		return fmt.Errorf("the set has no feature matrix (X or Sparse)")
	case s.X != nil && s.Sparse != nil:
		return fmt.Errorf("the set has both a dense X and a Sparse matrix; give one")
	}
	n, d := s.N(), s.D()
	if sp := s.Sparse; sp != nil {
		if sp.Rows < 0 || sp.Cols < 0 || len(sp.RowPtr) != sp.Rows+1 || sp.RowPtr[0] != 0 || len(sp.ColIdx) != len(sp.Val) || sp.RowPtr[sp.Rows] != len(sp.Val) {
			return fmt.Errorf("the sparse matrix is malformed: %d rows need %d row pointers from 0 to its %d nonzeros (it has %d pointers, %d column indices, %d values)",
				sp.Rows, sp.Rows+1, len(sp.Val), len(sp.RowPtr), len(sp.ColIdx), len(sp.Val))
		}
		for i := range sp.Rows {
			if sp.RowPtr[i+1] < sp.RowPtr[i] {
				return fmt.Errorf("the sparse matrix is malformed: row pointer %d (%d) is below the one before (%d)", i+1, sp.RowPtr[i+1], sp.RowPtr[i])
			}
		}
		for k, j := range sp.ColIdx {
			if j < 0 || int(j) >= sp.Cols {
				return fmt.Errorf("the sparse matrix's column index %d at nonzero %d is outside 0..%d", j, k, sp.Cols-1)
			}
		}
		if k := slices.IndexFunc(sp.Val, notFinite); k >= 0 {
			return fmt.Errorf("the sparse matrix's nonzero %d is %v; data must be finite", k, sp.Val[k])
		}
	} else {
		for i := range n {
			if j := slices.IndexFunc(s.X.RawRowView(i), notFinite); j >= 0 {
				return fmt.Errorf("X[%d, %d] is %v; data must be finite", i+1, j+1, s.X.At(i, j))
			}
		}
	}
	if s.Y != nil {
		if len(s.Y) != n {
			return fmt.Errorf("Y has %d labels for the %d rows of X", len(s.Y), n)
		}
		if i := slices.IndexFunc(s.Y, notFinite); i >= 0 {
			return fmt.Errorf("Y[%d] is %v; data must be finite", i+1, s.Y[i])
		}
	}
	if s.Features != nil && len(s.Features) != d {
		return fmt.Errorf("Features has %d names for the %d columns of X", len(s.Features), d)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Columns)) {
		col := s.Columns[name]
		if col == nil {
			continue // a column the model does not use, kept by name only
		}
		if len(col) != n {
			return fmt.Errorf("column %q has %d values for the %d rows of X", cut(name), len(col), n)
		}
		if i := slices.IndexFunc(col, notFinite); i >= 0 {
			return fmt.Errorf("column %q: value %d is %v; data must be finite", cut(name), i+1, col[i])
		}
		if t := s.Text[name]; t != nil {
			for i, v := range col {
				if v != math.Trunc(v) || v < 1 || v > float64(len(t.Levels)) {
					return fmt.Errorf("text column %q: row %d's code %v is not one of its %d levels (1..%d)", cut(name), i+1, v, len(t.Levels), len(t.Levels))
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Text)) {
		if s.Text[name] == nil {
			return fmt.Errorf("text column %q is nil", cut(name))
		}
		if _, ok := s.Columns[name]; !ok {
			return fmt.Errorf("text column %q has no codes in Columns", cut(name))
		}
	}
	return nil
}

func notFinite(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// cut shortens a name for a message: at most 40 bytes, control bytes escaped.
func cut(name string) string {
	q := fmt.Sprintf("%q", name)
	q = q[1 : len(q)-1]
	if len(q) > 40 {
		q = q[:37] + "..."
	}
	return strings.ToValidUTF8(q, "?")
}
