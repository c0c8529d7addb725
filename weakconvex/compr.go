package weakconvex

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/qrc-lang/qrc/check"
)

// compr analyses a comprehension: a sum or mean adds its terms (keeping
// their rank-one curvature terms, so that a mean over data rows gets the
// rows' second-moment bound), a max is the max rule, a min the min rule.
func (a *analyzer) compr(c *check.Compr, ix env) (value, string, error) {
	var terms []value
	count := 0
	var acc []*sumAcc
	err := a.forEach(c, ix, func(local env) error {
		v, err := a.expr(c.Body, local)
		if err != nil {
			return err
		}
		count++
		switch c.Op {
		case "sum", "mean":
			if acc == nil {
				acc = make([]*sumAcc, size(v))
				for i := range acc {
					acc[i] = &sumAcc{}
				}
			}
			for i, s := range acc {
				s.add(v.at(i))
			}
		default:
			terms = append(terms, v)
		}
		return nil
	})
	if err != nil {
		return value{}, "", err
	}
	if count == 0 {
		if c.Op == "sum" {
			out := make([]*fnv, max(c.Shape().Size(), 1))
			for i := range out {
				out[i] = constFn(0)
			}
			return value{el: out}, "sum", nil
		}
		return value{}, "", fmt.Errorf("%s: %s over an empty set", c.Src().Pos(), c.Op)
	}
	switch c.Op {
	case "sum", "mean":
		w := 1.0
		if c.Op == "mean" {
			w = 1 / float64(count)
		}
		out := make([]*fnv, len(acc))
		for i, s := range acc {
			out[i] = a.scale(s.result(a), w, c)
		}
		return value{el: out}, c.Op, nil
	}
	n := size(terms[0])
	out := make([]*fnv, n)
	for i := range out {
		fs := make([]*fnv, len(terms))
		for k, t := range terms {
			fs[k] = t.at(i)
		}
		if c.Op == "max" {
			out[i] = a.maxOf(fs)
		} else {
			out[i] = a.minOf(fs, c)
		}
	}
	return value{el: out}, c.Op, nil
}

// forEach calls f for every assignment of c's binders that passes its
// filter, as the checker's evaluation does.
func (a *analyzer) forEach(c *check.Compr, ix env, f func(env) error) error {
	local := make(env, len(ix)+len(c.Binders))
	for k, v := range ix {
		local[k] = v
	}
	rows := c.Rows
	if rows == nil && len(c.Binders) == 1 && c.Binders[0].Data != nil && c.Where != nil {
		// a filter on another index or a function's parameter (rate(g) =
		// mean(i in D where D.group[i] == g) ...): the checker could not
		// resolve it once, but it can be for this ix, column-wise, rather
		// than by evaluating it row by row (0.9·10^6 rows took 6 s)
		if r, ok := check.FilterRows(c.Where, c.Binders[0], c.Binders[0].Data.Set.N(), ix); ok {
			rows = r
		}
	}
	every := rows == nil && len(c.Binders) == 1 && c.Binders[0].Data != nil && c.Where == nil
	if rows != nil && len(c.Binders) == 1 || every {
		// the rows of one data binder, counted for the early estimate
		n := len(rows)
		if every {
			n = c.Binders[0].Data.Set.N()
		}
		for t := range n {
			r := t + 1
			if !every {
				r = rows[t]
			}
			local[c.Binders[0]] = r
			if err := f(local); err != nil {
				return err
			}
			a.rowsDone++
			if estimateNow(a.rowsDone) && float64(a.work)/float64(a.rowsDone)*float64(a.rowsTotal) > estimateFactor*maxWork {
				return tooLargeEstimate(a.work, a.rowsDone, a.rowsTotal)
			}
		}
		return nil
	}
	var rec func(k int) error
	rec = func(k int) error {
		if k == len(c.Binders) {
			if c.Where != nil {
				t, err := check.Eval(c.Where, local)
				if err != nil {
					return fmt.Errorf("%s: %v", c.Where.Src().Pos(), err)
				}
				if t.Data[0] == 0 {
					return nil
				}
			}
			return f(local)
		}
		b := c.Binders[k]
		lo, hi := 1, 0
		if b.Data != nil {
			hi = b.Data.Set.N()
		} else {
			l, err := check.Eval(b.Lo, local)
			if err != nil {
				return err
			}
			h, err := check.Eval(b.Hi, local)
			if err != nil {
				return err
			}
			lo, hi = int(l.Data[0]), int(h.Data[0])
		}
		if hi-lo > maxWork {
			return errTooLarge
		}
		for v := lo; v <= hi; v++ {
			local[b] = v
			if err := rec(k + 1); err != nil {
				return err
			}
			a.work++
			if a.work > maxWork {
				return errTooLarge
			}
			if a.stopped() {
				return context.Canceled
			}
		}
		delete(local, b)
		return nil
	}
	return rec(0)
}

