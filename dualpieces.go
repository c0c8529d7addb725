package qrc

import (
	"fmt"
	"math"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/dualqp"
	"github.com/qrc-lang/qrc/smoothing"
	"github.com/qrc-lang/qrc/solve"
)

// piecesFor returns m's functions as piecewise-linear terms of affine
// scores plus affine rests (smoothing.Pieces) for the dual oracle, once
// per solve, after checking that they agree with prob's own functions at
// three points of X (the origin and two pseudo-random points, projected):
// nil and why when m is not such a model or they disagree.
func (c *solveConfig) piecesFor(m *check.Model, prob *solve.Problem) (*dualqp.Model, string, error) {
	if c.pieces != nil || c.piecesWhy != "" {
		return c.pieces, c.piecesWhy, nil
	}
	pm, why, err := smoothing.Pieces(m)
	if err != nil || pm == nil {
		c.piecesWhy = why
		return nil, why, err
	}
	if pm.N != prob.N || pm.M != prob.M {
		c.piecesWhy = fmt.Sprintf("the pieces have %d variables and %d constraints, the problem %d and %d", pm.N, pm.M, prob.N, prob.M)
		return nil, c.piecesWhy, nil
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
	if why := formDisagrees(prob, 7, "piecewise-linear form", values, sameX); why != "" {
		c.piecesWhy = why
		return nil, why, nil
	}
	c.pieces = pm
	return pm, "", nil
}
