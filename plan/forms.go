package plan

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/dualqp"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/smoothing"
	"github.com/qrc-lang/qrc/solve"
)

// This file makes the forms of the model that oracles need beside its
// compiled functions (the prox oracle's separable objective, the dual
// oracle's pieces, on every row or on a sample) and checks each against
// the compiled functions before an oracle is given it.

// separableFor returns the model's objective as a smooth rest plus kinks of single
// variables (smoothing.Separable) for the prox oracle, after checking
// that the rest plus the kinks agree with prob's own functions at three
// points of X (the origin and two pseudo-random points, projected), once
// per plan: nil and why when the model is not such a model or they
// disagree.
func (p *planner) separableFor() (*solve.Separable, string, error) {
	if p.separable != nil {
		return p.separable, "", nil
	}
	prob := p.prob
	f, why, err := smoothing.Separable(p.r.Model)
	if err != nil || f == nil {
		return nil, why, err
	}
	sep := &solve.Separable{Eval: f.Eval, Grad: f.Grad}
	byVar := map[int]int{} // variable -> index in Coords
	for _, t := range f.Terms {
		br, q := t.Pieces()
		pw := &solve.Piecewise1D{Breaks: br, Q: q}
		if err := pw.Check(); err != nil {
			return nil, fmt.Sprintf("%s of scalar %d: %v", t.Name, t.Var+1, err), nil
		}
		if k, ok := byVar[t.Var]; ok {
			sep.Coords[k].P = sep.Coords[k].P.Sum(pw)
			continue
		}
		byVar[t.Var] = len(sep.Coords)
		sep.Coords = append(sep.Coords, solve.SeparableCoord{J: t.Var, P: pw, Lo: f.Lo[t.Var], Hi: f.Hi[t.Var]})
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
	p.separable = sep
	return sep, "", nil
}

// piecesFor returns the model's functions as piecewise-linear terms of affine
// scores plus affine rests (smoothing.Pieces) for the dual oracle, once
// per plan, after checking that they agree with prob's own functions
// (piecesDisagree): nil and why when the model is not such a model or they
// disagree.
func (p *planner) piecesFor() (*dualqp.Model, string, error) {
	if p.pieces != nil || p.piecesWhy != "" {
		return p.pieces, p.piecesWhy, nil
	}
	pm, why, err := smoothing.Pieces(p.r.Model)
	if err != nil || pm == nil {
		p.piecesWhy = why
		return nil, why, err
	}
	if why := piecesDisagree(pm, p.prob); why != "" {
		p.piecesWhy = why
		return nil, why, nil
	}
	p.pieces = pm
	return pm, "", nil
}

// epigraphFor returns the model's functions in epigraph form
// (smoothing.Epigraph) for the epigraph oracle, once per plan, after
// checking that they agree with prob's own functions (formDisagrees):
// nil and why when the model is not such a model or they disagree.
func (p *planner) epigraphFor() (*solve.EpigraphForm, string, error) {
	if p.epigraph != nil || p.epigraphWhy != "" {
		return p.epigraph, p.epigraphWhy, nil
	}
	g, why, err := smoothing.Epigraph(p.r.Model)
	if err != nil || g == nil {
		p.epigraphWhy = why
		return nil, why, err
	}
	if g.N != p.prob.N || g.M != p.prob.M {
		p.epigraphWhy = fmt.Sprintf("the epigraph form has %d variables and %d constraints, the problem %d and %d", g.N, g.M, p.prob.N, p.prob.M)
		return nil, p.epigraphWhy, nil
	}
	t := make([]float64, g.Aux)
	var sv []float64
	if g.Smooth != nil {
		sv = make([]float64, g.Smooth.K)
	}
	values := func(x, vals []float64) error { return g.Values(x, t, sv, vals) }
	if why := formDisagrees(p.prob, 13, "epigraph form", values, nil); why != "" {
		p.epigraphWhy = why
		return nil, why, nil
	}
	p.epigraph = g
	return g, "", nil
}

// piecesDisagree says why the pieces pm do not stand for prob's functions
// on the data prob now evaluates: their sizes differ, or their values
// disagree at three points of X (the origin and two pseudo-random points,
// projected; formDisagrees). It drops pm's domain (pm.X = nil) when that
// projects otherwise than prob.Project, so that the dual oracle projects
// with prob.Project.
func piecesDisagree(pm *dualqp.Model, prob *solve.Problem) string {
	if pm.N != prob.N || pm.M != prob.M {
		return fmt.Sprintf("the pieces have %d variables and %d constraints, the problem %d and %d", pm.N, pm.M, prob.N, prob.M)
	}
	// the coordinate method projects by pm.X: it must be X, else the
	// accelerated gradient method projects with prob.Project
	sameX := func(x []float64) {
		if pm.X == nil {
			return
		}
		px := append([]float64(nil), x...)
		pm.X.Project(px)
		q := append([]float64(nil), x...)
		if prob.Project != nil {
			prob.Project(q)
		}
		for j := range q {
			if math.Abs(px[j]-q[j]) > 1e-12*(1+math.Abs(q[j])) {
				pm.X = nil
				return
			}
		}
	}
	values := func(x, vals []float64) error { pm.Values(x, vals); return nil }
	return formDisagrees(prob, 7, "piecewise-linear form", values, sameX)
}

// samplePieces returns DynamicOracle.PiecesOf for a dynamic solve of m by prob,
// whose Sampler smp samples the row sets sets of its program: the pieces
// of the rows smp now selects (smoothing.PiecesOf, each sampled mean
// matched to its row set by its source position), checked against prob's
// functions on those rows (piecesDisagree). The first refusal (a model
// the dual oracle cannot take, a mean compiled over two row sets, pieces
// that disagree) is kept: the later calls return nil at once. note, if
// not nil, is told once which oracle the samples get, and why.
func samplePieces(m *check.Model, prob *solve.Problem, smp *problem.Sampler, sets []autodiff.Sample, note func(string)) func() (*dualqp.Model, error) {
	setOf := map[ast.Pos]int{}
	why := ""
	for i, set := range sets {
		for _, pos := range set.Means {
			if k, ok := setOf[pos]; ok && k != i {
				why = fmt.Sprintf("%s: the mean is compiled over two row sets", pos)
			}
			setOf[pos] = i
		}
	}
	told := false
	refuse := func(w string) {
		why = w
		if note != nil && !told {
			told = true
			note("the dynamic oracle's samples are solved by the bundle oracle: " + w)
		}
	}
	return func() (*dualqp.Model, error) {
		if why != "" {
			refuse(why)
			return nil, nil
		}
		picked := smp.Selected()
		if len(picked) != len(sets) {
			refuse(fmt.Sprintf("the sampler selects %d row sets, the program has %d", len(picked), len(sets)))
			return nil, nil
		}
		sel := smoothing.Selection{}
		for pos, i := range setOf {
			if picked[i] != nil {
				sel[pos] = picked[i]
			}
		}
		pm, w, err := smoothing.PiecesOf(m, sel)
		if err != nil {
			return nil, err
		}
		if pm == nil {
			refuse(w)
			return nil, nil
		}
		if w := piecesDisagree(pm, prob); w != "" {
			refuse(w)
			return nil, nil
		}
		if note != nil && !told {
			told = true
			note("the dynamic oracle's samples and its stage on every row are solved by the dual oracle instead: every function is a sum of pos, abs and hinge of affine scores plus an affine rest (docs/solver.md)")
		}
		return pm, nil
	}
}

// formDisagrees checks a model's functions written in another form (the
// dual oracle's pieces, the prox oracle's separable rest plus kinks)
// against prob's own compiled functions at three points of X: the origin
// and two pseudo-random points (seeded by seed), scaled by 1 and 10 and
// projected. values stores the form's f0..fM at x; before, if not nil,
// sees each point before its projection. It returns "" when they agree to
// 1e-9 relative, else why (naming form); a point prob cannot evaluate
// proves nothing and is skipped.
func formDisagrees(prob *solve.Problem, seed uint64, form string, values func(x, vals []float64) error, before func(x []float64)) string {
	rng := rand.New(rand.NewPCG(30, seed))
	x := make([]float64, prob.N)
	want, got := make([]float64, prob.M+1), make([]float64, prob.M+1)
	for k, scale := range []float64{0, 1, 10} {
		for j := range x {
			x[j] = scale * (2*rng.Float64() - 1)
		}
		if before != nil {
			before(x)
		}
		if prob.Project != nil {
			prob.Project(x)
		}
		if err := prob.Eval(x, want); err != nil {
			continue
		}
		if err := values(x, got); err != nil {
			return fmt.Sprintf("the %s cannot be evaluated at test point %d: %v", form, k, err)
		}
		for i := range want {
			if math.Abs(want[i]-got[i]) > 1e-9*(1+math.Abs(want[i])) {
				return fmt.Sprintf("the %s disagrees with the compiled function %d at test point %d (%g against %g)", form, i, k, got[i], want[i])
			}
		}
	}
	return ""
}
