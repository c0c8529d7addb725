package autodiff

import (
	"fmt"
	"slices"
)

// verify checks the invariants of the program's IR that hold after every
// pass (passes.go), and those of the schedules, the dependencies and the
// storage once the passes that make them have run. The tests run it after
// every pass (Options.verify); a violation is an error naming it.
//
// Always: every register is one of the program's (its id indexes regs,
// the compiler's registers); every operand and mask is a constant or the
// output of an instruction earlier in program order (defined before use),
// and reg.prod names the instruction whose output it is; each
// instruction's k is its index (once numbered); the plan has one decision
// per instruction (once numbered), whose shares, sharers, eFrom and fused
// sum pairs point at live instructions and agree with each other; once
// the pass "modes" has run, each instruction's fwdKind and runKind are
// what its decisions make them; each function's output is a scalar,
// constant or computed; a variable's slice lies within x; every
// register's storage kind agrees with it (a constant is whole, a data
// set's matrix, rows by reference or sparse rows, with refs or sp set for
// those two kinds only; a computed register is whole, windowed or
// replicated).
//
// Once scheduled (p.fwd): every instruction runs once in each pass, in a
// segment along its block axis or serially when it has none; the forward
// pass runs every operand's producer before its reader (an earlier phase,
// or earlier within the phase's serial part, or earlier in the same
// segment), the reverse pass every reader before the producer it adds
// into; a partial result has a slot per block.
//
// Once linked (p.deps): every function's dependencies are ascending,
// include its output's instruction and every producer of theirs; every
// register has storage for its value and adjoint (and aux where the
// forward pass records one).
func (p *Program) verify(regs []*reg) error {
	if err := p.verifyInsts(regs); err != nil {
		return err
	}
	if p.fwd != nil {
		if err := p.verifySchedule(p.fwd, true); err != nil {
			return fmt.Errorf("forward pass: %w", err)
		}
		if err := p.verifySchedule(p.bwd, false); err != nil {
			return fmt.Errorf("reverse pass: %w", err)
		}
	}
	if p.deps != nil {
		return p.verifyLinked()
	}
	return nil
}

// verifyInsts checks the invariants that hold after every pass.
func (p *Program) verifyInsts(regs []*reg) error {
	ours := func(r *reg) bool { return r != nil && r.id >= 0 && r.id < len(regs) && regs[r.id] == r }
	live := func(in *inst) bool { return in != nil && in.k >= 0 && in.k < len(p.insts) && p.insts[in.k] == in }
	numbered := len(p.insts) == 0 || p.insts[len(p.insts)-1].k == len(p.insts)-1
	if numbered && len(p.plan) != len(p.insts) {
		return fmt.Errorf("the plan has %d decisions for %d instructions", len(p.plan), len(p.insts))
	}
	for k, in := range p.insts {
		o := in.out
		if !ours(o) || o.konst || o.prod != k {
			return fmt.Errorf("instruction %d: its output is not a computed register it produces", k)
		}
		if o.esize != o.elem.Size() {
			return fmt.Errorf("instruction %d: element size %d of a %v", k, o.esize, o.elem)
		}
		if numbered && in.k != k {
			return fmt.Errorf("instruction %d is numbered %d", k, in.k)
		}
		operands := in.in
		if in.mask != nil {
			operands = append(slices.Clip(operands), in.mask)
		}
		for _, r := range append(slices.Clip(operands), o) {
			if !ours(r) {
				return fmt.Errorf("instruction %d: an operand is not a register of the program", k)
			}
			if err := r.verifyStore(); err != nil {
				return fmt.Errorf("instruction %d: %w", k, err)
			}
			if r == o {
				continue
			}
			if !r.konst && (r.prod < 0 || r.prod >= k || p.insts[r.prod].out != r) {
				return fmt.Errorf("instruction %d: operand r%d is not defined before it (producer %d)", k, r.id, r.prod)
			}
		}
		if in.op == opVar && (in.off < 0 || in.off+o.esize > p.nvars) {
			return fmt.Errorf("instruction %d: variable x[%d:%d] outside %d variables", k, in.off, in.off+o.esize, p.nvars)
		}
		if !numbered {
			continue
		}
		d := &p.plan[k]
		if p.moded && (d.how != runKindOf(in, d) || d.fwd != fwdKindOf(in, d)) {
			return fmt.Errorf("instruction %d: runKind %d and fwdKind %d, its decisions make them %d and %d", k, d.how, d.fwd, runKindOf(in, d), fwdKindOf(in, d))
		}
		if s := d.share; s != nil && (!live(s.base) || s.base == in || !slices.Contains(p.plan[s.base.k].sharers, in)) {
			return fmt.Errorf("instruction %d: its base is not a live instruction that lists it", k)
		}
		for _, s := range d.sharers {
			if !live(s) || p.plan[s.k].share == nil || p.plan[s.k].share.base != in {
				return fmt.Errorf("instruction %d: a sharer does not share it", k)
			}
		}
		if e := d.eFrom; e != nil && (!live(e) || p.plan[e.k].share == nil) {
			return fmt.Errorf("instruction %d: its exponentials' instruction is not a live sharer", k)
		}
		if s := d.sumBack; s != nil {
			if !live(s) {
				return fmt.Errorf("instruction %d: its fused partner is not live", k)
			}
			if in.op != opAxis && p.plan[s.k].sumBack != in {
				return fmt.Errorf("instruction %d: its fused sum is not fused with it", k)
			}
		}
	}
	for f, r := range p.outs {
		if !ours(r) || r.esize != 1 || len(r.axes) != 0 {
			return fmt.Errorf("function %d: its output is not a scalar register", f)
		}
		if !r.konst && (r.prod < 0 || r.prod >= len(p.insts) || p.insts[r.prod].out != r) {
			return fmt.Errorf("function %d: its output has no producer", f)
		}
	}
	return nil
}

