package dualqp

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The exact finish of the coordinate method: projected Newton steps on
// the dual restricted to its free variables.
//
// At the coordinate method's dual point a row is bound when its slope s_r
// sits at Lo_r with z_r <= 0 or at Hi_r with z_r >= 0 (the dual cannot
// rise by moving it inward), and free otherwise; a constraint's
// multiplier is free when it is positive or its derivative is. With the
// bound rows' slopes fixed, the dual is a function of x = (alpha_F,
// lambda_I) alone,
//
//	H(x) = min_{y in X} <g0 + K x, y> + P/2 ||y - Xt||^2 + h0 + <beta, x>,
//
// with K's column for a free row its A_r, for lambda_i the gradient
// c_i = Q_i + sum over i's bound rows of s_r A_r of its fixed part; its
// gradient is K^T y + beta (the free rows' scores and the constraints'
// values at y = Proj_X(v), v = Xt - g/P) and its (generalised) Hessian
// -K^T J K / P with J the Jacobian of the projection at v: 0 on a
// coordinate at a bound, 1 on a free one, and R/||v_k|| (I - u u^T), u =
// v_k/||v_k||, on a ball block outside its ball (the active ball's
// multiplier mu_k = P (||v_k||/R - 1)/2 enters through this factor). On a
// face where X's active constraints and the free set do not change, H is
// a concave quadratic in x (for boxes and R^n) and one Newton step
// reaches its maximum; on an active ball the step is Newton's on the
// ball's smooth projection. Each step is projected back onto the slopes'
// bounds and lambda >= 0 and kept only when the dual value rises
// (halving it up to finishBacktracks times); any kept point is dual
// feasible, so the lower bound stays certified.

// finishMaxFree bounds the free variables of a Newton step: with more,
// the rows have not yet settled and the coordinate method goes on.
func finishMaxFree(n int) int { return max(2*n, 100) }

// finishBacktracks is how many times a step is halved before the finish
// gives up on it.
const finishBacktracks = 12

// finishVar is one free variable of the Newton step: row r's slope
// (alpha_r = lambda_i s_r) when row >= 0, else constraint con's
// multiplier.
type finishVar struct {
	row int
	con int
}

// cdDual returns the dual value at the coordinate method's point after
// cdRecompute (with the constraints' tightening Slack when slack is set)
// and leaves its primal point in s.y.
func (s *Solver) cdDual(c *cdState, sub *Sub, slack bool) float64 {
	m := s.m
	y := s.y
	copy(y, c.v)
	m.X.Project(y)
	var h ksum
	h.add(m.E[0])
	for i := 1; i <= m.M; i++ {
		e := m.E[i]
		if slack && sub.Slack != nil {
			e += sub.Slack[i-1]
		}
		h.add(s.lam[i] * e)
	}
	for r, sr := range c.s {
		h.add(s.lam[m.Fn[r]] * sr * m.B[r])
	}
	for j, v := range y {
		dd := v - sub.Xt[j]
		h.add(s.g[j]*v + sub.P/2*dd*dd)
	}
	return h.value()
}

