package solve

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"
)

// FullPass evaluates every function f0..fM and its gradient at x on all
// the rows of the data, where the data live (package beamrun runs it as an
// Apache Beam pipeline over the shards of a data set). The returned slices
// are the caller's.
type FullPass func(x []float64) (vals []float64, grads [][]float64, err error)

// RemoteRounds bounds the rounds of a solve with DynamicOracle.FullPass: the
// rounds go on, each anchored at a full pass, while a round has not
// converged at the final tolerance or moved the point more than Eps.
const RemoteRounds = 8

// minimizeRemote is the Dynamic oracle when the data are not in memory
// (DynamicOracle.FullPass, d's): p holds a uniform sample of the rows only, and
// every evaluation on all rows is a full pass. It runs the control-variate
// rounds of MinimizeDynamic on the sample, each anchored at a full pass,
// with a last round at the final tolerance in place of the stage on every
// row: it stops once a round at Eps converged without moving the point
// by more than Eps (the surrogate's stationarity is then the data's to
// first order) or after RemoteRounds. The rounds take each full pass on a
// grid (passGrid), so that passes which differ only by rounding give the
// same solve. The point returned is evaluated by a
// full pass, restored to feasibility on all rows by Gauss-Newton steps
// of full passes when it is not feasible there, and its objective,
// infeasibility and F are those of the full pass. The certificate is the
// last round's, on the sample corrected to agree with all rows in value
// and gradient at that round's anchor (NoCertificate says so when it is
// absent). A full pass that fails (a shard missing or damaged) ends the
// solve with NumericalError, its error, and the last point: nothing solved
// is lost.
func minimizeRemote(ctx context.Context, p *Problem, x0 []float64, s Settings, d *DynamicOracle) (*Result, error) {
	began := time.Now()
	acc, full, err := stageSettings(p, x0, s)
	if err != nil {
		return nil, err
	}
	sub := *p
	sub.Sampler = nil
	x := clone(x0)
	var (
		stages []Stage
		stats  Stats
		t      int
		ws     = &warmStart{} // the smooth oracle's multipliers, from round to round
		last   *Result
		fv     []float64 // the last full pass's values
		rv     []float64 // its values and gradients on the pass grid (passGrid): what the rounds take
		rg     [][]float64
		known  *Point // the last point a full pass evaluated
	)
	rhoHat, rho := s.RhoHat, s.Rho
	deadline := time.Time{}
	if s.TimeLimit > 0 {
		deadline = began.Add(s.TimeLimit)
	}
	// fail ends the solve at x after a failed full pass or recorder
	fail := func(st Status, err error) (*Result, error) {
		out := &Result{Status: st, Point: Point{X: clone(x), Objective: math.NaN(), Infeasibility: math.NaN()}, Err: err, RhoHat: rhoHat, Rho: rho, Stages: stages}
		if known != nil {
			// the last point a full pass evaluated: the best known on all rows
			out.MostFeasible = clonePoint(known)
			if known.Infeasibility <= full.Eps {
				out.Best = clonePoint(known)
			}
			if dist(known.X, x) == 0 {
				out.Point = *clonePoint(known)
			}
		}
		out.NoCertificate = "the solve was stopped: " + err.Error()
		stats.Time = time.Since(began)
		out.Stats = stats
		return out, nil
	}
	pass := func(at []float64) error {
		if known != nil && dist(known.X, at) == 0 {
			return nil // fv, rv, rg are at's already: a round that did not move
		}
		v, g, err := d.FullPass(at)
		if err != nil {
			return err
		}
		fv = v
		rv, rg = passGrid(v, g)
		known = &Point{X: clone(at), F: v, Objective: v[0], Infeasibility: infeasibility(v), T: t}
		stats.Evals++
		stats.Grads += len(v)
		if s.Recorder != nil {
			return s.Recorder.Record(valuesIteration(t, time.Since(began), at, v, "full", false))
		}
		return nil
	}
	// the sample's share of the rows sets the first round's tolerance as
	// in MinimizeDynamic: the sample's error shrinks like 1/sqrt(rows)
	eps0 := full.Eps * math.Sqrt(max(1, float64(d.FullRows)/float64(max(1, sampleRows(p)))))
	for r := range RemoteRounds {
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			break
		}
		if ctx.Err() != nil {
			return fail(Interrupted, ctx.Err())
		}
		roundBegan := time.Now()
		before := stats.Evals
		if err := pass(x); err != nil {
			return fail(NumericalError, err)
		}
		anchor := clone(x)
		cq, err := correctedAt(&sub, anchor, rv, rg)
		if err != nil {
			return fail(NumericalError, err)
		}
		eps := max(full.Eps, eps0/math.Pow(4, float64(r)))
		st := acc
		if eps > full.Eps {
			st.Outer = min(cmp.Or(st.Outer, DefaultOuter), DynamicRoundOuter)
		}
		if !deadline.IsZero() {
			st.TimeLimit = max(time.Until(deadline), time.Millisecond)
		}
		st.Eps = eps
		if s.EpsHat > 0 {
			st.EpsHat = s.EpsHat * eps / full.Eps
		}
		st.RhoHat, st.Rho = rhoHat, rho
		st.Pick = PickLast
		if s.Recorder != nil {
			st.Recorder = &stageRecorder{next: s.Recorder, t: t, elapsed: time.Since(began), method: "cv"}
		}
		res, err := minimizeWarm(ctx, cq, x, st, ws)
		if err != nil {
			return nil, err
		}
		addStats(&stats, res.Stats)
		stg := stageOf(res, nil, sampleRows(p), 1, eps, time.Since(roundBegan), acc.Oracle)
		stg.Fraction = float64(sampleRows(p)) / max(1, float64(d.FullRows))
		stg.CorrectionPasses = float64(stats.Evals - before - res.Stats.Evals)
		stg.Passes = stg.CorrectionPasses + float64(res.Stats.Evals)*stg.Fraction
		stages = append(stages, stg)
		t += res.Stats.Outer + res.Stats.Phase1Outer
		last = res
		switch res.Status {
		case NumericalError, Interrupted:
			return fail(res.Status, cmp.Or(res.Err, fmt.Errorf("the round on the sample stopped")))
		}
		copy(x, res.X)
		rhoHat, rho = res.RhoHat, res.Rho
		moved := dist(x, anchor)
		if eps <= full.Eps && res.Status == Converged && moved <= full.Eps {
			break
		}
	}
	// the returned point, on every row
	if err := pass(x); err != nil {
		return fail(NumericalError, err)
	}
	out := &Result{Status: Converged, RhoHat: rhoHat, Rho: rho, Stages: stages}
	if last != nil {
		out.Status, out.Certificate, out.NoCertificate, out.Inner = last.Status, last.Certificate, last.NoCertificate, last.Inner
	}
	if infeasibility(fv) > full.Eps {
		// Gauss-Newton steps, each a full pass, as haltedStages does
		rp := *p
		rp.Sampler = nil
		rp.Jacobian = nil
		rp.Eval = func(at, vals []float64) error {
			if err := pass(at); err != nil {
				return err
			}
			copy(vals, rv)
			return nil
		}
		rp.Grad = func(w, g []float64) error {
			clear(g)
			for f, wf := range w {
				if wf != 0 {
					floats.AddScaled(g, wf, rg[f])
				}
			}
			return nil
		}
		vals := make([]float64, p.M+1)
		var pre Stats
		if _, err := restoreFeasibleBy(&rp, x, vals, &pre, deadline.Add(GraceTime)); err != nil {
			return fail(NumericalError, err)
		}
		stats.Grads += pre.Grads
		out.Certificate, out.NoCertificate = nil, "the point was restored to feasibility on all rows after the last round"
	}
	out.Point = Point{X: clone(x), F: fv, Objective: fv[0], Infeasibility: infeasibility(fv), T: t}
	if out.Infeasibility > full.Eps {
		out.Status = Infeasible
		out.Certificate = nil
		for i := 1; i < len(fv); i++ {
			if fv[i] > full.Eps {
				out.Violated = append(out.Violated, i)
			}
		}
	} else if !deadline.IsZero() && time.Now().After(deadline) && out.Status == Converged {
		out.Status = TimeLimit
	}
	pt := out.Point
	out.MostFeasible = clonePoint(&pt)
	if pt.Infeasibility <= full.Eps {
		out.Best = clonePoint(&pt)
	}
	if out.Certificate == nil && out.NoCertificate == "" && out.Status.Success() {
		out.NoCertificate = "the last round on the sample left no certificate"
	}
	stats.Time = time.Since(began)
	out.Stats = stats
	return out, nil
}

