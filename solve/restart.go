package solve

import (
	"context"
	"math"
	"math/rand/v2"
	"time"
)

// DefaultRestarts is the number of other starts MinimizeRestarts tries
// when phase 1 gives up.
const DefaultRestarts = 4

// Restarts configure MinimizeRestarts.
type Restarts struct {
	// Starts is the number of other starts tried after phase 1 gives up:
	// 0 means DefaultRestarts, a negative number none.
	Starts int
	// Seed seeds the perturbations (the same seed, the same starts).
	Seed uint64
	// Notify, if not nil, is told before restart k (1-based) from x0
	// (do not retain), made with perturbation scale.
	Notify func(k int, scale float64, x0 []float64)
}

// Phase1Stop says why phase 1 gave up, as far as the iterations show.
type Phase1Stop int

// The reasons.
const (
	Phase1NotStopped Phase1Stop = iota // phase 1 did not give up (or did not run)
	Phase1Stationary                   // its last step was below Eps (scaled by RhoHat): a nearly stationary point of the violation
	Phase1NoProgress                   // the violation stopped decreasing, or phase 1 ran out of outer iterations
)

// Diagnosis is what MinimizeRestarts saw of the iterations, for a verdict
// a user can act on.
type Diagnosis struct {
	// Phase1 is why phase 1 gave up from the given start (for a result
	// that is Infeasible, or that a restart made feasible).
	Phase1 Phase1Stop
	// Tried is the number of restarts run; Restart the one whose result
	// is returned (0: the solve from the given start); Scale that
	// restart's perturbation scale.
	Tried, Restart int
	Scale          float64
	// LastStep is ||x_T - x_{T-1}|| of the last outer step of the returned
	// solve's phase 2 (NaN if it had none), and LastRhoHat the RhoHat it
	// was done with; LastMoving reports LastRhoHat * LastStep > Eps: the
	// iterates were still moving by the solver's own stopping rule.
	LastStep, LastRhoHat float64
	LastMoving           bool
}

// MinimizeRestarts is Minimize, except that when the solve ends Infeasible
// because phase 1 gave up (at a nearly stationary point of the violation
// max_i fi, or without progress) it tries again, up to r.Starts times,
// from perturbed starts: restart k starts at the projection onto X of
// x0 + s_k * xi_k, xi_k a standard normal vector drawn with r.Seed and
// s_k = 10^(k-2) * max(1, max_j |x0_j|) (0.1, 1, 10, 100 times that for
// the default 4). A subgradient method cannot leave a stationary point of
// the violation (the subgradient there may be 0, as for norm2(x)^2 >= 1 at
// x = 0), so infeasibility found this way is local. The first restart
// whose solve is not Infeasible is returned; if none, the attempt with the
// lowest infeasibility. The Stats count the work of every attempt; a
// TimeLimit covers them all. Cancelling ctx and an error of the Recorder
// end the retries.
func MinimizeRestarts(ctx context.Context, p *Problem, x0 []float64, s Settings, r Restarts) (*Result, *Diagnosis, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	began := time.Now()
	d := &Diagnosis{}
	res, last, err := minimizeWatched(ctx, p, x0, s)
	if err != nil {
		return nil, nil, err
	}
	full, err := s.WithDefaults(p)
	if err != nil {
		return nil, nil, err
	}
	d.Phase1 = last.phase1Stop(res, full.Eps)
	if res.InfeasibleProof != "" {
		d.Phase1 = Phase1NotStopped // no start can help
	}
	if res.Status != Infeasible || d.Phase1 == Phase1NotStopped {
		d.setLast(last, full.Eps)
		return res, d, nil
	}
	starts := r.Starts
	if starts == 0 {
		starts = DefaultRestarts
	}
	best, bestLast := res, last
	total := res.Stats
	rng := rand.New(rand.NewPCG(r.Seed, 0x7e57a27))
	base := 1.0
	for _, v := range x0 {
		base = math.Max(base, math.Abs(v))
	}
	for k := 1; k <= starts; k++ {
		scale := math.Pow(10, float64(k-2)) * base
		xk := make([]float64, len(x0))
		for j := range xk {
			xk[j] = x0[j] + scale*rng.NormFloat64()
		}
		if p.Project != nil {
			p.Project(xk)
		}
		set := s
		if s.TimeLimit > 0 {
			left := s.TimeLimit - time.Since(began)
			if left <= 0 {
				best = stoppedAs(best, TimeLimit) // the restarts ran out of time, not of starts
				break
			}
			set.TimeLimit = left
		}
		if ctx.Err() != nil {
			best = stoppedAs(best, Interrupted)
			break
		}
		if r.Notify != nil {
			r.Notify(k, scale, xk)
		}
		rk, lk, err := minimizeWatched(ctx, p, xk, set)
		if err != nil {
			return nil, nil, err
		}
		d.Tried = k
		addStats(&total, rk.Stats)
		if (rk.Status == Interrupted || rk.Status == TimeLimit) && !(rk.Infeasibility <= full.Eps) {
			// stopped in this restart's phase 1: that status, with the
			// most feasible point of all the attempts
			if rk.Infeasibility < best.Infeasibility {
				best, bestLast, d.Restart, d.Scale = rk, lk, k, scale
			}
			best = stoppedAs(best, rk.Status)
			break
		}
		if rk.Status != Infeasible {
			best, bestLast, d.Restart, d.Scale = rk, lk, k, scale
			break
		}
		if rk.Infeasibility < best.Infeasibility {
			best, bestLast, d.Restart, d.Scale = rk, lk, k, scale
		}
	}
	total.Time = time.Since(began)
	best.Stats = total
	d.setLast(bestLast, full.Eps)
	return best, d, nil
}

