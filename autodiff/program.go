package autodiff

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/format"
	"github.com/qrc-lang/qrc/internal/workers"
)

// Program is a compiled model. See the package documentation.
type Program struct {
	funcs   []Function
	outs    []*reg     // the scalar register of each function
	deps    [][]int    // the instructions each function depends on, ascending
	insts   []*inst    // in execution order
	plan    []decision // what the passes decided about each instruction, indexed like insts (plan.go)
	moded   bool       // every instruction has its runKind (pass "modes")
	vars    []*inst    // the opVar instructions
	arena   []float64
	mark    []bool
	nvars   int
	axes    []*axis // the sampleable axes, indexed like Samples
	samples []Sample
	resamp  [][]*reg // per sampleable axis, the constant registers over it
	evaled  bool

	fwd, bwd []phase         // the passes' schedules (parallel.go)
	items    []item          // the blocks of the phase being run, by worker
	ends     []int           // where each worker's part of items ends
	job      workers.Job     // runs the blocks of a phase on every core
	cur      current         // the phase being run, for the workers
	g        []float64       // Gradient's output while it runs
	keep     bool            // keep the adjoints after the reverse pass (for a diagnosis)
	jac      jacState        // Jacobian's state (jacobian.go)
	need     []bool          // per instruction: a reverse block recomputes it (stream.go)
	slots    int             // the workers a streamed program has windows for (stream.go), or 0
	tune     tuning          // the thresholds it was compiled with (options.go)
	off      map[string]bool // the passes it was compiled without (passes.go)
	mapped   bool            // its arena was mapped from the kernel (arena_linux.go)
	size     int             // the arena's length
	// tmpl is the program as compiled, never run, that NewEvaluator
	// copies (evaluator.go); nil in an evaluator's program
	tmpl *Program

	// replicas (replica.go): their size per worker, each helper's, and the
	// Eval (evalGen) each helper's replicas of each forward phase are of
	repSize int
	repBufs [][]float64
	repAt   [][]uint64
	evalGen uint64
}

// Compile compiles a checked model. The error, when not nil, is a diag.List
// whose entries give the file, line and column of what cannot be compiled.
func Compile(m *check.Model) (*Program, error) { return compile(m, nil, Options{}) }

func compile(m *check.Model, scale SumScale, opts Options) (*Program, error) {
	c := newCompiler(scale, opts)
	p := &Program{nvars: m.NumScalars, tune: c.tune}
	root := c.newScope(nil)
	// f0
	obj := Function{Name: "objective", Objective: true}
	var out *reg
	if m.Objective != nil {
		obj.Pos = m.Objective.Src.Pos()
		out = c.expr(m.Objective.Expr, root) // the checker refuses maximize
	} else {
		out = c.scalar(0, nil)
	}
	p.funcs = append(p.funcs, obj)
	p.outs = append(p.outs, out)
	for _, k := range m.Constraints {
		p.funcs = append(p.funcs, Function{Name: k.Name, Pos: k.Group.Src.Pos(), Constraint: k})
		p.outs = append(p.outs, c.expr(k.F, root))
	}
	return p.finish(c, opts)
}

// finish checks that every function compiled to a scalar and runs the
// passes (passes.go) on the program.
func (p *Program) finish(c *compiler, opts Options) (*Program, error) {
	if c.failed {
		c.diags.Sort()
		return nil, c.diags
	}
	for i, r := range p.outs {
		if r.esize != 1 || len(r.axes) != 0 {
			c.errorf(nil, "internal error: function %s is not a scalar", p.funcs[i].Name)
			return nil, c.diags
		}
	}
	p.insts = c.insts
	if err := p.runPasses(c, opts); err != nil {
		return nil, err
	}
	p.job.Fn = p.block
	p.tmpl = p.instance(false)
	return p, nil
}

// link computes each function's dependencies (linkDeps), finds the
// sampleable axes and the constants that sampling must regather
// (linkSamples), marks those constants sampleable, and lays out every
// register in one arena (arenaSize, layout).
func (p *Program) link(c *compiler) error {
	p.linkDeps()
	p.linkSamples(c)
	size := p.arenaSize()
	for _, rs := range p.resamp {
		for _, r := range rs {
			if r.sp != nil {
				r.sp.sampleable()
				continue
			}
			if r.refs != nil {
				r.refs.sampleable()
				continue
			}
			r.full = r.val // its sample buffer is allocated by resample, as large as the samples drawn
		}
	}
	if err := checkArena(c, size); err != nil {
		return err
	}
	p.size = size
	p.layout(size)
	return nil
}

