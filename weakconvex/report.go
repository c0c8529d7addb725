package weakconvex

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"strings"

	"github.com/qrc-lang/qrc/check"
)

// NodeStat is what the analysis found at one subexpression, over every
// index assignment it was analysed at (every data row of a mean, say).
type NodeStat struct {
	Rule   string   // the rule applied: "one-variable", "composition", "sum", ...
	Count  int      // the assignments it was analysed at
	Val    Interval // the union of its ranges
	Rho    float64  // the largest weak-convexity modulus (+Inf: not provably weakly convex)
	M      float64  // the largest subgradient-norm bound
	Smooth bool     // smooth at every assignment
	Why    *Refusal // the first refusal, if any
	arg    check.Expr
}

func (a *analyzer) record(e check.Expr, v value, rule string) {
	st := a.stats[e]
	if st == nil {
		st = &NodeStat{Rule: rule, Val: Interval{math.Inf(1), math.Inf(-1)}, Smooth: true}
		a.stats[e] = st
	}
	// The exact (eigenvalue) bound at a data mean costs a matrix
	// factorization; past a few instances of the same mean (a mean inside
	// a sum over many indices) the trace bound is shown instead.
	c, isData := e.(*check.Compr)
	exact := isData && c.Data != nil && st.Count < 8
	st.Count++
	for _, f := range v.el {
		st.Val = union(st.Val, f.val)
		rho := rhoOf(f.lo.scalar(exact))
		st.Rho = math.Max(st.Rho, rho)
		st.M = math.Max(st.M, f.g)
		st.Smooth = st.Smooth && f.smooth
		if st.Why == nil && math.IsInf(f.lo.s, -1) {
			st.Why = f.why
		}
	}
}

// rhoOf is the modulus of a lower curvature bound s: 0 when s >= 0 (a
// convex function has rho exactly 0, not a rounding's 1e-300).
func rhoOf(s float64) float64 {
	if s >= 0 {
		return 0
	}
	return up(-s)
}

// Function is the verdict on one function of the model.
type Function struct {
	Name string     // "objective" or the constraint's name (cap[2])
	Expr check.Expr // the function (for a constraint F = lhs - rhs, F <= 0)
	// Weak reports that the function is provably rho-weakly convex on X
	// with rho <= Rho and subgradients bounded by M (+Inf when X or a
	// slope is unbounded); Why says otherwise where and why.
	Weak   bool
	Rho, M float64
	Smooth bool     // continuously differentiable on X
	Range  Interval // the function's values on X
	Why    *Refusal
	// Equality marks a constraint F = 0 (lhs == rhs): it is F <= 0 and
	// -F <= 0, so Weak needs both F and -F weakly convex, and Rho bounds
	// both (the upper curvature bound of F is the lower one of -F).
	Equality bool
}

// Verdict is the one-line verdict: "weakly convex: rho <= 3.2, M <= 41,
// smooth" or "not provably weakly convex: model.qrc:3:5: -abs(z): ...".
func (f *Function) Verdict() string {
	if !f.Weak {
		if f.Why == nil {
			return "not provably weakly convex"
		}
		return "not provably weakly convex: " + f.Why.String()
	}
	return weakText(f.Rho, f.M, f.Smooth)
}

func weakText(rho, m float64, smooth bool) string {
	s := "weakly convex: rho <= " + bound(rho) + ", M <= " + bound(m)
	if smooth {
		return s + ", smooth"
	}
	return s + ", nonsmooth"
}

// bound formats an upper bound with 2 significant digits, rounded up
// (a value within a relative 1e-9 above a round number shows as that
// number, so that the rounding outward of the intervals does not show).
func bound(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case v == 0:
		return "0"
	}
	e := math.Floor(math.Log10(math.Abs(v))) - 1
	p := math.Pow(10, e)
	r := math.Ceil(v*(1-1e-9)/p) * p // within 1e-9 of a round number: that number
	if e < -6 || e > 8 {
		return fmt.Sprintf("%.2g", r)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.*f", max(0, int(-e)), r), ".")
}

// Report is the analysis of a model.
type Report struct {
	Functions []*Function
	// Weak reports that every function is provably weakly convex; Rho, M
	// and Smooth then hold for all of them (the paper's one rho and M).
	Weak   bool
	Rho, M float64
	Smooth bool
	// D is the diameter of X (+Inf when it is not bounded).
	D float64
	// Err is set when the analysis could not run (a model too large to
	// expand); every function is then "not analysed".
	Err   error
	stats map[check.Expr]*NodeStat
}

// Verdict is the overall verdict line.
func (r *Report) Verdict() string {
	switch {
	case r.Err != nil:
		return "not analysed: " + r.Err.Error()
	case !r.Weak:
		for _, f := range r.Functions {
			if !f.Weak {
				return fmt.Sprintf("not provably weakly convex (%s is not)", f.Name)
			}
		}
	}
	return weakText(r.Rho, r.M, r.Smooth)
}

// Stat returns what the analysis found at e, or nil if it did not reach e
// (a constant, or a part a rule covered whole).
func (r *Report) Stat(e check.Expr) *NodeStat { return r.stats[e] }

