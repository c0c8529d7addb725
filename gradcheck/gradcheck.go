// Package gradcheck compares the subgradients a program computes (by
// automatic differentiation) with central finite differences of its values,
// function by function and point by point, and tells kinks — points where a
// function is not differentiable along a coordinate — from wrong gradients.
//
// # Method
//
// For each point x and each coordinate j, with the step
//
//	h_j = Step * max(1, |x_j|)        (Step = 1e-6 by default)
//
// all functions are evaluated at x + h_j e_j and x - h_j e_j (one Eval gives
// every function's value), and for each function f
//
//	D+ = (f(x + h e_j) - f(x)) / h     forward difference
//	D- = (f(x) - f(x - h e_j)) / h     backward difference
//	C  = (f(x + h e_j) - f(x - h e_j)) / 2h   central difference
//
// (with h the step actually taken after rounding x_j ± h_j). Where f is
// smooth, D+ and D- differ by about h times f's second derivative (plus
// rounding noise); across a kink they differ by the jump in slope, whatever h
// is. The coordinate is smooth for f when
//
//	|D+ - D-| <= Tol * max(1, |D+|, |D-|) + 16 * eps * max|f| / h
//
// (eps the float64 machine epsilon, max|f| over the three values; the last
// term is the rounding noise of the differences). Otherwise the coordinate is
// tried again with h/10 and then h/100, which separates a kink near x (it
// leaves the smaller interval, or its jump stays) from strong curvature (the
// gap shrinks with h); if the gap is still too large at h/100, the coordinate
// is a kink of f at x: it is left out of the comparison and counted. A kink
// is never a failure. Below the threshold, a kink inside the interval moves C
// by at most half the gap, so it cannot make a correct subgradient fail.
//
// The error of function f at x is
//
//	||g_ad - g_fd||_inf / max(1, ||g_fd||_inf)
//
// over the coordinates that are not kinks, g_ad being the program's
// subgradient (Gradient with the weight vector e_f) and g_fd the central
// differences. f passes at x when the error is at most Tol. A point where
// the program cannot evaluate (or differentiate) a function is reported and
// not checked; a coordinate where x ± h cannot be evaluated is skipped and
// counted.
package gradcheck

import (
	"errors"
	"fmt"
	"math"
)

// Defaults for Options.
const (
	// DefaultTol is the default tolerance on the relative error. Central
	// differences with the default step have a truncation error of about
	// h²|f'''|/6 ≈ 1e-13 and a rounding error of about eps·|f|/h ≈
	// 2e-10·|f|, so a correct subgradient scores 1e-7 or better for values
	// up to about 100, and still passes for values up to about 1e5, while a
	// wrong one (a lost factor, a wrong sign or index) scores 1e-2 to 1.
	DefaultTol = 1e-4
	// DefaultStep is the default relative finite-difference step.
	DefaultStep = 1e-6
)

// refinements is how many times a coordinate that looks nonsmooth is tried
// again with a step ten times smaller.
const refinements = 2

// Program is what Check needs of a compiled model: the values of all its
// functions at a point, and the subgradient of a weighted sum of them at the
// point of the last successful Eval. *autodiff.Program satisfies it.
type Program interface {
	// NumVars is the length of x.
	NumVars() int
	// Eval stores every function's value at x in values.
	Eval(x, values []float64) error
	// Gradient stores in g the subgradient of sum_i w[i] f_i at the point
	// of the last successful Eval.
	Gradient(w, g []float64) error
}

// Options configure Check. Zero values mean the defaults.
type Options struct {
	Tol  float64 // tolerance on the relative error (DefaultTol)
	Step float64 // relative step: h_j = Step * max(1, |x_j|) (DefaultStep)
}

// Point is a point to check at, with a label for reports ("start",
// "random 2").
type Point struct {
	Label string
	X     []float64
}

// Result is the comparison for one function at one point.
type Result struct {
	Point int // index into Report.Points

	// Err is why the function was not checked at this point: the program
	// could not evaluate the functions at x, or not differentiate this one.
	// When Err is not nil the other fields are zero.
	Err error

	RelErr float64 // ||g_ad - g_fd||_inf / max(1, ||g_fd||_inf) over the compared coordinates
	Coord  int     // the coordinate where |g_ad - g_fd| is largest, -1 when none was compared
	AD, FD float64 // g_ad and g_fd at Coord

	Kinks       []int // coordinates left out because f has a kink there
	Unevaluable []int // coordinates left out because x ± h could not be evaluated
	Compared    int   // coordinates compared

	Failed bool // RelErr > Tol (never for a point that was not checked)
}

