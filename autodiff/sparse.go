package autodiff

import (
	"fmt"
	"slices"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
)

// Sparse data. The feature matrix of a set stored in CSR form (data.Set's
// Sparse, not converted to a dense X) is a constant register without values
// that refers to the CSR arrays: indexing its rows, D.X[i], gives a
// register holding one row number per batch entry, and a dot product of
// such rows with a vector of variables or parameters (dot(w, D.X[i]),
// dot(W[k] - W[l], D.X[i]), or the sum sum(j in 1..D.d) w[j] * D.X[i, j],
// read as the same dot product) runs over the nonzeros of each row, forward
// and in reverse (the adjoint X^T g of the vector). Any other use of a
// sparse register makes it dense first (densify), within the compile-time
// constant limit; the checker has the whole set converted beforehand when a
// model uses X any other way (see check.Check), so that this is a safety
// net.

// sparseRows is the value of a constant register that holds rows of a
// sparse matrix.
type sparseRows struct {
	m *data.CSR
	// whole: the register is the whole matrix (elem n×d, no axes) and rows
	// is nil.
	whole bool
	// cols: the register's innermost axis runs over the matrix's columns
	// 1..d in order (D.X[i, j] in sum(j in 1..D.d)) and its element is a
	// scalar; otherwise its element is a row (elem d).
	cols    bool
	rowList // rows of m
}

// rowList is the rows of a constant register of data rows held as row
// numbers (sparse rows; dense rows by reference, rows.go) and, when its
// mean may be sampled, the full list and a buffer for a sample's.
type rowList struct {
	rows []int32 // the 0-based row of every batch entry (without the columns axis), or -1 for zeros
	full []int32 // the rows over the full axes, when the register may be sampled
	buf  []int32 // the sample's rows
}

// sampleable keeps the full rows and a buffer for a sample's (once).
func (l *rowList) sampleable() {
	if l.full == nil {
		l.full = l.rows
		l.buf = make([]int32, len(l.rows))
	}
}

// resample sets the rows to the full rows, or, when sampled, to the rows
// of r's current batch.
func (l *rowList) resample(r *reg, sampled bool) {
	l.rows = l.full
	if sampled {
		l.rows = l.buf[:r.batch()]
		sampleBatch(r, func(t, src int) { l.rows[t] = l.full[src] })
	}
}

// nnz returns the number of stored entries of the register's full rows.
func (s *sparseRows) nnz() int {
	rows := s.rows
	if s.full != nil {
		rows = s.full
	}
	n := 0
	for _, r := range rows {
		if r >= 0 {
			n += s.m.RowPtr[r+1] - s.m.RowPtr[r]
		}
	}
	return n
}

// sparseMatrix returns the constant register of a sparse set's X.
func (c *compiler) sparseMatrix(m *data.CSR, src ast.Node) *reg {
	r := c.newReg(nil, check.Shape{m.Rows, m.Cols}, src)
	r.konst = true
	r.sp, r.store = &sparseRows{m: m, whole: true}, storeSparse
	return r
}

// sparseGather returns the register of x[idx...] for the sparse matrix x
// when it can stay sparse: a row block x[i] (one index), or x[i, j] where j
// is the index of a range 1..d over every column, innermost. It returns nil
// otherwise.
func (c *compiler) sparseGather(x *reg, idx []*reg, src ast.Node) *reg {
	for _, r := range idx {
		if r.sp != nil {
			return nil
		}
	}
	m := x.sp.m
	i := idx[0]
	axes := slices.Clone(i.axes)
	elem := check.Shape{m.Cols}
	cols := false
	key := fmt.Sprintf("sparse|%d|%d", x.id, i.id)
	if len(idx) == 2 {
		j := idx[1]
		if len(j.axes) != 1 || i.has(j.axes[0]) || !precedes(i.axes, j.axes) || !allColumns(j, m.Cols) {
			return nil
		}
		axes, elem, cols = append(axes, j.axes[0]), nil, true
		key += fmt.Sprintf("|%d", j.id)
	}
	return c.leaf(key, func() *reg {
		r := c.newReg(axes, elem, src)
		r.konst = true
		r.store = storeSparse
		r.sp = &sparseRows{m: m, cols: cols, rowList: rowList{rows: rowNumbers(i, m.Rows)}}
		return r
	})
}

// rowNumbers returns the 0-based row of every entry of the index register
// i (1-based row numbers), or -1 where it is not a row of a matrix of n
// rows (its element is then zeros).
func rowNumbers(i *reg, n int) []int32 {
	nb := i.fullBatch()
	rows := make([]int32, nb)
	for t, v := range i.val[:nb] {
		rows[t] = -1
		if k := int(v) - 1; float64(k+1) == v && k >= 0 && k < n {
			rows[t] = int32(k)
		}
	}
	return rows
}

