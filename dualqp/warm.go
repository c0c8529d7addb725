package dualqp

import "slices"

// Warm is a Solver's dual point (the multipliers and every row's slope), a
// warm start for a Solver of another Model with the same rows: the same
// functions Fn and slopes [Lo, Hi] in the same order, as the models of one
// sample of the data with different affine rests Q and E are (the rounds
// of the dynamic oracle with control variates).
type Warm struct {
	lam, alpha []float64 // Solve's accelerated gradient method's point
	slope      []float64 // the coordinate method's slopes; nil before it ran
	fn         []int32
	lo, hi     []float64
}

// Warm returns a copy of s's dual point.
func (s *Solver) Warm() *Warm {
	w := &Warm{lam: slices.Clone(s.lam), alpha: slices.Clone(s.alpha), fn: s.m.Fn, lo: s.m.Lo, hi: s.m.Hi}
	if s.cd != nil {
		w.slope = slices.Clone(s.cd.s)
	}
	return w
}

// StartFrom makes w, another Solver's dual point, s's warm start, when
// that Solver's Model has the same rows as s's (same Fn, Lo and Hi), and
// reports whether it did; otherwise s is unchanged.
func (s *Solver) StartFrom(w *Warm) bool {
	m := s.m
	if w == nil || len(w.lam) != len(s.lam) || len(w.alpha) != len(s.alpha) || !slices.Equal(w.fn, m.Fn) || !slices.Equal(w.lo, m.Lo) || !slices.Equal(w.hi, m.Hi) {
		return false
	}
	copy(s.lam, w.lam)
	copy(s.alpha, w.alpha)
	s.lam[0] = 1
	if w.slope != nil && m.X != nil {
		if s.cd == nil {
			s.cd = s.cdInit()
		}
		for r, v := range w.slope {
			s.cd.s[r] = clamp(v, m.Lo[r], m.Hi[r])
		}
	}
	return true
}
