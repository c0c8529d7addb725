package autodiff

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// backward adds the instruction's contribution to its inputs' adjoints,
// from its output's adjoint and what the forward pass recorded, within
// block bk (nil: all of it). part, when not nil, is where a dot product
// puts the block's partial adjoint of its operand without bk's axis (see
// Program.combineBackward).
func (in *inst) backward(bk *blk, part []float64) {
	o := in.out
	switch in.op {
	case opNeg, opAdd, opSub, opMul, opDiv, opMax2, opMin2, opExpand, opKeep:
		in.binaryBack(bk)
	case opUnary, opPow, opSigmoidE:
		a := in.in[0] // not an opSigmoidE's exponential: its derivative is in aux
		if a.konst {
			return
		}
		n := bk.size(o)
		g, d, ga := bk.adj(o)[:n], bk.aux(o)[:n], bk.adj(a)[:n]
		for k, v := range g {
			if v != 0 {
				ga[k] += v * d[k]
			}
		}
	case opReduce:
		a := in.in[0]
		if a.konst {
			return
		}
		es := a.esize
		og, av, aa := bk.adj(o), bk.val(a), bk.adj(a)
		for t := 0; t < bk.batch(o); t++ {
			v := og[t]
			if v == 0 {
				continue
			}
			in.fn.Grad(av[t*es:(t+1)*es], in.scratch)
			ga := aa[t*es : (t+1)*es]
			for k, s := range in.scratch {
				ga[k] += v * s
			}
		}
	case opDot:
		in.dotBack(bk, part)
	case opGather:
		if !in.in[0].konst {
			in.gather(nil, true)
		}
	case opAxis:
		in.axisBack(bk)
	}
}

func (in *inst) binaryBack(bk *blk) {
	o := in.out
	a := in.in[0]
	b := a
	if len(in.in) > 1 {
		b = in.in[1]
	}
	op := in.op
	go1 := bk.adj(o)
	for k, r := range in.in {
		if r.konst || op == opKeep && k == 1 { // a condition has no derivative
			continue
		}
		other := b
		if k == 1 {
			other = a
		}
		s := newSpace(bk, o, r, other, o)
		ga, ov, ox, aux, rv := bk.adj(r), bk.val(other), bk.val(o), bk.aux(o), bk.val(r)
		first := k == 0
		s.run(3, func(off [3]int, n int, st [3]int) {
			ir, iv, io := off[0], off[1], off[2]
			sr, sv, so := st[0], st[1], st[2]
			switch {
			case op == opAdd || op == opExpand || op == opSub && first:
				for j := 0; j < n; j++ {
					ga[ir] += go1[io]
					ir, io = ir+sr, io+so
				}
			case op == opNeg || op == opSub:
				for j := 0; j < n; j++ {
					ga[ir] -= go1[io]
					ir, io = ir+sr, io+so
				}
			case op == opMul:
				for j := 0; j < n; j++ {
					ga[ir] += go1[io] * ov[iv]
					ir, iv, io = ir+sr, iv+sv, io+so
				}
			case op == opDiv && first: // d(a/b)/da = 1/b
				for j := 0; j < n; j++ {
					ga[ir] += go1[io] / ov[iv]
					ir, iv, io = ir+sr, iv+sv, io+so
				}
			case op == opDiv: // d(a/b)/db = -(a/b)/b
				for j := 0; j < n; j++ {
					if g := go1[io]; g != 0 {
						ga[ir] -= g * ox[io] / rv[ir]
					}
					ir, io = ir+sr, io+so
				}
			case op == opKeep: // the adjoint passes where the condition holds
				for j := 0; j < n; j++ {
					if ov[iv] != 0 {
						ga[ir] += go1[io]
					}
					ir, iv, io = ir+sr, iv+sv, io+so
				}
			case op == opMax2 || op == opMin2:
				want := 0.0
				if !first {
					want = 1
				}
				for j := 0; j < n; j++ {
					if aux[io] == want {
						ga[ir] += go1[io]
					}
					ir, io = ir+sr, io+so
				}
			}
		})
	}
}

