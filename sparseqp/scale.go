package sparseqp

import "math"

// scaling is the equilibration of a program (Ruiz 2001, as OSQP does it):
// the method runs on the scaled program
//
//	P̃ = c·DPD, q̃ = c·Dq, Ã = EAD, [L̃, Ũ] = E[L, U], [LB̃, UB̃] = D⁻¹[LB, UB]
//
// with D, E positive diagonal and c > 0, whose KKT matrix [P̃ Ãᵀ; Ã 0] has
// columns of about unit largest entry, and a point of it maps back by
// x = Dx̃, y = Eỹ/c, z = D⁻¹z̃/c. Every status is decided on the original
// program, at the mapped point.
type scaling struct {
	d, e []float64
	c    float64
	sp   Problem // the scaled program: its P and A share the pattern's slices
	olb  []float64
	oub  []float64
	// the iterate mapped back (ux not yet clipped into its bounds)
	ux, uy, uz []float64
	cn, rn     []float64 // column norms during the equilibration
}

// scaleIters is the number of Ruiz rounds; each factor is kept within
// [1e-4, 1e4] as OSQP's.
const scaleIters = 15

func (sc *scaling) alloc(n, m int, pPat, aPat *CSC) {
	sc.d, sc.e = make([]float64, n), make([]float64, m)
	sc.olb, sc.oub = make([]float64, n), make([]float64, n)
	sc.ux, sc.uy, sc.uz = make([]float64, n), make([]float64, m), make([]float64, n)
	sc.cn, sc.rn = make([]float64, n), make([]float64, m)
	sc.sp = Problem{
		P:  &CSC{Rows: n, Cols: n, ColPtr: pPat.ColPtr, RowIdx: pPat.RowIdx, Val: make([]float64, pPat.Nnz())},
		A:  &CSC{Rows: m, Cols: n, ColPtr: aPat.ColPtr, RowIdx: aPat.RowIdx, Val: make([]float64, aPat.Nnz())},
		Q:  make([]float64, n),
		L:  make([]float64, m),
		U:  make([]float64, m),
		LB: make([]float64, n),
		UB: make([]float64, n),
	}
}

// equilibrate computes the scaling of p (off: the identity) and the scaled
// program, and records p's bounds.
func (sc *scaling) equilibrate(p *Problem, off bool) {
	n, m := len(sc.d), len(sc.e)
	for j := range n {
		sc.d[j] = 1
		sc.olb[j], sc.oub[j] = math.Inf(-1), math.Inf(1)
		if p.LB != nil {
			sc.olb[j] = p.LB[j]
		}
		if p.UB != nil {
			sc.oub[j] = p.UB[j]
		}
	}
	for i := range m {
		sc.e[i] = 1
	}
	sc.c = 1
	var pv, av []float64
	if p.P != nil {
		pv = p.P.Val
	}
	if p.A != nil {
		av = p.A.Val
	}
	P, A := sc.sp.P, sc.sp.A
	if !off {
		for range scaleIters {
			clear(sc.cn)
			clear(sc.rn)
			for j := range n {
				for k := P.ColPtr[j]; k < P.ColPtr[j+1]; k++ {
					i := P.RowIdx[k]
					if i > j {
						continue
					}
					v := math.Abs(pv[k]) * sc.d[i] * sc.d[j]
					sc.cn[j] = math.Max(sc.cn[j], v)
					sc.cn[i] = math.Max(sc.cn[i], v)
				}
				for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
					i := A.RowIdx[k]
					v := math.Abs(av[k]) * sc.e[i] * sc.d[j]
					sc.cn[j] = math.Max(sc.cn[j], v)
					sc.rn[i] = math.Max(sc.rn[i], v)
				}
			}
			for j, v := range sc.cn {
				sc.d[j] *= ruizFactor(v)
			}
			for i, v := range sc.rn {
				sc.e[i] *= ruizFactor(v)
			}
		}
		// the cost: the mean column norm of DPD and ‖Dq‖∞ about 1
		clear(sc.cn)
		for j := range n {
			for k := P.ColPtr[j]; k < P.ColPtr[j+1]; k++ {
				if i := P.RowIdx[k]; i <= j {
					v := math.Abs(pv[k]) * sc.d[i] * sc.d[j]
					sc.cn[j] = math.Max(sc.cn[j], v)
					sc.cn[i] = math.Max(sc.cn[i], v)
				}
			}
		}
		mean, qn := 0.0, 0.0
		for j := range n {
			mean += sc.cn[j] / float64(n)
			qn = math.Max(qn, math.Abs(p.Q[j]*sc.d[j]))
		}
		if s := math.Max(mean, qn); s > 0 {
			sc.c = math.Min(math.Max(1/s, 1e-4), 1e4)
		}
	}
	for j := range n {
		for k := P.ColPtr[j]; k < P.ColPtr[j+1]; k++ {
			P.Val[k] = sc.c * pv[k] * sc.d[P.RowIdx[k]] * sc.d[j]
		}
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			A.Val[k] = av[k] * sc.e[A.RowIdx[k]] * sc.d[j]
		}
		sc.sp.Q[j] = sc.c * p.Q[j] * sc.d[j]
		sc.sp.LB[j], sc.sp.UB[j] = sc.olb[j]/sc.d[j], sc.oub[j]/sc.d[j]
	}
	for i := range m {
		sc.sp.L[i], sc.sp.U[i] = p.L[i]*sc.e[i], p.U[i]*sc.e[i]
	}
}

// ruizFactor is 1/sqrt(v) within [1e-4, 1e4], 1 for an empty column.
func ruizFactor(v float64) float64 {
	if !(v > 0) {
		return 1
	}
	return math.Min(math.Max(1/math.Sqrt(v), 1e-4), 1e4)
}

// unscale maps a point of the scaled program back into ux, uy, uz.
func (sc *scaling) unscale(x, y, z []float64) {
	for j := range x {
		sc.ux[j] = sc.d[j] * x[j]
		sc.uz[j] = z[j] / (sc.c * sc.d[j])
	}
	for i := range y {
		sc.uy[i] = sc.e[i] * y[i] / sc.c
	}
}
