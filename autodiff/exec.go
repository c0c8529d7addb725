package autodiff

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/internal/vmath"
	"github.com/qrc-lang/qrc/stdlib"
)

// opcode names what an instruction computes.
type opcode uint8

const (
	opVar      opcode = iota // out = x[off : off+size]
	opNeg                    // out = -a
	opAdd                    // out = a + b (broadcast)
	opSub                    // out = a - b
	opMul                    // out = a * b
	opDiv                    // out = a / b
	opMax2                   // out = max(a, b), ties to a; aux records which
	opMin2                   // out = min(a, b), ties to a; aux records which
	opUnary                  // out = fn(a; params); aux records fn'(a)
	opPow                    // out = a ^ params[0]; aux records the derivative
	opCmp                    // out = a cmp b as 1 or 0 (constants only)
	opAnd                    // out = a and b (constants only)
	opOr                     // out = a or b (constants only)
	opNot                    // out = not a (constants only)
	opReduce                 // out = fn(element of a), per batch entry
	opDot                    // out = dot(a, b) over the batch, with BLAS
	opGather                 // out = a[idx1, idx2] with index registers
	opAxis                   // out = sum/mean/max/min of a over axis ax (optionally masked)
	opExpand                 // out = a broadcast to out's axes
	opView                   // out = a with its last axis read as its element (shares a's storage)
	opExpAbs                 // out = e^-|a|, aux = 1/(1+out): what every sigmoid of ±a needs (no reverse pass of its own)
	opSigmoidE               // out = sigmoid(a) (or of -a when neg) from b = opExpAbs of ±a; aux records the derivative
	opKeep                   // out = a where b != 0, else 0 (not a*b: an a that is not finite where b is 0 stays out); no adjoint to b
)

var opNames = [...]string{"var", "-", "+", "-", "*", "/", "max", "min", "call", "^", "compare", "and", "or", "not", "reduce", "dot", "index", "comprehension", "expand", "view", "exp-abs", "call", "if"}

// dot modes, fixed at compile time from the operands' axes.
const (
	dotGeneral = iota // loop over the batch, one ddot (or gemv) per entry
	dotRowwise        // a and b have the same axes
	dotAB             // a's axes all precede b's: out = A B^T
	dotBA             // b's axes all precede a's: out = B A^T
	dotMat            // a is a matrix without axes: out = B M^T
	dotSparse         // one operand is rows of a sparse data set: over the nonzeros (sparse.go)
)

// inst is one instruction of a program.
type inst struct {
	op      opcode
	out     *reg
	in      []*reg
	fn      *stdlib.Func
	params  []float64
	cmp     string
	ax      *axis
	axOp    string // sum, mean, max or min for opAxis
	mask    *reg   // opAxis: a constant 0/1 register with the input's axes, or nil
	off     int    // opVar: offset in x
	mode    int    // opDot
	scratch []float64
	src     ast.Node
	kern    func(z, v, d []float64) // opUnary: the fused loop of fn, or nil
	neg     bool                    // opUnary, opSigmoidE: fn of -a (kern computes it; derivatives are with respect to a)

	// rowBuf: for a product over rows by reference, a block of rows per
	// worker (Program.slots of them) to gather into (rows.go)
	rowBuf []float64

	// how the instruction runs in blocks of rows (set by Program.link)
	k        int       // its index in Program.insts
	fwdAx    *axis     // the axis the forward pass runs in blocks along, or nil
	bwdAx    *axis     // the axis the reverse pass runs in blocks along, or nil
	fwdPart  bool      // the forward pass sums over fwdAx: partial sums per block
	bwdPart  bool      // the reverse pass adds to an operand without bwdAx: partial adjoints per block
	part     []float64 // the partial results, partSize per block
	partSize int
}

// forward runs in's forward pass within bk as its fwdKind says (plan.go):
// a sharer active now takes its values from its base's (share.go).
func (p *Program) forward(in *inst, x []float64, bk *blk, part []float64) {
	d := &p.plan[in.k]
	switch {
	case d.fwd == fwdSharer && d.share.active(in):
		// a sharer's exponentials are not computed: their sigmoids read
		// the base's (eFrom)
		if in.op == opDot {
			p.gatherShared(in, bk)
		}
	case d.fwd == fwdSigmoidFromBase && p.plan[d.eFrom.k].share.active(d.eFrom):
		p.sigmoidFromBase(in, p.plan[d.eFrom.k].share, bk)
	default:
		in.forward(x, bk, part)
	}
}

