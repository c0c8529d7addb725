package main

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/weakconvex"
)

// applyAnalysis is the solver's use of the weak-convexity analysis
// (docs/analysis.md). When every function is provably weakly convex and
// the user gave neither --rho nor --rho-hat, and 2 rho is at most
// maxDerivedRhoHat, the derived rho becomes Problem.WeakConvexity, from
// which the solver takes Rho = rho and starts RhoHat at max(1, 2 rho)
// (solve.Settings). A model that is not provably
// weakly convex still solves, with a warning. With --theory it sets
// EpsHat, Inner (K) and Outer (T) from the paper's formulas.
func applyAnalysis(prob *solve.Problem, m *check.Model, x0 []float64, flags *solveFlags, s *solve.Settings, quiet bool, stderr io.Writer) error {
	if *flags.method == methodPenalty {
		if *flags.theory {
			return errors.New("--theory sets IQRC's parameters; --method penalty does not use them")
		}
		return nil
	}
	if s.Oracle == solve.Dynamic && !*flags.theory {
		// large data: the analysis expands every row (about a minute
		// on 10^6 rows before it gives up), longer than the solve
		if !quiet {
			fmt.Fprintln(stderr, "qrc solve: the weak-convexity analysis is skipped with the dynamic oracle (qrc check runs it); RhoHat starts at its default and moves on evidence")
		}
		return nil
	}
	r := weakconvex.Analyze(m)
	userRho := set(flags.fs, "rho") || set(flags.fs, "rho-hat")
	switch {
	case r.Err != nil:
		fmt.Fprintf(stderr, "qrc solve: warning: the weak-convexity analysis did not run (%v); RhoHat starts at its default\n", r.Err)
	case !r.Weak:
		for _, f := range r.Functions {
			if !f.Weak {
				fmt.Fprintf(stderr, "qrc solve: warning: %s is not provably weakly convex (%s); the method's guarantees assume weak convexity, so RhoHat starts at its default and a certificate holds only locally\n", f.Name, f.Why)
				break
			}
		}
	case userRho || *flags.theory:
	case s.Oracle == solve.Smooth || s.Oracle == solve.Bundle:
		// the accurate oracles start RhoHat at the default and move it on
		// evidence; the derived rho tells the certificate whether its
		// assumption is proven
		prob.ProvenRho = r.Rho
		if !quiet && r.Rho > 0 {
			fmt.Fprintf(stderr, "qrc solve: rho <= %.3g by the weak-convexity analysis; the %s oracle starts RhoHat at %g and moves it on evidence (docs/solver.md), and the certificate says whether its Rho reaches the proven bound\n", r.Rho, s.Oracle, solve.DefaultRhoHat)
		}
	case 2*r.Rho <= maxDerivedRhoHat:
		prob.WeakConvexity = r.Rho
		if !quiet && r.Rho > 0 {
			fmt.Fprintf(stderr, "qrc solve: rho = %.3g from the weak-convexity analysis (qrc check --explain shows it); RhoHat starts at %.3g\n", r.Rho, math.Max(solve.DefaultRhoHat, 2*r.Rho))
		}
	case !quiet:
		fmt.Fprintf(stderr, "qrc solve: the weak-convexity analysis bounds rho by %.3g over all of X; starting RhoHat at twice that would make the steps tiny, so it starts at %g and doubles when a subproblem is not convex (--rho-hat sets it)\n", r.Rho, solve.DefaultRhoHat)
	}
	if !*flags.theory {
		return nil
	}
	return applyTheory(prob, m, r, x0, flags, s, stderr)
}

// maxDerivedRhoHat is the largest 2 rho the solver starts RhoHat at: a
// derived rho is a worst case over all of X, and a much larger RhoHat than
// the curvature along the iterates' path needs makes every step tiny (on
// the raw pendigits features, rho <= 66000 where RhoHat 8 suffices;
// docs/performance.md). Above it RhoHat starts at the default and the
// safeguard doubles it as needed.
const maxDerivedRhoHat = 64

// maxTheoryIter caps the K and T of --theory.
const maxTheoryIter = math.MaxInt32

// applyTheory sets EpsHat (Algorithm 1's input), K (Algorithm 2, line 3)
// and T (Theorem 1's condition) from rho, M, D, the Slater constant sigma
// (--sigma) and f(x0) - f_lb, with f_lb the analysis' lower bound of the
// objective on X.
func applyTheory(prob *solve.Problem, m *check.Model, r *weakconvex.Report, x0 []float64, flags *solveFlags, s *solve.Settings, stderr io.Writer) error {
	if !r.Weak || math.IsInf(r.M, 1) || math.IsInf(r.D, 1) {
		return errors.New("--theory needs every function provably weakly convex with a finite M on a bounded domain (qrc check shows why not)")
	}
	rho := r.Rho
	if set(flags.fs, "rho") {
		rho = *flags.rho
	}
	rhoHat := math.Max(solve.DefaultRhoHat, 2*rho)
	if set(flags.fs, "rho-hat") {
		rhoHat = *flags.rhoHat
	}
	if rho == 0 { // any rho' >= rho is a modulus: the solver's default
		rho = rhoHat / 2
	}
	if rho >= rhoHat {
		return fmt.Errorf("--theory: rho = %g must be below RhoHat = %g", rho, rhoHat)
	}
	eps := s.Eps
	if eps == 0 {
		eps = solve.DefaultEps
	}
	sigma := *flags.sigma
	mu := rhoHat - rho
	epsHat := math.Min(1, math.Sqrt(mu/4)/math.Sqrt((r.M+rhoHat*r.D)/math.Sqrt(2*sigma*mu)+1)) * eps
	k := math.Ceil(4 * (r.M*r.M + rhoHat*r.D*r.D) / (mu * epsHat * epsHat))
	gap := 0.0
	if m.Objective != nil {
		vals := make([]float64, prob.M+1)
		if err := prob.Eval(x0, vals); err != nil {
			return fmt.Errorf("--theory: evaluating the start: %w", err)
		}
		gap = math.Max(0, vals[0]-r.Functions[0].Range.Lo)
	}
	t := math.Max(1, math.Ceil(4*gap/(eps*eps*mu)))
	capped := ""
	if k > maxTheoryIter || t > maxTheoryIter {
		capped = fmt.Sprintf(" (capped at %d)", maxTheoryIter)
	}
	fmt.Fprintf(stderr, "qrc solve: --theory: rho = %.4g, M = %.4g, D = %.4g, sigma = %g, f(x0) - f_lb <= %.4g: RhoHat = %.4g, EpsHat = %.4g (Algorithm 1), K = %.4g (Algorithm 2, line 3), T = %.4g (Theorem 1)%s\n",
		rho, r.M, r.D, sigma, gap, rhoHat, epsHat, k, t, capped)
	s.RhoHat, s.Rho, s.Eps, s.EpsHat = rhoHat, rho, eps, epsHat
	s.Inner, s.Outer = int(math.Min(k, maxTheoryIter)), int(math.Min(t, maxTheoryIter))
	return nil
}
