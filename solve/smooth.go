package solve

import (
	"math"
	"strconv"

	"gonum.org/v1/gonum/floats"
)

// The smooth oracle (Remark 2: "any fast strongly convex solver can be the
// oracle") solves (7) at x_t,
//
//	min_{y in X} F(y) = f0(y) + RhoHat/2 ||y - x_t||^2
//	s.t.         Gi(y) = fi(y) + RhoHat/2 ||y - x_t||^2 <= 0,
//
// for differentiable fi by the augmented Lagrangian method: for
// multipliers lambda >= 0 and a penalty c > 0 it minimises over X
//
//	Phi(y) = F(y) + 1/(2c) sum_i (max(0, lambda_i + c Gi(y))^2 - lambda_i^2)
//
// by the spectral projected gradient method (Birgin, Martinez & Raydan:
// Barzilai-Borwein steps, projection onto X, a nonmonotone line search),
// then sets lambda_i = max(0, lambda_i + c Gi(y)) and raises c tenfold
// when the constraints' violation did not halve (and is still above what
// the tolerance needs). An iterate y that ends just outside the
// constraints is pulled back along the segment to the best feasible point,
// to where the linear interpolation of every Gi is 0 (feasible when the Gi
// are convex; checked), so that the returned point is exactly feasible.
//
// The certificate comes with every gradient: at an iterate y with
// w_i = max(0, lambda_i + c Gi(y)), the gradient of Phi is the
// gradient r of the Lagrangian L(., w) = F + sum_i w_i Gi, which is
// mu_w = (RhoHat - Rho)(1 + sum w)-strongly convex, so for every z in X
//
//	L(z, w) >= L(y, w) + <r, z - y> + mu_w/2 ||z - y||^2,
//
// and the right side's minimum over X is attained at
// z* = Proj_X(y - r/mu_w). Its value is a lower bound on the dual function
// at w, hence on min (7) (weak duality). The oracle keeps the best such
// bound and the feasible point with the lowest F, and stops when their gap
// is below the tolerance it is given. The multipliers w of the best bound
// are the ones reported.

// alState is the smooth oracle's state, kept from one subproblem to the
// next as a warm start.
type alState struct {
	lam   []float64 // the last multipliers
	c     float64   // the penalty parameter
	alpha float64   // the last spectral step
}

// accuracy is what the outer loop asks of an accurate oracle: stop when
// the certified gap is at most min(EpsHat^2, mu/2 d^2) with
// d = max(Rel ||y - x_t||, Abs/((1 + sum lambda) RhoHat)), or after
// MaxEvals evaluations.
type accuracy struct {
	Rel, Abs float64
	MaxEvals int
	// Far, for a certificate: also stop as soon as the solution is
	// provably farther than Far from x_t (then x_t cannot be certified).
	Far float64
}

// settled reports whether an accurate oracle may stop: its best feasible
// point, at distance dist from x_t, is within the tolerance of the best
// lower bound, or (acc.Far) provably farther than acc.Far from x_t.
func (s *solver) settled(acc accuracy, r *subResult, dist float64) bool {
	if !r.Feasible {
		return false
	}
	if r.F-r.Lower <= s.gapTol(acc, dist, r.KKTFactor(s.rhoHat)) {
		return true
	}
	return acc.Far > 0 && dist-r.DistBound(s.rhoHat-s.rho) > acc.Far
}

// gapTol is the gap the oracle must reach for the feasible point y whose
// multipliers give the KKT factor kkt (subResult.KKTFactor).
func (s *solver) gapTol(acc accuracy, dist, kkt float64) float64 {
	mu := s.rhoHat - s.rho
	d := math.Max(acc.Rel*dist, acc.Abs/math.Max(1, kkt))
	return math.Min(s.epsHat2, mu/2*d*d)
}

// segmentMargin is the share by which segmentFraction stops short of the
// constraints.
const segmentMargin = 1e-8