// sigmoidFromBase is the forward pass of a sigmoid whose exponentials'
// instruction is a sharer active now: it reads the exponentials of the
// sharer's rows in the base's, s being the sharer's share.
func (p *Program) sigmoidFromBase(in *inst, s *share, bk *blk) {
	a, o := in.in[0], in.out
	n := bk.size(o)
	var sign []float64
	if len(in.in) > 2 {
		sign = bk.val(in.in[2])[:n]
	}
	be, idx := s.base.out, s.idx
	if bk != nil {
		idx = idx[bk.lo:bk.hi]
	}
	vmath.SigmoidFromExpAt(bk.val(a)[:n], be.val, be.aux, idx, bk.val(o)[:n], bk.aux(o)[:n], sign, in.neg)
}

// forward computes the instruction's output from its inputs, within block
// bk (nil: all of it), as if it shared nothing (Program.forward). part, when not nil, is where a sum over bk's axis
// stores the block's partial sum (see Program.combineForward).
func (in *inst) forward(x []float64, bk *blk, part []float64) {
	o := in.out
	switch in.op {
	case opVar:
		copy(bk.val(o)[:o.size()], x[in.off:in.off+o.size()])
	case opNeg, opAdd, opSub, opMul, opDiv, opMax2, opMin2, opCmp, opAnd, opOr, opKeep:
		in.binary(bk)
	case opNot, opExpand:
		a := in.in[0]
		s := newSpace(bk, o, a, o)
		ov, av := bk.val(o), bk.val(a)
		not := in.op == opNot
		s.run(2, func(off [3]int, n int, st [3]int) {
			ia, io := off[0], off[1]
			for k := 0; k < n; k++ {
				v := av[ia]
				if not {
					v = b2f(v == 0)
				}
				ov[io] = v
				ia += st[0]
				io += st[1]
			}
		})
	case opUnary:
		a := in.in[0]
		n := bk.size(o)
		av, ov, dv := bk.val(a)[:n], bk.val(o)[:n], bk.aux(o)[:n]
		if in.kern != nil {
			in.kern(av, ov, dv)
			return
		}
		vd, p := in.fn.ValueDeriv, in.params
		for k, z := range av {
			ov[k], dv[k] = vd(z, p)
		}
	case opPow:
		a := in.in[0]
		n := bk.size(o)
		av, ov, dv := bk.val(a)[:n], bk.val(o)[:n], bk.aux(o)[:n]
		p := in.params[0]
		for k, z := range av {
			ov[k] = stdlib.Pow(z, p)
			dv[k] = stdlib.PowDeriv(z, p)
		}
	case opReduce:
		a := in.in[0]
		es := a.esize
		av, ov := bk.val(a), bk.val(o)
		for t := 0; t < bk.batch(o); t++ {
			ov[t] = in.fn.Reduce(av[t*es : (t+1)*es])
		}
	case opDot:
		in.dotForward(bk)
	case opExpAbs:
		a := in.in[0]
		n := bk.size(o)
		vmath.ExpNegAbs(bk.val(a)[:n], bk.val(o)[:n], bk.aux(o)[:n])
	case opSigmoidE:
		a, e := in.in[0], in.in[1]
		n := bk.size(o)
		var sign []float64
		if len(in.in) > 2 {
			k := in.in[2]
			sign = bk.val(k)[:n]
		}
		vmath.SigmoidFromExp(bk.val(a)[:n], bk.val(e)[:n], bk.aux(e)[:n], bk.val(o)[:n], bk.aux(o)[:n], sign, in.neg)
	case opGather:
		in.gather(bk, false)
	case opAxis:
		in.axisForward(bk, part)
	}
}

