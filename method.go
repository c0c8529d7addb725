package qrc

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/qrc-lang/qrc/penalty"
	"github.com/qrc-lang/qrc/plan"
	"github.com/qrc-lang/qrc/solve"
)

// Method is a way to solve a compiled model, as gonum/optimize's Method
// is: IQRC, the exact penalty method, or a caller's own. Solve gives it the
// problem (solve.Problem: values, subgradients and the projection onto the
// domain), the start and the settings, whose Recorder it should tell about
// its iterations; ctx is the solve's context, which it should watch.
type Method interface {
	// Name is the method's name in the Report ("iqrc", "penalty", ...).
	Name() string
	// Minimize solves p from x0. The error is for an invalid problem or
	// settings; what goes wrong while solving is in the result's Status
	// and Err.
	Minimize(ctx context.Context, p *solve.Problem, x0 []float64, s solve.Settings) (*solve.Result, error)
}

// The built-in methods.
var (
	// IQRC is the quadratically regularized subgradient method (package
	// solve) with the oracle that WithOracle gives, or the one Solve picks.
	IQRC Method = iqrcMethod{name: "iqrc"}
	// Stochastic is IQRC with the stochastic oracle (Algorithm 3).
	Stochastic Method = iqrcMethod{name: "stochastic", oracle: solve.Stochastic}
	// Smooth is IQRC with the smooth (augmented Lagrangian) oracle.
	Smooth Method = iqrcMethod{name: "smooth", oracle: solve.Smooth}
	// Bundle is IQRC with the bundle oracle.
	Bundle Method = iqrcMethod{name: "bundle", oracle: solve.Bundle}
	// Dynamic is IQRC with dynamic sampling: the accurate oracle on a
	// sample of the data means' rows with control variates from all rows
	// (or on growing samples), then on all of them.
	Dynamic Method = iqrcMethod{name: "dynamic", oracle: solve.Dynamic}
	// Penalty is the exact penalty trust-region method of Cartis, Gould &
	// Toint (package penalty), the paper's baseline. It uses the settings'
	// Eps, Outer (as its iteration limit) and TimeLimit.
	Penalty Method = penaltyMethod{}
)

// methods lists the built-in methods in the order help texts give them.
var methods = []Method{IQRC, Penalty, Stochastic, Smooth, Bundle, Dynamic}

// MethodNames lists the names of the built-in methods.
func MethodNames() []string {
	out := make([]string, len(methods))
	for i, m := range methods {
		out[i] = m.Name()
	}
	return out
}

// MethodNamed returns the built-in method called name, or an error that
// lists the methods.
func MethodNamed(name string) (Method, error) {
	i := slices.IndexFunc(methods, func(m Method) bool { return m.Name() == name })
	if i < 0 {
		return nil, fmt.Errorf("unknown method %q; the methods are %s", name, strings.Join(MethodNames(), ", "))
	}
	return methods[i], nil
}

// iqrcMethod is IQRC, with its oracle fixed when oracle is not nil.
type iqrcMethod struct {
	name   string
	oracle solve.Oracle
}

// Name is the method's name.
func (m iqrcMethod) Name() string { return m.name }

// Minimize runs IQRC (package solve) with the method's oracle, if it
// fixes one; ctx stops it.
func (m iqrcMethod) Minimize(ctx context.Context, p *solve.Problem, x0 []float64, s solve.Settings) (*solve.Result, error) {
	if m.oracle != nil {
		s.Oracle = m.oracle
	}
	if !plan.Samples(s.Oracle) {
		p.Sampler = nil
	}
	return solve.Minimize(ctx, p, x0, s)
}

// penaltyMethod is package penalty's method.
type penaltyMethod struct{}

// Name is "penalty".
func (penaltyMethod) Name() string { return "penalty" }

// Minimize runs the exact penalty method with IQRC's Eps, Outer,
// TimeLimit and Recorder; ctx stops it.
func (penaltyMethod) Minimize(ctx context.Context, p *solve.Problem, x0 []float64, s solve.Settings) (*solve.Result, error) {
	p.Sampler = nil
	res, _, err := penalty.MinimizeReport(ctx, p, x0, penaltySettings(s))
	return res, err
}

// penaltySettings are the penalty method's settings taken from IQRC's.
func penaltySettings(s solve.Settings) penalty.Settings {
	return penalty.Settings{Eps: s.Eps, MaxIter: s.Outer, TimeLimit: s.TimeLimit, Recorder: s.Recorder}
}