// Checked reports whether the function was compared at this point.
func (r *Result) Checked() bool { return r.Err == nil }

// Nonsmooth reports whether kinks were found (and skipped) at this point.
func (r *Result) Nonsmooth() bool { return len(r.Kinks) > 0 }

// Function is the comparison for one function at every point.
type Function struct {
	Index   int      // the function's index in the program
	Results []Result // one per point, in the order of the points
	Worst   int      // index into Results of the largest RelErr among checked points; -1 when none was checked
	Failed  bool     // some point failed
}

// CheckedPoints returns the number of points at which the function was
// compared.
func (f *Function) CheckedPoints() int {
	n := 0
	for i := range f.Results {
		if f.Results[i].Checked() {
			n++
		}
	}
	return n
}

// WorstError returns the largest relative error over the checked points
// (0 when none was checked).
func (f *Function) WorstError() float64 {
	if f.Worst < 0 {
		return 0
	}
	return f.Results[f.Worst].RelErr
}

// Report is the outcome of Check.
type Report struct {
	Tol, Step float64
	Points    []Point
	Functions []Function // one per function of the program, in its order
}

// Failed reports whether any function failed at any point.
func (r *Report) Failed() bool {
	for i := range r.Functions {
		if r.Functions[i].Failed {
			return true
		}
	}
	return false
}

// Check compares p's subgradients of its nfuncs functions with finite
// differences at each point (see the package documentation). It returns an
// error only when its arguments are inconsistent; what the program reports
// at a point is in the Report.
func Check(p Program, nfuncs int, points []Point, opt Options) (*Report, error) {
	if opt.Tol <= 0 {
		opt.Tol = DefaultTol
	}
	if opt.Step <= 0 {
		opt.Step = DefaultStep
	}
	n := p.NumVars()
	if nfuncs < 1 {
		return nil, errors.New("gradcheck: no functions to check")
	}
	for _, pt := range points {
		if len(pt.X) != n {
			return nil, fmt.Errorf("gradcheck: point %q has %d coordinates, the program has %d variables", pt.Label, len(pt.X), n)
		}
	}
	r := &Report{Tol: opt.Tol, Step: opt.Step, Points: points, Functions: make([]Function, nfuncs)}
	c := newChecker(p, nfuncs, n, opt)
	for i := range r.Functions {
		r.Functions[i] = Function{Index: i, Results: make([]Result, len(points)), Worst: -1}
	}
	for k, pt := range points {
		res := c.at(pt.X)
		for i := range r.Functions {
			f := &r.Functions[i]
			res[i].Point = k
			f.Results[k] = res[i]
			if res[i].Err != nil {
				continue
			}
			if f.Worst < 0 || res[i].RelErr > f.Results[f.Worst].RelErr || math.IsNaN(res[i].RelErr) {
				f.Worst = k
			}
			if res[i].Failed {
				f.Failed = true
			}
		}
	}
	return r, nil
}

// checker holds the work space for one Check.
type checker struct {
	p          Program
	m, n       int
	tol, step  float64
	x          []float64   // the point, perturbed in place
	f0, fp, fm []float64   // values at x, x + h e_j, x - h e_j
	w          []float64   // weights e_i
	gad        [][]float64 // subgradient of each function at x
	gfd        [][]float64 // central differences per function, NaN where not compared
	kink       [][]bool
}

func newChecker(p Program, m, n int, opt Options) *checker {
	c := &checker{
		p: p, m: m, n: n, tol: opt.Tol, step: opt.Step,
		x:  make([]float64, n),
		f0: make([]float64, m), fp: make([]float64, m), fm: make([]float64, m),
		w:   make([]float64, m),
		gad: make([][]float64, m), gfd: make([][]float64, m), kink: make([][]bool, m),
	}
	for i := range m {
		c.gad[i] = make([]float64, n)
		c.gfd[i] = make([]float64, n)
		c.kink[i] = make([]bool, n)
	}
	return c
}

