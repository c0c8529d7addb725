package solve

import "math"

// Oracle is a method that solves the strongly convex subproblems (7) of
// Algorithm 1,
//
//	x_hat = argmin_{y in X} f0(y) + RhoHat/2 ||y - x_t||^2
//	        s.t. fi(y) + RhoHat/2 ||y - x_t||^2 <= 0 (i = 1..M).
//
// The paper's Definition 1 asks only for an output within EpsHat^2 of
// x_hat's value and feasible to EpsHat^2; Algorithm 1 works with any such
// method (Remark 2). The oracles of this package are the values
// Switching, Stochastic, Smooth and Bundle; a nil Oracle in Settings
// means Auto. Dynamic is not an oracle but a driver of them (MinimizeDynamic),
// named here so that Settings can ask for it. Oracles are implemented
// inside this package only; compare them with ==.
//
// An Oracle value is a name: each Minimize call starts its own run of the
// oracle (start), which holds the state the oracle keeps from one outer
// step to the next (a warm start, a bundle, virtual queues).
type Oracle interface {
	// String is the oracle's name as the command line spells it.
	String() string
	// accurate reports whether the oracle certifies its solutions: it
	// returns a lower bound on the value of (7), hence a bound on the
	// distance to x_hat (the smooth and bundle oracles).
	accurate() bool
	// start makes the oracle's run within the solve s: an accurateMethod
	// when accurate, an inexactMethod otherwise (nil for Dynamic).
	start(s *solver) method
}

// method is one run of an oracle within one Minimize call.
type method interface {
	// oracle is the Oracle this is a run of.
	oracle() Oracle
}

// inexactMethod is an oracle that runs a fixed number of inner iterations
// with no bound of its own on their accuracy (Algorithms 2 and 3). The
// solver checks its outputs against what the algorithm guarantees
// (consistent), doubles RhoHat or K when they fail, and certifies points
// with an accurateMethod (solver.certifier).
type inexactMethod interface {
	method
	// step runs Settings.Inner inner iterations on (7) at xt (on
	// G(z) = max_i fi(z) + RhoHat/2 ||z - xt||^2 with phase1) and leaves
	// the output in solver.out.
	step(xt []float64, phase1 bool) (oracleInfo, error)
	// consistent checks step's output next from cur against the
	// algorithm's guarantees for a strongly convex subproblem.
	consistent(cur, next *Point, info oracleInfo, phase1 bool) bool
	// estimates reports that the method works on minibatch estimates and
	// its outputs are feasible only to O(1/sqrt(K)) (Algorithm 3): phase 1
	// aims at feasibility to Eps rather than EpsHat^2, phase 2 has no
	// restoring steps, the probe does not run, the evaluations between
	// steps use the Sampler's monitoring data, and the point returned is
	// polished.
	estimates() bool
}

// accurateMethod is an oracle that solves (7) to a certified gap (the
// smooth and bundle oracles).
type accurateMethod interface {
	method
	// solve solves (7) at xt to the accuracy acc and leaves its best point
	// in solver.out (and its values in solver.outF when it is feasible).
	solve(xt []float64, acc accuracy) (subResult, haltReason, error)
	// warmMultipliers are the multipliers the method keeps as its warm
	// start (len M; nil when it keeps none): a second candidate for the
	// KKT check at x (solver.kktAt).
	warmMultipliers() []float64
}

type (
	switchingOracle  struct{}
	stochasticOracle struct{}
	smoothOracle     struct{}
	bundleOracle     struct{}
	smoothedOracle   struct{}
	dualOracle       struct{}
	proxOracle       struct{}
	dynamicOracle    struct{}
)

func (switchingOracle) String() string  { return "switching" }
func (stochasticOracle) String() string { return "stochastic" }
func (smoothOracle) String() string     { return "smooth" }
func (bundleOracle) String() string     { return "bundle" }
func (smoothedOracle) String() string   { return "smoothed" }
func (dualOracle) String() string       { return "dual" }
func (proxOracle) String() string       { return "prox" }
func (dynamicOracle) String() string    { return "dynamic" }

