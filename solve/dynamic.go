package solve

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/qrc-lang/qrc/dualqp"
)

// Dynamic sampling (issue 18): Algorithm 1 with an accurate oracle on a
// growing uniform subsample of the data, warm-started from one sample to
// the next and finishing on every row. It is retrospective approximation
// (Pasupathy & Schmeiser): stage k solves the sample-average problem on
// n_k rows to a tolerance of the order of its sampling error, which
// shrinks like 1/sqrt(n_k), so that no stage solves its sample more
// accurately than the sample describes the data:
//
//	n_k   = DynamicStartRows * DynamicGrowth^k   (k = 0, 1, ... while 3 n_k <= rows)
//	Eps_k = Eps * sqrt(rows / n_k)
//
// Each stage runs Minimize with Auto(p) (smooth or bundle) on its
// sample, or Dual when Problem.PiecesOf gives the sample's pieces, from
// the last stage's point and RhoHat; the last stage is an
// ordinary solve on every row from there, and its result, certificate and
// status are the ones returned: a feasible point of the full problem,
// converged only when its certificate (on every row) proves it.
//
// That was the schedule until the control variates (Settingd.Rounds
// negative keeps it). By default the stages before the last are
// DynamicRounds rounds on the first sample only, each on the sample's
// functions corrected at the round's start point xs by one pass on every
// row (corrected): f_S(x) - f_S(xs) + f(xs) + <g(xs) - g_S(xs), x - xs>.
// The corrected functions agree with the data's in value and gradient at
// xs, so a round's answer is wrong only by the sample's error in the
// curvature, not in the values: on the 10^6-row benchmark the first
// round's point is feasible on every row within 0.003% of the optimum
// after about 6 passes, where the growing samples needed 70 for 0.01%
// (docs/performance.md).

// Subsampler is an optional interface of a Problem's Sampler that the
// Dynamic oracle needs: fixed uniform subsamples of the data means' rows.
type Subsampler interface {
	Sampler
	// Rows is the number of rows over all the sampled row sets: the
	// work of one evaluation on all the data.
	Rows() int
	// Subsample makes the following Eval and Grad calls, until Full or
	// another Subsample, compute every sampled data mean over a fixed
	// uniform sample, without replacement, of about frac of its rows (at
	// least one), and returns the rows selected in all. Samples are
	// nested: the rows of a smaller frac are among those of a larger one.
	Subsample(frac float64) (int, error)
}

// Dynamic sampling's schedule.
const (
	// DynamicStartRows is the size of the first sample, in rows over all
	// the sampled row sets.
	DynamicStartRows = 10000
	// DynamicGrowth is the factor by which each sample is larger than the
	// last (when SampleRounds is negative).
	DynamicGrowth = 10
	// DynamicRounds is the default number of rounds with control variates
	// on the first sample; up to DynamicMaxRounds while a round stops at
	// its step limit, DynamicRoundOuter outer steps (or Settings.Outer if
	// that is lower). A round that converged has solved its surrogate, so
	// that another round refines only by the sample's error in the
	// curvature; a round that ran out of steps (a flat model, such as the
	// fairness model on Adult, whose optimum lies along a direction of
	// almost no curvature) leaves progress that a new correction, exact to
	// first order at the new point, continues at a cost of one pass,
	// where steps on every row cost a pass each. On Adult x30, 100 steps a
	// round and two rounds left the point 0.16% above the optimum after
	// 2.4 s; 20 steps a round and four rounds, 0.032% after 1.3 s
	// (docs/performance.md).
	DynamicRounds     = 2
	DynamicMaxRounds  = 4
	DynamicRoundOuter = 20
)

