package solve

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// The bundle oracle solves (7) at x_t for nonsmooth fi by cutting planes.
// With mu = RhoHat - Rho, each function of (7) is the convex function
// phi_i = fi + Rho/2 ||. - x_t||^2 (when fi is Rho-weakly convex) plus
// mu/2 ||. - x_t||^2. Every evaluation at a point z adds the cut
//
//	phi_i(y) >= phi_i(z) + <s_i + Rho (z - x_t), y - z>   (s_i a subgradient of fi at z)
//
// to the bundle, and the model problem
//
//	min_{y in X} max_j l_j(y) + mu/2 ||y - x_t||^2
//	s.t. l'_k(y) + mu/2 ||y - x_t||^2 <= 0 for every constraint cut k
//
// (the l_j the objective's cuts, the l'_k every constraint's) is a
// relaxation of (7): its minimum is a lower bound on min (7). It is solved
// through its dual, which is
//
//	max_{alpha in simplex, beta >= 0} D(alpha, beta),
//	D = min_{y in X} sum alpha_j l_j(y) + sum beta_k l'_k(y) + (1 + sum beta) mu/2 ||y - x_t||^2,
//
// whose inner minimiser is the projection y = Proj_X(x_t - (sum alpha_j b_j +
// sum beta_k b'_k) / ((1 + sum beta) mu)). Every value of D at a dual
// feasible point is a certified lower bound on min (7), so the method
// works for every domain X that has a projection. D is maximised by
// projected gradient ascent with backtracking (D is concave and
// differentiable), the next trial point is the minimiser y at the best
// dual point found, and the oracle stops, as the smooth one does, when the
// best feasible point's F is within the tolerance of the best bound. A
// trial point just outside the constraints is pulled back along the
// segment to the best feasible point (as in the smooth oracle). The bundle
// keeps at most bundleMaxCuts cuts, dropping the oldest with zero dual
// weight.
//
// The cuts are valid only when every fi is Rho-weakly convex. The oracle
// checks it where it can: every cut must lie below the convex parts'
// values at every point evaluated for the subproblem; a cut above one is
// evidence of nonconvexity (subResult.Nonconvex), and the outer loop then
// doubles RhoHat and Rho.

const (
	bundleMaxCuts  = 200  // the most cuts kept
	bundleDualIter = 2000 // dual ascent steps per model solve at most
	bundleStall    = 20   // trial points in a row that do not raise the bound end the oracle
	trialRetreats  = 30   // halvings toward x_t of a trial point where a function fails
)

// cut is the linear function l(y) = a + <b, y> and the function (0 for
// the objective, i for fi) it minorises.
type cut struct {
	fn int
	a  float64
	b  []float64
}

// bundleState is the bundle oracle's work space.
type bundleState struct {
	cuts []cut
	// pts are the points evaluated for this subproblem, with the values
	// of the convex parts phi_0..phi_M there (for the convexity checks)
	pts        [][]float64
	phis       [][]float64
	w          []float64 // dual weights, per cut
	grad, best []float64 // dual gradient; the best dual point's weights
	y, s, z    []float64 // primal work vectors
	G, Gf      []float64
	// the dual solver's work vectors, reused from one model solve to the next
	trial, prev, v, gv, sorted []float64
	newton                     newtonBufs
}

// grow returns (*buf)[:k], reallocating *buf when it is too short.
func grow(buf *[]float64, k int) []float64 {
	if cap(*buf) < k {
		*buf = make([]float64, k, 2*k)
	}
	return (*buf)[:k]
}

// bundleMethod is the bundle oracle's run within one solve.
type bundleMethod struct {
	*solver
	bundle *bundleState // the work space, made on first use
}

func (s *bundleMethod) oracle() Oracle { return Bundle }

// warmMultipliers is nil: the bundle starts afresh at every subproblem.
func (s *bundleMethod) warmMultipliers() []float64 { return nil }

// plain reports whether function fn (1..M) is one side of an affine
// equality (split): it enters (7), the cuts and the model as itself,
// exactly, with no proximal term (conProx).
func (s *bundleMethod) plain(fn int) bool {
	return fn > 0 && s.p.eqSide != nil && s.p.eqSide[fn-1]
}

