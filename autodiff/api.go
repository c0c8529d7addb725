// Package autodiff compiles a checked model into a flat program over vector
// and matrix registers and evaluates it: the value of the objective f0 and of
// every expanded constraint fi (fi = lhs - rhs <= 0), and, by reverse-mode
// differentiation of the same program, a subgradient of any nonnegative
// combination sum_i w_i fi.
//
// A Program is compiled once (Compile) and evaluated many times (Eval, then
// Gradient). Evaluation never walks the syntax tree and, once warm,
// allocates nothing. A comprehension over data rows is evaluated for the
// whole block of rows at once: where filters are resolved at compile time,
// the selected rows are gathered once into a contiguous block, dot products
// over the block are BLAS matrix products, and the reverse pass accumulates
// X^T times the adjoint with BLAS as well.
//
// The rows a data mean runs over can be replaced by a sample of them
// (SetSample), which is how a stochastic oracle evaluates the same program
// on a minibatch.
//
// The instructions that run along the rows of a data set run in fixed
// blocks of rows spread over a worker pool of GOMAXPROCS goroutines, started
// once per process; sums over rows add the blocks' partial sums in block
// order, so values and subgradients are bitwise the same on any number of
// cores (parallel.go).
//
// A Program is not safe for concurrent use; the Evaluators made from it
// (NewEvaluator) are, each with run state of its own (evaluator.go).
package autodiff

import (
	"fmt"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
)

// Function describes one scalar function of a program. Index 0 is always
// the objective f0 (identically zero when the model has none); indices
// 1..m are the expanded constraints in model order.
type Function struct {
	Name       string            // "objective", or the constraint's name such as "cap[2]"
	Objective  bool              // whether this is f0
	Pos        ast.Pos           // where the objective or constraint is written
	Constraint *check.Constraint // nil for the objective
}

// Sample describes a set of data rows that one or more means run over and
// that can be replaced by a sample (a minibatch) of them.
type Sample struct {
	Data  string    // the data set's name
	Rows  int       // the number of rows in the full set (after filters)
	Means []ast.Pos // where the means over these rows are written
}

// EvalError is an evaluation failure at a place in the model: a log of a
// negative number, a division by zero, a value that is not finite.
type EvalError struct {
	Pos ast.Pos // where the failing expression starts
	Msg string  // what went wrong, with the offending value
}

func (e *EvalError) Error() string {
	if e.Pos.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Pos.Filename, e.Pos.Line, e.Pos.Column, e.Msg)
}