// Stage is what one stage of the Dynamic oracle did.
type Stage struct {
	// Rows is the number of rows the stage's data means ran over, in all;
	// Fraction its share of all rows (1 for the last stage).
	Rows     int
	Fraction float64
	// Eps is the stage's tolerance.
	Eps float64
	// Status is how the stage's solve ended.
	Status Status
	// Outer and Evals count the stage's outer steps (both phases) and
	// evaluations; Passes is Evals * Fraction, its work in evaluations on
	// all rows.
	Outer, Evals int
	Passes       float64
	// RestoreEvals and RestoreGrads count the evaluations and reverse
	// passes (one per constraint, over that constraint's rows) of the
	// restoration of feasibility at the stage's start (included in Evals
	// and Passes).
	RestoreEvals, RestoreGrads int
	// Objective and Infeasibility are the stage's returned point's, on
	// the stage's rows.
	Objective, Infeasibility float64
	// Time is the stage's wall-clock time.
	Time time.Duration
	// CorrectionPasses counts, for a round with control variates
	// (Settingd.Rounds), the evaluations on every row that set its
	// functions' corrections (included in Passes).
	CorrectionPasses float64
	// Oracle is the oracle that solved the stage's subproblems: Auto(p),
	// or Dual on a sample whose pieces Problem.PiecesOf gave.
	Oracle Oracle
}

// Passes returns the work of the stages in evaluations on all rows.
func Passes(stages []Stage) float64 {
	s := 0.0
	for _, st := range stages {
		s += st.Passes
	}
	return s
}

// stageSizes returns the sample sizes of the stages before the last (on
// every row): SampleStart (DynamicStartRows) times powers of SampleGrowth
// (DynamicGrowth), each at most a third of all rows (a larger sample
// costs nearly as much as the last stage and saves little).
func stageSizes(rows int, d *DynamicOracle) []int {
	var out []int
	start, growth := DynamicStartRows, DynamicGrowth
	if d.Start > 0 {
		start = d.Start
	}
	if d.Growth > 1 {
		growth = d.Growth
	}
	for n := start; 3*n <= rows; n *= growth {
		out = append(out, n)
	}
	return out
}

// stageRecorder numbers a stage's iterations on from the earlier stages'
// and names the stage in Iteration.Method; a sampled stage's records are
// marked Estimate (their values are on the sample).
type stageRecorder struct {
	next    Recorder
	t       int
	elapsed time.Duration
	method  string
}

func (r *stageRecorder) Record(it Iteration) error {
	it.T += r.t
	it.Elapsed += r.elapsed
	if r.method != "" && it.Method == "" {
		it.Method = r.method
		it.Estimate = true // values on the stage's sample, not on all rows
	}
	return r.next.Record(it)
}

// stageName is the progress table's name of a stage on frac of the rows:
// "s1%", "s10%", "s0.1%".
func stageName(frac float64) string {
	return "s" + strconv.FormatFloat(100*frac, 'g', 2, 64) + "%"
}

