package sparseqp

import (
	"math"
)

// The interior-point method works on the program with slacks
//
//	Ax − sl = L  (rows with L finite),    Ax + su = U  (rows with U finite),
//	x − tl = LB  (LB finite),             x + tu = UB  (UB finite),
//	Ax = L       (equality rows, L = U),
//
// every slack >= 0 with its multiplier >= 0 (yl, yu, zl, zu), and
// y = yu − yl, z = zu − zl; an equality row's y is free and a free row's y
// is 0. Stationarity is Px + q + Aᵀy + z = 0. Eliminating the slacks and
// the bounds' multipliers from the Newton equations of these conditions
// with complementarity targets leaves the quasidefinite system
//
//	[P + Wx  Aᵀ    ] [Δx]   [−rd − gx]
//	[A       −Wy⁻¹ ] [Δy] = [−Wy⁻¹ gy]
//
// with Wx = zl/tl + zu/tu and Wy = yl/sl + yu/su (an equality row has
// Wy⁻¹ = 0, regularised; a free row is decoupled: its A entries are zeroed
// and its diagonal is −1), factored once per iteration and solved twice,
// for Mehrotra's predictor and corrector.

// refineTol is the relative residual at which refinement of a KKT solve
// stops.
const refineTol = 1e-14

// polishTrigger: the polish is tried before the tolerances are met once
// the iterate's worst measure is within this factor of its tolerance, and
// again each time it has fallen tenfold.
const polishTrigger = 1e3

type rowKind uint8

const (
	rowFree rowKind = iota
	rowLower
	rowUpper
	rowRange
	rowEqual
)

func (k rowKind) hasL() bool { return k == rowLower || k == rowRange }
func (k rowKind) hasU() bool { return k == rowUpper || k == rowRange }

// ipmState holds the iterates and work vectors, sized once per Solver.
type ipmState struct {
	kind           []rowKind
	hasLB, hasUB   []bool
	lb, ub         []float64
	x, dx          []float64
	tl, zl, tu, zu []float64
	dtl, dzl       []float64
	dtu, dzu       []float64
	rtl, rtu       []float64
	ctl, ctu       []float64
	atl, azl       []float64 // the predictor's steps, for the corrector
	atu, azu       []float64
	rd, px, aty    []float64
	wx             []float64
	z              []float64

	y, dy          []float64
	sl, yl, su, yu []float64
	dsl, dyl       []float64
	dsu, dyu       []float64
	rl, ru         []float64
	cl, cu         []float64
	asl, ayl       []float64
	asu, ayu       []float64
	ax, adx        []float64
	wy             []float64

	// the returned point and its measures
	xc, axc, pxc []float64
	rtol, ctol   []float64 // the tolerance of each row and variable
	// certificates
	cy, cr     []float64
	cz, cw, cd []float64
	// polish
	px2, pz []float64
	py      []float64
	// the best iterate (least worst measure), returned at a limit
	bx, by, bz []float64
	side       []int8
	rside      []int8
}

func (st *ipmState) alloc(n, m int) {
	vn := func() []float64 { return make([]float64, n) }
	vm := func() []float64 { return make([]float64, m) }
	st.kind = make([]rowKind, m)
	st.hasLB, st.hasUB = make([]bool, n), make([]bool, n)
	st.lb, st.ub = vn(), vn()
	st.x, st.dx = vn(), vn()
	st.tl, st.zl, st.tu, st.zu = vn(), vn(), vn(), vn()
	st.dtl, st.dzl, st.dtu, st.dzu = vn(), vn(), vn(), vn()
	st.rtl, st.rtu, st.ctl, st.ctu = vn(), vn(), vn(), vn()
	st.atl, st.azl, st.atu, st.azu = vn(), vn(), vn(), vn()
	st.rd, st.px, st.aty, st.wx, st.z = vn(), vn(), vn(), vn(), vn()
	st.y, st.dy = vm(), vm()
	st.sl, st.yl, st.su, st.yu = vm(), vm(), vm(), vm()
	st.dsl, st.dyl, st.dsu, st.dyu = vm(), vm(), vm(), vm()
	st.rl, st.ru, st.cl, st.cu = vm(), vm(), vm(), vm()
	st.asl, st.ayl, st.asu, st.ayu = vm(), vm(), vm(), vm()
	st.ax, st.adx, st.wy = vm(), vm(), vm()
	st.xc, st.pxc = vn(), vn()
	st.axc = vm()
	st.rtol, st.ctol = vm(), vn()
	st.cy, st.cr = vm(), vm()
	st.cz, st.cw, st.cd = vn(), vn(), vn()
	st.px2, st.pz, st.py = vn(), vn(), vm()
	st.bx, st.by, st.bz = vn(), vm(), vn()
	st.side, st.rside = make([]int8, n), make([]int8, m)
}

