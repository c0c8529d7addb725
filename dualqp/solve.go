package dualqp

import (
	"math"
	"math/rand/v2"
)

// Sub is one proximal subproblem of a Model:
//
//	min_{y in X} F(y) = f_0(y) + P/2 ||y - Xt||^2   s.t.  f_i(y) <= 0 (i = 1..M).
//
// The constraints carry no proximal term: they are convex (Model).
type Sub struct {
	Xt []float64
	P  float64 // > 0
	// Project is the Euclidean projection onto X, in place; nil means R^N.
	Project func([]float64)
	// Slack[i-1] >= 0 tightens constraint i to f_i <= -Slack in the
	// search for primal points (nil: none), so that the points found near
	// the optimum are strictly feasible; the lower bound is always of the
	// subproblem as stated.
	Slack []float64
}

// Result is what Solve found.
type Result struct {
	// Lower is a lower bound on the subproblem's minimum: the dual value
	// at a dual feasible point (valid whatever accuracy was reached).
	Lower float64
	// Lambda are the constraints' multipliers of that dual point (len M).
	Lambda []float64
	// Y is the point with the lowest F among those found with f_i(Y) <= 0
	// for every constraint by the model's values (nil when none was); F
	// is F(Y).
	Y []float64
	F float64
	// Iters counts the dual ascent steps.
	Iters int
	// Screened is how many rows the last round of safe screening fixed
	// (0 when Solve did not screen; screen.go).
	Screened int
}

// Solver solves the subproblems of one Model by accelerated projected
// gradient ascent (FISTA with adaptive restart) on the dual over the
// terms' slopes alpha and the multipliers lambda:
//
//	max H(lambda, alpha) = min_{y in X} <g, y> + P/2 ||y - Xt||^2 + <B, alpha> + E_0 + sum_i lambda_i E_i,
//	g = A^T alpha + Q_0 + sum_i lambda_i Q_i,
//	alpha_r in [Lo_r, Hi_r] for the objective's rows, lambda_i [Lo_r, Hi_r] for constraint i's, lambda >= 0.
//
// H is concave with a gradient that is Lipschitz with constant
// ||K||^2 / P (K the linear map (lambda, alpha) -> g, the projection
// being 1-Lipschitz): its partial derivatives are z_r(y) and f_i's affine
// rest at y = Proj_X(Xt - g/P), the minimiser, which is also the primal
// candidate. Every dual feasible point's H is a lower bound on the
// subproblem (weak duality), so Lower is certified at any step. The dual
// point is kept from one Solve to the next as a warm start. Not safe for
// concurrent use.
type Solver struct {
	m      *Model
	byFn   [][]int32 // the rows of each function
	knorm2 float64   // an estimate of ||K||^2 from above, 0 until computed
	// the dual point (lam[0] = 1 for the objective) and its warm start
	lam, alpha []float64
	// work space
	ulam, ualpha, plam, palpha []float64
	g, y, z, vals              []float64
	best                       []float64
	cd                         *cdState  // the coordinate method's state (Model.X set)
	atXt, pulled, zp           []float64 // the functions at Xt; candidate's work space
	// margin, when not nil, is how far below 0 a candidate's constraints
	// must be (len M): a screening round's reduced model asks its
	// candidates to keep half the tightening Sub.Slack, so that the
	// rows it left out and rounding do not make them infeasible on the
	// whole model
	margin []float64
}

// NewSolver returns a solver of m's subproblems; m must pass Check.
func NewSolver(m *Model) *Solver {
	R := m.Rows()
	s := &Solver{m: m, byFn: make([][]int32, m.M+1)}
	for r, f := range m.Fn {
		s.byFn[f] = append(s.byFn[f], int32(r))
	}
	s.lam = make([]float64, m.M+1)
	s.lam[0] = 1
	s.alpha = make([]float64, R)
	for r := range s.alpha {
		if m.Fn[r] == 0 {
			s.alpha[r] = clamp(0, m.Lo[r], m.Hi[r])
		}
	}
	s.ulam, s.plam = make([]float64, m.M+1), make([]float64, m.M+1)
	s.ualpha, s.palpha = make([]float64, R), make([]float64, R)
	s.g, s.y, s.best = make([]float64, m.N), make([]float64, m.N), make([]float64, m.N)
	s.z = make([]float64, R)
	s.vals = make([]float64, m.M+1)
	s.atXt, s.pulled, s.zp = make([]float64, m.M+1), make([]float64, m.N), make([]float64, R)
	return s
}