// verifySchedule checks that the phases of one pass run every instruction
// once, along its block axis, after what it waits for.
func (p *Program) verifySchedule(phs []phase, fwd bool) error {
	// at[k] is (phase, part, index): part 0 is the serial instructions,
	// s+1 segment s
	type place struct{ phase, part, idx int }
	at := make([]place, len(p.insts))
	seen := make([]bool, len(p.insts))
	put := func(in *inst, pl place, ax *axis) error {
		if in.k < 0 || in.k >= len(p.insts) || p.insts[in.k] != in || seen[in.k] {
			return fmt.Errorf("instruction %d is not scheduled exactly once", in.k)
		}
		want := in.bwdAx
		if fwd {
			want = in.fwdAx
		}
		if want != ax {
			return fmt.Errorf("instruction %d runs along another axis than its block axis", in.k)
		}
		seen[in.k], at[in.k] = true, pl
		return nil
	}
	for i, ph := range phs {
		for j, in := range ph.serial {
			if err := put(in, place{i, 0, j}, nil); err != nil {
				return err
			}
		}
		for s, sg := range ph.segs {
			for j, in := range sg.insts {
				if err := put(in, place{i, s + 1, j}, sg.ax); err != nil {
					return err
				}
			}
		}
	}
	if n := len(slices.DeleteFunc(slices.Clone(seen), func(b bool) bool { return b })); n > 0 {
		return fmt.Errorf("%d instructions are not scheduled", n)
	}
	// before reports whether a runs before b
	before := func(a, b place) bool {
		switch {
		case a.phase != b.phase:
			return a.phase < b.phase
		case a.part == 0 && b.part != 0:
			return true
		case a.part == b.part:
			return a.idx < b.idx
		}
		return false
	}
	for k, in := range p.insts {
		waits := []int{}
		for _, r := range in.in {
			if r.prod >= 0 {
				waits = append(waits, r.prod)
			}
		}
		if p.plan[in.k].share != nil {
			waits = append(waits, p.plan[in.k].share.base.k)
		}
		for _, j := range waits {
			first, then := j, k // the producer (or base) runs first forward
			if !fwd {
				first, then = k, j
			}
			if !before(at[first], at[then]) {
				return fmt.Errorf("instruction %d does not run before instruction %d", first, then)
			}
		}
		if ps := in.partialSize(); ps > 0 {
			a := in.fwdAx
			if !in.fwdPart {
				a = in.bwdAx
			}
			if in.partSize != ps || len(in.part) != a.maxBlocks*ps {
				return fmt.Errorf("instruction %d: partial results for %d blocks of %d", k, a.maxBlocks, ps)
			}
		}
	}
	return nil
}

// verifyStore checks that r's storage kind agrees with what r is.
func (r *reg) verifyStore() error {
	computed := r.store == storeWhole || r.store == storeWindow || r.store == storeWindowAux || r.store == storeReplica
	konst := r.store == storeWhole || r.store == storeMatrix || r.store == storeRefs || r.store == storeSparse
	switch {
	case r.konst && !konst || !r.konst && !computed:
		return fmt.Errorf("r%d: storage kind %d for a register with konst %v", r.id, r.store, r.konst)
	case (r.refs != nil) != (r.store == storeRefs):
		return fmt.Errorf("r%d: rows by reference and storage kind %d disagree", r.id, r.store)
	case (r.sp != nil) != (r.store == storeSparse):
		return fmt.Errorf("r%d: sparse rows and storage kind %d disagree", r.id, r.store)
	}
	return nil
}

// verifyLinked checks the functions' dependencies and the storage.
func (p *Program) verifyLinked() error {
	for f, deps := range p.deps {
		if !slices.IsSorted(deps) || len(deps) > 0 && (deps[0] < 0 || deps[len(deps)-1] >= len(p.insts)) {
			return fmt.Errorf("function %d: dependencies out of order or range", f)
		}
		if r := p.outs[f]; !r.konst {
			if _, ok := slices.BinarySearch(deps, r.prod); !ok {
				return fmt.Errorf("function %d: its output's instruction is not among its dependencies", f)
			}
		}
		for _, k := range deps {
			for _, r := range p.insts[k].in {
				if _, ok := slices.BinarySearch(deps, r.prod); r.prod >= 0 && !ok {
					return fmt.Errorf("function %d: instruction %d is a dependency but its operand's %d is not", f, k, r.prod)
				}
			}
		}
	}
	for k, in := range p.insts {
		o := in.out
		n := o.storage(p.slots)
		if len(o.val) < n || len(o.adj) < n {
			return fmt.Errorf("instruction %d: storage for %d values, %d needed", k, min(len(o.val), len(o.adj)), n)
		}
		if in.needsAux() && in.op != opView && len(o.aux) < o.auxStorage(p.slots) {
			return fmt.Errorf("instruction %d: aux for %d values, %d needed", k, len(o.aux), o.auxStorage(p.slots))
		}
	}
	return nil
}
