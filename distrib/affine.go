// Package distrib evaluates a model's functions over a data set made of
// shards, shard by shard: the partial sums of one shard from the compiled
// program, and their combination into the values and gradients of the
// whole set. It is what each worker of a distributed full pass computes
// (package beamrun runs it on Apache Beam), and it needs no engine: adding
// the partial sums of every shard in one process gives the whole set's
// values to rounding.
//
// A data mean over the whole set is the sum of its rows over all shards
// divided by its rows over all shards; a where filter selects rows shard
// by shard, so its rows are counted per shard (Counts) and added (Totals).
// A shard's program (NewShard) is the model compiled over the shard's rows
// with every data mean's sum scaled by 1/(the whole set's rows) and every
// data sum by 1: its value at x is c(x) + (the shard's share of every data
// term), where c(x) is what the functions are with every data term zero
// (NewBase, compiled with scale 0). When every function is affine in its
// data means and sums (Check), the whole set's values and gradients are
// the shards' sums less (S-1) c(x) for S shards (Combine).
package distrib

import (
	"fmt"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/format"
)

// Check reports, as "file:line:col: ..." naming the expression, the first
// place where a function of m is not affine in its data terms (the means
// and sums over the rows of a data set), so that its value over the whole
// set cannot be added up from the shards' partial sums in one pass: a data
// term inside a nonlinearity (log(mean(...)), a max over indices, a product
// or quotient of two data terms), a data term inside another one's body
// (one pass per level would be needed), a max or min over a data set's
// rows, or a data set's row count D.n (the rows of one shard on a worker).
func Check(m *check.Model) error {
	w := &walker{dep: map[check.Expr]bool{}}
	var fs []check.Expr
	if m.Objective != nil {
		fs = append(fs, m.Objective.Expr)
	}
	for _, k := range m.Constraints {
		fs = append(fs, k.F)
	}
	for _, f := range fs {
		if err := w.affine(f); err != nil {
			return err
		}
		if err := w.noRowCount(f); err != nil {
			return err
		}
	}
	return nil
}

type walker struct {
	dep map[check.Expr]bool // memo of dataTerm
}

// dataTerm reports whether e contains a mean or sum over data rows.
func (w *walker) dataTerm(e check.Expr) bool {
	if e == nil {
		return false
	}
	if v, ok := w.dep[e]; ok {
		return v
	}
	found := false
	check.Walk(e, func(x check.Expr) bool {
		if c, ok := x.(*check.Compr); ok && c.Data != nil {
			found = true
		}
		return !found
	})
	w.dep[e] = found
	return found
}

// refuse is the error for e.
func refuse(e check.Expr, format string, args ...any) error {
	p := e.Src().Pos()
	return fmt.Errorf("%s:%d:%d: %s: %s", p.Filename, p.Line, p.Column, exprText(e.Src()), fmt.Sprintf(format, args...))
}

// exprText is the source text of n, shortened.
func exprText(n ast.Node) string {
	x, ok := n.(ast.Expr)
	if !ok {
		return "this expression"
	}
	s := format.Expr(x)
	if len([]rune(s)) > 60 {
		s = string([]rune(s)[:57]) + "..."
	}
	return s
}

const passNote = "a distributed pass adds the shards' partial sums, which needs every function affine in its data means and sums"

// affine checks e, a part of a function where a data term may appear
// linearly.
func (w *walker) affine(e check.Expr) error {
	switch e := e.(type) {
	case nil:
		return nil
	case *check.Compr:
		if e.Data != nil {
			switch e.Op {
			case "mean", "sum":
			default:
				return refuse(e, "a %s over the rows of data set %s is not a sum of rows; %s", e.Op, e.Data.Name, passNote)
			}
			inner := false
			var at check.Expr
			check.Walk(e.Body, func(x check.Expr) bool {
				if c, ok := x.(*check.Compr); ok && c.Data != nil && !inner {
					inner, at = true, x
				}
				return !inner
			})
			if inner {
				return refuse(at, "a data %s inside the %s over %s at line %d needs one pass per level; %s", at.(*check.Compr).Op, e.Op, e.Data.Name, e.Src().Pos().Line, passNote)
			}
			return w.noRowCount(e)
		}
		if (e.Op == "max" || e.Op == "min") && w.dataTerm(e.Body) {
			return refuse(e, "a data term inside a %s; %s", e.Op, passNote)
		}
		return w.affine(e.Body)
	case *check.Neg:
		return w.affine(e.X)
	case *check.Index:
		return w.affine(e.X)
	case *check.Arith:
		dx, dy := w.dataTerm(e.X), w.dataTerm(e.Y)
		switch {
		case e.Op == "*" && dx && dy:
			return refuse(e, "a product of two data terms; %s", passNote)
		case e.Op == "/" && dy:
			return refuse(e, "a data term in a denominator; %s", passNote)
		case e.Op == "^" && dx:
			return refuse(e, "a power of a data term; %s", passNote)
		}
		if err := w.affine(e.X); err != nil {
			return err
		}
		return w.affine(e.Y)
	case *check.Call:
		for _, a := range e.Args {
			if w.dataTerm(a) {
				return refuse(e, "a data term inside %s(...); %s", e.Func.Name, passNote)
			}
		}
		return nil
	case *check.Const:
		return rowCount(e)
	case *check.If: // linear in each branch; the variables choose it
		if w.dataTerm(e.Cond) {
			return refuse(e, "a data term in the condition of an if; %s", passNote)
		}
		if err := w.affine(e.Then); err != nil {
			return err
		}
		return w.affine(e.Else)
	}
	return nil
}

// noRowCount refuses a data set's n anywhere inside e.
func (w *walker) noRowCount(e check.Expr) error {
	var err error
	check.Walk(e, func(x check.Expr) bool {
		if c, ok := x.(*check.Const); ok && err == nil {
			err = rowCount(c)
		}
		return err == nil
	})
	return err
}

// rowCount refuses D.n, which on a worker would be the rows of its shard.
func rowCount(c *check.Const) error {
	if m, ok := c.Src().(*ast.Member); ok && m.Name.Name == "n" {
		return refuse(c, "the rows of a data set differ from shard to shard; use mean(...) instead of sum(...)/%s", exprText(m))
	}
	return nil
}
