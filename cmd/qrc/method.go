package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/penalty"
	"github.com/qrc-lang/qrc/solve"
)

// The solution methods of qrc solve --method and qrc compare --methods.
const (
	methodIQRC       = "iqrc"       // package solve
	methodPenalty    = "penalty"    // package penalty
	methodStochastic = "stochastic" // package solve with the stochastic oracle (qrc solve: --oracle stochastic)
	methodSmooth     = "smooth"     // package solve with the smooth oracle (qrc solve: --oracle smooth)
	methodBundle     = "bundle"     // package solve with the bundle oracle (qrc solve: --oracle bundle)
	methodDynamic    = "dynamic"    // package solve with dynamic sampling (qrc solve: --oracle dynamic)
)

// methodNames lists the methods in the order help texts give them.
var methodNames = []string{methodIQRC, methodPenalty, methodStochastic, methodSmooth, methodBundle, methodDynamic}

// methodOracle is the oracle a method name fixes (nil for iqrc and penalty).
var methodOracle = map[string]solve.Oracle{methodStochastic: solve.Stochastic, methodSmooth: solve.Smooth, methodBundle: solve.Bundle, methodDynamic: solve.Dynamic}

// iqrcOnlyFlags are the qrc solve flags that mean nothing to the penalty
// method.
var iqrcOnlyFlags = []string{"rho-hat", "rho", "inner", "pick", "seed", "oracle", "batch", "allow-biased", "v", "alpha", "sample", "sample-growth"}

// knownMethod says why name is not a method, or returns nil.
func knownMethod(name string) error {
	if !slices.Contains(methodNames, name) {
		return fmt.Errorf("unknown method %q; the methods are %s", name, strings.Join(methodNames, ", "))
	}
	return nil
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

// minimize solves prob, the compiled model m, with the method: IQRC with
// the settings s, or the penalty method with its defaults and s's Eps,
// Outer (as its iteration limit), TimeLimit, Recorder and Stop. For the
// penalty method (which uses prob.DomainConstraints) it warns on
// stderr when the model is not smooth. The report is nil for IQRC. qrc
// solve and qrc compare both run their methods through here, so a new
// method is one more case (and one more name in methodNames). The
// stochastic and dynamic methods are IQRC with those oracles; prob's
// Sampler is dropped for the others.
func minimize(method string, prob *solve.Problem, m *check.Model, x0 []float64, s solve.Settings, stderr io.Writer) (*solve.Result, *penalty.Report, error) {
	switch method {
	case methodPenalty:
		if atoms := nonsmoothAtoms(m); len(atoms) > 0 {
			fmt.Fprintf(stderr, "warning: the model uses %s, which %s not smooth: the penalty method runs on subgradients, but its theory (Cartis, Gould & Toint 2011) assumes smooth functions\n",
				strings.Join(atoms, ", "), map[bool]string{true: "is", false: "are"}[len(atoms) == 1])
		}
		prob.Sampler = nil
		return penalty.MinimizeReport(prob, x0, penaltySettings(s))
	case methodStochastic, methodSmooth, methodBundle, methodDynamic:
		s.Oracle = methodOracle[method]
		if s.Oracle != solve.Stochastic && s.Oracle != solve.Dynamic {
			prob.Sampler = nil
		}
		res, err := solve.Minimize(prob, x0, s)
		return res, nil, err
	default:
		if s.Oracle != solve.Stochastic && s.Oracle != solve.Dynamic {
			prob.Sampler = nil
		}
		res, err := solve.Minimize(prob, x0, s)
		return res, nil, err
	}
}

// penaltySettings are the penalty method's settings taken from IQRC's.
func penaltySettings(s solve.Settings) penalty.Settings {
	return penalty.Settings{Eps: s.Eps, MaxIter: s.Outer, TimeLimit: s.TimeLimit, Recorder: s.Recorder, Stop: s.Stop}
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

// nonsmoothAtoms lists, sorted, the nonsmooth operations the objective and
// constraints use on the variables (check.Kinks).
func nonsmoothAtoms(m *check.Model) []string {
	var out []string
	for _, k := range check.Kinks(m) {
		if !slices.Contains(out, k.Atom) {
			out = append(out, k.Atom)
		}
	}
	slices.Sort(out)
	return out
}

// penaltyJSON describes the penalty method's run in the JSON result.
type penaltyJSON struct {
	Xi        float64 `json:"xi"`
	Tau       float64 `json:"tau"`
	PStart    float64 `json:"p_start"`
	P         float64 `json:"p"` // the final penalty parameter
	Delta0    float64 `json:"delta_start"`
	Delta     float64 `json:"delta"` // the final trust-region radius
	Eta1      float64 `json:"eta1"`
	Eta2      float64 `json:"eta2"`
	Gamma1    float64 `json:"gamma1"`
	Gamma2    float64 `json:"gamma2"`
	Increases int     `json:"increases"`
	Rejected  int     `json:"rejected"`
	Pivots    int     `json:"lp_pivots"`
	Stalled   bool    `json:"stalled"`
}

// describeMethod records in r the method and, for the penalty method, its
// settings and state instead of IQRC's.
func (r *solveResult) describeMethod(method string, s solve.Settings, rep *penalty.Report) {
	r.Method = method
	if rep == nil {
		return
	}
	ps, _ := penaltySettings(s).WithDefaults()
	r.Settings = solveSettings{Eps: ps.Eps, Outer: ps.MaxIter, TimeLimitSeconds: ps.TimeLimit.Seconds(), Pick: "last"}
	r.Penalty = &penaltyJSON{Xi: ps.Xi, Tau: ps.Tau, PStart: ps.P0, P: rep.Penalty, Delta0: ps.Delta0, Delta: rep.Delta,
		Eta1: ps.Eta1, Eta2: ps.Eta2, Gamma1: ps.Gamma1, Gamma2: ps.Gamma2,
		Increases: rep.Increases, Rejected: rep.Rejected, Pivots: rep.Pivots, Stalled: rep.Stalled}
}

// text prints the penalty method's line of the text result.
func (p *penaltyJSON) text(w io.Writer) {
	fmt.Fprintf(w, "penalty        p = %s (%d increase(s) from %s), trust radius %s, %d step(s) rejected, %d LP pivots\n",
		num(p.P), p.Increases, num(p.PStart), num(p.Delta), p.Rejected, p.Pivots)
	if p.Stalled {
		fmt.Fprintln(w, "               stopped: the trust radius collapsed (the linear model does not predict the penalty function near x, e.g. at a kink)")
	}
}