const (
	spgMemory     = 10    // the nonmonotone line search compares with the largest of the last spgMemory values
	alMaxPenalty  = 1e10  // c is raised to at most this
	alStartC      = 10.0  // the first penalty
	spgMinStep    = 1e-12 // the spectral step is kept in [spgMinStep, spgMaxStep]
	spgMaxStep    = 1e12
	spgLineSearch = 40 // backtracking halvings at most
)

// smoothMethod is the smooth oracle's run within one solve.
type smoothMethod struct {
	*solver
	al alState     // the warm start
	sb *smoothBufs // the work vectors, made on first use
	// from, if not nil, is where solve starts in place of x_t (the
	// smoothed oracle's point of its last, less smooth, round)
	from []float64
	// boundAt, if not nil, receives the point of the best lower bound
	boundAt []float64
}

func (s *smoothMethod) oracle() Oracle { return Smooth }

// loadWarm starts the augmented Lagrangian from w's multipliers, penalty
// and step when w has them.
func (s *smoothMethod) loadWarm(w *warmStart) {
	if w.al.lam != nil {
		s.al = alState{lam: clone(w.al.lam), c: w.al.c, alpha: w.al.alpha}
	}
}

// saveWarm leaves the augmented Lagrangian's state in w.
func (s *smoothMethod) saveWarm(w *warmStart) {
	if s.al.lam != nil {
		w.al = alState{lam: clone(s.al.lam), c: s.al.c, alpha: s.al.alpha}
	}
}

// warmMultipliers are the augmented Lagrangian's last multipliers.
func (s *smoothMethod) warmMultipliers() []float64 { return s.al.lam }

// solve runs the smooth oracle on (7) at xt (from s.from when set): the
// augmented Lagrangian skeleton (alSolve) with the smooth oracle's steps.
// Its output is in s.out.
func (s *smoothMethod) solve(xt []float64, acc accuracy) (res subResult, halt haltReason, err error) {
	halt, err = s.alSolve(xt, s.from, acc, &s.al, s.smoothBuffers(), s, &res)
	return res, halt, err
}

// alBound is the smooth oracle's bound: with the gradient g of Phi at y
// and the Lagrangian's strong convexity muw, the minimum over X of the
// linearisation plus muw/2 ||z - y||^2, at z = Proj_X(y - g/muw); its
// point goes to s.boundAt when that is set.
func (s *smoothMethod) alBound(r *alRun, y, g []float64) error {
	b, res := r.b, r.res
	// the lower bound at the multipliers w
	lval, muw, err := s.alGrad(y, r.xt, g, b, r.fval, r.mu)
	if err != nil {
		return err
	}
	z := b.z
	for j := range z {
		z[j] = y[j] - g[j]/muw
	}
	s.project(z)
	bound := lval
	for j := range z {
		dz := z[j] - y[j]
		bound += g[j]*dz + muw/2*dz*dz
	}
	b.innerGap = lval - bound
	if bound > res.Lower {
		res.Lower = bound
		copy(res.Lambda, b.w)
		if s.boundAt != nil {
			copy(s.boundAt, y)
		}
	}
	return nil
}

// alBegin forgets the quasi-Newton model: Phi changed with lambda and c.
func (s *smoothMethod) alBegin(r *alRun) { r.b.qn.reset() }

