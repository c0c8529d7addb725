package autodiff

import (
	"fmt"
	"slices"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
)

// Rows by reference. D.X[i] over the rows of a mean is a constant: the
// compiler gathers those rows into a block of their own, once, so that the
// product with a vector of variables is one BLAS call over contiguous
// rows. On large data those blocks are a second copy of the data (and
// more: the means over all rows, over group 0 and over group 1 of the
// fairness model make two). Such a block can instead be kept as the row
// numbers (4 bytes a row) of the set's own matrix: a product of its rows
// with a vector (dot(D.X[i], x), dot(W[k] - W[l], D.X[i]), or the sum over
// every feature that reads as one) then reads each block of rows, when it
// runs, in place when the block's rows are consecutive in the matrix (the
// rows of a mean over all rows) and otherwise gathered into its worker's
// buffer, and multiplies there: the same BLAS calls on the same numbers,
// so the results are bit for bit those of the gathered block
// (TestRowRefsBitwise). Any other use of such a block gathers it at
// compile time, as before.
//
// Consecutive rows cost nothing read in place, so a block of them is kept
// by reference from rowRefMinBytes. So is a block of scattered rows whose
// product is shared with a mean over a superset (share.go: the fairness
// model's groups): it is read only when its mean is sampled. Gathering
// other scattered rows (the rows of one class among ten) at every pass
// costs time, about half a pass of npc.qrc on 10^7 rows, for the memory
// of one copy of the data: such a block is gathered at compile time
// (gatherScattered) unless it would take a 32nd of the memory a data set
// may take (data.MemoryLimit, QRC_DATA_MEMORY) or more.

// rowRefs is the value of a constant register that holds rows of a data
// set's dense matrix by reference.
type rowRefs struct {
	x       []float64 // the set's matrix, row-major
	d       int       // its columns
	cols    bool      // the register's innermost axis runs over the columns 1..d (D.X[i, j]); else its element is a row
	rowList           // rows of x
	// rising: rows is strictly increasing, so that a block whose first
	// and last rows are as far apart as its length is consecutive rows
	rising bool
	// scattered: the full rows are not consecutive rows of the matrix
	scattered bool
	// sbuf: when the register's mean runs over a sample, its rows
	// gathered at SetSample, which the register's val then is (a
	// sample's rows are scattered, and read at every pass; the buffer is
	// as large as the largest sample drawn)
	sbuf []float64
}

// gather copies the matrix's rows into dst, d values a row, zeros for -1.
func (rr *rowRefs) gather(dst []float64, rows []int32) {
	d := rr.d
	for t, k := range rows {
		row := dst[t*d : (t+1)*d]
		if k < 0 {
			clear(row)
			continue
		}
		copy(row, rr.x[int(k)*d:(int(k)+1)*d])
	}
}

// sample gathers the current rows, a sample's, into the register's
// values, or, with on false, goes back to reading the rows in place (val
// nil).
func (r *reg) sample(on bool) {
	rr := r.refs
	if !on {
		r.val = nil
		return
	}
	if need := len(rr.rows) * rr.d; cap(rr.sbuf) < need {
		rr.sbuf = make([]float64, need)
	}
	r.val = rr.sbuf[:len(rr.rows)*rr.d]
	rr.gather(r.val, rr.rows)
}

// rise sets rising from the current rows.
func (rr *rowRefs) rise() {
	rows := rr.rows
	rr.rising = len(rows) == 0 || rows[0] >= 0
	for t := 1; t < len(rows) && rr.rising; t++ {
		rr.rising = rows[t] > rows[t-1]
	}
}