// linkDeps sets p.deps: for each function, the sorted instructions its
// value reads, through operands and shared products' bases.
func (p *Program) linkDeps() {
	p.deps = make([][]int, len(p.outs))
	seen := make([]int, len(p.insts))
	for i := range seen {
		seen[i] = -1
	}
	for f, r := range p.outs {
		var stack []int
		if r.prod >= 0 {
			stack = append(stack, r.prod)
			seen[r.prod] = f
		}
		var list []int
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			list = append(list, k)
			for _, in := range p.insts[k].in {
				if in.prod >= 0 && seen[in.prod] != f {
					seen[in.prod] = f
					stack = append(stack, in.prod)
				}
			}
			if sh := p.plan[k].share; sh != nil && seen[sh.base.k] != f {
				seen[sh.base.k] = f
				stack = append(stack, sh.base.k)
			}
		}
		slices.Sort(list)
		p.deps[f] = list
	}
	p.mark = make([]bool, len(p.insts))
}

// linkSamples sets the sampleable axes (the data means without a mask):
// p.axes, p.samples, and in p.resamp the constants over each that an
// instruction reads, which sampling regathers.
func (p *Program) linkSamples(c *compiler) {
	used := map[*reg]bool{}
	for _, in := range p.insts {
		for _, r := range in.in {
			used[r] = true
		}
		if in.mask != nil {
			used[in.mask] = true
		}
	}
	for _, a := range c.axes {
		if a.data == nil || a.op != "mean" || len(a.means) == 0 {
			continue
		}
		masked := false
		for _, in := range p.insts {
			if in.op == opAxis && in.ax == a && in.mask != nil {
				masked = true
			}
		}
		if masked {
			continue
		}
		p.axes = append(p.axes, a)
		p.samples = append(p.samples, Sample{Data: a.data.Name, Rows: len(a.vals), Means: a.means})
		var konsts []*reg
		for _, r := range c.regs {
			if r.konst && used[r] && r.has(a) {
				konsts = append(konsts, r)
			}
		}
		p.resamp = append(p.resamp, konsts)
	}
}

// arenaSize is the float64s of the arena: every computed register's
// value, adjoint and aux (a view takes its operand's), and the reductions'
// scratch space.
func (p *Program) arenaSize() int {
	size := 0
	for _, in := range p.insts {
		n := in.out.storage(p.slots)
		if in.op == opView {
			continue // it shares its operand's storage
		}
		size += 2 * n
		if in.needsAux() {
			size += in.out.auxStorage(p.slots)
		}
		if in.op == opReduce {
			size += in.in[0].esize
		}
	}
	return size
}

// layout allocates the arena of size float64s and lays out in it every
// instruction's output (its value, adjoint and aux) and scratch space, in
// program order; a view takes its operand's storage.
func (p *Program) layout(size int) {
	p.arena = allocateArena(p, size)
	p.vars = nil
	off := 0
	take := func(n int) []float64 {
		s := p.arena[off : off+n : off+n]
		off += n
		return s
	}
	for _, in := range p.insts {
		o := in.out
		n := o.storage(p.slots)
		if in.op == opView {
			o.val, o.adj = in.in[0].val, in.in[0].adj
			continue
		}
		o.val, o.adj = take(n), take(n)
		if in.needsAux() {
			o.aux = take(o.auxStorage(p.slots))
		}
		if in.op == opReduce {
			in.scratch = take(in.in[0].esize)
		}
		if in.op == opVar {
			p.vars = append(p.vars, in)
		}
	}
}

// checkArena refuses a program whose work space of size float64s (a
// register, its adjoint and aux for every value over every data row) would
// take more than the memory a data set may take (data.MemoryLimit: half
// the machine's, or QRC_DATA_MEMORY), with a message at the largest
// instruction.
func checkArena(c *compiler, size int) error {
	limit, why := data.MemoryLimit()
	need := int64(size) * 8
	if need <= limit {
		return nil
	}
	var at ast.Node
	values := 0
	for _, in := range c.insts {
		if n := in.out.fullBatch() * in.out.esize; n > values {
			at, values = in.src, n
		}
	}
	c.errorf(at, "evaluating the model needs %s of work space (this expression alone holds %d values, over every data row), more than the limit of %s (%s)",
		data.FormatBytes(need), values, data.FormatBytes(limit), why)
	c.diags.Sort()
	return c.diags
}

// Functions returns the program's functions: the objective first, then the
// expanded constraints in model order.
func (p *Program) Functions() []Function { return p.funcs }

// NumVars returns the length of the flat vector x of all decision variables
// (check.Model.NumScalars); variable v occupies x[v.Offset : v.Offset+v.Size]
// row-major.
func (p *Program) NumVars() int { return p.nvars }