// symMulVec sets dst = P x for P symmetric given by its upper triangle
// (nil P: dst = 0).
func symMulVec(P *CSC, dst, x []float64) {
	clear(dst)
	if P == nil {
		return
	}
	for j := range P.Cols {
		for p := P.ColPtr[j]; p < P.ColPtr[j+1]; p++ {
			i := P.RowIdx[p]
			if i > j {
				continue
			}
			v := P.Val[p]
			dst[i] += v * x[j]
			if i != j {
				dst[j] += v * x[i]
			}
		}
	}
}

func mulVec(A *CSC, dst, x []float64) {
	if A != nil {
		A.MulVec(dst, x)
	}
}

func mulTransVec(A *CSC, dst, y []float64) {
	if A == nil {
		clear(dst)
		return
	}
	A.MulTransVec(dst, y)
}

func maxAbs(a *CSC) float64 {
	if a == nil {
		return 0
	}
	return normInf(a.Val[:a.Nnz()])
}

// measures are the certified numbers of a point (x inside its bounds):
// the absolute residuals and gap, and each over its tolerance (the
// largest over the rows, over the variables), so that a ratio <= 1 is
// within tolerance.
type measures struct {
	obj, dobj, gap, prim, dual     float64
	primRatio, dualRatio, gapRatio float64
}

func (m measures) solved(s Settings) bool {
	return m.primRatio <= 1 && m.dualRatio <= 1 && m.gapRatio <= 1
}

// worst is the largest of the three measures over its tolerance.
func (m measures) worst(s Settings) float64 {
	return math.Max(m.primRatio, math.Max(m.dualRatio, m.gapRatio))
}

// absMulVec sets dst = |A| |x| (the sizes of the terms of Ax).
func absMulVec(A *CSC, dst, x []float64) {
	clear(dst)
	if A == nil {
		return
	}
	for j := range A.Cols {
		xj := math.Abs(x[j])
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			dst[A.RowIdx[p]] += math.Abs(A.Val[p]) * xj
		}
	}
}

// absAddTransVec adds |A|ᵀ |y| to dst.
func absAddTransVec(A *CSC, dst, y []float64) {
	if A == nil {
		return
	}
	for j := range A.Cols {
		s := 0.0
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			s += math.Abs(A.Val[p] * y[A.RowIdx[p]])
		}
		dst[j] += s
	}
}

// absAddSymMulVec adds |P| |x| to dst, P given by its upper triangle.
func absAddSymMulVec(P *CSC, dst, x []float64) {
	if P == nil {
		return
	}
	for j := range P.Cols {
		for p := P.ColPtr[j]; p < P.ColPtr[j+1]; p++ {
			i := P.RowIdx[p]
			if i > j {
				continue
			}
			v := math.Abs(P.Val[p])
			dst[i] += v * math.Abs(x[j])
			if i != j {
				dst[j] += v * math.Abs(x[i])
			}
		}
	}
}

