// Package solve minimises a weakly convex, possibly nonsmooth objective
// subject to weakly convex constraints and a simple convex domain,
//
//	minimize f0(x)  subject to  fi(x) <= 0 (i = 1..m),  x in X,
//
// by IQRC, the inexact quadratically regularized constrained method of Ma,
// Lin & Yang (ICML 2020, Algorithm 1). The strongly convex subproblems are
// solved by an Oracle: by default an accurate one that certifies its gap
// (Smooth, an augmented Lagrangian method, for differentiable problems;
// Bundle, a cutting-plane method, otherwise), or the paper's switching
// subgradient method (Algorithm 2) or stochastic method (Algorithm 3). A
// phase 1 first finds a feasible point (their Remark 1), RhoHat follows
// the model (doubled on evidence that a subproblem is not convex, halved
// while steps contract slowly), and the returned point comes with a
// certificate of near stationarity: a bound on the KKT residual at x_hat,
// the solution of the subproblem at that point (their Definition 2 and
// the KKT conditions (8)).
//
// The package works on plain Go functions: a Problem gives the values of
// f0..fm at a point, a subgradient of any nonnegative combination of them,
// and the Euclidean projection onto X. It does not depend on the qrc
// language. docs/solver.md describes the method, the statuses, the
// certificate and the defaults.
//
// Minimize is deterministic: the same problem, start and settings give
// bitwise the same result (apart from Stats.Time and Iteration.Elapsed). It
// starts no goroutines.
package solve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/qrc-lang/qrc/domain"
)

// Problem is min f0(x) subject to fi(x) <= 0 (i = 1..M), x in X.
type Problem struct {
	N int // number of variables
	M int // number of constraints

	// Eval stores f0(x) in vals[0] and fi(x) in vals[i]; len(vals) = M+1.
	// An error (or a value that is not finite) stops the solve with status
	// NumericalError and the error in Result.Err.
	Eval func(x, vals []float64) error

	// Grad stores in g (len N) sum_i w[i] * (a subgradient of fi) at the x
	// of the last call of Eval; len(w) = M+1. The solver always passes a
	// unit vector w = e_i.
	Grad func(w, g []float64) error

	// Jacobian, if not nil, stores in rows[i] (len M+1, each of len N) a
	// subgradient of fi at the x of the last call of Eval, for every i:
	// what Grad with w = e_i stores (to rounding), in one call that can
	// share work between the functions. The solver calls it where it wants
	// every function's subgradient at one point (the bundle and
	// stochastic oracles, package penalty); nil means one Grad per
	// function there.
	Jacobian func(rows [][]float64) error

	// Project replaces x by its Euclidean projection onto X. nil means X is
	// all of R^N.
	Project func(x []float64)

	// DomainConstraints, if not nil, writes X as inequalities c_j(x) <= 0:
	// it appends to cs the value and a subgradient of each at x (Start
	// indexes x). IQRC projects and does not use it; methods that do not
	// project (package penalty) need it whenever Project is set.
	DomainConstraints func(x []float64, cs []domain.Constraint) []domain.Constraint

	// Names are the constraints' names (len M, in the order of f1..fM) for
	// messages; may be nil.
	Names []string

	// Sampler, if not nil, draws the minibatches of the stochastic oracle;
	// without one the stochastic oracle runs on exact values. The solver
	// selects the full data (Sampler.Full) before anything else, and
	// reports every returned value on the full data.
	Sampler Sampler

	// WeakConvexity is the weak-convexity modulus rho of f0..fM if known
	// (every fi + rho/2 ||x||^2 convex on X), 0 if unknown.
	WeakConvexity float64

	// ProvenRho, if positive, is a proven bound on the weak-convexity
	// modulus (qrc's analysis): a certificate whose Rho is at least it
	// rests on a proven assumption (Certificate.Proven), not only on the
	// oracles' checks. It does not change the iterations.
	ProvenRho float64

	// ConstraintRho, if not nil (len M), holds a proven weak-convexity
	// modulus of each constraint fi (ConstraintRho[i-1]; 0 for a convex
	// one), or NaN where none is proven. The smooth oracle then adds only
	// that much proximal term to fi in (7) instead of RhoHat (see
	// conProx); the other oracles do not use it.
	ConstraintRho []float64

	// Convex reports that f0..fM are proven convex on X (qrc's analysis):
	// every nearly stationary point is then nearly optimal, and the
	// solver does not probe around it for lower points (probe.go).
	Convex bool

	// Kinds, if not nil (len M), says which constraints are equalities
	// fi(x) = 0 (AffineEquality, NonlinearEquality) rather than
	// inequalities fi(x) <= 0 (Inequality; nil means every one). Only the
	// Smooth oracle takes equalities (see equality.go and docs/solver.md).
	Kinds []ConstraintKind

	// eqSide marks, in the Problem the solver sees (split), the two
	// inequalities each equality becomes: they get no proximal term in (7)
	eqSide []bool
	// nonlinearEq reports that one of them comes from a NonlinearEquality:
	// (7) is then outside the theory and only the KKT check certifies
	nonlinearEq bool

	// Smooth reports that every fi is continuously differentiable on X,
	// so that Grad gives gradients: the Smooth oracle needs it, a nil
	// Settings.Oracle picks it then (Auto), and the certificate measures
	// the KKT residual at x with them. (The forms of the model other
	// oracles need are carried by the oracle values: SmoothedOracle,
	// DualOracle, ProxOracle, DynamicOracle.)
	Smooth bool
}

