package solve

import "math"

// alStep is what the smooth and prox oracles' runs of the augmented
// Lagrangian method (alSolve) do each in their own way, as gonum/optimize's
// NextDirectioner is to its LinesearchMethod: the lower bound taken from a
// gradient, and the trial step. The smooth oracle's step (smoothMethod)
// is an L-BFGS step projected onto X, else a spectral projected gradient
// step with an Armijo search, and its bound one linearisation; the prox
// oracle's (proxMethod) a proximal gradient step that treats the kinks
// exactly, and its bound the larger of two that take the kinks exactly.
type alStep interface {
	// alBound stores in g the gradient at y (the point r evaluated last,
	// r.fval its F) of the Lagrangian's smooth part with the multipliers
	// r.b.w, raises r.res's lower bound with it, and sets r.b.innerGap,
	// the gap of that bound at y.
	alBound(r *alRun, y, g []float64) error
	// alBegin starts an inner solve: Phi changed with the multipliers.
	alBegin(r *alRun)
	// alTry makes one trial step from y (gradient g, value phi; phiMax
	// the non-monotone reference value) into r.b.ytr with the step alpha,
	// which it may shorten, and returns its Phi and whether it is
	// accepted; a halt ends the solve.
	alTry(r *alRun, y, g []float64, phi, phiMax float64, alpha *float64) (phiT float64, accepted bool, halt haltReason)
	// alTook tells of an accepted step from y to ytr with the gradient
	// from g to gnew, and their secant products sts = |s|^2, sty = <s, y>.
	alTook(r *alRun, ytr, y, gnew, g []float64, sts, sty float64)
}

// alRun is one solve of (7) at xt by the augmented Lagrangian skeleton
// (alSolve): the solver it runs in (the oracle's own, or a copy on
// another Problem), its buffers, the multipliers lam and penalty c, and
// what it found so far in res.
type alRun struct {
	sv  *solver
	xt  []float64
	b   *smoothBufs
	lam []float64
	c   float64
	res *subResult
	mu  float64 // RhoHat - Rho, (7)'s strong convexity through its objective
	// evals counts the evaluations of Phi; fval is F at the point last
	// evaluated; bestDist is ||yf - xt|| for the best feasible point yf
	evals    int
	fval     float64
	bestDist float64
}

// evalPhi evaluates Phi at y (and notes y when it is a better feasible
// point).
func (r *alRun) evalPhi(y []float64) (float64, error) {
	r.evals++
	phi, fv, dist, better, err := r.sv.alPhi(y, r.xt, r.b, r.lam, r.c, r.res)
	if err != nil {
		return 0, err
	}
	r.fval = fv
	if better {
		r.bestDist = dist
	}
	return phi, nil
}

// alSolve solves (7) at xt by the augmented Lagrangian method that the
// smooth and prox oracles share, in the solver sv with the buffers b and
// the warm start st (updated on return), from y0 (xt when nil, projected)
// with the steps of step: inner solves of Phi over X by non-monotone
// accepted trial steps (alTry, over the last spgMemory values) with a
// spectral step length, each ending when the bound's gap at the point is
// below the inner tolerance omega, when no trial step is accepted, or
// when the accuracy acc is reached (settled); then the multipliers' and
// the penalty's update (alUpdate), omega a tenth of what it was. It ends
// after acc.MaxEvals evaluations, when acc is reached, or after more than
// three inner solves in a row that moved nothing. res must be as
// alStart leaves it; the best feasible point is in sv.out, else the last
// point (res.F its F).
func (sv *solver) alSolve(xt, y0 []float64, acc accuracy, st *alState, b *smoothBufs, step alStep, res *subResult) (haltReason, error) {
	r := &alRun{sv: sv, xt: xt, b: b, res: res, mu: sv.rhoHat - sv.rho}
	r.lam, r.c = sv.alStart(st, b, res)
	done := func() bool { return sv.settled(acc, res, r.bestDist) }

	y, g := b.y, b.g
	copy(y, xt)
	if y0 != nil {
		copy(y, y0)
	}
	sv.project(y)
	phi, err := r.evalPhi(y)
	if err != nil {
		return running, err
	}
	if err := step.alBound(r, y, g); err != nil {
		return running, err
	}
	alpha := st.alpha
	if alpha == 0 {
		alpha = 1 / math.Max(r.mu, norm(g))
	}
	omega := math.Max(1e-2, sv.epsHat2) // the inner tolerance on the Lagrangian gap
	prevViol := math.Inf(1)
	stalls := 0
	for r.evals < acc.MaxEvals && !done() {
		// the inner problem: minimise Phi over X
		hist := b.hist[:0]
		hist = append(hist, phi)
		step.alBegin(r)
		progressed, stuck := false, false
		for r.evals < acc.MaxEvals && b.innerGap > omega && !done() {
			if h := sv.halted(); h != running {
				return h, nil
			}
			phiMax := hist[0]
			for _, h := range hist {
				phiMax = math.Max(phiMax, h)
			}
			phiT, accepted, h := step.alTry(r, y, g, phi, phiMax, &alpha)
			if h != running {
				return h, nil
			}
			if !accepted {
				stuck = true
				break
			}
			ytr, gnew := b.ytr, b.gnew
			if err := step.alBound(r, ytr, gnew); err != nil {
				return running, err
			}
			sts, sty := 0.0, 0.0
			for j := range ytr {
				sj := ytr[j] - y[j]
				yj := gnew[j] - g[j]
				sts += sj * sj
				sty += sj * yj
			}
			if sts > 1e-20*(1+dot(y, y)) && sty < 0.99*r.mu*sts && !sv.p.nonlinearEq {
				// Phi's smooth part is mu-strongly convex when every fi
				// is Rho-weakly convex: this secant shows it is not
				res.Nonconvex = true
			}
			if sty > 0 {
				alpha = math.Min(spgMaxStep, math.Max(spgMinStep, sts/sty))
			} else {
				alpha = spgMaxStep
			}
			step.alTook(r, ytr, y, gnew, g, sts, sty)
			progressed = true
			copy(y, ytr)
			copy(g, gnew)
			phi = phiT
			if len(hist) == spgMemory {
				copy(hist, hist[1:])
				hist = hist[:spgMemory-1]
			}
			hist = append(hist, phi)
		}
		b.hist = hist
		if done() || r.evals >= acc.MaxEvals {
			break
		}
		if progressed || !stuck {
			stalls = 0
		} else if stalls++; stalls > 3 {
			break // no step makes progress: the gap is at rounding level
		}
		omega = math.Max(omega/10, 1e-300)
		if sv.m == 0 {
			continue // Phi = F: only the inner tolerance tightens
		}
		if r.c, prevViol, err = sv.alUpdate(y, b, r.lam, r.c, res, acc, &r.bestDist, progressed, prevViol, r.evalPhi); err != nil {
			return running, err
		}
		// Phi changed with lambda and c: refresh its value and gradient
		if phi, err = r.evalPhi(y); err != nil {
			return running, err
		}
		if err := step.alBound(r, y, g); err != nil {
			return running, err
		}
	}
	copy(st.lam, r.lam)
	st.c = math.Max(alStartC, r.c/25) // start the next subproblem a little softer
	st.alpha = alpha
	res.Evals = r.evals
	if !res.Feasible {
		copy(sv.out, y)
		res.F = r.fval
	}
	return running, nil
}
