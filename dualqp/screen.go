package dualqp

import "math"

// Safe screening of the coordinate method on many rows (Fercoq, Gramfort
// & Salmon, ICML 2015, for the lasso; here for (7)).
//
// F is P-strongly convex and the feasible set of the subproblem is
// convex, so a feasible point Y with F(Y) - H <= G, H the dual value at a
// dual feasible point, is within radius sqrt(2 G / P) of the minimiser
// y*. A row whose score at Y is farther from 0 than ||A_r|| times that
// radius has the same sign at y*, so its slope at every dual optimum is
// known (Hi_r above, Lo_r below; a constraint's rows matter only through
// lambda_i s_r). With those slopes fixed the dual is the dual of the
// reduced model: the remaining rows, the fixed rows folded into the
// affine rests. It has the same dual value at the same point, so its
// lower bounds are the subproblem's, and the same minimiser y* (the
// reduced functions are below the model's and agree with them, with the
// same subgradients, around y*). The coordinate method then passes over
// the remaining rows only; every candidate it finds is evaluated on the
// whole model, whose values alone decide its feasibility and F, and the
// next round screens with the gap that evaluation gives.

// screenMinRows is the fewest rows for which Solve screens: below it the
// passes over every row that a screening round costs (the scores at Y,
// the reduced model, the evaluation of its candidate) are not worth
// their saving.
const screenMinRows = 1 << 15

// screenMaxActive is the largest fraction of the rows that may remain
// for a screening round; with more, an epoch on every row comes first.
const screenMaxActive = 0.5

// screenShrink is how far each round's reduced solve takes the gap below
// the whole model's gap at the round's start.
const screenShrink = 1.0 / 64

// screenProgress and screenStalls end a screened solve whose rounds no
// longer lower the gap: after screenStalls rounds in a row that each left
// it above screenProgress times its value at their start.
const (
	screenProgress = 0.5
	screenStalls   = 2
)

// solveScreened is solveCD with safe screening, for models of at least
// screenMinRows rows. The dual point it leaves (the slopes and the
// multipliers) is the warm start of the next Solve, as for solveCD.
func (s *Solver) solveScreened(sub Sub, maxEpochs, every int, stop func(lower, upper float64, y []float64, iters int) bool) Result {
	m := s.m
	run := s.startCD(&sub, true)
	c, res := s.cd, &run.res
	for i := 1; i <= m.M; i++ {
		s.cdLambda(c, &sub, i)
	}
	s.cdRecompute(c, &sub) // the multipliers moved: g and v anew
	run.offer(s.cdDual(c, &sub, false))
	s.candidate(&sub, sub.Xt, res) // x_t, when it is feasible
	fullEpoch := func() {
		res.Iters++
		run.epoch()
	}
	active := make([]int32, 0, m.Rows())
	stalls := 0
	nextScreen, wait := 0, 1
	for res.Iters < maxEpochs {
		if stop != nil && stop(res.Lower, res.F, res.Y, res.Iters) {
			break
		}
		if res.Y == nil || res.Iters < nextScreen {
			fullEpoch()
			continue
		}
		gap := math.Max(0, res.F-res.Lower) + 1e-13*(1+math.Abs(res.F))
		active = s.screen(res.Y, math.Sqrt(2*gap/sub.P), active[:0])
		if float64(len(active)) > screenMaxActive*float64(m.Rows()) {
			// too few rows screened: epochs on every row, screening again
			// after 1, 2, 4, ... of them
			nextScreen = res.Iters + wait
			wait = min(2*wait, 64)
			fullEpoch()
			continue
		}
		res.Screened = m.Rows() - len(active)
		rs := s.reduced(active)
		rs.prepare(&sub)
		if sub.Slack != nil {
			rs.margin = make([]float64, m.M)
			for i, v := range sub.Slack {
				rs.margin[i] = v / 2
			}
		}
		demand := gap * screenShrink
		for i, v := range rs.margin {
			// a candidate that keeps the margin costs about lambda_i
			// margin_i more
			demand = math.Max(demand, 4*s.lam[i+1]*v)
		}
		// the reduced solve ends at the demanded gap, or when the caller
		// would accept its bounds (then the whole model's evaluation of
		// its point decides; the stalls below end a loop of such rounds),
		// or on the caller's halts and limits
		inner := func(lower, upper float64, y []float64, iters int) bool {
			if upper-lower <= demand {
				return true
			}
			return stop != nil && stop(math.Max(lower, res.Lower), upper, y, res.Iters+iters)
		}
		r := rs.solveCD(sub, maxEpochs-res.Iters, every, inner)
		res.Iters += max(1, r.Iters)
		for k, row := range active {
			c.s[row] = rs.cd.s[k]
		}
		copy(s.lam, rs.lam)
		if r.Lower > res.Lower {
			res.Lower = r.Lower
			copy(res.Lambda, r.Lambda)
		}
		if r.Y != nil {
			s.candidate(&sub, r.Y, res)
		}
		// the caller's stop decides at the top of the loop, on the whole
		// model's bounds; rounds that no longer lower the whole model's
		// gap (its sums over every row round differently from the reduced
		// model's folded ones, about 1e-11 on 10^6 rows) end the solve
		if res.F-res.Lower > screenProgress*gap {
			if stalls++; stalls >= screenStalls {
				break
			}
		} else {
			stalls = 0
		}
	}
	return *res
}