// Pick chooses which outer iterate is returned.
type Pick int

// The ways to pick the returned point.
const (
	// PickLast returns the last outer iterate.
	PickLast Pick = iota
	// PickRandom returns x_R with R uniform in 0..T-1 over the T outer
	// iterations of phase 2, as in Algorithm 1 and its Theorem 1.
	PickRandom
)

// Defaults and limits. docs/solver.md gives the reasons.
const (
	DefaultRhoHat    = 1.0  // Settings.RhoHat
	DefaultEps       = 1e-3 // Settings.Eps, but for the Smooth oracle
	DefaultSmoothEps = 1e-6 // Settings.Eps for the Smooth oracle (its certificate measures the KKT residual at x with gradients)
	DefaultInner     = 1000 // Settings.Inner
	DefaultOuter     = 100  // Settings.Outer for the switching and stochastic oracles
	// MaxOuter is Settings.Outer's default for the accurate oracles: no
	// budget that stops a solve while it converges (it stops on its
	// certificate, the time limit or the progress rule), only a bound
	// that no solve reaches in practice.
	MaxOuter              = 100_000
	progressWindow        = 100  // the progress rule looks back this many outer steps
	progressShare         = 1e-2 // ... for a decrease of the objective of at least this times Eps (and at least 1e-12), relative to 1 + |f0|
	MaxRhoDoublings       = 30   // the safeguard doubles RhoHat at most this often in one solve
	DefaultMaxEvals       = 5000 // Settings.MaxEvals
	CertificateEvalFactor = 4    // the certificate's oracle run may take this many times MaxEvals evaluations
	GraceTime             = 500 * time.Millisecond
	MinRhoHatFactor       = 1.0 / 1024 // with an accurate oracle RhoHat comes down to this times its start at least
	slowContraction       = 0.5        // an accurate step longer than this times the last one lets RhoHat come down
	rhoDownAfter          = 3          // RhoHat halves (to at least its start) after this many outer steps without a doubling
	MaxInnerGrowth        = 64         // Inner grows (doubling) to at most this many times its starting value
	phase1Window          = 10         // phase 1 gives up after this many outer steps without progress
)

