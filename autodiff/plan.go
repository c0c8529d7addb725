package autodiff

// How each instruction runs. The passes record their decisions about an
// instruction (shares, fused sums, deferred products); the pass "modes"
// reads them once, after the last of those passes, and gives every
// instruction one runKind, which the reverse pass (Program.back) switches
// on instead of testing the decisions again at every block.

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

// runKindOf returns how in's reverse runs, from the passes' decisions.
// Sharing and fusion exclude each other (linkSumBack), and only products
// and their exponentials share or are deferred.
func runKindOf(in *inst) runKind {
	switch {
	case in.op == opVar:
		return runVar
	case in.op == opView:
		return runView
	case in.share != nil || len(in.sharers) > 0 || in.jac != nil:
		return runShared
	case in.sumBack != nil && in.op == opAxis:
		return runFusedSum
	case in.sumBack != nil:
		return runFusedUnary
	}
	return runPlain
}

// linkModes gives every instruction its runKind (pass "modes").
func (p *Program) linkModes() {
	for _, in := range p.insts {
		in.how = runKindOf(in)
	}
	p.moded = true
}
