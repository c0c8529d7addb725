package solve

import (
	"errors"
	"fmt"
	"math"

	"github.com/qrc-lang/qrc/dualqp"
)

// Oracle is a method that solves the strongly convex subproblems (7) of
// Algorithm 1,
//
//	x_hat = argmin_{y in X} f0(y) + RhoHat/2 ||y - x_t||^2
//	        s.t. fi(y) + RhoHat/2 ||y - x_t||^2 <= 0 (i = 1..M).
//
// The paper's Definition 1 asks only for an output within EpsHat^2 of
// x_hat's value and feasible to EpsHat^2; Algorithm 1 works with any such
// method (Remark 2). An Oracle is a value that carries the form of the
// model it needs and its parameters: the *SmoothOracle, *BundleOracle and
// *SwitchingOracle need none, the *StochasticOracle has Algorithm 3's V
// and alpha, the *SmoothedOracle a Smoothing, the *DualOracle the Pieces,
// the *ProxOracle a Separable objective, and the *DynamicOracle (a driver
// of the others, MinimizeDynamic) its schedule. The package variables
// Smooth, Bundle, ... are the oracles with their defaults and no form;
// a nil Settings.Oracle means Auto. Oracles are implemented inside this
// package only; tell them apart by their type (a type switch), not by ==.
//
// An Oracle value is not changed by a solve, so one value serves any
// number of solves: each Minimize call starts its own run of the oracle
// (start), which holds the state the oracle keeps from one outer step to
// the next (a warm start, a bundle, virtual queues) and its own buffers.
type Oracle interface {
	// String is the oracle's name as the command line spells it.
	String() string
	// Accurate reports whether the oracle certifies its solutions: it
	// returns a lower bound on the value of (7), hence a bound on the
	// distance to x_hat (the smooth, bundle, smoothed, dual and prox
	// oracles).
	Accurate() bool
	// uses says why the oracle cannot solve p (a form it needs is
	// missing or does not fit p), or returns nil; withDefaults calls it.
	uses(p *Problem) error
	// takes reports whether the oracle solves an equality constraint of
	// kind k (TakesEquality) on a Problem that is smooth or not.
	takes(k ConstraintKind, smooth bool) bool
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

// SwitchingOracle is Algorithm 2, the switching subgradient method, with
// a fixed number of inner iterations (Settings.Inner), exactly as the
// paper writes it.
type SwitchingOracle struct{}

// StochasticOracle is Algorithm 3, the online stochastic subgradient
// method of Yu, Neely & Wei (2017) with virtual queues, on minibatch
// estimates drawn by Problem.Sampler (exact values when the Problem has
// none).
type StochasticOracle struct {
	// V and Alpha are Algorithm 3's parameters; 0 means the paper's
	// V = sqrt(Inner) and Alpha = Inner (Algorithm3).
	V, Alpha float64
}

// SmoothOracle solves (7) for a Problem whose functions are all
// continuously differentiable (Problem.Smooth) by an augmented Lagrangian
// method whose inner problems are solved by a spectral projected gradient
// method, to a certified gap (smooth.go).
type SmoothOracle struct{}

// BundleOracle solves (7) for nonsmooth problems by a cutting-plane
// (bundle) model of every function, whose minimum over X is a certified
// lower bound (bundle.go).
type BundleOracle struct{}

// SmoothedOracle solves (7) for a Problem whose kinks enter linearly
// (hinge, pos, abs, mcp, scad of affine scores), given their Smoothing,
// by the smooth oracle on the smoothed (7), certified on (7) itself
// through the smoothing's tangent values (smoothed.go).
type SmoothedOracle struct {
	// Smoothing is the Problem's smoothing (package smoothing makes it
	// for a qrc model); its SetMu is called by the oracle's runs, so one
	// Smoothing serves one solve at a time.
	Smoothing Smoothing
}

// DualOracle solves (7) for a Problem given its Pieces (hinge, pos, abs
// of affine scores plus affine rests, which must agree with Eval) by
// coordinate or accelerated ascent on its dual, certified by the duality
// gap (dual.go, package dualqp).
type DualOracle struct {
	// Pieces are the functions' explicit form, of the Problem's N and M.
	Pieces *dualqp.Model
}

// ProxOracle solves (7) for a Problem given its Separable objective (a
// smooth rest plus kinks of single variables: l1, MCP, SCAD) and smooth
// constraints by the smooth oracle's augmented Lagrangian with a proximal
// gradient inner solver that treats the kinks exactly, certified by the
// Lagrangian's lower bound (prox.go).
type ProxOracle struct {
	// Separable is f0 as a smooth rest plus kinks of single variables.
	Separable *Separable
}

// DynamicOracle is dynamic sampling (MinimizeDynamic), a driver of the
// other oracles rather than one: Auto(p), the accurate oracle, on a
// uniform subsample of the data means' rows (Problem.Sampler must
// implement Subsampler) with control variates from every row, in rounds
// (Rounds; or on growing subsamples), warm-started, finishing on every
// row; on all rows from the start when there is nothing to sample.
type DynamicOracle struct {
	// Start and Growth are the schedule: the first sample's rows (over
	// all sampled row sets) and the factor by which each sample is larger
	// than the last; 0 means DynamicStartRows and DynamicGrowth.
	Start, Growth int
	// Rounds is the rounds on the first sample with control variates
	// before the stage on every row (see corrected); 0 means
	// DynamicRounds, and up to DynamicMaxRounds while a round stops at its
	// step limit. A negative value runs growing samples without control
	// variates instead (Growth; the schedule before).
	Rounds int
	// FullPass, when not nil, evaluates on every row where the data live,
	// and the Problem holds only a sample of FullRows rows (remote.go;
	// issue 33): every evaluation on all rows is a FullPass.
	FullPass FullPass
	FullRows int
	// PiecesOf, if not nil, returns the Pieces of the rows the Sampler
	// now selects (every row after Full): nil when the functions have no
	// such form or the form disagrees with Eval on that selection. The
	// stages call it after selecting their rows and solve those with the
	// DualOracle when it gives a model.
	PiecesOf func() (*dualqp.Model, error)
}

func (*SwitchingOracle) String() string  { return "switching" }
func (*StochasticOracle) String() string { return "stochastic" }
func (*SmoothOracle) String() string     { return "smooth" }
func (*BundleOracle) String() string     { return "bundle" }
func (*SmoothedOracle) String() string   { return "smoothed" }
func (*DualOracle) String() string       { return "dual" }
func (*ProxOracle) String() string       { return "prox" }
func (*DynamicOracle) String() string    { return "dynamic" }

func (*SwitchingOracle) Accurate() bool  { return false }
func (*StochasticOracle) Accurate() bool { return false }
func (*SmoothOracle) Accurate() bool     { return true }
func (*BundleOracle) Accurate() bool     { return true }
func (*SmoothedOracle) Accurate() bool   { return true }
func (*DualOracle) Accurate() bool       { return true }
func (*ProxOracle) Accurate() bool       { return true }
func (*DynamicOracle) Accurate() bool    { return false }

func (*SwitchingOracle) uses(*Problem) error { return nil }
func (*BundleOracle) uses(*Problem) error    { return nil }

func (o *StochasticOracle) uses(*Problem) error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"StochasticOracle.V", o.V}, {"StochasticOracle.Alpha", o.Alpha}} {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return fmt.Errorf("solve: %s = %v; it must be a nonnegative finite number", c.name, c.v)
		}
	}
	return nil
}