func clamp(v, lo, hi float64) float64 { return math.Min(hi, math.Max(lo, v)) }

// Lambda returns the multipliers of the warm start (len M; shared).
func (s *Solver) Lambda() []float64 { return s.lam[1:] }

// primal stores g = A^T alpha + sum_i lam_i Q_i (lam_0 = 1) and y =
// Proj_X(Xt - g/P) for the dual point (lam, alpha), and returns the dual
// value H there (with the constants E).
func (s *Solver) primal(sub *Sub, lam, alpha []float64) float64 {
	m := s.m
	g := s.g
	clear(g)
	h := 0.0
	for i, q := range m.Q {
		h += lam[i] * m.E[i]
		if q != nil && lam[i] != 0 {
			for j, v := range q {
				g[j] += lam[i] * v
			}
		}
	}
	for r, a := range alpha {
		if a == 0 {
			continue
		}
		h += a * m.B[r]
		for k := m.Ptr[r]; k < m.Ptr[r+1]; k++ {
			g[m.Col[k]] += a * m.Val[k]
		}
	}
	y := s.y
	for j := range y {
		y[j] = sub.Xt[j] - g[j]/sub.P
	}
	if sub.Project != nil {
		sub.Project(y)
	}
	for j, v := range y {
		d := v - sub.Xt[j]
		h += g[j]*v + sub.P/2*d*d
	}
	return h
}

// restBound is the dual value at lam = (1, 0, ..., 0), alpha = 0, a dual
// point when every objective row's slope interval [Lo, Hi] holds 0 (pos
// and hinge have [0, 1], abs [-1, 1]; -Inf otherwise): the minimum over X
// of the objective's affine rest plus P/2 ||y - Xt||^2. It is where the ascent ends when the pieces
// all vanish near Xt (separable data, objective 0), which from a warm
// start at small P it approaches too slowly to certify; offering it costs
// one projection. It leaves its point in s.y.
func (s *Solver) restBound(sub *Sub) float64 {
	for r, fn := range s.m.Fn {
		if fn == 0 && !(s.m.Lo[r] <= 0 && 0 <= s.m.Hi[r]) {
			return math.Inf(-1)
		}
	}
	lam := make([]float64, s.m.M+1)
	lam[0] = 1
	return s.primal(sub, lam, nil)
}

// candidate offers y as the result's point: when the model finds it
// feasible (f_i <= -margin_i, margin nil for 0), or else the point of the
// segment from Xt to y where the linear interpolation of every violated
// constraint from its value at Xt (< -margin_i) reaches -margin_i,
// feasible by convexity (checked on the model). It leaves y's scores in
// s.z.
func (s *Solver) candidate(sub *Sub, y []float64, res *Result) {
	m := s.m
	m.scores(y, s.z)
	m.valuesFrom(y, s.z, s.vals)
	theta := 1.0
	limit := func(i int) float64 {
		if s.margin == nil {
			return 0
		}
		return -s.margin[i-1]
	}
	for i := 1; i <= m.M; i++ {
		t := limit(i)
		if gy := s.vals[i]; gy > t {
			gx := s.atXt[i]
			if !(gx < t) {
				return
			}
			theta = math.Min(theta, (t-gx)/(gy-gx)*(1-1e-9))
		}
	}
	p := y
	if theta < 1 {
		p = s.pulled
		for j := range p {
			p[j] = sub.Xt[j] + theta*(y[j]-sub.Xt[j])
		}
		m.scores(p, s.zp)
		m.valuesFrom(p, s.zp, s.vals)
		for i := 1; i <= m.M; i++ {
			if s.vals[i] > limit(i) {
				return
			}
		}
	}
	f := s.vals[0]
	for j, v := range p {
		d := v - sub.Xt[j]
		f += sub.P / 2 * d * d
	}
	if f < res.F {
		res.F = f
		copy(s.best, p)
		res.Y = s.best
	}
}