// cdFinish runs at most steps projected Newton steps on the dual from the
// coordinate method's point (recomputed on entry), calling kept after
// each step it keeps (with s.y the primal point there). It returns how
// many it kept; 0 also when more variables are free than
// finishMaxFree allows.
func (s *Solver) cdFinish(c *cdState, sub *Sub, steps int, kept func(h float64)) int {
	m, X := s.m, s.m.X
	s.cdRecompute(c, sub)
	cur := s.cdDual(c, sub, true)
	nKept := 0
	saveS := make([]float64, len(c.s))
	saveL := make([]float64, len(s.lam))
	z := s.z
	for step := 0; step < steps; step++ {
		y := s.y
		m.scores(y, z)
		// the free variables and their gradient
		var vars []finishVar
		var grad []float64
		for i := 1; i <= m.M; i++ {
			gi := m.E[i]
			if sub.Slack != nil {
				gi += sub.Slack[i-1]
			}
			if q := m.Q[i]; q != nil {
				gi += dot(q, y)
			}
			for _, r := range s.byFn[i] {
				gi += c.s[r] * z[r]
			}
			if s.lam[i] > 0 || gi > 0 {
				vars = append(vars, finishVar{row: -1, con: i})
				grad = append(grad, gi) // corrected below for the free rows
			}
		}
		nCon := len(vars)
		for r := range c.s {
			i := m.Fn[r]
			if s.lam[i] <= 0 {
				continue
			}
			lo, hi, sr := m.Lo[r], m.Hi[r], c.s[r]
			if (sr <= lo && z[r] <= 0) || (sr >= hi && z[r] >= 0) {
				continue
			}
			vars = append(vars, finishVar{row: r, con: int(i)})
			grad = append(grad, z[r])
		}
		n := len(vars)
		if n == 0 || n > finishMaxFree(m.N) {
			return nKept
		}
		// the free rows of a constraint leave its multiplier's column
		// and derivative
		free := make(map[int]bool, n-nCon)
		for _, v := range vars[nCon:] {
			free[v.row] = true
		}
		K := mat.NewDense(m.N, n, nil)
		for k := 0; k < nCon; k++ {
			i := vars[k].con
			for j, v := range c.d[i] {
				K.Set(j, k, v)
			}
			for _, r := range s.byFn[i] {
				if free[int(r)] {
					sr := c.s[r]
					grad[k] -= sr * z[r]
					for e := m.Ptr[r]; e < m.Ptr[r+1]; e++ {
						K.Set(int(m.Col[e]), k, K.At(int(m.Col[e]), k)-sr*m.Val[e])
					}
				}
			}
		}
		for k := nCon; k < n; k++ {
			r := vars[k].row
			for e := m.Ptr[r]; e < m.Ptr[r+1]; e++ {
				K.Set(int(m.Col[e]), k, K.At(int(m.Col[e]), k)+m.Val[e])
			}
		}
		// J K, row by row: J is diagonal off the active balls
		JK := mat.NewDense(m.N, n, nil)
		scale := make([]float64, len(X.Radius))
		for b, rad := range X.Radius {
			scale[b] = 1
			if nb := c.nb[b]; nb > rad*rad {
				scale[b] = rad / math.Sqrt(nb)
			}
		}
		for j := 0; j < m.N; j++ {
			f := 1.0
			if b := X.Ball[j]; b >= 0 {
				f = scale[b]
			} else if c.v[j] <= X.Lo[j] || c.v[j] >= X.Hi[j] {
				f = 0
			}
			if f != 0 {
				for k := 0; k < n; k++ {
					JK.Set(j, k, f*K.At(j, k))
				}
			}
		}
		for b, rad := range X.Radius {
			if scale[b] == 1 {
				continue
			}
			// - R/||v|| u u^T on the block: u = v/||v||, so the term is
			// - R/||v||^3 v (v^T K)
			nv := math.Sqrt(c.nb[b])
			vk := make([]float64, n)
			for j, bj := range X.Ball {
				if int(bj) == b {
					for k := 0; k < n; k++ {
						vk[k] += c.v[j] * K.At(j, k)
					}
				}
			}
			f := rad / (nv * nv * nv)
			for j, bj := range X.Ball {
				if int(bj) == b {
					for k := 0; k < n; k++ {
						JK.Set(j, k, JK.At(j, k)-f*c.v[j]*vk[k])
					}
				}
			}
		}
		var G mat.Dense
		G.Mul(K.T(), JK)
		// -Hessian = G/P, symmetric positive semidefinite: the model's
		// maximiser over the variables' bounds, from the current point
		hm := make([][]float64, n)
		for a := range hm {
			hm[a] = make([]float64, n)
			for b := range hm[a] {
				hm[a][b] = (G.At(a, b) + G.At(b, a)) / 2 / sub.P
			}
		}
		x0 := make([]float64, n)
		for k, v := range vars {
			if v.row < 0 {
				x0[k] = s.lam[v.con]
			} else {
				x0[k] = s.lam[v.con] * c.s[v.row]
			}
		}
		xs, ok := s.faceQP(hm, grad, vars, x0, nCon)
		if !ok {
			return nKept
		}
		// the segment from x0 to xs is dual feasible: halved until the
		// dual rises
		copy(saveS, c.s)
		copy(saveL, s.lam)
		improved := false
		for t, tries := 1.0, 0; tries <= finishBacktracks; t, tries = t/2, tries+1 {
			copy(c.s, saveS)
			copy(s.lam, saveL)
			for k := 0; k < nCon; k++ {
				i := vars[k].con
				s.lam[i] = math.Max(0, x0[k]+t*(xs[k]-x0[k]))
			}
			for k := nCon; k < n; k++ {
				r, i := vars[k].row, vars[k].con
				a := x0[k] + t*(xs[k]-x0[k])
				if l := s.lam[i]; l > 0 {
					c.s[r] = clamp(a/l, m.Lo[r], m.Hi[r])
				}
			}
			s.cdRecompute(c, sub)
			if h := s.cdDual(c, sub, true); h > cur {
				cur = h
				improved = true
				break
			}
		}
		if !improved {
			copy(c.s, saveS)
			copy(s.lam, saveL)
			s.cdRecompute(c, sub)
			s.cdDual(c, sub, true)
			return nKept
		}
		nKept++
		if kept != nil {
			kept(s.cdDual(c, sub, false))
		}
	}
	return nKept
}