func (*SmoothOracle) uses(p *Problem) error {
	if !p.Smooth {
		return errors.New("solve: the Smooth oracle needs a smooth Problem (Problem.Smooth); use Bundle")
	}
	return nil
}

func (o *SmoothedOracle) uses(*Problem) error {
	if o.Smoothing == nil {
		return errors.New("solve: the Smoothed oracle needs the Problem's Smoothing (SmoothedOracle.Smoothing); use Bundle")
	}
	return nil
}

func (o *DualOracle) uses(p *Problem) error {
	if o.Pieces == nil || o.Pieces.N != p.N || o.Pieces.M != p.M {
		return errors.New("solve: the Dual oracle needs the Problem's Pieces (DualOracle.Pieces, of the Problem's N and M); use Bundle")
	}
	return nil
}

func (o *ProxOracle) uses(*Problem) error {
	if o.Separable == nil {
		return errors.New("solve: the Prox oracle needs the Problem's Separable objective (ProxOracle.Separable); use Bundle")
	}
	return nil
}

func (o *DynamicOracle) uses(*Problem) error {
	if o.Start < 0 || o.Growth < 0 {
		return fmt.Errorf("solve: negative DynamicOracle.Start or DynamicOracle.Growth")
	}
	if o.Growth == 1 {
		return fmt.Errorf("solve: DynamicOracle.Growth = 1: the samples must grow; use at least 2")
	}
	return nil
}