// MinimizeDynamic solves p from x0 by dynamic sampling, the driver that
// Settings.Oracle = Dynamic asks Minimize for: rounds of Auto(p), the
// accurate oracle, on subsamples of the data means' rows with control
// variates from every row, finishing on every row (see Dynamic). It sits
// beside MinimizeRestarts: a driver of Minimize, not an oracle of it.
// The schedule is s.Oracle's when it is a *DynamicOracle, else Dynamic's
// defaults.
func MinimizeDynamic(ctx context.Context, p *Problem, x0 []float64, s Settings) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	d, ok := s.Oracle.(*DynamicOracle)
	if !ok {
		d = Dynamic.(*DynamicOracle)
	}
	if err := d.uses(p); err != nil {
		return nil, err
	}
	if d.FullPass != nil {
		return minimizeRemote(ctx, p, x0, s, d) // the data are elsewhere (remote.go)
	}
	began := time.Now()
	acc, full, err := stageSettings(p, x0, s)
	if err != nil {
		return nil, err
	}
	acc.noProbe = true
	ss, ok := p.Sampler.(Subsampler)
	var sizes []int
	if ok {
		sizes = stageSizes(ss.Rows(), d)
	}
	if len(sizes) == 0 {
		// nothing to sample, or too little data: the accurate oracle on
		// every row (the dual oracle when the model has its pieces)
		o := withPieces(p, d.PiecesOf, acc.Oracle)
		acc.Oracle = o
		res, err := Minimize(ctx, p, x0, acc)
		if err == nil {
			res.Stages = []Stage{stageOf(res, ss, 0, 1, full.Eps, 0, o)}
			res.Stages[0].Time = res.Stats.Time
		}
		return res, err
	}
	rows := ss.Rows()
	x := clone(x0)
	vals := make([]float64, p.M+1)
	var (
		stages []Stage
		stats  Stats
		t      int
		ws     = &warmStart{keepDual: true} // the smooth oracle's multipliers, carried from stage to stage, and the dual oracle's dual point, from round to round
	)
	rhoHat, rho := s.RhoHat, s.Rho
	remaining := func() (time.Duration, bool) {
		if s.TimeLimit == 0 {
			return 0, true
		}
		left := s.TimeLimit - time.Since(began)
		return left, left > 0
	}
	cv := d.Rounds >= 0 // control variates on the first sample
	// stage runs one stage's solve on q from x: restored to feasibility on
	// q's data first (when x came from a smaller sample), then IQRC with
	// the accurate oracle o, warm-started with the last stage's RhoHat and
	// multipliers.
	stage := func(q *Problem, o Oracle, frac float64, eps float64, method string) (*Result, Stats, error) {
		var pre Stats
		if len(stages) > 0 {
			if _, err := restoreFeasible(q, x, vals, &pre); err != nil {
				return &Result{Status: NumericalError, Point: Point{X: clone(x), Objective: math.NaN(), Infeasibility: math.NaN()}, Err: err}, pre, nil
			}
			if s.Recorder != nil {
				if err := s.Recorder.Record(valuesIteration(t, time.Since(began), x, vals, "restore", frac < 1)); err != nil {
					return &Result{Status: Interrupted, Point: Point{X: clone(x), Objective: vals[0], Infeasibility: infeasibility(vals)}, Err: err}, pre, nil
				}
			}
		}
		left, ok := remaining()
		if !ok { // the restoration used the time up
			return &Result{Status: TimeLimit, Point: Point{X: clone(x)}, RhoHat: rhoHat, Rho: rho}, pre, nil
		}
		st := acc
		st.Oracle = o
		if frac < 1 && d.Rounds >= 0 {
			st.Outer = min(cmp.Or(st.Outer, DefaultOuter), DynamicRoundOuter)
		}
		st.TimeLimit = left
		st.Eps = eps
		if s.EpsHat > 0 {
			st.EpsHat = s.EpsHat * eps / full.Eps
		}
		st.RhoHat, st.Rho = rhoHat, rho
		if _, dual := o.(*DualOracle); dual && len(stages) > 0 && (frac == 1 || !cv) {
			// the dual starts cold on rows other than the last stage's
			// (a larger sample, or every row)
			st.RhoHat = max(rhoHat, min(DualStageRhoHatFactor*rhoHat, full.RhoHat))
		}
		if frac < 1 {
			st.Pick = PickLast
		}
		if s.Recorder != nil {
			st.Recorder = &stageRecorder{next: s.Recorder, t: t, elapsed: time.Since(began), method: method}
		}
		res, err := minimizeWarm(ctx, q, x, st, ws)
		return res, pre, err
	}
	sub := *p
	sub.Sampler = nil // the stage's sample stays selected: the solver must not reset it
	rounds, atLeast := 1, 1
	if cv {
		sizes = sizes[:1]
		rounds, atLeast = d.Rounds, d.Rounds
		if rounds == 0 {
			rounds, atLeast = DynamicMaxRounds, DynamicRounds
		}
	}
	for _, n := range sizes {
		if _, ok := remaining(); !ok {
			break
		}
		stageBegan := time.Now()
		got, err := ss.Subsample(float64(n) / float64(rows))
		if err != nil {
			return nil, fmt.Errorf("solve: %w", err)
		}
		frac := float64(got) / float64(rows)
		eps0 := full.Eps * math.Sqrt(float64(rows)/float64(got))
		// the sample's pieces, built once for its rounds, which warm the
		// dual from round to round
		qs, oracle := &sub, withPieces(&sub, d.PiecesOf, acc.Oracle)
		for r := range rounds {
			eps := eps0
			q, qo, name := qs, oracle, stageName(frac)
			var corr Stats
			if cv {
				if _, ok := remaining(); !ok {
					break
				}
				cq, co, fv, err := corrected(qs, oracle, ss, frac, x, &corr)
				if err != nil {
					return nil, fmt.Errorf("solve: %w", err)
				}
				if s.Recorder != nil {
					// the correction's values are on every row: an exact record
					if err := s.Recorder.Record(valuesIteration(t, time.Since(began), x, fv, "full", false)); err != nil {
						return haltedStages(p, ss, &Result{Status: Interrupted, Point: Point{X: clone(x)}, RhoHat: rhoHat, Rho: rho, Err: err}, stages, stats, began, t, full.Eps, began.Add(s.TimeLimit+GraceTime))
					}
				}
				q, qo, name = cq, co, name+"cv"
				// the surrogate is exact to first order at x: each round
				// may ask more of it
				eps = max(full.Eps, eps0/math.Pow(4, float64(r)))
			}
			res, pre, err := stage(q, qo, frac, eps, name)
			if err != nil {
				return nil, err
			}
			addStats(&res.Stats, pre)
			addStats(&stats, res.Stats)
			addStats(&stats, corr)
			st := stageOf(res, ss, got, frac, eps, 0, oracle)
			st.RestoreEvals, st.RestoreGrads = pre.Evals, pre.Grads
			st.Time = time.Since(stageBegan)
			st.CorrectionPasses = float64(corr.Evals)
			st.Passes += st.CorrectionPasses
			stages = append(stages, st)
			t += res.Stats.Outer + res.Stats.Phase1Outer
			switch res.Status {
			case NumericalError, TimeLimit, Interrupted:
				return haltedStages(p, ss, res, stages, stats, began, t, full.Eps, began.Add(s.TimeLimit+GraceTime))
			}
			copy(x, res.X)
			rhoHat, rho = res.RhoHat, res.Rho
			stageBegan = time.Now()
			if r+1 >= atLeast && res.Status != IterationLimit {
				break // the round solved its surrogate
			}
		}
	}
	// the last stage: every row, from the last sample's point
	ss.Full()
	if _, ok := remaining(); !ok {
		return haltedStages(p, ss, &Result{Status: TimeLimit, Point: Point{X: x}, RhoHat: rhoHat, Rho: rho}, stages, stats, began, t, full.Eps, began.Add(s.TimeLimit+GraceTime))
	}
	stageBegan := time.Now()
	// every row's pieces, when the model has them: the dual oracle starts
	// cold there (its rows are not the sample's), its slopes at the
	// subgradient at the sample's point, and screens the rows far from
	// their kinks (dualqp/screen.go)
	fo := withPieces(p, d.PiecesOf, acc.Oracle)
	res, pre, err := stage(p, fo, 1, full.Eps, "")
	if err != nil {
		return nil, err
	}
	addStats(&res.Stats, pre)
	addStats(&stats, res.Stats)
	if res.F == nil && (res.Status == TimeLimit || res.Status == Interrupted) {
		// the time ran out (or the Recorder failed) in the restoration,
		// before the solve
		st := stageOf(res, ss, rows, 1, full.Eps, 0, fo)
		st.RestoreEvals, st.RestoreGrads = pre.Evals, pre.Grads
		st.Time = time.Since(stageBegan)
		out, err := haltedStages(p, ss, res, append(stages, st), stats, began, t, full.Eps, began.Add(s.TimeLimit+GraceTime))
		if err == nil {
			lastStageValues(out)
		}
		return out, err
	}
	last := stageOf(res, ss, rows, 1, full.Eps, 0, fo)
	last.RestoreEvals, last.RestoreGrads = pre.Evals, pre.Grads
	last.Time = time.Since(stageBegan)
	res.Stages = append(stages, last)
	renumber(res, t)
	stats.Time = time.Since(began)
	res.Stats = stats
	return res, nil
}

