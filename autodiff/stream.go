package autodiff

import (
	"runtime"
	"slices"

	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/internal/workers"
)

// Streaming: evaluation in memory that does not grow with the rows, or
// barely. A register that varies along the rows of a data mean holds one
// value per row: npc.qrc keeps about 480 bytes a row of values, adjoints
// and derivatives, 4.8 GB on 10^7 rows, almost four times the data. On
// large data such registers are *windowed* instead: each worker has a
// window of one block of rows of each, which holds the block's values and
// adjoints only while the worker runs that block.
//
// The forward pass needs nothing else: a block runs its whole chain of
// instructions (parallel.go), so a windowed value is produced and used
// within one block. The reverse pass mostly reads what the forward pass
// recorded for it, the registers' aux (the derivative of each elementwise
// function, which operand won a max), and the data and the variables:
// that is all npc.qrc, the fairness models, phase retrieval and the
// hinge and logistic losses read. So the aux is kept for every row (72
// bytes a row for npc.qrc: 9 derivatives) and the rest is windowed, at no
// cost in time: the blocks' values and adjoints stay in their core's
// cache instead of going to memory and back.
//
// When the aux would take more than streamAuxMaxBytes (or a quarter of
// the data memory limit), it is windowed too, and so is any value a
// reverse pass reads (the operands of a product of two row registers, of
// a division, of a norm): a block of the reverse pass then first
// recomputes, into its worker's windows, what its marked instructions
// read (reverseReads) and what that is computed from, then runs. The
// recomputation is the forward pass's own code on the same rows, so the
// values are bit for bit those of the forward pass, and a streamed
// program's results are bitwise those of the same blocks with every
// register kept whole (TestStreamBitwise). Its price is about one forward
// pass over the rows per reverse pass.
//
// A register is windowed when every instruction that reads or writes it
// runs in the same segment of the forward pass (one phase, its axis) and
// in the same segment of the reverse pass, so that no value or adjoint of
// a block has to outlive the block; others (a per-row value used after a
// mean over the same rows, say) keep all their rows, and so do the
// products shared across row subsets and their exponentials (share.go),
// which a subset reads at the rows of other blocks.

// The thresholds (tuning.streamMinBytes and the rest, options.go) are
// chosen so that a register that fits a core's cache stays whole: beyond
// it windows are faster, as a block's values and adjoints stay in cache
// from one instruction of its chain to the next instead of going to memory
// and back, and the blocks are larger (docs/performance.md). The examples
// stay whole, as the tests that compare streamed programs with whole ones
// expect.

// planStream decides which axes stream (pass "stream"): when the
// registers over data rows would take tune.streamMinBytes or more in all,
// every data axis with such registers streams, with blocks of about
// tune.streamBlockBytes of them.
func (p *Program) planStream() {
	perRow := map[*axis]int64{}
	var total int64
	var axes []*axis
	for _, in := range p.insts {
		o := in.out
		a := rowAxis(o)
		if a == nil || o.konst || in.op == opView || in.op == opVar {
			continue
		}
		floats := int64(2)
		if in.needsAux() {
			floats = 3
		}
		n := int64(o.fullBatch()*o.esize) * floats * 8
		if _, ok := perRow[a]; !ok {
			axes = append(axes, a)
		}
		perRow[a] += n / int64(max(1, len(a.vals)))
		total += n
	}
	t := p.tune
	if total < t.streamMinBytes || total == 0 {
		return
	}
	for _, a := range axes {
		rows := int(t.streamBlockBytes / max(1, perRow[a]))
		a.stream = true
		a.minRows = min(t.streamMaxRows, max(t.streamMinRows, rows))
	}
}

// streams reports whether the axis streams (planStream).
func (a *axis) streams() bool { return a != nil && a.stream }

// where is an instruction's place in a pass's schedule: its phase, and its
// segment's axis (nil when it runs on the caller).
type where struct {
	phase int
	ax    *axis
}

// places returns every instruction's place in the phases of a pass.
func (p *Program) places(phs []phase) []where {
	at := make([]where, len(p.insts))
	for i := range at {
		at[i].phase = -1
	}
	for i, ph := range phs {
		for _, in := range ph.serial {
			at[in.k] = where{phase: i}
		}
		for _, sg := range ph.segs {
			for _, in := range sg.insts {
				at[in.k] = where{phase: i, ax: sg.ax}
			}
		}
	}
	return at
}