// solve runs the bundle oracle on (7) at xt. Its output is in s.out.
func (s *bundleMethod) solve(xt []float64, acc accuracy) (res subResult, halt haltReason, err error) {
	n, m := s.n, s.m
	mu := s.rhoHat - s.rho
	if s.bundle == nil {
		s.bundle = &bundleState{y: make([]float64, n), s: make([]float64, n), z: make([]float64, n), G: make([]float64, m), Gf: make([]float64, m)}
	}
	bs := s.bundle
	bs.cuts, bs.w = bs.cuts[:0], bs.w[:0] // the cuts depend on x_t: a new bundle for every subproblem
	bs.pts, bs.phis = bs.pts[:0], bs.phis[:0]
	res = subResult{Lower: math.Inf(-1), F: math.Inf(1), Lambda: make([]float64, m)}
	bestDist := 0.0
	evals := 0

	// addPoint evaluates z, notes it when feasible and better, and adds
	// one cut per function. It returns F(z) and max_i Gi(z).
	addPoint := func(z []float64) (float64, float64, error) {
		evals++
		if err := s.eval(z); err != nil {
			return 0, 0, err
		}
		s.stats.Inner++
		vals := clone(s.vals)
		q := 0.0
		for j := range z {
			d := z[j] - xt[j]
			q += d * d
		}
		dist := math.Sqrt(q)
		q *= s.rhoHat / 2
		F, maxG := vals[0]+q, math.Inf(-1)
		for i := 0; i < m; i++ {
			bs.G[i] = vals[i+1]
			if !s.plain(i + 1) {
				bs.G[i] += q
			}
			maxG = math.Max(maxG, bs.G[i])
		}
		if maxG <= 0 && F < res.F {
			res.F, res.Feasible, bestDist = F, true, dist
			copy(s.out, z)
			copy(s.outF, vals)
			copy(bs.Gf, bs.G)
		}
		// phi_i(z) = fi(z) + Rho/2 ||z - xt||^2
		phi := make([]float64, m+1)
		pz := q * 2 / s.rhoHat
		for i := range phi {
			phi[i] = vals[i]
			if !s.plain(i) {
				phi[i] += s.rho / 2 * pz
			}
		}
		// the old cuts must lie below the new values (convexity)
		for _, c := range bs.cuts {
			if c.a+dot(c.b, z) > phi[c.fn]+1e-9*(1+math.Abs(phi[c.fn])) {
				res.Nonconvex = true
			}
		}
		rows, err := s.gradients()
		if err != nil {
			return 0, 0, err
		}
		for i := 0; i <= m; i++ {
			// phi_i(y) >= phi_i(z) + <g + Rho (z - xt), y - z>
			b := make([]float64, n)
			copy(b, rows[i])
			if !s.plain(i) {
				for j := range b {
					b[j] += s.rho * (z[j] - xt[j])
				}
			}
			c := cut{fn: i, a: phi[i] - dot(b, z), b: b}
			// and the new cuts below the old values
			for k, p := range bs.pts {
				if c.a+dot(c.b, p) > bs.phis[k][i]+1e-9*(1+math.Abs(bs.phis[k][i])) {
					res.Nonconvex = true
				}
			}
			s.addCut(c)
		}
		if len(bs.pts) < bundleMaxCuts {
			bs.pts = append(bs.pts, clone(z))
			bs.phis = append(bs.phis, phi)
		}
		return F, maxG, nil
	}
	// addTrial is addPoint at a trial point y. Where a function cannot be
	// evaluated or differentiated there (a subgradient that is not finite
	// at a kink such as sqrt's at 0, an overflow far out), the trial fails
	// and y moves halfway back to x_t, at most trialRetreats times, as the
	// smooth oracle's line search shortens its step.
	addTrial := func(y []float64) (float64, float64, error) {
		for k := 0; ; k++ {
			F, maxG, err := addPoint(y)
			if err == nil || k == trialRetreats {
				return F, maxG, err
			}
			for j := range y {
				y[j] = xt[j] + 0.5*(y[j]-xt[j])
			}
		}
	}
	done := func() bool { return s.settled(acc, &res, bestDist) }

	copy(bs.y, xt)
	s.project(bs.y)
	if _, _, err := addPoint(bs.y); err != nil {
		return res, running, err
	}
	lastLower, stalled := res.Lower, 0
	for evals < acc.MaxEvals && !done() && !res.Nonconvex {
		if h := s.halted(); h != running {
			return res, h, nil
		}
		s.bundleModel(xt, mu, bs.y, &res, stalled > 0)
		if done() {
			break
		}
		// the bound stalls when the model's dual cannot be solved more
		// accurately (or the cuts repeat): stop rather than spin
		if res.Lower > lastLower+1e-12*(1+math.Abs(res.Lower)) {
			lastLower, stalled = res.Lower, 0
		} else if stalled++; stalled >= bundleStall*s.effortFactor() {
			break
		}
		_, maxG, err := addTrial(bs.y)
		if err != nil {
			return res, running, err
		}
		if maxG > 0 && res.Feasible {
			// pull the trial point back to the constraints along the
			// segment to the best feasible point
			// (a point put on a constraint by the fraction can still be
			// outside it by a rounding error of the constraint's terms,
			// far larger than the fraction's margin when x_t is already
			// within 1e-11 of the constraint: then stop shorter)
			if t, room := segmentFraction(bs.G, bs.Gf); room && t < 1 {
				for _, short := range []float64{0, 1e-6, 1e-3} {
					for j := range bs.z {
						bs.z[j] = s.out[j] + t*(1-short)*(bs.y[j]-s.out[j])
					}
					_, maxZ, err := addTrial(bs.z)
					if err != nil {
						return res, running, err
					}
					if maxZ <= 0 {
						break
					}
				}
			}
		}
	}
	res.Evals = evals
	if !res.Feasible {
		copy(s.out, bs.y)
	}
	return res, running, nil
}