// stageSettings are the settings of the stages of dynamic sampling, in
// memory (MinimizeDynamic) or remote (minimizeRemote), after the same
// validation as Minimize: Auto(p), the accurate oracle; Eps 1e-3 unless
// s sets it (large data: the stages' tolerances scale from the default of
// the sampled oracles, not the smooth oracle's 1e-6); and the floor of
// RhoHat's rule where the solve's own start puts it, since the stages
// start from each other's RhoHat. full is acc with every default filled.
func stageSettings(p *Problem, x0 []float64, s Settings) (acc, full Settings, err error) {
	acc = s
	acc.Oracle = Auto(p)
	if acc.Eps == 0 {
		acc.Eps = DefaultEps
	}
	if err := p.Validate(x0); err != nil {
		return acc, full, fmt.Errorf("solve: %w", err)
	}
	if full, err = withDefaults(p, acc); err != nil {
		return acc, full, err
	}
	acc.rhoHatLow = MinRhoHatFactor * full.RhoHat
	return acc, full, nil
}

// minimizeWarm is Minimize of one stage from x with st (an accurate
// oracle), its run's warm start carried in from and out to ws
// (warmCarrier: the smooth oracle's multipliers; the dual oracle's dual
// point when ws.dual is wanted, which it starts from when the stage's
// Pieces have the same rows as the stage's that left it: a later round on
// the same sample).
func minimizeWarm(ctx context.Context, q *Problem, x []float64, st Settings, ws *warmStart) (*Result, error) {
	sv, err := newSolver(ctx, q, x, st)
	if err != nil {
		return nil, err
	}
	wc, _ := sv.acc.(warmCarrier)
	if wc != nil {
		wc.loadWarm(ws)
	}
	res := sv.run(x)
	if wc != nil {
		wc.saveWarm(ws)
	}
	res.Stats = sv.stats
	res.Stats.Time = time.Since(sv.start)
	return res, nil
}

