package sparseqp

import "math"

// The ADMM of OSQP (Stellato et al. 2020) on the scaled program, with the
// variables' bounds as constraints x = w, w in [LB, UB], beside the rows'
// Ax = v, v in [L, U]. Eliminating w's rows from OSQP's linear system
// leaves
//
//	[P + σI + diag(ρB)  Aᵀ     ] [x̃]   [σx − q + ρB·wB − yB]
//	[A                  −ρA⁻¹  ] [ν] = [v − ρA⁻¹ yA        ]
//
// with ρB_j > 0 only for a bounded variable: the pattern of the interior
// point's KKT system, so the same order and symbolic factor serve both.
// ρ changes (and the matrix is refactored) only when the primal and dual
// residuals drift apart by more than admmRhoRatio.

const (
	admmSigma    = 1e-6
	admmAlpha    = 1.6
	admmRho      = 0.1
	admmRhoEq    = 1e3 // an equality row's ρ is this times ρ
	admmRhoMin   = 1e-6
	admmRhoMax   = 1e6
	admmRhoRatio = 5
	admmCheck    = 10 // iterations between measurements
)

// admmState holds ADMM's iterates in the scaled program's units.
type admmState struct {
	x, xt, xPrev []float64
	v, y, yPrev  []float64 // rows: Ax = v, multiplier y
	w, yB        []float64 // variables: x = w in the box, multiplier yB
	rho          float64
	rhoA, rhoB   []float64
	ax, px, aty  []float64
	// the last result in the program's units, for a warm start
	lastX, lastY, lastZ []float64
	haveLast            bool
}

func (a *admmState) alloc(n, m int) {
	vn := func() []float64 { return make([]float64, n) }
	vm := func() []float64 { return make([]float64, m) }
	a.x, a.xt, a.xPrev = vn(), vn(), vn()
	a.v, a.y, a.yPrev = vm(), vm(), vm()
	a.w, a.yB = vn(), vn()
	a.rhoA, a.rhoB = vm(), vn()
	a.ax, a.px, a.aty = vm(), vn(), vn()
	a.lastX, a.lastY, a.lastZ = vn(), vm(), vn()
}

// admm runs OSQP's method on the scaled program sp, measuring on p.
func (sv *Solver) admm(p, sp *Problem) *Result {
	st := &sv.state
	sc := &sv.sc
	a := &sv.admmSt
	n, m, s := sv.n, sv.m, sv.set
	sv.classify(sp)
	// the start: the last result mapped into the scaled units, or 0
	clear(a.x)
	clear(a.y)
	clear(a.yB)
	if s.WarmStart && a.haveLast {
		for j := range n {
			a.x[j] = a.lastX[j] / sc.d[j]
			a.yB[j] = a.lastZ[j] * sc.c * sc.d[j]
		}
		for i := range m {
			a.y[i] = a.lastY[i] * sc.c / sc.e[i]
		}
	}
	for j := range n {
		a.w[j] = math.Min(math.Max(a.x[j], st.lb[j]), st.ub[j])
		if !st.hasLB[j] && !st.hasUB[j] {
			a.yB[j] = 0
		}
	}
	mulVec(sp.A, a.ax, a.x)
	for i := range m {
		a.v[i] = math.Min(math.Max(a.ax[i], sp.L[i]), sp.U[i])
		if st.kind[i] == rowFree {
			a.y[i] = 0
		}
	}
	a.rho = admmRho
	sv.admmFactor()
	res := &Result{}
	var last measures
	best, bestWorst, haveBest := measures{}, math.Inf(1), false
	polishedAt := math.Inf(1)
	for it := 1; ; it++ {
		copy(a.xPrev, a.x)
		copy(a.yPrev, a.y)
		sv.admmStep(sp)
		if it%admmCheck != 0 && it < s.MaxADMMIter {
			continue
		}
		res.Iterations = it
		last = sv.measure(p, a.x, a.y, a.yB)
		if last.solved(s) || !s.NoPolish && last.worst(s) <= polishTrigger && last.worst(s) <= polishedAt/10 {
			if !s.NoPolish {
				polishedAt = last.worst(s)
				sv.admmToSlacks(sp)
				if pm, ok := sv.polish(p, sp, last); ok {
					res.Polished = true
					return sv.remember(sv.result(res, Solved, pm, st.xc, sc.uy, sc.uz))
				}
				last = sv.measure(p, a.x, a.y, a.yB)
				sv.admmFactor() // the polish factored its own system
			}
			if last.solved(s) {
				return sv.remember(sv.result(res, Solved, last, st.xc, sc.uy, sc.uz))
			}
		}
		if w := last.worst(s); w < bestWorst || !haveBest {
			haveBest = true
			bestWorst, best = w, last
			copy(st.bx, st.xc)
			copy(st.by, sc.uy)
			copy(st.bz, sc.uz)
		}
		if !finiteAll(a.x, a.y, a.yB) {
			return sv.result(res, NumericalError, best, st.bx, st.by, st.bz)
		}
		for i := range m {
			st.dy[i] = a.y[i] - a.yPrev[i]
		}
		if c, ok := sv.primalCertificate(p, st.dy); ok {
			return sv.infeasible(res, PrimalInfeasible, c, last)
		}
		for j := range n {
			st.dx[j] = a.x[j] - a.xPrev[j]
		}
		if c, ok := sv.dualCertificate(p, st.dx); ok {
			copy(sc.uy, st.by)
			copy(sc.uz, st.bz)
			return sv.infeasible(res, DualInfeasible, c, last)
		}
		if it >= s.MaxADMMIter || s.Halt != nil && s.Halt() {
			return sv.result(res, IterationLimit, best, st.bx, st.by, st.bz)
		}
		sv.admmAdaptRho(sp)
	}
}