// alTry is the quasi-Newton (L-BFGS) step projected onto X first; the
// spectral projected gradient step when it is not a descent direction or
// its line search fails. The line search interpolates quadratically,
// safeguarded, and shortens tenfold a trial point where a function
// cannot be evaluated.
func (s *smoothMethod) alTry(r *alRun, y, g []float64, phi, phiMax float64, alphaP *float64) (phiT float64, accepted bool, halt haltReason) {
	b, alpha := r.b, *alphaP
	ytr := b.ytr
	var err error
	for attempt := 0; attempt < 2 && !accepted; attempt++ {
		qn := attempt == 0 && b.qn.len() > 0
		if attempt == 0 && !qn {
			continue
		}
		d := b.d
		if qn {
			b.qn.direction(g, d) // d = -H g
			for j := range d {
				d[j] += y[j]
			}
		} else {
			for j := range d {
				d[j] = y[j] - alpha*g[j]
			}
		}
		if qn {
			// a step the projection cuts short is no quasi-Newton
			// step: take the spectral one
			copy(b.z, d)
			s.project(d)
			if dist(b.z, d) > 0.1*dist(b.z, y) {
				continue
			}
		} else {
			s.project(d)
		}
		gd, dd := 0.0, 0.0
		for j := range d {
			d[j] -= y[j]
			gd += g[j] * d[j]
			dd += d[j] * d[j]
		}
		if gd >= 0 || dd == 0 {
			continue
		}
		step := 1.0
		tries := spgLineSearch
		if qn {
			tries = 10
		}
		for range tries {
			// an evaluation on all of 10^7 rows takes a second:
			// a line search must not outlast the time limit
			if h := s.halted(); h != running {
				return phiT, false, h
			}
			for j := range ytr {
				ytr[j] = y[j] + step*d[j]
			}
			if phiT, err = r.evalPhi(ytr); err != nil {
				// a trial point where a function cannot be
				// evaluated (an overflow far out on an unbounded
				// domain, a log of a negative number outside the
				// functions' domain): a failed trial, shorter next
				// (IPOPT cuts its step back the same way); x_t and
				// every accepted point evaluated, so the solve
				// goes on
				step /= 10
				continue
			}
			if phiT <= phiMax+1e-4*step*gd {
				accepted = true
				break
			}
			// quadratic interpolation, safeguarded
			den := 2 * (phiT - phi - step*gd)
			next := step / 2
			if den > 0 {
				next = -gd * step * step / den
			}
			step = math.Min(math.Max(next, 0.1*step), 0.5*step)
		}
	}
	return phiT, accepted, running
}

// alTook adds the step's secant pair to the quasi-Newton model when its
// curvature is positive.
func (s *smoothMethod) alTook(r *alRun, ytr, y, gnew, g []float64, sts, sty float64) {
	if sty > 1e-12*sts && sts > 0 {
		r.b.qn.push(ytr, y, gnew, g, sty)
	}
}

// alStart starts a solve of (7) by the augmented Lagrangian of the
// smooth and prox oracles: the multipliers and penalty from st (their
// start on the first solve) copied into b.lam, res empty, and the
// constraints' proximal weights in b.prox and b.proxMu (res.Prox when
// they differ from RhoHat).
func (s *solver) alStart(st *alState, b *smoothBufs, res *subResult) (lam []float64, c float64) {
	m := s.m
	if st.lam == nil {
		st.lam = make([]float64, m)
		st.c = alStartC
	}
	lam = b.lam
	copy(lam, st.lam)
	*res = subResult{Lower: math.Inf(-1), F: math.Inf(1), Lambda: make([]float64, m), Concave: res.Concave}
	split := false
	for i := 0; i < m; i++ {
		b.prox[i], b.proxMu[i] = s.conProx(i)
		split = split || b.prox[i] != s.rhoHat
	}
	if split {
		res.Prox = clone(b.prox)
	}
	return lam, st.c
}

// alGrad stores in g the gradient at y of the Lagrangian's smooth part
// with the multipliers b.w (the proximal terms of (7) included), after
// alPhi evaluated y (fval its objective value, b.G its constraints'), and
// returns the Lagrangian's value there and its strong convexity modulus
// (mu = RhoHat - Rho plus each multiplier times its constraint's).
func (s *solver) alGrad(y, xt, g []float64, b *smoothBufs, fval, mu float64) (lval, muw float64, err error) {
	m, w := s.m, b.w
	b.wf[0] = 1
	k := s.rhoHat // the Lagrangian's proximal weight
	muw = mu
	for i := 0; i < m; i++ {
		b.wf[i+1] = w[i]
		k += w[i] * b.prox[i]
		muw += w[i] * b.proxMu[i]
	}
	if err := s.gradW(b.wf, g); err != nil {
		return 0, 0, err
	}
	for j := range g {
		g[j] += k * (y[j] - xt[j])
	}
	lval = fval
	for i := 0; i < m; i++ {
		lval += w[i] * b.G[i]
	}
	return lval, muw, nil
}

