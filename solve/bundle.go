package solve

import "math"

// bundleState is the bundle oracle's state kept between subproblems.
type bundleState struct{}

// bundleSolve runs the bundle oracle on (7) at xt.
func (s *solver) bundleSolve(xt []float64, acc accuracy) (subResult, haltReason, error) {
	copy(s.out, xt)
	return subResult{Lower: math.Inf(-1), F: math.Inf(1), Lambda: make([]float64, s.m)}, running, nil
}