func (switchingOracle) accurate() bool  { return false }
func (stochasticOracle) accurate() bool { return false }
func (smoothOracle) accurate() bool     { return true }
func (bundleOracle) accurate() bool     { return true }
func (smoothedOracle) accurate() bool   { return true }
func (dualOracle) accurate() bool       { return true }
func (proxOracle) accurate() bool       { return true }
func (dynamicOracle) accurate() bool    { return false }

func (switchingOracle) start(s *solver) method  { return &switchingMethod{s} }
func (stochasticOracle) start(s *solver) method { return newStochasticMethod(s) }
func (smoothOracle) start(s *solver) method     { return &smoothMethod{solver: s} }
func (bundleOracle) start(s *solver) method     { return &bundleMethod{solver: s} }
func (smoothedOracle) start(s *solver) method   { return newSmoothedMethod(s) }
func (dualOracle) start(s *solver) method       { return newDualMethod(s) }
func (proxOracle) start(s *solver) method       { return newProxMethod(s) }
func (dynamicOracle) start(*solver) method      { return nil }

// The oracles.
var (
	// Switching is Algorithm 2, the switching subgradient method, with a
	// fixed number of inner iterations (Settings.Inner), exactly as the
	// paper writes it.
	Switching Oracle = switchingOracle{}
	// Stochastic is Algorithm 3, the online stochastic subgradient method
	// of Yu, Neely & Wei (2017) with virtual queues, on minibatch estimates
	// drawn by Problem.Sampler (exact values when the Problem has none).
	Stochastic Oracle = stochasticOracle{}
	// Smooth solves (7) for a Problem whose functions are all
	// continuously differentiable (Problem.Smooth) by an augmented
	// Lagrangian method whose inner problems are solved by a spectral
	// projected gradient method, to a certified gap (smooth.go).
	Smooth Oracle = smoothOracle{}
	// Bundle solves (7) for nonsmooth problems by a cutting-plane (bundle)
	// model of every function, whose minimum over X is a certified lower
	// bound (bundle.go).
	Bundle Oracle = bundleOracle{}
	// Smoothed solves (7) for a Problem with a Smoothing (kinks that
	// enter linearly: hinge, pos, abs, mcp, scad of affine scores) by the
	// smooth oracle on the smoothed (7), certified on (7) itself through
	// the smoothing's tangent values (smoothed.go).
	Smoothed Oracle = smoothedOracle{}
	// Dual solves (7) for a Problem with Pieces (hinge, pos, abs of
	// affine scores plus affine rests) by accelerated ascent on its dual,
	// certified by the duality gap (dual.go, package dualqp).
	Dual Oracle = dualOracle{}
	// Prox solves (7) for a Problem with a Separable objective (a smooth
	// rest plus kinks of single variables: l1, MCP, SCAD) and smooth
	// constraints by the smooth oracle's augmented Lagrangian with a
	// proximal gradient inner solver that treats the kinks exactly,
	// certified by the Lagrangian's lower bound (prox.go).
	Prox Oracle = proxOracle{}
	// Dynamic is dynamic sampling (MinimizeDynamic), a driver of the
	// other oracles rather than one: Auto(p), the accurate
	// oracle, on a uniform subsample of the data means' rows
	// (Problem.Sampler must implement Subsampler) with control variates
	// from every row, in rounds (Settings.SampleRounds; or on growing
	// subsamples), warm-started, finishing on every row; on all rows from
	// the start when there is nothing to sample.
	Dynamic Oracle = dynamicOracle{}
)