// Settings control Minimize. The zero value means every default.
type Settings struct {
	// RhoHat is the regularization rho_hat of the subproblems (7). Default
	// 1, as in the paper's experiments, or 2*WeakConvexity when that is
	// known and at least 1/2.
	RhoHat float64
	// Rho is the weak-convexity modulus assumed by the oracle's step sizes
	// gamma_k = 2/((RhoHat-Rho)(k+2)); it must be below RhoHat. Default:
	// Problem.WeakConvexity if positive, else RhoHat/2.
	Rho float64
	// Eps is the target accuracy epsilon: the stationarity tolerance and
	// the feasibility tolerance of returned points. Default 1e-6 with the
	// Smooth oracle (DefaultSmoothEps), 1e-3 with the others (DefaultEps).
	Eps float64
	// EpsHat is the oracle accuracy: an inner iterate z is feasible for
	// the subproblem when G(z) <= EpsHat^2, and the accurate oracles
	// solve (7) to a gap of at most EpsHat^2. Default Eps, and at least
	// DefaultEps with an accurate oracle.
	EpsHat float64
	// Inner is K, the number of inner (switching subgradient) iterations
	// per outer step, at least 2. Default 1000.
	Inner int
	// Outer is T, the maximum number of outer iterations of phase 2;
	// phase 1 has a budget of its own of the same size, at most
	// DefaultOuter. Default: DefaultOuter (100) for the switching and
	// stochastic oracles; for the accurate oracles MaxOuter and the
	// progress rule, so that no fixed budget stops a solve that is still
	// converging: phase 2 stops on the certificate, the time limit, or
	// with Stalled when the objective fell by less than max(1e-12, Eps /
	// 100) (1 + |f0|) over the last 100 outer steps.
	Outer int
	// TimeLimit bounds the wall-clock time of the solve, checked at every
	// inner iteration; 0 means none. The certificate and the stochastic
	// oracle's polish may use GraceTime more; what cannot finish by then
	// is left out and the Result says so.
	TimeLimit time.Duration
	// Pick chooses the returned outer iterate (PickLast by default).
	Pick Pick
	// Seed seeds the random pick of PickRandom and the stochastic
	// oracle's minibatches.
	Seed uint64
	// Recorder, if not nil, is told about every outer iteration, and, when
	// RecordEvery > 0, every RecordEvery-th inner iteration.
	Recorder    Recorder
	RecordEvery int
	// Oracle chooses the subproblem solver, with the form of the model
	// it needs and its parameters: Smooth, Bundle, a SmoothedOracle, a
	// DualOracle or a ProxOracle (accurate, certified), Switching
	// (Algorithm 2), a StochasticOracle (Algorithm 3 on minibatches drawn
	// by Problem.Sampler; Seed seeds the draws), or a DynamicOracle (the
	// driver of dynamic sampling). nil means Auto(p): Smooth for a smooth
	// Problem, Bundle otherwise.
	Oracle Oracle
	// MaxEvals bounds the evaluations of one call of an accurate oracle
	// (Smooth, Bundle); 0 means DefaultMaxEvals.
	MaxEvals int
	// NoSafeguard disables the doubling of RhoHat when a subproblem is
	// found not to be convex (for experiments and tests).
	NoSafeguard bool

	// progressRule stops phase 2 with Stalled when the objective fell by
	// less than max(1e-12, progressShare Eps) (1 + |f0|) over the last
	// progressWindow outer steps (set with Outer = 0 and an accurate
	// oracle).
	progressRule bool

	// noProbe turns the probe around converged points off (the dynamic
	// oracle's stages: an evaluation on every row of large data costs too
	// much to make hundreds).
	noProbe bool

	// rhoHatLow is the lowest RhoHat the accurate oracles' rule may bring
	// it down to (0: MinRhoHatFactor times RhoHat). The dynamic oracle's
	// stages start from the last stage's RhoHat, and set it from the
	// solve's own start so that the floor does not compound.
	rhoHatLow float64

	// heartbeat is the interval of the stage heartbeats, and stepBeat how
	// long an outer step runs without a record before it gets one; 0
	// means a second (tests set them shorter).
	heartbeat, stepBeat time.Duration
}

// Status says why Minimize stopped.
type Status int

