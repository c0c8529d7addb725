package autodiff

// The reverse of a sum over the last axis of an elementwise function, in
// one loop. A loss like npc.qrc's sum(l) phi(z[i,l]) or a hinge summed
// over classes is an elementwise instruction U (phi, with its derivative
// in aux) whose output only a sum or mean S over its last axis reads; so
// is a data mean of a loss per row, mean(i) logistic(z[i]), whose last
// axis is the rows'. Run one after the other, S's reverse writes its
// output adjoint g[i] into every entry of U's output adjoint (n × K
// floats), and U's reverse reads them back, multiplies by the derivatives
// and adds the products to its operand's adjoint; then U's output adjoint
// is cleared, a third pass over the n × K floats. Fused, U's reverse reads g[i] itself: the n × K
// adjoint is neither written, read nor cleared, and a row whose g[i] is
// zero is skipped at once. The results are bitwise the same: U's output
// adjoint would hold 0 + scale·g[i], which is scale·g[i] (a zero is
// skipped either way).
//
// A data mean M of S's output (npc.qrc's mean over a class's rows of the
// sum over the other classes) would in turn write its adjoint into every
// row of S's output adjoint; when only M reads S's output, U reads M's
// adjoint instead, scaled as M's reverse scales it, and S's output
// adjoint is not touched either.

// linkSumBack finds the pairs whose reverse passes run fused: a sum or
// mean S without a mask over the last axis of a register r of scalars
// that only S reads, computed by an elementwise instruction U (a function
// call, a power or a sigmoid), where both run their reverse passes in
// blocks along the same data rows, in the same segment, and neither shares
// values with another instruction (share.go). S sums either over an axis
// within each row (its output has the rows: U's reverse clears S's output
// adjoint in each block) or over the rows themselves (its output is
// cleared once all the blocks are done, as S's reverse would leave it).
func (p *Program) linkSumBack() {
	readers := p.uses()
	segOf := make(map[*inst]*seg)
	for _, ph := range p.bwd {
		for s := range ph.segs {
			for _, in := range ph.segs[s].insts {
				segOf[in] = &ph.segs[s]
			}
		}
	}
	for _, s := range p.insts {
		if !plainSum(s) {
			continue
		}
		r := s.in[0]
		if r.konst || r.esize != 1 || len(r.axes) == 0 || r.axes[len(r.axes)-1] != s.ax || r.prod < 0 || readers[r] != 1 {
			continue
		}
		u := p.insts[r.prod]
		if u.op != opUnary && u.op != opPow && u.op != opSigmoidE {
			continue
		}
		// S sums over the rows (S's output does not have them) or over
		// an axis within each row (it does)
		ra := rowAxis(r)
		if ra == nil || s.bwdAx != ra || u.bwdAx != ra || (s.ax == ra) != (rowAxis(s.out) == nil) {
			continue
		}
		if sg := segOf[s]; sg == nil || segOf[u] != sg {
			continue
		}
		if p.shares(s) || p.shares(u) {
			continue
		}
		p.plan[u.k].sumBack, p.plan[s.k].sumBack = s, u
	}
	// a data mean M of such a sum within rows (npc.qrc's mean over a
	// class's rows of the sum over the other classes) runs inside the
	// pair too: U reads M's output adjoint, the same for every row
	for _, m := range p.insts {
		if !plainSum(m) {
			continue
		}
		r := m.in[0]
		if r.prod < 0 || readers[r] != 1 || len(r.axes) != 1 || r.esize != 1 {
			continue
		}
		s := p.insts[r.prod]
		if s.op != opAxis || p.plan[s.k].sumBack == nil || m.ax != rowAxis(r) || m.bwdAx != m.ax || segOf[m] != segOf[s] {
			continue
		}
		if p.shares(m) {
			continue
		}
		p.plan[m.k].sumBack, p.plan[s.k].rowMean = p.plan[s.k].sumBack, m
	}
}

// plainSum reports whether in is a sum or mean without a mask.
func plainSum(in *inst) bool {
	return in.op == opAxis && (in.axOp == "sum" || in.axOp == "mean") && in.mask == nil
}

// shares reports whether in shares values with another instruction
// (share.go).
func (p *Program) shares(in *inst) bool {
	return p.plan[in.k].share != nil || len(p.plan[in.k].sharers) > 0
}

// fusedSum reports whether in is a sum whose reverse pass its elementwise
// operand's runs (linkSumBack); fusedUnary whether in is that operand.
// Neither holds while the program keeps its adjoints for a diagnosis.
func (p *Program) fusedSum(in *inst) bool {
	return p.plan[in.k].sumBack != nil && in.op == opAxis && !p.keep
}

func (p *Program) fusedUnary(in *inst) bool {
	return p.plan[in.k].sumBack != nil && in.op != opAxis && !p.keep
}

// sumBackward is the reverse of elementwise instruction in and of the sum
// S over its output's last axis, within block bk: for every entry t of
// S's output, v = scale·g[t] and in's operand's adjoint gains v·d over
// the K entries that S sums, d being in's derivatives. It then clears S's
// output adjoint within the block, which S's reverse would have cleared.
func (p *Program) sumBackward(in *inst, bk *blk) {
	s := p.plan[in.k].sumBack
	a, o, so := in.in[0], in.out, s.out
	g := bk.adj(so)[:bk.size(so)]
	if !a.konst {
		// with M's reverse fused too, every row's adjoint of S's output is
		// M's, scaled as M's reverse scales it (axisBack)
		m := p.plan[s.k].rowMean
		var gm float64
		if m != nil {
			scale := 1.0
			if m.axOp == "mean" {
				scale = 1 / float64(m.ax.n)
			}
			gm = scale * bk.adj(m.out)[0]
		}
		scale := 1.0
		if s.axOp == "mean" {
			scale = 1 / float64(s.ax.n)
		}
		k := bk.n(s.ax)
		d, ga := bk.aux(o)[:len(g)*k], bk.adj(a)[:len(g)*k]
		for t, gt := range g {
			if m != nil {
				gt = gm
			}
			v := scale * gt
			if v == 0 {
				continue
			}
			dt, gat := d[t*k:(t+1)*k], ga[t*k:(t+1)*k]
			for j, dj := range dt {
				gat[j] += v * dj
			}
		}
	}
	if rowAxis(so) == bk.ax && p.plan[s.k].rowMean == nil {
		clear(g) // else S's output adjoint is cleared once its blocks are done (finishSeg)
	}
}
