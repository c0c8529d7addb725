package autodiff

import (
	"math"
	"slices"
	"sort"

	"github.com/qrc-lang/qrc/internal/vmath"
)

// Sharing a row-wise product across row subsets of one data set. A model
// often runs means over several subsets of a data set's rows (the rows of
// group 0, of group 1, all rows) of the same product dot(D.X[i], x): each
// mean's product is its own instruction over its own axis, with its own
// gathered copy of the rows. When one of those axes (the base) holds every
// row the others (the sharers) do, a sharer is not computed but gathered
// from the base's values, and in the reverse pass the base adds the
// sharers' adjoints into its own before its one product with X^T: the data
// are streamed once, not once per subset. Exponentials (opExpAbs, see
// sigmoidE) of a sharer's product are shared the same way: its sigmoids
// read them in the base's register.
//
// Sharing holds while neither axis is sampled (SetSample): a sample of a
// subset is not a subset of the base's sample, so a sampled sharer computes
// its own product as it would without sharing.

// share links a sharer to its base: the instruction over the base axis
// that computes the same thing for a superset of the sharer's rows.
type share struct {
	base  *inst
	idx   []int32 // for each position of the sharer's axis, the base axis position of its row (increasing)
	first []int32 // for each block of the base's rows (all of them), the first position of idx in it, and len(idx)
}

// active reports whether the sharer is gathered from the base now: neither
// axis is sampled.
func (s *share) active(sharer *inst) bool {
	return s != nil && sharer.fwdAx.pos == nil && s.base.fwdAx.pos == nil
}

// findShares links every shareable instruction to its base (pass
// "shares"). (On a streamed axis the base's and the sharers' registers
// keep every row: stream.go.)
func (p *Program) findShares() {
	// position of every row number in each data axis, made on demand
	where := map[*axis]map[float64]int32{}
	posOf := func(a *axis) map[float64]int32 {
		if m, ok := where[a]; ok {
			return m
		}
		m := make(map[float64]int32, len(a.vals))
		for q, v := range a.vals {
			m[v] = int32(q)
		}
		where[a] = m
		return m
	}
	// the rows of sharer axis s within base axis b, or nil
	subset := func(s, b *axis) []int32 {
		if s == b || s.data == nil || s.data != b.data || len(s.vals) > len(b.vals) {
			return nil
		}
		m := posOf(b)
		idx := make([]int32, len(s.vals))
		for q, v := range s.vals {
			k, ok := m[v]
			if !ok || q > 0 && k <= idx[q-1] {
				return nil
			}
			idx[q] = k
		}
		return idx
	}
	// dots first: a sharer's exponentials are shared only when its product is
	for _, in := range p.insts {
		if !shareableDot(in) {
			continue
		}
		ax := in.fwdAx
		var best *share
		for _, b := range p.insts {
			if b == in || p.plan[b.k].share != nil || !shareableDot(b) || b.mode != in.mode || len(b.fwdAx.vals) <= len(ax.vals) {
				continue
			}
			if best != nil && len(b.fwdAx.vals) <= len(best.base.fwdAx.vals) {
				continue
			}
			ri, ro := rowOperand(in)
			bi, bo := rowOperand(b)
			if ri != bi || in.in[ro] != b.in[bo] {
				continue
			}
			idx := subset(ax, b.fwdAx)
			if idx == nil || !sameRows(in.in[ri], b.in[ri], idx) {
				continue
			}
			best = &share{base: b, idx: idx}
		}
		if best != nil && p.plan[best.base.k].share == nil {
			p.plan[in.k].share = best
		}
	}
	// exponentials of shared products
	for _, in := range p.insts {
		if in.op != opExpAbs || in.fwdAx == nil {
			continue
		}
		d := in.in[0].prod
		if d < 0 || p.plan[d].share == nil {
			continue
		}
		s := p.plan[d].share
		for _, b := range p.insts {
			if b.op == opExpAbs && b.in[0] == s.base.out {
				p.plan[in.k].share = &share{base: b, idx: s.idx}
				break
			}
		}
	}
	for _, in := range p.insts {
		if s := p.plan[in.k].share; s != nil {
			p.plan[s.base.k].sharers = append(p.plan[s.base.k].sharers, in)
		}
		// a shared exponential is read by its sigmoids in the base's
		// register; only sigmoids read exponentials
		if in.op == opSigmoidE {
			if e := p.insts[in.in[1].prod]; p.plan[e.k].share != nil {
				p.plan[in.k].eFrom = e
			}
		}
	}
}

// linkShares finds, for every sharer, the positions of its rows in each
// block of the base's rows (the blocks of all the rows, which are the
// blocks whenever the sharer is active). It runs after linkBlocks.
func (p *Program) linkShares() {
	for _, in := range p.insts {
		s := p.plan[in.k].share
		if s == nil {
			continue
		}
		a := s.base.fwdAx
		n, pos := a.n, a.pos
		a.n, a.pos = len(a.vals), nil
		a.split()
		s.first = make([]int32, a.nb+1)
		for b := range a.nb + 1 {
			lo := min(b*a.rows, a.n)
			s.first[b] = int32(sort.Search(len(s.idx), func(q int) bool { return int(s.idx[q]) >= lo }))
		}
		a.n, a.pos = n, pos
	}
}