// measure maps the scaled program's point (x, y, z) back to the original
// program p (into sc.ux, sc.uy, sc.uz, and x clipped into its bounds into
// st.xc) and evaluates it there: objective, dual objective, gap, each
// row's violation against AbsTol + RelTol·(the size of its terms,
// Σ|a_ij x_j|, or of its bound), each variable's stationarity residual
// against AbsTol + RelTol·(|q_j| + Σ|P_jk x_k| + Σ|a_ij y_i| + |z_j|), the
// gap against AbsTol + RelTol·max(|objective|, |dual objective|). The
// rows' and variables' tolerances are left in st.rtol, st.ctol.
func (sv *Solver) measure(p *Problem, xs, ys, zs []float64) measures {
	st := &sv.state
	sc := &sv.sc
	s := sv.set
	sc.unscale(xs, ys, zs)
	y, z := sc.uy, sc.uz
	// a multiplier of the sign of an infinite bound (which ADMM may leave,
	// at rounding size) is 0: the sign convention holds for every point
	// measured
	for i, v := range y {
		if v > 0 && math.IsInf(p.U[i], 1) || v < 0 && math.IsInf(p.L[i], -1) {
			y[i] = 0
		}
	}
	for j, v := range z {
		if v > 0 && math.IsInf(sc.oub[j], 1) || v < 0 && math.IsInf(sc.olb[j], -1) {
			z[j] = 0
		}
	}
	for j, v := range sc.ux {
		st.xc[j] = math.Min(math.Max(v, sc.olb[j]), sc.oub[j])
	}
	mulVec(p.A, st.axc, st.xc)
	symMulVec(p.P, st.pxc, st.xc)
	var m measures
	xpx, qx := 0.0, 0.0
	for j := range sv.n {
		xpx += st.xc[j] * st.pxc[j]
		qx += p.Q[j] * st.xc[j]
	}
	m.obj = 0.5*xpx + qx
	supp := 0.0
	absMulVec(p.A, st.rtol, st.xc)
	for i := range sv.m {
		a := st.axc[i]
		size := st.rtol[i]
		viol := 0.0
		if l := p.L[i]; !math.IsInf(l, -1) {
			viol = math.Max(viol, l-a)
			size = math.Max(size, math.Abs(l))
		}
		if u := p.U[i]; !math.IsInf(u, 1) {
			viol = math.Max(viol, a-u)
			size = math.Max(size, math.Abs(u))
		}
		tol := s.AbsTol + s.RelTol*size
		st.rtol[i] = tol
		m.prim = math.Max(m.prim, viol)
		m.primRatio = math.Max(m.primRatio, viol/tol)
		if y[i] > 0 {
			supp += p.U[i] * y[i]
		} else if y[i] < 0 {
			supp += p.L[i] * y[i]
		}
	}
	for j := range sv.n {
		if z[j] > 0 {
			supp += sc.oub[j] * z[j]
		} else if z[j] < 0 {
			supp += sc.olb[j] * z[j]
		}
	}
	m.dobj = -0.5*xpx - supp
	m.gap = m.obj - m.dobj
	m.gapRatio = math.Abs(m.gap) / (s.AbsTol + s.RelTol*math.Max(math.Abs(m.obj), math.Abs(m.dobj)))
	mulTransVec(p.A, st.aty, y)
	for j := range sv.n {
		st.ctol[j] = math.Abs(p.Q[j]) + math.Abs(z[j])
	}
	absAddSymMulVec(p.P, st.ctol, st.xc)
	absAddTransVec(p.A, st.ctol, y)
	for j := range sv.n {
		r := math.Abs(st.pxc[j] + p.Q[j] + st.aty[j] + z[j])
		tol := s.AbsTol + s.RelTol*st.ctol[j]
		st.ctol[j] = tol
		m.dual = math.Max(m.dual, r)
		m.dualRatio = math.Max(m.dualRatio, r/tol)
	}
	if math.IsNaN(m.prim + m.dual + m.gap + m.primRatio + m.dualRatio + m.gapRatio) {
		m.prim, m.dual, m.gap = math.Inf(1), math.Inf(1), math.Inf(1)
		m.primRatio, m.dualRatio, m.gapRatio = math.Inf(1), math.Inf(1), math.Inf(1)
	}
	return m
}

