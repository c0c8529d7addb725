package autodiff

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The Jacobian: every function's gradient at one point. Gradient with a
// unit weight per function would run one reverse pass per function, and
// each pass would multiply the data by its adjoint again: a product
// dot(D.X[i], x) over n rows streams the n × d rows once per function.
// Jacobian runs the passes one function at a time as well, but a product
// whose adjoint goes straight into a variable (a jacDot) only stores its
// output adjoint, one column per function, and after the passes each
// block of rows X_b forms X_b^T g_f for every function f while the block is
// in cache (one gemv per function; gonum's GEMM kernels were slower on
// these shapes): the rows are read once for all the functions.

const (
	// jacMaxCols is the most functions whose adjoints are stored together
	// (the rest take further rounds).
	jacMaxCols = 64
	// jacMaxFloats bounds the stored adjoints of one product (rows ×
	// functions of a round); a product over more than half as many rows
	// is not deferred (Jacobian is then one Gradient per function).
	jacMaxFloats = 1 << 23
)

// A jacDot is a product over rows whose reverse pass Jacobian defers.
type jacDot struct {
	row     *reg      // the constant rows
	v       *inst     // the variable its adjoint goes into
	g       []float64 // cols × rows: the output adjoint of each function of the round
	part    []float64 // per block, cols × d: the block's X_b^T g_f for each column f
	written []bool    // per column: the function's pass stored its adjoint
}

// jacState is what Jacobian keeps between calls.
type jacState struct {
	on   bool      // a Jacobian pass runs: jacDots store their adjoints
	col  int       // the column of the function whose pass runs
	cols int       // the columns of the current round
	dots []*inst   // the instructions with a jacDot
	w    []float64 // a unit weight vector
	run  *inst     // the jacDot whose blocks the workers multiply
	// apart is whether the functions' first reverse phases can run as one
	// (linkApart): 1 yes, -1 no
	apart int8
	// tails runs the functions' later phases early in jacApart (tails.go)
	tails jacTails
	// order is each instruction's place in the reverse pass when every
	// reverse phase is serial (jacSerial), -1 for one not in it; nil
	// until needed, empty when a phase has blocks
	order []int
	// serialRuns and apartRuns count the Jacobians computed by jacSerial
	// and by jacApart (for the tests)
	serialRuns, apartRuns int
}

// deferred reports whether in's reverse pass stores its output adjoint
// for Jacobian instead of multiplying it now.
func (p *Program) deferred(in *inst) bool {
	return p.jac.on && p.plan[in.k].jac != nil && !p.plan[in.k].share.active(in)
}

// linkJacobian finds the products Jacobian defers: a shareable product
// (share.go) of rows with a variable that two or more functions depend on.
func (p *Program) linkJacobian() {
	users := p.users()
	for _, in := range p.insts {
		if !shareableDot(in) || users[in.k] < 2 {
			continue
		}
		ri, ro := rowOperand(in)
		o := in.in[ro]
		if o.prod < 0 || p.insts[o.prod].op != opVar {
			continue
		}
		p.plan[in.k].jac = &jacDot{row: in.in[ri], v: p.insts[o.prod]}
		p.jac.dots = append(p.jac.dots, in)
	}
}

// deferBlock stores the output adjoint of a jacDot within block bk in the
// current function's column.
func (p *Program) deferBlock(in *inst, bk *blk) {
	g := bk.adj(in.out)[:bk.size(in.out)]
	lo := 0
	if bk != nil {
		lo = bk.lo
	}
	copy(p.plan[in.k].jac.g[p.jac.col*len(in.fwdAx.vals)+lo:], g)
}