func (in *inst) axisBack(bk *blk) {
	a, o := in.in[0], in.out
	if a.konst {
		return
	}
	before, n, after := axisSplit(bk, a, in.ax)
	ga, g := bk.adj(a), bk.adj(o)
	es := a.esize
	var mv []float64
	if in.mask != nil {
		mv = bk.val(in.mask)
	}
	switch in.axOp {
	case "sum", "mean":
		scale := 1.0
		if in.axOp == "mean" {
			scale = 1 / float64(in.ax.n)
		}
		if mv == nil && after == 1 { // the innermost axis: one adjoint per run
			for p := 0; p < before; p++ {
				v := scale * g[p]
				row := ga[p*n : (p+1)*n]
				for s := range row {
					row[s] += v
				}
			}
			return
		}
		for p := 0; p < before; p++ {
			grow := g[p*after : (p+1)*after]
			for s := 0; s < n; s++ {
				row := ga[(p*n+s)*after : (p*n+s+1)*after]
				for q, v := range grow {
					if mv != nil && mv[((p*n+s)*after+q)/es] == 0 {
						continue
					}
					row[q] += scale * v
				}
			}
		}
	default:
		aux := bk.aux(o)
		for p := 0; p < before; p++ {
			for q := 0; q < after; q++ {
				s := int(aux[p*after+q])
				if s >= 0 {
					ga[(p*n+s)*after+q] += g[p*after+q]
				}
			}
		}
	}
}

func (in *inst) dotBack(bk *blk, part []float64) {
	if in.mode == dotSparse {
		in.sparseDot(bk, true, part)
		return
	}
	a, b, o := in.in[0], in.in[1], in.out
	av, bv, og := in.rowsOf(bk, a), in.rowsOf(bk, b), bk.adj(o)
	aa, ba := adjOf(bk, a, part), adjOf(bk, b, part)
	switch in.mode {
	case dotRowwise:
		d := b.esize
		for t := 0; t < bk.batch(o); t++ {
			g := og[t]
			if aa != nil {
				blas64.Axpy(g, vec(bv[t*d:(t+1)*d]), vec(aa[t*d:(t+1)*d]))
			}
			if ba != nil {
				blas64.Axpy(g, vec(av[t*d:(t+1)*d]), vec(ba[t*d:(t+1)*d]))
			}
		}
	case dotAB:
		mulNTBack(og, av, bv, aa, ba, bk.batch(a), bk.batch(b), a.esize)
	case dotBA:
		mulNTBack(og, bv, av, ba, aa, bk.batch(b), bk.batch(a), a.esize)
	case dotMat:
		mulNTBack(og, bv, av, ba, aa, bk.batch(b), a.elem[0], a.elem[1])
	default:
		in.dotGeneral(true)
	}
}

// adjOf returns the adjoint of r within block bk, or nil for a constant.
// When part is not nil and r does not vary along bk's axis, the block's
// contribution goes to part, cleared first.
func adjOf(bk *blk, r *reg, part []float64) []float64 {
	if r.konst {
		return nil
	}
	if part != nil && (len(r.axes) == 0 || r.axes[0] != bk.ax) {
		p := part[:r.size()]
		clear(p)
		return p
	}
	return bk.adj(r)
}

// mulNT sets C (n×k) = A (n×d) B^T (k×d), all row-major, with one BLAS
// matrix-vector product per row or column of C, whichever are fewer. Unlike
// Dgemm it never starts goroutines, so it does not allocate.
func mulNT(c, a, b []float64, n, k, d int) {
	A, B := general(n, d, a), general(k, d, b)
	if k <= n {
		for l := 0; l < k; l++ {
			blas64.Gemv(blas.NoTrans, 1, A, vec(b[l*d:(l+1)*d]), 0, blas64.Vector{N: n, Inc: k, Data: c[l:]})
		}
		return
	}
	for i := 0; i < n; i++ {
		blas64.Gemv(blas.NoTrans, 1, B, vec(a[i*d:(i+1)*d]), 0, vec(c[i*k:(i+1)*k]))
	}
}

// mulNTBack is the reverse of mulNT: given G = dC (n×k) it adds G B to adjA
// (n×d) and G^T A to adjB (k×d); a nil adjoint is skipped.
func mulNTBack(g, a, b, adjA, adjB []float64, n, k, d int) {
	A, B := general(n, d, a), general(k, d, b)
	if k <= n {
		for l := 0; l < k; l++ {
			gl := blas64.Vector{N: n, Inc: k, Data: g[l:]}
			if adjB != nil {
				blas64.Gemv(blas.Trans, 1, A, gl, 1, vec(adjB[l*d:(l+1)*d]))
			}
			if adjA != nil {
				blas64.Ger(1, gl, vec(b[l*d:(l+1)*d]), general(n, d, adjA))
			}
		}
		return
	}
	for i := 0; i < n; i++ {
		gi := vec(g[i*k : (i+1)*k])
		if adjA != nil {
			blas64.Gemv(blas.Trans, 1, B, gi, 1, vec(adjA[i*d:(i+1)*d]))
		}
		if adjB != nil {
			blas64.Ger(1, gi, vec(a[i*d:(i+1)*d]), general(k, d, adjB))
		}
	}
}