// allColumns reports whether the index register j is its axis's values and
// they are 1..d in order.
func allColumns(j *reg, d int) bool {
	a := j.axes[0]
	if len(a.vals) != d || j.esize != 1 || len(j.val) < d {
		return false
	}
	for k, v := range a.vals {
		if v != float64(k+1) || j.val[k] != v {
			return false
		}
	}
	return true
}

// sparseView is view for a sparse register whose innermost axis runs over
// the columns: the same rows, each read as an element of length d.
func (c *compiler) sparseView(r *reg, src ast.Node) *reg {
	v := c.newReg(slices.Clone(r.axes[:len(r.axes)-1]), check.Shape{r.sp.m.Cols}, src)
	v.konst = true
	v.store = storeSparse
	v.sp = &sparseRows{m: r.sp.m, rowList: rowList{rows: r.sp.rows}}
	return v
}

// sparseDotOK reports whether dot(a, b) runs over the nonzeros: one operand
// is a sparse row block, the other a vector of the same length.
func sparseDotOK(a, b *reg) bool {
	if b.sp != nil {
		a, b = b, a
	}
	return a.sp != nil && b.sp == nil && !a.sp.whole && !a.sp.cols &&
		len(a.elem) == 1 && len(b.elem) == 1 && a.esize == b.esize
}

// densify returns a constant register with r's values stored dense: r
// itself when it is not sparse. A block too large to compute at compile
// time is an error.
func (c *compiler) densify(r *reg) *reg {
	if r == nil || r.sp == nil || c.failed {
		return r
	}
	return c.leaf(fmt.Sprintf("dense|%d", r.id), func() *reg {
		sp := r.sp
		d := sp.m.Cols
		nrows := len(sp.rows)
		if sp.whole {
			nrows = sp.m.Rows
		}
		if n := nrows * d; d > 0 && (nrows > maxKonst/d || n > maxKonst) {
			c.errorf(r.src, "a dense block of %d × %d values of this sparse feature matrix is too large to compute at compile time; only dot products of its rows with a vector run over the nonzeros (docs/language.md)", nrows, d)
			return nil
		}
		val := make([]float64, nrows*d)
		for t := range nrows {
			k := t
			if !sp.whole {
				k = int(sp.rows[t])
			}
			if k < 0 {
				continue
			}
			cols, vals := sp.m.Row(k)
			row := val[t*d : (t+1)*d]
			for q, j := range cols {
				row[j] = vals[q]
			}
		}
		return c.konst(r.axes, r.elem, val, r.src)
	})
}

// viewRows returns the rows of the sparse register r within block bk.
func (b *blk) viewRows(r *reg) []int32 {
	rows := r.sp.rows
	if b == nil || len(r.axes) == 0 || r.axes[0] != b.ax {
		return rows
	}
	inner := 1
	for _, a := range r.axes[1:] {
		inner *= a.n
	}
	return rows[b.lo*inner : b.hi*inner]
}

// sparseDot computes dot(a, b) over the nonzeros of the sparse operand's
// rows within block bk, or, when back is true, adds the adjoint of the
// dense operand: for every output entry with adjoint g, g times the row at
// the row's columns (into part when the operand does not vary with bk's
// rows, see adjOf). The output's element is a scalar; one loop over the
// output's batch serves every arrangement of the operands' axes.
func (in *inst) sparseDot(bk *blk, back bool, part []float64) {
	s, v, o := in.in[0], in.in[1], in.out
	if s.sp == nil {
		s, v = v, s
	}
	var va []float64
	if back {
		if va = adjOf(bk, v, part); va == nil {
			return
		}
	}
	m := s.sp.m
	d := s.esize
	if d == 0 { // no features: every product is 0
		if !back {
			clear(bk.val(o)[:bk.size(o)])
		}
		return
	}
	rows := bk.viewRows(s)
	vv, ov, og := bk.val(v), bk.val(o), bk.adj(o)
	sp := newSpace(bk, o, s, v, o)
	sp.run(3, func(off [3]int, n int, st [3]int) {
		is, iv, io := off[0]/d, off[1], off[2]
		ss, sv, so := st[0]/d, st[1], st[2]
		for range n {
			r := rows[is]
			switch {
			case r < 0:
				if !back {
					ov[io] = 0
				}
			case back:
				if g := og[io]; g != 0 {
					a, b := m.RowPtr[r], m.RowPtr[r+1]
					vals, y := m.Val[a:b], va[iv:iv+d]
					for q, j := range m.ColIdx[a:b] {
						y[j] += g * vals[q]
					}
				}
			default:
				a, b := m.RowPtr[r], m.RowPtr[r+1]
				vals, x := m.Val[a:b], vv[iv:iv+d]
				t := 0.0
				for q, j := range m.ColIdx[a:b] {
					t += vals[q] * x[j]
				}
				ov[io] = t
			}
			is, iv, io = is+ss, iv+sv, io+so
		}
	})
}

// sparseOperand returns the sparse operand of a sparse dot product.
func (in *inst) sparseOperand() *reg {
	if in.in[0].sp != nil {
		return in.in[0]
	}
	return in.in[1]
}