// addCut adds c to the bundle, compressing the bundle first when it is
// full.
func (s *bundleMethod) addCut(c cut) {
	bs := s.bundle
	if len(bs.cuts) >= bundleMaxCuts {
		s.compressBundle()
	}
	bs.cuts = append(bs.cuts, c)
	// the new cut enters the dual with weight 0
	bs.w = append(bs.w[:min(len(bs.w), len(bs.cuts)-1)], 0)
}

// compressBundle makes room in a full bundle without lowering the bound:
// it drops the cuts with zero dual weight and, when more than half the
// bundle is left, replaces each function's weighted cuts by their
// aggregate, sum w_k l_k / sum w_k with weight sum w_k (the aggregate
// cut of proximal bundle methods). A convex combination of minorants is a
// minorant, and the Lagrangian sum w_k l_k is unchanged, so the dual keeps
// its value: the next model solve starts from the bound already reached.
// (Dropping the oldest cuts instead stalled the bound on phase retrieval,
// where every term has a kink at the solution.)
func (s *bundleMethod) compressBundle() {
	bs := s.bundle
	kept := 0
	for k := range bs.cuts {
		if k < len(bs.w) && bs.w[k] > 0 {
			bs.cuts[kept], bs.w[kept] = bs.cuts[k], bs.w[k]
			kept++
		}
	}
	bs.cuts, bs.w = bs.cuts[:kept], bs.w[:kept]
	if kept <= bundleMaxCuts/2 {
		return
	}
	var agg []cut
	var aggW []float64
	for fn := 0; fn <= s.m; fn++ {
		sum := 0.0
		for k, c := range bs.cuts {
			if c.fn == fn {
				sum += bs.w[k]
			}
		}
		if sum <= 0 {
			continue
		}
		a := cut{fn: fn, b: make([]float64, s.n)}
		for k, c := range bs.cuts {
			if c.fn != fn {
				continue
			}
			f := bs.w[k] / sum
			a.a += f * c.a
			for j, bj := range c.b {
				a.b[j] += f * bj
			}
		}
		agg = append(agg, a)
		aggW = append(aggW, sum)
	}
	bs.cuts = append(bs.cuts[:0], agg...)
	bs.w = append(bs.w[:0], aggW...)
}

