package main

import (
	"fmt"

	"github.com/qrc-lang/qrc/solve"
)

// restartJSON is the "restarts" object of qrc solve's JSON result: what
// happened when phase 1 gave up from the start (docs/cli.md).
type restartJSON struct {
	// Phase1 is why phase 1 gave up from the given start: "stationary" (a
	// nearly stationary point of the violation) or "no_progress".
	Phase1 string  `json:"phase1"`
	Tried  int     `json:"tried"` // perturbed starts tried
	Used   int     `json:"used"`  // the one whose result is reported, 0 for the given start
	Scale  float64 `json:"scale"` // its perturbation scale
}

// restarts are the restart settings of the run: --restarts and --seed,
// with a note on stderr before each restart unless quiet.
func (r *solveRun) restarts(quiet bool) solve.Restarts {
	n := *r.flags.restarts
	if n == 0 {
		n = -1
	}
	rs := solve.Restarts{Starts: n, Seed: *r.flags.seed}
	if !quiet {
		rs.Notify = func(k int, scale float64, _ []float64) {
			fmt.Fprintf(r.stderr, "qrc %s: phase 1 found no feasible point from this start; restart %d of %d from a perturbed start (scale %s, --seed %d)\n",
				r.name, k, n, num(scale), *r.flags.seed)
		}
	}
	return rs
}

// phase1Reasons say why phase 1 gave up, for the verdict.
var phase1Reasons = map[solve.Phase1Stop]string{
	solve.Phase1Stationary: "phase 1 stopped at a stationary point of the violation",
	solve.Phase1NoProgress: "phase 1 stopped making progress on the violation",
}

// diagnose sets the verdict: a sentence a user can act on when the result
// is only locally infeasible, came from a restart, or ended on a limit
// while the iterates were still moving. restarts is --restarts.
func (r *solveResult) diagnose(d *solve.Diagnosis, res *solve.Result, s solve.Settings, restarts int) {
	if d == nil {
		return
	}
	if d.Phase1 != solve.Phase1NotStopped {
		r.Restarts = &restartJSON{Phase1: map[solve.Phase1Stop]string{solve.Phase1Stationary: "stationary", solve.Phase1NoProgress: "no_progress"}[d.Phase1],
			Tried: d.Tried, Used: d.Restart, Scale: d.Scale}
	}
	reason := phase1Reasons[d.Phase1]
	switch {
	case res.Status == solve.Infeasible && reason != "":
		r.Verdict = "locally infeasible: " + reason + "; the model may be feasible from another start (--start)"
		if d.Tried > 0 {
			r.Verdict += fmt.Sprintf("; %d perturbed start(s) (--restarts, --seed %d) found none either", d.Tried, r.Settings.Seed)
			if d.Restart > 0 {
				r.Verdict += fmt.Sprintf("; the point shown is from restart %d, the least infeasible", d.Restart)
			}
		} else if restarts == 0 {
			r.Verdict += "; no other start was tried (--restarts 0)"
		}
	case res.Status.Success() && d.Restart > 0:
		r.Verdict = fmt.Sprintf("%s from the given start; restart %d (a perturbed start, scale %s, --seed %d) found this feasible point",
			reason, d.Restart, num(d.Scale), r.Settings.Seed)
	case res.Status == solve.Stalled:
		oracle := "accurate"
		if s.Oracle != nil {
			oracle = s.Oracle.String()
		}
		r.Verdict = fmt.Sprintf("stalled: the %s oracle could neither move this point nor certify it, even with 16 times its evaluation budget; its certificate is below. Try a looser --eps, a larger --rho-hat (the model may be more nonconvex than assumed), or --oracle switching",
			oracle)
	case (res.Status == solve.IterationLimit || res.Status == solve.TimeLimit) && d.LastMoving:
		moving := fmt.Sprintf("the iterates were still moving (last step %s; rho_hat * step = %s > eps = %s)",
			num(d.LastStep), num(d.LastRhoHat*d.LastStep), num(r.Settings.Eps))
		switch {
		case res.Stats.RhoDoublings >= 3 && (s.Oracle == solve.Switching || s.Oracle == solve.Stochastic):
			r.Verdict = fmt.Sprintf("stopped on the %s while %s, in short steps because the safeguard raised rho_hat from %s to %s (%d doublings); that happens when the subproblems are solved too loosely: raise --inner (e.g. --inner %d)",
				limitName(res.Status, r), moving, num(r.Settings.RhoHatStart), num(r.Settings.RhoHat), res.Stats.RhoDoublings, 4*r.Settings.InnerStart)
		case res.Status == solve.TimeLimit:
			r.Verdict = fmt.Sprintf("stopped on the time limit while %s: raise --time-limit (e.g. --time-limit %s)",
				moving, fmt.Sprint(4*s.TimeLimit))
		default:
			r.Verdict = fmt.Sprintf("stopped on the outer-iteration limit while %s: raise --outer (e.g. --outer %d); more --inner iterations (or a more accurate oracle) do not lengthen the steps",
				moving, 4*r.Settings.Outer)
		}
	}
}

// limitName names the limit a run stopped on.
func limitName(st solve.Status, r *solveResult) string {
	if st == solve.TimeLimit {
		return "time limit"
	}
	return fmt.Sprintf("outer-iteration limit (--outer %d)", r.Settings.Outer)
}
