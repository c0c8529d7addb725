package qrc

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/qrc-lang/qrc/point"
)

// MaxStarts bounds Options.Starts: each start holds the model's run state
// and a solve's working memory.
const MaxStarts = 1024

// StartsReport is what a solve from several starts (Options.Starts) found:
// every start's outcome, and the distinct local solutions among them.
type StartsReport struct {
	// Starts are the outcomes in the order of the starts: the given one
	// first, then random points of the domain (point.Random seeded by
	// Options.Seed + k).
	Starts []StartOutcome `json:"starts"`
	// Returned is the index of the start whose result is the report's.
	Returned int `json:"returned"`
	// Solutions are the distinct feasible points the starts ended at (two
	// are the same when their objectives agree to Eps relative and their
	// points to max(1e-4, sqrt(Eps)) relative in the max norm), the lowest
	// objective first, each with how many starts reached it.
	Solutions []LocalSolution `json:"solutions"`
}

// StartOutcome is how the solve from one start ended.
type StartOutcome struct {
	Status        string  `json:"status"`
	Objective     float64 `json:"objective"`
	Infeasibility float64 `json:"infeasibility"`
	Stationary    bool    `json:"stationary"`
	Error         string  `json:"error,omitempty"`
}

// LocalSolution is a distinct feasible point that starts ended at.
type LocalSolution struct {
	Objective float64 `json:"objective"`
	Starts    int     `json:"starts"`
	x         []float64
}

// solveStarts solves m from c.opts.Starts starts at once, each on run
// state of its own (Model is safe for concurrent use), at most GOMAXPROCS
// at a time, within one time limit (or ctx's deadline) for them all, and
// returns the best report: among the starts that end feasible with a
// status that claims a point, the converged ones first, then the lowest
// objective; else the most feasible. The caller's recorders and notes
// follow the first start (the given one); the others run quietly.
func (m *Model) solveStarts(ctx context.Context, c *solveConfig, x0 []float64) (*Report, error) {
	n := c.opts.Starts
	if c.opts.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.TimeLimit)
		defer cancel()
	}
	began := time.Now()
	starts := make([][]float64, n)
	starts[0] = x0
	for k := 1; k < n; k++ {
		starts[k] = point.Random(m.checked, c.opts.Seed+uint64(k))
	}
	reps := make([]*Report, n)
	errs := make([]error, n)
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			opts := c.opts
			opts.Starts, opts.Start = 1, starts[k]
			if opts.TimeLimit > 0 {
				opts.TimeLimit = max(opts.TimeLimit-time.Since(began), time.Millisecond)
			}
			so := []SolveOption{WithOptions(opts)}
			if k == 0 {
				for _, r := range c.recorders {
					so = append(so, WithRecorder(r))
				}
				so = append(so, WithNotes(c.notes))
			}
			reps[k], errs[k] = m.Solve(ctx, so...)
		}()
	}
	wg.Wait()
	if errs[0] != nil {
		return nil, errs[0] // the model or the options are refused: every start's error
	}
	sr := &StartsReport{}
	best := -1
	for k, r := range reps {
		if errs[k] != nil {
			sr.Starts = append(sr.Starts, StartOutcome{Status: "error", Objective: math.NaN(), Infeasibility: math.NaN(), Error: errs[k].Error()})
			continue
		}
		sr.Starts = append(sr.Starts, StartOutcome{Status: r.Status, Objective: r.Objective, Infeasibility: r.Infeasibility, Stationary: r.Stationary})
		if r.Success {
			sr.addSolution(r.Objective, r.X(), r.Settings.Eps)
		}
		if best < 0 || better(r, reps[best]) {
			best = k
		}
	}
	slices.SortStableFunc(sr.Solutions, func(a, b LocalSolution) int { return cmpFloat(a.Objective, b.Objective) })
	sr.Returned = best
	rep := reps[best]
	rep.Starts = sr
	return rep, nil
}

// better reports whether report a is a better answer than b: a feasible
// point (Success) before an infeasible one, a converged one before one that
// is not, then the lower objective; among infeasible ones the lower
// infeasibility.
func better(a, b *Report) bool {
	if a.Success != b.Success {
		return a.Success
	}
	if !a.Success {
		return a.Infeasibility < b.Infeasibility
	}
	ac, bc := a.Status == "converged", b.Status == "converged"
	if ac != bc {
		return ac
	}
	return a.Objective < b.Objective
}

// addSolution counts the feasible point x with objective f among the
// distinct solutions.
func (sr *StartsReport) addSolution(f float64, x []float64, eps float64) {
	for i := range sr.Solutions {
		s := &sr.Solutions[i]
		if math.Abs(s.Objective-f) <= eps*(1+math.Abs(f)) && sameX(s.x, x, max(1e-4, math.Sqrt(eps))) {
			s.Starts++
			return
		}
	}
	sr.Solutions = append(sr.Solutions, LocalSolution{Objective: f, Starts: 1, x: slices.Clone(x)})
}

// sameX reports whether a and b agree to tol relative in the max norm.
func sameX(a, b []float64, tol float64) bool {
	scale, d := 1.0, 0.0
	for j := range a {
		scale = math.Max(scale, math.Max(math.Abs(a[j]), math.Abs(b[j])))
		d = math.Max(d, math.Abs(a[j]-b[j]))
	}
	return d <= tol*scale
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// text is the starts' line of the text report.
func (sr *StartsReport) text() string {
	var parts []string
	for _, s := range sr.Solutions {
		parts = append(parts, fmt.Sprintf("%s (%d)", num(s.Objective), s.Starts))
	}
	sol := "no feasible point"
	if len(parts) > 0 {
		sol = fmt.Sprintf("%d distinct local solution(s), objective (starts): %s", len(parts), strings.Join(parts, ", "))
	}
	return fmt.Sprintf("%d solved in parallel, the given one first, then random points of the domain; %s; returned: start %d", len(sr.Starts), sol, sr.Returned+1)
}
