package autodiff

import (
	"slices"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
)

// maxDims bounds the number of dimensions of a register: its axes (the
// comprehension indices it varies over) plus its element's dimensions.
const maxDims = 8

// An axis is the index set of one comprehension binder: the values it takes
// (data rows, 1-based, or range values) after compile-time filtering.
// Registers that vary with the binder have the axis as a batch dimension,
// outermost axes first.
type axis struct {
	id    int
	depth int            // nesting depth: axes of one register have increasing depth
	data  *check.DataSet // the data set for an axis over rows, else nil
	vals  []float64      // the full list of values
	n     int            // the current length: len(vals), or the sample size
	pos   []int          // the sample positions into vals, or nil
	op    string         // the comprehension op that owns the axis
	means []ast.Pos      // the means over it

	maxBlocks int  // the most blocks its rows are split into (Program.link)
	nb, rows  int  // the current number of blocks and rows per block
	stream    bool // its registers may be windowed (stream.go)
	minRows   int  // the fewest rows of a block, when there are enough (blockRows unless it streams)
	capRows   int  // the most rows of a block (the rows of a window)
}

// A reg is a register: a value with a batch of axes and an element shape,
// stored row-major with the axes outermost.
type reg struct {
	id    int
	axes  []*axis
	elem  check.Shape
	esize int
	konst bool // does not depend on the decision variables

	val  []float64   // the current value (capacity for the full axes)
	full []float64   // for a konst register on a sampled axis: the full value
	adj  []float64   // the adjoint (nil for konst registers)
	aux  []float64   // what the forward pass records for the reverse pass
	prod int         // index of the instruction that computes it, or -1
	sp   *sparseRows // for rows of a sparse data set: their CSR form (val is nil); see sparse.go
	src  ast.Node
	// store is how val, adj and aux are kept; rep, refs and sp carry what
	// their kinds need (the verifier checks that they agree)
	store  storeKind
	repOff int // storeReplica: the value's offset in a helper's replicas
	// refs: rows of a data set's matrix by reference (val is nil; rows.go)
	refs *rowRefs
}

// A storeKind is how a register keeps its value, adjoint and aux. Each
// register has one; a computed register starts whole, and the passes
// "windows" and "replicas" (and "gatherScattered", for a constant) may
// change it.
type storeKind uint8

const (
	// storeWhole: val, adj and aux hold every entry of the full axes
	storeWhole storeKind = iota
	// storeWindow: val and adj hold one block of rows per worker
	// (stream.go); aux holds every row
	storeWindow
	// storeWindowAux: val, adj and aux hold one block of rows per worker
	storeWindowAux
	// storeReplica: whole, and every helper keeps a replica of the value
	// at repOff in its replicas (replica.go)
	storeReplica
	// storeMatrix: a data set's dense X, whole (rows.go)
	storeMatrix
	// storeRefs: rows of a data set's matrix by reference (refs; val is
	// nil; rows.go)
	storeRefs
	// storeSparse: rows of a sparse data set in CSR form (sp; val is nil;
	// sparse.go)
	storeSparse
)

// windowed reports whether r's value and adjoint hold one block of rows
// per worker.
func (r *reg) windowed() bool { return r.store == storeWindow || r.store == storeWindowAux }

// batch returns the current number of batch entries.
func (r *reg) batch() int {
	n := 1
	for _, a := range r.axes {
		n *= a.n
	}
	return n
}

// fullBatch returns the number of batch entries over the full axes.
func (r *reg) fullBatch() int {
	n := 1
	for _, a := range r.axes {
		n *= len(a.vals)
	}
	return n
}

func (r *reg) size() int { return r.batch() * r.esize }

func (r *reg) has(a *axis) bool {
	for _, b := range r.axes {
		if b == a {
			return true
		}
	}
	return false
}

// unionAxes merges axis lists ordered by depth.
func unionAxes(lists ...[]*axis) []*axis {
	var out []*axis
	for _, l := range lists {
		for _, a := range l {
			found := false
			for _, b := range out {
				if a == b {
					found = true
					break
				}
			}
			if !found {
				out = append(out, a)
			}
		}
	}
	slices.SortFunc(out, func(a, b *axis) int { return a.depth - b.depth })
	return out
}

func sameAxes(a, b []*axis) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A blk restricts an instruction to the positions lo..hi-1 of the data
// axis ax, which is the outermost axis of every register that has it. A nil
// *blk means the whole of every axis.
type blk struct {
	ax     *axis
	lo, hi int
	w      int // the worker running the block: its windows (stream.go)
	// rep: a helper's replicas (replica.go), or nil for the caller's
	// copies
	rep []float64
}

// n returns the length of axis a within the block.
func (b *blk) n(a *axis) int {
	if b != nil && a == b.ax {
		return b.hi - b.lo
	}
	return a.n
}

// batch returns the number of batch entries of r within the block.
func (b *blk) batch(r *reg) int {
	n := 1
	for _, a := range r.axes {
		n *= b.n(a)
	}
	return n
}

// size returns the number of elements of r within the block.
func (b *blk) size(r *reg) int { return b.batch(r) * r.esize }

// val returns the part of r's value within the block: all of it when r
// does not vary along the block's axis, a helper's replica of it when r
// has one and the block is a helper's.
func (b *blk) val(r *reg) []float64 {
	if r.store == storeReplica && b != nil && b.rep != nil && len(r.val) > 0 {
		return b.rep[r.repOff : r.repOff+len(r.val)]
	}
	return b.view(r, r.val)
}

