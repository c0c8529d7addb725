package sparseqp

import "math"

// polish replaces an interior point's answer by the exact solution of the
// equality-constrained program on its active set, when that is better.
// The interior point leaves every complementarity product near the
// tolerance, so x is off by about the square root of the gap over P's
// curvature; the active set's KKT system leaves it off by rounding. The
// active set is read from the iterate: a side of a row (a variable bound)
// whose multiplier exceeds its slack, and every equality row. The system
//
//	[P_FF  A_RFᵀ] [x_F]   [−q_F − P_FB x_B]
//	[A_RF  0    ] [y_R] = [b_R − A_RB x_B]
//
// (F the free variables, B those at a bound x_B, R the active rows at
// their bound b_R; the other rows' y is 0) is the KKT matrix of the
// iterations with entries zeroed and diagonals changed, factored with the
// same order and regularisation and refined against the unregularised
// system; z_B is then −(Px + q + Aᵀy)_B. Multipliers of the wrong sign are
// set to 0 and the candidate is measured like any point: it is returned
// when it is Solved and its worst measure, relative to its tolerance, is
// no larger than the interior point's. The system is the scaled program
// sp's; the candidate is measured on p.
func (sv *Solver) polish(p, sp *Problem, ipm measures) (measures, bool) {
	st := &sv.state
	n, m := sv.n, sv.m
	rhs, sol := sv.rhs, sv.sol
	// side[j] is −1 (x_j at its lower bound), +1 (upper) or 0 (free);
	// rside[i] likewise for row i, 2 for an equality row
	x := st.px2
	for j := range n {
		st.side[j] = 0
		lowerAct := st.hasLB[j] && st.zl[j] > st.tl[j]
		upperAct := st.hasUB[j] && st.zu[j] > st.tu[j]
		if lowerAct && upperAct {
			lowerAct = st.zl[j]*st.tu[j] >= st.zu[j]*st.tl[j]
			upperAct = !lowerAct
		}
		switch {
		case lowerAct:
			st.side[j], x[j] = -1, st.lb[j]
		case upperAct:
			st.side[j], x[j] = 1, st.ub[j]
		}
		rhs[j] = -sp.Q[j]
	}
	for i := range m {
		kd := st.kind[i]
		st.rside[i] = 0
		switch {
		case kd == rowEqual:
			st.rside[i], rhs[n+i] = 2, sp.L[i]
		case kd == rowFree:
		default:
			lowerAct := kd.hasL() && st.yl[i] > st.sl[i]
			upperAct := kd.hasU() && st.yu[i] > st.su[i]
			if lowerAct && upperAct {
				lowerAct = st.yl[i]*st.su[i] >= st.yu[i]*st.sl[i]
				upperAct = !lowerAct
			}
			switch {
			case lowerAct:
				st.rside[i], rhs[n+i] = -1, sp.L[i]
			case upperAct:
				st.rside[i], rhs[n+i] = 1, sp.U[i]
			}
		}
	}
	s := sv.set
	best, found := ipm, false
	for round := 0; round < polishRounds; round++ {
		cand, ok := sv.polishSolve(p, sp, rhs, sol)
		if !ok {
			break
		}
		if cand.solved(s) {
			if cand.worst(s) <= ipm.worst(s) {
				best, found = cand, true
			}
			break
		}
		if !sv.polishAdjust(p) {
			break
		}
		// the right-hand side for the new sets
		for j := range n {
			rhs[j] = -sp.Q[j]
			if st.side[j] == -1 {
				x[j] = st.lb[j]
			} else if st.side[j] == 1 {
				x[j] = st.ub[j]
			}
		}
		for i := range m {
			switch st.rside[i] {
			case 2, -1:
				rhs[n+i] = sp.L[i]
			case 1:
				rhs[n+i] = sp.U[i]
			}
		}
	}
	return best, found
}

// polishRounds bounds the rounds of the polish: the first on the interior
// point's active set, the others on that set corrected by the rows and
// bounds the previous round's point violated and the multipliers it gave
// the wrong sign.
const polishRounds = 4