// linkWindows decides which registers are windowed (see the top of this
// file) and, for every segment of the reverse pass over a streamed axis,
// the windowed instructions a block may have to recompute (pass
// "windows"). Without it the streamed axes are split into the same blocks
// but every register keeps all its rows: the reference a streamed program
// must match bit for bit.
func (p *Program) linkWindows() {
	streamed := false
	for _, in := range p.insts {
		streamed = streamed || in.fwdAx.streams()
	}
	if !streamed {
		return
	}
	fw, bw := p.places(p.fwd), p.places(p.bwd)
	// users[k]: the instructions that read instruction k's output, through
	// views too (a view shares its operand's storage)
	users := make([][]*inst, len(p.insts))
	root := func(r *reg) int { // the instruction whose storage r is
		k := r.prod
		for k >= 0 && p.insts[k].op == opView {
			k = p.insts[k].in[0].prod
		}
		return k
	}
	for _, in := range p.insts {
		for _, r := range in.in {
			if k := root(r); k >= 0 && !r.konst {
				users[k] = append(users[k], in)
			}
		}
	}
	for _, in := range p.insts {
		o := in.out
		a := rowAxis(o)
		if !a.streams() || o.konst || in.op == opView || in.op == opVar || p.plan[in.k].share != nil || len(p.plan[in.k].sharers) > 0 {
			continue
		}
		f, b := fw[in.k], bw[in.k]
		ok := in.fwdAx == a && in.bwdAx == a && f.ax == a && b.ax == a
		for _, u := range users[in.k] {
			if u.op == opView {
				continue // its readers are in users[in.k] too
			}
			ok = ok && fw[u.k] == f && bw[u.k] == b && p.plan[u.k].share == nil
		}
		if ok {
			o.store = storeWindow
		}
	}
	var aux int64 // the bytes of the windowed registers' aux over every row
	for _, in := range p.insts {
		if in.op == opView {
			if in.in[0].store == storeWindow {
				in.out.store = storeWindow
			}
		}
		if o := in.out; o.windowed() && in.needsAux() {
			aux += int64(o.fullBatch()*o.esize) * 8
		}
	}
	limit, _ := data.MemoryLimit()
	for _, in := range p.insts {
		if in.out.store == storeWindow && aux > min(p.tune.streamAuxMaxBytes, limit/4) {
			in.out.store = storeWindowAux
		}
	}
	// the candidates for recomputation in each reverse segment: the
	// windowed instructions whose values (or windowed aux) its
	// instructions' reverse passes read, and what those are computed from
	p.need = make([]bool, len(p.insts))
	for i := range p.bwd {
		for s := range p.bwd[i].segs {
			sg := &p.bwd[i].segs[s]
			if !sg.ax.streams() {
				continue
			}
			in := map[int]bool{}
			var visit func(r *reg)
			visit = func(r *reg) {
				if !r.windowed() || r.prod < 0 || in[r.prod] {
					return
				}
				in[r.prod] = true
				for _, q := range p.insts[r.prod].in {
					visit(q)
				}
			}
			for _, x := range sg.insts {
				x.reverseReads(visit)
			}
			for k := range in {
				sg.redo = append(sg.redo, p.insts[k])
			}
			slices.SortFunc(sg.redo, func(a, b *inst) int { return a.k - b.k })
			sg.now = make([]*inst, 0, len(sg.redo))
		}
	}
}

// linkSlots sets the number of workers a program with windows (or rows
// by reference, rows.go) has buffers for: as many as the machine has
// cores, or as GOMAXPROCS allows now if that is more. A pass runs on at
// most as many (its results do not depend on how many); a program
// without such buffers runs on every core GOMAXPROCS allows.
func (p *Program) linkSlots() {
	for _, in := range p.insts {
		if in.out.windowed() || in.refOperand() != nil {
			p.slots = min(workers.MaxHelpers+1, max(runtime.NumCPU(), runtime.GOMAXPROCS(0)))
			return
		}
	}
}

// auxStorage returns the float64s of r's aux: every row's unless the aux
// is windowed too.
func (r *reg) auxStorage(slots int) int {
	if r.store == storeWindow {
		return r.fullBatch() * r.esize
	}
	return r.storage(slots)
}

