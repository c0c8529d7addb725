// Package check resolves names, infers shapes and index sets, loads data and
// evaluates parameters of a parsed .qrc model, and produces a checked Model:
// everything later stages (the compiler, the solver, the report) need, with
// functions inlined and indexed constraints expanded.
//
// Checking never panics on user input; every mistake becomes a diagnostic
// with the file, line and column of the offending text.
package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/format"
)

// Shape is the shape of a value: nil for a scalar, [n] for a vector, [m, n]
// for a matrix.
type Shape []int

// Rank returns the number of dimensions.
func (s Shape) Rank() int { return len(s) }

// Size returns the number of elements.
func (s Shape) Size() int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// IsScalar reports whether s is the scalar shape.
func (s Shape) IsScalar() bool { return len(s) == 0 }

// Equal reports whether s and t are the same shape.
func (s Shape) Equal(t Shape) bool { return slices.Equal(s, t) }

// String describes s in words: "scalar", "vector of length 16",
// "10×16 matrix".
func (s Shape) String() string {
	switch len(s) {
	case 0:
		return "scalar"
	case 1:
		return fmt.Sprintf("vector of length %d", s[0])
	}
	dims := make([]string, len(s))
	for i, d := range s {
		dims[i] = strconv.Itoa(d)
	}
	return strings.Join(dims, "×") + " matrix"
}

// Tensor is a constant value: a scalar, vector or matrix stored row-major.
type Tensor struct {
	Shape Shape
	Data  []float64
}

// Scalar returns the constant scalar v.
func Scalar(v float64) Tensor { return Tensor{Data: []float64{v}} }

// String formats t: a number, or [a, b, c], or [[a, b], [c, d]]; long
// tensors are abbreviated.
func (t Tensor) String() string {
	switch t.Shape.Rank() {
	case 0:
		return fmtNum(t.Data[0])
	case 1:
		return fmtVec(t.Data)
	}
	cols := t.Shape[1]
	rows := make([]string, 0, t.Shape[0])
	for r := 0; r < t.Shape[0]; r++ {
		if r == 6 && t.Shape[0] > 8 {
			rows = append(rows, fmt.Sprintf("... %d more rows", t.Shape[0]-6))
			break
		}
		rows = append(rows, fmtVec(t.Data[r*cols:(r+1)*cols]))
	}
	return "[" + strings.Join(rows, ", ") + "]"
}

func fmtVec(v []float64) string {
	parts := make([]string, 0, len(v))
	for i, x := range v {
		if i == 8 && len(v) > 10 {
			parts = append(parts, fmt.Sprintf("... (%d values)", len(v)))
			break
		}
		parts = append(parts, fmtNum(x))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Model is a checked model.
type Model struct {
	File        *ast.File
	Data        []*DataSet // in declaration order
	Params      []*Param
	Vars        []*Var
	Funcs       []*Func
	Objective   *Objective // nil for a feasibility problem
	Groups      []*ConstraintGroup
	Constraints []*Constraint // every group expanded, in order
	NumScalars  int           // total number of scalar decision variables
	Diagnostics diag.List     // warnings (a checked Model has no errors)
}

// DataBytes returns the memory of the model's data: the feature matrices
// of its sets (data.Set.MatrixBytes).
func (m *Model) DataBytes() int64 {
	var n int64
	for _, d := range m.Data {
		n += d.Set.MatrixBytes()
	}
	return n
}

// DataSet is a loaded data set declared with "data NAME = loader(...)".
type DataSet struct {
	Name     string
	Decl     *ast.DataDecl
	Loader   string // "libsvm", "csv" or "parquet": the loader that read Path
	Path     string // the file actually read (after --data overrides)
	Override bool   // Path came from --data
	Set      *data.Set
	// DenseAt is, for a set stored sparse that the model needs as a dense
	// matrix, the first use of its X that needs it (the set is converted);
	// the zero Pos otherwise: a dense set, or a sparse one that the program
	// reads over its nonzeros.
	DenseAt ast.Pos
}

// Param is a parameter with its value.
type Param struct {
	Name       string
	Decl       *ast.ParamDecl
	Value      Tensor
	Overridden bool   // set by --set
	Expr       string // the expression it was given (model or --set)
}

// Var is a decision variable. Its elements occupy x[Offset : Offset+Size]
// of the flat vector of all decision variables, row-major.
type Var struct {
	Name   string
	Decl   *ast.VarDecl
	Shape  Shape
	Domain *domain.Domain
	Start  []float64 // the starting point, projected onto the domain
	Offset int
	Size   int
	Used   bool
}

// Of returns v's elements in x, the flat vector of all decision
// variables: x[v.Offset : v.Offset+v.Size] (a slice of x, not a copy).
func (v *Var) Of(x []float64) []float64 { return x[v.Offset : v.Offset+v.Size] }

// Func is a user function; calls are inlined during checking.
type Func struct {
	Name   string
	Decl   *ast.FuncDecl
	Params []string
}

// Objective is the function to minimise.
type Objective struct {
	Src  *ast.Objective
	Expr Expr // scalar
}

// ConstraintGroup is one constraint declaration, possibly indexed.
type ConstraintGroup struct {
	Name      string
	Src       *ast.Constraint
	Instances []*Constraint
}

// Constraint is one expanded scalar constraint F(x) <= 0, where
// F = LHS - RHS for "<=" and RHS - LHS for ">=", or F(x) = 0 with
// F = LHS - RHS for "==" (IsEquality).
type Constraint struct {
	Name  string // "cap[2]", or the group name when not indexed
	Group *ConstraintGroup
	Index []int // the values of the group's binders
	Op    string
	LHS   Expr
	RHS   Expr
	F     Expr // scalar, F <= 0
}

// IsEquality reports whether c is an equality, F(x) = 0.
func (c *Constraint) IsEquality() bool { return c.Op == "==" }

// ConstRHS returns the value of the right-hand side when it is a constant
// scalar (a number or a parameter), else nil (for reports: the slack is
// then -F).
func (c *Constraint) ConstRHS() *float64 {
	k, ok := c.RHS.(*Const)
	if !ok || !k.Value.Shape.IsScalar() || len(k.Value.Data) != 1 {
		return nil
	}
	v := k.Value.Data[0]
	return &v
}

// Means returns the comprehensions of e that are means over data rows
// (expectations the stochastic oracle samples), outermost first.
func Means(e Expr) []*Compr {
	var out []*Compr
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*Compr); ok && c.IsExpectation() {
			out = append(out, c)
		}
		return true
	})
	return out
}

// ExprString returns the canonical source text of a syntax-tree expression.
func ExprString(e ast.Expr) string { return format.Expr(e) }