// Auto returns the oracle a nil Settings.Oracle means for p: Smooth when
// every function of p is differentiable (Problem.Smooth), Bundle
// otherwise. (The choice of Stochastic for large data is the caller's: it
// depends on the data, which this package does not see.)
func Auto(p *Problem) Oracle {
	if p.Smooth {
		return Smooth
	}
	return Bundle
}

// OracleNamed returns the oracle named name ("switching", "stochastic",
// "smooth", "bundle", "smoothed", "dual", "prox" or "dynamic"; "deterministic" is an older name of
// "switching").
func OracleNamed(name string) (Oracle, bool) {
	switch name {
	case "switching", "deterministic":
		return Switching, true
	case "stochastic":
		return Stochastic, true
	case "smooth":
		return Smooth, true
	case "bundle":
		return Bundle, true
	case "smoothed":
		return Smoothed, true
	case "dual":
		return Dual, true
	case "prox":
		return Prox, true
	case "dynamic":
		return Dynamic, true
	}
	return nil, false
}

// subResult is what an accurate oracle found for (7) at x_t, beside its
// output in solver.out.
type subResult struct {
	// F is F(out) = f0(out) + RhoHat/2 ||out - x_t||^2, and Lower a lower
	// bound on the minimum of (7), valid when every fi is Rho-weakly
	// convex (so that (7) is (RhoHat-Rho)-strongly convex); -Inf when none
	// was found.
	F, Lower float64
	// Feasible reports that out satisfies every constraint of (7) exactly
	// (fi(out) + RhoHat/2 ||out - x_t||^2 <= 0).
	Feasible bool
	// Lambda are the multipliers of the constraints the bound comes with
	// (len M).
	Lambda []float64
	// Evals is the number of evaluations the oracle made.
	Evals int
	// Nonconvex reports evidence that (7) is not (RhoHat-Rho)-strongly
	// convex, so that Lower may not be a bound: RhoHat is too small.
	Nonconvex bool
	// Prox, when not nil (len M), are the proximal weights the oracle
	// added to the constraints in place of RhoHat (solver.conProx); nil
	// means RhoHat for every constraint, as in the paper's (7).
	Prox []float64
	// Concave is curvature the oracle knows (7) has beyond what its
	// evidence checks (the prox oracle's kinks, whose concave pieces the
	// secant test of the smooth part cannot see): (7) is then only
	// (RhoHat - Rho - Concave)-strongly convex.
	Concave float64
}

// KKTFactor is RhoHat + sum_i Lambda_i RhoHat_i, with RhoHat_i the
// proximal weight of constraint i (Prox, or RhoHat): at the solution x_hat
// of (7) at x_t the KKT conditions of the original problem hold up to
// KKTFactor ||x_hat - x_t||. Without Prox it is (1 + sum Lambda) RhoHat.
func (r *subResult) KKTFactor(rhoHat float64) float64 {
	k := rhoHat
	for i, l := range r.Lambda {
		w := rhoHat
		if r.Prox != nil {
			w = r.Prox[i]
		}
		k += l * w
	}
	return k
}

// Gap is F - Lower: a bound on F(out) - min (7) for a feasible out.
func (r *subResult) Gap() float64 { return r.F - r.Lower }

// DistBound bounds ||out - x_hat||: for a feasible out, the strong
// convexity of (7) with modulus mu - Concave gives that modulus over 2
// times ||out - x_hat||^2 <= F(out) - F(x_hat) <= Gap. +Inf when out is
// not feasible, there is no bound, or the modulus is not positive.
func (r *subResult) DistBound(mu float64) float64 {
	mu -= r.Concave
	if !r.Feasible || math.IsInf(r.Lower, -1) || math.IsNaN(r.Lower) || !(mu > 0) {
		return math.Inf(1)
	}
	return math.Sqrt(2 * math.Max(0, r.Gap()) / mu)
}

// LambdaSum is the sum of the multipliers.
func (r *subResult) LambdaSum() float64 {
	s := 0.0
	for _, l := range r.Lambda {
		s += l
	}
	return s
}