// normEstimate estimates ||K||^2 by power iteration on K^T K, rounded up.
func (s *Solver) normEstimate() float64 {
	m := s.m
	rng := rand.New(rand.NewPCG(1, 2))
	vl, va := make([]float64, m.M+1), make([]float64, m.Rows())
	for i := 1; i <= m.M; i++ {
		vl[i] = rng.Float64()
	}
	for r := range va {
		va[r] = rng.Float64()
	}
	g := make([]float64, m.N)
	est := 0.0
	for it := 0; it < 40; it++ {
		nv := 0.0
		for _, v := range vl {
			nv += v * v
		}
		for _, v := range va {
			nv += v * v
		}
		if nv == 0 {
			return 0
		}
		nv = math.Sqrt(nv)
		clear(g)
		for i := 1; i <= m.M; i++ {
			if q := m.Q[i]; q != nil {
				for j, v := range q {
					g[j] += vl[i] / nv * v
				}
			}
		}
		for r := range va {
			a := va[r] / nv
			for k := m.Ptr[r]; k < m.Ptr[r+1]; k++ {
				g[m.Col[k]] += a * m.Val[k]
			}
		}
		est = dot(g, g) // ||K v||^2 for the unit v
		for i := 1; i <= m.M; i++ {
			vl[i] = 0
			if q := m.Q[i]; q != nil {
				vl[i] = dot(q, g)
			}
		}
		for r := range va {
			t := 0.0
			for k := m.Ptr[r]; k < m.Ptr[r+1]; k++ {
				t += m.Val[k] * g[m.Col[k]]
			}
			va[r] = t
		}
	}
	return 1.2*est + 1e-300
}

// Solve runs at most maxIter dual ascent steps on sub from the warm
// start. Every `every` steps it calls stop with the best lower bound, the
// best F found so far and its point (nil when none yet; shared, valid
// until the next step), and stops when stop returns true.
func (s *Solver) Solve(sub Sub, maxIter, every int, stop func(lower, upper float64, y []float64, iters int) bool) Result {
	m := s.m
	m.scores(sub.Xt, s.z)
	m.valuesFrom(sub.Xt, s.z, s.atXt)
	if m.X != nil {
		if m.Rows() >= screenMinRows {
			return s.solveScreened(sub, maxIter, every, stop)
		}
		return s.solveCD(sub, maxIter, every, stop)
	}
	if s.knorm2 == 0 {
		s.knorm2 = s.normEstimate()
	}
	res := Result{Lower: math.Inf(-1), F: math.Inf(1), Lambda: make([]float64, m.M)}
	// the warm start, made feasible (a caller may have changed nothing,
	// but the projection is cheap)
	s.projectCone(s.lam, s.alpha)
	keepBound := func(h float64, lam []float64) {
		if h > res.Lower {
			res.Lower = h
			copy(res.Lambda, lam[1:])
		}
	}
	if h := s.restBound(&sub); h > res.Lower {
		res.Lower = h // with multipliers 0 (res.Lambda as made)
		s.candidate(&sub, s.y, &res)
	}
	keepBound(s.primal(&sub, s.lam, s.alpha), s.lam)
	L := s.knorm2 / sub.P
	if L <= 0 {
		L = 1 / sub.P
	}
	copy(s.ulam, s.lam)
	copy(s.ualpha, s.alpha)
	t := 1.0
	lastH := res.Lower
	for it := 1; it <= maxIter; it++ {
		res.Iters = it
		// the gradient at u, and u's primal point as a candidate
		s.primal(&sub, s.ulam, s.ualpha)
		s.candidate(&sub, s.y, &res)
		// the step from u, projected
		step := 1 / L
		for r := range s.palpha {
			s.palpha[r] = s.ualpha[r] + step*s.z[r]
		}
		s.plam[0] = 1
		for i := 1; i <= m.M; i++ {
			gi := m.E[i]
			if q := m.Q[i]; q != nil {
				gi += dot(q, s.y)
			}
			if sub.Slack != nil {
				gi += sub.Slack[i-1]
			}
			s.plam[i] = s.ulam[i] + step*gi
		}
		s.projectCone(s.plam, s.palpha)
		// adaptive restart (O'Donoghue & Candes): drop the momentum when
		// the step goes against the last move
		inner := 0.0
		for r := range s.palpha {
			inner += (s.ualpha[r] - s.palpha[r]) * (s.palpha[r] - s.alpha[r])
		}
		for i := 1; i <= m.M; i++ {
			inner += (s.ulam[i] - s.plam[i]) * (s.plam[i] - s.lam[i])
		}
		tn := (1 + math.Sqrt(1+4*t*t)) / 2
		beta := (t - 1) / tn
		if inner > 0 {
			tn, beta = 1, 0
		}
		for r := range s.palpha {
			a := s.palpha[r]
			s.ualpha[r] = a + beta*(a-s.alpha[r])
			s.alpha[r] = a
		}
		for i := 1; i <= m.M; i++ {
			l := s.plam[i]
			s.ulam[i] = math.Max(0, l+beta*(l-s.lam[i]))
			s.lam[i] = l
		}
		// u stays in the cone for the objective's box rows only after a
		// projection; the extrapolation may leave it, which the gradient
		// step tolerates (H is defined everywhere)
		t = tn
		if it%max(1, every) == 0 || it == maxIter {
			h := s.primal(&sub, s.lam, s.alpha)
			keepBound(h, s.lam)
			if h < lastH-1e-12*(1+math.Abs(lastH)) {
				// the Lipschitz estimate was too low: halve the steps
				L *= 2
				s.knorm2 *= 2
				t = 1
				copy(s.ulam, s.lam)
				copy(s.ualpha, s.alpha)
			}
			lastH = h
			if stop != nil && stop(res.Lower, res.F, res.Y, it) {
				break
			}
		}
	}
	return res
}

