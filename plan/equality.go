package plan

import (
	"fmt"
	"strconv"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/solve"
)

// equalityKinds describes m's constraints for solve.Problem.Kinds: nil
// when every constraint is an inequality.
func equalityKinds(m *check.Model) []solve.ConstraintKind {
	cs := problem.Constraints(m)
	if !problem.HasEquality(cs) {
		return nil
	}
	kinds := make([]solve.ConstraintKind, len(cs))
	for i, c := range cs {
		switch {
		case !c.Equality:
			kinds[i] = solve.Inequality
		case c.Affine:
			kinds[i] = solve.AffineEquality
		default:
			kinds[i] = solve.NonlinearEquality
		}
	}
	return kinds
}

// refuseEqualities refuses the equality constraints (lhs == rhs) of m
// whose kind (by equalityKinds) refuse reports, one diagnostic per
// constraint declaration at its ==, saying why (why) and what takes them;
// nil when it refuses none.
func refuseEqualities(m *check.Model, refuse func(solve.ConstraintKind) bool, why string) error {
	e := &RefusalError{}
	kinds := equalityKinds(m)
	seen := map[*check.ConstraintGroup]bool{}
	for i, c := range m.Constraints {
		g := c.Group
		if kinds == nil || kinds[i] == solve.Inequality || !refuse(kinds[i]) || g == nil || g.Src == nil || seen[g] {
			continue
		}
		seen[g] = true
		end := g.Src.OpPos
		end.Offset += 2
		end.Column += 2
		e.Diagnostics = append(e.Diagnostics, &diag.Diagnostic{Pos: g.Src.OpPos, End: end,
			Msg: fmt.Sprintf("equality constraint %q: %s", g.Name, why)})
	}
	if len(e.Diagnostics) == 0 {
		return nil
	}
	return e
}

// refuseEqualitiesFor refuses m's equality constraints that a method
// other than IQRC (method, its name; "" for IQRC), or the oracle
// (solve.TakesEquality), does not take; smooth says whether the model is
// differentiable on X.
func refuseEqualitiesFor(m *check.Model, method string, oracle solve.Oracle, smooth bool) error {
	if method != "" {
		return refuseEqualities(m, func(solve.ConstraintKind) bool { return true }, fmt.Sprintf("the %s method takes inequality constraints only; IQRC with the smooth oracle takes equalities", method))
	}
	refused := func(k solve.ConstraintKind) bool { return !solve.TakesEquality(oracle, k, smooth) }
	takes := "inequality constraints only"
	switch oracle.(type) {
	case *solve.BundleOracle, *solve.DynamicOracle:
		takes = "affine equalities only (this one is not affine by its form)"
	}
	ok, kink := check.Smooth(m)
	if ok {
		return refuseEqualities(m, refused, fmt.Sprintf("the %s oracle takes %s; Options.Oracle = smooth takes equalities", oracle, takes))
	}
	return refuseEqualities(m, refused, fmt.Sprintf("the %s oracle takes %s, and the smooth oracle, which takes any equality, needs a differentiable model (%s: %s)", oracle, takes, kink.Expr.Src().Pos(), kink.Reason))
}

// FirstNonlinearEquality is the name of m's first equality constraint
// that is not affine by its form (kinds as solve.Problem.Kinds), and
// whether there is one: such a model is outside the paper's theory.
func FirstNonlinearEquality(m *check.Model, kinds []solve.ConstraintKind) (string, bool) {
	for i, k := range kinds {
		if k == solve.NonlinearEquality {
			return m.Constraints[i].Name, true
		}
	}
	return "", false
}

// num formats a number for a note, as the reports do.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