// Analyze analyses every function of m.
func Analyze(m *check.Model) *Report { return AnalyzeContext(context.Background(), m) }

// AnalyzeContext is Analyze that gives up when ctx ends (the analysis of a
// model over many data rows takes seconds): the report's Err is then
// ctx's error.
//
// On data of leanBytes or more it runs with the garbage collector's GOGC
// at leanPercent (unless it is lower already), restored when it returns:
// the analysis expands every data row into short-lived values, and at the
// default GOGC of 100 the heap grows to twice the data before a
// collection (examples/adult.qrc on Adult replicated 30 times: 1.93 GB
// resident against 1.25 GB, in the same time).
func AnalyzeContext(ctx context.Context, m *check.Model) *Report {
	if m.DataBytes() >= leanBytes {
		defer lean()()
	}
	a := &analyzer{m: m, sp: newSpace(m), stats: map[check.Expr]*NodeStat{}, uni: map[check.Expr]uniInfo{},
		aff: map[check.Expr]bool{}, memo: map[memoKey]jetSum{}, fixed: map[check.Expr]value{}, done: ctx.Done()}
	r := &Report{D: Diameter(m), stats: a.stats, Weak: true, Smooth: true}
	var fs []*Function
	if m.Objective != nil {
		fs = append(fs, &Function{Name: "objective", Expr: m.Objective.Expr})
	}
	for _, c := range m.Constraints {
		fs = append(fs, &Function{Name: c.Name, Expr: c.F, Equality: c.IsEquality()})
	}
	for _, f := range fs {
		a.rowsTotal += dataRows(f.Expr)
	}
	for _, f := range fs {
		if err := a.function(f); err != nil {
			r.Err = err
			r.Weak = false
			break
		}
		r.Functions = append(r.Functions, f)
		r.Weak = r.Weak && f.Weak
		r.Smooth = r.Smooth && f.Smooth
		r.Rho = math.Max(r.Rho, f.Rho)
		r.M = math.Max(r.M, f.M)
	}
	if r.Err != nil {
		r.Functions = nil
	}
	return r
}

func (a *analyzer) function(f *Function) error {
	v, err := a.expr(f.Expr, env{})
	if err != nil {
		return err
	}
	el := v.at(0)
	f.Range = el.val
	f.M = el.g
	f.Smooth = el.smooth
	if math.IsInf(el.lo.s, -1) {
		f.Rho, f.M, f.Why = math.Inf(1), math.Inf(1), el.why
		if f.Why == nil {
			f.Why = a.refuse(f.Expr, "no rule bounds its curvature from below")
		}
		return nil
	}
	if f.Equality && math.IsInf(el.hi.s, 1) {
		f.Rho, f.M = math.Inf(1), math.Inf(1)
		f.Why = a.refuse(f.Expr, "an equality h = 0 is h <= 0 and -h <= 0, so -h must be weakly convex too, but h has a convex kink or unbounded upward curvature (no rule bounds -h's curvature from below)")
		return nil
	}
	f.Weak = true
	st := a.stats[f.Expr]
	if c, ok := f.Expr.(*check.Compr); ok && c.Data != nil && st != nil && st.Count == 1 {
		f.Rho = st.Rho // record computed the exact bound already
	} else {
		f.Rho = rhoOf(el.lo.scalar(true))
	}
	if f.Equality {
		f.Rho = math.Max(f.Rho, rhoOf(-el.hi.upperScalar(true)))
	}
	if st != nil {
		st.Rho = f.Rho
	}
	return nil
}