// at checks every function at x0 and returns one Result per function.
func (c *checker) at(x0 []float64) []Result {
	res := make([]Result, c.m)
	copy(c.x, x0)
	if err := c.eval(c.x, c.f0); err != nil {
		for i := range res {
			res[i].Err = fmt.Errorf("cannot evaluate: %w", err)
		}
		return res
	}
	gradErr := make([]error, c.m)
	for i := range c.m {
		clear(c.w)
		c.w[i] = 1
		if err := c.p.Gradient(c.w, c.gad[i]); err != nil {
			gradErr[i] = fmt.Errorf("cannot compute the subgradient: %w", err)
			continue
		}
		for _, g := range c.gad[i] {
			if math.IsNaN(g) || math.IsInf(g, 0) {
				gradErr[i] = errors.New("the subgradient is not finite")
				break
			}
		}
	}

	var unevaluable []int
	pending := make([]bool, c.m) // functions whose coordinate j is not settled yet
	for j := range c.n {
		for i := range c.m {
			c.gfd[i][j] = math.NaN()
			c.kink[i][j] = false
			pending[i] = true
		}
		h := c.step * math.Max(1, math.Abs(x0[j]))
		for level := 0; level <= refinements; level++ {
			hp, hm, err := c.probe(j, h)
			if err != nil {
				if level == 0 {
					unevaluable = append(unevaluable, j)
					for i := range pending {
						pending[i] = false
					}
				}
				break // functions still pending at a refinement stay kinks
			}
			left := false
			for i := range c.m {
				if !pending[i] {
					continue
				}
				dp := (c.fp[i] - c.f0[i]) / hp
				dm := (c.f0[i] - c.fm[i]) / hm
				cd := (c.fp[i] - c.fm[i]) / (hp + hm)
				big := math.Max(math.Abs(c.f0[i]), math.Max(math.Abs(c.fp[i]), math.Abs(c.fm[i])))
				thresh := c.tol*math.Max(1, math.Max(math.Abs(dp), math.Abs(dm))) + 16*eps*big/math.Min(hp, hm)
				if math.Abs(dp-dm) <= thresh {
					c.gfd[i][j] = cd
					pending[i] = false
				} else {
					left = true
				}
			}
			if !left {
				break
			}
			h /= 10
		}
		for i := range c.m {
			if pending[i] {
				c.kink[i][j] = true
			}
		}
	}

	for i := range res {
		if gradErr[i] != nil {
			res[i].Err = gradErr[i]
			continue
		}
		res[i] = c.compare(i, unevaluable)
	}
	return res
}

// probe evaluates every function at x ± h e_j into fp and fm and returns
// the steps actually taken.
func (c *checker) probe(j int, h float64) (hp, hm float64, err error) {
	xj := c.x[j]
	defer func() { c.x[j] = xj }()
	c.x[j] = xj + h
	hp = c.x[j] - xj
	if err := c.eval(c.x, c.fp); err != nil {
		return 0, 0, err
	}
	c.x[j] = xj - h
	hm = xj - c.x[j]
	if err := c.eval(c.x, c.fm); err != nil {
		return 0, 0, err
	}
	return hp, hm, nil
}

// eval calls the program and rejects values that are not finite.
func (c *checker) eval(x, values []float64) error {
	if err := c.p.Eval(x, values); err != nil {
		return err
	}
	for i, v := range values[:c.m] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("function %d is %v", i, v)
		}
	}
	return nil
}

// compare computes function i's error from gad and gfd.
func (c *checker) compare(i int, unevaluable []int) Result {
	r := Result{Coord: -1, Unevaluable: unevaluable}
	scale, worst := 1.0, 0.0
	for j := range c.n {
		if c.kink[i][j] {
			r.Kinks = append(r.Kinks, j)
			continue
		}
		fd := c.gfd[i][j]
		if math.IsNaN(fd) {
			continue
		}
		r.Compared++
		scale = math.Max(scale, math.Abs(fd))
		if d := math.Abs(c.gad[i][j] - fd); r.Coord < 0 || d > worst {
			r.Coord, worst = j, d
			r.AD, r.FD = c.gad[i][j], fd
		}
	}
	r.RelErr = worst / scale
	r.Failed = !(r.RelErr <= c.tol)
	return r
}

const eps = 0x1p-52