// bundleModel maximises the dual D of the model problem over the bundle,
// starting from the weights of the last call, raises res.Lower (and its
// multipliers: per constraint, the sum of its cuts' weights) with the best
// value of D, and leaves in y the model's minimiser at the best dual
// point: the next trial point.
func (s *bundleMethod) bundleModel(xt []float64, mu float64, y []float64, res *subResult, tight bool) {
	bs := s.bundle
	K := len(bs.cuts)
	w := bs.w
	// a feasible start: the objective's weights on the simplex
	objSum := 0.0
	for k, c := range bs.cuts {
		if c.fn == 0 {
			objSum += w[k]
		}
	}
	if objSum <= 0 {
		// all weight on the newest objective cut
		for k := K - 1; k >= 0; k-- {
			if bs.cuts[k].fn == 0 {
				w[k] = 1
				break
			}
		}
	} else {
		for k, c := range bs.cuts {
			if c.fn == 0 {
				w[k] /= objSum
			}
		}
	}
	if cap(bs.grad) < K {
		bs.grad = make([]float64, K)
		bs.best = make([]float64, K)
	}
	grad, best := bs.grad[:K], bs.best[:K]
	trial := grow(&bs.trial, K)
	eval := func(v, yy, g []float64) float64 { return s.dualEval(xt, mu, v, yy, g) }
	// accelerated projected gradient ascent (FISTA with backtracking and
	// adaptive restart) from the last call's weights
	D := eval(w, y, grad)
	bestD := D
	copy(best, w)
	prev := append(grow(&bs.prev, K)[:0], w...)
	v := append(grow(&bs.v, K)[:0], w...) // the extrapolated point
	gv := append(grow(&bs.gv, K)[:0], grad...)
	Dv := D
	step := 1.0 / mu
	theta := 1.0
	lastD := bestD
	iters, rel := bundleDualIter, 1e-3
	if tight {
		// the bound stalled: solve the dual more accurately
		iters, rel = 10*bundleDualIter, 1e-7
	}
	for it := 0; it < iters; it++ {
		ok := false
		for range 40 {
			copy(trial, v)
			for k := range trial {
				trial[k] += step * gv[k]
			}
			bs.sorted = projectDual(bs.cuts, trial, bs.sorted)
			Dt := eval(trial, bs.z, nil)
			lin := 0.0
			for k := range trial {
				d := trial[k] - v[k]
				lin += gv[k]*d - d*d/(2*step)
			}
			if Dt >= Dv+lin-1e-14*(1+math.Abs(Dv)) {
				ok = true
				break
			}
			step /= 2
		}
		if !ok {
			break
		}
		copy(prev, w)
		copy(w, trial)
		Dnew := eval(w, y, grad)
		if Dnew > bestD {
			bestD = Dnew
			copy(best, w)
		}
		small := Dnew-D <= 1e-13*(1+math.Abs(D)) && Dnew >= D
		if Dnew < D {
			theta = 1 // restart: the ascent stalled
		}
		D = Dnew
		thetaN := (1 + math.Sqrt(1+4*theta*theta)) / 2
		beta := (theta - 1) / thetaN
		theta = thetaN
		for k := range v {
			v[k] = w[k] + beta*(w[k]-prev[k])
		}
		bs.sorted = projectDual(bs.cuts, v, bs.sorted)
		Dv = eval(v, bs.z, gv)
		step *= 1.2
		if small && it > 10 {
			break
		}
		if it%10 == 9 {
			// stop when the last ten steps raised the bound by less than
			// a thousandth of the oracle's current gap
			gap := res.F - math.Max(res.Lower, bestD)
			if !math.IsInf(gap, 0) && bestD-lastD <= rel*gap {
				break
			}
			lastD = bestD
		}
	}
	copy(w, best)
	bestD = s.dualNewton(xt, mu, w, bestD)
	eval(w, y, nil)
	if bestD > res.Lower {
		res.Lower = bestD
		clear(res.Lambda)
		for k, c := range bs.cuts {
			if c.fn > 0 {
				res.Lambda[c.fn-1] += w[k]
			}
		}
	}
}

// projectDual projects the dual weights onto {objective cuts' weights in
// the simplex, constraint cuts' weights >= 0}.
// sorted is scratch space (the objective weights, sorted); it is returned
// for reuse.
func projectDual(cuts []cut, v, sorted []float64) []float64 {
	sorted = sorted[:0]
	for k, c := range cuts {
		if c.fn == 0 {
			sorted = append(sorted, v[k])
		} else {
			v[k] = math.Max(0, v[k])
		}
	}
	// Euclidean projection onto the simplex (sort-based)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	sum, theta := 0.0, 0.0
	for i, u := range sorted {
		sum += u
		t := (sum - 1) / float64(i+1)
		if u-t > 0 {
			theta = t
		}
	}
	for k, c := range cuts {
		if c.fn == 0 {
			v[k] = math.Max(0, v[k]-theta)
		}
	}
	// theta loses precision when the weights are large (a long ascent
	// step): the dual's value is a bound only on the simplex itself
	normaliseObjective(cuts, v)
	return sorted
}

// dualEval returns the value at the weights v of the bundle's dual
// function (the model's Lagrangian minimised over X), leaves the minimiser
// in yy and, when g is not nil, the gradient in g: the cuts' values at yy,
// each plus mu/2 ||yy - xt||^2 (the constraint cuts' derivative; the
// objective cuts' derivative plus a constant, which leaves ascent
// directions on the simplex unchanged). The objective weights are taken
// to sum to one.
func (s *bundleMethod) dualEval(xt []float64, mu float64, v, yy, g []float64) float64 {
	bs := s.bundle
	sb := 0.0
	dir := bs.s
	clear(dir)
	for k, c := range bs.cuts {
		if v[k] == 0 {
			continue
		}
		if c.fn != 0 && !s.plain(c.fn) {
			sb += v[k]
		}
		floats.AddScaled(dir, v[k], c.b)
	}
	scale := (1 + sb) * mu
	for j := range yy {
		yy[j] = xt[j] - dir[j]/scale
	}
	s.project(yy)
	q := 0.0
	for j := range yy {
		d := yy[j] - xt[j]
		q += d * d
	}
	q *= mu / 2
	D := (1 + sb) * q
	for k, c := range bs.cuts {
		// dD/dv_k: the cut with its proximal term, if it has one
		lk := c.a + dot(c.b, yy)
		plain := s.plain(c.fn)
		if !plain {
			lk += q
		}
		if g != nil {
			g[k] = lk
		}
		switch {
		case v[k] == 0:
		case plain:
			D += v[k] * lk
		default:
			D += v[k] * (lk - q)
		}
	}
	return D
}
