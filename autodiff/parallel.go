package autodiff

import (
	"runtime"

	"github.com/qrc-lang/qrc/internal/workers"
)

// Evaluation on every core. The instructions that run along the rows of a
// data set (whose registers have the rows' axis outermost) run in blocks
// of rows: a phase is a list of instructions run one after the other on the
// calling goroutine, then segments, one per axis, of such instructions that
// run block by block, every block through the whole segment (so a chain of
// elementwise steps stays in cache), the blocks spread over a worker pool.
// Sums over the rows, and a reverse pass adding into something that does
// not vary with the rows, write one partial result per block; they are
// added up in block order after the blocks. The blocks depend only on the
// number of rows, never on the number of workers, so the results are
// bitwise the same on any number of cores.

const (
	// blockRows is the fewest rows of a block, when there are enough.
	blockRows = 128
	// maxBlocks is the most blocks the rows of an axis are split into.
	maxBlocks = 256
	// maxPartial bounds the float64s of partial results of one instruction.
	maxPartial = 1 << 22
)

// A seg is the instructions of a phase that run in blocks along one axis,
// in the order they run within a block.
type seg struct {
	ax    *axis
	insts []*inst
	// active is whether the running pass has work in the segment
	active bool
	// redo: in a reverse segment over a streamed axis, the windowed
	// instructions a block may have to recompute; now: those it does
	// recompute in the running pass (stream.go)
	redo, now []*inst
}

// A phase is instructions run in order on the calling goroutine, then
// segments run in blocks.
type phase struct {
	serial []*inst
	segs   []seg
	// idx is the phase's place in the forward pass; full: every helper
	// runs the serial instructions too, into its replicas, and the
	// caller runs them as it starts its first block (replica.go)
	idx  int
	full bool
}

// rowAxis returns r's outermost axis when it runs over data rows, else nil.
func rowAxis(r *reg) *axis {
	if len(r.axes) > 0 && r.axes[0].data != nil {
		return r.axes[0]
	}
	return nil
}

// blocked sets where the instruction can run in blocks of rows.
func (in *inst) blocked() {
	o := in.out
	switch in.op {
	case opVar, opGather:
	case opView:
		in.fwdAx, in.bwdAx = rowAxis(o), rowAxis(o)
	case opAxis:
		ra := rowAxis(in.in[0])
		if ra == nil {
			return
		}
		minmax := in.axOp == "max" || in.axOp == "min"
		if in.ax != ra || !minmax {
			in.fwdAx, in.fwdPart = ra, in.ax == ra
		}
		if in.ax != ra || !minmax {
			in.bwdAx = ra
		}
	case opDot:
		ra := rowAxis(o)
		if in.mode == dotGeneral || ra == nil {
			return
		}
		in.fwdAx, in.bwdAx = ra, ra
		for _, r := range in.in {
			if !r.konst && rowAxis(r) != ra {
				in.bwdPart = true
			}
		}
	default:
		ra := rowAxis(o)
		if ra == nil {
			return
		}
		in.fwdAx = ra
		for _, r := range in.in {
			if !r.konst && rowAxis(r) != ra {
				return
			}
		}
		in.bwdAx = ra
	}
}

// partialSize returns the size of one block's partial result, or 0.
func (in *inst) partialSize() int {
	if in.fwdPart {
		return in.out.fullBatch() * in.out.esize
	}
	if in.bwdPart {
		n := 0
		for _, r := range in.in {
			if !r.konst && rowAxis(r) != in.bwdAx {
				n = max(n, r.fullBatch()*r.esize)
			}
		}
		return n
	}
	return 0
}