// ipm runs the method on the scaled program sp, measuring every point on
// the original p.
func (sv *Solver) ipm(p, sp *Problem) *Result {
	st := &sv.state
	sc := &sv.sc
	n, m, s := sv.n, sv.m, sv.set
	sv.classify(sp)
	sv.start(sp)
	separate := p.P == nil || maxAbs(p.P) == 0 // a linear program: primal and dual steps apart

	res := &Result{}
	var last, best measures
	bestWorst, haveBest := math.Inf(1), false
	polishedAt := math.Inf(1)
	stalls := 0
	for it := 0; ; it++ {
		res.Iterations = it
		sv.residuals(sp)
		mu, pairs := sv.complementarity()
		z := st.z
		for j := range n {
			z[j] = st.zu[j] - st.zl[j]
		}
		last = sv.measure(p, st.x, st.y, z)
		if last.solved(s) {
			if !s.NoPolish {
				if pm, ok := sv.polish(p, sp, last); ok {
					res.Polished = true
					return sv.result(res, Solved, pm, st.xc, sc.uy, sc.uz)
				}
				sv.measure(p, st.x, st.y, z) // back to the iterate
			}
			return sv.result(res, Solved, last, st.xc, sc.uy, sc.uz)
		}
		// near the end, the active set may already be right: a polished
		// point that is Solved ends the method before the iterates meet
		// the tolerances (which ill-conditioning may prevent)
		if w := last.worst(s); !s.NoPolish && w <= polishTrigger && w <= polishedAt/10 {
			polishedAt = w
			if pm, ok := sv.polish(p, sp, last); ok {
				res.Polished = true
				return sv.result(res, Solved, pm, st.xc, sc.uy, sc.uz)
			}
			sv.measure(p, st.x, st.y, z)
		}
		if w := last.worst(s); w < bestWorst || !haveBest {
			haveBest = true
			bestWorst, best = w, last
			copy(st.bx, st.xc)
			copy(st.by, sc.uy)
			copy(st.bz, sc.uz)
		}
		if it >= s.MaxIter || s.Halt != nil && s.Halt() {
			return sv.result(res, IterationLimit, best, st.bx, st.by, st.bz)
		}
		if !finiteAll(st.x, st.y, z) {
			return sv.result(res, NumericalError, best, st.bx, st.by, st.bz)
		}
		if c, ok := sv.primalCertificate(p, st.y); ok {
			return sv.infeasible(res, PrimalInfeasible, c, last)
		}
		if c, ok := sv.dualCertificate(p, st.x); ok {
			return sv.infeasible(res, DualInfeasible, c, last)
		}
		if !sv.factor() {
			return sv.result(res, NumericalError, best, st.bx, st.by, st.bz)
		}
		// predictor
		for i := range m {
			st.cl[i] = st.sl[i] * st.yl[i]
			st.cu[i] = st.su[i] * st.yu[i]
		}
		for j := range n {
			st.ctl[j] = st.tl[j] * st.zl[j]
			st.ctu[j] = st.tu[j] * st.zu[j]
		}
		sv.direction(sp)
		ap, ad := sv.stepLengths(1)
		if !separate {
			ap = math.Min(ap, ad)
			ad = ap
		}
		sigma := 0.0
		if pairs > 0 && mu > 0 {
			muAff := sv.complementarityAfter(ap, ad) / float64(pairs)
			sigma = math.Pow(math.Min(1, math.Max(0, muAff/mu)), 3)
		}
		copy(st.asl, st.dsl)
		copy(st.ayl, st.dyl)
		copy(st.asu, st.dsu)
		copy(st.ayu, st.dyu)
		copy(st.atl, st.dtl)
		copy(st.azl, st.dzl)
		copy(st.atu, st.dtu)
		copy(st.azu, st.dzu)
		// corrector
		target := sigma * mu
		for i := range m {
			st.cl[i] = st.sl[i]*st.yl[i] + st.asl[i]*st.ayl[i] - target
			st.cu[i] = st.su[i]*st.yu[i] + st.asu[i]*st.ayu[i] - target
		}
		for j := range n {
			st.ctl[j] = st.tl[j]*st.zl[j] + st.atl[j]*st.azl[j] - target
			st.ctu[j] = st.tu[j]*st.zu[j] + st.atu[j]*st.azu[j] - target
		}
		sv.direction(sp)
		// the direction of the multipliers may itself be a certificate
		if c, ok := sv.primalCertificate(p, st.dy); ok {
			return sv.infeasible(res, PrimalInfeasible, c, last)
		}
		if c, ok := sv.dualCertificate(p, st.dx); ok {
			return sv.infeasible(res, DualInfeasible, c, last)
		}
		ap, ad = sv.stepLengths(0.995)
		if !separate {
			ap = math.Min(ap, ad)
			ad = ap
		}
		if ap < 1e-10 && ad < 1e-10 {
			stalls++
			if stalls >= 5 {
				return sv.result(res, NumericalError, best, st.bx, st.by, st.bz)
			}
		} else {
			stalls = 0
		}
		sv.step(ap, ad)
	}
}