// kernels are the fused loops (value and derivative from one exponential,
// package vmath) of the elementwise functions that have one.
var kernels = map[string]func(z, v, d []float64){
	"exp":      vmath.ExpDeriv,
	"sigmoid":  vmath.SigmoidDeriv,
	"logistic": vmath.LogisticDeriv,
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// binary computes an elementwise binary operation with broadcasting.
func (in *inst) binary(bk *blk) {
	o := in.out
	a := in.in[0]
	b := a
	if len(in.in) > 1 {
		b = in.in[1]
	}
	s := newSpace(bk, o, a, b, o)
	av, bv, ov := bk.val(a), bk.val(b), bk.val(o)
	var aux []float64
	if in.op == opMax2 || in.op == opMin2 {
		// aux is laid out like out
		aux = bk.aux(o)
	}
	op, cmp := in.op, in.cmp
	s.run(3, func(off [3]int, n int, st [3]int) {
		ia, ib, io := off[0], off[1], off[2]
		sa, sb, so := st[0], st[1], st[2]
		switch op {
		case opNeg:
			for k := 0; k < n; k++ {
				ov[io] = -av[ia]
				ia, io = ia+sa, io+so
			}
		case opAdd:
			for k := 0; k < n; k++ {
				ov[io] = av[ia] + bv[ib]
				ia, ib, io = ia+sa, ib+sb, io+so
			}
		case opSub:
			for k := 0; k < n; k++ {
				ov[io] = av[ia] - bv[ib]
				ia, ib, io = ia+sa, ib+sb, io+so
			}
		case opMul:
			for k := 0; k < n; k++ {
				ov[io] = av[ia] * bv[ib]
				ia, ib, io = ia+sa, ib+sb, io+so
			}
		case opDiv:
			for k := 0; k < n; k++ {
				ov[io] = av[ia] / bv[ib]
				ia, ib, io = ia+sa, ib+sb, io+so
			}
		case opMax2:
			for k := 0; k < n; k++ {
				// a NaN wins, so that it reaches the output and is reported
				if av[ia] >= bv[ib] || math.IsNaN(av[ia]) {
					ov[io], aux[io] = av[ia], 0
				} else {
					ov[io], aux[io] = bv[ib], 1
				}
				ia, ib, io = ia+sa, ib+sb, io+so
			}
		case opMin2:
			for k := 0; k < n; k++ {
				if av[ia] <= bv[ib] || math.IsNaN(av[ia]) {
					ov[io], aux[io] = av[ia], 0
				} else {
					ov[io], aux[io] = bv[ib], 1
				}
				ia, ib, io = ia+sa, ib+sb, io+so
			}
		case opKeep:
			for k := 0; k < n; k++ {
				if bv[ib] != 0 {
					ov[io] = av[ia]
				} else {
					ov[io] = 0
				}
				ia, ib, io = ia+sa, ib+sb, io+so
			}
		case opAnd, opOr, opCmp:
			for k := 0; k < n; k++ {
				x, y := av[ia], bv[ib]
				var r bool
				switch {
				case op == opAnd:
					r = x != 0 && y != 0
				case op == opOr:
					r = x != 0 || y != 0
				default:
					r = check.Holds(cmp, x, y)
				}
				ov[io] = b2f(r)
				ia, ib, io = ia+sa, ib+sb, io+so
			}
		}
	})
}

// axisSplit returns the sizes of the batch before ax, of ax, and of the
// batch after ax times the element size, for a register with axis ax,
// within block bk.
func axisSplit(bk *blk, r *reg, ax *axis) (before, n, after int) {
	before, after = 1, r.esize
	seen := false
	for _, a := range r.axes {
		switch {
		case a == ax:
			seen = true
		case seen:
			after *= bk.n(a)
		default:
			before *= bk.n(a)
		}
	}
	return before, bk.n(ax), after
}

// axisForward reduces over the instruction's axis. With part not nil, the
// axis is bk's and the block's plain sum goes to part (scaled for a mean
// when the blocks are combined).
func (in *inst) axisForward(bk *blk, part []float64) {
	a, o := in.in[0], in.out
	before, n, after := axisSplit(bk, a, in.ax)
	av, ov := bk.val(a), bk.val(o)
	if part != nil {
		ov = part[:after]
	}
	var mv []float64
	es := a.esize
	if in.mask != nil {
		mv = bk.val(in.mask)
	}
	scale := in.axOp == "mean" && part == nil
	inv := 1 / float64(in.ax.n)
	switch in.axOp {
	case "sum", "mean":
		if mv == nil && after == 1 { // the innermost axis: one sum per run
			for p := 0; p < before; p++ {
				t := 0.0
				for _, v := range av[p*n : (p+1)*n] {
					t += v
				}
				if scale {
					t *= inv
				}
				ov[p] = t
			}
			return
		}
		for p := 0; p < before; p++ {
			out := ov[p*after : (p+1)*after]
			clear(out)
			for s := 0; s < n; s++ {
				row := av[(p*n+s)*after : (p*n+s+1)*after]
				if mv == nil {
					for q, v := range row {
						out[q] += v
					}
					continue
				}
				mrow := mv[(p*n+s)*after/es:]
				for q, v := range row {
					if mrow[q/es] != 0 {
						out[q] += v
					}
				}
			}
			if scale {
				for q := range out {
					out[q] *= inv
				}
			}
		}
	case "max", "min":
		sign := 1.0
		if in.axOp == "min" {
			sign = -1
		}
		aux := bk.aux(o)
		for p := 0; p < before; p++ {
			for q := 0; q < after; q++ {
				best, arg := math.Inf(-1), -1.0
				for s := 0; s < n; s++ {
					k := (p*n+s)*after + q
					if mv != nil && mv[k/es] == 0 {
						continue
					}
					if v := sign * av[k]; v > best || arg < 0 || math.IsNaN(v) {
						best, arg = v, float64(s)
						if math.IsNaN(v) {
							break // a NaN wins, so that it is reported
						}
					}
				}
				ov[p*after+q] = sign * best
				aux[p*after+q] = arg
			}
		}
	}
}

// gather computes out = a[idx...] (or, when back is true, scatters out's
// adjoint into a's), within bk's views (a helper's replicas).
func (in *inst) gather(bk *blk, back bool) {
	a, o := in.in[0], in.out
	idx := in.in[1:]
	var s space
	for _, ax := range o.axes {
		s.dims[s.nd] = ax.n
		s.nd++
	}
	s.st[0] = strides(nil, o, a)
	for k, r := range idx {
		s.st[k+1] = strides(nil, o, r)
	}
	// element strides of a's leading element dims
	var estep [2]int
	var edim [2]int
	for k := range idx {
		step := 1
		for _, d := range a.elem[k+1:] {
			step *= d
		}
		estep[k], edim[k] = step, a.elem[k]
	}
	es := o.esize
	var av, ov []float64
	if back {
		av, ov = a.adj, o.adj
	} else {
		av, ov = bk.val(a), bk.val(o)
	}
	var i1, i2 []float64
	i1 = idx[0].val
	if len(idx) > 1 {
		i2 = idx[1].val
	}
	io := 0
	nops := 1 + len(idx)
	if s.nd == 0 {
		s.nd, s.dims[0] = 1, 1
	}
	s.run(nops, func(off [3]int, n int, st [3]int) {
		ia, j1, j2 := off[0], off[1], off[2]
		for k := 0; k < n; k++ {
			e := ia
			ok := true
			if v := int(i1[j1]) - 1; v >= 0 && v < edim[0] {
				e += v * estep[0]
			} else {
				ok = false
			}
			if i2 != nil {
				if v := int(i2[j2]) - 1; v >= 0 && v < edim[1] {
					e += v * estep[1]
				} else {
					ok = false
				}
			}
			dst := ov[io*es : (io+1)*es]
			switch {
			case back && ok:
				src := av[e : e+es]
				for q, v := range dst {
					src[q] += v
				}
			case !back && ok:
				copy(dst, av[e:e+es])
			case !back:
				clear(dst)
			}
			io++
			ia, j1, j2 = ia+st[0], j1+st[1], j2+st[2]
		}
	})
}

func general(rows, cols int, data []float64) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: data}
}