// NumInstructions returns the number of instructions evaluated per Eval.
func (p *Program) NumInstructions() int { return len(p.insts) }

// Eval evaluates every function at x and stores fi(x) in values[i]
// (len(values) == len(Functions())). It records what Gradient needs. A NaN
// or infinite result is an *EvalError naming the expression that produced it.
func (p *Program) Eval(x, values []float64) error {
	if len(x) != p.nvars || len(values) != len(p.funcs) {
		return fmt.Errorf("autodiff: Eval with %d variables and %d values; the program has %d and %d", len(x), len(values), p.nvars, len(p.funcs))
	}
	p.evaled = false
	p.startReplicas()
	for i := range p.fwd {
		p.run(&p.fwd[i], true, x)
	}
	bad := -1
	for i, r := range p.outs {
		values[i] = r.val[0]
		if math.IsNaN(values[i]) || math.IsInf(values[i], 0) {
			if bad < 0 {
				bad = i
			}
		}
	}
	if bad >= 0 {
		return p.diagnose(bad, x)
	}
	p.evaled = true
	return nil
}

// Gradient stores in g (len NumVars) the subgradient sum_i w[i] * dfi at the
// point of the last successful Eval (len(w) == len(Functions())). Functions
// with w[i] == 0 cost nothing. A non-finite subgradient is an *EvalError.
func (p *Program) Gradient(w, g []float64) error {
	if len(g) != p.nvars || len(w) != len(p.funcs) {
		return fmt.Errorf("autodiff: Gradient with %d weights and %d variables; the program has %d and %d", len(w), len(g), len(p.funcs), p.nvars)
	}
	if !p.evaled {
		return fmt.Errorf("autodiff: Gradient without a successful Eval")
	}
	p.markFor(func(f int) bool { return w[f] != 0 })
	p.reverse(w, g)
	for _, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			// run the pass again keeping the adjoints, to find the culprit
			p.keep = true
			p.reverse(w, g)
			p.keep = false
			err := p.diagnoseGrad()
			for k, in := range p.insts {
				if p.mark[k] {
					in.out.clearAdj()
				}
			}
			return err
		}
	}
	return nil
}

// markFor marks the instructions the functions f with use(f) depend on
// and that have a reverse pass.
func (p *Program) markFor(use func(f int) bool) {
	clear(p.mark)
	for f := range p.deps {
		if use(f) {
			for _, k := range p.deps[f] {
				p.mark[k] = p.insts[k].op != opExpAbs
			}
		}
	}
}

// reverse runs the reverse pass for the weights w into g, over the marked
// instructions. Every adjoint is zero before and (unless p.keep) after.
func (p *Program) reverse(w, g []float64) {
	clear(g)
	p.g = g
	for f, wf := range w {
		if r := p.outs[f]; wf != 0 && !r.konst {
			r.adj[0] += wf
		}
	}
	for i := range p.bwd {
		p.run(&p.bwd[i], false, nil)
	}
	p.g = nil
}

// Samples returns the row sets of the program's data means that can be
// sampled, in the order SetSample numbers them.
func (p *Program) Samples() []Sample { return p.samples }

// SetSample makes the means over row set s run over the given positions
// (0-based indices into its Rows rows, repeats allowed, at most Rows of
// them) instead of all rows, until ResetSamples or the next SetSample for s.
func (p *Program) SetSample(s int, positions []int) error {
	if s < 0 || s >= len(p.axes) {
		return fmt.Errorf("autodiff: no sample set %d (the program has %d)", s, len(p.axes))
	}
	a := p.axes[s]
	if len(positions) == 0 || len(positions) > len(a.vals) {
		return fmt.Errorf("autodiff: a sample of %d rows of %s; want 1..%d", len(positions), a.data.Name, len(a.vals))
	}
	for _, q := range positions {
		if q < 0 || q >= len(a.vals) {
			return fmt.Errorf("autodiff: sample position %d out of range 0..%d", q, len(a.vals)-1)
		}
	}
	a.pos, a.n = positions, len(positions)
	if identity(positions, len(a.vals)) {
		a.pos = nil // every row in order is the full set (and shares products, share.go)
	}
	p.evaled = false
	p.resample(s)
	return nil
}

// identity reports whether positions are 0..n-1 in order.
func identity(positions []int, n int) bool {
	if len(positions) != n {
		return false
	}
	for i, q := range positions {
		if q != i {
			return false
		}
	}
	return true
}