// classify records each row's kind and each variable's finite bounds of
// the scaled program sp, and decouples the free rows in the KKT system's
// base values.
func (sv *Solver) classify(sp *Problem) {
	st := &sv.state
	for j := range sv.n {
		st.lb[j], st.ub[j] = sp.LB[j], sp.UB[j]
		st.hasLB[j] = !math.IsInf(st.lb[j], -1)
		st.hasUB[j] = !math.IsInf(st.ub[j], 1)
	}
	for i := range sv.m {
		lf, uf := !math.IsInf(sp.L[i], -1), !math.IsInf(sp.U[i], 1)
		switch {
		case lf && uf && sp.L[i] == sp.U[i]:
			st.kind[i] = rowEqual
		case lf && uf:
			st.kind[i] = rowRange
		case lf:
			st.kind[i] = rowLower
		case uf:
			st.kind[i] = rowUpper
		default:
			st.kind[i] = rowFree
		}
	}
	for q, pos := range sv.aPos {
		if st.kind[sv.aRow[q]] == rowFree {
			sv.base[pos] = 0
		}
	}
}

func finiteAll(vs ...[]float64) bool {
	for _, v := range vs {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
	}
	return true
}

// start sets the initial point: x is 0 moved into its bounds; every slack
// is the distance to its bound, at least 1; every multiplier is 1 (an
// equality row's 0).
func (sv *Solver) start(p *Problem) {
	st := &sv.state
	for j := range sv.n {
		x := math.Min(math.Max(0, st.lb[j]), st.ub[j])
		st.x[j] = x
		st.tl[j], st.zl[j], st.tu[j], st.zu[j] = 0, 0, 0, 0
		if st.hasLB[j] {
			st.tl[j], st.zl[j] = math.Max(x-st.lb[j], 1), 1
		}
		if st.hasUB[j] {
			st.tu[j], st.zu[j] = math.Max(st.ub[j]-x, 1), 1
		}
	}
	mulVec(p.A, st.ax, st.x)
	for i := range sv.m {
		k := st.kind[i]
		st.sl[i], st.yl[i], st.su[i], st.yu[i], st.y[i] = 0, 0, 0, 0, 0
		if k.hasL() {
			st.sl[i], st.yl[i] = math.Max(st.ax[i]-p.L[i], 1), 1
		}
		if k.hasU() {
			st.su[i], st.yu[i] = math.Max(p.U[i]-st.ax[i], 1), 1
		}
		if k != rowEqual {
			st.y[i] = st.yu[i] - st.yl[i]
		}
	}
}

// residuals computes Ax, the dual residual rd = Px + q + Aᵀy + z and the
// primal residuals of the slack equations at the current iterate.
func (sv *Solver) residuals(p *Problem) {
	st := &sv.state
	mulVec(p.A, st.ax, st.x)
	symMulVec(p.P, st.px, st.x)
	mulTransVec(p.A, st.aty, st.y)
	for j := range sv.n {
		st.rd[j] = st.px[j] + p.Q[j] + st.aty[j] + st.zu[j] - st.zl[j]
		st.rtl[j], st.rtu[j] = 0, 0
		if st.hasLB[j] {
			st.rtl[j] = st.x[j] - st.tl[j] - st.lb[j]
		}
		if st.hasUB[j] {
			st.rtu[j] = st.x[j] + st.tu[j] - st.ub[j]
		}
	}
	for i := range sv.m {
		st.rl[i], st.ru[i] = 0, 0
		switch k := st.kind[i]; {
		case k == rowEqual:
			st.rl[i] = st.ax[i] - p.L[i]
		default:
			if k.hasL() {
				st.rl[i] = st.ax[i] - st.sl[i] - p.L[i]
			}
			if k.hasU() {
				st.ru[i] = st.ax[i] + st.su[i] - p.U[i]
			}
		}
	}
}

// complementarity is the mean of the complementarity products and their
// number.
func (sv *Solver) complementarity() (float64, int) {
	st := &sv.state
	sum, cnt := 0.0, 0
	for i := range sv.m {
		if st.kind[i].hasL() {
			sum += st.sl[i] * st.yl[i]
			cnt++
		}
		if st.kind[i].hasU() {
			sum += st.su[i] * st.yu[i]
			cnt++
		}
	}
	for j := range sv.n {
		if st.hasLB[j] {
			sum += st.tl[j] * st.zl[j]
			cnt++
		}
		if st.hasUB[j] {
			sum += st.tu[j] * st.zu[j]
			cnt++
		}
	}
	if cnt == 0 {
		return 0, 0
	}
	return sum / float64(cnt), cnt
}