// sumAcc adds up the terms of a sum comprehension without copying the
// accumulated curvature terms at every step (rule 2).
type sumAcc struct {
	n      int
	aff    map[int32]float64 // while every term is affine: the coefficients
	c0     float64
	f      fnv    // once a term is not affine
	terms  []term // the lower bounds' rank-one terms
	nnz    int
	hterms []term // the upper bounds'
	hnnz   int
	affine bool // every term so far is affine
	rest   bool // f holds at least one term
	// hess sums the terms' exact Hessians while every term is affine or
	// exactly quadratic (noHess once one is not)
	hess     hessian
	noHess   bool
	hessWork int // entries added so far: past maxHessEntries the sum gives up hess
}

func (s *sumAcc) add(f *fnv) {
	if s.n == 0 {
		s.affine = true
		s.aff = map[int32]float64{}
		s.f = fnv{smooth: true}
	}
	s.n++
	if f.aff != nil {
		s.c0 += f.aff.c0
		for k, j := range f.aff.idx {
			s.aff[j] += f.aff.coef[k]
		}
		return
	}
	s.affine = false
	switch {
	case s.noHess:
	case f.hess == nil || s.hessWork+len(f.hess) > maxHessEntries:
		s.noHess, s.hess = true, nil
	default:
		s.hessWork += len(f.hess)
		if s.hess == nil {
			s.hess = hessian{}
		}
		for k, v := range f.hess {
			s.hess[k] += v
		}
	}
	g := &s.f
	if !s.rest {
		s.rest = true
		g.val = f.val
	} else {
		g.val = add(g.val, f.val)
	}
	g.g = up(g.g + f.g)
	g.hi.s += f.hi.s
	g.smooth = g.smooth && f.smooth
	g.lo.s += f.lo.s
	if math.IsInf(f.lo.s, -1) && g.why == nil {
		g.why = f.why
	}
	s.terms = append(s.terms, f.lo.terms...)
	s.nnz += f.lo.nnz
	if s.nnz > maxTermNNZ {
		g.lo.s = quad{s: g.lo.s, terms: s.terms}.scalar(true)
		s.terms, s.nnz = nil, 0
	}
	s.hterms = append(s.hterms, f.hi.terms...)
	s.hnnz += f.hi.nnz
	if s.hnnz > maxTermNNZ {
		g.hi.s = quad{s: g.hi.s, terms: s.hterms}.upperScalar(true)
		s.hterms, s.hnnz = nil, 0
	}
}

// result is the sum: the affine part (if any) added to the rest.
func (s *sumAcc) result(a *analyzer) *fnv {
	af := &affine{c0: s.c0, idx: make([]int32, 0, len(s.aff))}
	for j := range s.aff {
		af.idx = append(af.idx, j)
	}
	slices.Sort(af.idx)
	af.coef = make([]float64, len(af.idx))
	for k, j := range af.idx {
		af.coef[k] = s.aff[j]
	}
	affPart := a.affineFn(af)
	if s.affine {
		return affPart
	}
	rest := s.f
	rest.lo = quad{s: rest.lo.s, terms: s.terms, nnz: s.nnz}
	if math.IsInf(rest.lo.s, -1) {
		rest.lo.terms, rest.lo.nnz = nil, 0
	}
	rest.hi = quad{s: rest.hi.s, terms: s.hterms, nnz: s.hnnz}
	rest.hess, rest.tight = nil, false
	if !s.noHess {
		rest.hess = s.hess
	}
	if math.IsInf(rest.hi.s, 1) {
		rest.hi.terms, rest.hi.nnz = nil, 0
	}
	return a.add(affPart, &rest)
}
