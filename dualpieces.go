package qrc

import (
	"fmt"
	"math"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/dualqp"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/smoothing"
	"github.com/qrc-lang/qrc/solve"
)

// piecesFor returns m's functions as piecewise-linear terms of affine
// scores plus affine rests (smoothing.Pieces) for the dual oracle, once
// per solve, after checking that they agree with prob's own functions
// (piecesDisagree): nil and why when m is not such a model or they
// disagree.
func (c *solveConfig) piecesFor(m *check.Model, prob *solve.Problem) (*dualqp.Model, string, error) {
	if c.pieces != nil || c.piecesWhy != "" {
		return c.pieces, c.piecesWhy, nil
	}
	pm, why, err := smoothing.Pieces(m)
	if err != nil || pm == nil {
		c.piecesWhy = why
		return nil, why, err
	}
	if why := piecesDisagree(pm, prob); why != "" {
		c.piecesWhy = why
		return nil, why, nil
	}
	c.pieces = pm
	return pm, "", nil
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

// samplePieces returns Problem.PiecesOf for a dynamic solve of m by prob,
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
