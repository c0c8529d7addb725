package qrc

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/floats"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/internal/jsonenc"
	"github.com/qrc-lang/qrc/penalty"
	"github.com/qrc-lang/qrc/plan"
	"github.com/qrc-lang/qrc/point"
	"github.com/qrc-lang/qrc/problem"
	"github.com/qrc-lang/qrc/solve"
)

// ReportProbe is the probe around the returned point (solve.ProbeReport).
type ReportProbe struct {
	Points     int       `json:"points"`     // points evaluated around the last point probed
	Directions int       `json:"directions"` // directions, each tried both ways
	Steps      []float64 `json:"steps"`      // step lengths
	Escapes    []int     `json:"escapes"`    // outer iterates left because a lower feasible point was found near them
	Found      bool      `json:"found"`      // the last probe (around the returned point) found a lower feasible point
}

// Report is the result of a solve: what qrc solve prints, and, as JSON
// (WriteJSON), its JSON result with the same fields (docs/cli.md). The
// fields hold values on all rows of the data.
type Report struct {
	File          string  `json:"file"`
	Method        string  `json:"method"` // the method's name: iqrc, stochastic, smooth, bundle, penalty or a Method's own
	Status        string  `json:"status"`
	Success       bool    `json:"success"`
	Objective     float64 `json:"objective"`
	Infeasibility float64 `json:"infeasibility"`
	// Stationarity bounds the KKT residual at x_hat: (1 + sum of the
	// multipliers) rho_hat (||x - x_hat|| + its bound); null without a
	// certificate, and NoCertificate says why.
	Stationarity  *float64 `json:"stationarity"`
	NoCertificate string   `json:"no_certificate,omitempty"`
	// XHatDistance is ||x - x_hat||, with x_hat the certificate oracle's
	// solution of (7) at x, and XHatBound bounds that x_hat's distance to
	// the exact one (from the certified gap).
	// KKTResidual, for a smooth model, is the KKT residual measured at x
	// itself with gradients and the multipliers KKTMultipliers names,
	// ||x - Proj_X(x - grad L(x, lambda))||, KKTComplementarity max_i
	// lambda_i |f_i(x)|, and KKTTolerance what both were compared with
	// (eps times the scale of solve.KKTCheck); null for a nonsmooth model.
	KKTResidual        *float64 `json:"kkt_residual"`
	KKTMultipliers     string   `json:"kkt_multipliers,omitempty"`
	KKTComplementarity *float64 `json:"kkt_complementarity"`
	KKTTolerance       *float64 `json:"kkt_tolerance"`
	XHatDistance       *float64 `json:"x_hat_distance"`
	XHatBound          *float64 `json:"x_hat_bound"`
	Gap                *float64 `json:"gap"`
	// CertificateOracle and CertificateEvals: the oracle that certified
	// and its evaluations.
	CertificateOracle string `json:"certificate_oracle,omitempty"`
	RhoProven         bool   `json:"rho_proven"` // the certificate's Rho is at least the analysis' proven bound
	// OutsideTheory, when not empty, says why the model is outside the
	// paper's weakly convex theory (a nonlinear equality constraint): the
	// bound at x_hat then proves nothing and only the KKT residual at x
	// certifies.
	OutsideTheory    string             `json:"outside_theory,omitempty"`
	CertificateEvals int                `json:"certificate_evals"`
	Stationary       bool               `json:"stationary"` // stationarity <= eps and feasible
	Constraints      []ReportConstraint `json:"constraints"`
	Variables        point.Variables    `json:"variables"`
	Best             *ReportPoint       `json:"best"`
	MostFeasible     *ReportPoint       `json:"most_feasible"`
	Violated         []string           `json:"violated,omitempty"`
	// Verdict is a sentence to act on, when the status alone misleads:
	// locally infeasible, feasible only from a restart, or stopped on a
	// limit while the iterates were still moving.
	Verdict string `json:"verdict,omitempty"`
	// Probe says what the probe around a point certified nearly
	// stationary tried (solve.ProbeReport): null when it did not run.
	Probe    *ReportProbe   `json:"probe,omitempty"`
	Restarts *RestartReport `json:"restarts,omitempty"`
	// Starts, for a solve from several starts (Options.Starts), is every
	// start's outcome and the distinct local solutions.
	Starts          *StartsReport  `json:"multistart,omitempty"`
	Error           string         `json:"error,omitempty"`
	OuterIterations int            `json:"outer_iterations"`
	InnerIterations int            `json:"inner_iterations"`
	Phase1Outer     int            `json:"phase1_outer_iterations"`
	RhoDoublings    int            `json:"rho_doublings"`
	InnerDoublings  int            `json:"inner_doublings"` // Inner doubled because the iterates stalled short of stationarity
	Seconds         float64        `json:"seconds"`
	Settings        ReportSettings `json:"settings"`
	Penalty         *PenaltyReport `json:"penalty,omitempty"` // the penalty method's parameters and final state
	// Polish counts the rounds of Algorithm 2 on all rows that made the
	// stochastic oracle's last point feasible.
	Polish int `json:"polish_rounds"`
	// Polishes counts the SQP polishes that moved an iterate or the
	// returned point (docs/solver.md, the SQP polish).
	Polishes int `json:"sqp_polishes"`
	// Stages are the dynamic oracle's stages, the last one on every row.
	Stages []ReportStage `json:"stages,omitempty"`

	model  *Model
	result *solve.Result
}

