package solve

import "math"

// certificateRounds bounds the refits of the multipliers against the
// domain's normal cone.
const certificateRounds = 6

// certificate computes the Certificate at the returned point pt, or nil
// when it cannot (Stop during its oracle run, an evaluation error, no
// feasible inner iterate). It runs past the time limit: the statuses it is
// computed for (Converged, IterationLimit) were reached before it.
//
//  1. x_hat: Algorithm 2 on (7) at x = pt.X with CertificateInnerFactor
//     times Inner iterations and the final RhoHat and Rho. Dist = ||x - x_hat||.
//  2. The subgradients: for f0, and for each constraint the oracle stepped
//     on in the second half of that run, the (k+1)-weighted average of the
//     subgradients it used there (an approximate subgradient at x_hat that,
//     unlike one subgradient at a kink, reflects the whole subdifferential
//     the iterates saw); for the other constraints, Grad at x_hat. Then
//     si = that + RhoHat (x_hat - x).
//  3. Active constraints: those with fi(x_hat) + RhoHat/2 ||x_hat - x||^2
//     >= -Eps, and those the oracle stepped on in the second half of its
//     run (its averaged output lies slightly inside a constraint it keeps
//     crossing, by about the oracle's accuracy, which may exceed Eps).
//  4. Multipliers: lambda >= 0 minimising ||s0 + sum_active lambda_i si +
//     sum_j nu_j n_j|| over lambda >= 0 and nu >= 0 by NNLS, where the n_j
//     are unit normal vectors of X found by the projection: with
//     r = s0 + sum lambda_i si and y = x_hat - r/RhoHat, y - Proj_X(y) is
//     normal to X at Proj_X(y). Starting with no n_j, each round adds the
//     normal of the previous round's fit (up to certificateRounds rounds;
//     none are added when X is R^N).
//  5. KKTResidual = RhoHat ||x_hat - Proj_X(x_hat - r/RhoHat)|| for the
//     multipliers of the best round (lowest such residual).
func (s *solver) certificate(pt *Point) *Certificate {
	s.exactMode() // on every row of the data, whatever the oracle
	// the point was reached in time: certify it even past the time limit
	s.ignoreDeadline = true
	defer func() { s.ignoreDeadline = false }()
	if s.set.Oracle == Stochastic {
		defer s.monitorMode()
	}
	x := pt.X
	K := s.certificateInner()
	s.avg = &subgradAvg{from: K / 2, sum: make([][]float64, s.m+1), w: make([]float64, s.m+1)}
	if s.p.Project != nil {
		s.avg.normal = make([]float64, s.n)
		s.avg.pre = make([]float64, s.n)
	}
	info, err := s.oracle(x, K, false, false)
	avg := s.avg
	s.avg = nil
	if err != nil || info.halt != running || info.emptyI {
		return nil
	}
	xhat := clone(s.out)
	c := &Certificate{XHat: xhat, Dist: dist(x, xhat), Multipliers: make([]float64, s.m), Inner: K}
	c.Stationary = c.Dist <= s.set.Eps && pt.Infeasibility <= s.set.Eps

	if err := s.eval(xhat); err != nil {
		return nil
	}
	vals := clone(s.vals)
	q := s.rhoHat / 2 * c.Dist * c.Dist
	sub := func(i int) []float64 {
		si := make([]float64, s.n)
		if avg.w[i] > 0 {
			for j := range si {
				si[j] = avg.sum[i][j] / avg.w[i]
			}
		} else {
			if s.gradient(i) != nil {
				return nil
			}
			copy(si, s.grad)
		}
		for j := range si {
			si[j] += s.rhoHat * (xhat[j] - x[j])
		}
		return si
	}
	s0 := sub(0)
	if s0 == nil {
		return nil
	}
	var active []int
	var cols [][]float64
	for i := 1; i <= s.m; i++ {
		if vals[i]+q >= -s.set.Eps || avg.w[i] > 0 {
			si := sub(i)
			if si == nil {
				return nil
			}
			active = append(active, i)
			cols = append(cols, si)
		}
	}

	b := make([]float64, s.n)
	for j := range b {
		b[j] = -s0[j]
	}
	r := make([]float64, s.n)
	y := make([]float64, s.n)
	p := make([]float64, s.n)
	best := math.Inf(1)
	var bestLam []float64
	var normals [][]float64
	if avg.normal != nil {
		if nv := norm(avg.normal); nv > 0 {
			v := clone(avg.normal)
			for j := range v {
				v[j] /= nv
			}
			normals = append(normals, v)
		}
	}
	for round := 0; round < certificateRounds; round++ {
		coef, _ := nnls(append(cols[:len(cols):len(cols)], normals...), b)
		lam := coef[:len(cols)]
		copy(r, s0)
		for k, l := range lam {
			for j := range r {
				r[j] += l * cols[k][j]
			}
		}
		for j := range y {
			y[j] = xhat[j] - r[j]/s.rhoHat
		}
		copy(p, y)
		s.project(p)
		res := s.rhoHat * dist(xhat, p)
		if !(res < best) {
			break // the last normal did not help
		}
		best, bestLam = res, clone(lam)
		v := make([]float64, s.n)
		for j := range v {
			v[j] = y[j] - p[j]
		}
		nv := norm(v)
		if nv <= 1e-12*(1+norm(y)) || res == 0 {
			break
		}
		for j := range v {
			v[j] /= nv
		}
		normals = append(normals, v)
	}
	c.KKTResidual = best
	for k, i := range active {
		c.Multipliers[i-1] = bestLam[k]
	}
	return c
}

// certificateInner is the number of iterations of the certificate's oracle
// run: CertificateInnerFactor*Inner, except for the stochastic oracle on
// data whose evaluation on all rows costs more than MaxPolishCost minibatch
// evaluations, where it shrinks in proportion (to at least Inner), so that
// the certificate costs no more than about CertificateInnerFactor*Inner*
// MaxPolishCost minibatch evaluations. Fewer iterations leave more of the
// oracle's error in XHat, so Dist is a less accurate measure.
func (s *solver) certificateInner() int {
	K := CertificateInnerFactor * s.set.Inner
	if s.set.Oracle != Stochastic {
		return K
	}
	if c, ok := s.p.Sampler.(CostReporter); ok && c.FullCost() > MaxPolishCost {
		K = max(s.set.Inner, int(float64(K)*MaxPolishCost/c.FullCost()))
	}
	return K
}