// The statuses.
const (
	Converged      Status = iota // the stopping rule held at a feasible point
	IterationLimit               // Settings.Outer outer iterations were done
	TimeLimit                    // Settings.TimeLimit ran out
	Interrupted                  // the context was cancelled (or the Recorder failed)
	Infeasible                   // no point with infeasibility <= Eps was found
	NumericalError               // Eval or Grad failed or gave a value that is not finite
	// Uncertified: an iterate was certified nearly stationary, but the
	// point returned (the random pick of PickRandom, or the best feasible
	// point when that iterate was not feasible) is not.
	Uncertified
	// Stalled: an accurate oracle could neither move x_t nor certify it,
	// even with maxEffort times its evaluation budget (and the bundle's
	// patience), or the progress rule stopped the solve
	// (Result.NoProgress), or a point passed the certificate but the probe
	// found a lower feasible point near it after maxEscapes escapes
	// (Result.Probe.Found); x_t is returned with the best certificate
	// found.
	Stalled
	// Unbounded: a feasible iterate had f0 <= -UnboundedObjective, or
	// ||x||_inf >= DivergingIterates while f0 was below its start, or the
	// solve stalled or hit its iteration limit while running off (its
	// last 10 steps none shorter than the one before, 1e8 times farther
	// out than it started, f0 below its start): the objective is
	// unbounded below on the feasible set (or its scale is beyond double
	// precision); that iterate is returned, uncertified.
	Unbounded
)

// The thresholds of Unbounded: an objective below -1e20 (IPOPT's
// nlp_lower_bound_inf), or iterates beyond 1e15, where doubles resolve no
// step shorter than 0.1 (IPOPT's diverging_iterates_tol is 1e20; the
// smooth oracle's steps stop growing before that).
const (
	UnboundedObjective = 1e20
	DivergingIterates  = 1e15
)

var statusNames = [...]string{"converged", "iteration_limit", "time_limit", "interrupted", "infeasible", "numerical_error", "uncertified", "stalled", "unbounded"}

// String returns the status's name as used in JSON output.
func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// Success reports whether the status comes with a returned point that is
// feasible within Eps: Converged, IterationLimit, TimeLimit, Interrupted,
// Uncertified and Stalled. Minimize never returns one of these with a point whose
// infeasibility exceeds Eps, except TimeLimit and Interrupted when the
// solve stopped before any feasible point (in phase 1 or its restarts):
// the point is then the most feasible one so far, and Result.Violated
// lists its violated constraints (its Infeasibility exceeds Eps).
func (s Status) Success() bool {
	return s >= Converged && s <= Interrupted || s == Uncertified || s == Stalled
}

// Point is a point with its function values.
type Point struct {
	X             []float64
	F             []float64 // f0..fM at X; nil if X could not be evaluated
	Objective     float64   // f0(X) (NaN if F is nil)
	Infeasibility float64   // max(0, max_i fi(X)) (NaN if F is nil)
	T             int       // the outer iteration that produced X: 0 is the start; phase 1 and phase 2 are numbered on
}

// Certificate is the evidence of near stationarity at the returned point
// x; see docs/solver.md for exactly how each field is computed.
type Certificate struct {
	// Oracle names the accurate oracle that solved (7) at x (smooth or
	// bundle).
	Oracle string
	// XHat approximates x_hat, the solution of the subproblem (7) at x
	// with the final RhoHat.
	XHat []float64
	// Evals is the number of evaluations the oracle made for it.
	Evals int
	// Dist is ||x - XHat||.
	Dist float64
	// DistBound bounds ||XHat - x_hat||, from the oracle's certified gap:
	// sqrt(2 Gap / (RhoHat - Rho)). +Inf when the oracle found no bound
	// (then nothing is certified).
	DistBound float64
	// Gap is the oracle's certified gap F(XHat) - (lower bound of (7)).
	Gap float64
	// Multipliers (len M, >= 0) are the multipliers of (7)'s constraints
	// that come with the lower bound.
	Multipliers []float64
	// Stationarity bounds the KKT residual of the original problem at
	// x_hat, (1 + sum Multipliers) RhoHat (Dist + DistBound): the bound of
	// the paper's section 3 (x_hat satisfies the KKT conditions up to
	// (1 + lambda) RhoHat ||x - x_hat||), with the bound's slack added.
	Stationarity float64
	// Proven reports that the Rho the certificate assumes is at least
	// Problem.ProvenRho > 0, so the strong convexity behind DistBound is
	// proven; otherwise it was only checked along the oracle's iterates.
	Proven bool
	// KKT, for a smooth Problem, is the KKT residual of the original
	// problem measured at x itself with gradients and the multipliers of
	// (7) at x (Multipliers); nil for a nonsmooth Problem, where a
	// subgradient at x bounds nothing.
	KKT *KKTCheck
	// Stationary reports that x is nearly stationary, in one of two ways:
	//   - Stationarity <= Eps, Dist + DistBound <= Eps and
	//     Infeasibility(x) <= Eps: x is within Eps of x_hat (the paper's
	//     Definition 2 of a nearly Eps-stationary point) and x_hat
	//     satisfies the KKT conditions to Eps (with RhoHat < 1 the first
	//     alone would let x be far from x_hat; with RhoHat > 1 the second
	//     alone says little);
	//   - Eps <= 1e-4, KKT.Holds(Eps) and Infeasibility(x) <= Eps: x
	//     itself satisfies the KKT conditions to Eps times KKT.Scale (the
	//     first way needs gaps near the rounding of F at such an Eps).
	Stationary bool
}