// ReportConstraint is one expanded constraint at the returned point.
type ReportConstraint struct {
	Name string `json:"name"`
	// Op is the constraint's comparison as written: "<=" or ">=" for an
	// inequality f <= 0, "==" for an equality f = 0.
	Op         string   `json:"op"`
	Value      float64  `json:"value"` // f = lhs - rhs (rhs - lhs for >=)
	RHS        *float64 `json:"rhs"`
	Slack      float64  `json:"slack"`      // -f for an inequality, -|f| for an equality
	Violation  float64  `json:"violation"`  // max(0, f) for an inequality, |f| for an equality
	Multiplier *float64 `json:"multiplier"` // of either sign for an equality
}

// ReportPoint is an outer iterate the solve kept: the best feasible one or
// the most feasible one.
type ReportPoint struct {
	Objective     float64 `json:"objective"`
	Infeasibility float64 `json:"infeasibility"`
	Outer         int     `json:"outer"`
}

// ReportSettings are the settings the solve ran with, after defaults.
type ReportSettings struct {
	RhoHat           float64 `json:"rho_hat"` // the final value, after doublings
	Rho              float64 `json:"rho"`
	RhoHatStart      float64 `json:"rho_hat_start"`
	Eps              float64 `json:"eps"`
	EpsHat           float64 `json:"eps_hat"`
	Inner            int     `json:"inner"`       // the final value, after inner_doublings
	InnerStart       int     `json:"inner_start"` // the value the solve started with
	Outer            int     `json:"outer"`
	TimeLimitSeconds float64 `json:"time_limit_seconds"`
	Pick             string  `json:"pick"`
	Seed             uint64  `json:"seed"`
	Oracle           string  `json:"oracle"`          // smooth, bundle, switching or stochastic: the one used
	Batch            int     `json:"batch,omitempty"` // stochastic: rows per draw from each row set
	V                float64 `json:"v,omitempty"`     // stochastic: Algorithm 3's V
	Alpha            float64 `json:"alpha,omitempty"` // stochastic: Algorithm 3's alpha
	MonitorRows      int     `json:"monitor_rows"`    // progress on a sample of this many rows per set; 0: all rows
	AllowBiased      bool    `json:"allow_biased"`
}