// signStart sets a fresh coordinate method's slopes to those of the
// model's subgradient at the subproblem's Xt (whose scores are in s.z):
// Hi_r for a positive score, Lo_r for a negative one. Near a stationary
// point, where the outer loop spends most of its subproblems, that is
// the dual point of every row away from its kink.
func (s *Solver) signStart() {
	m, c := s.m, s.cd
	for r, z := range s.z {
		switch {
		case z > 0:
			c.s[r] = m.Hi[r]
		case z < 0:
			c.s[r] = m.Lo[r]
		}
	}
}

// screen fixes the slope of every row whose score at y is farther from
// its kink than ||A_r|| radius (plus rounding), and appends the other
// rows to active.
func (s *Solver) screen(y []float64, radius float64, active []int32) []int32 {
	m, c := s.m, s.cd
	for r := range m.B {
		z, za := m.B[r], math.Abs(m.B[r])
		for k := m.Ptr[r]; k < m.Ptr[r+1]; k++ {
			t := m.Val[k] * y[m.Col[k]]
			z += t
			za += math.Abs(t)
		}
		margin := math.Sqrt(c.rowsq[r])*radius*(1+1e-9) + 1e-12*za
		switch {
		case z > margin:
			c.s[r] = m.Hi[r]
		case z < -margin:
			c.s[r] = m.Lo[r]
		default:
			active = append(active, int32(r))
		}
	}
	return active
}

// reduced returns a Solver of the reduced model of the rows active, the
// other rows' fixed slopes folded into the affine rests, warm-started at
// the whole model's dual point.
func (s *Solver) reduced(active []int32) *Solver {
	m, c := s.m, s.cd
	red := &Model{N: m.N, M: m.M, Ptr: make([]int, 1, len(active)+1), Q: make([][]float64, m.M+1), E: make([]float64, m.M+1), X: m.X,
		B: make([]float64, 0, len(active)), Lo: make([]float64, 0, len(active)), Hi: make([]float64, 0, len(active)), Fn: make([]int32, 0, len(active))}
	// the folds are compensated sums: the fixed rows are most of them
	qs := make([][]ksum, m.M+1)
	es := make([]ksum, m.M+1)
	for i, q := range m.Q {
		qs[i] = make([]ksum, m.N)
		es[i].add(m.E[i])
		for j, v := range q {
			qs[i][j].add(v)
		}
	}
	next := 0 // the next active row
	for r := range m.B {
		if next < len(active) && int(active[next]) == r {
			next++
			red.Col = append(red.Col, m.Col[m.Ptr[r]:m.Ptr[r+1]]...)
			red.Val = append(red.Val, m.Val[m.Ptr[r]:m.Ptr[r+1]]...)
			red.Ptr = append(red.Ptr, len(red.Col))
			red.B = append(red.B, m.B[r])
			red.Lo = append(red.Lo, m.Lo[r])
			red.Hi = append(red.Hi, m.Hi[r])
			red.Fn = append(red.Fn, m.Fn[r])
			continue
		}
		sr := c.s[r]
		if sr == 0 {
			continue
		}
		i := m.Fn[r]
		es[i].add(sr * m.B[r])
		q := qs[i]
		for k := m.Ptr[r]; k < m.Ptr[r+1]; k++ {
			q[m.Col[k]].add(sr * m.Val[k])
		}
	}
	for i := range red.Q {
		red.E[i] = es[i].value()
		red.Q[i] = make([]float64, m.N)
		for j := range red.Q[i] {
			red.Q[i][j] = qs[i][j].value()
		}
	}
	rs := NewSolver(red)
	copy(rs.lam, s.lam)
	rs.cd = rs.cdInit()
	for k, r := range active {
		rs.cd.s[k] = c.s[r]
	}
	return rs
}

// prepare computes the functions' values at sub.Xt, which the candidates'
// pull towards Xt needs (as Solve does on entry).
func (s *Solver) prepare(sub *Sub) {
	s.m.scores(sub.Xt, s.z)
	s.m.valuesFrom(sub.Xt, s.z, s.atXt)
}