// complementarityAfter is the sum of the products after primal step ap
// and dual step ad along the current direction.
func (sv *Solver) complementarityAfter(ap, ad float64) float64 {
	st := &sv.state
	sum := 0.0
	for i := range sv.m {
		if st.kind[i].hasL() {
			sum += (st.sl[i] + ap*st.dsl[i]) * (st.yl[i] + ad*st.dyl[i])
		}
		if st.kind[i].hasU() {
			sum += (st.su[i] + ap*st.dsu[i]) * (st.yu[i] + ad*st.dyu[i])
		}
	}
	for j := range sv.n {
		if st.hasLB[j] {
			sum += (st.tl[j] + ap*st.dtl[j]) * (st.zl[j] + ad*st.dzl[j])
		}
		if st.hasUB[j] {
			sum += (st.tu[j] + ap*st.dtu[j]) * (st.zu[j] + ad*st.dzu[j])
		}
	}
	return sum
}

// factor sets the KKT matrix's values for the current iterate and factors
// it; false when the factorisation failed.
func (sv *Solver) factor() bool {
	st := &sv.state
	n := sv.n
	k := sv.kkt
	copy(k.Val, sv.base)
	for j := range n {
		w := 0.0
		if st.hasLB[j] {
			w += st.zl[j] / st.tl[j]
		}
		if st.hasUB[j] {
			w += st.zu[j] / st.tu[j]
		}
		st.wx[j] = w
		k.Val[sv.diag[j]] += w
	}
	for i := range sv.m {
		var d float64
		switch kd := st.kind[i]; kd {
		case rowFree:
			d = -1
		case rowEqual:
			d = 0
		default:
			w := 0.0
			if kd.hasL() {
				w += st.yl[i] / st.sl[i]
			}
			if kd.hasU() {
				w += st.yu[i] / st.su[i]
			}
			st.wy[i] = w
			d = -1 / w
		}
		k.Val[sv.diag[n+i]] = d
	}
	_, err := sv.ldl.Factor(k, sv.sign, sv.set.Reg)
	return err == nil
}

// direction solves the Newton system for the complementarity targets in
// cl, cu, ctl, ctu (each product s·y minus its target) and recovers every
// step.
func (sv *Solver) direction(p *Problem) {
	st := &sv.state
	n := sv.n
	rhs := sv.rhs
	for j := range n {
		g := 0.0
		if st.hasLB[j] {
			g += (st.ctl[j] + st.zl[j]*st.rtl[j]) / st.tl[j]
		}
		if st.hasUB[j] {
			g += (-st.ctu[j] + st.zu[j]*st.rtu[j]) / st.tu[j]
		}
		rhs[j] = -st.rd[j] - g
	}
	for i := range sv.m {
		switch k := st.kind[i]; k {
		case rowFree:
			rhs[n+i] = 0
		case rowEqual:
			rhs[n+i] = -st.rl[i]
		default:
			g := 0.0
			if k.hasL() {
				g += (st.cl[i] + st.yl[i]*st.rl[i]) / st.sl[i]
			}
			if k.hasU() {
				g += (-st.cu[i] + st.yu[i]*st.ru[i]) / st.su[i]
			}
			rhs[n+i] = -g / st.wy[i]
		}
	}
	sv.ldl.SolveRefined(sv.kkt, sv.sol, rhs, sv.set.RefineSteps, refineTol)
	copy(st.dx, sv.sol[:n])
	mulVec(p.A, st.adx, st.dx)
	for i := range sv.m {
		st.dsl[i], st.dyl[i], st.dsu[i], st.dyu[i] = 0, 0, 0, 0
		switch k := st.kind[i]; k {
		case rowFree:
			st.dy[i] = 0
		case rowEqual:
			st.dy[i] = sv.sol[n+i]
		default:
			// Each side's pair (Δs, Δy) is recovered from the side of the
			// KKT solution that determines it well: the slack's step from
			// AΔx where the multiplier is small against the slack (an
			// inactive side), the multiplier's step from the solved Δy
			// where it is large (an active side: y/s large amplifies the
			// rounding of AΔx). A range row's solved Δy goes to its more
			// active side.
			dy := sv.sol[n+i]
			if k.hasL() {
				st.dsl[i] = st.adx[i] + st.rl[i]
				st.dyl[i] = (-st.cl[i] - st.yl[i]*st.dsl[i]) / st.sl[i]
			}
			if k.hasU() {
				st.dsu[i] = -st.adx[i] - st.ru[i]
				st.dyu[i] = (-st.cu[i] - st.yu[i]*st.dsu[i]) / st.su[i]
			}
			lowerActive := k.hasL() && (!k.hasU() || st.yl[i]*st.su[i] >= st.yu[i]*st.sl[i])
			switch {
			case lowerActive && st.yl[i] >= st.sl[i]:
				st.dyl[i] = st.dyu[i] - dy
				st.dsl[i] = (-st.cl[i] - st.sl[i]*st.dyl[i]) / st.yl[i]
			case !lowerActive && st.yu[i] >= st.su[i]:
				st.dyu[i] = dy + st.dyl[i]
				st.dsu[i] = (-st.cu[i] - st.su[i]*st.dyu[i]) / st.yu[i]
			}
			st.dy[i] = st.dyu[i] - st.dyl[i]
		}
	}
	for j := range n {
		st.dtl[j], st.dzl[j], st.dtu[j], st.dzu[j] = 0, 0, 0, 0
		if st.hasLB[j] {
			st.dtl[j] = st.dx[j] + st.rtl[j]
			st.dzl[j] = (-st.ctl[j] - st.zl[j]*st.dtl[j]) / st.tl[j]
		}
		if st.hasUB[j] {
			st.dtu[j] = -st.dx[j] - st.rtu[j]
			st.dzu[j] = (-st.ctu[j] - st.zu[j]*st.dtu[j]) / st.tu[j]
		}
	}
}