// warmStart is what the dynamic oracle's stages carry from one to the
// next: the smooth oracle's augmented-Lagrangian state, and, when
// keepDual is set (in memory, not for the remote rounds), the dual
// oracle's dual point.
type warmStart struct {
	al       alState
	dual     *dualqp.Warm
	keepDual bool
}

// warmCarrier is an accurate oracle's run whose warm start can be carried
// from one solve to the next in a warmStart.
type warmCarrier interface {
	// loadWarm starts the run from w's state, when w has one for it.
	loadWarm(w *warmStart)
	// saveWarm leaves the run's state in w.
	saveWarm(w *warmStart)
}

// lastStageValues gives the last stage of a solve halted before that
// stage's solve began (the time ran out in its restoration) the values
// of the point returned, which haltedStages computed on every row: the
// stage had none of its own (its line said objective 0).
func lastStageValues(out *Result) {
	if len(out.Stages) > 0 {
		st := &out.Stages[len(out.Stages)-1]
		st.Objective, st.Infeasibility = out.Objective, out.Infeasibility
	}
}

// DualStageRhoHatFactor is how much larger than the last stage's RhoHat a
// stage on other rows (every row, or a larger sample) starts when it runs
// the dual oracle, cold there (at most the solve's own start). It starts
// near the optimum, so a larger RhoHat costs it a few outer steps (the
// loop halves RhoHat while the steps contract slowly), and it makes each
// subproblem better conditioned and the screening's radius
// sqrt(2 gap / RhoHat) smaller: on 10^6 rows of a hinge model the first
// subproblem at the sample's RhoHat took 81 s (3·10^5 rows left after
// screening), at 16 times about 1 s (docs/performance.md).
const DualStageRhoHatFactor = 16

// withPieces is the oracle of a stage of q on the rows now selected (a
// sample, or every row): the DualOracle with their Pieces when piecesOf
// gives them, else o. An error of piecesOf keeps o: the explicit form is
// an acceleration, not the solve.
func withPieces(q *Problem, piecesOf func() (*dualqp.Model, error), o Oracle) Oracle {
	if piecesOf == nil {
		return o
	}
	pm, err := piecesOf()
	if err != nil || pm == nil || pm.N != q.N || pm.M != q.M {
		return o
	}
	return &DualOracle{Pieces: pm}
}

// stageOf summarises a stage's result; o is the stage's oracle.
func stageOf(res *Result, ss Subsampler, rows int, frac, eps float64, d time.Duration, o Oracle) Stage {
	if ss != nil && rows == 0 {
		rows = ss.Rows()
	}
	return Stage{
		Rows: rows, Fraction: frac, Eps: eps, Status: res.Status,
		Outer: res.Stats.Outer + res.Stats.Phase1Outer, Evals: res.Stats.Evals,
		Passes:    float64(res.Stats.Evals) * frac,
		Objective: res.Objective, Infeasibility: res.Infeasibility, Time: d,
		Oracle: o,
	}
}

