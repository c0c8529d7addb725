package weakconvex

import (
	"fmt"
	"math"

	"github.com/qrc-lang/qrc/check"
)

// compr analyses a comprehension: a sum or mean adds its terms (keeping
// their rank-one curvature terms, so that a mean over data rows gets the
// rows' second-moment bound), a max is the max rule, a min the min rule.
func (a *analyzer) compr(c *check.Compr, ix env) (value, string, error) {
	var terms []value
	count := 0
	var acc []*fnv
	err := a.forEach(c, ix, func(local env) error {
		v, err := a.expr(c.Body, local)
		if err != nil {
			return err
		}
		count++
		switch c.Op {
		case "sum", "mean":
			if acc == nil {
				acc = make([]*fnv, size(v))
				for i := range acc {
					acc[i] = v.at(i)
				}
				return nil
			}
			for i := range acc {
				acc[i] = a.add(acc[i], v.at(i))
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
	case "sum":
		return value{el: acc}, "sum", nil
	case "mean":
		w := 1 / float64(count)
		for i := range acc {
			acc[i] = a.scale(acc[i], w, c)
		}
		return value{el: acc}, "mean", nil
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
	if c.Rows != nil && len(c.Binders) == 1 {
		for _, r := range c.Rows {
			local[c.Binders[0]] = r
			if err := f(local); err != nil {
				return err
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
		}
		delete(local, b)
		return nil
	}
	return rec(0)
}

var _ = math.Inf
