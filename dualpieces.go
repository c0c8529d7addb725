package qrc

import (
	"fmt"
	"math"
	"math/rand/v2"

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
	rng := rand.New(rand.NewPCG(30, 7))
	x := make([]float64, prob.N)
	want, got := make([]float64, prob.M+1), make([]float64, prob.M+1)
	for k, scale := range []float64{0, 1, 10} {
		for j := range x {
			x[j] = scale * (2*rng.Float64() - 1)
		}
		if pm.X != nil {
			// the coordinate method projects by pm.X: it must be X
			px := append([]float64(nil), x...)
			pm.X.Project(px)
			q := append([]float64(nil), x...)
			if prob.Project != nil {
				prob.Project(q)
			}
			for j := range q {
				if math.Abs(px[j]-q[j]) > 1e-12*(1+math.Abs(q[j])) {
					pm.X = nil // the accelerated gradient method projects with prob.Project
					break
				}
			}
		}
		if prob.Project != nil {
			prob.Project(x)
		}
		if err := prob.Eval(x, want); err != nil {
			continue // a point where the model cannot be evaluated proves nothing
		}
		pm.Values(x, got)
		for i := range want {
			if math.Abs(want[i]-got[i]) > 1e-9*(1+math.Abs(want[i])) {
				c.piecesWhy = fmt.Sprintf("the piecewise-linear form disagrees with the compiled function %d at test point %d (%g against %g)", i, k, got[i], want[i])
				return nil, c.piecesWhy, nil
			}
		}
	}
	c.pieces = pm
	return pm, "", nil
}
