package main

import (
	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/check"
)

// The solution methods of qrc solve --method and qrc compare --methods
// (qrc.MethodNamed gives each).
const (
	methodIQRC       = "iqrc"       // package solve
	methodPenalty    = "penalty"    // package penalty
	methodStochastic = "stochastic" // package solve with the stochastic oracle (qrc solve: --oracle stochastic)
	methodSmooth     = "smooth"     // package solve with the smooth oracle (qrc solve: --oracle smooth)
	methodBundle     = "bundle"     // package solve with the bundle oracle (qrc solve: --oracle bundle)
)

// knownMethod says why name is not a method, or returns nil.
func knownMethod(name string) error {
	_, err := qrc.MethodNamed(name)
	return err
}

// maxDomainViolation is the largest violation of a variable's domain at x.
func maxDomainViolation(m *check.Model, x []float64) float64 {
	v := 0.0
	for _, vr := range m.Vars {
		if vr.Domain != nil {
			v = max(v, vr.Domain.Violation(vr.Of(x)))
		}
	}
	return v
}
