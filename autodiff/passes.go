package autodiff

import "fmt"

// The passes. The compiler (compile.go) emits the instructions; the passes
// then decide how they run and lay out the storage they run in, each
// reading what the passes before it decided. passes lists them in the order
// they run; each names the passes it must follow (its after list), and
// TestPassOrder checks that every one of them comes earlier in the table.
// Optional passes are optimizations that Options.Disable can turn off: the
// program then computes the same bits (TestDisableBitwise), but for
// "shares", whose sharers' sums are formed in another order (the same to
// rounding, TestShareSubsets). A lazy pass is not run by the compiler but by the first
// evaluation that needs it (Jacobian); its place in the table still states
// what it follows.

// A pass is one step of linking a compiled program.
type pass struct {
	name     string
	after    []string // the passes that must have run before it
	optional bool     // Options.Disable may turn it off
	lazy     bool     // run by the first Jacobian, not by the compiler
	run      func(p *Program, c *compiler) error
}

// passes is every pass, in the order they run.
var passes = [...]pass{
	// number each instruction and set the axis along whose rows it can
	// run in blocks, in each pass (parallel.go)
	{name: "blocked", run: func(p *Program, _ *compiler) error {
		for k, in := range p.insts {
			in.k = k
			in.blocked()
		}
		p.plan = make([]decision, len(p.insts))
		return nil
	}},
	// decide which data axes stream, and their block sizes (stream.go)
	{name: "stream", run: noErr((*Program).planStream)},
	// link products over row subsets to the product over a superset
	// that computes them (share.go)
	{name: "shares", after: []string{"blocked", "stream"}, optional: true, run: noErr((*Program).findShares)},
	// gather at compile time the scattered rows by reference that no
	// shared product reads (rows.go)
	{name: "gatherScattered", after: []string{"shares"}, run: noErr((*Program).gatherScattered)},
	// turn the exponentials that serve one sigmoid back into fused
	// sigmoids, drop what nothing reads and renumber (share.go)
	{name: "unfuse", after: []string{"shares"}, run: noErr((*Program).unfuse)},
	// bound every axis's blocks, allocate the partial results, schedule
	// both passes in phases (parallel.go)
	{name: "blocks", after: []string{"blocked", "stream", "unfuse"}, run: noErr((*Program).linkBlocks)},
	// window the registers whose every reader and writer runs in one
	// segment of each pass (stream.go)
	{name: "windows", after: []string{"blocks"}, optional: true, run: noErr((*Program).linkWindows)},
	// the workers that windows and row buffers are made for (stream.go)
	{name: "slots", after: []string{"windows", "gatherScattered"}, run: noErr((*Program).linkSlots)},
	// fuse the reverse of a sum into its elementwise operand's
	// (sumback.go)
	{name: "sumback", after: []string{"blocks", "shares", "unfuse"}, optional: true, run: noErr((*Program).linkSumBack)},
	// each function's dependencies, the sampleable axes, the arena
	// (program.go)
	{name: "link", after: []string{"unfuse", "windows", "slots"}, run: (*Program).link},
	// every product over rows by reference gets its workers' gather
	// buffers (rows.go)
	{name: "rowRefs", after: []string{"gatherScattered", "slots"}, run: noErr((*Program).linkRowRefs)},
	// where in the base's blocks each sharer's rows are (share.go)
	{name: "linkShares", after: []string{"shares", "blocks"}, run: noErr((*Program).linkShares)},
	// the products whose reverse Jacobian defers (jacobian.go)
	{name: "jacobian", after: []string{"link", "unfuse"}, run: noErr((*Program).linkJacobian)},
	// how each instruction's reverse runs, from the decisions above
	// (plan.go)
	{name: "modes", after: []string{"shares", "unfuse", "sumback", "jacobian"}, run: noErr((*Program).linkModes)},
	// the forward phases whose serial instructions every worker
	// replicates (replica.go)
	{name: "replicas", after: []string{"blocks", "windows"}, optional: true, run: noErr((*Program).linkReplicas)},
	// whether Jacobian runs the functions' first reverse phase as one
	// (jacobian.go: linkApart)
	{name: "apart", after: []string{"link", "blocks"}, lazy: true},
	// whether jacApart runs each function's tail as soon as its blocks are
	// done (tails.go)
	{name: "tails", after: []string{"apart"}, optional: true, lazy: true},
}

// noErr makes a pass that cannot fail.
func noErr(f func(p *Program)) func(*Program, *compiler) error {
	return func(p *Program, _ *compiler) error { f(p); return nil }
}

// runPasses runs the passes not disabled, checking the program after each
// when the options ask for it.
func (p *Program) runPasses(c *compiler, opts Options) error {
	off, err := opts.disabled()
	if err != nil {
		return err
	}
	p.off = map[string]bool{}
	for i := range passes {
		ps := &passes[i]
		if off[i] {
			p.off[ps.name] = true
			continue
		}
		if ps.lazy {
			continue
		}
		if err := ps.run(p, c); err != nil {
			return err
		}
		if opts.verify {
			if err := p.verify(c.regs); err != nil {
				return fmt.Errorf("autodiff: internal error after pass %s: %w", ps.name, err)
			}
		}
	}
	return nil
}

// enabled reports whether the program was compiled with the named pass.
func (p *Program) enabled(name string) bool { return !p.off[name] }
