package dualqp

import (
	"math"
	"math/rand/v2"
)

// Domain is X as a product the coordinate method can project onto one
// coordinate at a time: coordinate j in [Lo[j], Hi[j]] (infinite for no
// bound) and, when Ball[j] >= 0, in the Euclidean ball of radius
// Radius[Ball[j]] with the other coordinates of that block (whose bounds
// are then infinite). A ball block is projected by scaling, so y_j =
// clamp(v_j min(1, R/||v_block||), Lo_j, Hi_j).
type Domain struct {
	Lo, Hi []float64
	Ball   []int32
	Radius []float64
}

// Project replaces x by its projection onto d.
func (d *Domain) Project(x []float64) {
	nb := make([]float64, len(d.Radius))
	for j, k := range d.Ball {
		if k >= 0 {
			nb[k] += x[j] * x[j]
		}
	}
	for j := range x {
		x[j] = d.at(j, x[j], nb)
	}
}

// at is coordinate j of the projection of a point whose coordinate j is v
// and whose ball blocks have the squared norms nb.
func (d *Domain) at(j int, v float64, nb []float64) float64 {
	if k := d.Ball[j]; k >= 0 {
		if r := d.Radius[k]; nb[k] > r*r {
			v *= r / math.Sqrt(nb[k])
		}
		return v
	}
	return clamp(v, d.Lo[j], d.Hi[j])
}

// cdState is the coordinate method's dual point: the slope s_r in
// [Lo_r, Hi_r] of each row (alpha_r = lambda_i s_r), kept as a warm start.
type cdState struct {
	s      []float64
	d      [][]float64 // Q_i + sum over constraint i's rows of s_r A_r (i >= 1); d[0] the objective's
	dsum   [][]ksum    // cdRecompute's sums for d
	v, nb  []float64
	scale  []float64 // the ball blocks' projection factors from nb (cdScale)
	perm   []int32   // the order of the row blocks (its first blocks entries)
	rowsq  []float64 // ||A_r||^2
	yl     []float64
	rng    *rand.Rand
	inited bool
}

func (s *Solver) cdInit() *cdState {
	m := s.m
	c := &cdState{s: make([]float64, m.Rows()), d: make([][]float64, m.M+1), v: make([]float64, m.N), nb: make([]float64, len(m.X.Radius)), scale: make([]float64, len(m.X.Radius)),
		perm: make([]int32, m.Rows()), rowsq: make([]float64, m.Rows()), yl: make([]float64, m.N), rng: rand.New(rand.NewPCG(3, 30))}
	for i := range c.d {
		c.d[i] = make([]float64, m.N)
	}
	for r := range c.s {
		c.s[r] = clamp(0, m.Lo[r], m.Hi[r])
		c.perm[r] = int32(r)
		for k := m.Ptr[r]; k < m.Ptr[r+1]; k++ {
			c.rowsq[r] += m.Val[k] * m.Val[k]
		}
	}
	return c
}

// cdRecompute sets d from s, g = d_0 + sum lambda_i d_i, v = Xt - g/P and
// the blocks' norms, exactly.
func (s *Solver) cdRecompute(c *cdState, sub *Sub) {
	m := s.m
	// compensated sums: over 10^6 rows whose terms cancel, plain sums
	// leave errors that the screened solve's gaps would see (ksum)
	if len(c.dsum) != len(c.d) {
		c.dsum = make([][]ksum, len(c.d))
		for i := range c.dsum {
			c.dsum[i] = make([]ksum, m.N)
		}
	}
	for i, d := range c.dsum {
		clear(d)
		for j, v := range m.Q[i] {
			d[j].add(v)
		}
	}
	for r, sr := range c.s {
		if sr == 0 {
			continue
		}
		d := c.dsum[m.Fn[r]]
		for k := m.Ptr[r]; k < m.Ptr[r+1]; k++ {
			d[m.Col[k]].add(sr * m.Val[k])
		}
	}
	for i, d := range c.d {
		for j := range d {
			d[j] = c.dsum[i][j].value()
		}
	}
	g := s.g
	copy(g, c.d[0])
	for i := 1; i <= m.M; i++ {
		if l := s.lam[i]; l != 0 {
			for j, v := range c.d[i] {
				g[j] += l * v
			}
		}
	}
	for j := range c.v {
		c.v[j] = sub.Xt[j] - g[j]/sub.P
	}
	s.cdNorms(c)
}