// alPhi evaluates, at y, the augmented Lagrangian of (7) at x_t with the
// multipliers lam and penalty c: Phi = F(y) + 1/(2c) sum_i (max(0,
// lam_i + c Gi(y))^2 - lam_i^2), with F(y) = f0(y) + RhoHat/2 ||y -
// x_t||^2 and Gi(y) = fi(y) + RhoHat_i/2 ||y - x_t||^2 (b.prox). It leaves
// Gi in b.G and the multipliers max(0, lam_i + c Gi) in b.w, and returns
// Phi, F(y) and ||y - x_t||; when y is feasible for (7) with F below
// res.F it records y as res's point (s.out, s.outF, b.Gf) and reports
// better. The smooth and prox oracles' inner problems share it.
func (s *solver) alPhi(y, xt []float64, b *smoothBufs, lam []float64, c float64, res *subResult) (phi, fval, dist float64, better bool, err error) {
	if err := s.eval(y); err != nil {
		return 0, 0, 0, false, err
	}
	s.stats.Inner++
	q := 0.0
	for j := range y {
		dj := y[j] - xt[j]
		q += dj * dj
	}
	dist = math.Sqrt(q)
	half := q / 2
	q *= s.rhoHat / 2
	fval = s.vals[0] + q
	phi = fval
	feasible := true
	Gv, w := b.G, b.w
	for i := 0; i < s.m; i++ {
		Gv[i] = s.vals[i+1] + b.prox[i]*half
		if Gv[i] > 0 {
			feasible = false
		}
		wi := math.Max(0, lam[i]+c*Gv[i])
		w[i] = wi
		phi += (wi*wi - lam[i]*lam[i]) / (2 * c)
	}
	if feasible && fval < res.F {
		res.F, res.Feasible = fval, true
		copy(s.out, y)
		copy(s.outF, s.vals)
		copy(b.Gf, Gv)
		better = true
	}
	return phi, fval, dist, better, nil
}

// alUpdate is the augmented Lagrangian's update after an inner solve
// ended at y (b.G and b.w from y's evaluation): the multipliers lam become
// b.w; when y is just outside (7)'s feasible set, the feasible point of
// the segment from the best one is offered (restoreOnSegment, with
// evalPhi); and the penalty c grows tenfold when the inner solve
// progressed and the violation fell by less than half and is above what
// the gap needs. It returns c and the violation to compare with next time
// (prevViol unchanged when the inner solve did not progress). bestDist is
// read after the restoring evaluations, which may change it.
func (s *solver) alUpdate(y []float64, b *smoothBufs, lam []float64, c float64, res *subResult, acc accuracy, bestDist *float64, progressed bool, prevViol float64, evalPhi func([]float64) (float64, error)) (float64, float64, error) {
	Gv := b.G
	viol, maxG := 0.0, math.Inf(-1)
	for i := 0; i < s.m; i++ {
		viol = math.Max(viol, math.Abs(math.Min(-Gv[i], lam[i]/c)))
		maxG = math.Max(maxG, Gv[i])
	}
	copy(lam, b.w)
	if maxG > 0 && res.Feasible {
		// y is just outside (7)'s feasible set: the point of the segment
		// from the best feasible point where the linear interpolation of
		// each Gi is 0 is feasible when the Gi are convex, and has F at
		// most the interpolation of F
		if err := s.restoreOnSegment(y, b, evalPhi); err != nil {
			return c, prevViol, err
		}
	}
	needed := s.gapTol(acc, *bestDist, res.KKTFactor(s.rhoHat)) / (1 + res.LambdaSum())
	if progressed && viol > 0.5*prevViol && viol > needed && c < alMaxPenalty {
		c *= 10
	}
	if progressed {
		prevViol = viol
	}
	return c, prevViol, nil
}