// Function returns the verdict on the function called name, or nil.
func (r *Report) Function(name string) *Function {
	for _, f := range r.Functions {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Explain writes the derivation tree of the function called name: every
// subexpression the analysis reached, with the rule applied and its
// bounds (the union over the index assignments it was reached at).
func (r *Report) Explain(w io.Writer, name string) error {
	f := r.Function(name)
	if f == nil {
		names := make([]string, len(r.Functions))
		for i, f := range r.Functions {
			names[i] = f.Name
		}
		// a bounded list: a model may have thousands of constraints
		const shown = 20
		list := strings.Join(names[:min(len(names), shown)], ", ")
		if len(names) > shown {
			list += fmt.Sprintf(", ... (%d in all)", len(names))
		}
		q := fmt.Sprintf("%q", name)
		if len(q) > 66 {
			q = q[:62] + `..."`
		}
		return fmt.Errorf("no function %s; the model's functions are %s", q, list)
	}
	fmt.Fprintf(w, "%s: %s\n", f.Name, f.Verdict())
	r.explain(w, f.Expr, 1)
	return nil
}

func (r *Report) explain(w io.Writer, e check.Expr, depth int) {
	st := r.stats[e]
	if st == nil {
		return
	}
	text := srcText(e)
	if len(text) > 60 {
		text = text[:57] + "..."
	}
	ind := strings.Repeat("  ", depth)
	fmt.Fprintf(w, "%s%s  [%s, at %d point(s)]  %s\n", ind, text, st.Rule, st.Count, statText(st))
	if st.Why != nil && st.Why.Pos == e.Src().Pos() && st.Why.Text == text {
		fmt.Fprintf(w, "%s  refused: %s\n", ind, st.Why.Reason)
	}
	if st.arg != nil {
		fmt.Fprintf(w, "%s  one variable u = %s: bounds of phi' and phi'' over u's range by second-order interval arithmetic\n", ind, srcText(st.arg))
		r.explain(w, st.arg, depth+1)
		return
	}
	for _, c := range children(e) {
		r.explain(w, c, depth+1)
	}
}

func statText(st *NodeStat) string {
	if math.IsInf(st.Rho, 1) {
		return "range " + st.Val.String() + ", not provably weakly convex"
	}
	s := fmt.Sprintf("range %s, rho <= %s, M <= %s", st.Val, bound(st.Rho), bound(st.M))
	if st.Smooth {
		return s + ", smooth"
	}
	return s
}

func children(e check.Expr) []check.Expr {
	switch e := e.(type) {
	case *check.Index:
		return []check.Expr{e.X}
	case *check.Neg:
		return []check.Expr{e.X}
	case *check.Arith:
		return []check.Expr{e.X, e.Y}
	case *check.Call:
		return e.Args
	case *check.Compr:
		return []check.Expr{e.Body}
	case *check.If: // the sides of its comparisons, when the ranges were asked, then its branches
		return append(condSides(e.Cond), e.Then, e.Else)
	case *check.Stack:
		return e.Elems
	}
	return nil
}

// condSides returns the sides of the comparisons in condition c.
func condSides(c check.Expr) []check.Expr {
	switch c := c.(type) {
	case *check.Compare:
		return []check.Expr{c.X, c.Y}
	case *check.Logic:
		out := condSides(c.X)
		if c.Y != nil {
			out = append(out, condSides(c.Y)...)
		}
		return out
	}
	return nil
}

// JSON is the analysis as qrc check --json reports it (docs/cli.md); an
// unbounded number is null.
type JSON struct {
	Weak      bool           `json:"weak"`
	Verdict   string         `json:"verdict"`
	Rho       *float64       `json:"rho"`
	M         *float64       `json:"m"`
	Smooth    bool           `json:"smooth"`
	Diameter  *float64       `json:"diameter"`
	Error     string         `json:"error,omitempty"`
	Functions []FunctionJSON `json:"functions"`
}

// FunctionJSON is one function's verdict in JSON.
type FunctionJSON struct {
	Name    string       `json:"name"`
	Weak    bool         `json:"weak"`
	Verdict string       `json:"verdict"`
	Rho     *float64     `json:"rho"`
	M       *float64     `json:"m"`
	Smooth  bool         `json:"smooth"`
	Range   [2]*float64  `json:"range"`
	Refused *RefusalJSON `json:"refused,omitempty"`
}

// RefusalJSON is a refusal in JSON.
type RefusalJSON struct {
	Pos    string `json:"pos"`
	Expr   string `json:"expr"`
	Reason string `json:"reason"`
}

func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

// JSON returns the report in its JSON form.
func (r *Report) JSON() *JSON {
	out := &JSON{Weak: r.Weak, Verdict: r.Verdict(), Smooth: r.Smooth, Diameter: finite(r.D), Functions: []FunctionJSON{}}
	if r.Err != nil {
		out.Error = r.Err.Error()
		return out
	}
	if r.Weak {
		out.Rho, out.M = finite(r.Rho), finite(r.M)
	}
	for _, f := range r.Functions {
		j := FunctionJSON{Name: f.Name, Weak: f.Weak, Verdict: f.Verdict(), Smooth: f.Smooth, Range: [2]*float64{finite(f.Range.Lo), finite(f.Range.Hi)}}
		if f.Weak {
			j.Rho, j.M = finite(f.Rho), finite(f.M)
		}
		if f.Why != nil {
			j.Refused = &RefusalJSON{Pos: f.Why.Pos.String(), Expr: f.Why.Text, Reason: f.Why.Reason}
		}
		out.Functions = append(out.Functions, j)
	}
	return out
}

// Text writes the verdict per function and overall, one line each.
func (r *Report) Text(w io.Writer) {
	fmt.Fprintf(w, "\nweak convexity (docs/analysis.md)\n")
	if r.Err != nil {
		fmt.Fprintf(w, "  not analysed: %v\n", r.Err)
		return
	}
	width := len("overall")
	for _, f := range r.Functions {
		width = max(width, len(f.Name))
	}
	for _, f := range r.Functions {
		fmt.Fprintf(w, "  %-*s  %s\n", width, f.Name, f.Verdict())
	}
	fmt.Fprintf(w, "  %-*s  %s; X has diameter D <= %s\n", width, "overall", r.Verdict(), bound(r.D))
}

// The analysis's garbage collection on large data (AnalyzeContext).
const (
	leanBytes   = 256 << 20
	leanPercent = 25
)

// lean sets GOGC to leanPercent unless it is lower or off, and returns the
// function that restores it.
func lean() (restore func()) {
	old := debug.SetGCPercent(leanPercent)
	if old <= leanPercent { // lower, or off (-1)
		debug.SetGCPercent(old)
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}
