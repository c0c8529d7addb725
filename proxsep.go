package qrc

import (
	"fmt"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/smoothing"
	"github.com/qrc-lang/qrc/solve"
)

// separableFor returns m's objective as a smooth rest plus kinks of single
// variables (smoothing.Separable) for the prox oracle, after checking
// that the rest plus the kinks agree with prob's own functions at three
// points of X (the origin and two pseudo-random points, projected): nil
// and why when m is not such a model or they disagree.
func separableFor(m *check.Model, prob *solve.Problem) (*solve.Separable, string, error) {
	f, why, err := smoothing.Separable(m)
	if err != nil || f == nil {
		return nil, why, err
	}
	sep := &solve.Separable{Eval: f.Eval, Grad: f.Grad}
	byVar := map[int]int{} // variable -> index in Coords
	for _, t := range f.Terms {
		br, q := t.Pieces()
		p := &solve.Piecewise1D{Breaks: br, Q: q}
		if err := p.Check(); err != nil {
			return nil, fmt.Sprintf("%s of scalar %d: %v", t.Name, t.Var+1, err), nil
		}
		if k, ok := byVar[t.Var]; ok {
			sep.Coords[k].P = sep.Coords[k].P.Sum(p)
			continue
		}
		byVar[t.Var] = len(sep.Coords)
		sep.Coords = append(sep.Coords, solve.SeparableCoord{J: t.Var, P: p, Lo: f.Lo[t.Var], Hi: f.Hi[t.Var]})
	}
	values := func(x, vals []float64) error {
		if err := sep.Eval(x, vals); err != nil {
			return err
		}
		for _, c := range sep.Coords {
			vals[0] += c.P.Value(x[c.J])
		}
		return nil
	}
	if why := formDisagrees(prob, 11, "separable form (its kink-free rest plus the kinks)", values, nil); why != "" {
		return nil, why, nil
	}
	return sep, "", nil
}

// autoProx makes an automatic choice of the bundle oracle (o nil, the
// pending kinkNote) the prox oracle when m's objective is a smooth rest
// plus kinks of single variables with smooth inequality constraints
// (separableFor): there the prox oracle is the faster by one to two
// orders of magnitude (docs/performance.md). It reports whether it chose
// it; the note replaces the bundle oracle's.
func (c *solveConfig) autoProx(o solve.Oracle, m *check.Model, prob *solve.Problem, chosen solve.Oracle) (bool, error) {
	if o != nil || chosen != solve.Bundle || c.kinkNote == nil || equalityKinds(m) != nil {
		return false, nil // the prox oracle takes no equality; the bundle oracle takes affine ones
	}
	sep, _, err := separableFor(m, prob)
	if err != nil || sep == nil {
		return false, err
	}
	k := c.kinkNote
	c.kinkNote = nil
	prob.Separable = sep
	c.notes(Note{Kind: NoteOracle, Verbose: true, Text: fmt.Sprintf("oracle prox (auto: %s, and every kink is pos, abs, hinge, mcp or scad of a single variable in the objective, so the subproblems are solved by proximal gradient steps with the kinks exact; %s)", k.kink, k.data)})
	return true, nil
}