// KKTCheck is the KKT residual of a smooth problem at a point x with
// multipliers lambda >= 0, measured with gradients.
type KKTCheck struct {
	// Stationarity is ||x - Proj_X(x - (grad f0(x) + sum_i lambda_i
	// grad fi(x)))||: 0 exactly when x is a KKT point with lambda.
	Stationarity float64
	// Complementarity is max_i lambda_i |fi(x)|.
	Complementarity float64
	// Scale is the scale of the tolerance, as IPOPT scales its own:
	// max(1, ||grad f0(x0)||_inf / 100) at the start x0 (its
	// gradient-based scaling of the objective), times max(1,
	// ||lambda||_1 / (100 (M + N))) (its s_d for large multipliers).
	Scale float64
	// From says which multipliers lambda the check used: those of (7)
	// at x, the oracle's augmented-Lagrangian multipliers, multipliers
	// fitted at x, or the SQP polish's.
	From string
}

// Holds reports Stationarity <= eps Scale and Complementarity <= eps Scale.
func (k *KKTCheck) Holds(eps float64) bool {
	return k != nil && k.Stationarity <= eps*k.Scale && k.Complementarity <= eps*k.Scale
}

// Stats count the work done.
type Stats struct {
	Outer        int // outer iterations of phase 2
	Inner        int // inner iterations, both phases, redone steps and the certificate included
	Phase1Outer  int // outer iterations of phase 1
	Evals        int // calls of Problem.Eval
	Grads        int // calls of Problem.Grad
	RhoDoublings int // times the safeguard doubled RhoHat
	// InnerDoublings counts the times the iterates stopped moving short of
	// a nearly stationary point, so Inner was doubled (at most up to
	// MaxInnerGrowth times its start), or, with an accurate oracle, its
	// evaluation budget and patience were multiplied by 4 (up to 16).
	InnerDoublings int
	// Polish counts the rounds of Algorithm 2 on the full data that made
	// the stochastic oracle's last point feasible (0 for the switching
	// oracle, and when the point was feasible).
	Polish int
	// Polishes counts the SQP polishes (sqp.go) that moved an outer
	// iterate (every sqpEvery outer steps) or the returned point (when
	// the oracle stalled) of a small smooth problem.
	Polishes int
	Time     time.Duration
}