// rowRefGather returns x[idx...] kept by reference when x is a data set's
// dense matrix, the rows would take rowRefMinBytes or more, and the
// indices are a row block x[i] or x[i, j] with j over every column,
// innermost; else nil.
func (c *compiler) rowRefGather(x *reg, idx []*reg, src ast.Node) *reg {
	if x.store != storeMatrix || len(x.elem) != 2 {
		return nil
	}
	n, d := x.elem[0], x.elem[1]
	i := idx[0]
	bytes := int64(i.fullBatch()) * int64(d) * 8
	if len(i.axes) == 0 || i.esize != 1 || len(i.val) < i.fullBatch() || bytes < c.tune.rowRefMinBytes {
		return nil
	}
	axes := slices.Clone(i.axes)
	elem := check.Shape{d}
	cols := false
	key := fmt.Sprintf("rowref|%d|%d", x.id, i.id)
	if len(idx) == 2 {
		j := idx[1]
		if len(j.axes) != 1 || i.has(j.axes[0]) || !precedes(i.axes, j.axes) || !allColumns(j, d) {
			return nil
		}
		axes, elem, cols = append(axes, j.axes[0]), nil, true
		key += fmt.Sprintf("|%d", j.id)
	}
	return c.leaf(key, func() *reg {
		rows := rowNumbers(i, n)
		nb := len(rows)
		rr := &rowRefs{x: x.val, d: d, cols: cols, rowList: rowList{rows: rows}}
		rr.rise()
		rr.scattered = !rr.rising || nb > 0 && int(rows[nb-1]-rows[0]) != nb-1
		r := c.newReg(axes, elem, src)
		r.konst = true
		r.refs, r.store = rr, storeRefs
		return r
	})
}

// subsetMinBytes returns the size from which a block of rows that are not
// consecutive is kept by reference.
func (t tuning) subsetMinBytes() int64 {
	if t.rowRefSubsetMinBytes >= 0 {
		return t.rowRefSubsetMinBytes
	}
	limit, _ := data.MemoryLimit()
	return limit / 32
}

// rowRefView is view for a register of rows by reference whose innermost
// axis runs over the columns: the same rows, each read as an element.
func (c *compiler) rowRefView(r *reg, src ast.Node) *reg {
	v := c.newReg(slices.Clone(r.axes[:len(r.axes)-1]), check.Shape{r.refs.d}, src)
	v.konst = true
	v.store = storeRefs
	v.refs = &rowRefs{x: r.refs.x, d: r.refs.d, scattered: r.refs.scattered, rowList: rowList{rows: r.refs.rows}}
	v.refs.rise()
	return v
}

// rowRefDot reports whether dot(a, b) can read the rows of its operand
// kept by reference block by block: that operand has one axis, over data
// rows, its element is a row, and the other operand is a vector of the
// same length, computed (not a constant: a product of constants is
// computed at compile time), that does not vary with those rows, whose
// axes come after them (so that the rows' axis is the product's
// outermost).
func rowRefDot(a, b *reg) bool {
	if (a.refs == nil) == (b.refs == nil) {
		return false
	}
	r, o := a, b
	if b.refs != nil {
		r, o = b, a
	}
	return !r.refs.cols && len(r.axes) == 1 && r.axes[0].data != nil && len(r.elem) == 1 &&
		len(o.elem) == 1 && o.esize == r.esize && o.sp == nil && !o.konst && !o.has(r.axes[0]) && precedes(r.axes, o.axes)
}

// gatherRefs returns a constant register with the values of r, a register
// of rows by reference, gathered: r itself when it is not by reference. A
// block too large to compute at compile time is an error.
func (c *compiler) gatherRefs(r *reg) *reg {
	if r == nil || r.refs == nil || c.failed {
		return r
	}
	return c.leaf(fmt.Sprintf("gathered|%d", r.id), func() *reg {
		rr := r.refs
		d := rr.d
		nrows := len(rr.rows)
		if n := nrows * d; d > 0 && (nrows > maxKonst/d || n > maxKonst) {
			c.errorf(r.src, "a block of %d × %d values of this data set's rows is too large to compute at compile time; only dot products of its rows with a vector read them in place", nrows, d)
			return nil
		}
		val := make([]float64, nrows*d)
		rr.gather(val, rr.rows)
		return c.konst(r.axes, r.elem, val, r.src)
	})
}

