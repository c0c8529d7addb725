package autodiff

import (
	"slices"
	"sync/atomic"
)

// Early tails. When the functions are apart in the first reverse phase
// (linkApart), jacApart runs that phase once for all of them; what is
// left of each function's reverse pass, its tail (npc.qrc: the adjoints
// of the nine differences W[k] - W[l] into the rows of W), used to run
// afterwards on the caller, one function after another, while the other
// workers had nothing to do. A function's tail needs only the blocks of
// its own segments, so instead the worker that finishes the last block of
// a function's segments adds up their partial results and runs the tail
// there and then: the tails run on every worker, between the blocks of
// the other functions, and fill the time a worker used to wait for the
// last block of the phase. Every function's tail takes the same steps as
// before, in the same order, from the same values, so the Jacobian is
// bitwise the same; tails run one at a time (they share the variables'
// adjoints and Program.g).

// jacTails is what jacApart needs to run the tails early.
type jacTails struct {
	ok     bool      // the tails can run early (linkTails)
	on     bool      // the first reverse phase runs with early tails
	insts  [][]*inst // per function, its tail: the instructions of the later phases it marks, in order
	segFns [][]int   // per segment of the first phase, the functions with instructions in it
	// segLeft counts, per segment, its blocks not yet done; fnLeft, per
	// function, its segments not yet done
	segLeft, fnLeft []atomic.Int32
	rows            [][]float64 // the Jacobian being computed
	// busy is held by the worker running a tail: one at a time. A worker
	// that finds it held spins (a tail takes a microsecond or two) rather
	// than park, which would cost a wake-up far longer.
	busy atomic.Bool
}

// linkTails decides whether jacApart can run the tails early: the later
// phases run on the caller only (no blocks of rows), and no instruction
// of a tail shares a product with another.
func (p *Program) linkTails() {
	for i := 1; i < len(p.bwd); i++ {
		if len(p.bwd[i].segs) > 0 {
			return
		}
	}
	nf := len(p.outs)
	dep := make([][]bool, nf)
	for f, deps := range p.deps {
		dep[f] = make([]bool, len(p.insts))
		for _, k := range deps {
			dep[f][k] = true
		}
	}
	insts := make([][]*inst, nf)
	for f := range nf {
		for i := 1; i < len(p.bwd); i++ {
			for _, in := range p.bwd[i].serial {
				if !dep[f][in.k] || in.op == opExpAbs { // what markFor marks
					continue
				}
				if in.share != nil || len(in.sharers) > 0 {
					return
				}
				insts[f] = append(insts[f], in)
			}
		}
	}
	segs := p.bwd[0].segs
	segFns := make([][]int, len(segs))
	for s := range segs {
		for f := range nf {
			if slices.ContainsFunc(segs[s].insts, func(in *inst) bool { return dep[f][in.k] }) {
				segFns[s] = append(segFns[s], f)
			}
		}
	}
	t := &p.jac.tails
	t.insts, t.segFns = insts, segFns
	t.segLeft = make([]atomic.Int32, len(segs))
	t.fnLeft = make([]atomic.Int32, nf)
	t.ok = true
}

// startTails sets the counts of blocks and segments left before the
// blocks of the first reverse phase ph are dispatched (after its serial
// instructions), and runs at once the tails of the functions with no
// block in it.
func (p *Program) startTails(ph *phase) {
	t := &p.jac.tails
	for f := range t.fnLeft {
		t.fnLeft[f].Store(0)
	}
	for s := range ph.segs {
		sg := &ph.segs[s]
		n := 0
		if sg.active {
			n = sg.ax.nb
		}
		t.segLeft[s].Store(int32(n))
		if n > 0 {
			for _, f := range t.segFns[s] {
				t.fnLeft[f].Add(1)
			}
		}
	}
	for f := range t.fnLeft {
		if t.fnLeft[f].Load() == 0 {
			p.tail(f)
		}
	}
}

// blockDone notes that a block of segment s of the first reverse phase is
// done; the worker that does the last block of a segment finishes it
// (adds up its partial results), and the one that finishes a function's
// last segment runs its tail.
func (p *Program) blockDone(s int) {
	t := &p.jac.tails
	if t.segLeft[s].Add(-1) != 0 {
		return
	}
	p.finishSeg(&p.cur.ph.segs[s], false)
	for _, f := range t.segFns[s] {
		if t.fnLeft[f].Add(-1) == 0 {
			p.tail(f)
		}
	}
}

// tail runs the later phases of function f's reverse pass into its row
// of the Jacobian, as the serial code of those phases would with only f
// marked.
func (p *Program) tail(f int) {
	t := &p.jac.tails
	for !t.busy.CompareAndSwap(false, true) {
		// another worker's tail
	}
	row := t.rows[f]
	clear(row)
	p.g = row
	for _, in := range t.insts[f] {
		p.back(in, nil, -1)
	}
	p.g = nil
	t.busy.Store(false)
}