// stepLengths returns the primal and dual steps, each eta times the
// largest that keeps its slacks (multipliers) nonnegative, at most 1.
func (sv *Solver) stepLengths(eta float64) (float64, float64) {
	st := &sv.state
	ap, ad := 1.0, 1.0
	lim := func(a, v, dv float64) float64 {
		if dv < 0 {
			return math.Min(a, -eta*v/dv)
		}
		return a
	}
	for i := range sv.m {
		if st.kind[i].hasL() {
			ap = lim(ap, st.sl[i], st.dsl[i])
			ad = lim(ad, st.yl[i], st.dyl[i])
		}
		if st.kind[i].hasU() {
			ap = lim(ap, st.su[i], st.dsu[i])
			ad = lim(ad, st.yu[i], st.dyu[i])
		}
	}
	for j := range sv.n {
		if st.hasLB[j] {
			ap = lim(ap, st.tl[j], st.dtl[j])
			ad = lim(ad, st.zl[j], st.dzl[j])
		}
		if st.hasUB[j] {
			ap = lim(ap, st.tu[j], st.dtu[j])
			ad = lim(ad, st.zu[j], st.dzu[j])
		}
	}
	return ap, ad
}

// step moves the primal variables by ap and the multipliers by ad.
func (sv *Solver) step(ap, ad float64) {
	st := &sv.state
	for j := range sv.n {
		st.x[j] += ap * st.dx[j]
		if st.hasLB[j] {
			st.tl[j] += ap * st.dtl[j]
			st.zl[j] += ad * st.dzl[j]
		}
		if st.hasUB[j] {
			st.tu[j] += ap * st.dtu[j]
			st.zu[j] += ad * st.dzu[j]
		}
	}
	for i := range sv.m {
		k := st.kind[i]
		if k.hasL() {
			st.sl[i] += ap * st.dsl[i]
			st.yl[i] += ad * st.dyl[i]
		}
		if k.hasU() {
			st.su[i] += ap * st.dsu[i]
			st.yu[i] += ad * st.dyu[i]
		}
		if k == rowEqual {
			st.y[i] += ad * st.dy[i]
		} else {
			st.y[i] = st.yu[i] - st.yl[i]
		}
	}
}

// result fills res with a copy of the point (x inside its bounds) whose
// measures m are.
func (sv *Solver) result(res *Result, status Status, m measures, x, y, z []float64) *Result {
	res.Status = status
	res.X = append([]float64(nil), x...)
	res.Y = append([]float64(nil), y...)
	res.Z = append([]float64(nil), z...)
	res.Objective, res.DualObjective, res.Gap = m.obj, m.dobj, m.gap
	res.PrimalResidual, res.DualResidual = m.prim, m.dual
	return res
}