// schedule sets out the phases of the forward pass (fwd) or reverse pass.
func (p *Program) schedule(fwd bool) []phase {
	n := len(p.insts)
	const (
		pending = iota
		current
		done
	)
	state := make([]int, n)
	// the instructions each one's reverse pass waits for: its consumers
	cons := make([][]int, n)
	for k, in := range p.insts {
		for _, r := range in.in {
			if r.prod >= 0 {
				cons[r.prod] = append(cons[r.prod], k)
			}
		}
		if p.plan[in.k].share != nil { // the base collects a sharer's adjoint
			cons[p.plan[in.k].share.base.k] = append(cons[p.plan[in.k].share.base.k], k)
		}
	}
	axOf := func(in *inst) *axis {
		if fwd {
			return in.fwdAx
		}
		return in.bwdAx
	}
	order := make([]int, n)
	for k := range order {
		order[k] = k
		if !fwd {
			order[k] = n - 1 - k
		}
	}
	// waits lists what k waits for; joinable says whether a wait on j in
	// the current phase is met within a block.
	waits := func(k int) []int {
		if fwd {
			var w []int
			for _, r := range p.insts[k].in {
				if r.prod >= 0 {
					w = append(w, r.prod)
				}
			}
			if sh := p.plan[k].share; sh != nil {
				w = append(w, sh.base.k)
			}
			return w
		}
		return cons[k]
	}
	joinable := func(k, j int) bool {
		a, b := p.insts[k], p.insts[j]
		if axOf(a) != axOf(b) {
			return false
		}
		if fwd {
			return !b.fwdPart
		}
		return rowAxis(a.out) == a.bwdAx
	}
	var phases []phase
	left := n
	for left > 0 {
		var ph phase
		for _, k := range order {
			if state[k] != pending || axOf(p.insts[k]) != nil {
				continue
			}
			ok := true
			for _, j := range waits(k) {
				ok = ok && state[j] == done
			}
			if ok {
				state[k] = done
				ph.serial = append(ph.serial, p.insts[k])
				left--
			}
		}
		var members []int
		for _, k := range order {
			in := p.insts[k]
			if state[k] != pending || axOf(in) == nil {
				continue
			}
			ok := true
			for _, j := range waits(k) {
				ok = ok && (state[j] == done || state[j] == current && joinable(k, j))
			}
			if !ok {
				continue
			}
			state[k] = current
			members = append(members, k)
			s := 0
			for s < len(ph.segs) && ph.segs[s].ax != axOf(in) {
				s++
			}
			if s == len(ph.segs) {
				ph.segs = append(ph.segs, seg{ax: axOf(in)})
			}
			ph.segs[s].insts = append(ph.segs[s].insts, in)
		}
		for _, k := range members {
			state[k] = done
			left--
		}
		if len(ph.serial) == 0 && len(members) == 0 {
			panic("autodiff: internal error: the instructions cannot be scheduled")
		}
		phases = append(phases, ph)
	}
	return phases
}

// linkBlocks decides which instructions run in blocks, bounds the blocks
// of every axis, allocates the partial results and schedules both passes.
func (p *Program) linkBlocks() {
	for _, in := range p.insts {
		for _, a := range []*axis{in.fwdAx, in.bwdAx} {
			if a != nil && a.maxBlocks == 0 {
				if a.minRows == 0 {
					a.minRows = blockRows
				}
				a.maxBlocks = max(1, (len(a.vals)+a.minRows-1)/a.minRows)
				if !a.stream { // a streamed axis has as many blocks as its rows need
					a.maxBlocks = min(maxBlocks, a.maxBlocks)
				}
			}
		}
	}
	for _, in := range p.insts {
		if ps := in.partialSize(); ps > 0 {
			a := in.fwdAx
			if !in.fwdPart {
				a = in.bwdAx
			}
			a.maxBlocks = max(1, min(a.maxBlocks, maxPartial/ps))
			if in.op == opDot && in.mode == dotSparse {
				// the partial adjoints of a sparse product take no more
				// memory than the nonzeros of its rows
				a.maxBlocks = max(1, min(a.maxBlocks, in.sparseOperand().sp.nnz()/ps))
			}
		}
	}
	for _, in := range p.insts {
		for _, a := range []*axis{in.fwdAx, in.bwdAx} {
			if a != nil {
				a.capRows = max(a.minRows, (len(a.vals)+a.maxBlocks-1)/a.maxBlocks)
			}
		}
	}
	items := 0
	for _, in := range p.insts {
		if ps := in.partialSize(); ps > 0 {
			a := in.fwdAx
			if !in.fwdPart {
				a = in.bwdAx
			}
			in.partSize = ps
			in.part = make([]float64, a.maxBlocks*ps)
		}
	}
	p.fwd, p.bwd = p.schedule(true), p.schedule(false)
	for i := range p.fwd {
		p.fwd[i].idx = i
	}
	for _, phs := range [][]phase{p.fwd, p.bwd} {
		for _, ph := range phs {
			n := 0
			for _, s := range ph.segs {
				n += s.ax.maxBlocks
			}
			items = max(items, n)
		}
	}
	p.items = make([]item, items)
	p.ends = make([]int, workers.MaxHelpers+1)
}

