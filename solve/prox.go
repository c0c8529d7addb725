package solve

import (
	"math"
)

// Separable is a Problem's objective written as f0 = r0 + sum_j P_j(y_j):
// a continuously differentiable rest r0 and separable kinks P_j on single
// variables (l1, MCP, SCAD, pos of a variable, with positive
// coefficients), each a Piecewise1D, on variables whose domain is a box;
// the constraints f1..fM are continuously differentiable. The Prox oracle
// needs it.
type Separable struct {
	// Eval stores r0(x) in vals[0] and fi(x) in vals[i] (len M+1).
	Eval func(x, vals []float64) error
	// Grad stores in g the gradient of w[0] r0 + sum_i w[i] fi at the x of
	// the last Eval.
	Grad func(w, g []float64) error
	// Coords are the kinked variables, each once.
	Coords []SeparableCoord
}

// SeparableCoord is the kink P_j of variable J and J's box [Lo, Hi] in X
// (infinite ends for none): X is that box times the domain of the other
// variables, so that its projection acts on J alone.
type SeparableCoord struct {
	J      int
	P      *Piecewise1D
	Lo, Hi float64
}

// The prox oracle solves (7) for a Problem with a Separable objective
// (Remark 2: any solver of the strongly convex subproblem can be the
// oracle) by the smooth oracle's augmented Lagrangian method, whose inner
// problems
//
//	min_{y in X} Phi(y) = S(y) + sum_j P_j(y_j),
//	S(y) = r0(y) + RhoHat/2 ||y - x_t||^2 + 1/(2c) sum_i (max(0, lambda_i + c Gi(y))^2 - lambda_i^2),
//
// are solved by the proximal gradient method with Barzilai-Borwein steps
// and a nonmonotone acceptance test (SpaRSA, Wright, Nowak & Figueiredo
// 2009): y+ = argmin_{z in X} <grad S(y), z - y> + 1/(2 alpha) ||z - y||^2
// + sum_j P_j(z_j), which splits into the projection of y - alpha grad S
// for the kink-free variables and, for each kinked one, a one-dimensional
// piecewise-quadratic problem minimised exactly (Piecewise1D.MinQuad;
// firm thresholding for MCP), so the kinks never enter a gradient or a
// cutting plane and a zero weight is exactly zero.
//
// The certificate is the smooth oracle's, with the kinks kept exact: at an
// iterate y with multipliers w = max(0, lambda + c G(y)) the Lagrangian
// L(z, w) = A(z) + sum_j P_j(z_j), with A = r0 + RhoHat/2 ||z - x_t||^2 +
// sum_i w_i Gi the smooth part, and A is mu_w-strongly convex (r0 is as
// weakly convex as f0: the kinks are concave between their breakpoints),
// so for every z in X
//
//	L(z, w) >= A(y) + <grad A(y), z - y> + mu_w/2 ||z - y||^2 + sum_j P_j(z_j),
//
// and the right side's minimum over X is exact: the projection for the
// kink-free variables and a one-dimensional minimisation (nonconvex or
// not) for each kinked one. It is a lower bound on the dual function at w,
// hence on min (7).
type proxMethod struct {
	*solver
	o      *ProxOracle
	sep    *Separable
	prob   Problem // the Problem with Eval = r0 + P (exact) and Grad the smooth part's
	kinked []bool  // kinked[j]: variable j has a kink
	al     alState // the warm start
	sb     *smoothBufs
	v      []float64 // the proximal step's argument
	// concave is the kinks' largest concave curvature, max over j of
	// -P_j'' on a piece (1/gamma for MCP): L = A + sum P_j is that much
	// less strongly convex than A, whose modulus the secant test checks
	concave float64
}

func newProxMethod(s *solver, o *ProxOracle) *proxMethod {
	m := &proxMethod{solver: s, o: o, sep: o.Separable, kinked: make([]bool, s.n), v: make([]float64, s.n)}
	for _, c := range m.sep.Coords {
		m.kinked[c.J] = true
		for _, q := range c.P.Q {
			m.concave = math.Max(m.concave, -2*q[0])
		}
	}
	// RhoHat stays at least 3 times the kinks' concave curvature, so that
	// (7), RhoHat - Rho - concave >= RhoHat/6 when Rho = RhoHat/2, stays
	// strongly convex across the kinks: the distance bound
	// (subResult.Concave) and the whole bound, the one that is tight at a
	// solution, stay available (below, solve)
	s.rhoFloor = math.Max(s.rhoFloor, 3*m.concave)
	if s.rhoHat < s.rhoFloor {
		s.rho *= s.rhoFloor / s.rhoHat
		s.rhoHat = s.rhoFloor
	}
	m.prob = *s.p
	m.prob.Eval = func(x, vals []float64) error {
		if err := m.sep.Eval(x, vals); err != nil {
			return err
		}
		vals[0] += m.kinks(x)
		return nil
	}
	m.prob.Grad = m.sep.Grad
	m.prob.Jacobian = nil
	return m
}

func (s *proxMethod) oracle() Oracle { return s.o }

func (s *proxMethod) warmMultipliers() []float64 { return s.al.lam }

// kinks is sum_j P_j(x_j).
func (s *proxMethod) kinks(x []float64) float64 {
	v := 0.0
	for _, c := range s.sep.Coords {
		v += c.P.Value(x[c.J])
	}
	return v
}