// storage returns the float64s of each of r's value and adjoint (and aux,
// see auxStorage): for a windowed register, a block of its axis's rows for
// each of slots workers.
func (r *reg) storage(slots int) int {
	if !r.windowed() {
		return r.fullBatch() * r.esize
	}
	inner := r.esize
	for _, a := range r.axes[1:] {
		inner *= len(a.vals)
	}
	return slots * r.axes[0].windowStride(inner)
}

// redoNow sets, for a reverse segment over a streamed axis, the windowed
// instructions a block must recompute before the marked instructions run:
// those whose outputs the marked instructions read or write, and what
// those are computed from, in program order.
func (p *Program) redoNow(sg *seg) {
	sg.now = sg.now[:0]
	if len(sg.redo) == 0 {
		return
	}
	for _, in := range sg.redo {
		p.need[in.k] = false
	}
	want := func(r *reg) {
		if r.windowed() && r.prod >= 0 {
			p.need[r.prod] = true
		}
	}
	for _, in := range sg.insts {
		if p.mark[in.k] {
			in.reverseReads(want)
		}
	}
	for i := len(sg.redo) - 1; i >= 0; i-- {
		in := sg.redo[i]
		if p.need[in.k] {
			for _, r := range in.in {
				want(r)
			}
		}
	}
	for _, in := range sg.redo {
		if p.need[in.k] {
			sg.now = append(sg.now, in)
		}
	}
}

// reverseReads calls f with every register whose values the
// instruction's reverse pass reads (see backward), and with its output
// when the pass reads the output's aux and that is windowed.
func (in *inst) reverseReads(f func(r *reg)) {
	switch in.op {
	case opMul, opDot: // an operand's adjoint is the other's values times the output's
		if !in.in[0].konst {
			f(in.in[1])
		}
		if !in.in[1].konst {
			f(in.in[0])
		}
	case opKeep: // a's adjoint passes where the condition b holds
		if !in.in[0].konst {
			f(in.in[1])
		}
	case opDiv:
		if !in.in[0].konst {
			f(in.in[1])
		}
		if !in.in[1].konst {
			f(in.in[1])
			f(in.out)
		}
	case opReduce:
		if !in.in[0].konst {
			f(in.in[0])
		}
	case opUnary, opPow, opSigmoidE, opMax2, opMin2:
		if in.out.store == storeWindowAux {
			f(in.out)
		}
	case opAxis:
		if in.out.store == storeWindowAux && (in.axOp == "max" || in.axOp == "min") {
			f(in.out)
		}
	}
}

// clearAdj zeroes all of r's adjoint storage.
func (r *reg) clearAdj() {
	if r.windowed() {
		clear(r.adj)
		return
	}
	clear(r.adj[:r.size()])
}

// streamed reports whether some of the program's registers over data rows
// are windowed.
func (p *Program) streamed() bool {
	for _, in := range p.insts {
		if in.out.windowed() {
			return true
		}
	}
	return false
}

// scanWindows runs the forward pass again, every block on the caller in
// order, and calls check after each windowed instruction of a block with
// the block's views of its output and of its first operand: a diagnosis
// of values that are not kept.
func (p *Program) scanWindows(x []float64, check func(in *inst, ov, aux, av []float64)) {
	for i := range p.fwd {
		ph := &p.fwd[i]
		for _, in := range ph.serial {
			if in.op != opVar || x != nil { // without x, the variables hold it
				p.forward(in, x, nil, nil)
			}
		}
		for s := range ph.segs {
			sg := &ph.segs[s]
			a := sg.ax
			a.split()
			for b := range a.nb {
				lo := b * a.rows
				bk := blk{ax: a, lo: lo, hi: min(lo+a.rows, a.n)}
				for _, in := range sg.insts {
					p.forward(in, x, &bk, in.slot(b))
					if o := in.out; o.windowed() {
						n := bk.size(o)
						var aux, av []float64
						if o.aux != nil {
							aux = bk.aux(o)[:n]
						}
						if len(in.in) > 0 {
							av = bk.val(in.in[0])
						}
						check(in, bk.val(o)[:n], aux, av)
					}
				}
			}
		}
		for s := range ph.segs {
			for _, in := range ph.segs[s].insts {
				if in.fwdPart {
					in.combineForward()
				}
			}
		}
	}
}