// ResetSamples makes every mean run over all of its rows again.
func (p *Program) ResetSamples() {
	for s, a := range p.axes {
		a.pos, a.n = nil, len(a.vals)
		p.resample(s)
	}
	p.evaled = false
}

// resample regathers the constants over sampleable axis s (and any other
// sampled axes they have) from their full values.
func (p *Program) resample(s int) {
	for _, r := range p.resamp[s] {
		sampled := false
		for _, a := range r.axes {
			sampled = sampled || a.pos != nil
		}
		if sp := r.sp; sp != nil {
			sp.resample(r, sampled)
			continue
		}
		if rr := r.refs; rr != nil {
			rr.resample(r, sampled)
			rr.rise()
			r.sample(sampled)
			continue
		}
		if !sampled {
			r.val = r.full
			continue
		}
		// the sample buffer grows to the largest sample drawn (a dynamic
		// solve's samples are at most a third of the rows; a stochastic
		// one's a minibatch), not to all rows: on 10^7 rows that saved
		// 1.28 GB; it is allocated when a sample grows, never per
		// evaluation
		if need := r.batch() * r.esize; cap(r.aux) < need {
			r.aux = make([]float64, need)
		}
		r.val = r.aux[:r.batch()*r.esize]
		es := r.esize
		sampleBatch(r, func(t, src int) { copy(r.val[t*es:(t+1)*es], r.full[src*es:(src+1)*es]) })
	}
}