// proxStep stores in z the proximal gradient step from y with the
// gradient g of the smooth part and step alpha.
func (s *proxMethod) proxStep(y, g, z []float64, alpha float64) {
	for j := range z {
		z[j] = y[j] - alpha*g[j]
	}
	copy(s.v, z)
	s.project(z)
	for _, c := range s.sep.Coords {
		// argmin P(t) + (t - v)^2 / (2 alpha) over [Lo, Hi]
		t, _ := c.P.MinQuad(1/alpha, -s.v[c.J]/alpha, c.Lo, c.Hi)
		if !math.IsNaN(t) && !math.IsInf(t, 0) {
			z[c.J] = t
		}
	}
}

// solve runs the prox oracle on (7) at xt: the augmented Lagrangian
// skeleton (alSolve) with the prox oracle's steps, in a copy of the
// solver on the Problem of the smooth part (s.prob), which shares the
// solver's buffers and gives back its counts. Its output is in s.out.
func (s *proxMethod) solve(xt []float64, acc accuracy) (res subResult, halt haltReason, err error) {
	in := *s.solver
	in.p = &s.prob
	defer func() { s.solver.stats = in.stats }()
	if s.sb == nil {
		s.sb = (&smoothMethod{solver: &in}).smoothBuffers()
	}
	res.Concave = s.concave
	halt, err = in.alSolve(xt, nil, acc, &s.al, s.sb, s, &res)
	return res, halt, err
}

// alBound stores the gradient of the smooth part S at y in g and raises
// the lower bound with it: the larger of two bounds, split (A's
// linearisation with A's modulus muw plus each P_j exactly) and whole
// (L's subgradient in the strong convexity of L = A + sum P_j).
func (s *proxMethod) alBound(r *alRun, y, g []float64) error {
	sv, b, res := r.sv, r.b, r.res
	lval, muw, err := sv.alGrad(y, r.xt, g, b, r.fval, r.mu)
	if err != nil {
		return err
	}
	// the kink-free variables' part of a bound with modulus mu: the
	// minimum of the linearisation plus mu/2 ||z - y||^2 over X
	free := func(mu float64) float64 {
		z := b.z
		for j := range z {
			z[j] = y[j] - g[j]/mu
		}
		sv.project(z)
		v := 0.0
		for j := range z {
			if s.kinked[j] {
				continue
			}
			dz := z[j] - y[j]
			v += g[j]*dz + mu/2*dz*dz
		}
		return v
	}
	// two bounds, the larger is kept: split, A's linearisation with
	// A's modulus muw plus each P_j exactly; and whole, L's
	// subgradient xi = g + (a slope of P_j at y_j) in the strong
	// convexity of L = A + sum P_j, whose modulus is muw less the
	// kinks' concave curvature (none when that is not positive)
	split := lval + free(muw)
	for _, cd := range s.sep.Coords {
		// min over [Lo, Hi] of g (t - y) + muw/2 (t - y)^2 + P(t), less P(y)
		yj, gj := y[cd.J], g[cd.J]
		_, v := cd.P.MinQuad(muw, gj-muw*yj, cd.Lo, cd.Hi)
		split += v - gj*yj + muw/2*yj*yj - cd.P.Value(yj)
	}
	bound := split
	if muL := muw - s.concave; muL > 0 {
		whole := lval + free(muL)
		for _, cd := range s.sep.Coords {
			whole += wholeTerm(cd, y[cd.J], g[cd.J], muL)
		}
		bound = math.Max(split, whole)
	}
	if math.IsNaN(bound) {
		bound = math.Inf(-1)
	}
	b.innerGap = lval - bound
	if bound > res.Lower {
		res.Lower = bound
		copy(res.Lambda, b.w)
	}
	return nil
}

// alBegin keeps nothing between inner solves.
func (s *proxMethod) alBegin(*alRun) {}

// alTry is the proximal gradient step from y with step alpha, halved
// until Phi falls by 1e-4/(2 alpha) ||step||^2 below phiMax (a point that
// cannot be evaluated fails the test), at most spgLineSearch times.
func (s *proxMethod) alTry(r *alRun, y, g []float64, _, phiMax float64, alpha *float64) (phiT float64, accepted bool, halt haltReason) {
	ytr := r.b.ytr
	var err error
	for range spgLineSearch {
		if h := r.sv.halted(); h != running {
			return phiT, false, h
		}
		s.proxStep(y, g, ytr, *alpha)
		dd := 0.0
		for j := range ytr {
			d := ytr[j] - y[j]
			dd += d * d
		}
		if dd == 0 {
			break
		}
		if phiT, err = r.evalPhi(ytr); err == nil && phiT <= phiMax-1e-4/(2**alpha)*dd {
			return phiT, true, running
		}
		*alpha /= 2
	}
	return phiT, false, running
}

// alTook keeps no model of the curvature.
func (s *proxMethod) alTook(*alRun, []float64, []float64, []float64, []float64, float64, float64) {}

// wholeTerm is min over t in [Lo, Hi] of xi (t - y) + mu/2 (t - y)^2 for
// the subgradient xi of L in g + [left, right slope of P at y] that makes
// it largest: the one nearest the set where the minimiser is y itself
// ({0} inside the box, [0, Inf) at Lo, (-Inf, 0] at Hi).
func wholeTerm(cd SeparableCoord, y, g, mu float64) float64 {
	dl, dr := cd.P.Slopes(y)
	lo, hi := g+dl, g+dr
	zlo, zhi := 0.0, 0.0 // the set where t = y
	if y <= cd.Lo {
		zhi = math.Inf(1)
	}
	if y >= cd.Hi {
		zlo = math.Inf(-1)
	}
	var xi float64
	switch {
	case hi < zlo:
		xi = hi
	case lo > zhi:
		xi = lo
	default:
		return 0
	}
	t := math.Min(math.Max(y-xi/mu, cd.Lo), cd.Hi)
	return xi*(t-y) + mu/2*(t-y)*(t-y)
}
