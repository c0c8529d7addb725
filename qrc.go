// Package qrc is the qrc modelling language as a Go library: it loads a
// model, checks and compiles it, and solves it, the whole pipeline that the
// qrc command runs.
//
// A model is loaded from a file with [Load] or from text with [Parse];
// options give data in memory ([WithData]) or from another file
// ([WithDataFile]) and override parameters ([WithParam], [WithParamExpr]).
// A model that does not check comes back as an [*Error] whose diagnostics
// carry their position, message and severity. [Model.Solve] solves the
// model and returns a [Report], the Go form of qrc solve's JSON result;
// the method ([Method]) and the subproblem oracle ([solve.Oracle]) are
// values, progress goes to a [Recorder] the caller passes, and the
// context cancels a solve, which then returns its best point so far.
// [Model.Eval] evaluates the objective and constraints at a point and
// [Model.Gradcheck] compares the compiled subgradients with finite
// differences.
//
// docs/library.md walks through the API with the examples of this
// package.
package qrc

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/gradcheck"
	"github.com/qrc-lang/qrc/limits"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/point"
)

// Model is a checked and compiled model, ready to solve or evaluate. A
// Model is safe for concurrent use: Solve, Eval and Gradcheck may run on
// several goroutines at once, each on run state of its own (evaluators of
// the one compiled program, made as needed and kept), and each computes
// bit for bit what it computes alone. The Program's own methods are not
// part of this: see Program.
type Model struct {
	file     string
	checked  *check.Model
	sources  check.Sources
	prog     *autodiff.Program
	runs     *runStates
	warnings diag.List
}

// newModel returns the model of a checked model m compiled into prog.
func newModel(file string, m *check.Model, prog *autodiff.Program, sources check.Sources, warnings diag.List) *Model {
	return &Model{file: file, checked: m, sources: sources, prog: prog, runs: &runStates{prog: prog}, warnings: warnings}
}

// Option configures [Load] and [Parse].
type Option func(*loadConfig)

// loadConfig collects the Options of one Load or Parse.
type loadConfig struct {
	opts check.Options
	err  error // the first invalid option
}

// WithData gives the data set the model declares as name in memory: the
// model's loader call (libsvm or csv) is checked but its file is not read.
// A set built in Go needs its feature matrix X (n×d), and labels Y when the
// model uses name.y; named columns (name.col) come from Columns.
func WithData(name string, set *data.Set) Option {
	return func(c *loadConfig) {
		if err := set.Validate(); err != nil {
			if c.err == nil {
				c.err = fmt.Errorf("WithData(%q): %v", name, err)
			}
			return
		}
		if c.opts.Sets == nil {
			c.opts.Sets = map[string]*data.Set{}
		}
		c.opts.Sets[name] = set
	}
}

// WithDataFile reads the data set name from path instead of the file the
// model names, with the same loader and options (qrc's --data).
func WithDataFile(name, path string) Option {
	return func(c *loadConfig) {
		c.opts.Data = append(c.opts.Data, check.Assign{Name: name, Value: path})
	}
}

// WithParam overrides the parameter name with a number or a vector of
// numbers. The values must be finite.
func WithParam[T float64 | []float64](name string, value T) Option {
	return func(c *loadConfig) {
		var vals []float64
		vector := false
		switch v := any(value).(type) {
		case float64:
			vals = []float64{v}
		case []float64:
			vals, vector = v, true
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				if c.err == nil {
					c.err = fmt.Errorf("WithParam(%q): %v is not a finite number", name, v)
				}
				return
			}
			parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		src := strings.Join(parts, ", ")
		if vector {
			src = "[" + src + "]"
		}
		c.opts.Set = append(c.opts.Set, check.Assign{Name: name, Value: src})
	}
}

// WithParamExpr overrides the parameter name with the expression src, which
// may use other parameters and data sets' n and d (qrc's --set).
func WithParamExpr(name, src string) Option {
	return func(c *loadConfig) {
		c.opts.Set = append(c.opts.Set, check.Assign{Name: name, Value: src})
	}
}

// WithDataDir makes the data paths in the model relative to dir instead of
// the model file's directory (the directory of Parse's name).
func WithDataDir(dir string) Option {
	return func(c *loadConfig) { c.opts.Dir = dir }
}

// WithDataCache serves data files loaded before and unchanged since from
// cache, for a program that loads the same model many times.
func WithDataCache(cache *data.Cache) Option {
	return func(c *loadConfig) { c.opts.Loader = modelfile.Data{Cache: cache} }
}

