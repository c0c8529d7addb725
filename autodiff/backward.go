package autodiff

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// backward adds the instruction's contribution to its inputs' adjoints,
// from its output's adjoint and what the forward pass recorded.
func (in *inst) backward() {
	o := in.out
	switch in.op {
	case opNeg, opAdd, opSub, opMul, opDiv, opMax2, opMin2, opExpand:
		in.binaryBack()
	case opUnary, opPow:
		a := in.in[0]
		if a.konst {
			return
		}
		n := o.size()
		g, d, ga := o.adj[:n], o.aux[:n], a.adj[:n]
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
		for t := 0; t < o.batch(); t++ {
			v := o.adj[t]
			if v == 0 {
				continue
			}
			in.fn.Grad(a.val[t*es:(t+1)*es], in.scratch)
			ga := a.adj[t*es : (t+1)*es]
			for k, s := range in.scratch {
				ga[k] += v * s
			}
		}
	case opDot:
		in.dotBack()
	case opGather:
		if !in.in[0].konst {
			in.gather(true)
		}
	case opAxis:
		in.axisBack()
	}
}

func (in *inst) binaryBack() {
	o := in.out
	a := in.in[0]
	b := a
	if len(in.in) > 1 {
		b = in.in[1]
	}
	op := in.op
	go1 := o.adj
	for k, r := range in.in {
		if r.konst {
			continue
		}
		other := b
		if k == 1 {
			other = a
		}
		s := newSpace(o, r, other, o)
		ga, ov, ox, aux, rv := r.adj, other.val, o.val, o.aux, r.val
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

func (in *inst) axisBack() {
	a, o := in.in[0], in.out
	if a.konst {
		return
	}
	before, n, after := axisSplit(a, in.ax)
	ga, g := a.adj, o.adj
	es := a.esize
	var mv []float64
	if in.mask != nil {
		mv = in.mask.val
	}
	switch in.axOp {
	case "sum", "mean":
		scale := 1.0
		if in.axOp == "mean" {
			scale = 1 / float64(n)
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
		for p := 0; p < before; p++ {
			for q := 0; q < after; q++ {
				s := int(o.aux[p*after+q])
				if s >= 0 {
					ga[(p*n+s)*after+q] += g[p*after+q]
				}
			}
		}
	}
}

func (in *inst) dotBack() {
	a, b, o := in.in[0], in.in[1], in.out
	switch in.mode {
	case dotRowwise:
		d := b.esize
		for t := 0; t < o.batch(); t++ {
			g := o.adj[t]
			if !a.konst {
				blas64.Axpy(g, vec(b.val[t*d:(t+1)*d]), vec(a.adj[t*d:(t+1)*d]))
			}
			if !b.konst {
				blas64.Axpy(g, vec(a.val[t*d:(t+1)*d]), vec(b.adj[t*d:(t+1)*d]))
			}
		}
	case dotAB:
		mulNTBack(o.adj, a.val, b.val, adjOf(a), adjOf(b), a.batch(), b.batch(), a.esize)
	case dotBA:
		mulNTBack(o.adj, b.val, a.val, adjOf(b), adjOf(a), b.batch(), a.batch(), a.esize)
	case dotMat:
		mulNTBack(o.adj, b.val, a.val, adjOf(b), adjOf(a), b.batch(), a.elem[0], a.elem[1])
	default:
		in.dotGeneral(true)
	}
}

// adjOf returns r's adjoint, or nil for a constant.
func adjOf(r *reg) []float64 {
	if r.konst {
		return nil
	}
	return r.adj
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