// stopped reports whether the channel is closed.

// stoppedAs returns an Infeasible result of a solve whose restarts were
// cut short by the clock or the context with that status instead: its
// point is still the most feasible found, with its violated constraints.
func stoppedAs(res *Result, status Status) *Result {
	if res.Status != Infeasible {
		return res
	}
	r := *res
	r.Status = status
	return &r
}

// addStats adds the work counts of b to a.
func addStats(a *Stats, b Stats) {
	a.Outer += b.Outer
	a.Inner += b.Inner
	a.Phase1Outer += b.Phase1Outer
	a.Evals += b.Evals
	a.Grads += b.Grads
	a.RhoDoublings += b.RhoDoublings
	a.InnerDoublings += b.InnerDoublings
	a.Polish += b.Polish
	a.Polishes += b.Polishes
}

// watch is a Recorder that remembers the last outer record of each phase
// and passes every record on.
type watch struct {
	next          Recorder
	phase1, outer Iteration
	n1, n2        int // outer records of phase 1 and phase 2
}

func (w *watch) Record(it Iteration) error {
	if it.K == 0 {
		if it.Phase1 && w.n2 == 0 {
			w.phase1 = it
			w.n1++
		} else if !it.Phase1 {
			w.outer = it
			w.n2++
		}
	}
	if w.next != nil {
		return w.next.Record(it)
	}
	return nil
}

// minimizeWatched runs Minimize with a watch around the Recorder.
func minimizeWatched(ctx context.Context, p *Problem, x0 []float64, s Settings) (*Result, *watch, error) {
	w := &watch{next: s.Recorder}
	if s.Recorder == nil {
		// only outer records are needed
		s.RecordEvery = 0
	}
	s.Recorder = w
	res, err := Minimize(ctx, p, x0, s)
	return res, w, err
}

// phase1Stop says why phase 1 gave up, by the rule of phase 1: it stops at
// a nearly stationary point when RhoHat (at least 1) times the step is at
// most Eps and some inner iterate was feasible for the subproblem.
func (w *watch) phase1Stop(res *Result, eps float64) Phase1Stop {
	if res.Status != Infeasible || w.n2 > 0 {
		return Phase1NotStopped
	}
	if w.n1 == 0 {
		// phase 1 gave up without one step from the start (the
		// equalities' path, where the violation's gradient vanishes at
		// a start such as x = 0 for x'x == 1): the start is a stationary
		// point of the violation as far as the method can see
		return Phase1Stationary
	}
	it := w.phase1
	if math.Max(1, it.RhoHat)*it.Step <= eps && !it.EmptyI {
		return Phase1Stationary
	}
	return Phase1NoProgress
}

// setLast fills in the last phase-2 step.
func (d *Diagnosis) setLast(w *watch, eps float64) {
	d.LastStep, d.LastRhoHat = math.NaN(), math.NaN()
	if w.n2 == 0 {
		return
	}
	d.LastStep, d.LastRhoHat = w.outer.Step, w.outer.RhoHat
	d.LastMoving = math.Max(1, d.LastRhoHat)*d.LastStep > eps
}