// takes: an inequality every oracle; an equality the Smooth oracle, the
// Bundle oracle an affine one only (its cuts of h and -h cannot both be
// minorants of a nonlinear h), Dynamic what its stages' oracle Auto(p)
// takes, and Algorithms 2 and 3 and the others none.
func (*SmoothOracle) takes(ConstraintKind, bool) bool { return true }
func (*BundleOracle) takes(k ConstraintKind, _ bool) bool {
	return k == Inequality || k == AffineEquality
}
func (*DynamicOracle) takes(k ConstraintKind, smooth bool) bool {
	return k == Inequality || smooth || k == AffineEquality
}
func (*SwitchingOracle) takes(k ConstraintKind, _ bool) bool  { return k == Inequality }
func (*StochasticOracle) takes(k ConstraintKind, _ bool) bool { return k == Inequality }
func (*SmoothedOracle) takes(k ConstraintKind, _ bool) bool   { return k == Inequality }
func (*DualOracle) takes(k ConstraintKind, _ bool) bool       { return k == Inequality }
func (*ProxOracle) takes(k ConstraintKind, _ bool) bool       { return k == Inequality }

func (*SwitchingOracle) start(s *solver) method    { return &switchingMethod{s} }
func (o *StochasticOracle) start(s *solver) method { return newStochasticMethod(s, o) }
func (*SmoothOracle) start(s *solver) method       { return &smoothMethod{solver: s} }
func (*BundleOracle) start(s *solver) method       { return &bundleMethod{solver: s} }
func (o *SmoothedOracle) start(s *solver) method   { return newSmoothedMethod(s, o) }
func (o *DualOracle) start(s *solver) method       { return newDualMethod(s, o) }
func (o *ProxOracle) start(s *solver) method       { return newProxMethod(s, o) }
func (*DynamicOracle) start(*solver) method        { return nil }

// The oracles with their defaults and no form: the names a caller asks
// for. Smoothed, Dual and Prox need their form (a SmoothedOracle,
// DualOracle or ProxOracle value that carries it) to solve anything.
var (
	// Switching is Algorithm 2, exactly as the paper writes it.
	Switching Oracle = &SwitchingOracle{}
	// Stochastic is Algorithm 3 with the paper's V and alpha.
	Stochastic Oracle = &StochasticOracle{}
	// Smooth is the augmented Lagrangian oracle for smooth problems.
	Smooth Oracle = &SmoothOracle{}
	// Bundle is the cutting-plane oracle for nonsmooth problems.
	Bundle Oracle = &BundleOracle{}
	// Smoothed is the smoothed oracle, without its Smoothing.
	Smoothed Oracle = &SmoothedOracle{}
	// Dual is the dual oracle, without its Pieces.
	Dual Oracle = &DualOracle{}
	// Prox is the proximal gradient oracle, without its Separable form.
	Prox Oracle = &ProxOracle{}
	// Epigraph is the epigraph oracle, without its Form.
	Epigraph Oracle = &EpigraphOracle{}
	// Dynamic is dynamic sampling with the default schedule.
	Dynamic Oracle = &DynamicOracle{}
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

// named are the oracles OracleNamed finds, by their String.
var named = []Oracle{Switching, Stochastic, Smooth, Bundle, Smoothed, Dual, Prox, Epigraph, Dynamic}

// OracleNamed returns the oracle named name, with its defaults and no
// form ("switching", "stochastic", "smooth", "bundle", "smoothed",
// "dual", "prox", "epigraph" or "dynamic"; "deterministic" is an older name of
// "switching").
func OracleNamed(name string) (Oracle, bool) {
	if name == "deterministic" {
		name = "switching"
	}
	for _, o := range named {
		if o.String() == name {
			return o, true
		}
	}
	return nil, false
}

// SameKind reports whether a and b are the same oracle, whatever form and
// parameters each carries (nil is the same only as nil): oracles of one
// type, whose names (String) are unique to it.
func SameKind(a, b Oracle) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.String() == b.String()
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
	// Dist, when HasDist, is a bound on ||out - x_hat|| that the oracle
	// proved by other means than the gap (the epigraph SQP's, linear in
	// its Lagrangian's gradient at out); DistBound takes the smaller.
	Dist    float64
	HasDist bool
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
	d := math.Sqrt(2 * math.Max(0, r.Gap()) / mu)
	if r.HasDist && r.Concave == 0 {
		d = math.Min(d, r.Dist)
	}
	return d
}

// LambdaSum is the sum of the multipliers.
func (r *subResult) LambdaSum() float64 {
	s := 0.0
	for _, l := range r.Lambda {
		s += l
	}
	return s
}
