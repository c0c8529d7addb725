package autodiff

// Replicas: small values that every worker computes for itself.
//
// A phase's serial instructions run on the caller before its blocks, and
// the blocks on every worker then read their outputs: npc.qrc's nine
// differences W[k] − W[l] of each class (1440 numbers, 180 cache lines)
// are written on the caller and read by every worker's blocks of the
// class. Before the caller can write them again in the next evaluation,
// each cache line a helper has read must be taken back from the helper's
// core; when the machine's other work keeps the caches busy that costs
// about 80 ns a line, one line after the other, and the helpers wait
// for the caller meanwhile: on a busy 2-core host the ten subtractions
// took 10–17 µs on two cores against 4 µs on one (docs/performance.md).
//
// So in a phase whose serial instructions are all cheap to repeat (a
// variable's copy, arithmetic, a gather, a broadcast: no record for the
// reverse pass, nothing that grows with the rows) and small (repMaxFloats
// numbers in all), every helper runs them too, into its own copies (its
// replicas), before its first block of the phase, with the same code on
// the same inputs, so bit for bit the caller's. The helpers start at once
// and the caller runs the serial instructions as it starts its first
// block, on its own copies, which only it reads: neither waits for the
// other, and no cache line moves between their cores. Blocks read
// values through their view (blk.view), which gives a helper its
// replicas; code that reads a value directly reads the caller's copy,
// which holds the same numbers. A helper that took no block of a phase
// copies the caller's when a later block needs them.

// repMaxFloats bounds the replicas' size per worker.
const repMaxFloats = 1 << 16

// replicable reports whether in may run on a helper into its replica: an
// instruction whose forward pass writes only its output, through the
// block's view, and whose output does not grow with the rows.
func replicable(in *inst) bool {
	switch in.op {
	case opVar, opNeg, opAdd, opSub, opMul, opDiv, opGather, opExpand:
	default:
		return false
	}
	o := in.out
	if o.windowed() || in.needsAux() {
		return false
	}
	for _, a := range o.axes {
		if a.data != nil { // its size follows the rows (or a sample)
			return false
		}
	}
	return true
}

// linkReplicas finds the forward phases whose serial instructions the
// helpers replicate (phase.full) and lays out their replicas.
func (p *Program) linkReplicas() {
	read := map[*reg]bool{} // registers that blocks read
	for _, phs := range [][]phase{p.fwd, p.bwd} {
		for _, ph := range phs {
			for _, sg := range ph.segs {
				for _, in := range sg.insts {
					for _, r := range in.in {
						read[r] = true
					}
				}
			}
		}
	}
	size := 0
	for i := range p.fwd {
		ph := &p.fwd[i]
		n, used := 0, false
		for _, in := range ph.serial {
			if !replicable(in) {
				n = -1
				break
			}
			n += in.out.size()
			used = used || read[in.out]
		}
		if n < 0 || !used || len(ph.segs) == 0 || size+n > repMaxFloats {
			continue
		}
		ph.full = true
		for _, in := range ph.serial {
			in.out.store, in.out.repOff = storeReplica, size
			size += in.out.size()
		}
	}
	p.repSize = size
}

// replicas returns worker w's replicas (w > 0), made current for the
// running pass: those of the running forward phase computed by the
// phase's own instructions, those of earlier phases (or of the last
// Eval, in a reverse pass) copied from the caller's when the worker took
// no block of their phase.
func (p *Program) replicas(w int) []float64 {
	if w >= len(p.repBufs) {
		return nil // no room (GOMAXPROCS grew since the Eval): the caller's copies serve
	}
	buf, at := p.repBufs[w], p.repAt[w]
	upto := len(p.fwd)
	if p.cur.fwd {
		upto = p.cur.ph.idx + 1
	}
	for q := range upto {
		ph := &p.fwd[q]
		if !ph.full || at[q] == p.evalGen {
			continue
		}
		if p.cur.fwd && q == p.cur.ph.idx {
			bk := blk{w: w, rep: buf}
			for _, in := range ph.serial {
				p.forward(in, p.cur.x, &bk, nil)
			}
		} else {
			for _, in := range ph.serial {
				o := in.out
				n := o.size()
				copy(buf[o.repOff:o.repOff+n], o.val[:n])
			}
		}
		at[q] = p.evalGen
	}
	return buf
}

// startReplicas readies the replicas for an Eval: a new generation, and
// room for every worker's, allocated on the caller the first time there
// are that many workers.
func (p *Program) startReplicas() {
	if p.repSize == 0 {
		return
	}
	p.evalGen++
	for len(p.repBufs) < p.parts(len(p.ends)) {
		p.repBufs = append(p.repBufs, make([]float64, p.repSize))
		p.repAt = append(p.repAt, make([]uint64, len(p.fwd)))
	}
}
