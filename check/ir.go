package check

import (
	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/stdlib"
)

// Dep records what an expression depends on.
type Dep uint8

// The dependencies.
const (
	DepVar   Dep = 1 << iota // a decision variable
	DepIndex                 // an index bound by a comprehension or constraint
	DepData                  // the values of a data set
)

// Expr is a checked expression: it has a shape and knows where it came from.
// Function calls are inlined, parameters are constants, and the indices of
// expanded constraints are substituted. The same Expr may appear at several
// places of a tree (a function argument used twice): the tree is a DAG.
type Expr interface {
	Shape() Shape
	Deps() Dep
	Src() ast.Node // the source text it was checked from
}

type node struct {
	shape Shape
	dep   Dep
	src   ast.Node
}

func (n *node) Shape() Shape  { return n.shape }
func (n *node) Deps() Dep     { return n.dep }
func (n *node) Src() ast.Node { return n.src }

// Const is a constant value (a number, a parameter, a data set's n or d).
type Const struct {
	node
	Value Tensor
}

// VarRef is a whole decision variable.
type VarRef struct {
	node
	Var *Var
}

// DataField is a column or the feature matrix of a data set: X is n×d,
// y and named columns are vectors of length n.
type DataField struct {
	node
	Set   *DataSet
	Field string // "X", "y" or a column name
}

// IndexVal is the value of an index bound by a comprehension (a scalar
// integer).
type IndexVal struct {
	node
	Binder *Binder
}

// Index selects from a vector or matrix: x[j] (scalar), W[k] (row k) or
// W[k, j]. Indices are 1-based scalar integer expressions that do not depend
// on decision variables.
type Index struct {
	node
	X   Expr
	Idx []Expr
}

// Neg is -X.
type Neg struct {
	node
	X Expr
}

// Arith is X op Y for op one of + - * / ^, elementwise with scalars
// broadcast. For ^, Y is a scalar Const.
type Arith struct {
	node
	Op   string
	X, Y Expr
}

// Call applies a built-in. Args holds the operands; Params the values of the
// built-in's constant parameters (huber's delta ...).
type Call struct {
	node
	Func   *stdlib.Func
	Args   []Expr
	Params []float64
}

// Binder is an index bound by a comprehension or an indexed constraint: it
// ranges over Lo..Hi or over the rows 1..n of Data.
type Binder struct {
	Name   string
	Src    *ast.Binder
	Lo, Hi Expr     // a range's bounds (scalar integers); nil over data rows
	Data   *DataSet // the data set whose rows it ranges over, or nil
}

// Compr is a comprehension op(binders where cond) body, op one of sum, mean,
// max, min. A comprehension with a binder over data rows is marked with
// Data; a mean over data rows is an expectation (IsExpectation).
type Compr struct {
	node
	Op      string
	Binders []*Binder
	Where   Expr // a condition, or nil
	Body    Expr
	Data    *DataSet // the data set whose rows a binder ranges over, or nil
	// Rows lists the 1-based rows selected when the only binder ranges over
	// Data and the filter depends on nothing but that row, data and
	// constants (resolved at check time); nil otherwise.
	Rows []int
}

// IsExpectation reports whether c is a mean over the rows of a data set.
func (c *Compr) IsExpectation() bool { return c.Op == "mean" && c.Data != nil }

// Compare is a comparison X op Y of scalars in a where filter, 1 when true
// and 0 when false.
type Compare struct {
	node
	Op   string
	X, Y Expr
}

// Stack is a list [e1, e2, ...] with an element that depends on the
// variables or on an index: a vector of scalars, or a matrix whose rows are
// vectors of one length. Elems are its scalar elements in row-major order
// (a vector element contributes its elements, as Elements gives them).
type Stack struct {
	node
	Elems []Expr
}

// If is the conditional "if Cond then Then else Else": Then where Cond (a
// Compare or Logic, 1 when it holds) is not 0, else Else, with a scalar
// branch broadcast to the other's shape. Cond is a scalar and may depend
// on the variables; the value and the subgradient are those of the branch
// taken (the other is not evaluated), so at a point where the condition
// changes the subgradient is one piece's.
type If struct {
	node
	Cond, Then, Else Expr
}

// Logic is "X and Y", "X or Y" or "not X" (Y nil) on conditions.
type Logic struct {
	node
	Op   string
	X, Y Expr
}

// Walk calls f for e and, when f returns true, for its operands in order.
// A node shared by several parents is visited once per parent.
func Walk(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch e := e.(type) {
	case *Index:
		Walk(e.X, f)
		for _, i := range e.Idx {
			Walk(i, f)
		}
	case *Neg:
		Walk(e.X, f)
	case *Arith:
		Walk(e.X, f)
		Walk(e.Y, f)
	case *Call:
		for _, a := range e.Args {
			Walk(a, f)
		}
	case *Compr:
		for _, b := range e.Binders {
			if b.Lo != nil {
				Walk(b.Lo, f)
				Walk(b.Hi, f)
			}
		}
		if e.Where != nil {
			Walk(e.Where, f)
		}
		Walk(e.Body, f)
	case *Compare:
		Walk(e.X, f)
		Walk(e.Y, f)
	case *Logic:
		Walk(e.X, f)
		if e.Y != nil {
			Walk(e.Y, f)
		}
	case *Stack:
		for _, x := range e.Elems {
			Walk(x, f)
		}
	case *If:
		Walk(e.Cond, f)
		Walk(e.Then, f)
		Walk(e.Else, f)
	}
}

// operands returns the operands of e, in the order Walk visits them.
func operands(e Expr) []Expr {
	switch e := e.(type) {
	case *Index:
		return append([]Expr{e.X}, e.Idx...)
	case *Neg:
		return []Expr{e.X}
	case *Arith:
		return []Expr{e.X, e.Y}
	case *Call:
		return e.Args
	case *Compr:
		var out []Expr
		for _, b := range e.Binders {
			if b.Lo != nil {
				out = append(out, b.Lo, b.Hi)
			}
		}
		if e.Where != nil {
			out = append(out, e.Where)
		}
		return append(out, e.Body)
	case *Compare:
		return []Expr{e.X, e.Y}
	case *Logic:
		if e.Y != nil {
			return []Expr{e.X, e.Y}
		}
		return []Expr{e.X}
	case *Stack:
		return e.Elems
	case *If:
		return []Expr{e.Cond, e.Then, e.Else}
	}
	return nil
}
