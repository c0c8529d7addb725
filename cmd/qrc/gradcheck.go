package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/gradcheck"
	"github.com/qrc-lang/qrc/limits"
	"github.com/qrc-lang/qrc/point"
)

var gradcheckCommand = &command{
	name:    "gradcheck",
	summary: "compare a model's subgradients with finite differences",
	usage: `Usage: qrc gradcheck [flags] MODEL.qrc

Gradcheck checks and compiles a model and compares, for the objective and
every expanded constraint, the subgradient the compiler computes with
central finite differences, at the starting point and at random points of
the variables' domains. The step for coordinate j is 1e-6 * max(1, |x_j|);
the error at a point is ||g_ad - g_fd||_inf / max(1, ||g_fd||_inf).

A coordinate where the forward and backward differences disagree even with
steps 10 and 100 times smaller is a kink (the function is not differentiable
there): it is left out and reported as "nonsmooth at this point", never as a
failure. A point where a function cannot be evaluated is reported and not
checked. See docs/cli.md for the exact rules.

Exit status: 0 when every function passes at every point it was checked; 1
when some error exceeds the tolerance, a function could not be checked at
any point, or the model has errors; 2 for a bad command line.

Flags:
  --points N         random points besides the start (default 3)
  --seed S           seed of the random points (default 1); the same seed
                     gives the same points
  --tol T            tolerance on the relative error (default 1e-4)
  --json             print the report as one JSON object on standard output;
                     see docs/cli.md for its fields
` + modelFlagsUsage,
}

func init() { gradcheckCommand.run = runGradcheck }

// gradcheckResult is what qrc gradcheck --json prints.
type gradcheckResult struct {
	File      string          `json:"file"`
	Tolerance float64         `json:"tolerance"`
	Step      float64         `json:"step"`
	Seed      uint64          `json:"seed"`
	Points    []string        `json:"points"`
	Functions []gradcheckFunc `json:"functions"`
	Pass      bool            `json:"pass"`
}

type gradcheckFunc struct {
	Name       string           `json:"name"`
	WorstError *float64         `json:"worst_error"` // null when no point was checked
	WorstPoint string           `json:"worst_point"` // "" when no point was checked
	Checked    int              `json:"checked_points"`
	Pass       bool             `json:"pass"` // checked somewhere and never failed
	Points     []gradcheckPoint `json:"points"`
}

type gradcheckPoint struct {
	Point       string  `json:"point"`
	Checked     bool    `json:"checked"`
	Error       float64 `json:"error"`
	Coordinate  string  `json:"coordinate"` // where |g_ad - g_fd| is largest
	Autodiff    float64 `json:"autodiff"`
	FiniteDiff  float64 `json:"finite_difference"`
	Compared    int     `json:"compared"`
	Kinks       int     `json:"kinks"`
	Unevaluable int     `json:"unevaluable"`
	Pass        bool    `json:"pass"`
	Message     string  `json:"message"` // why the point was not checked
}