// remember keeps a Solved result for the next warm start.
func (sv *Solver) remember(r *Result) *Result {
	a := &sv.admmSt
	copy(a.lastX, r.X)
	copy(a.lastY, r.Y)
	copy(a.lastZ, r.Z)
	a.haveLast = true
	return r
}

// admmFactor sets each row's and bounded variable's ρ from a.rho and
// factors the system.
func (sv *Solver) admmFactor() {
	st := &sv.state
	a := &sv.admmSt
	k := sv.kkt
	copy(k.Val, sv.base)
	for j := range sv.n {
		a.rhoB[j] = 0
		if st.hasLB[j] || st.hasUB[j] {
			a.rhoB[j] = a.rho
			if st.hasLB[j] && st.hasUB[j] && st.lb[j] == st.ub[j] {
				a.rhoB[j] = a.rho * admmRhoEq
			}
		}
		k.Val[sv.diag[j]] += admmSigma + a.rhoB[j]
	}
	for i := range sv.m {
		switch st.kind[i] {
		case rowFree:
			a.rhoA[i] = 0
			k.Val[sv.diag[sv.n+i]] = -1
		case rowEqual:
			a.rhoA[i] = a.rho * admmRhoEq
			k.Val[sv.diag[sv.n+i]] = -1 / a.rhoA[i]
		default:
			a.rhoA[i] = a.rho
			k.Val[sv.diag[sv.n+i]] = -1 / a.rhoA[i]
		}
	}
	// quasidefinite by construction: no regularisation beyond σ
	sv.ldl.Factor(k, sv.sign, 0)
}