// Error is a model that could not be loaded, checked or compiled. Its
// diagnostics are values to inspect: each has a position (file, line,
// column), a message and a severity.
type Error struct {
	// File is the model's file name, as given to Load or Parse.
	File string
	// Diagnostics are the errors (and, when the model did not check, the
	// checker's warnings with them), in the order of the source.
	Diagnostics diag.List
	// Warnings are the checker's warnings of a model that checked but did
	// not compile (nil otherwise).
	Warnings diag.List
	// Err is a failure without a position: a compiler error outside the
	// model's text, or an invalid option.
	Err error
	// Sources holds the text of the model and of each parameter
	// expression, for Print.
	Sources check.Sources
}

// Error returns the first error and how many there are.
func (e *Error) Error() string {
	errs := e.Diagnostics.Errors()
	switch {
	case len(errs) == 0 && e.Err != nil:
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	case len(errs) == 0:
		return e.File + ": invalid model"
	case len(errs) == 1:
		return errs[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", errs[0].Error(), len(errs)-1)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Print writes the diagnostics as qrc does: file:line:col: message, the
// source line and a caret under the spot.
func (e *Error) Print(w io.Writer) {
	e.Diagnostics.Print(w, e.Sources)
}

// Load reads, checks and compiles the model in the file path. When the
// model has errors the error is an [*Error]; otherwise the model's
// warnings are in [Model.Warnings]. Of a CSV or Parquet data set's
// columns, only those the model names (D.name) keep their values in the
// set's Columns; the others are there with nil values
// (check.Options.UsedColumns), so that a wide table is not held twice.
func Load(path string, opts ...Option) (*Model, error) {
	c := configure(opts)
	if c.err != nil {
		return nil, &Error{File: path, Err: c.err}
	}
	m, sources, diags := modelfile.Load(path, c.opts)
	return compile(path, m, sources, diags)
}

// Parse checks and compiles the model text src; name is its file name in
// diagnostics, and data paths in the model are relative to name's
// directory (or WithDataDir's). Data sets are loaded as by Load.
func Parse(name, src string, opts ...Option) (*Model, error) {
	c := configure(opts)
	if c.err != nil {
		return nil, &Error{File: name, Err: c.err}
	}
	if c.opts.Dir == "" {
		c.opts.Dir = filepath.Dir(name)
	}
	m, sources, diags := modelfile.LoadSource(name, []byte(src), c.opts)
	return compile(name, m, sources, diags)
}

// configure applies the options.
func configure(opts []Option) *loadConfig {
	c := &loadConfig{opts: check.Options{RequireVariables: true, UsedColumns: true}}
	for i, o := range opts {
		if o == nil {
			if c.err == nil {
				c.err = fmt.Errorf("option %d of %d is nil", i+1, len(opts))
			}
			continue
		}
		o(c)
	}
	return c
}

// compile compiles a checked model.
func compile(file string, m *check.Model, sources check.Sources, diags diag.List) (*Model, error) {
	if m == nil {
		return nil, &Error{File: file, Diagnostics: diags, Sources: sources}
	}
	prog, err := autodiff.Compile(m)
	if err != nil {
		e := &Error{File: file, Warnings: diags, Sources: sources}
		var list diag.List
		if errors.As(err, &list) && len(list) > 0 {
			e.Diagnostics = list
		} else {
			e.Err = fmt.Errorf("cannot compile: %w", err)
		}
		return nil, e
	}
	if prog.NumVars() != m.NumScalars {
		return nil, fmt.Errorf("internal error: the compiled program has %d variables, the model %d", prog.NumVars(), m.NumScalars)
	}
	releaseGarbage(m)
	return newModel(file, m, prog, sources, diags), nil
}

// releaseGarbage returns the memory that loading, checking and compiling
// large data left behind (parse buffers, the filters' row lists) to the
// system at once, instead of leaving it until the collector's next cycle,
// which a solve that allocates little may never start: on 10^7 rows of
// npc.qrc that was 0.4 GB of the resident set. It costs one collection,
// a few milliseconds of marking for a heap of large arrays without
// pointers.
func releaseGarbage(m *check.Model) {
	if m.DataBytes() >= 256<<20 {
		debug.FreeOSMemory()
	}
}

// File is the model's file name, as given to Load or Parse.
func (m *Model) File() string { return m.file }

// Warnings are the checker's warnings about the model.
func (m *Model) Warnings() diag.List { return m.warnings }

// Checked is the checked model: its data sets, parameters, variables,
// objective and expanded constraints.
func (m *Model) Checked() *check.Model { return m.checked }

// Program is the compiled model: values and subgradients. Its own
// methods (Eval, Gradient, SetSample ...) run on the run state that Solve,
// Eval and Gradcheck use when one runs at a time, so call them only while
// none of those runs; Program().NewEvaluator() gives run state of its own
// for an evaluation beside them.
func (m *Model) Program() *autodiff.Program { return m.prog }

// Sources holds the model's text (and the text of each parameter
// expression), for rendering diagnostics.
func (m *Model) Sources() check.Sources { return m.sources }

// NumVars is the number of scalar decision variables: the length of a
// point.
func (m *Model) NumVars() int { return m.checked.NumScalars }

// Start is the model's starting point: each variable's start, projected
// onto its domain.
func (m *Model) Start() []float64 { return point.Start(m.checked) }

// Var returns the values of the variable name in the point x (a slice of
// x), or false when the model has no such variable.
func (m *Model) Var(x []float64, name string) ([]float64, bool) {
	for _, v := range m.checked.Vars {
		if v.Name == name && len(x) == m.checked.NumScalars {
			return v.Of(x), true
		}
	}
	return nil, false
}

// Evaluation is the objective and the constraints at a point.
type Evaluation struct {
	// Objective is f0 at the point (0 for a model without an objective).
	Objective float64
	// Constraints are the expanded constraints, in the model's order.
	Constraints []ConstraintValue
	// Infeasibility is the largest violation (0 when every constraint
	// holds).
	Infeasibility float64
}

// ConstraintValue is one expanded constraint at a point.
type ConstraintValue struct {
	Name      string  // cap[2]
	Value     float64 // f = lhs - rhs (rhs - lhs for >=); the constraint holds when f <= 0 (f = 0 for ==)
	Violation float64 // max(0, f); |f| for an equality
}

// Eval evaluates the objective and every constraint at x (NumVars values,
// laid out as Var reads them), on all rows of the data. A value that
// cannot be computed (log of a negative number, ...) is an error that
// names the expression (an *autodiff.EvalError).
func (m *Model) Eval(x []float64) (*Evaluation, error) {
	if len(x) != m.checked.NumScalars {
		return nil, fmt.Errorf("Eval: the point has %d values, the model %d variables", len(x), m.checked.NumScalars)
	}
	fns := m.prog.Functions()
	values := make([]float64, len(fns))
	run := m.runs.take()
	err := run.Eval(x, values)
	m.runs.give(run)
	if err != nil {
		return nil, err
	}
	ev := &Evaluation{Constraints: []ConstraintValue{}}
	for i, f := range fns {
		switch {
		case f.Objective:
			ev.Objective = values[i]
		case f.Constraint != nil:
			c := ConstraintValue{Name: f.Name, Value: values[i], Violation: violation(f.Constraint, values[i])}
			ev.Infeasibility = math.Max(ev.Infeasibility, c.Violation)
			ev.Constraints = append(ev.Constraints, c)
		}
	}
	return ev, nil
}

// violation is how far a constraint with value f is from holding:
// max(0, f) for an inequality, |f| for an equality.
func violation(c *check.Constraint, f float64) float64 {
	if c.IsEquality() {
		return math.Abs(f)
	}
	return math.Max(0, f)
}

// GradcheckOptions configure Gradcheck; the zero value checks at the start
// only with the default tolerance.
type GradcheckOptions struct {
	Points int     // random points of the domain besides the start
	Seed   uint64  // seeds the random points
	Tol    float64 // tolerance on the relative error; 0 means gradcheck.DefaultTol
}

// Gradcheck compares the compiled subgradients of the objective and of
// every constraint with central finite differences, at the start and at
// opts.Points random points of the domain. Kinks are reported, not failed
// (gradcheck.Report).
func (m *Model) Gradcheck(opts GradcheckOptions) (*gradcheck.Report, error) {
	if opts.Points < 0 || opts.Points > limits.MaxGradcheckPoints {
		return nil, fmt.Errorf("Gradcheck: Points must be between 0 and %d, not %d", limits.MaxGradcheckPoints, opts.Points)
	}
	if opts.Tol < 0 || math.IsNaN(opts.Tol) {
		return nil, fmt.Errorf("Gradcheck: Tol must be positive, not %v", opts.Tol)
	}
	if _, ok := limits.Mul(opts.Points+1, max(m.checked.NumScalars, 1), limits.MaxElements); !ok {
		return nil, fmt.Errorf("Gradcheck: %d points of %d scalars are more than limits.MaxElements", opts.Points+1, m.checked.NumScalars)
	}
	points := gradcheck.Points(m.checked, opts.Points, opts.Seed)
	run := m.runs.take()
	defer m.runs.give(run)
	return gradcheck.Check(run, len(m.prog.Functions()), points, gradcheck.Options{Tol: opts.Tol})
}