// renumber numbers the last stage's points on from the earlier stages'.
func renumber(res *Result, t int) {
	res.Point.T += t
	for _, q := range []*Point{res.Best, res.MostFeasible} {
		if q != nil {
			q.T += t
		}
	}
}

// haltedStages ends a dynamic solve that stopped during a sampled stage
// (time limit, a cancelled context, a numerical error): the stage's point is evaluated
// on every row (after a time limit, restored to feasibility there, with
// steps until deadline, the time limit plus GraceTime) and returned with
// the stage's status, or with Infeasible when it is not feasible to Eps
// there. There is no certificate: nothing was solved on all rows.
func haltedStages(p *Problem, ss Subsampler, res *Result, stages []Stage, stats Stats, began time.Time, t int, eps float64, deadline time.Time) (*Result, error) {
	ss.Full()
	out := &Result{Status: res.Status, RhoHat: res.RhoHat, Rho: res.Rho, Inner: res.Inner, Err: res.Err, Stages: stages}
	out.Point = Point{X: clone(res.X), T: res.T + t, Objective: math.NaN(), Infeasibility: math.NaN()}
	vals := make([]float64, p.M+1)
	var err error
	if out.Status == TimeLimit {
		// a few Gauss-Newton steps on all rows, within the grace the
		// certificate and polish get, so that the point is feasible there
		// rather than on the sample only
		_, err = restoreFeasibleBy(p, out.X, vals, &stats, deadline)
	} else {
		stats.Evals++
		err = p.EvalFinite(out.X, vals)
	}
	if err != nil {
		if out.Status != NumericalError {
			out.Status, out.Err = NumericalError, err
		}
	} else {
		out.F = vals
		out.Objective = vals[0]
		out.Infeasibility = infeasibility(vals)
		if out.Status != NumericalError && !(out.Infeasibility <= eps) {
			out.Status = Infeasible
			for i := 1; i < len(vals); i++ {
				if vals[i] > eps {
					out.Violated = append(out.Violated, i)
				}
			}
		}
	}
	if out.Status.Success() {
		out.NoCertificate = "the solve stopped on a sample of the rows, before the stage on every row"
		if out.Status == Interrupted {
			out.NoCertificate = "the solve was interrupted"
		}
	}
	if out.Status != NumericalError || out.F != nil {
		pt := out.Point
		out.MostFeasible = clonePoint(&pt)
		if pt.Infeasibility <= eps {
			out.Best = clonePoint(&pt)
		}
	}
	stats.Time = time.Since(began)
	out.Stats = stats
	return out, nil
}

// maxRestoreSteps bounds the Gauss-Newton steps of restoreFeasible.
const maxRestoreSteps = 8

// restoreInside is how far inside the constraints restoreFeasible aims,
// relative to the largest violation: a little beyond the boundary, so
// that the curvature the linearisation misses keeps the point feasible.
const restoreInside = 0.1

// restoreFloor is the least margin restoreFeasible aims inside the
// constraints by: below it the rounding of a mean over many rows (about
// 1e-13 here) would keep a point that should be on the boundary outside.
const restoreFloor = 1e-9

// restoreFeasible moves x, in place, to a point of X where every fi <= 0
// on the data the Problem has selected, by Gauss-Newton steps on the
// constraints that are violated or about to be: with v the largest
// violation and A the constraints with fi >= -v, the least-norm d with
// fi + <grad fi, d> = min(fi, -restoreInside v) for i in A, then
// x = Proj_X(x + d). It is what dynamic sampling does when a point solved
// on one sample is slightly infeasible on the next, or on all rows: the
// violation is of the order of the sampling error, so one or two steps,
// each an evaluation and one reverse pass per constraint in A, suffice,
// where phase 1 (Algorithm 2's phase-1 steps and a bisection) would take
// tens of evaluations. It reports whether it found such a point (x is
// then that point, vals its values), and counts its work in st.
func restoreFeasible(p *Problem, x, vals []float64, st *Stats) (bool, error) {
	return restoreFeasibleBy(p, x, vals, st, time.Time{})
}