// projectCone projects (lam, alpha) in place onto the dual's feasible
// set: alpha_r in [Lo_r, Hi_r] for the objective's rows, and for each
// constraint i the cone lam_i >= 0, alpha_r in lam_i [Lo_r, Hi_r]
// (coneProject); lam[0] is 1.
func (s *Solver) projectCone(lam, alpha []float64) {
	m := s.m
	lam[0] = 1
	for _, r := range s.byFn[0] {
		alpha[r] = clamp(alpha[r], m.Lo[r], m.Hi[r])
	}
	for i := 1; i <= m.M; i++ {
		lam[i] = s.coneProject(lam[i], alpha, s.byFn[i])
		for _, r := range s.byFn[i] {
			alpha[r] = clamp(alpha[r], lam[i]*m.Lo[r], lam[i]*m.Hi[r])
		}
	}
}

// coneProject returns the lam >= 0 of the Euclidean projection of (l0,
// alpha over rows) onto {lam >= 0, lam Lo_r <= alpha_r <= lam Hi_r}: the
// root of the nondecreasing piecewise-linear derivative of
// phi(lam) = (lam - l0)^2 + sum_r dist(alpha_r, lam [Lo_r, Hi_r])^2, by
// Newton steps kept inside a bracket.
func (s *Solver) coneProject(l0 float64, alpha []float64, rows []int32) float64 {
	m := s.m
	dphi := func(l float64) (d, slope float64) {
		d, slope = l-l0, 1
		for _, r := range rows {
			a, lo, hi := alpha[r], l*m.Lo[r], l*m.Hi[r]
			switch {
			case a < lo:
				d += (lo - a) * m.Lo[r]
				slope += m.Lo[r] * m.Lo[r]
			case a > hi:
				d += (hi - a) * m.Hi[r]
				slope += m.Hi[r] * m.Hi[r]
			}
		}
		return d, slope
	}
	d0, _ := dphi(0)
	if d0 >= 0 {
		return 0
	}
	a, b := 0.0, math.Max(l0, 0)
	for _, r := range rows {
		if m.Hi[r] > 0 {
			b = math.Max(b, alpha[r]/m.Hi[r])
		}
		if m.Lo[r] < 0 {
			b = math.Max(b, alpha[r]/m.Lo[r])
		}
	}
	if db, _ := dphi(b); db <= 0 {
		return b
	}
	l := math.Max(a, math.Min(b, l0))
	for k := 0; k < 100 && b-a > 1e-15*(1+b); k++ {
		d, slope := dphi(l)
		if d == 0 {
			return l
		}
		if d < 0 {
			a = l
		} else {
			b = l
		}
		n := l - d/slope
		if !(n > a && n < b) {
			n = (a + b) / 2
		}
		l = n
	}
	return l
}