// conProx returns the proximal weight RhoHat_i that the smooth oracle
// adds to constraint i (0-based) in (7), and mu_i, the strong convexity of
// Gi = fi + RhoHat_i/2 ||. - x_t||^2 that its lower bound assumes. The
// paper's (7) adds RhoHat to every constraint (mu_i = RhoHat - Rho). A
// constraint with a proven modulus rho_i < RhoHat (Problem.ConstraintRho:
// 0 for a convex or affine one) gets RhoHat_i = rho_i instead, which
// keeps Gi convex (mu_i = 0): (7) stays (RhoHat - Rho)-strongly convex
// through its objective, x_t stays feasible for it, and the KKT factor
// RhoHat + sum lambda_i RhoHat_i of the certificate no longer grows with
// the multipliers of such constraints, so that the proximal steps are not
// cut short by a large multiplier (docs/solver.md).
//
// The two inequalities an equality becomes (split) get no proximal term
// at all: with one, (7) would be feasible only at x_t.
func (s *solver) conProx(i int) (w, mu float64) {
	if s.p.eqSide != nil && s.p.eqSide[i] {
		return 0, 0
	}
	if r := s.p.ConstraintRho; r != nil && r[i] >= 0 && r[i] < s.rhoHat {
		return r[i], 0
	}
	return s.rhoHat, s.rhoHat - s.rho
}

// smoothBufs are the smooth oracle's work vectors.
type smoothBufs struct {
	y, g, gnew, d, ytr, z []float64
	lam, G, w, wf, Gf     []float64
	lamSave               []float64
	prox, proxMu          []float64 // the constraints' proximal weights and the strong convexity they give (conProx)
	hist                  []float64
	innerGap              float64
	qn                    lbfgs
}

func (s *smoothMethod) smoothBuffers() *smoothBufs {
	if s.sb == nil {
		n, m := s.n, s.m
		s.sb = &smoothBufs{
			y: make([]float64, n), g: make([]float64, n), gnew: make([]float64, n),
			d: make([]float64, n), ytr: make([]float64, n), z: make([]float64, n),
			lam: make([]float64, m), G: make([]float64, m), w: make([]float64, m), wf: make([]float64, m+1), Gf: make([]float64, m), lamSave: make([]float64, m),
			prox: make([]float64, m), proxMu: make([]float64, m),
			hist: make([]float64, 0, spgMemory),
		}
	}
	return s.sb
}