// passBits is the precision, in bits below each number's scale, to which
// the rounds of a solve with DynamicOracle.FullPass take a full pass's values
// and gradients (passGrid).
const passBits = 30

// passGrid returns copies of a full pass's values and gradients rounded to
// multiples of 2^-passBits times the least power of two above their scale
// (at most twice it): max(1, |v|) for a value, the largest entry for a
// gradient. Two
// evaluations of the same functions at the same point that differ only by
// the rounding of their sums (a pass through Beam, whose shards' partial
// sums the runner adds in any order, and the whole set's evaluation in
// memory: about 1e-16 relative) then give the rounds the same numbers,
// unless a midpoint of the grid falls between them (a chance of their
// difference over the grid's spacing, per number), and the rounds are the
// same computation: without it, the inner solver's stopping decisions
// amplify such differences far beyond rounding (docs/distributed.md). The
// error it adds, at most 2^-passBits of the scale (1e-9), is far below any
// tolerance the rounds solve to; the result's values are the pass's own,
// not rounded.
func passGrid(vals []float64, grads [][]float64) ([]float64, [][]float64) {
	round := func(v, scale float64) float64 {
		_, e := math.Frexp(scale) // scale < 2^e <= 2 scale
		h := math.Ldexp(1, e-passBits)
		return math.Round(v/h) * h
	}
	rv := make([]float64, len(vals))
	for f, v := range vals {
		rv[f] = round(v, max(1, math.Abs(v)))
	}
	rg := make([][]float64, len(grads))
	for f, g := range grads {
		scale := 0.0
		for _, v := range g {
			scale = max(scale, math.Abs(v))
		}
		rg[f] = make([]float64, len(g))
		for j, v := range g {
			rg[f][j] = round(v, scale)
		}
	}
	return rv, rg
}

// sampleRows is the number of rows of the sample p's data means run over.
func sampleRows(p *Problem) int {
	if ss, ok := p.Sampler.(Subsampler); ok {
		return ss.Rows()
	}
	return 0
}

// correctedAt is corrected with the values and gradients on every row at
// xs given (from a full pass): q's functions, on its rows, shifted to
// agree with them in value and gradient at xs.
func correctedAt(q *Problem, xs, full []float64, gFull [][]float64) (*Problem, error) {
	m := q.M + 1
	if len(full) != m || len(gFull) != m {
		return nil, fmt.Errorf("solve: a full pass gave %d values for %d functions", len(full), m)
	}
	samp := make([]float64, m)
	gSamp := make([][]float64, m)
	for f := range m {
		gSamp[f] = make([]float64, q.N)
	}
	if err := q.Eval(xs, samp); err != nil {
		return nil, err
	}
	if err := q.GradsFinite(gSamp, make([]float64, m)); err != nil {
		return nil, err
	}
	cq, _ := withControlVariates(q, nil, xs, full, samp, gFull, gSamp)
	return cq, nil
}