// restoreFeasibleBy is restoreFeasible that takes no step after the
// deadline (none when it is zero); vals are always x's values.
func restoreFeasibleBy(p *Problem, x, vals []float64, st *Stats, deadline time.Time) (bool, error) {
	m := p.M
	w := make([]float64, m+1)
	var rows [][]float64 // the gradients of the constraints in A
	var act []int
	for step := 0; ; step++ {
		st.Evals++
		if err := p.EvalFinite(x, vals); err != nil {
			return false, err
		}
		v := gOf(vals)
		if v <= 0 {
			return true, nil
		}
		if step == maxRestoreSteps || !deadline.IsZero() && !time.Now().Before(deadline) {
			return false, nil
		}
		act = act[:0]
		for i := 1; i <= m; i++ {
			if vals[i] >= -v {
				act = append(act, i)
			}
		}
		for len(rows) < len(act) {
			rows = append(rows, make([]float64, p.N))
		}
		for k, i := range act {
			st.Grads++
			if err := p.GradFinite(i, w, rows[k]); err != nil {
				return false, err
			}
		}
		// (J J^T) mu = r, d = J^T mu, with r_k = target_k - f_i
		na := len(act)
		a := make([]float64, na*na)
		r := make([]float64, na)
		trace := 0.0
		for k := range na {
			for l := 0; l <= k; l++ {
				a[k*na+l] = dot(rows[k], rows[l])
				a[l*na+k] = a[k*na+l]
			}
			trace += a[k*na+k]
			r[k] = math.Min(vals[act[k]], -max(restoreInside*v, restoreFloor)) - vals[act[k]]
		}
		if !(trace > 0) {
			return false, nil // no constraint gradient to step along
		}
		for k := range na {
			a[k*na+k] += 1e-12 * trace
		}
		mu, ok := solveSPD(a, r, na)
		if !ok {
			return false, nil
		}
		for k := range na {
			for j, gj := range rows[k] {
				x[j] += mu[k] * gj
			}
		}
		if p.Project != nil {
			p.Project(x)
		}
	}
}

// solveSPD solves the symmetric positive definite n x n system a z = b
// (a row-major; both are overwritten) by Cholesky; ok is false when a is
// not numerically positive definite.
func solveSPD(a, b []float64, n int) ([]float64, bool) {
	for j := range n {
		d := a[j*n+j]
		for k := range j {
			d -= a[j*n+k] * a[j*n+k]
		}
		if !(d > 0) {
			return nil, false
		}
		d = math.Sqrt(d)
		a[j*n+j] = d
		for i := j + 1; i < n; i++ {
			s := a[i*n+j]
			for k := range j {
				s -= a[i*n+k] * a[j*n+k]
			}
			a[i*n+j] = s / d
		}
	}
	for i := range n { // L y = b
		s := b[i]
		for k := range i {
			s -= a[i*n+k] * b[k]
		}
		b[i] = s / a[i*n+i]
	}
	for i := n - 1; i >= 0; i-- { // L^T z = y
		s := b[i]
		for k := i + 1; k < n; k++ {
			s -= a[k*n+i] * b[k]
		}
		b[i] = s / a[i*n+i]
	}
	return b, true
}

// corrected returns q on a fixed sample of frac of the rows with control
// variates at xs: every function f_S of the sample is replaced by
//
//	f_S(x) - f_S(xs) + f(xs) + <g(xs) - g_S(xs), x - xs>,
//
// whose subgradient is g_S(x) - g_S(xs) + g(xs),
// f and g on every row, so that the sample's functions agree with the
// data's in value and gradient at xs and differ from them by the error of
// the sample's curvature only. This is the variance reduction of SVRG
// (Johnson & Zhang 2013) applied to the subproblem instead of a minibatch
// step: one pass on every row per round, then a solve on the sample. It
// costs one evaluation and M+1 reverse passes on every row, and as many on
// the sample, counted in st (Evals counts the evaluations on every row
// only). The oracle o of the sample comes back corrected too (a
// DualOracle's Pieces shifted as the functions are). It returns the
// values on every row at xs too, and leaves the sample selected.
func corrected(q *Problem, o Oracle, ss Subsampler, frac float64, xs []float64, st *Stats) (*Problem, Oracle, []float64, error) {
	m := q.M + 1
	full, samp := make([]float64, m), make([]float64, m)
	gFull, gSamp := make([][]float64, m), make([][]float64, m)
	for f := range m {
		gFull[f], gSamp[f] = make([]float64, q.N), make([]float64, q.N)
	}
	w := make([]float64, m)
	at := func(vals []float64, rows [][]float64) error {
		if err := q.Eval(xs, vals); err != nil {
			return err
		}
		return q.GradsFinite(rows, w)
	}
	ss.Full()
	if err := at(full, gFull); err != nil {
		return nil, nil, nil, err
	}
	st.Evals++
	st.Grads += m
	if _, err := ss.Subsample(frac); err != nil {
		return nil, nil, nil, err
	}
	if err := at(samp, gSamp); err != nil {
		return nil, nil, nil, err
	}
	cq, co := withControlVariates(q, o, xs, full, samp, gFull, gSamp)
	return cq, co, full, nil
}

