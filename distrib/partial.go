package distrib

import (
	"fmt"
	"slices"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
)

// Site names one data mean or sum of a compiled model: its place and the
// how-manyth time that place is compiled ("file:line:col#seq").
type Site string

func siteOf(s autodiff.SumSite) Site {
	return Site(fmt.Sprintf("%s:%d:%d#%d", s.Pos.Filename, s.Pos.Line, s.Pos.Column, s.Seq))
}

// Counts holds, per site, the rows it runs over for every value of its
// enclosing indices (autodiff.SumSite.Rows); per site, one entry for a site
// without enclosing indices.
type Counts map[Site][]float64

// Add adds o's rows to c's, site by site; the sites must agree.
func (c Counts) Add(o Counts) error {
	for s, r := range o {
		have, ok := c[s]
		switch {
		case !ok:
			c[s] = slices.Clone(r)
			continue
		case len(have) != len(r):
			return fmt.Errorf("data term %s runs over %d index values on one shard and %d on another", s, len(have), len(r))
		}
		for i, v := range r {
			have[i] += v
		}
	}
	return nil
}

// CountRows returns the rows every data mean and sum of m runs over, on
// m's data (one shard). It compiles m once.
func CountRows(m *check.Model) (Counts, error) {
	if err := Check(m); err != nil {
		return nil, err
	}
	out := Counts{}
	_, err := autodiff.CompileScaled(m, func(s autodiff.SumSite) ([]float64, error) {
		out[siteOf(s)] = slices.Clone(s.Rows)
		return make([]float64, len(s.Rows)), nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Partial is what one shard (or the sum of several) gives at a point: the
// functions f0..fM with every data term scaled to the whole set (see the
// package documentation), their gradients, how many shards were added and
// their rows. Partials of the same point add up (Add).
type Partial struct {
	Vals   []float64
	Grads  [][]float64 // Grads[f] is the gradient of Vals[f]
	Shards int
	Rows   int
}

// Add adds o to p (p's slices grow when empty).
func (p *Partial) Add(o Partial) {
	if p.Vals == nil {
		p.Vals = make([]float64, len(o.Vals))
		p.Grads = make([][]float64, len(o.Grads))
		for f := range o.Grads {
			p.Grads[f] = make([]float64, len(o.Grads[f]))
		}
	}
	for f, v := range o.Vals {
		p.Vals[f] += v
	}
	for f, g := range o.Grads {
		for j, v := range g {
			p.Grads[f][j] += v
		}
	}
	p.Shards += o.Shards
	p.Rows += o.Rows
}

// Evaluator evaluates a model compiled for partial sums at points.
type Evaluator struct {
	prog  *autodiff.Program
	rows  int
	grads [][]float64
}

// NewShard compiles m, checked on one shard's rows, so that its value is
// that shard's partial sum: every data mean's sum scaled by one over its
// rows in totals (the whole set's, from Counts added over the shards),
// every data sum by 1. A site missing from totals, or with other index
// values, is an error: the shard's model is not the one counted.
func NewShard(m *check.Model, totals Counts) (*Evaluator, error) {
	if err := Check(m); err != nil {
		return nil, err
	}
	prog, err := autodiff.CompileScaled(m, func(s autodiff.SumSite) ([]float64, error) {
		f := make([]float64, len(s.Rows))
		if s.Op == "sum" {
			for i := range f {
				f[i] = 1
			}
			return f, nil
		}
		tot, ok := totals[siteOf(s)]
		if !ok || len(tot) != len(s.Rows) {
			return nil, fmt.Errorf("the data mean %s was not counted over the shards (the model differs from the one counted)", siteOf(s))
		}
		for i, n := range tot {
			if n == 0 {
				return nil, fmt.Errorf("mean over an empty set: no row of %s on any shard satisfies the filter", s.Data)
			}
			f[i] = 1 / n
		}
		return f, nil
	})
	if err != nil {
		return nil, err
	}
	rows := 0
	for _, d := range m.Data {
		rows += d.Set.N()
	}
	return newEvaluator(prog, rows), nil
}

// NewBase compiles m with every data term zero: its values are the c(x)
// of the package documentation (on any data: no row is read).
func NewBase(m *check.Model) (*Evaluator, error) {
	if err := Check(m); err != nil {
		return nil, err
	}
	prog, err := autodiff.CompileScaled(m, func(s autodiff.SumSite) ([]float64, error) {
		return make([]float64, len(s.Rows)), nil
	})
	if err != nil {
		return nil, err
	}
	return newEvaluator(prog, 0), nil
}

func newEvaluator(prog *autodiff.Program, rows int) *Evaluator {
	e := &Evaluator{prog: prog, rows: rows}
	e.grads = make([][]float64, len(prog.Functions()))
	for f := range e.grads {
		e.grads[f] = make([]float64, prog.NumVars())
	}
	return e
}

// NumVars is the number of scalar variables of the model.
func (e *Evaluator) NumVars() int { return e.prog.NumVars() }

// NumFuncs is the number of functions, f0..fM.
func (e *Evaluator) NumFuncs() int { return len(e.grads) }

// At evaluates the functions and their gradients at x; the Partial counts
// one shard of the evaluator's rows, and its slices are the caller's.
func (e *Evaluator) At(x []float64) (Partial, error) {
	vals := make([]float64, len(e.grads))
	if err := e.prog.Eval(x, vals); err != nil {
		return Partial{}, err
	}
	if err := e.prog.Jacobian(e.grads); err != nil {
		return Partial{}, err
	}
	out := Partial{Vals: vals, Grads: make([][]float64, len(e.grads)), Shards: 1, Rows: e.rows}
	for f, g := range e.grads {
		out.Grads[f] = slices.Clone(g)
	}
	return out, nil
}

// Combine returns the whole set's values and gradients from the sum of the
// shards' partials and the base's values at the same point: sum less
// (Shards-1) base.
func Combine(sum, base Partial) (vals []float64, grads [][]float64) {
	k := float64(sum.Shards - 1)
	vals = make([]float64, len(sum.Vals))
	grads = make([][]float64, len(sum.Grads))
	for f, v := range sum.Vals {
		vals[f] = v - k*base.Vals[f]
		grads[f] = make([]float64, len(sum.Grads[f]))
		for j, g := range sum.Grads[f] {
			grads[f][j] = g - k*base.Grads[f][j]
		}
	}
	return vals, grads
}