// rowsOf returns the rows of operand r within block bk: its values (for
// rows by reference, a sample's gathered rows), or the block's rows read
// by reference (gatherBlock).
func (in *inst) rowsOf(bk *blk, r *reg) []float64 {
	if r.refs == nil || r.val != nil {
		return bk.val(r)
	}
	return in.gatherBlock(r, bk.lo, bk.hi, bk.w)
}

// gatherBlock returns positions lo..hi-1 of r's rows by reference: in
// place when they are consecutive rows of the matrix, else gathered into
// worker w's part of the instruction's buffer.
func (in *inst) gatherBlock(r *reg, lo, hi, w int) []float64 {
	rr := r.refs
	d := rr.d
	if hi > lo && rr.rising && int(rr.rows[hi-1]-rr.rows[lo]) == hi-1-lo {
		return rr.x[int(rr.rows[lo])*d : (int(rr.rows[hi-1])+1)*d]
	}
	stride := r.axes[0].windowStride(d) // a worker's part of the buffer
	dst := in.rowBuf[w*stride : w*stride+(hi-lo)*d]
	rr.gather(dst, rr.rows[lo:hi])
	return dst
}

// refOperand returns the operand of a product that holds rows by
// reference, or nil.
func (in *inst) refOperand() *reg {
	if in.op != opDot {
		return nil
	}
	for _, r := range in.in {
		if r.refs != nil {
			return r
		}
	}
	return nil
}

// gatherScattered gathers, after findShares, the blocks of scattered rows
// kept by reference that no shared product reads and that take less than
// the subset threshold (subsetMinBytes): reading them in place would cost
// a gather at every pass. A block a sharer reads is read only when its
// mean is sampled (its product is gathered from the base's otherwise), so
// it stays by reference: the fairness model's groups cost no copy.
func (p *Program) gatherScattered() {
	shared := map[*reg]bool{}
	for _, in := range p.insts {
		if r := in.refOperand(); r != nil && p.plan[in.k].share != nil {
			shared[r] = true
		}
	}
	done := map[*reg]bool{}
	for _, in := range p.insts {
		r := in.refOperand()
		if r == nil || done[r] || shared[r] || !r.refs.scattered {
			continue
		}
		done[r] = true
		rr := r.refs
		n := len(rr.rows) * rr.d
		if int64(n)*8 >= p.tune.subsetMinBytes() || n > maxKonst {
			continue
		}
		val := make([]float64, n)
		rr.gather(val, rr.rows)
		r.val, r.refs, r.store = val, nil, storeWhole
	}
}

// linkRowRefs gives every product over rows by reference its gather
// buffer: a block of rows for each of p.slots workers.
func (p *Program) linkRowRefs() {
	for _, in := range p.insts {
		r := in.refOperand()
		if r == nil {
			continue
		}
		in.rowBuf = make([]float64, p.slots*r.axes[0].windowStride(r.refs.d))
	}
}

// row returns row q of a constant register of rows (gathered or by
// reference).
func (r *reg) row(q int) []float64 {
	d := r.esize
	if rr := r.refs; rr != nil {
		if k := rr.rows[q]; k >= 0 {
			return rr.x[int(k)*d : (int(k)+1)*d]
		}
		return make([]float64, d)
	}
	return r.val[q*d : (q+1)*d]
}

// sameRefRows reports whether row q of s is row idx[q] of b, both rows by
// reference into the same matrix.
func sameRefRows(s, b *rowRefs, idx []int32) bool {
	if s.d != b.d || len(s.x) != len(b.x) || len(s.x) > 0 && &s.x[0] != &b.x[0] {
		return false
	}
	for q, k := range idx {
		if s.rows[q] != b.rows[k] {
			return false
		}
	}
	return true
}