// admmStep is one iteration of OSQP's method.
func (sv *Solver) admmStep(sp *Problem) {
	st := &sv.state
	a := &sv.admmSt
	n := sv.n
	rhs, sol := sv.rhs, sv.sol
	for j := range n {
		rhs[j] = admmSigma*a.x[j] - sp.Q[j]
		if a.rhoB[j] > 0 {
			rhs[j] += a.rhoB[j]*a.w[j] - a.yB[j]
		}
	}
	for i := range sv.m {
		if a.rhoA[i] == 0 {
			rhs[n+i] = 0
			continue
		}
		rhs[n+i] = a.v[i] - a.y[i]/a.rhoA[i]
	}
	copy(sol, rhs)
	sv.ldl.Solve(sol)
	for j := range n {
		xt := sol[j]
		x := admmAlpha*xt + (1-admmAlpha)*a.x[j]
		if a.rhoB[j] > 0 {
			// w̃ = x̃
			r := admmAlpha*xt + (1-admmAlpha)*a.w[j]
			w := math.Min(math.Max(r+a.yB[j]/a.rhoB[j], st.lb[j]), st.ub[j])
			a.yB[j] += a.rhoB[j] * (r - w)
			a.w[j] = w
		}
		a.x[j] = x
	}
	for i := range sv.m {
		if a.rhoA[i] == 0 {
			continue
		}
		vt := a.v[i] + (sol[n+i]-a.y[i])/a.rhoA[i]
		r := admmAlpha*vt + (1-admmAlpha)*a.v[i]
		v := math.Min(math.Max(r+a.y[i]/a.rhoA[i], sp.L[i]), sp.U[i])
		a.y[i] += a.rhoA[i] * (r - v)
		a.v[i] = v
	}
}

// admmAdaptRho rebalances ρ by OSQP's rule, sqrt of the ratio of the
// relative primal and dual residuals, refactoring when it changes by more
// than admmRhoRatio.
func (sv *Solver) admmAdaptRho(sp *Problem) {
	a := &sv.admmSt
	n := sv.n
	mulVec(sp.A, a.ax, a.x)
	symMulVec(sp.P, a.px, a.x)
	mulTransVec(sp.A, a.aty, a.y)
	rp, pScale := 0.0, 0.0
	for i := range sv.m {
		if a.rhoA[i] > 0 {
			rp = math.Max(rp, math.Abs(a.ax[i]-a.v[i]))
			pScale = math.Max(pScale, math.Max(math.Abs(a.ax[i]), math.Abs(a.v[i])))
		}
	}
	for j := range n {
		if a.rhoB[j] > 0 {
			rp = math.Max(rp, math.Abs(a.x[j]-a.w[j]))
			pScale = math.Max(pScale, math.Max(math.Abs(a.x[j]), math.Abs(a.w[j])))
		}
	}
	rd, dScale := 0.0, 0.0
	for j := range n {
		rd = math.Max(rd, math.Abs(a.px[j]+sp.Q[j]+a.aty[j]+a.yB[j]))
		dScale = math.Max(dScale, math.Max(math.Max(math.Abs(a.px[j]), math.Abs(sp.Q[j])), math.Max(math.Abs(a.aty[j]), math.Abs(a.yB[j]))))
	}
	if !(pScale > 0 && dScale > 0 && rd > 0 && rp > 0) {
		return
	}
	rho := a.rho * math.Sqrt((rp/pScale)/(rd/dScale))
	rho = math.Min(math.Max(rho, admmRhoMin), admmRhoMax)
	if rho > a.rho*admmRhoRatio || rho < a.rho/admmRhoRatio {
		a.rho = rho
		sv.admmFactor()
	}
}

// admmToSlacks writes ADMM's iterate into the interior point's slack and
// multiplier arrays in the form the polish reads (a side is active when
// its multiplier exceeds its slack).
func (sv *Solver) admmToSlacks(sp *Problem) {
	st := &sv.state
	a := &sv.admmSt
	for i := range sv.m {
		st.sl[i], st.su[i] = math.Inf(1), math.Inf(1)
		st.yl[i], st.yu[i] = math.Max(-a.y[i], 0), math.Max(a.y[i], 0)
		if k := st.kind[i]; k.hasL() {
			st.sl[i] = a.v[i] - sp.L[i]
		}
		if k := st.kind[i]; k.hasU() {
			st.su[i] = sp.U[i] - a.v[i]
		}
	}
	for j := range sv.n {
		st.tl[j], st.tu[j] = math.Inf(1), math.Inf(1)
		st.zl[j], st.zu[j] = math.Max(-a.yB[j], 0), math.Max(a.yB[j], 0)
		if st.hasLB[j] {
			st.tl[j] = a.w[j] - st.lb[j]
		}
		if st.hasUB[j] {
			st.tu[j] = st.ub[j] - a.w[j]
		}
	}
}
