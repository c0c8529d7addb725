package autodiff

import "slices"

// Evaluators: one compiled program, many goroutines. A Program's own
// methods (Eval, Gradient, Jacobian, SetSample) run on the program's run
// state, so they must not be called at once. NewEvaluator makes an
// Evaluator with run state of its own: the registers' storage (an arena of
// its own), the partial results of the blocks, the workers' windows and
// row buffers, the samples drawn, the Jacobian's state and the replicas.
// Evaluators of one program run at once on different goroutines, and each
// computes bit for bit what the program's own methods compute: it runs the
// same instructions in the same blocks.
//
// An evaluator is made from the program's template, a copy of its
// instructions, registers, axes and phases taken when compilation ended
// and never run, so NewEvaluator reads nothing an evaluation writes and may
// be called at any time. A copy shares with the template what no
// evaluation writes: the constants' values, the data, the schedules'
// shape, the sharing indices.

// An Evaluator evaluates a compiled program with run state of its own. It
// is not safe for concurrent use; the evaluators of one program are safe
// to use at once.
type Evaluator struct{ p *Program }

// NewEvaluator returns an evaluator of the program with run state of its
// own, at no sample (every mean over all its rows).
func (p *Program) NewEvaluator() *Evaluator { return &Evaluator{p: p.tmpl.instance(true)} }

// Functions returns the program's functions (Program.Functions).
func (e *Evaluator) Functions() []Function { return e.p.funcs }

// NumVars returns the length of x (Program.NumVars).
func (e *Evaluator) NumVars() int { return e.p.nvars }

// Samples returns the program's sampleable row sets (Program.Samples).
func (e *Evaluator) Samples() []Sample { return e.p.samples }

// Eval is Program.Eval on the evaluator's run state.
func (e *Evaluator) Eval(x, values []float64) error { return e.p.Eval(x, values) }

// Gradient is Program.Gradient at the evaluator's last Eval.
func (e *Evaluator) Gradient(w, g []float64) error { return e.p.Gradient(w, g) }

// Jacobian is Program.Jacobian at the evaluator's last Eval.
func (e *Evaluator) Jacobian(rows [][]float64) error { return e.p.Jacobian(rows) }

// SetSample is Program.SetSample for this evaluator only.
func (e *Evaluator) SetSample(s int, positions []int) error { return e.p.SetSample(s, positions) }

// ResetSamples is Program.ResetSamples for this evaluator only.
func (e *Evaluator) ResetSamples() { e.p.ResetSamples() }

// instance returns a copy of p's instructions, registers, axes and phases
// with run state of its own, allocated when run is set (an evaluator) and
// not otherwise (the template). p must not be running, and must be at no
// sample: p is the program at the end of compilation, or its template.
func (p *Program) instance(run bool) *Program {
	cp := &cloner{axes: map[*axis]*axis{}, regs: map[*reg]*reg{}, insts: map[*inst]*inst{}, resamp: map[*reg]bool{}}
	for _, rs := range p.resamp {
		for _, r := range rs {
			cp.resamp[r] = true
		}
	}
	q := &Program{
		funcs: p.funcs, deps: p.deps, nvars: p.nvars, samples: p.samples,
		tune: p.tune, off: p.off, slots: p.slots, repSize: p.repSize, size: p.size,
	}
	q.insts = mapSlice(p.insts, cp.inst)
	q.plan = mapSlice(p.plan, cp.decision)
	q.moded = p.moded
	q.outs = mapSlice(p.outs, cp.reg)
	q.axes = mapSlice(p.axes, cp.axis)
	q.resamp = make([][]*reg, len(p.resamp))
	for s, rs := range p.resamp {
		q.resamp[s] = mapSlice(rs, cp.reg)
	}
	q.fwd, q.bwd = cp.phases(p.fwd), cp.phases(p.bwd)
	q.jac.dots = mapSlice(p.jac.dots, cp.inst)
	q.need = slices.Clone(p.need)
	q.mark = make([]bool, len(q.insts))
	q.items = make([]item, len(p.items))
	q.ends = make([]int, len(p.ends))
	if !run {
		return q
	}
	for _, in := range q.insts {
		if in.part != nil {
			in.part = make([]float64, len(in.part))
		}
		if in.rowBuf != nil {
			in.rowBuf = make([]float64, len(in.rowBuf))
		}
	}
	q.layout(q.size)
	q.job.Fn = q.block
	return q
}