// parts returns the workers n blocks run on: as many as GOMAXPROCS allows,
// and no more than have windows and buffers (Program.slots) when the
// program has them.
func (p *Program) parts(n int) int {
	parts := min(runtime.GOMAXPROCS(0), n, len(p.ends))
	if p.slots > 0 {
		parts = min(parts, p.slots)
	}
	return parts
}

// An item is one block of one segment of a phase.
type item struct{ seg, block int }

// split sets a's current blocks from its current rows.
func (a *axis) split() {
	nb := min(a.maxBlocks, max(1, (a.n+a.minRows-1)/a.minRows))
	a.rows = (a.n + nb - 1) / nb
	a.nb = (a.n + a.rows - 1) / a.rows
}

// slot returns block b's partial result, or nil.
func (in *inst) slot(b int) []float64 {
	if in.part == nil {
		return nil
	}
	return in.part[b*in.partSize : (b+1)*in.partSize]
}

// run runs phase ph of the forward pass (fwd) or of the reverse pass.
func (p *Program) run(ph *phase, fwd bool, x []float64) {
	// the blocks of every active segment, split into one part per worker:
	// worker w first runs the w-th share of each segment's blocks, the same
	// rows in every pass, so that they stay in its core's cache
	blocks, rows := 0, 0
	for s := range ph.segs {
		sg := &ph.segs[s]
		sg.active = fwd
		for _, in := range sg.insts {
			sg.active = sg.active || p.mark[in.k]
		}
		if sg.active {
			sg.ax.split()
			blocks += sg.ax.nb
			rows += sg.ax.n
			if !fwd {
				p.redoNow(sg)
			}
		}
	}
	parts := p.parts(blocks)
	if rows < p.tune.parallelMinRows {
		parts = 1
	}
	// a fully replicated phase on several workers runs its serial
	// instructions on the caller as it starts its first block, while the
	// helpers compute their replicas (replica.go); the setting out of the
	// blocks above reads none of their values
	pre := fwd && ph.full && blocks > 0 && parts > 1 && parts <= len(p.repBufs)
	if !pre {
		p.serial(ph, fwd, x)
	}
	tails := !fwd && p.jac.tails.on
	if tails {
		p.startTails(ph)
	}
	if blocks == 0 {
		return
	}
	n := 0
	// within a worker's part the segments' blocks take turns (the j-th
	// block of each, then the (j+1)-th), so that the blocks of several
	// row sets of one data set that run together read neighbouring rows
	for w := range parts {
		for j := 0; ; j++ {
			more := false
			for s := range ph.segs {
				sg := &ph.segs[s]
				if !sg.active {
					continue
				}
				b := w*sg.ax.nb/parts + j
				if b < (w+1)*sg.ax.nb/parts {
					p.items[n] = item{s, b}
					n++
					more = true
				}
			}
			if !more {
				break
			}
		}
		p.ends[w] = n
	}
	p.cur = current{ph: ph, fwd: fwd, x: x, pre: pre}
	p.job.RunParts(p.ends[:parts])
	if tails {
		p.drainTails() // the segments a helper finished last
	}
	if p.cur.pre { // the helpers took every block
		p.serial(ph, fwd, x)
	}
	p.cur = current{}
	if tails {
		return // the workers finished every segment (blockDone)
	}
	for s := range ph.segs {
		p.finishSeg(&ph.segs[s], fwd)
	}
}

// finishSeg adds up the partial results of a segment's blocks, in block
// order, and clears the adjoints that do not vary along its rows.
func (p *Program) finishSeg(sg *seg, fwd bool) {
	for _, in := range sg.insts {
		if fwd && in.fwdPart {
			in.combineForward()
		}
		if !fwd && p.mark[in.k] {
			// an active sharer's adjoint and a deferred product's go
			// elsewhere (runShared), not into partial results
			d := &p.plan[in.k]
			if in.bwdPart && (d.how != runShared || !d.share.active(in) && !p.deferred(in)) {
				in.combineBackward()
			}
			if o := in.out; !p.keep && d.how != runView && rowAxis(o) != sg.ax {
				clear(o.adj[:o.size()])
			}
		}
	}
}