// gradW stores in g the gradient of sum_i w[i] fi at the x of the last eval.
func (s *solver) gradW(w, g []float64) error {
	s.stats.Grads++
	if err := s.p.Grad(w, g); err != nil {
		return err
	}
	for _, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return s.solveErr(&NonFiniteError{"a gradient has a component " + strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	return nil
}

// restoreOnSegment evaluates the point of the segment from the best
// feasible point (s.out, with constraint values b.Gf) to y (values b.G, some
// positive) where the linear interpolation of every Gi is at most 0; eval
// notes it when it is feasible and better. The evaluation leaves the
// solver's values at that point, not at y.
func (s *solver) restoreOnSegment(y []float64, b *smoothBufs, eval func([]float64) (float64, error)) error {
	t, ok := segmentFraction(b.G, b.Gf)
	if !ok {
		return nil // no room: the feasible point is on the constraint too
	}
	p := b.ytr
	for j := range p {
		p[j] = s.out[j] + t*(y[j]-s.out[j])
	}
	copy(b.lamSave, b.G)
	_, err := eval(p)
	copy(b.G, b.lamSave)
	return err
}

// lbfgsMemory is the most pairs the quasi-Newton model keeps, and
// lbfgsBytes the memory its pairs may take in all: a model with many
// variables keeps fewer (never fewer than lbfgsMinMemory). On raw
// pendigits, whose subproblems are badly conditioned, 20 pairs in place of
// 8 take the first subproblem from 1627 to 1177 evaluations
// (docs/solver.md).
const (
	lbfgsMemory    = 20
	lbfgsMinMemory = 5
	lbfgsBytes     = 64 << 20
)

// lbfgsPairs is the number of pairs kept for n variables.
func lbfgsPairs(n int) int {
	return max(lbfgsMinMemory, min(lbfgsMemory, lbfgsBytes/(16*max(n, 1))))
}

// lbfgs is the limited-memory BFGS model of the inverse Hessian of Phi:
// the last lbfgsPairs steps s and gradient changes y.
type lbfgs struct {
	s, y  [][]float64
	rho   []float64 // 1 / <s, y>
	n     int       // pairs in use
	first int       // the oldest pair's slot
	alpha []float64
}

func (q *lbfgs) len() int { return q.n }

func (q *lbfgs) reset() { q.n, q.first = 0, 0 }

// push adds the pair (x1 - x0, g1 - g0) with <s, y> = sty > 0.
func (q *lbfgs) push(x1, x0, g1, g0 []float64, sty float64) {
	if q.s == nil {
		pairs := lbfgsPairs(len(x1))
		for range pairs {
			q.s = append(q.s, make([]float64, len(x1)))
			q.y = append(q.y, make([]float64, len(x1)))
		}
		q.rho = make([]float64, pairs)
		q.alpha = make([]float64, pairs)
	}
	pairs := len(q.s)
	slot := (q.first + q.n) % pairs
	if q.n == pairs {
		slot = q.first
		q.first = (q.first + 1) % pairs
	} else {
		q.n++
	}
	floats.SubTo(q.s[slot], x1, x0)
	floats.SubTo(q.y[slot], g1, g0)
	q.rho[slot] = 1 / sty
}

// direction stores -H g in d by the two-loop recursion.
func (q *lbfgs) direction(g, d []float64) {
	pairs := len(q.s)
	copy(d, g)
	for k := q.n - 1; k >= 0; k-- {
		i := (q.first + k) % pairs
		q.alpha[i] = q.rho[i] * dot(q.s[i], d)
		floats.AddScaled(d, -q.alpha[i], q.y[i])
	}
	newest := (q.first + q.n - 1) % pairs
	gamma := 1 / (q.rho[newest] * dot(q.y[newest], q.y[newest]))
	floats.Scale(gamma, d)
	for k := 0; k < q.n; k++ {
		i := (q.first + k) % pairs
		beta := q.rho[i] * dot(q.y[i], d)
		floats.AddScaled(d, q.alpha[i]-beta, q.s[i])
	}
	floats.Scale(-1, d)
}

// segmentFraction is the largest t in [0, 1] at which the linear
// interpolation (1-t) gf + t g of the constraint values at a feasible
// point (gf) and at a point just outside (g) is at most 0 in every
// coordinate; ok is false when a violated constraint is already active at
// the feasible point (no room to move). The smooth and bundle oracles pull
// their trial points back to the constraints with it. The fraction is
// shortened by segmentMargin of itself: a point put exactly on a
// constraint is outside it by a rounding error as often as not (1e-17 on
// an LP-like model, where the bundle oracle then found nothing better
// than x_t and the solve stalled).
func segmentFraction(g, gf []float64) (t float64, ok bool) {
	t = 1
	for i, gy := range g {
		if gy > 0 {
			if gf[i] >= 0 {
				return 0, false
			}
			t = math.Min(t, gf[i]/(gf[i]-gy))
		}
	}
	return t * (1 - segmentMargin), true
}
