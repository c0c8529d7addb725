package check

import (
	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/stdlib"
)

// Sparse sets. The compiled program reads the rows of a sparse set's X
// over their nonzeros when they appear only as one side of a dot product
// with a vector:
//
//	dot(w, D.X[i])   dot(D.X[i], W[k] - W[l])   sum(j in 1..D.d) w[j] * D.X[i, j]
//
// Any other use of X in the objective or a constraint (an element in a
// nonlinear position, the whole matrix, a filter relating a feature to
// another index) needs the dense matrix, which the checker has made once
// the model is valid, or refuses with its size when it would not fit.
// Check-time evaluation (parameters, filters resolved to rows, bounds)
// reads single rows and elements from the CSR arrays without converting
// anything.

// denseUse is a place that needs a sparse set's dense matrix.
type denseUse struct {
	at   ast.Node
	name string // the data set's name in the model
}

// isSparseX reports whether e is the X of a set stored sparse and not
// converted.
func isSparseX(e Expr) (*DataField, bool) {
	f, ok := e.(*DataField)
	if !ok || f.Field != "X" {
		return nil, false
	}
	s := f.Set.Set
	return f, s.X == nil && s.Sparse != nil
}

// sparseRow returns e as D.X[...] with n indices of a sparse set, or nil.
func sparseRow(e Expr, n int) *Index {
	ix, ok := e.(*Index)
	if !ok || len(ix.Idx) != n {
		return nil
	}
	if _, ok := isSparseX(ix.X); !ok {
		return nil
	}
	return ix
}

// scanSparse finds, in the compiled expression e, the uses of sparse sets'
// X that the program cannot read over the nonzeros, and records in c.dense
// the first of each set.
func (c *checker) scanSparse(e Expr, seen map[Expr]bool) {
	if e == nil || seen[e] {
		return
	}
	seen[e] = true
	switch e := e.(type) {
	case *DataField:
		if f, ok := isSparseX(e); ok {
			if _, done := c.dense[f.Set.Set]; !done {
				c.dense[f.Set.Set] = denseUse{at: f.Src(), name: f.Set.Name}
			}
		}
		return
	case *Call:
		if e.Func.Kind == stdlib.Dot && len(e.Args) == 2 {
			for k, a := range e.Args {
				row, other := sparseRow(a, 1), e.Args[1-k]
				if row != nil && other.Shape().Rank() == 1 && other.Shape().Equal(row.Shape()) {
					c.scanSparse(row.Idx[0], seen)
					c.scanSparse(other, seen)
					return
				}
			}
		}
	case *Compr:
		if e.Rows != nil && len(e.Binders) == 1 && e.Where != nil {
			// a filter resolved to rows at check time is not compiled
			c.scanSparse(e.Body, seen)
			return
		}
		if row, other := sparseSumDot(e); row != nil {
			c.scanSparse(row.Idx[0], seen)
			c.scanSparse(other, seen)
			return
		}
	}
	for _, x := range operands(e) {
		c.scanSparse(x, seen)
	}
}

// sparseSumDot matches sum(j in 1..D.d) a * D.X[i, j] (either order) for a
// sparse set, where a depends on j and i does not, and returns D.X[i, j]
// and a; otherwise nil.
func sparseSumDot(e *Compr) (*Index, Expr) {
	if e.Op != "sum" || len(e.Binders) != 1 || e.Where != nil {
		return nil, nil
	}
	b := e.Binders[0]
	ar, ok := e.Body.(*Arith)
	if !ok || b.Lo == nil || ar.Op != "*" || !ar.X.Shape().IsScalar() || !ar.Y.Shape().IsScalar() {
		return nil, nil
	}
	for _, pair := range [2][2]Expr{{ar.X, ar.Y}, {ar.Y, ar.X}} {
		row, other := sparseRow(pair[0], 2), pair[1]
		if row == nil {
			continue
		}
		j, ok := row.Idx[1].(*IndexVal)
		d := row.X.(*DataField).Set.Set.D()
		if ok && j.Binder == b && isScalar(b.Lo, 1) && isScalar(b.Hi, float64(d)) &&
			!mentions(row.Idx[0], b) && mentions(other, b) {
			return row, other
		}
	}
	return nil, nil
}

func isScalar(e Expr, v float64) bool {
	k, ok := e.(*Const)
	return ok && k.Value.Shape.IsScalar() && k.Value.Data[0] == v
}

// mentions reports whether e uses the index bound by b.
func mentions(e Expr, b *Binder) bool {
	found := false
	Walk(e, func(x Expr) bool {
		if iv, ok := x.(*IndexVal); ok && iv.Binder == b {
			found = true
		}
		return !found
	})
	return found
}

// sparseIndex evaluates D.X[idx...] of a sparse set from its CSR arrays: a
// row (one index) or an element (two), 1-based indices already checked.
func sparseIndex(m *data.CSR, idx []int) Tensor {
	cols, vals := m.Row(idx[0] - 1)
	if len(idx) == 2 {
		for k, j := range cols {
			if int(j) == idx[1]-1 {
				return Scalar(vals[k])
			}
		}
		return Scalar(0)
	}
	row := make([]float64, m.Cols)
	for k, j := range cols {
		row[j] = vals[k]
	}
	return Tensor{Shape: Shape{m.Cols}, Data: row}
}

// denseSets finds the sparse sets that the objective and the constraints
// use other than in dot products with vectors, and, when the model is
// otherwise valid, converts them to dense matrices; one that would not fit
// is an error at its first such use.
func (c *checker) denseSets() {
	valid := !c.errs.HasErrors()
	seen := map[Expr]bool{}
	if c.m.Objective != nil {
		c.scanSparse(c.m.Objective.Expr, seen)
	}
	for _, k := range c.m.Constraints {
		c.scanSparse(k.F, seen)
	}
	for s, u := range c.dense {
		if err := s.CheckDense(); err != nil {
			c.errorf(u.at, "cannot use %s.X: %v", u.name, err)
			continue
		}
		if !valid {
			continue
		}
		if _, err := s.Dense(); err != nil {
			c.errorf(u.at, "cannot convert %s to a dense matrix: %v", s.Path, err)
			continue
		}
		for _, d := range c.m.Data {
			if d.Set == s {
				d.DenseAt = u.at.Pos()
			}
		}
	}
}