// Jacobian stores in rows[f] (len(rows) == len(Functions()), each of len
// NumVars) the subgradient of function f at the point of the last
// successful Eval: what Gradient with the unit weight e_f stores, equal to
// it to rounding (the products with the data are summed in another
// order), for every f in one call that reads each data matrix once
// rather than once per function. A non-finite subgradient is an
// *EvalError, as from Gradient. Once warm it allocates nothing.
func (p *Program) Jacobian(rows [][]float64) error {
	nf := len(p.funcs)
	if len(rows) != nf {
		return fmt.Errorf("autodiff: Jacobian with %d rows; the program has %d functions", len(rows), nf)
	}
	for f, r := range rows {
		if len(r) != p.nvars {
			return fmt.Errorf("autodiff: Jacobian row %d has %d elements; the program has %d variables", f, len(r), p.nvars)
		}
	}
	if !p.evaled {
		return fmt.Errorf("autodiff: Jacobian without a successful Eval")
	}
	j := &p.jac
	if len(j.w) != nf {
		j.w = make([]float64, nf)
	}
	per := min(nf, jacMaxCols)
	for _, in := range j.dots {
		per = min(per, jacMaxFloats/len(in.fwdAx.vals))
	}
	if len(j.dots) == 0 || per < 2 { // nothing to share: one Gradient per function
		if p.jacApart(rows) {
			return nil
		}
		if done, err := p.jacSerial(rows); done {
			p.jac.serialRuns++
			return err
		}
		for f := range nf {
			j.w[f] = 1
			err := p.Gradient(j.w, rows[f])
			j.w[f] = 0
			if err != nil {
				return err
			}
		}
		return nil
	}
	for _, in := range j.dots {
		jd := p.plan[in.k].jac
		n, d := len(in.fwdAx.vals), jd.row.esize
		if len(jd.g) < n*per {
			jd.g = make([]float64, n*per)
			jd.part = make([]float64, in.fwdAx.maxBlocks*per*d)
			jd.written = make([]bool, per)
		}
	}
	for f0 := 0; f0 < nf; f0 += per {
		fs := min(nf, f0+per) - f0
		j.cols = fs
		j.on = true
		for col := range fs {
			f := f0 + col
			j.col = col
			p.markFor(func(h int) bool { return h == f })
			j.w[f] = 1
			p.reverse(j.w, rows[f])
			j.w[f] = 0
			for _, in := range j.dots {
				p.plan[in.k].jac.written[col] = p.mark[in.k] && !p.plan[in.k].share.active(in)
			}
		}
		j.on = false
		for _, in := range j.dots {
			p.jacMultiply(in, rows[f0:f0+fs])
		}
		for col := range fs {
			f := f0 + col
			for _, v := range rows[f] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					// the pass of Gradient finds the culprit
					j.w[f] = 1
					err := p.Gradient(j.w, rows[f])
					j.w[f] = 0
					if err != nil {
						return err
					}
					break
				}
			}
		}
	}
	return nil
}

// jacMultiply adds X^T g_f, for the stored adjoint g_f of each of the
// round's functions, to its row at the jacDot's variable: the blocks of
// rows on the worker pool, their products added in block order.
func (p *Program) jacMultiply(in *inst, rows [][]float64) {
	jd := p.plan[in.k].jac
	cols := p.jac.cols
	some := false
	for col := range cols {
		some = some || jd.written[col]
	}
	if !some {
		return
	}
	a := in.fwdAx
	a.split()
	// block b on the worker that has it in the passes (Job.Run's equal
	// parts are the passes' shares of one segment)
	p.jac.run = in
	if a.n < p.tune.parallelMinRows {
		for b := range a.nb {
			p.jacBlock(0, b)
		}
	} else {
		parts := p.parts(a.nb)
		for w := range parts {
			p.ends[w] = (w + 1) * a.nb / parts
		}
		p.job.RunParts(p.ends[:parts])
	}
	p.jac.run = nil
	d := jd.row.esize
	off, size := jd.v.off, jd.v.out.size()
	for b := range a.nb {
		part := jd.part[b*cols*d : (b+1)*cols*d]
		for col, r := range rows {
			if !jd.written[col] {
				continue
			}
			dst := r[off : off+size]
			for q, v := range part[col*d : (col+1)*d] {
				dst[q] += v
			}
		}
	}
}

// jacBlock computes block b's products X_b^T g_f of the jacDot being
// multiplied, on worker w.
func (p *Program) jacBlock(w, b int) {
	in := p.jac.run
	jd := p.plan[in.k].jac
	a := in.fwdAx
	cols := p.jac.cols
	d := jd.row.esize
	lo := b * a.rows
	hi := min(lo+a.rows, a.n)
	X := general(hi-lo, d, in.rowsOf(&blk{ax: a, lo: lo, hi: hi, w: w}, jd.row))
	n := len(a.vals)
	for col := range cols {
		part := jd.part[(b*cols+col)*d : (b*cols+col+1)*d]
		if !jd.written[col] {
			continue
		}
		// the block of X stays in cache from one function to the next
		blas64.Gemv(blas.Trans, 1, X, vec(jd.g[col*n+lo:col*n+hi]), 0, vec(part))
	}
}

// users returns, for every instruction, the number of functions that
// depend on it.
func (p *Program) users() []int {
	users := make([]int, len(p.insts))
	for _, deps := range p.deps {
		for _, k := range deps {
			users[k]++
		}
	}
	return users
}