// faceQP maximises the concave quadratic model
//
//	q(x) = <grad, x - x0> - 1/2 (x - x0)^T hm (x - x0)
//
// over the free variables' bounds (lambda >= 0; a row's alpha in
// lambda [Lo, Hi], lambda = 1 for the objective's rows) by a primal active-set
// method from the feasible x0: on each face (the rows at a bound follow
// their multiplier, alpha_r = lambda Lo_r or lambda Hi_r) the model's
// maximiser by a Cholesky solve (with a ridge from 1e-13 of the largest
// diagonal up when singular), a step to it or to the first bound it
// meets, which then binds, and at a face's maximum the release of every
// bound row whose derivative points inward. It returns the maximiser, or
// after faceIters faces the point reached (feasible, above x0 on the
// model); false when no factorisation succeeds or a multiplier reaches
// 0.
func (s *Solver) faceQP(hm [][]float64, grad []float64, vars []finishVar, x0 []float64, nCon int) ([]float64, bool) {
	m := s.m
	n := len(vars)
	x := append([]float64(nil), x0...)
	conVar := make(map[int]int, nCon)
	for k := 0; k < nCon; k++ {
		conVar[vars[k].con] = k
	}
	// bound[k]: 0 free, -1 at lambda Lo, +1 at lambda Hi (rows only)
	bound := make([]int8, n)
	lam := func(x []float64, k int) float64 {
		if vars[k].con == 0 {
			return 1
		}
		return x[conVar[vars[k].con]]
	}
	slopeBound := func(k int, side int8) float64 {
		if side < 0 {
			return m.Lo[vars[k].row]
		}
		return m.Hi[vars[k].row]
	}
	for k := nCon; k < n; k++ {
		l := lam(x, k)
		lo, hi := l*m.Lo[vars[k].row], l*m.Hi[vars[k].row]
		if x[k] <= lo {
			bound[k], x[k] = -1, lo
		} else if x[k] >= hi {
			bound[k], x[k] = 1, hi
		}
	}
	gradAt := func(k int) float64 {
		g := grad[k]
		for j := range x {
			g -= hm[k][j] * (x[j] - x0[j])
		}
		return g
	}
	// the reduced variables' directions: a column per free variable; a
	// multiplier's column moves its bound rows with it
	type col struct {
		idx  []int
		coef []float64
	}
	for it := 0; it < faceIters; it++ {
		var cols []col
		for k := 0; k < n; k++ {
			if k < nCon {
				cl := col{idx: []int{k}, coef: []float64{1}}
				for j := nCon; j < n; j++ {
					if bound[j] != 0 && vars[j].con == vars[k].con {
						cl.idx = append(cl.idx, j)
						cl.coef = append(cl.coef, slopeBound(j, bound[j]))
					}
				}
				cols = append(cols, cl)
			} else if bound[k] == 0 {
				cols = append(cols, col{idx: []int{k}, coef: []float64{1}})
			}
		}
		nr := len(cols)
		g := make([]float64, n)
		for k := range g {
			g[k] = gradAt(k)
		}
		if nr > 0 {
			hr := blas64.Symmetric{N: nr, Stride: nr, Data: make([]float64, nr*nr), Uplo: blas.Upper}
			gr := make([]float64, nr)
			dmax := 0.0
			for a, ca := range cols {
				for p, i := range ca.idx {
					gr[a] += ca.coef[p] * g[i]
				}
				for b := a; b < nr; b++ {
					cb := cols[b]
					v := 0.0
					for p, i := range ca.idx {
						for q, j := range cb.idx {
							v += ca.coef[p] * cb.coef[q] * hm[i][j]
						}
					}
					hr.Data[a*nr+b] = v
				}
				dmax = math.Max(dmax, hr.Data[a*nr+a])
			}
			work := blas64.Symmetric{N: nr, Stride: nr, Data: make([]float64, nr*nr), Uplo: blas.Upper}
			copy(work.Data, hr.Data)
			_, ok := lapack64.Potrf(work)
			for delta := 1e-13 * (dmax + 1e-300); !ok && delta < 1e-2*(dmax+1); delta *= 100 {
				copy(work.Data, hr.Data)
				for a := 0; a < nr; a++ {
					work.Data[a*nr+a] += delta
				}
				_, ok = lapack64.Potrf(work)
			}
			if !ok {
				return nil, false
			}
			tri := blas64.Triangular{N: nr, Stride: nr, Data: work.Data, Uplo: blas.Upper, Diag: blas.NonUnit}
			lapack64.Potrs(tri, blas64.General{Rows: nr, Cols: 1, Stride: 1, Data: gr})
			u := gr
			d := make([]float64, n)
			for a, ca := range cols {
				for p, i := range ca.idx {
					d[i] += ca.coef[p] * u[a]
				}
			}
			// the longest step in [0, 1] that keeps the bounds
			tau, block, side := 1.0, -1, int8(0)
			for k := 0; k < nCon; k++ {
				if d[k] < 0 && x[k]+d[k]*tau < 0 {
					tau, block = -x[k]/d[k], k
				}
			}
			for k := nCon; k < n; k++ {
				if bound[k] != 0 {
					continue
				}
				r := vars[k].row
				dl, l := 0.0, lam(x, k)
				if vars[k].con != 0 {
					dl = d[conVar[vars[k].con]]
				}
				// alpha + t d - (l + t dl) Lo >= 0 and (l + t dl) Hi - alpha - t d >= 0
				if rate := d[k] - dl*m.Lo[r]; rate < 0 {
					if t := (x[k] - l*m.Lo[r]) / -rate; t < tau {
						tau, block, side = math.Max(0, t), k, -1
					}
				}
				if rate := dl*m.Hi[r] - d[k]; rate < 0 {
					if t := (l*m.Hi[r] - x[k]) / -rate; t < tau {
						tau, block, side = math.Max(0, t), k, 1
					}
				}
			}
			for k := range x {
				x[k] += tau * d[k]
			}
			if block >= 0 {
				if block < nCon {
					return x, false
				}
				bound[block] = side
				x[block] = lam(x, block) * slopeBound(block, side)
				continue
			}
			for k := nCon; k < n; k++ {
				if bound[k] != 0 {
					x[k] = lam(x, k) * slopeBound(k, bound[k])
				}
			}
		}
		// at the face's maximum: release every bound row whose
		// derivative points inward (each face's maximum is above the
		// last, so no face repeats)
		released := false
		for k := nCon; k < n; k++ {
			if bound[k] == 0 {
				continue
			}
			if gk := gradAt(k); -float64(bound[k])*gk > 1e-14*(1+math.Abs(grad[k])) {
				bound[k] = 0
				released = true
			}
		}
		if !released {
			return x, true
		}
	}
	// not yet at the maximum: x is feasible and above x0 on the model
	return x, true
}

// faceIters bounds the faces one faceQP visits; the finish goes on from
// where it stopped.
const faceIters = 30