// Result is what Minimize found.
type Result struct {
	Status Status
	// InfeasibleProof, for Infeasible, says why no point of X satisfies
	// the constraints when that is proven rather than found locally (the
	// epigraph oracle's Farkas certificate for its linear program; the
	// constraints it names are the ones in conflict); "" otherwise.
	InfeasibleProof string
	// Point is the returned point: the last outer iterate (or the random
	// pick of PickRandom); if that point's infeasibility exceeds Eps and
	// Best exists, Best; for Infeasible, MostFeasible.
	Point
	// Best is the outer iterate with the lowest f0 among those with
	// infeasibility <= Eps (nil if there is none); MostFeasible the one
	// with the lowest infeasibility (ties: the lower f0, then the earlier).
	Best, MostFeasible *Point
	// Certificate is computed at the returned point for every status
	// with a feasible point (Status.Success), when it can be: nil, with
	// the reason in NoCertificate, when the time limit left no time for it
	// or the oracle failed.
	Certificate   *Certificate
	NoCertificate string
	// RhoHat and Rho are the final values, after the safeguard's doublings;
	// Inner is the final number of inner iterations per outer step, after
	// the doublings of Stats.InnerDoublings.
	RhoHat, Rho float64
	Inner       int
	// Violated lists, for Infeasible (and TimeLimit or Interrupted at an
	// infeasible point), the constraints (1-based indices into F) whose
	// value exceeds Eps at the returned point.
	Violated []int
	// Err is the error of Eval or Grad for NumericalError, or the error of
	// the Recorder for Interrupted.
	Err   error
	Stats Stats
	// Stages are the stages of the Dynamic oracle, the last one on every
	// row (nil for the other oracles).
	Stages []Stage
	// NoProgress, for Stalled, reports that the progress rule stopped
	// the solve (Settings.Outer), not an oracle that could not move x_t.
	NoProgress bool
	// Probe says what the probe around points certified nearly
	// stationary tried and which points it left (nil when it did not
	// run: a convex problem, the stochastic and dynamic oracles, or no
	// point was certified).
	Probe *ProbeReport
}

// Iteration is what a Recorder is told.
type Iteration struct {
	Phase1  bool          // a phase-1 step (minimising the constraint violation)
	T       int           // the outer iterate produced (x_T), numbered as Point.T
	K       int           // for an inner record, the number of inner iterations done in this step (> 0); 0 for an outer record
	Elapsed time.Duration // since Minimize started

	X             []float64 // x_T, or z_K for an inner record; do not retain
	Objective     float64   // f0 at X
	Infeasibility float64   // max(0, max_i fi) at X
	MaxViolated   int       // the constraint (1..M) with the largest positive value at X, or 0

	Step             float64 // ||x_T - x_{T-1}|| (outer records)
	FeasibleFraction float64 // |I|/K: the share of inner iterations that stepped on the objective
	EmptyI           bool    // no inner iterate was feasible, so x_T = x_{T-1}
	RhoHat           float64 // the RhoHat this step was done with
	RhoDoubled       bool    // the safeguard doubled RhoHat in this step
	// Estimate marks an inner record of the stochastic oracle, or a record
	// of a sampled stage of the Dynamic oracle: Objective, Infeasibility
	// and MaxViolated are minibatch or sample estimates there.
	Estimate bool

	Method string // the method, when not IQRC ("penalty"), for progress tables and traces

	// Stage, when not empty, marks a heartbeat of the work after the
	// iterations: "certificate" while the final certificate's oracle runs,
	// "polish" while the stochastic oracle's polish does, told at most once
	// a second (the first after a second), so that a long certificate is
	// not silent. X, Objective and Infeasibility are the point being
	// certified or polished, T its iteration, K the inner iterations of
	// the whole solve so far (not 0: these are not outer records).
	// Recorders that keep iterates skip them.
	Stage string
}

// Recorder is told about the iterations of Minimize. An error stops the
// solve with status Interrupted and the error in Result.Err.
type Recorder interface {
	Record(it Iteration) error
}

// Minimize solves p from x0 (projected onto X first; x0 is not modified).
// Cancelling ctx makes it finish the current inner iteration, drop the
// unfinished outer step and return with status Interrupted (nil means
// context.Background()). The error is for an invalid problem or invalid
// settings; everything that goes wrong while solving is in the Result.
func Minimize(ctx context.Context, p *Problem, x0 []float64, s Settings) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if p != nil && p.hasEquality() {
		return minimizeEqualities(ctx, p, x0, s)
	}
	if _, ok := s.Oracle.(*DynamicOracle); ok {
		return MinimizeDynamic(ctx, p, x0, s)
	}
	sv, err := newSolver(ctx, p, x0, s)
	if err != nil {
		return nil, err
	}
	res := sv.run(x0)
	res.Stats = sv.stats
	res.Stats.Time = time.Since(sv.start)
	return res, nil
}