// adj returns the part of r's adjoint within the block (only the
// caller's serial code uses the adjoints of registers with replicas).
func (b *blk) adj(r *reg) []float64 { return b.view(r, r.adj) }

// view returns the part of v (r's value, adjoint, or its aux when the aux
// is windowed) within the block: all of v when r does not vary along the
// block's axis.
func (b *blk) view(r *reg, v []float64) []float64 {
	if !r.windowed() {
		return b.whole(r, v)
	}
	inner := b.rowSize(r)
	if inner == 0 || v == nil {
		return v
	}
	lo := b.w * b.ax.windowStride(inner) // the worker's window holds the block
	return v[lo : lo+(b.hi-b.lo)*inner]
}

// windowGap is the float64s left unused between two workers' windows
// (and gathered rows): 8 KiB, so that no 4 KiB page holds both, and one
// core's prefetching at the end of its window does not take the lines
// the other core is writing at the start of its own. Measured on
// pendigits in busy minutes, interleaved: two cores 8 µs faster (of 420).
const windowGap = 1024

// windowStride returns the float64s from one worker's window of a
// register with inner elements per row to the next worker's.
func (a *axis) windowStride(inner int) int { return a.capRows*inner + windowGap }

// rowSize returns the elements of r a row of the block's axis holds, or
// 0 when r does not vary along it.
func (b *blk) rowSize(r *reg) int {
	if b == nil || len(r.axes) == 0 || r.axes[0] != b.ax {
		return 0
	}
	inner := r.esize
	for _, a := range r.axes[1:] {
		inner *= a.n
	}
	return inner
}

// aux returns the part of r's aux within the block (see view).
func (b *blk) aux(r *reg) []float64 {
	if r.store == storeWindow {
		return b.whole(r, r.aux)
	}
	return b.view(r, r.aux)
}

// whole is view for storage that holds every row.
func (b *blk) whole(r *reg, v []float64) []float64 {
	inner := b.rowSize(r)
	if inner == 0 || v == nil {
		return v
	}
	return v[b.lo*inner : b.hi*inner]
}

// shape is the dims of an iteration space with the strides of up to three
// operands in it.
type space struct {
	nd   int
	dims [maxDims]int
	st   [3][maxDims]int
}

// newSpace lays out the dims of out (its axes, then its element) with the
// strides of the operands ops within it; an operand lacking an axis, or with
// a scalar element where out has a vector, has stride 0 there.
func newSpace(b *blk, out *reg, ops ...*reg) space {
	var s space
	for _, a := range out.axes {
		s.dims[s.nd] = b.n(a)
		s.nd++
	}
	for _, d := range out.elem {
		s.dims[s.nd] = d
		s.nd++
	}
	for k, r := range ops {
		s.st[k] = strides(b, out, r)
	}
	return s
}

// strides returns the strides of r laid out in out's dims (within block b).
func strides(b *blk, out, r *reg) [maxDims]int {
	var st [maxDims]int
	k := len(out.axes)
	if len(r.elem) == len(out.elem) {
		step := 1
		for j := len(r.elem) - 1; j >= 0; j-- {
			st[k+j] = step
			step *= r.elem[j]
		}
	}
	step := r.esize
	for j := len(r.axes) - 1; j >= 0; j-- {
		for i, a := range out.axes {
			if a == r.axes[j] {
				st[i] = step
			}
		}
		step *= b.n(r.axes[j])
	}
	return st
}

// coalesce merges adjacent dims that every operand (the first nops) walks
// contiguously, and drops dims of length 1, so the innermost loop is long.
func (s *space) coalesce(nops int) {
	var out space
	for i := 0; i < s.nd; i++ {
		if s.dims[i] == 1 {
			continue
		}
		if out.nd > 0 {
			j := out.nd - 1
			ok := true
			for k := 0; k < nops; k++ {
				if out.st[k][j] != s.st[k][i]*s.dims[i] {
					ok = false
					break
				}
			}
			if ok {
				out.dims[j] *= s.dims[i]
				for k := 0; k < nops; k++ {
					out.st[k][j] = s.st[k][i]
				}
				continue
			}
		}
		out.dims[out.nd] = s.dims[i]
		for k := 0; k < nops; k++ {
			out.st[k][out.nd] = s.st[k][i]
		}
		out.nd++
	}
	if out.nd == 0 {
		out.nd = 1
		out.dims[0] = 1
	}
	*s = out
}

// run calls inner for every run of the innermost dim with the starting
// offsets of the operands, the run length and the operands' steps.
func (s *space) run(nops int, inner func(off [3]int, n int, step [3]int)) {
	s.coalesce(nops)
	last := s.nd - 1
	var step [3]int
	for k := 0; k < nops; k++ {
		step[k] = s.st[k][last]
	}
	for _, d := range s.dims[:s.nd] {
		if d == 0 {
			return
		}
	}
	var idx [maxDims]int
	var off [3]int
	for {
		inner(off, s.dims[last], step)
		// advance the odometer over the outer dims
		j := last - 1
		for ; j >= 0; j-- {
			idx[j]++
			for k := 0; k < nops; k++ {
				off[k] += s.st[k][j]
			}
			if idx[j] < s.dims[j] {
				break
			}
			for k := 0; k < nops; k++ {
				off[k] -= s.st[k][j] * s.dims[j]
			}
			idx[j] = 0
		}
		if j < 0 {
			return
		}
	}
}