// serial runs phase ph's serial instructions, on the caller's copies.
func (p *Program) serial(ph *phase, fwd bool, x []float64) {
	for _, in := range ph.serial {
		if fwd {
			p.forward(in, x, nil, nil)
		} else if p.mark[in.k] {
			p.back(in, nil, -1)
		}
	}
}

// A current is the phase being run, for the workers.
type current struct {
	ph  *phase
	fwd bool
	x   []float64
	// pre: the caller has yet to run the phase's serial instructions
	// (phase.full)
	pre bool
}

// block runs item i of the current phase (or block i of Jacobian's
// product being multiplied).
func (p *Program) block(w, i int) {
	if p.jac.run != nil {
		p.jacBlock(w, i)
		return
	}
	ph, fwd, x := p.cur.ph, p.cur.fwd, p.cur.x
	it := p.items[i]
	sg := &ph.segs[it.seg]
	a := sg.ax
	lo := it.block * a.rows
	bk := blk{ax: a, lo: lo, hi: min(lo+a.rows, a.n), w: w}
	if w > 0 && p.repSize > 0 {
		bk.rep = p.replicas(w)
	} else if w == 0 && p.cur.pre {
		p.serial(ph, fwd, x)
		p.cur.pre = false
	}
	if fwd {
		for _, in := range sg.insts {
			p.forward(in, x, &bk, in.slot(it.block))
		}
		return
	}
	for _, in := range sg.now { // the windowed values the reverse reads
		p.forward(in, nil, &bk, nil)
	}
	for _, in := range sg.insts {
		if p.mark[in.k] {
			p.back(in, &bk, it.block)
		}
	}
	if p.jac.tails.on {
		p.blockDone(w, it.seg)
	}
}

// back runs an instruction's reverse pass within bk and then clears the
// adjoint it used (Gradient relies on every adjoint being zero between
// calls), unless the program keeps adjoints for a diagnosis. How it runs
// is its runKind (plan.go).
func (p *Program) back(in *inst, bk *blk, b int) {
	o := in.out
	var part []float64
	if b >= 0 {
		part = in.slot(b)
	}
	d := &p.plan[in.k]
	switch d.how {
	case runVar:
		n := o.size()
		dst := p.g[in.off : in.off+n]
		for i, v := range o.adj[:n] {
			dst[i] += v
		}
	case runView:
		in.backward(bk, part)
		return // its adjoint is its operand's, cleared with it
	case runShared:
		if len(d.sharers) > 0 {
			p.collectShared(in, bk)
		}
		switch {
		case p.deferred(in):
			p.deferBlock(in, bk)
		case in.op == opDot && d.share.active(in):
			// the base collects the adjoint (collectShared)
		default:
			in.backward(bk, part)
		}
		if d.share.active(in) {
			return // a sharer's adjoint is cleared by its base
		}
	case runFusedSum:
		if !p.keep {
			return // its operand's reverse runs its reverse and clears its adjoint
		}
		in.backward(bk, part)
	case runFusedUnary:
		if !p.keep {
			p.sumBackward(in, bk)
			return // its adjoint was never written
		}
		in.backward(bk, part)
	default:
		in.backward(bk, part)
	}
	// an output without the block's axis is cleared after every block
	if (!p.keep || o.windowed()) && (bk == nil || rowAxis(o) == bk.ax) {
		clear(bk.adj(o)[:bk.size(o)])
	}
}

// combineForward sets a sum's output to the sum of its blocks' partial
// sums, in block order (divided by the rows for a mean).
func (in *inst) combineForward() {
	o := in.out
	n := o.size()
	out := o.val[:n]
	copy(out, in.part[:n])
	for b := 1; b < in.ax.nb; b++ {
		for q, v := range in.slot(b)[:n] {
			out[q] += v
		}
	}
	if in.axOp == "mean" {
		inv := 1 / float64(in.ax.n)
		for q := range out {
			out[q] *= inv
		}
	}
}

// combineBackward adds the blocks' partial adjoints, in block order, to the
// operand that does not vary with the rows.
func (in *inst) combineBackward() {
	for _, r := range in.in {
		if r.konst || rowAxis(r) == in.bwdAx {
			continue
		}
		n := r.size()
		adj := r.adj[:n]
		for b := 0; b < in.bwdAx.nb; b++ {
			for q, v := range in.slot(b)[:n] {
				adj[q] += v
			}
		}
	}
}