// WithDefaults returns s with every zero field replaced by its default for
// the problem p (RhoHat and Rho depend on p.WeakConvexity), after the same
// validation as Minimize: the settings Minimize starts with. Result.RhoHat
// and Result.Rho are the values at the end, after the safeguard's
// doublings.
func (s Settings) WithDefaults(p *Problem) (Settings, error) {
	if p == nil {
		return s, errors.New("solve: nil Problem")
	}
	return withDefaults(p, s)
}

// withDefaults fills in the defaults and validates the settings.
func withDefaults(p *Problem, s Settings) (Settings, error) {
	for _, c := range []struct {
		name string
		v    float64
	}{{"RhoHat", s.RhoHat}, {"Rho", s.Rho}, {"Eps", s.Eps}, {"EpsHat", s.EpsHat}, {"Problem.WeakConvexity", p.WeakConvexity}} {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return s, fmt.Errorf("solve: %s = %v; it must be a nonnegative finite number", c.name, c.v)
		}
	}
	if s.Inner < 0 || s.Outer < 0 || s.RecordEvery < 0 || s.TimeLimit < 0 {
		return s, fmt.Errorf("solve: negative Inner, Outer, RecordEvery or TimeLimit")
	}
	if s.Inner == 1 {
		return s, fmt.Errorf("solve: Inner = 1: with one inner iteration the oracle's average is x_t itself; use at least 2")
	}
	if s.Oracle == nil {
		s.Oracle = Auto(p)
	}
	if err := s.Oracle.uses(p); err != nil {
		return s, err
	}
	if s.MaxEvals < 0 {
		return s, fmt.Errorf("solve: negative MaxEvals")
	}
	if s.MaxEvals == 0 {
		s.MaxEvals = DefaultMaxEvals
	}
	if s.Pick != PickLast && s.Pick != PickRandom {
		return s, fmt.Errorf("solve: unknown Pick %d", s.Pick)
	}
	if s.RhoHat == 0 {
		s.RhoHat = math.Max(DefaultRhoHat, 2*p.WeakConvexity)
	}
	if s.Rho == 0 {
		if p.WeakConvexity > 0 {
			s.Rho = p.WeakConvexity
		} else {
			s.Rho = s.RhoHat / 2
		}
	}
	if s.Rho >= s.RhoHat {
		return s, fmt.Errorf("solve: Rho = %v must be below RhoHat = %v (the subproblems are (RhoHat-Rho)-strongly convex)", s.Rho, s.RhoHat)
	}
	if s.Eps == 0 {
		s.Eps = DefaultEps
		if _, ok := s.Oracle.(*SmoothOracle); ok {
			s.Eps = DefaultSmoothEps
		}
	}
	if s.EpsHat == 0 {
		s.EpsHat = s.Eps
		if s.Oracle.Accurate() {
			// the accurate oracles' gap tolerance min(EpsHat^2, ...) while
			// the steps are long: the paper's EpsHat = Eps, but never
			// tighter than with the default Eps, whatever Eps asks of the
			// end (docs/solver.md)
			s.EpsHat = math.Max(s.Eps, DefaultEps)
		}
	}
	if s.Inner == 0 {
		s.Inner = DefaultInner
	}
	if s.Outer == 0 {
		s.Outer = DefaultOuter
		if s.Oracle.Accurate() {
			s.Outer, s.progressRule = MaxOuter, true
		}
	}
	return s, nil
}