// A cloner copies the pointers of a program's IR, each object once.
type cloner struct {
	axes   map[*axis]*axis
	regs   map[*reg]*reg
	insts  map[*inst]*inst
	resamp map[*reg]bool // the constants that sampling changes
}

func mapSlice[T any](s []T, f func(T) T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

func (cp *cloner) axis(a *axis) *axis {
	if a == nil {
		return nil
	}
	if b, ok := cp.axes[a]; ok {
		return b
	}
	b := *a
	cp.axes[a] = &b
	return &b
}

// reg copies a register: a computed one without storage (layout gives it
// its own), a constant with its values, and a constant that sampling
// changes with rows and buffers of its own.
func (cp *cloner) reg(r *reg) *reg {
	if r == nil {
		return nil
	}
	if q, ok := cp.regs[r]; ok {
		return q
	}
	q := *r
	cp.regs[r] = &q
	q.axes = mapSlice(r.axes, cp.axis)
	if !r.konst {
		q.val, q.adj, q.aux = nil, nil, nil
		return &q
	}
	if !cp.resamp[r] {
		return &q
	}
	if r.full != nil {
		q.val, q.aux = r.full, nil
	}
	if r.sp != nil {
		sp := *r.sp
		sp.rowList = r.sp.rowList.copy()
		q.sp = &sp
	}
	if r.refs != nil {
		rr := *r.refs
		rr.rowList, rr.sbuf = r.refs.rowList.copy(), nil
		q.refs = &rr
		q.val = nil
	}
	return &q
}

// copy returns the full rows with a sample buffer of its own.
func (l rowList) copy() rowList {
	return rowList{rows: l.full, full: l.full, buf: make([]int32, len(l.buf))}
}

func (cp *cloner) inst(in *inst) *inst {
	if in == nil {
		return nil
	}
	if q, ok := cp.insts[in]; ok {
		return q
	}
	q := *in
	cp.insts[in] = &q
	q.out = cp.reg(in.out)
	q.in = mapSlice(in.in, cp.reg)
	q.mask = cp.reg(in.mask)
	q.ax, q.fwdAx, q.bwdAx = cp.axis(in.ax), cp.axis(in.fwdAx), cp.axis(in.bwdAx)
	q.scratch = nil
	return &q
}

// decision copies an instruction's decisions, onto the copied
// instructions; a deferred product's Jacobian state is its own.
func (cp *cloner) decision(d decision) decision {
	q := d
	if s := d.share; s != nil {
		q.share = &share{base: cp.inst(s.base), idx: s.idx, first: s.first}
	}
	q.sharers = mapSlice(d.sharers, cp.inst)
	if j := d.jac; j != nil {
		q.jac = &jacDot{row: cp.reg(j.row), v: cp.inst(j.v)}
	}
	q.eFrom, q.sumBack, q.rowMean = cp.inst(d.eFrom), cp.inst(d.sumBack), cp.inst(d.rowMean)
	return q
}

func (cp *cloner) phases(phs []phase) []phase {
	out := make([]phase, len(phs))
	for i, ph := range phs {
		out[i] = phase{serial: mapSlice(ph.serial, cp.inst), idx: ph.idx, full: ph.full}
		out[i].segs = make([]seg, len(ph.segs))
		for s, sg := range ph.segs {
			out[i].segs[s] = seg{
				ax: cp.axis(sg.ax), insts: mapSlice(sg.insts, cp.inst),
				redo: mapSlice(sg.redo, cp.inst), now: make([]*inst, 0, cap(sg.now)),
			}
		}
	}
	return out
}