func (s *Solver) cdNorms(c *cdState) {
	clear(c.nb)
	for j, k := range s.m.X.Ball {
		if k >= 0 {
			c.nb[k] += c.v[j] * c.v[j]
		}
	}
	for b := range c.nb {
		s.cdScale(c, b)
	}
}

// cdScale sets ball block b's projection factor from its squared norm:
// min(1, R/||v_b||), as Domain.at applies it.
func (s *Solver) cdScale(c *cdState, b int) {
	c.scale[b] = 1
	if r := s.m.X.Radius[b]; c.nb[b] > r*r {
		c.scale[b] = r / math.Sqrt(c.nb[b])
	}
}

// cdEpoch is one pass of coordinate ascent over the rows' slopes in a
// random order of blocks of cdBlock rows, each a step to the maximiser of the dual along it when
// the projection is locally the identity (a step of length 1/L_r, safe
// otherwise), then a line search on each multiplier along (1, s).
func (s *Solver) cdEpoch(c *cdState, sub *Sub) {
	m, X := s.m, s.m.X
	nb := (len(c.perm) + cdBlock - 1) / cdBlock
	blocks := c.perm[:nb]
	for k := range blocks {
		blocks[k] = int32(k)
	}
	for k := nb - 1; k > 0; k-- {
		j := c.rng.IntN(k + 1)
		blocks[k], blocks[j] = blocks[j], blocks[k]
	}
	R := m.Rows()
	for _, blk := range blocks {
		for r := int(blk) * cdBlock; r < min(R, (int(blk)+1)*cdBlock); r++ {
			i := m.Fn[r]
			w := s.lam[i]
			z := m.B[r]
			for k := m.Ptr[r]; k < m.Ptr[r+1]; k++ {
				// y_j = X.at(j, v_j, nb), with the blocks' factors kept
				j := m.Col[k]
				var yj float64
				if b := X.Ball[j]; b >= 0 {
					yj = c.v[j] * c.scale[b]
				} else {
					yj = clamp(c.v[j], X.Lo[j], X.Hi[j])
				}
				z += m.Val[k] * yj
			}
			var sn float64
			switch {
			case w == 0 || c.rowsq[r] == 0:
				sn = m.Lo[r]
				if z > 0 {
					sn = m.Hi[r]
				}
			default:
				sn = clamp(c.s[r]+z*sub.P/(w*c.rowsq[r]), m.Lo[r], m.Hi[r])
			}
			delta := sn - c.s[r]
			if delta == 0 {
				continue
			}
			c.s[r] = sn
			d := c.d[i]
			step := w * delta / sub.P
			for k := m.Ptr[r]; k < m.Ptr[r+1]; k++ {
				j := m.Col[k]
				d[j] += delta * m.Val[k]
				if step != 0 {
					old := c.v[j]
					c.v[j] -= step * m.Val[k]
					if b := X.Ball[j]; b >= 0 {
						c.nb[b] += c.v[j]*c.v[j] - old*old
					}
				}
			}
			if step != 0 {
				last := int32(-1)
				for k := m.Ptr[r]; k < m.Ptr[r+1]; k++ {
					if b := X.Ball[m.Col[k]]; b >= 0 && b != last {
						s.cdScale(c, int(b))
						last = b
					}
				}
			}
		}
	}
	s.cdNorms(c)
	for i := 1; i <= m.M; i++ {
		s.cdLambda(c, sub, i)
	}
}

// cdBlock is how many consecutive rows the coordinate method visits in
// order: an epoch shuffles blocks of rows rather than rows, so that each
// cache line of the rows' arrays serves several rows (a row at a time in
// random order was bound by memory latency).
const cdBlock = 8