// Validate checks that p is a usable problem with x0 as its start: N > 0,
// M >= 0, Eval and Grad set, len(x0) = N with finite values, and Names
// (if set) one per constraint. Minimize calls it; other methods on the same
// Problem (package penalty) call it too.
func (p *Problem) Validate(x0 []float64) error {
	switch {
	case p == nil:
		return errors.New("nil Problem")
	case p.N <= 0:
		return fmt.Errorf("Problem.N = %d; there must be at least one variable", p.N)
	case p.M < 0:
		return fmt.Errorf("Problem.M = %d is negative", p.M)
	case p.Eval == nil || p.Grad == nil:
		return errors.New("Problem.Eval and Problem.Grad are required")
	case len(x0) != p.N:
		return fmt.Errorf("the start has %d values; the problem has N = %d variables", len(x0), p.N)
	case p.Names != nil && len(p.Names) != p.M:
		return fmt.Errorf("%d constraint names for M = %d constraints", len(p.Names), p.M)
	case p.Kinds != nil && len(p.Kinds) != p.M:
		return fmt.Errorf("%d constraint kinds (Kinds) for M = %d constraints", len(p.Kinds), p.M)
	case p.ConstraintRho != nil && len(p.ConstraintRho) != p.M:
		return fmt.Errorf("%d constraint moduli (ConstraintRho) for M = %d constraints", len(p.ConstraintRho), p.M)
	}
	for i, v := range x0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("the start's value %d is %v", i, v)
		}
	}
	return nil
}

// FuncName names function i of p for messages: "the objective f0" for
// i = 0, "constraint cap[2] (f1)" with Names, "constraint f1" without.
func (p *Problem) FuncName(i int) string {
	switch {
	case i == 0:
		return "the objective f0"
	case p.Names != nil && i <= len(p.Names):
		return fmt.Sprintf("constraint %s (f%d)", p.Names[i-1], i)
	}
	return fmt.Sprintf("constraint f%d", i)
}

// NonFiniteError is a value or a subgradient component that is not finite,
// found by EvalFinite or GradFinite.
type NonFiniteError struct{ Msg string }

func (e *NonFiniteError) Error() string { return e.Msg }

// EvalFinite calls p.Eval and returns an error naming the first function
// whose value is not finite.
func (p *Problem) EvalFinite(x, vals []float64) error {
	if err := p.Eval(x, vals); err != nil {
		return err
	}
	for i, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &NonFiniteError{fmt.Sprintf("%s = %v", p.FuncName(i), v)}
		}
	}
	return nil
}

// GradFinite stores in g a subgradient of fi at the x of the last Eval
// (p.Grad with the unit weight w = e_i; w must be zero on entry and is on
// return) and returns an error when a component is not finite.
func (p *Problem) GradFinite(i int, w, g []float64) error {
	w[i] = 1
	err := p.Grad(w, g)
	w[i] = 0
	if err != nil {
		return err
	}
	for _, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &NonFiniteError{fmt.Sprintf("a subgradient of %s has a component %v", p.FuncName(i), v)}
		}
	}
	return nil
}

// GradsFinite stores in rows[i] (len M+1) a subgradient of every fi at
// the x of the last Eval, by p.Jacobian when it is set, else by GradFinite
// for each i (w as for GradFinite), and returns an error when a component
// is not finite.
func (p *Problem) GradsFinite(rows [][]float64, w []float64) error {
	if p.Jacobian == nil {
		for i := range rows {
			if err := p.GradFinite(i, w, rows[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := p.Jacobian(rows); err != nil {
		return err
	}
	for i, g := range rows {
		for _, v := range g {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &NonFiniteError{fmt.Sprintf("a subgradient of %s has a component %v", p.FuncName(i), v)}
			}
		}
	}
	return nil
}

// Tracker keeps the best feasible point (the lowest objective among points
// with infeasibility <= Eps) and the most feasible point (the lowest
// infeasibility; ties: the lower objective, then the earlier) of the
// points it is shown. It stores copies.
type Tracker struct {
	Eps                float64
	Best, MostFeasible *Point
}

// Track shows pt to the tracker.
func (t *Tracker) Track(pt *Point) {
	if pt.Infeasibility <= t.Eps && (t.Best == nil || pt.Objective < t.Best.Objective) {
		t.Best = clonePoint(pt)
	}
	if m := t.MostFeasible; m == nil || pt.Infeasibility < m.Infeasibility ||
		(pt.Infeasibility == m.Infeasibility && pt.Objective < m.Objective) {
		t.MostFeasible = clonePoint(pt)
	}
}
