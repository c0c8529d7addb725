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
// its own segments, so instead the caller adds up a segment's partial
// results and runs the tails of the functions it completes as soon as
// the segment's last block is done: at once when the caller ran that
// block, else between its next blocks (a helper that runs a segment's
// last block leaves the segment in a queue for it). The tails run
// between the other functions' blocks and fill the time the caller used
// to wait for the last block of the phase, and they always run on the
// caller: the variables' adjoints they share, the functions' rows of the
// Jacobian and the registers of the later phases stay in its core's
// cache instead of passing from core to core (each cache line a few
// hundred nanoseconds when the host puts the two cores far apart;
// docs/performance.md). Every function's tail takes the same steps as
// before, in the same order, from the same values, so the Jacobian is
// bitwise the same.

// jacTails is what jacApart needs to run the tails early.
type jacTails struct {
	ok     bool      // the tails can run early (linkTails)
	on     bool      // the first reverse phase runs with early tails
	insts  [][]*inst // per function, its tail: the instructions of the later phases it marks, in order
	segFns [][]int   // per segment of the first phase, the functions with instructions in it
	// segLeft counts, per segment, its blocks not yet done (on every
	// worker); fnLeft, per function, its segments the caller has not yet
	// finished
	segLeft []atomic.Int32
	fnLeft  []int32
	rows    [][]float64 // the Jacobian being computed
	// queue holds the segments whose last block a helper ran (s+1; 0: a
	// slot taken but not yet filled), queued counts its slots taken and
	// finished those the caller has finished
	queue    []atomic.Int32
	queued   atomic.Int32
	finished int32
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
				if p.plan[in.k].share != nil || len(p.plan[in.k].sharers) > 0 {
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
	t.queue = make([]atomic.Int32, len(segs))
	t.fnLeft = make([]int32, nf)
	t.ok = true
}

// startTails sets the counts of blocks and segments left before the
// blocks of the first reverse phase ph are dispatched (after its serial
// instructions), and runs at once the tails of the functions with no
// block in it.
func (p *Program) startTails(ph *phase) {
	t := &p.jac.tails
	clear(t.fnLeft)
	for i := range t.queue {
		t.queue[i].Store(0)
	}
	t.queued.Store(0)
	t.finished = 0
	for s := range ph.segs {
		sg := &ph.segs[s]
		n := 0
		if sg.active {
			n = sg.ax.nb
		}
		t.segLeft[s].Store(int32(n))
		if n > 0 {
			for _, f := range t.segFns[s] {
				t.fnLeft[f]++
			}
		}
	}
	for f := range t.fnLeft {
		if t.fnLeft[f] == 0 {
			p.tail(f)
		}
	}
}

// blockDone notes that worker w has done a block of segment s of the
// first reverse phase. The caller finishes a segment whose last block it
// ran, and then, like after any of its blocks, the segments the helpers
// have queued; a helper queues a segment whose last block it ran.
func (p *Program) blockDone(w, s int) {
	t := &p.jac.tails
	last := t.segLeft[s].Add(-1) == 0
	if w != 0 {
		if last {
			t.queue[t.queued.Add(1)-1].Store(int32(s + 1))
		}
		return
	}
	if last {
		p.finishTails(s)
	}
	p.drainTails()
}

// drainTails finishes, on the caller, the segments the helpers have
// queued so far, up to a slot a helper has taken but not yet filled; once
// every block is done, that is all of them.
func (p *Program) drainTails() {
	t := &p.jac.tails
	for t.finished < t.queued.Load() {
		s := t.queue[t.finished].Load()
		if s == 0 {
			return // its helper fills it, then returns from its block
		}
		t.finished++
		p.finishTails(int(s - 1))
	}
}

// finishTails adds up segment s's partial results and runs the tails of
// the functions it was the last segment of, on the caller.
func (p *Program) finishTails(s int) {
	t := &p.jac.tails
	p.finishSeg(&p.cur.ph.segs[s], false)
	for _, f := range t.segFns[s] {
		if t.fnLeft[f]--; t.fnLeft[f] == 0 {
			p.tail(f)
		}
	}
}

// tail runs the later phases of function f's reverse pass into its row
// of the Jacobian, as the serial code of those phases would with only f
// marked.
func (p *Program) tail(f int) {
	t := &p.jac.tails
	row := t.rows[f]
	clear(row)
	p.g = row
	for _, in := range t.insts[f] {
		p.back(in, nil, -1)
	}
	p.g = nil
}
