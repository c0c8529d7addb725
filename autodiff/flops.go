package autodiff

// Flops returns the floating-point operations of one full evaluation on
// the current rows: Eval, then every function's subgradient (Jacobian,
// the work of qrc eval and of qrc bench; counted as one Gradient per
// function). A dot product of length d counts 2d (a
// multiply and an add), its reverse pass 2d per operand that is not a
// constant (for rows of a sparse data set, d is the average number of
// nonzeros of the product's rows); every other instruction counts one operation per element
// computed, forward and backward alike (an exponential or a division
// counts one). The count is what the model asks for, not what the machine
// spends, so GFLOP/s compares kernels fairly.
func (p *Program) Flops() float64 {
	total := 0.0
	for _, in := range p.insts {
		total += in.flops(false)
	}
	for _, deps := range p.deps {
		for _, k := range deps {
			total += p.insts[k].flops(true)
		}
	}
	return total
}

// flops counts one instruction's forward (back false) or reverse pass.
func (in *inst) flops(back bool) float64 {
	o := in.out
	out := float64(o.size())
	switch in.op {
	case opVar, opGather, opExpand, opView, opExpAbs:
		return 0 // opExpAbs: counted with the sigmoid it serves
	case opSigmoidE:
		return out // one sigmoid, forward or backward
	case opDot:
		a, b := in.in[0], in.in[1]
		d := float64(b.esize)
		if len(a.elem) == 2 {
			d = float64(a.elem[1])
		}
		if in.mode == dotSparse { // the nonzeros of an average row
			sp := in.sparseOperand().sp
			d = float64(sp.nnz()) / float64(max(1, len(sp.full), len(sp.rows)))
		}
		if !back {
			return 2 * out * d
		}
		n := 0.0
		for _, r := range in.in {
			if !r.konst {
				n += 2 * out * d
			}
		}
		return n
	case opAxis, opReduce:
		return float64(in.in[0].size())
	}
	if back {
		n := 0.0
		for _, r := range in.in {
			if !r.konst {
				n += out
			}
		}
		return n
	}
	return out
}