// finite returns &v, or nil when v is not finite (JSON null).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// monitorNote says when the progress table shows values on a sample of the
// rows rather than on all of them.
func monitorNote(p *solve.Problem, prog *autodiff.Program) string {
	s, ok := p.Sampler.(*problem.Sampler)
	if !ok {
		return ""
	}
	var parts []string
	for i, n := range s.MonitorRows() {
		if n > 0 {
			set := prog.Samples()[i]
			parts = append(parts, fmt.Sprintf("%d of the %d rows of %s", n, set.Rows, set.Data))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "objective and infeasibility at outer iterations are on a fixed sample (" + strings.Join(parts, "; ") + "); the result is on all rows"
}

// ReportStage is one stage of the dynamic oracle (solve.Stage) in a
// Report.
type ReportStage struct {
	Rows     int     `json:"rows"`
	Fraction float64 `json:"fraction"`
	Eps      float64 `json:"eps"`
	Status   string  `json:"status"`
	Outer    int     `json:"outer_iterations"`
	Evals    int     `json:"evaluations"`
	Passes   float64 `json:"data_passes"`
	// CorrectionPasses counts the passes on every row that set a
	// round's control variates (included in Passes).
	CorrectionPasses float64 `json:"correction_passes"`
	RestoreEvals     int     `json:"restore_evaluations"`
	Objective        float64 `json:"objective"`
	Infeasibility    float64 `json:"infeasibility"`
	Seconds          float64 `json:"seconds"`
	// Oracle is the oracle that solved the stage's subproblems ("dual"
	// on a sample of a piecewise-linear model, else the one auto picks
	// for the model: "bundle" or "smooth").
	Oracle string `json:"oracle"`
}

// stagesOf converts the dynamic oracle's stages for the report.
func stagesOf(stages []solve.Stage) []ReportStage {
	var out []ReportStage
	for _, s := range stages {
		out = append(out, ReportStage{Rows: s.Rows, Fraction: s.Fraction, Eps: s.Eps, Status: s.Status.String(),
			Outer: s.Outer, Evals: s.Evals, Passes: s.Passes, CorrectionPasses: s.CorrectionPasses, RestoreEvals: s.RestoreEvals, Objective: s.Objective, Infeasibility: s.Infeasibility, Seconds: s.Time.Seconds(), Oracle: oracleName(s.Oracle)})
	}
	return out
}

// resultOf builds the report of a solve of m with the settings s that took
// elapsed.
func resultOf(file string, m *check.Model, prob *solve.Problem, res *solve.Result, s solve.Settings, elapsed time.Duration) *Report {
	// report the settings actually used
	start := s.RhoHat
	if d, err := s.WithDefaults(prob); err == nil {
		s = d
	}
	if start == 0 {
		start = s.RhoHat
	}
	r := &Report{
		File:            file,
		Status:          res.Status.String(),
		Success:         res.Status.Success() && !(res.Infeasibility > s.Eps), // an interrupted phase 1 is not a success
		Objective:       res.Objective,
		Infeasibility:   res.Infeasibility,
		Constraints:     []ReportConstraint{},
		Variables:       point.Variables{Model: m, X: res.X, NonFinite: true},
		OuterIterations: res.Stats.Outer,
		InnerIterations: res.Stats.Inner,
		Phase1Outer:     res.Stats.Phase1Outer,
		RhoDoublings:    res.Stats.RhoDoublings,
		InnerDoublings:  res.Stats.InnerDoublings,
		Seconds:         elapsed.Seconds(),
		Settings: ReportSettings{
			RhoHat: res.RhoHat, Rho: res.Rho, RhoHatStart: start, Eps: s.Eps, EpsHat: s.EpsHat,
			Inner: max(res.Inner, s.Inner), InnerStart: s.Inner, Outer: s.Outer, TimeLimitSeconds: s.TimeLimit.Seconds(), Seed: s.Seed,
			Pick:   map[solve.Pick]string{solve.PickLast: "last", solve.PickRandom: "random"}[s.Pick],
			Oracle: oracleName(s.Oracle),
		},
		Polish: res.Stats.Polish, Polishes: res.Stats.Polishes,
		Stages: stagesOf(res.Stages),
	}
	if so, ok := s.Oracle.(*solve.StochasticOracle); ok {
		r.Settings.V, r.Settings.Alpha = so.Algorithm3(res.Inner)
		if sm, ok := prob.Sampler.(*problem.Sampler); ok {
			r.Settings.Batch = slices.Max(sm.Batches())
			r.Settings.MonitorRows = slices.Max(sm.MonitorRows())
		}
	}
	if c := res.Certificate; c != nil {
		r.Stationarity, r.Stationary = finite(c.Stationarity), c.Stationary
		r.XHatDistance, r.XHatBound, r.Gap = finite(c.Dist), finite(c.DistBound), finite(c.Gap)
		r.CertificateOracle, r.CertificateEvals, r.RhoProven = c.Oracle, c.Evals, c.Proven
		if name, ok := plan.FirstNonlinearEquality(m, prob.Kinds); ok {
			r.OutsideTheory = fmt.Sprintf("the equality constraint %q is not affine", name)
		}
		if k := c.KKT; k != nil {
			r.KKTResidual, r.KKTComplementarity, r.KKTTolerance = finite(k.Stationarity), finite(k.Complementarity), finite(s.Eps*k.Scale)
			r.KKTMultipliers = k.From
		}
		if r.Stationarity == nil && !c.Stationary {
			r.NoCertificate = "the oracle could not bound its distance to x_hat (no feasible point of (7) with a certified gap)"
		}
	} else if res.Status.Success() {
		r.NoCertificate = res.NoCertificate
	}
	if pr := res.Probe; pr != nil {
		r.Probe = &ReportProbe{Points: pr.Points, Directions: pr.Directions, Steps: slices.Clone(pr.Steps), Escapes: slices.Clone(pr.Escapes), Found: pr.Found}
		if r.Probe.Escapes == nil {
			r.Probe.Escapes = []int{}
		}
	}
	if res.Err != nil {
		r.Error = res.Err.Error()
	}
	for i, c := range m.Constraints {
		// F is empty when the solve stopped before its first evaluation
		// finished (a value that is not finite at the start)
		f := math.NaN()
		if i+1 < len(res.F) {
			f = res.F[i+1]
		}
		k := ReportConstraint{Name: c.Name, Op: c.Op, Value: f, RHS: c.ConstRHS(), Slack: 0 - f, Violation: math.Max(0, f)}
		if c.IsEquality() {
			k.Slack, k.Violation = 0-math.Abs(f), math.Abs(f)
		}
		if res.Certificate != nil && i < len(res.Certificate.Multipliers) {
			k.Multiplier = &res.Certificate.Multipliers[i]
		}
		r.Constraints = append(r.Constraints, k)
	}
	for _, i := range res.Violated {
		r.Violated = append(r.Violated, m.Constraints[i-1].Name)
	}
	if b := res.Best; b != nil {
		r.Best = &ReportPoint{b.Objective, b.Infeasibility, b.T}
	}
	if b := res.MostFeasible; b != nil {
		r.MostFeasible = &ReportPoint{b.Objective, b.Infeasibility, b.T}
	}
	return r
}

// TextOptions control WriteText.
type TextOptions struct {
	// NoTime leaves out the time, so that the text is the same on every
	// run (qrc repl does it for scripts).
	NoTime bool
	// Names, when not nil, renames what the text names of the library:
	// the options in the verdict (Options.Outer = 400) and the way to all
	// the values (Report.WriteJSON). qrc maps them to its flags.
	Names func(string) string
}

// name is s renamed by Names.
func (o TextOptions) name(s string) string {
	if o.Names == nil {
		return s
	}
	return o.Names(s)
}

// WriteText prints the report for people, as qrc solve does: the status,
// objective, infeasibility, certificate, iterations, a table of the
// constraints and the variables' values.
func (r *Report) WriteText(w io.Writer, opts TextOptions) {
	var m *check.Model
	if r.model != nil {
		m = r.model.checked
	}
	r.text(w, m, r.Variables.X, opts)
}

// WriteJSON writes the report as indented JSON, qrc solve --json's result;
// a number that is not finite is written as the string "NaN", "Infinity"
// or "-Infinity".
func (r *Report) WriteJSON(w io.Writer) error { return jsonenc.Write(w, r) }

// X is the returned point (NumVars values).
func (r *Report) X() []float64 { return r.Variables.X }

// Result is the solver's own result (package solve), with the constraint
// values F, the certificate's multipliers and the work counts.
func (r *Report) Result() *solve.Result { return r.result }

// text prints the result for people.
func (r *Report) text(w io.Writer, m *check.Model, x []float64, opts TextOptions) {
	fmt.Fprintf(w, "status         %s\n", r.Status)
	if r.Error != "" {
		fmt.Fprintf(w, "error          %s\n", r.Error)
	}
	fmt.Fprintf(w, "objective      %s\n", num(r.Objective))
	fmt.Fprintf(w, "infeasibility  %s\n", num(r.Infeasibility))
	switch {
	case r.Stationarity == nil && r.Stationary && r.KKTResidual != nil && r.KKTComplementarity != nil && r.KKTTolerance != nil:
		// certified by the KKT residual at x alone: the oracle found no
		// bound on ||x - x_hat||
		fmt.Fprintf(w, "stationarity   nearly stationary: KKT residual %s at x (measured with gradients and %s; complementarity %s; tolerance %s); no bound at x_hat (no feasible point of (7) with a certified gap)",
			num(*r.KKTResidual), r.kktFrom(), num(*r.KKTComplementarity), num(*r.KKTTolerance))
		if r.OutsideTheory != "" {
			fmt.Fprintf(w, "; outside the weakly convex theory (%s): a KKT point, a local solution at best", r.OutsideTheory)
		}
		fmt.Fprintln(w)
	case r.Stationarity != nil:
		verdict := "nearly stationary"
		if !r.Stationary {
			verdict = "not certified within eps"
			if r.Verdict != "" {
				verdict += " (see the verdict)"
			}
		}
		proof := "rho checked along the iterates"
		if r.RhoProven {
			proof = "rho proven by the analysis"
		}
		if r.OutsideTheory != "" {
			proof = "outside the weakly convex theory (" + r.OutsideTheory + "): the bound at x_hat proves nothing, the KKT residual at x alone certifies it as a KKT point, a local solution at best"
		}
		atX := ""
		if r.KKTResidual != nil && r.KKTComplementarity != nil && r.KKTTolerance != nil {
			atX = fmt.Sprintf("KKT residual %s at x (measured with gradients and %s; complementarity %s; tolerance %s); ",
				num(*r.KKTResidual), r.kktFrom(), num(*r.KKTComplementarity), num(*r.KKTTolerance))
		}
		fmt.Fprintf(w, "stationarity   %s: %sKKT residual <= %s at x_hat, ||x - x_hat|| = %s (+ %s); %s\n", verdict, atX, num(*r.Stationarity), num(*r.XHatDistance), num(*r.XHatBound), proof)
	case r.NoCertificate != "":
		fmt.Fprintf(w, "stationarity   not certified: %s\n", r.NoCertificate)
	}
	if p := r.Probe; p != nil {
		fmt.Fprintf(w, "probe          %s\n", p.text())
	}
	if len(r.Violated) > 0 {
		fmt.Fprintf(w, "violated       %s\n", strings.Join(r.Violated, ", "))
	}
	if r.Verdict != "" {
		fmt.Fprintf(w, "verdict        %s\n", opts.name(r.Verdict))
	}
	if r.Starts != nil {
		fmt.Fprintf(w, "starts         %s\n", r.Starts.text())
	}
	fmt.Fprintf(w, "iterations     %d outer (%d in phase 1), %d inner; rho_hat %s", r.OuterIterations, r.Phase1Outer, r.InnerIterations, num(r.Settings.RhoHat))
	if r.RhoDoublings > 0 {
		fmt.Fprintf(w, " after %d doubling(s)", r.RhoDoublings)
	}
	if r.InnerDoublings > 0 {
		fmt.Fprintf(w, "; inner doubled %d time(s) to reach stationarity", r.InnerDoublings)
	}
	if r.Polishes > 0 {
		fmt.Fprintf(w, "; SQP steps moved the iterates %d time(s)", r.Polishes)
	}
	if r.Polish > 0 {
		fmt.Fprintf(w, "; %d polish round(s) on all rows made the stochastic point feasible", r.Polish)
	}
	if r.Settings.Oracle != "" {
		fmt.Fprintf(w, "\noracle         %s", r.Settings.Oracle)
	}
	if r.Settings.Oracle == "stochastic" {
		fmt.Fprintf(w, " (batch %d, V %s, alpha %s); values below are on all rows", r.Settings.Batch, num(r.Settings.V), num(r.Settings.Alpha))
	}
	fmt.Fprintln(w)
	if !opts.NoTime {
		fmt.Fprintf(w, "time           %.3gs\n", r.Seconds)
	}
	if r.Penalty != nil {
		r.Penalty.text(w)
	}
	if len(r.Constraints) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "constraint\tf = lhs - rhs\trhs\tslack\tmultiplier")
		for _, c := range r.Constraints {
			rhs, mult, mark := "-", "-", ""
			if c.RHS != nil {
				rhs = num(*c.RHS)
			}
			if c.Multiplier != nil {
				mult = num(*c.Multiplier)
			}
			switch {
			case c.Violation > r.Settings.Eps:
				mark = "  VIOLATED"
			case c.Violation > 0 && c.Op != "==":
				// allowed: a result is feasible to eps (an equality is
				// always met to within its band, and is not marked)
				mark = "  violated within eps"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s\n", c.Name, num(c.Value), rhs, num(c.Slack), mult, mark)
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	if m == nil {
		return
	}
	for _, v := range m.Vars {
		xv := v.Of(x)
		switch {
		case v.Size == 1:
			fmt.Fprintf(w, "%s = %s\n", v.Name, num(xv[0]))
		case v.Shape.Rank() == 1 && v.Size <= 10:
			parts := make([]string, len(xv))
			for i, e := range xv {
				parts[i] = num(e)
			}
			fmt.Fprintf(w, "%s = [%s]\n", v.Name, strings.Join(parts, ", "))
		case v.Shape.Rank() == 2 && v.Shape[0] <= 10 && v.Shape[1] <= 10:
			printMatrix(w, v.Name, xv, v.Shape[1])
		default:
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, e := range xv {
				lo, hi = math.Min(lo, e), math.Max(hi, e)
			}
			fmt.Fprintf(w, "%s: %s, min %s, max %s, norm %s (all values: %s)\n", v.Name, v.Shape, num(lo), num(hi), num(floats.Norm(xv, 2)), opts.name("Report.WriteJSON"))
		}
	}
}

// printMatrix prints the matrix x (row-major, cols columns) in full, one
// row a line, each column right-aligned:
//
//	W = [[     1, -2.5],
//	     [0.0625,    3]]
func printMatrix(w io.Writer, name string, x []float64, cols int) {
	cells := make([]string, len(x))
	width := make([]int, cols)
	for i, e := range x {
		cells[i] = num(e)
		width[i%cols] = max(width[i%cols], len(cells[i]))
	}
	indent := strings.Repeat(" ", len(name)+4)
	for r := 0; r*cols < len(x); r++ {
		parts := make([]string, cols)
		for j := range cols {
			parts[j] = fmt.Sprintf("%*s", width[j], cells[r*cols+j])
		}
		lead, end := indent+"[", "],"
		if r == 0 {
			lead = name + " = [["
		}
		if (r+1)*cols == len(x) {
			end = "]]"
		}
		fmt.Fprintf(w, "%s%s%s\n", lead, strings.Join(parts, ", "), end)
	}
}

// PenaltyReport describes the penalty method's run in the JSON result.
type PenaltyReport struct {
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
func (r *Report) describeMethod(method string, s solve.Settings, rep *penalty.Report) {
	r.Method = method
	if rep == nil {
		return
	}
	ps, _ := penaltySettings(s).WithDefaults()
	r.Settings = ReportSettings{Eps: ps.Eps, Outer: ps.MaxIter, TimeLimitSeconds: ps.TimeLimit.Seconds(), Pick: "last"}
	r.Penalty = &PenaltyReport{Xi: ps.Xi, Tau: ps.Tau, PStart: ps.P0, P: rep.Penalty, Delta0: ps.Delta0, Delta: rep.Delta,
		Eta1: ps.Eta1, Eta2: ps.Eta2, Gamma1: ps.Gamma1, Gamma2: ps.Gamma2,
		Increases: rep.Increases, Rejected: rep.Rejected, Pivots: rep.Pivots, Stalled: rep.Stalled}
}

// text prints the penalty method's line of the text result.
func (p *PenaltyReport) text(w io.Writer) {
	fmt.Fprintf(w, "penalty        p = %s (%d increase(s) from %s), trust radius %s, %d step(s) rejected, %d LP pivots\n",
		num(p.P), p.Increases, num(p.PStart), num(p.Delta), p.Rejected, p.Pivots)
	if p.Stalled {
		fmt.Fprintln(w, "               stopped: the trust radius collapsed (the linear model does not predict the penalty function near x, e.g. at a kink)")
	}
}

// RestartReport is the "restarts" object of qrc solve's JSON result: what
// happened when phase 1 gave up from the start (docs/cli.md).
type RestartReport struct {
	// Phase1 is why phase 1 gave up from the given start: "stationary" (a
	// nearly stationary point of the violation) or "no_progress".
	Phase1 string  `json:"phase1"`
	Tried  int     `json:"tried"` // perturbed starts tried
	Used   int     `json:"used"`  // the one whose result is reported, 0 for the given start
	Scale  float64 `json:"scale"` // its perturbation scale
}

// phase1Reasons say why phase 1 gave up, for the verdict.
var phase1Reasons = map[solve.Phase1Stop]string{
	solve.Phase1Stationary: "phase 1 stopped at a stationary point of the violation",
	solve.Phase1NoProgress: "phase 1 stopped making progress on the violation",
}

// diagnose sets the verdict: a sentence a user can act on when the result
// is only locally infeasible, came from a restart, or ended on a limit
// while the iterates were still moving. restarts is --restarts.
func (r *Report) diagnose(d *solve.Diagnosis, res *solve.Result, s solve.Settings, restarts int) {
	defer r.limitVerdict(res, s)
	if d == nil {
		return
	}
	if d.Phase1 != solve.Phase1NotStopped {
		r.Restarts = &RestartReport{Phase1: map[solve.Phase1Stop]string{solve.Phase1Stationary: "stationary", solve.Phase1NoProgress: "no_progress"}[d.Phase1],
			Tried: d.Tried, Used: d.Restart, Scale: d.Scale}
	}
	reason := phase1Reasons[d.Phase1]
	switch {
	case res.Status == solve.Infeasible && res.InfeasibleProof != "":
		r.Verdict = "infeasible: " + res.InfeasibleProof + "; no start can change that: relax those constraints or widen the domains"
	case res.Status == solve.Infeasible && reason != "":
		r.Verdict = "locally infeasible: " + reason + "; the model may be feasible from another start (Options.Start)"
		if d.Tried > 0 {
			r.Verdict += fmt.Sprintf("; %d perturbed start(s) (Options.Restarts, Options.Seed = %d) found none either", d.Tried, r.Settings.Seed)
			if d.Restart > 0 {
				r.Verdict += fmt.Sprintf("; the point shown is from restart %d, the least infeasible", d.Restart)
			}
		} else if restarts == 0 {
			r.Verdict += "; no other start was tried (Options.Restarts = 0)"
		}
	case res.Status.Success() && d.Restart > 0:
		r.Verdict = fmt.Sprintf("%s from the given start; restart %d (a perturbed start, scale %s, Options.Seed = %d) found this feasible point",
			reason, d.Restart, num(d.Scale), r.Settings.Seed)
	case res.Status == solve.Unbounded:
		r.Verdict = fmt.Sprintf("unbounded: the objective fell to %s at a feasible point with ||x||_inf = %s; it has no minimum on the feasible set (or its scale is beyond double precision): bound the variables (a box) or check the model's signs",
			num(res.Objective), num(floats.Norm(res.X, math.Inf(1))))
	case res.Status == solve.Stalled && res.Probe != nil && res.Probe.Found:
		r.Verdict = fmt.Sprintf("stalled: the point passes the certificate of near stationarity, but a feasible point lower than it is near (the probe), after the solve had left %d such points already: it is no minimum. Try another start (Options.Start = point.Random) or a tighter Options.Eps",
			len(res.Probe.Escapes))
	case res.Status == solve.Stalled && res.NoProgress:
		r.Verdict = "stalled: the objective fell by less than eps/100 of its size over the last 100 outer steps, and the point is not certified nearly stationary within eps; its certificate is below. Try a looser Options.Eps, another start (Options.Start = point.Random), or Options.Outer to go on regardless"
	case res.Status == solve.Stalled:
		oracle := "accurate"
		if s.Oracle != nil {
			oracle = s.Oracle.String()
		}
		r.Verdict = fmt.Sprintf("stalled: the %s oracle could neither move this point nor certify it, even with 16 times its evaluation budget; its certificate is below. Try a looser Options.Eps, a larger Options.RhoHat (the model may be more nonconvex than assumed), or Options.Oracle = switching",
			oracle)
	case (res.Status == solve.IterationLimit || res.Status == solve.TimeLimit) && d.LastMoving:
		moving := fmt.Sprintf("the iterates were still moving (last step %s; max(1, rho_hat) * step = %s > eps = %s)",
			num(d.LastStep), num(math.Max(1, d.LastRhoHat)*d.LastStep), num(r.Settings.Eps))
		switch {
		case res.Stats.RhoDoublings >= 3 && inexact(s.Oracle):
			r.Verdict = fmt.Sprintf("stopped on the %s while %s, in short steps because the safeguard raised rho_hat from %s to %s (%d doublings); that happens when the subproblems are solved too loosely: raise Options.Inner (e.g. Options.Inner = %d)",
				limitName(res.Status, r), moving, num(r.Settings.RhoHatStart), num(r.Settings.RhoHat), res.Stats.RhoDoublings, 4*r.Settings.InnerStart)
		case res.Status == solve.TimeLimit:
			r.Verdict = fmt.Sprintf("stopped on the time limit while %s: raise Options.TimeLimit (e.g. Options.TimeLimit = %s)",
				moving, fmt.Sprint(4*s.TimeLimit))
		default:
			r.Verdict = fmt.Sprintf("stopped on the outer-iteration limit while %s: raise Options.Outer (e.g. Options.Outer = %d); more Options.Inner iterations (or a more accurate oracle) do not lengthen the steps",
				moving, 4*r.Settings.Outer)
		}
	}
}

// limitVerdict gives a time_limit or stalled result that diagnose left
// without a verdict (the iterates were not moving, or the method keeps no
// record of its steps, as the penalty method and some stage paths) one
// that says what the status means and what to raise: every such result
// has a verdict line.
func (r *Report) limitVerdict(res *solve.Result, s solve.Settings) {
	if r.Verdict != "" {
		return
	}
	raise := "raise Options.TimeLimit"
	if s.TimeLimit > 0 {
		raise += fmt.Sprintf(" (e.g. Options.TimeLimit = %s)", fmt.Sprint(4*s.TimeLimit))
	}
	switch {
	case res.Status == solve.TimeLimit && !r.Success:
		r.Verdict = "stopped on the time limit before any feasible point was found: the point shown is the least infeasible so far; " + raise
	case res.Status == solve.TimeLimit && !r.Stationary:
		r.Verdict = "stopped on the time limit at a feasible point that is not certified nearly stationary (its certificate is below); " + raise
	case res.Status == solve.TimeLimit:
		r.Verdict = "stopped on the time limit, at a point its certificate shows nearly stationary; " + raise + " for more outer steps"
	case res.Status == solve.Stalled:
		method := r.Method
		if method == "" {
			method = "solve"
		}
		r.Verdict = fmt.Sprintf("stalled: the %s method could not move the point further and it is not certified nearly stationary; its certificate, if any, is below. Try another start (Options.Start = point.Random) or a looser Options.Eps", method)
	}
}

// limitName names the limit a run stopped on.
func limitName(st solve.Status, r *Report) string {
	if st == solve.TimeLimit {
		return "time limit"
	}
	return fmt.Sprintf("outer-iteration limit (Options.Outer = %d)", r.Settings.Outer)
}

// oracleName is o's name, "" for none.
func oracleName(o solve.Oracle) string {
	if o == nil {
		return ""
	}
	return o.String()
}

// text describes the probe in one line of the report.
func (p *ReportProbe) text() string {
	var b strings.Builder
	if len(p.Escapes) > 0 {
		its := make([]string, len(p.Escapes))
		for i, t := range p.Escapes {
			its[i] = strconv.Itoa(t)
		}
		fmt.Fprintf(&b, "left %d certified point(s) that were no minimum (outer iterate(s) %s: a saddle, a maximum or a flat region; a feasible lower point was near); ", len(p.Escapes), strings.Join(its, ", "))
	}
	if len(p.Steps) == 0 {
		return strings.TrimSuffix(b.String(), "; ")
	}
	if p.Found {
		fmt.Fprintf(&b, "a feasible point lower than x among %d points around it (along %d directions both ways at steps %s..%s): x is no minimum",
			p.Points, p.Directions, num(p.Steps[0]), num(p.Steps[len(p.Steps)-1]))
		return b.String()
	}
	fmt.Fprintf(&b, "no feasible point lower than x among %d points around it along %d directions both ways at steps %s..%s (evidence of a local minimum, not a proof)",
		p.Points, p.Directions, num(p.Steps[0]), num(p.Steps[len(p.Steps)-1]))
	return b.String()
}

// kktFrom names the multipliers of the KKT check at x.
func (r *Report) kktFrom() string {
	if r.KKTMultipliers == "" {
		return "the multipliers of (7)"
	}
	return r.KKTMultipliers
}

// inexact reports whether o is one of the paper's inexact oracles
// (Algorithms 2 and 3), whose steps shorten when the safeguard raises
// RhoHat on subproblems solved too loosely.
func inexact(o solve.Oracle) bool {
	switch o.(type) {
	case *solve.SwitchingOracle, *solve.StochasticOracle:
		return true
	}
	return false
}