func (in *inst) dotForward(bk *blk) {
	a, b, o := in.in[0], in.in[1], in.out
	av, bv, ov := in.rowsOf(bk, a), in.rowsOf(bk, b), bk.val(o)
	switch in.mode {
	case dotRowwise:
		d := b.esize
		for t := 0; t < bk.batch(o); t++ {
			ov[t] = ddot(av[t*d:(t+1)*d], bv[t*d:(t+1)*d])
		}
	case dotAB:
		mulNT(ov, av, bv, bk.batch(a), bk.batch(b), a.esize)
	case dotBA:
		mulNT(ov, bv, av, bk.batch(b), bk.batch(a), a.esize)
	case dotMat:
		mulNT(ov, bv, av, bk.batch(b), a.elem[0], a.elem[1])
	case dotSparse:
		in.sparseDot(bk, false, nil)
	default:
		in.dotGeneral(false)
	}
}

// dotGeneral loops over out's batch with a gemv or ddot per entry (or, when
// back is true, accumulates the adjoints).
func (in *inst) dotGeneral(back bool) {
	a, b, o := in.in[0], in.in[1], in.out
	var s space
	for _, ax := range o.axes {
		s.dims[s.nd] = ax.n
		s.nd++
	}
	if s.nd == 0 {
		s.nd, s.dims[0] = 1, 1
	}
	s.st[0], s.st[1] = strides(nil, o, a), strides(nil, o, b)
	d := b.esize
	m := 1
	if len(a.elem) == 2 {
		m = a.elem[0]
	}
	io := 0
	s.run(2, func(off [3]int, n int, st [3]int) {
		ia, ib := off[0], off[1]
		for k := 0; k < n; k++ {
			A := general(m, d, a.val[ia:ia+m*d])
			bv := b.val[ib : ib+d]
			ov := o.val[io*m : (io+1)*m]
			if !back {
				blas64.Gemv(blas.NoTrans, 1, A, vec(bv), 0, vec(ov))
			} else {
				g := o.adj[io*m : (io+1)*m]
				if !a.konst {
					blas64.Ger(1, vec(g), vec(bv), general(m, d, a.adj[ia:ia+m*d]))
				}
				if !b.konst {
					blas64.Gemv(blas.Trans, 1, A, vec(g), 1, vec(b.adj[ib:ib+d]))
				}
			}
			io++
			ia, ib = ia+st[0], ib+st[1]
		}
	})
}

func vec(v []float64) blas64.Vector { return blas64.Vector{N: len(v), Inc: 1, Data: v} }

func ddot(x, y []float64) float64 {
	return blas64.Dot(vec(x), vec(y))
}
