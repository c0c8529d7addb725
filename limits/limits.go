// Package limits holds the budgets that keep qrc's work and memory bounded
// on any input: one table, used by the parser, the checker, the compiler and
// the command line, and documented in docs/reliability.md. Each limit is
// refused with a positioned message that names it.
package limits

import "math/bits"

const (
	// MaxSourceBytes is the largest model source qrc reads (4 MiB).
	MaxSourceBytes = 4 << 20
	// MaxLineBytes is the longest line of a model (1 MiB).
	MaxLineBytes = 1 << 20
	// MaxTokens is the most tokens (names, numbers, operators) in a model
	// or a --set/REPL expression.
	MaxTokens = 50_000
	// MaxDepth is the deepest nesting of an expression: parentheses,
	// brackets, unary operators, powers, comprehensions and calls, counted
	// after functions are inlined.
	MaxDepth = 256
	// MaxTreeDepth is the deepest expression tree once functions are
	// inlined, counting every node: a long sum a + b + c + ... nests one
	// level per term, and the compiler's passes are recursive.
	MaxTreeDepth = 100_000
	// MaxElements is the most scalars in one variable, parameter or
	// expression value (the product of its dimensions).
	MaxElements = 1 << 26
	// MaxTerms is the most terms a comprehension may expand to: the
	// product of the sizes of its index sets and the enclosing ones, times
	// the elements of its body.
	MaxTerms = 1 << 28

	// MaxRangeValues bounds the values of a range index (j in lo..hi) the
	// compiler expands into an array (8 bytes each, and as much again for
	// a filter): a comprehension whose body does not depend on its index
	// is folded instead (sum: n times the body), and a filter comparing
	// the index with constants narrows the range first, so only an index
	// the body uses counts.
	MaxRangeValues = 1 << 25

	// MaxVarScalars bounds the decision variables' scalars of a model,
	// all variables together: checking and analysing a model hold about
	// 250 bytes per scalar at their peak (10 million: 2.5 GB resident), so
	// that a model within it checks and solves in a 3 GiB address space.
	MaxVarScalars = 1 << 22

	// MaxBenchEvals bounds qrc bench --evals (one timing of 8 bytes is
	// kept per evaluation).
	MaxBenchEvals = 10_000_000
	// MaxExprNodes is the most expression nodes a model may have after
	// its functions are inlined and its indexed constraints expanded, and
	// the largest an expression may be as a tree (the uses of a function's
	// parameter share one node, which every walk visits once per use).
	MaxExprNodes = 1 << 21
	// MaxGradcheckPoints is the most points qrc gradcheck --points takes.
	MaxGradcheckPoints = 100_000
)

// Mul returns a*b and whether it is at most max (both a and b
// nonnegative); it never overflows.
func Mul(a, b, max int) (int, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > uint64(max) {
		return 0, false
	}
	return int(lo), true
}

// Product returns the product of dims and whether it is at most max.
func Product(dims []int, max int) (int, bool) {
	n := 1
	for _, d := range dims {
		var ok bool
		if n, ok = Mul(n, d, max); !ok {
			return 0, false
		}
	}
	return n, true
}
