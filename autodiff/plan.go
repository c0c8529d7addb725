package autodiff

// The plan: what the passes decided about each instruction, kept apart
// from the instructions (which the compiler made and the passes do not
// change but for their numbering and blocks). Program.plan[k] is
// instruction k's decisions; the pass "blocked" makes the plan when it
// numbers the instructions, prune keeps it in step when it drops some.
// The pass "modes" reads the decisions once, after the last pass that
// makes them, and gives every instruction how it runs: a fwdKind, which
// the forward pass (Program.forward, from block and serial) switches on,
// and a runKind, which the reverse pass (Program.back) switches on,
// instead of testing the decisions again at every block.

// A decision is what the passes decided about one instruction. Every
// pointer in it is to an instruction of the same program.
type decision struct {
	// share: the instruction is computed from the same instruction over
	// a superset of its rows, when neither is sampled (pass "shares",
	// share.go)
	share *share
	// sharers: the instructions that share this one's values
	sharers []*inst
	// eFrom: for an opSigmoidE, its exponentials' instruction when that
	// is a sharer (read from the base, not gathered)
	eFrom *inst
	// jac: a product whose reverse pass Jacobian defers (pass
	// "jacobian", jacobian.go)
	jac *jacDot
	// sumBack: for a sum over its operand's last axis, and for a data
	// mean of that sum (rowMean), the elementwise instruction whose
	// reverse pass runs theirs; for that instruction, the sum (pass
	// "sumback", sumback.go)
	sumBack *inst
	// rowMean: for such a sum within rows, the data mean of its output
	// whose reverse pass runs fused too, or nil
	rowMean *inst
	// fwd and how: how its forward and its reverse run (pass "modes")
	fwd fwdKind
	how runKind
}

// A fwdKind is how an instruction's forward pass runs. Whether a sharer
// is active (neither row set sampled, share.active) is decided when the
// pass runs.
type fwdKind uint8

const (
	// fwdOwn: its own forward (inst.forward)
	fwdOwn fwdKind = iota
	// fwdSharer: a product or exponentials over a subset of a base's
	// rows: while active, the product gathers its values from the
	// base's and the exponentials are not computed (their sigmoids read
	// the base's)
	fwdSharer
	// fwdSigmoidFromBase: a sigmoid whose exponentials' instruction is a
	// sharer: while that is active, it reads the exponentials of its
	// rows in the base's
	fwdSigmoidFromBase
)

// fwdKindOf returns how in's forward runs, from the passes' decisions d.
func fwdKindOf(in *inst, d *decision) fwdKind {
	switch {
	case d.share != nil && (in.op == opDot || in.op == opExpAbs):
		return fwdSharer
	case d.eFrom != nil && in.op == opSigmoidE:
		return fwdSigmoidFromBase
	}
	return fwdOwn
}

// A runKind is how an instruction's reverse pass runs. What the kind
// leaves open is decided when the pass runs: whether the program keeps
// its adjoints (a diagnosis), whether a row set is sampled (a sampled
// sharer shares nothing, share.active), whether a Jacobian is being formed
// (only a Jacobian defers a product, jacobian.go).
type runKind uint8

const (
	// runPlain: its own reverse, then its output adjoint is cleared
	runPlain runKind = iota
	// runVar: a variable adds its adjoint to the gradient
	runVar
	// runView: its own reverse; its adjoint is its operand's, cleared
	// with it
	runView
	// runShared: a product or its exponentials computed from a base's
	// values (a sharer), whose values sharers read (a base: it first
	// collects their adjoints), or a product whose reverse a Jacobian
	// defers (share.go, jacobian.go)
	runShared
	// runFusedSum: a sum whose reverse its elementwise operand's reverse
	// runs (unless the adjoints are kept: then its own, sumback.go)
	runFusedSum
	// runFusedUnary: an elementwise instruction whose reverse runs its
	// sum's too (unless the adjoints are kept: then its own)
	runFusedUnary
)

// runKindOf returns how in's reverse runs, from the passes' decisions d.
// Sharing and fusion exclude each other (linkSumBack), and only products
// and their exponentials share or are deferred.
func runKindOf(in *inst, d *decision) runKind {
	switch {
	case in.op == opVar:
		return runVar
	case in.op == opView:
		return runView
	case d.share != nil || len(d.sharers) > 0 || d.jac != nil:
		return runShared
	case d.sumBack != nil && in.op == opAxis:
		return runFusedSum
	case d.sumBack != nil:
		return runFusedUnary
	}
	return runPlain
}

// linkModes gives every instruction its fwdKind and runKind (pass
// "modes").
func (p *Program) linkModes() {
	for _, in := range p.insts {
		d := &p.plan[in.k]
		d.fwd, d.how = fwdKindOf(in, d), runKindOf(in, d)
	}
	p.moded = true
}