// sampleBatch calls f for every entry t of r's current batch with the
// entry src of the full batch it is (an odometer over the current axes,
// through the sample positions of the sampled ones).
func sampleBatch(r *reg, f func(t, src int)) {
	nd := len(r.axes)
	var idx [maxDims]int
	var fstride [maxDims]int
	step := 1
	for j := nd - 1; j >= 0; j-- {
		fstride[j] = step
		step *= len(r.axes[j].vals)
	}
	for t := 0; t < r.batch(); t++ {
		src := 0
		for j := 0; j < nd; j++ {
			q := idx[j]
			if a := r.axes[j]; a.pos != nil {
				q = a.pos[q]
			}
			src += q * fstride[j]
		}
		f(t, src)
		for j := nd - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < r.axes[j].n {
				break
			}
			idx[j] = 0
		}
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func firstBad(v []float64) int {
	for i, x := range v {
		if !finite(x) {
			return i
		}
	}
	return -1
}

// diagnose explains a non-finite value of function f at x: the first
// instruction it depends on whose output is not finite.
func (p *Program) diagnose(f int, x []float64) error {
	var windowed map[int]string // the first fault of each windowed instruction
	for _, k := range p.deps[f] {
		in := p.insts[k]
		if in.op == opExpAbs && p.plan[in.k].share.active(in) {
			continue // not computed: its sigmoids read the base's
		}
		o := in.out
		if o.windowed() {
			if windowed == nil {
				windowed = map[int]string{}
				p.scanWindows(x, func(in *inst, ov, _, av []float64) {
					if _, seen := windowed[in.k]; !seen {
						if j := firstBad(ov); j >= 0 {
							windowed[in.k] = in.explainAt(ov, av, j)
						}
					}
				})
			}
			if msg, bad := windowed[k]; bad {
				return &EvalError{Pos: pos(in.src), Msg: msg}
			}
			continue
		}
		j := firstBad(o.val[:o.size()])
		if j < 0 {
			continue
		}
		return &EvalError{Pos: pos(in.src), Msg: in.explain(j)}
	}
	return &EvalError{Pos: p.funcs[f].Pos, Msg: fmt.Sprintf("%s is not finite (%g)", p.funcs[f].Name, p.outs[f].val[0])}
}

func pos(n ast.Node) ast.Pos {
	if n == nil {
		return ast.Pos{}
	}
	return n.Pos()
}

// explain says why element j of the instruction's output is not finite.
func (in *inst) explain(j int) string {
	var av []float64
	if len(in.in) > 0 {
		av = in.in[0].val
	}
	return in.explainAt(in.out.val, av, j)
}

// explainAt is explain with the output's values ov and the first
// operand's av (for a windowed register, a block's views of them).
func (in *inst) explainAt(ov, av []float64, j int) string {
	v := ov[j]
	what := ""
	if e, ok := in.src.(ast.Expr); ok {
		what = format.Expr(e)
	}
	switch in.op {
	case opVar:
		return fmt.Sprintf("variable value is not finite (%g at element %d)", v, j+1)
	case opUnary:
		z := av[j]
		if b, ok := in.src.(*ast.Binary); ok && b.Op == "^" && in.fn.Name == "log" && !(z > 0) {
			return fmt.Sprintf("%s with a variable exponent at a base of %g (x^y is e^(y log x), defined for x > 0)", what, z)
		}
		switch in.fn.Name {
		case "log":
			if z == 0 {
				return "log of zero"
			}
			if z < 0 {
				return fmt.Sprintf("log of a negative number (%g)", z)
			}
		case "log1p":
			if z <= -1 {
				return fmt.Sprintf("log1p of a number at or below -1 (%g)", z)
			}
		case "sqrt":
			if z < 0 {
				return fmt.Sprintf("square root of a negative number (%g)", z)
			}
		case "exp":
			if z > 0 {
				return fmt.Sprintf("exp overflows at %g", z)
			}
		}
		return fmt.Sprintf("%s(%g) is %g", in.fn.Name, z, v)
	case opPow:
		z := av[j]
		if z < 0 && in.params[0] != math.Trunc(in.params[0]) {
			return fmt.Sprintf("negative number (%g) to the fractional power %g", z, in.params[0])
		}
		if z == 0 && in.params[0] < 0 {
			return fmt.Sprintf("zero to the negative power %g", in.params[0])
		}
		return fmt.Sprintf("%g^%g overflows", z, in.params[0])
	case opDiv:
		return fmt.Sprintf("division by zero (%s is %g)", what, v)
	case opAxis:
		if in.axOp == "max" || in.axOp == "min" {
			return fmt.Sprintf("%s over an empty set", in.axOp)
		}
	}
	if what != "" {
		return fmt.Sprintf("%s is %g", what, v)
	}
	return fmt.Sprintf("value is %g", v)
}

// diagnoseGrad explains a non-finite subgradient: the first marked
// instruction whose recorded derivative is not finite.
func (p *Program) diagnoseGrad() error {
	derivative := func(in *inst) bool {
		return in.out.aux != nil && (in.op == opUnary || in.op == opPow || in.op == opSigmoidE)
	}
	notFinite := func(in *inst, z float64) error {
		name := "^"
		if in.fn != nil {
			name = in.fn.Name
		}
		return &EvalError{Pos: pos(in.src), Msg: fmt.Sprintf("the subgradient of %s at %g is not finite", name, z)}
	}
	var windowed map[int]float64 // the first argument of each windowed derivative that is not finite
	for k, in := range p.insts {
		if !p.mark[k] || !derivative(in) {
			continue
		}
		o := in.out
		if o.windowed() {
			if windowed == nil {
				windowed = map[int]float64{}
				p.scanWindows(nil, func(in *inst, _, aux, av []float64) {
					if _, seen := windowed[in.k]; !seen && p.mark[in.k] && derivative(in) {
						if j := firstBad(aux); j >= 0 {
							windowed[in.k] = av[j]
						}
					}
				})
			}
			if z, bad := windowed[k]; bad {
				return notFinite(in, z)
			}
			continue
		}
		if j := firstBad(o.aux[:o.size()]); j >= 0 {
			return notFinite(in, in.in[0].val[j])
		}
	}
	for k, in := range p.insts {
		// a window's adjoints are gone with its block
		if p.mark[k] && !in.out.windowed() {
			if j := firstBad(in.out.adj[:in.out.size()]); j >= 0 {
				return &EvalError{Pos: pos(in.src), Msg: "the subgradient is not finite (an intermediate value overflows)"}
			}
		}
	}
	return &EvalError{Msg: "the subgradient is not finite"}
}

// Disasm writes the program, one instruction a line with its source
// position, for debugging and for the documentation.
func (p *Program) Disasm(w io.Writer) {
	for k, in := range p.insts {
		o := in.out
		fmt.Fprintf(w, "%4d r%-4d = %-13s", k, o.id, opNames[in.op])
		if in.fn != nil {
			fmt.Fprintf(w, " %s", in.fn.Name)
			if in.neg {
				fmt.Fprint(w, " of -")
			}
		}
		if in.axOp != "" {
			fmt.Fprintf(w, " %s", in.axOp)
		}
		for _, r := range in.in {
			if r.konst {
				fmt.Fprintf(w, " k%d", r.id)
			} else {
				fmt.Fprintf(w, " r%d", r.id)
			}
		}
		fmt.Fprintf(w, "  axes[")
		for i, a := range o.axes {
			if i > 0 {
				fmt.Fprint(w, " ")
			}
			fmt.Fprintf(w, "%d", a.n)
		}
		fmt.Fprintf(w, "] elem%v", []int(o.elem))
		if ps := pos(in.src); ps.Line > 0 {
			fmt.Fprintf(w, "  %d:%d", ps.Line, ps.Column)
		}
		fmt.Fprintln(w)
	}
}