// cdLambda maximises the dual over lambda_i >= 0 with the slopes s fixed:
// its derivative d_i . y(lambda) + c_i is nonincreasing, found by
// bisection on a bracket.
func (s *Solver) cdLambda(c *cdState, sub *Sub, i int) {
	m := s.m
	ci := m.E[i]
	if sub.Slack != nil {
		ci += sub.Slack[i-1]
	}
	for _, r := range s.byFn[i] {
		ci += c.s[r] * m.B[r]
	}
	d := c.d[i]
	l0 := s.lam[i]
	// v(l) = v + (l0 - l) d / P
	deriv := func(l float64) float64 {
		y := c.yl
		for j := range y {
			y[j] = c.v[j] + (l0-l)*d[j]/sub.P
		}
		m.X.Project(y)
		return dot(d, y) + ci
	}
	var l float64
	if deriv(0) <= 0 {
		l = 0
	} else {
		lo, hi := 0.0, math.Max(2*l0, 1e-8)
		for k := 0; deriv(hi) > 0; k++ {
			if k == 60 {
				break
			}
			lo, hi = hi, 2*hi
		}
		for k := 0; k < 60 && hi-lo > 1e-13*hi; k++ {
			mid := (lo + hi) / 2
			if deriv(mid) > 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		l = (lo + hi) / 2
	}
	if l != l0 {
		for j := range c.v {
			c.v[j] += (l0 - l) * d[j] / sub.P
		}
		s.lam[i] = l
		s.cdNorms(c)
	}
}

// solveCD is Solve by coordinate ascent (Model.X set): every epoch ends
// with the exact dual value at the current dual point (a lower bound) and
// the primal candidate there, then, once few enough variables are free
// (finishMaxFree), with projected Newton steps on the dual (cdFinish),
// retried after 1, 2, 4, ... epochs while they keep nothing.
func (s *Solver) solveCD(sub Sub, maxEpochs, every int, stop func(lower, upper float64, y []float64, iters int) bool) Result {
	run := s.startCD(&sub, false)
	res := &run.res
	for ep := 1; ep <= maxEpochs; ep++ {
		res.Iters = ep
		if run.epoch() && stop != nil && stop(res.Lower, res.F, res.Y, ep) {
			break
		}
		if stop != nil && ep%max(1, every) == 0 && stop(res.Lower, res.F, res.Y, ep) {
			break
		}
	}
	return *res
}

// cdRun is one Solve's run of the coordinate method on s's model: the
// bounds and candidate so far, and the exact finish's schedule.
type cdRun struct {
	s                  *Solver
	sub                *Sub
	res                Result
	finishWait, finish int // the finish runs at epoch finish, then waits finishWait
}

// startCD starts a run from the warm dual point (a fresh one when s has
// none; signs: at the model's subgradient at Xt, signStart), with the
// rest bound offered and the aggregates recomputed.
func (s *Solver) startCD(sub *Sub, signs bool) *cdRun {
	if s.cd == nil {
		s.cd = s.cdInit()
		if signs {
			s.signStart()
		}
	}
	run := &cdRun{s: s, sub: sub, res: Result{Lower: math.Inf(-1), F: math.Inf(1), Lambda: make([]float64, s.m.M)}, finishWait: 1, finish: 1}
	if h := s.restBound(sub); h > run.res.Lower {
		run.res.Lower = h // with multipliers 0 (res.Lambda as made)
		s.candidate(sub, s.y, &run.res)
	}
	s.cdRecompute(s.cd, sub)
	return run
}

// offer keeps the dual value h (of the current dual point) when it is
// the best bound, and the primal point in s.y as a candidate.
func (r *cdRun) offer(h float64) {
	if h > r.res.Lower {
		r.res.Lower = h
		copy(r.res.Lambda, r.s.lam[1:])
	}
	r.s.candidate(r.sub, r.s.y, &r.res)
}

// epoch runs one epoch (res.Iters its number) with the exact dual value
// and candidate after it, and the finish when its turn has come; it
// reports whether the finish was tried.
func (r *cdRun) epoch() bool {
	s, c := r.s, r.s.cd
	s.cdEpoch(c, r.sub)
	// the exact dual value and the primal candidate
	s.cdRecompute(c, r.sub)
	r.offer(s.cdDual(c, r.sub, false))
	if r.res.Iters < r.finish {
		return false
	}
	if s.cdFinish(c, r.sub, finishSteps, r.offer) > 0 {
		r.finishWait = 1
	} else {
		r.finishWait = min(2*r.finishWait, 64)
	}
	r.finish = r.res.Iters + r.finishWait
	return true
}

// finishSteps is how many Newton steps one call of the finish takes at
// most.
const finishSteps = 8
