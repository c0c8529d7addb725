package main

import (
	"fmt"

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

// iqrcOnlyFlags are the qrc solve flags that mean nothing to the penalty
// method.
var iqrcOnlyFlags = []string{"rho-hat", "rho", "inner", "pick", "seed", "oracle", "batch", "allow-biased", "v", "alpha"}

// knownMethod says why name is not a method, or returns nil.
func knownMethod(name string) error {
	_, err := qrc.MethodNamed(name)
	return err
}

// checkMethod says why the method, or the flags given with it (oracle is
// the value of --oracle), do not fit, or returns nil.
func checkMethod(method, oracle string, given func(string) bool) error {
	if err := knownMethod(method); err != nil {
		return err
	}
	switch method {
	case methodPenalty:
		for _, f := range iqrcOnlyFlags {
			if given(f) {
				return fmt.Errorf("--%s is a setting of --method iqrc; the penalty method does not use it", f)
			}
		}
	case methodStochastic, methodSmooth, methodBundle:
		if given("oracle") && oracle != method {
			return fmt.Errorf("--method %s is IQRC with --oracle %s; it does not go with --oracle %s", method, method, oracle)
		}
	}
	return nil
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