// shareableDot reports whether in is a product over the rows of a data set
// of a constant (the rows, with the axis as their only axis) with
// something that does not vary with the rows.
func shareableDot(in *inst) bool {
	if in.op != opDot || (in.mode != dotAB && in.mode != dotBA) || in.fwdAx == nil || in.fwdAx.data == nil {
		return false
	}
	ri, ro := rowOperand(in)
	r, o := in.in[ri], in.in[ro]
	return r.konst && r.sp == nil && len(r.axes) == 1 && r.axes[0] == in.fwdAx && len(o.axes) == 0 && !o.konst &&
		len(in.out.axes) == 1 && in.out.esize == 1
}

// rowOperand returns the indices in in.in of a product's row operand and
// of its other operand.
func rowOperand(in *inst) (row, other int) {
	if in.mode == dotAB {
		return 0, 1
	}
	return 1, 0
}

// sameRows reports whether row q of constant s is row idx[q] of constant b,
// bit for bit.
func sameRows(s, b *reg, idx []int32) bool {
	if s.esize != b.esize || !slices.Equal(s.elem, b.elem) {
		return false
	}
	if s.refs != nil && b.refs != nil {
		return sameRefRows(s.refs, b.refs, idx)
	}
	for q, k := range idx {
		x, y := s.row(q), b.row(int(k))
		for j := range x {
			if math.Float64bits(x[j]) != math.Float64bits(y[j]) {
				return false
			}
		}
	}
	return true
}

// gatherShared sets the sharer's output within block bk from its base's.
func (p *Program) gatherShared(in *inst, bk *blk) {
	s := p.plan[in.k].share
	o, bo := in.out, s.base.out
	ov := bk.val(o)
	idx := s.idx
	if bk != nil {
		idx = idx[bk.lo:bk.hi]
	}
	for q, k := range idx {
		ov[q] = bo.val[k]
	}
	if o.aux != nil {
		av := bk.aux(o)
		for q, k := range idx {
			av[q] = bo.aux[k]
		}
	}
}

// collectShared adds to the base's output adjoint within block bk the
// adjoints of its active, marked sharers at the rows of the block (in
// program order), clearing them.
func (p *Program) collectShared(in *inst, bk *blk) {
	g := bk.adj(in.out)
	blo := 0
	if bk != nil {
		blo = bk.lo
	}
	for _, sh := range p.plan[in.k].sharers {
		if !p.mark[sh.k] || !p.plan[sh.k].share.active(sh) {
			continue
		}
		idx := p.plan[sh.k].share.idx
		lo, hi := 0, len(idx)
		if bk != nil { // the base's rows are not sampled: its blocks are those of linkShares
			b := bk.lo / bk.ax.rows
			lo, hi = int(p.plan[sh.k].share.first[b]), int(p.plan[sh.k].share.first[b+1])
		}
		sa := sh.out.adj
		for q := lo; q < hi; q++ {
			g[int(idx[q])-blo] += sa[q]
			sa[q] = 0
		}
	}
}

// unfuse turns every exponential opExpAbs that serves a single sigmoid
// and is not shared back into the plain fused sigmoid of its operand (the
// same bits, without the register of exponentials: on npc.qrc that
// register would be 144 bytes a row), and drops it. It runs after
// findShares.
func (p *Program) unfuse() {
	uses := map[*reg]int{}
	for _, in := range p.insts {
		for _, r := range in.in {
			uses[r]++
		}
	}
	drop := map[*reg]bool{}
	for _, in := range p.insts {
		if in.op == opExpAbs && uses[in.out] == 1 && p.plan[in.k].share == nil && len(p.plan[in.k].sharers) == 0 {
			drop[in.out] = true
		}
	}
	for _, in := range p.insts { // a sigmoid of c*z keeps its exponential
		if in.op == opSigmoidE && len(in.in) > 2 {
			delete(drop, in.in[1])
		}
	}
	var kept []*inst
	for _, in := range p.insts {
		if in.op == opExpAbs && drop[in.out] {
			continue
		}
		if in.op == opSigmoidE && drop[in.in[1]] {
			in.op, in.in, in.kern = opUnary, in.in[:1], vmath.SigmoidDeriv
			if in.neg {
				in.kern = vmath.SigmoidNegDeriv
			}
		}
		kept = append(kept, in)
	}
	p.insts = kept
	p.prune()
}

// uses counts, for every register, the functions it is the value of
// and the instructions that read it: as an operand, as a mask, or as the
// base whose values a sharer takes.
func (p *Program) uses() map[*reg]int {
	uses := map[*reg]int{}
	for _, r := range p.outs {
		uses[r]++
	}
	for _, in := range p.insts {
		for _, r := range in.in {
			uses[r]++
		}
		if in.mask != nil {
			uses[in.mask]++
		}
		if p.plan[in.k].share != nil {
			uses[p.plan[in.k].share.base.out]++
		}
	}
	return uses
}

// prune drops the instructions nothing reads (a product k*z whose sigmoid
// takes k itself), but not the variables, and numbers the rest.
func (p *Program) prune() {
	for {
		uses := p.uses()
		var kept []*inst
		for _, in := range p.insts {
			if in.op == opVar || uses[in.out] > 0 {
				kept = append(kept, in)
			}
		}
		done := len(kept) == len(p.insts)
		p.insts = kept
		if done {
			break
		}
	}
	live := map[*inst]bool{}
	plan := make([]decision, len(p.insts))
	for k, in := range p.insts {
		plan[k] = p.plan[in.k]
		in.k = k
		in.out.prod = k
		live[in] = true
	}
	p.plan = plan
	for _, in := range p.insts {
		p.plan[in.k].sharers = slices.DeleteFunc(p.plan[in.k].sharers, func(s *inst) bool { return !live[s] })
	}
}