// withControlVariates returns q with every function f_S shifted to
//
//	f_S(x) - samp_f + full_f + <gFull_f - gSamp_f, x - xs>,
//
// so that it agrees in value and gradient with the values full and
// gradients gFull at xs (on every row) where q has samp and gSamp (on
// its sample), and the oracle o with its form shifted alike (a
// DualOracle's Pieces; the other oracles carry no form of the functions'
// values and come back as they are). It keeps none of the slices but xs's
// copy and the corrections it computes.
func withControlVariates(q *Problem, o Oracle, xs, full, samp []float64, gFull, gSamp [][]float64) (*Problem, Oracle) {
	m := q.M + 1
	shift := make([]float64, m)
	corr := make([][]float64, m)
	for f := range m {
		shift[f] = full[f] - samp[f]
		corr[f] = make([]float64, q.N)
		floats.SubTo(corr[f], gFull[f], gSamp[f])
	}
	cq := *q
	xs = clone(xs)
	cq.Eval = func(x, vals []float64) error {
		if err := q.Eval(x, vals); err != nil {
			return err
		}
		for f := range vals {
			lin := 0.0
			for j, c := range corr[f] {
				lin += c * (x[j] - xs[j])
			}
			vals[f] += shift[f] + lin
		}
		return nil
	}
	cq.Grad = func(w, g []float64) error {
		if err := q.Grad(w, g); err != nil {
			return err
		}
		for f, wf := range w {
			if wf != 0 {
				floats.AddScaled(g, wf, corr[f])
			}
		}
		return nil
	}
	if d, ok := o.(*DualOracle); ok && d.Pieces != nil {
		o = &DualOracle{Pieces: shiftedPieces(d.Pieces, xs, shift, corr)}
	}
	if q.Jacobian != nil {
		cq.Jacobian = func(rows [][]float64) error {
			if err := q.Jacobian(rows); err != nil {
				return err
			}
			for f, r := range rows {
				floats.Add(r, corr[f])
			}
			return nil
		}
	}
	return &cq, o
}

// shiftedPieces is pm with function f's affine rest shifted by
// shift_f + <corr_f, x - xs>, as withControlVariates shifts the
// functions: new Q and E, the rows and the domain shared with pm.
func shiftedPieces(pm *dualqp.Model, xs, shift []float64, corr [][]float64) *dualqp.Model {
	out := *pm
	out.Q = make([][]float64, len(pm.Q))
	out.E = make([]float64, len(pm.E))
	for f := range out.Q {
		q := make([]float64, pm.N)
		if pm.Q[f] != nil {
			copy(q, pm.Q[f])
		}
		floats.Add(q, corr[f])
		out.Q[f] = q
		out.E[f] = pm.E[f] + shift[f] - floats.Dot(corr[f], xs)
	}
	return &out
}

// valuesIteration is the record of a point x with values vals (f0..fM):
// its objective, infeasibility and most violated constraint.
func valuesIteration(t int, elapsed time.Duration, x, vals []float64, method string, estimate bool) Iteration {
	it := Iteration{T: t, Elapsed: elapsed, X: x, Objective: vals[0], Infeasibility: infeasibility(vals), Method: method, Estimate: estimate}
	if g, i := maxConstraint(vals); g > 0 {
		it.MaxViolated = i
	}
	return it
}