func runGradcheck(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("gradcheck", gradcheckCommand.usage, stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	npoints := fs.Int("points", 3, "random points besides the start")
	seed := fs.Uint64("seed", 1, "seed of the random points")
	tol := fs.Float64("tol", gradcheck.DefaultTol, "tolerance on the relative error")
	var mf modelFlags
	mf.register(fs)
	file, ok := modelFile(fs, "gradcheck", args, stderr)
	if !ok {
		return exitUsage
	}
	if *npoints < 0 || *npoints > limits.MaxGradcheckPoints {
		fmt.Fprintf(stderr, "qrc gradcheck: --points must be between 0 and %d (limits.MaxGradcheckPoints), got %d\n", limits.MaxGradcheckPoints, *npoints)
		return exitUsage
	}
	if !(*tol > 0) {
		fmt.Fprintf(stderr, "qrc gradcheck: --tol must be positive, got %v\n", *tol)
		return exitUsage
	}
	m, _, prog, ok := loadProgram("gradcheck", file, &mf, !*asJSON, stderr)
	if !ok {
		return exitInvalid
	}
	fns := prog.Functions()
	if _, ok := limits.Mul(*npoints+1, max(m.NumScalars, 1), limits.MaxElements); !ok {
		fmt.Fprintf(stderr, "qrc gradcheck: --points %d: %d points of %d scalars are more than the %d values qrc holds at once (limits.MaxElements); use fewer points\n",
			*npoints, *npoints+1, m.NumScalars, limits.MaxElements)
		return exitUsage
	}
	points := gradcheck.Points(m, *npoints, *seed)
	rep, err := gradcheck.Check(prog, len(fns), points, gradcheck.Options{Tol: *tol})
	if err != nil {
		fmt.Fprintf(stderr, "qrc gradcheck: %v\n", err)
		return exitInvalid
	}

	res := gradcheckResult{File: file, Tolerance: rep.Tol, Step: rep.Step, Seed: *seed, Pass: true}
	for _, p := range points {
		res.Points = append(res.Points, p.Label)
	}
	for i, f := range rep.Functions {
		if i == 0 && m.Objective == nil {
			continue // a feasibility problem: f0 is identically zero
		}
		d := describeFunc(m, fns[i].Name, &f, points)
		res.Pass = res.Pass && d.Pass
		res.Functions = append(res.Functions, d)
	}
	if *asJSON {
		if err := writeJSON(stdout, res); err != nil {
			fmt.Fprintf(stderr, "qrc gradcheck: %v\n", err)
			return exitInvalid
		}
	} else {
		res.text(stdout)
	}
	if !res.Pass {
		return exitInvalid
	}
	return exitOK
}

func describeFunc(m *check.Model, name string, f *gradcheck.Function, points []gradcheck.Point) gradcheckFunc {
	out := gradcheckFunc{Name: name, Checked: f.CheckedPoints(), Points: []gradcheckPoint{}}
	out.Pass = !f.Failed && out.Checked > 0
	if f.Worst >= 0 {
		e := f.WorstError()
		out.WorstError = &e
		out.WorstPoint = points[f.Worst].Label
	}
	for _, r := range f.Results {
		p := gradcheckPoint{Point: points[r.Point].Label, Checked: r.Checked(), Pass: !r.Failed}
		if r.Err != nil {
			p.Message = r.Err.Error()
		} else {
			p.Error = r.RelErr
			if r.Coord >= 0 {
				p.Coordinate = point.Coordinate(m, r.Coord)
				p.Autodiff, p.FiniteDiff = r.AD, r.FD
			}
			p.Compared, p.Kinks, p.Unevaluable = r.Compared, len(r.Kinks), len(r.Unevaluable)
		}
		out.Points = append(out.Points, p)
	}
	return out
}

// text prints the report: a table of the worst error per function, then a
// note for every point that failed, was nonsmooth or was not checked.
func (r *gradcheckResult) text(w io.Writer) {
	fmt.Fprintf(w, "%s: %d function%s at %d point%s (start + %d random, seed %d), tolerance %s\n\n",
		r.File, len(r.Functions), plural(len(r.Functions)), len(r.Points), plural(len(r.Points)), len(r.Points)-1, r.Seed, num(r.Tolerance))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "function\tworst error\tat\tresult")
	failed, unchecked := 0, 0
	for _, f := range r.Functions {
		worst, at, result := "-", "-", "ok"
		switch {
		case f.Checked == 0:
			result = "not checked at any point"
			unchecked++
		case !f.Pass:
			result = "FAIL"
			failed++
		}
		if f.WorstError != nil {
			worst, at = strconv.FormatFloat(*f.WorstError, 'e', 1, 64), f.WorstPoint
		}
		var notes []string
		if n := countPoints(f, func(p gradcheckPoint) bool { return p.Kinks > 0 }); n > 0 {
			notes = append(notes, fmt.Sprintf("nonsmooth at %d point%s", n, plural(n)))
		}
		if n := len(f.Points) - f.Checked; n > 0 && f.Checked > 0 {
			notes = append(notes, fmt.Sprintf("%d point%s not checked", n, plural(n)))
		}
		if len(notes) > 0 {
			result += " (" + strings.Join(notes, ", ") + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, worst, at, result)
	}
	tw.Flush()

	var notes []string
	for k, label := range r.Points {
		// A point where the program cannot evaluate at all is one note.
		if msg, ok := samePointError(r.Functions, k); ok {
			notes = append(notes, fmt.Sprintf("at %s: nothing checked: %s", label, msg))
			continue
		}
		for _, f := range r.Functions {
			p := f.Points[k]
			where := f.Name + " at " + label
			switch {
			case !p.Checked:
				notes = append(notes, fmt.Sprintf("%s: not checked: %s", where, p.Message))
				continue
			case !p.Pass:
				notes = append(notes, fmt.Sprintf("%s: FAIL: error %s > %s, largest at %s: autodiff %s, finite differences %s",
					where, strconv.FormatFloat(p.Error, 'e', 2, 64), num(r.Tolerance), p.Coordinate, num(p.Autodiff), num(p.FiniteDiff)))
			}
			if p.Kinks > 0 {
				notes = append(notes, fmt.Sprintf("%s: nonsmooth at this point (%d coordinate%s skipped)", where, p.Kinks, plural(p.Kinks)))
			}
			if p.Unevaluable > 0 {
				notes = append(notes, fmt.Sprintf("%s: %d coordinate%s skipped: cannot evaluate at x ± h", where, p.Unevaluable, plural(p.Unevaluable)))
			}
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
	}
	fmt.Fprintln(w)
	n := len(r.Functions)
	switch {
	case failed == 0 && unchecked == 0:
		fmt.Fprintf(w, "all %d function%s pass\n", n, plural(n))
	case unchecked == 0:
		fmt.Fprintf(w, "%d of %d function%s fail\n", failed, n, plural(n))
	default:
		fmt.Fprintf(w, "%d of %d function%s fail, %d not checked at any point\n", failed, n, plural(n), unchecked)
	}
}

// samePointError reports whether no function was checked at point k for
// one and the same reason (the program could not evaluate there), and
// returns it.
func samePointError(fns []gradcheckFunc, k int) (string, bool) {
	if len(fns) == 0 {
		return "", false
	}
	msg := fns[0].Points[k].Message
	for _, f := range fns {
		if f.Points[k].Checked || f.Points[k].Message != msg {
			return "", false
		}
	}
	return msg, true
}

func countPoints(f gradcheckFunc, pred func(gradcheckPoint) bool) int {
	n := 0
	for _, p := range f.Points {
		if pred(p) {
			n++
		}
	}
	return n
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