// linkApart decides whether the functions' reverse passes are apart in
// their first phase: every instruction of the first reverse phase (its
// instructions run on the caller and its blocks of rows), and every
// register such an instruction adds an adjoint into, serves one function
// only, no variable is among them, and every function's output is
// computed there. Then that phase, where the rows are, can run for every
// function at once, the blocks of all functions' row sets in one dispatch
// (npc.qrc: one class's rows per function), and only the later phases
// run once per function.
func (p *Program) linkApart() {
	p.jac.apart = -1
	if len(p.bwd) < 2 {
		return
	}
	users := p.users() // a shared exponential counts too: stricter, never wrong
	first := map[int]bool{}
	ph := &p.bwd[0]
	insts := slices.Clone(ph.serial)
	for _, sg := range ph.segs {
		insts = append(insts, sg.insts...)
	}
	for _, in := range insts {
		first[in.k] = true
		if in.op == opVar || users[in.k] > 1 {
			return
		}
		for _, r := range in.in {
			if !r.konst && r.prod >= 0 && users[r.prod] > 1 {
				return
			}
		}
	}
	for _, r := range p.outs {
		if !r.konst && (r.prod < 0 || !first[r.prod]) {
			return
		}
	}
	p.jac.apart = 1
	if p.enabled("tails") {
		p.linkTails()
	}
}

// jacApart computes the Jacobian with the first reverse phase run once
// for every function (linkApart), when the functions are apart there,
// and reports whether it did. The values are those of one Gradient per
// function, bit for bit: every instruction of that phase receives the
// adjoint of one function only, as it would alone. A result that is not
// finite is left to Gradient, which diagnoses it. Each function's later
// phases (its tail) run as soon as its blocks are done, on the worker
// that finished them, when linkTails allows (tails.go), else one
// function after another once every block is done.
func (p *Program) jacApart(rows [][]float64) bool {
	if p.jac.apart == 0 {
		p.linkApart()
	}
	if p.jac.apart < 0 {
		return false
	}
	p.jac.apartRuns++
	p.markFor(func(int) bool { return true })
	for _, r := range p.outs {
		if !r.konst {
			r.adj[0]++
		}
	}
	t := &p.jac.tails
	if t.ok {
		t.rows, t.on = rows, true
		p.run(&p.bwd[0], false, nil) // it runs every tail (tails.go)
		t.rows, t.on = nil, false
	} else {
		p.run(&p.bwd[0], false, nil)
		for f, row := range rows {
			p.markFor(func(h int) bool { return h == f })
			clear(row)
			p.g = row
			for i := 1; i < len(p.bwd); i++ {
				p.run(&p.bwd[i], false, nil)
			}
			p.g = nil
		}
	}
	finite := true
	for _, row := range rows {
		for _, v := range row {
			finite = finite && !math.IsNaN(v) && !math.IsInf(v, 0)
		}
	}
	return finite
}

// jacSerial computes the Jacobian one function at a time, as Gradient
// does, but runs each function's reverse pass over the instructions it
// depends on only, when every reverse phase is serial (no rows in blocks):
// the same reverse steps in the same order as Gradient with that
// function's unit weight (which skips the instructions it does not mark),
// so the rows are Gradient's bit for bit, in time proportional to the
// functions' sizes instead of their number times the program's (qrc eval
// of 100000 indexed constraints). It reports whether it did, and Gradient's
// error for the first row that is not finite, which Gradient diagnoses.
func (p *Program) jacSerial(rows [][]float64) (done bool, err error) {
	j := &p.jac
	if j.order == nil {
		j.order = []int{}
		for i := range p.bwd {
			if len(p.bwd[i].segs) > 0 {
				return false, nil
			}
		}
		order := make([]int, len(p.insts))
		for k := range order {
			order[k] = -1
		}
		n := 0
		for i := range p.bwd {
			for _, in := range p.bwd[i].serial {
				order[in.k] = n
				n++
			}
		}
		j.order = order
	}
	if len(j.order) == 0 {
		return false, nil
	}
	clear(p.mark)
	var list []*inst
	for f, row := range rows {
		list = list[:0]
		for _, k := range p.deps[f] {
			p.mark[k] = p.insts[k].op != opExpAbs // as markFor
			if p.mark[k] && j.order[k] >= 0 {
				list = append(list, p.insts[k])
			}
		}
		slices.SortFunc(list, func(a, b *inst) int { return j.order[a.k] - j.order[b.k] })
		clear(row)
		p.g = row
		if r := p.outs[f]; !r.konst {
			r.adj[0]++
		}
		for _, in := range list {
			p.back(in, nil, -1)
		}
		p.g = nil
		for _, k := range p.deps[f] {
			p.mark[k] = false
		}
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				// Gradient finds the expression to blame
				j.w[f] = 1
				err := p.Gradient(j.w, row)
				j.w[f] = 0
				return true, err
			}
		}
	}
	return true, nil
}