// polishSolve solves the active set's system for the sets in side, rside
// (rhs holding −q and the active rows' bounds, x the fixed variables'
// values) of the scaled program sp, and measures the point (left in px2,
// py, pz) on p.
func (sv *Solver) polishSolve(p, sp *Problem, rhs, sol []float64) (measures, bool) {
	st := &sv.state
	n, m := sv.n, sv.m
	k := sv.kkt
	x, y, z := st.px2, st.py, st.pz
	copy(k.Val, sv.base)
	fixed := func(r int) bool { return r < n && st.side[r] != 0 }
	for c := range n + m {
		for q := k.ColPtr[c]; q < k.ColPtr[c+1]; q++ {
			r := k.RowIdx[q]
			if r == c {
				continue
			}
			v := k.Val[q]
			if c >= n && st.rside[c-n] == 0 {
				k.Val[q] = 0 // an inactive row: decoupled
				continue
			}
			switch {
			case fixed(r) && fixed(c):
				k.Val[q] = 0
			case fixed(r):
				rhs[c] -= v * x[r]
				k.Val[q] = 0
			case fixed(c):
				rhs[r] -= v * x[c]
				k.Val[q] = 0
			}
		}
	}
	for j := range n {
		if st.side[j] != 0 {
			k.Val[sv.diag[j]] = 1
			rhs[j] = x[j]
		}
	}
	for i := range m {
		if st.rside[i] == 0 {
			k.Val[sv.diag[n+i]] = -1
			rhs[n+i] = 0
		} else {
			k.Val[sv.diag[n+i]] = 0
		}
	}
	if _, err := sv.ldl.Factor(k, sv.sign, sv.set.Reg); err != nil {
		return measures{}, false
	}
	// the point is judged by its measures, not by this system's residual
	if res := sv.ldl.SolveRefined(k, sol, rhs, 4*sv.set.RefineSteps, 0); math.IsNaN(res) || math.IsInf(res, 0) {
		return measures{}, false
	}
	for j := range n {
		if st.side[j] == 0 {
			x[j] = sol[j]
		}
	}
	for i := range m {
		y[i] = 0
		switch st.rside[i] {
		case 2:
			y[i] = sol[n+i]
		case -1:
			y[i] = math.Min(sol[n+i], 0)
		case 1:
			y[i] = math.Max(sol[n+i], 0)
		}
	}
	// z from stationarity on the fixed variables
	symMulVec(sp.P, st.pxc, x)
	mulTransVec(sp.A, st.aty, y)
	for j := range n {
		z[j] = 0
		g := -(st.pxc[j] + sp.Q[j] + st.aty[j])
		switch st.side[j] {
		case -1:
			z[j] = math.Min(g, 0)
		case 1:
			z[j] = math.Max(g, 0)
		}
	}
	return sv.measure(p, x, y, z), true
}

// polishAdjust corrects the active sets after a round whose point was not
// Solved, judged on p at the point measured (sc.ux, sc.uy): a row or
// variable bound the point violates joins the set, an active side whose
// multiplier came out of the wrong sign (set to 0 by polishSolve: its
// solved value is in sol) leaves it. It reports whether anything changed.
func (sv *Solver) polishAdjust(p *Problem) bool {
	st := &sv.state
	sc := &sv.sc
	n, m := sv.n, sv.m
	changed := false
	for i := range m {
		a := st.axc[i]
		switch st.rside[i] {
		case 0:
			if st.kind[i] == rowFree {
				continue
			}
			if tolP := st.rtol[i]; a < p.L[i]-tolP {
				st.rside[i], changed = -1, true
			} else if a > p.U[i]+tolP {
				st.rside[i], changed = 1, true
			}
		case -1, 1:
			if v := sv.sol[n+i] * sc.e[i] / sc.c; float64(st.rside[i])*v < -sv.set.AbsTol {
				st.rside[i], changed = 0, true
			}
		}
	}
	symMulVec(p.P, st.pxc, sc.ux)
	mulTransVec(p.A, st.aty, sc.uy)
	for j := range n {
		switch st.side[j] {
		case 0:
			if tolP := sv.set.AbsTol + sv.set.RelTol*math.Abs(sc.ux[j]); sc.ux[j] < sc.olb[j]-tolP {
				st.side[j], changed = -1, true
			} else if sc.ux[j] > sc.oub[j]+tolP {
				st.side[j], changed = 1, true
			}
		default:
			g := -(st.pxc[j] + p.Q[j] + st.aty[j])
			if float64(st.side[j])*g < -st.ctol[j] {
				st.side[j], changed = 0, true
			}
		}
	}
	return changed
}
