package check

import "github.com/qrc-lang/qrc/ast"

// BiasedMean is a mean over data rows whose minibatch estimate would make
// the estimate of the function containing it biased: the mean reaches the
// function's value through an operation that is not linear in it.
type BiasedMean struct {
	Mean *Compr // the mean over data rows
	// Context is the innermost nonlinear operation the mean sits in (a
	// call, a product of two means, a division by a mean, a power, a max
	// or min comprehension, a where filter).
	Context ast.Node
	// Why says what that operation is, in words: `inside log(...)`,
	// `in a product with another mean`, `in a denominator`.
	Why string
}

// BiasedMeans returns the means over data rows in the function e whose
// minibatch estimate is biased, outermost first (a mean nested inside a
// biased one is not listed again).
//
// A stochastic oracle replaces each mean over data rows by the mean over a
// uniform sample of its rows; the estimate of e is unbiased when e is
// linear in every such mean: when the path from the mean to e's value goes
// only through sums and differences, negation, multiplication or division
// by an expression without data means, indexing, sum and mean
// comprehensions over index ranges, and the built-ins sum and mean. The
// body of a data mean may be anything: the mean of a nonlinear function of
// each row is estimated without bias. Everything else (log(mean(...)),
// max(mean(...), c), a product of two means, a mean in a denominator or a
// power) is reported. The rule is conservative: a product of two means
// over independently sampled row sets is in fact unbiased, but is
// reported.
func BiasedMeans(e Expr) []BiasedMean {
	var out []BiasedMean
	biasWalk(e, nil, "", &out)
	return out
}

// biasWalk visits e; ctx is the innermost nonlinear operation above it
// (nil while the path from the function's value is linear).
func biasWalk(e Expr, ctx ast.Node, why string, out *[]BiasedMean) {
	if e == nil {
		return
	}
	nonlinear := func(x Expr, n ast.Node, w string) {
		if ctx != nil { // keep the outermost reason
			n, w = ctx, why
		}
		biasWalk(x, n, w, out)
	}
	switch e := e.(type) {
	case *Compr:
		if e.IsExpectation() {
			if ctx != nil {
				*out = append(*out, BiasedMean{Mean: e, Context: ctx, Why: why})
				return // nested means are covered by this one
			}
		}
		for _, b := range e.Binders {
			if b.Lo != nil {
				nonlinear(b.Lo, e.Src(), "in a range bound")
				nonlinear(b.Hi, e.Src(), "in a range bound")
			}
		}
		if e.Where != nil {
			nonlinear(e.Where, e.Where.Src(), "in a where filter")
		}
		if e.Op == "sum" || e.Op == "mean" {
			biasWalk(e.Body, ctx, why, out)
		} else {
			nonlinear(e.Body, e.Src(), "inside a "+e.Op+" comprehension")
		}
	case *Neg:
		biasWalk(e.X, ctx, why, out)
	case *Index:
		biasWalk(e.X, ctx, why, out)
		for _, i := range e.Idx {
			nonlinear(i, e.Src(), "in an index")
		}
	case *Arith:
		switch e.Op {
		case "+", "-":
			biasWalk(e.X, ctx, why, out)
			biasWalk(e.Y, ctx, why, out)
		case "*":
			if hasMean(e.X) && hasMean(e.Y) {
				nonlinear(e.X, e.Src(), "in a product with another mean")
				nonlinear(e.Y, e.Src(), "in a product with another mean")
			} else {
				biasWalk(e.X, ctx, why, out)
				biasWalk(e.Y, ctx, why, out)
			}
		case "/":
			biasWalk(e.X, ctx, why, out)
			nonlinear(e.Y, e.Src(), "in a denominator")
		default: // ^
			if c, ok := e.Y.(*Const); ok && len(c.Value.Data) == 1 && c.Value.Data[0] == 1 {
				biasWalk(e.X, ctx, why, out)
			} else {
				nonlinear(e.X, e.Src(), "raised to a power")
			}
		}
	case *Call:
		name := e.Func.Name
		switch {
		case name == "sum" || name == "mean":
			for _, a := range e.Args {
				biasWalk(a, ctx, why, out)
			}
		case name == "dot" && len(e.Args) == 2 && !(hasMean(e.Args[0]) && hasMean(e.Args[1])):
			biasWalk(e.Args[0], ctx, why, out)
			biasWalk(e.Args[1], ctx, why, out)
		default:
			w := "inside " + name + "(...)"
			if name == "dot" {
				w = "in a dot product with another mean"
			}
			for _, a := range e.Args {
				nonlinear(a, e.Src(), w)
			}
		}
	case *Stack: // each element enters linearly
		for _, x := range e.Elems {
			biasWalk(x, ctx, why, out)
		}
	case *If:
		// the branch taken is chosen by the variables, so an estimate of
		// it is one of the function; a mean in the condition is not
		nonlinear(e.Cond, e.Src(), "in the condition of an if")
		biasWalk(e.Then, ctx, why, out)
		biasWalk(e.Else, ctx, why, out)
	case *Compare:
		nonlinear(e.X, e.Src(), "in a comparison")
		nonlinear(e.Y, e.Src(), "in a comparison")
	case *Logic:
		nonlinear(e.X, e.Src(), "in a condition")
		if e.Y != nil {
			nonlinear(e.Y, e.Src(), "in a condition")
		}
	}
}

// hasMean reports whether e contains a mean over data rows.
func hasMean(e Expr) bool {
	found := false
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*Compr); ok && c.IsExpectation() {
			found = true
		}
		return !found
	})
	return found
}
