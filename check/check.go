package check

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/lang"
	"github.com/qrc-lang/qrc/limits"
	"github.com/qrc-lang/qrc/stdlib"
)

// Assign is a NAME=VALUE setting from the command line (--set, --data).
type Assign struct {
	Name  string
	Value string
}

// Options configure Check.
type Options struct {
	// Set overrides parameters: the value is an expression, which may use
	// other parameters and data sets' n and d.
	Set []Assign
	// Data replaces the file of a data set (same loader and options); the
	// path is used as given (relative to the working directory).
	Data []Assign
	// Dir is the directory that data paths in the model are relative to;
	// by default the directory of the model file.
	Dir string
	// Loader gives the data sets the model declares (see [Loader]): the
	// checker itself reads no file. modelfile.Data is the loader of data
	// files; nil refuses every data declaration that Sets does not serve.
	Loader Loader
	// Sets gives data sets in memory by name: a set here is used instead
	// of reading the file the model's declaration names (the loader's
	// options are still checked, but not applied to the set). Its
	// DataSet.Path is the set's Path, and Override is true.
	Sets map[string]*data.Set
	// RequireVariables refuses a model that declares no variable: there
	// is nothing to solve. The command-line tools set it; the REPL, which
	// builds its model a statement at a time, does not.
	RequireVariables bool
	// UsedColumns loads, of a CSV or Parquet set's columns, the values of
	// those the model names (as D.name anywhere in the file) into
	// Set.Columns, and leaves the others' values nil
	// (data.CSVOptions.Columns, data.ParquetOptions.Columns): a model
	// fixed once checked (the command-line tools) does not need them, and
	// they would hold the table a second time. The REPL, whose later
	// statements may name any column, does not set it.
	UsedColumns bool
}

// SetSourceName is the file name in the positions of the expression that
// overrides the parameter name (Options.Set): an error in it reads
// "value of param r:1:4: syntax error ...". The qrc command shows it as the
// flag that gave the expression (--set r).
func SetSourceName(name string) string { return "value of param " + name }

// DataSourceName is the file name in the positions of the errors about the
// file that replaces the data set name's (Options.Data): "file for data
// set D: the model has no data set ...". The qrc command shows it as the
// flag that gave the file (--data D).
func DataSourceName(name string) string { return "file for data set " + name }

// DataFileNote follows the name of a data set whose file, given in
// Options.Data, cannot be loaded: cannot load data set "D" (from the file
// given for it): ...
const DataFileNote = " (from the file given for it)"

// EvalNote names, in the errors about a comparison or a logical operator
// outside a where filter, the expressions where they are allowed: those
// checked with CheckEvalExpr, which are evaluated, never differentiated.
const EvalNote = "an evaluation (an expression checked with check.CheckEvalExpr)"

// Reserved names: built-ins, loaders and domains, which declarations cannot
// reuse.
var (
	loaders = []string{"libsvm", "csv", "parquet"}
	domains = []string{"box", "ball", "simplex", "l1ball", "nonneg", "inf"}
)

// Check checks a parsed model. It returns the checked model and the
// diagnostics (warnings only when the model is valid); when the model has
// errors the returned model is nil.
func Check(f *ast.File, opts Options) (m *Model, diags diag.List) {
	c := &checker{
		m:        &Model{File: f},
		opts:     opts,
		globals:  map[string]*global{},
		seen:     map[string]bool{},
		rejected: map[string]bool{},
		dense:    map[*data.Set]denseUse{},
		dir:      opts.Dir,
	}
	if c.dir == "" {
		c.dir = filepath.Dir(f.Name)
	}
	defer func() {
		if r := recover(); r != nil {
			m = nil
			diags = append(c.errs, &diag.Diagnostic{Pos: f.Pos(), Msg: fmt.Sprintf("internal error: checker failed: %v", r)})
		}
	}()
	c.run()
	if opts.RequireVariables && len(c.m.Vars) == 0 && !c.errs.HasErrors() {
		c.errorf(f, "the model declares no variable, so there is nothing to solve (declare one with var, e.g. var x in box(-1, 1))")
	}
	c.denseSets()
	c.errs.Sort()
	if c.errs.HasErrors() {
		return nil, c.errs
	}
	c.m.Diagnostics = c.errs
	return c.m, c.errs
}

// global is a name declared at the top level.
type global struct {
	name  string
	kind  string // "data set", "parameter", "variable", "function"
	decl  ast.Decl
	state int // 0 unresolved, 1 resolving, 2 done
	ok    bool
	data  *DataSet
	param *Param
	v     *Var
	fn    *Func
	calls int
	set   *Assign // --set override
	setX  ast.Expr
}

type checker struct {
	// evalOnly allows comparisons (0 or 1) in expressions: an expression
	// that is evaluated, never differentiated (CheckEvalExpr).
	evalOnly   bool
	m          *Model
	varScalars int // the decision variables' scalars checked so far (limits.MaxVarScalars)
	opts       Options
	dir        string
	globals    map[string]*global
	order      []*global
	errs       diag.List
	seen       map[string]bool
	rejected   map[string]bool // reserved names a declaration tried to take
	members    []string        // memberNames of the file, once a data set needs them
	// bodyEnds are the names after a comprehension's body that the writer
	// probably meant to be bound by it (bodyend.go); bodyEndErrs those
	// reported as unknown.
	bodyEnds    map[ast.Pos]bodyEnd
	bodyEndErrs map[ast.Pos]bool
	ctx         []string  // "in call of phi at 12:7" while checking inlined bodies
	stack       []*global // functions being inlined (recursion check)
	frames      []*frame  // enclosing comprehensions
	resolve     []*global // globals being resolved (cycle check)

	// textOK allows a text column while the other side of a comparison
	// with a string in a where filter is checked; textCol is the text
	// column found there.
	textOK   bool
	textCol  *data.TextColumn
	textName string

	// dense holds the sparse sets whose X the objective or a constraint
	// uses other than in a dot product with a vector (sparse.go), with the
	// first such place: a valid model gets them converted (see
	// data.Set.Dense).
	dense map[*data.Set]denseUse

	nodes      int                // expression nodes checked so far (limits.MaxExprNodes)
	depth      int                // the nesting depth of the expression being checked (limits.MaxDepth)
	trees      map[Expr]treeShape // checked expressions' size and height as trees
	overBudget bool               // a budget was exceeded and reported; nothing more is checked
}

// frame is an enclosing comprehension while its body is checked.
type frame struct {
	terms   float64 // the index values of this and the enclosing comprehensions (limits.MaxTerms)
	binders []*Binder
	where   Expr
}

// scope binds local names: function parameters (to their argument
// expressions), comprehension indices and constraint indices.
type scope struct {
	parent *scope
	names  map[string]Expr
}

func (s *scope) lookup(name string) (Expr, bool) {
	for ; s != nil; s = s.parent {
		if e, ok := s.names[name]; ok {
			return e, true
		}
	}
	return nil, false
}

func (s *scope) allNames() []string {
	var out []string
	for ; s != nil; s = s.parent {
		for n := range s.names {
			out = append(out, n)
		}
	}
	return out
}

// errorf reports an error at n, with the current inlining context; an error
// already reported at the same place with the same message is dropped.
func (c *checker) errorf(n ast.Node, format string, args ...any) {
	c.report(diag.Error, n.Pos(), n.End(), fmt.Sprintf(format, args...))
}

func (c *checker) warnf(n ast.Node, format string, args ...any) {
	c.report(diag.Warning, n.Pos(), n.End(), fmt.Sprintf(format, args...))
}

func (c *checker) report(sev diag.Severity, pos, end ast.Pos, msg string) {
	key := fmt.Sprintf("%s:%d:%s", pos.Filename, pos.Offset, msg)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	if len(c.ctx) > 0 {
		ctx := c.ctx
		if len(ctx) > 4 { // the outermost calls and the innermost one
			ctx = append(append(slices.Clone(ctx[:3]), fmt.Sprintf("... %d more", len(ctx)-4)), ctx[len(ctx)-1])
		}
		msg += " (" + strings.Join(ctx, ", ") + ")"
	}
	c.errs = append(c.errs, &diag.Diagnostic{Severity: sev, Pos: pos, End: end, Msg: msg})
}

func (c *checker) reservedName(name string) string {
	switch {
	case stdlib.Lookup(name) != nil || stdlib.IsComprehension(name):
		return "a built-in function"
	case slices.Contains(loaders, name):
		return "a data loader"
	case name == "inf":
		return "the missing bound of a one-sided box, box(0, inf)"
	case slices.Contains(domains, name):
		return "a domain"
	}
	return ""
}

// run checks the whole model.
func (c *checker) run() {
	f := c.m.File
	c.findBodyEnds()
	c.bodyEndErrs = map[ast.Pos]bool{}
	defer c.warnBodyEnds()
	var objectives []*ast.Objective
	var constraints []*ast.Constraint
	for _, d := range f.Decls {
		var name *ast.Ident
		g := &global{decl: d}
		switch d := d.(type) {
		case *ast.DataDecl:
			name, g.kind = d.Name, "data set"
		case *ast.ParamDecl:
			name, g.kind = d.Name, "parameter"
		case *ast.VarDecl:
			name, g.kind = d.Name, "variable"
		case *ast.FuncDecl:
			name, g.kind = d.Name, "function"
		case *ast.Objective:
			objectives = append(objectives, d)
			continue
		case *ast.SubjectTo:
			constraints = append(constraints, d.Constraints...)
			continue
		case *ast.Constraint:
			constraints = append(constraints, d)
			continue
		}
		g.name = name.Name
		if what := c.reservedName(name.Name); what != "" {
			c.errorf(name, "cannot declare %q: it is %s", name.Name, what)
			c.rejected[name.Name] = true
			continue
		}
		if prev, ok := c.globals[name.Name]; ok {
			c.errorf(name, "%q redeclared as a %s; it is already the %s declared at %s", name.Name, g.kind, prev.kind, prev.decl.Pos())
			continue
		}
		c.globals[name.Name] = g
		c.order = append(c.order, g)
	}
	c.applyOverrides()
	for _, g := range c.order {
		c.resolveGlobal(g, nil)
	}
	// Offsets of the variables in the flat vector, in declaration order.
	for _, v := range c.m.Vars {
		v.Offset = c.m.NumScalars
		c.m.NumScalars += v.Size
	}
	c.checkObjective(objectives)
	c.checkConstraints(constraints)
	for _, g := range c.order {
		switch {
		case g.fn != nil && g.calls == 0:
			c.checkUnusedFunc(g)
		case g.v != nil && !g.v.Used && g.ok && !c.errs.HasErrors():
			// After an error, uses inside the rejected expression were
			// never recorded: the warning would be wrong.
			c.warnf(g.decl.(*ast.VarDecl).Name, "variable %q is not used by the objective or any constraint", g.name)
		}
	}
}

// applyOverrides attaches Options.Set and Options.Data to their
// declarations.
func (c *checker) applyOverrides() {
	for i := range c.opts.Set {
		a := &c.opts.Set[i]
		g, ok := c.globals[a.Name]
		pos := ast.Pos{Filename: SetSourceName(a.Name)}
		if !ok || g.kind != "parameter" {
			c.report(diag.Error, pos, ast.Pos{}, fmt.Sprintf("the model has no parameter %q%s", a.Name, DidYouMean(a.Name, c.namesOfKind("parameter"))))
			continue
		}
		x, errs := lang.ParseExpr(SetSourceName(a.Name), []byte(a.Value))
		if errs != nil {
			c.errs = append(c.errs, errs...)
			continue
		}
		g.set, g.setX = a, x
	}
	for _, a := range c.opts.Data {
		if g, ok := c.globals[a.Name]; !ok || g.kind != "data set" {
			c.report(diag.Error, ast.Pos{Filename: DataSourceName(a.Name)}, ast.Pos{},
				fmt.Sprintf("the model has no data set %q%s", a.Name, DidYouMean(a.Name, c.namesOfKind("data set"))))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.opts.Sets)) {
		if g, ok := c.globals[name]; !ok || g.kind != "data set" {
			c.report(diag.Error, ast.Pos{Filename: "data " + name}, ast.Pos{},
				fmt.Sprintf("given in memory: the model has no data set %q%s", name, DidYouMean(name, c.namesOfKind("data set"))))
		} else if c.opts.Sets[name] == nil {
			c.report(diag.Error, ast.Pos{Filename: "data " + name}, ast.Pos{}, "given in memory: the set is nil")
		}
	}
}

func (c *checker) namesOfKind(kind string) []string {
	var out []string
	for _, g := range c.order {
		if kind == "" || g.kind == kind {
			out = append(out, g.name)
		}
	}
	return out
}

// resolveGlobal makes sure g is checked (data loaded, parameter evaluated,
// variable shaped); use is the reference that needed it, for cycle errors.
func (c *checker) resolveGlobal(g *global, use ast.Node) bool {
	switch g.state {
	case 2:
		return g.ok
	case 1:
		var path []string
		for _, r := range c.resolve {
			path = append(path, r.name)
		}
		path = append(path, g.name)
		at := use
		if at == nil {
			at = g.decl
		}
		c.errorf(at, "%s %q is defined in terms of itself: %s", g.kind, g.name, strings.Join(path, " -> "))
		return false
	}
	g.state = 1
	c.resolve = append(c.resolve, g)
	saveCtx, saveFrames := c.ctx, c.frames
	c.ctx, c.frames = nil, nil
	switch d := g.decl.(type) {
	case *ast.DataDecl:
		g.data = c.checkData(d)
		g.ok = g.data != nil
		if g.ok {
			c.m.Data = append(c.m.Data, g.data)
		}
	case *ast.ParamDecl:
		g.param = c.checkParam(d, g)
		g.ok = g.param != nil
		if g.ok {
			c.m.Params = append(c.m.Params, g.param)
		}
	case *ast.VarDecl:
		g.v = c.checkVar(d)
		g.ok = g.v != nil
		if g.ok {
			c.m.Vars = append(c.m.Vars, g.v)
		}
	case *ast.FuncDecl:
		g.fn = c.checkFuncDecl(d)
		g.ok = g.fn != nil
		if g.ok {
			c.m.Funcs = append(c.m.Funcs, g.fn)
		}
	}
	c.ctx, c.frames = saveCtx, saveFrames
	c.resolve = c.resolve[:len(c.resolve)-1]
	g.state = 2
	return g.ok
}

// ---------------------------------------------------------------------------
// Declarations

func (c *checker) checkData(d *ast.DataDecl) *DataSet {
	call, ok := d.Source.(*ast.Call)
	if !ok || !slices.Contains(loaders, call.Fun.Name) {
		c.errorf(d.Source, "a data set is read by a loader: libsvm(\"file\"), csv(\"file\", label = \"y\", drop = [\"col\"]) or parquet(\"file\", label = \"y\")")
		return nil
	}
	ds := &DataSet{Name: d.Name.Name, Decl: d, Loader: call.Fun.Name}
	var path *ast.String
	libsvmOpt := data.LibSVMOptions{}
	csvOpt := data.CSVOptions{}
	argNodes := map[string]ast.Node{}  // option name → its value
	dropNodes := map[string]ast.Node{} // dropped column → its string
	for i, a := range call.Args {
		if a.Name == nil {
			if i > 0 {
				c.errorf(a, "%s takes the file name as its only positional argument; name the others (e.g. label = \"y\")", call.Fun.Name)
				return nil
			}
			s, ok := a.Value.(*ast.String)
			if !ok {
				c.errorf(a.Value, "the file name must be a string literal, e.g. %s(\"data/train.svm\")", call.Fun.Name)
				return nil
			}
			path = s
			continue
		}
		argNodes[a.Name.Name] = a.Value
		switch key := call.Fun.Name + "." + a.Name.Name; key {
		case "libsvm.features":
			n, ok := c.constInt(a.Value, "features")
			if !ok {
				return nil
			}
			if n < 1 {
				c.errorf(a.Value, "features must be a positive integer, not %d", n)
				return nil
			}
			libsvmOpt.Features = n
		case "csv.label", "parquet.label":
			s, ok := a.Value.(*ast.String)
			if !ok {
				c.errorf(a.Value, "label must be a column name in quotes, e.g. label = \"y\"")
				return nil
			}
			csvOpt.Label = s.Value
		case "csv.drop", "parquet.drop":
			v, ok := a.Value.(*ast.Vector)
			if s, isStr := a.Value.(*ast.String); isStr {
				csvOpt.Drop = append(csvOpt.Drop, s.Value)
				dropNodes[s.Value] = s
				break
			}
			if !ok {
				c.errorf(a.Value, "drop must be a list of column names, e.g. drop = [\"group\"]")
				return nil
			}
			for _, e := range v.Elems {
				s, ok := e.(*ast.String)
				if !ok {
					c.errorf(e, "drop must be a list of column names in quotes")
					return nil
				}
				csvOpt.Drop = append(csvOpt.Drop, s.Value)
				dropNodes[s.Value] = s
			}
		case "csv.sep":
			s, ok := a.Value.(*ast.String)
			v := ""
			if ok {
				v = s.Value
				if v == "tab" {
					v = "\t"
				}
			}
			if !ok || len(v) != 1 || v == "\"" || v == "\n" || v == "\r" {
				c.errorf(a.Value, "sep must be one character in quotes other than a quote or a line break, e.g. sep = \";\" or sep = \"\\t\"")
				return nil
			}
			csvOpt.Sep = v[0]
		case "csv.header":
			switch v := a.Value.(type) {
			case *ast.Ident:
				if v.Name == "true" || v.Name == "false" {
					csvOpt.NoHeader = v.Name == "false"
					break
				}
				c.errorf(a.Value, "header must be true or false")
				return nil
			default:
				c.errorf(a.Value, "header must be true or false")
				return nil
			}
		case "csv.missing", "parquet.missing":
			s, ok := a.Value.(*ast.String)
			if !ok || s.Value != "error" && s.Value != "drop" {
				empty := map[bool]string{true: "a null", false: "an empty cell"}[call.Fun.Name == "parquet"]
				c.errorf(a.Value, "missing must be \"error\" (the default: %s is an error) or \"drop\" (rows with %s are left out)", empty, empty)
				return nil
			}
			csvOpt.Missing = s.Value
		default:
			valid := map[string][]string{"libsvm": {"features"}, "csv": {"label", "drop", "sep", "header", "missing"}, "parquet": {"label", "drop", "missing"}}[call.Fun.Name]
			c.errorf(a.Name, "%s has no option %q; its options are %s%s", call.Fun.Name, a.Name.Name,
				strings.Join(valid, ", "), DidYouMean(a.Name.Name, valid))
			return nil
		}
	}
	if path == nil {
		c.errorf(call, "%s needs the data file's name, e.g. %s(\"data/train.%s\")", call.Fun.Name, call.Fun.Name,
			map[string]string{"libsvm": "svm", "csv": "csv", "parquet": "parquet"}[call.Fun.Name])
		return nil
	}
	ds.Path = path.Value
	if !filepath.IsAbs(ds.Path) {
		ds.Path = filepath.Join(c.dir, ds.Path)
	}
	for _, a := range c.opts.Data {
		if a.Name == ds.Name {
			ds.Path, ds.Override = a.Value, true
			ds.Loader = overrideLoader(ds.Loader, ds.Path)
		}
	}
	if set, ok := c.opts.Sets[ds.Name]; ok {
		if set == nil {
			return nil
		}
		ds.Set, ds.Path, ds.Override = set, set.Path, true
		return ds
	}
	if c.opts.UsedColumns {
		if c.members == nil {
			c.members = memberNames(c.m.File) // not nil
		}
		csvOpt.Columns = c.members
	}
	req := DataRequest{Decl: d, Name: ds.Name, Loader: ds.Loader, Path: ds.Path, Override: ds.Override, LibSVM: libsvmOpt, CSV: csvOpt}
	var err error
	if c.opts.Loader == nil {
		err = errNoLoader
	} else {
		ds.Set, err = c.opts.Loader.LoadData(req)
	}
	if err == nil && ds.Set == nil {
		err = errors.New("the loader returned no set") // a broken Loader, not a data file
	}
	if err != nil {
		ds.Set = nil
		var at ast.Node = path
		if ds.Override {
			at = d.Name
		}
		var de *data.Error
		if errors.As(err, &de) { // point at the option the error is about
			switch n, ok := dropNodes[de.Column]; {
			case ok && de.Option == "drop":
				at = n
			case de.Option != "" && argNodes[de.Option] != nil:
				at = argNodes[de.Option]
			case de.Column != "" && de.Column == csvOpt.Label && argNodes["label"] != nil:
				at = argNodes["label"]
			}
		}
		src := ""
		if ds.Override {
			src = DataFileNote
		}
		c.errorf(at, "cannot load data set %q%s: %v", ds.Name, src, err)
		return nil
	}
	return ds
}

// overrideLoader returns the loader that reads path, a file given with
// --data for a data set the model reads with loader: a ".parquet" file for
// a csv data set is read with parquet, a ".csv" file for a parquet data set
// with csv, both with the declaration's label, drop and missing options (a
// csv declaration's sep and header do not apply to a Parquet file). Other
// files keep the model's loader.
func overrideLoader(loader, path string) string {
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case loader == "csv" && ext == ".parquet":
		return "parquet"
	case loader == "parquet" && ext == ".csv":
		return "csv"
	}
	return loader
}

// constInt checks e in the global scope and returns its integer value.
func (c *checker) constInt(e ast.Expr, what string) (int, bool) {
	t, ok := c.constValue(e, what)
	if !ok {
		return 0, false
	}
	if !t.Shape.IsScalar() {
		c.errorf(e, "%s must be a scalar, not a %s", what, t.Shape)
		return 0, false
	}
	n, err := toInt(t.Data[0])
	if err != nil {
		c.errorf(e, "%s", err.(*intError).phrase(what))
		return 0, false
	}
	return n, true
}

// constValue checks e in the global scope and evaluates it; e must not
// depend on decision variables.
func (c *checker) constValue(e ast.Expr, what string) (Tensor, bool) {
	x := c.expr(e, nil)
	if x == nil {
		return Tensor{}, false
	}
	if x.Deps()&DepVar != 0 {
		c.errorf(e, "%s must be a constant; it depends on a decision variable", what)
		return Tensor{}, false
	}
	t, err := eval(x, nil)
	if err != nil {
		c.errorf(e, "cannot evaluate %s: %v", what, err)
		return Tensor{}, false
	}
	return t, true
}

func (c *checker) checkParam(d *ast.ParamDecl, g *global) *Param {
	e := d.Value
	p := &Param{Name: d.Name.Name, Decl: d, Expr: ExprString(e)}
	if g.setX != nil {
		e = g.setX
		p.Overridden, p.Expr = true, g.set.Value
	}
	t, ok := c.constValue(e, "a parameter")
	if !ok {
		return nil
	}
	for _, v := range t.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			c.errorf(e, "parameter %q is %s", p.Name, fmtNum(v))
			return nil
		}
	}
	p.Value = Tensor{Shape: t.Shape, Data: append([]float64(nil), t.Data...)}
	return p
}

func (c *checker) checkVar(d *ast.VarDecl) *Var {
	v := &Var{Name: d.Name.Name, Decl: d}
	if len(d.Dims) > 2 {
		c.errorf(d.Dims[2], "a variable has at most 2 dimensions (a matrix); %q has %d", v.Name, len(d.Dims))
		return nil
	}
	for _, de := range d.Dims {
		n, ok := c.constInt(de, "a dimension")
		if !ok {
			return nil
		}
		if n < 1 {
			c.errorf(de, "a dimension must be at least 1, not %d", n)
			return nil
		}
		v.Shape = append(v.Shape, n)
	}
	size, ok := limits.Product(v.Shape, limits.MaxElements)
	if !ok {
		c.errorf(d.Name, "variable %q is a %s: more than %d elements, the most one variable may have (limits.MaxElements)", v.Name, v.Shape, limits.MaxElements)
		return nil
	}
	v.Size = size
	if c.varScalars += size; c.varScalars > limits.MaxVarScalars {
		// before the domain's and the start's arrays are allocated
		c.errorf(d.Name, "variable %q brings the model's decision variables to %d scalars, more than the %d qrc takes (limits.MaxVarScalars)", v.Name, c.varScalars, limits.MaxVarScalars)
		return nil
	}
	dom, ok := c.checkDomain(d, v)
	if !ok {
		return nil
	}
	v.Domain = dom
	v.Start = make([]float64, v.Size)
	if d.Start != nil {
		t, ok := c.constValue(d.Start, "a starting point")
		if !ok {
			return nil
		}
		if !t.Shape.IsScalar() && !t.Shape.Equal(v.Shape) {
			c.errorf(d.Start, "the starting point is a %s but %q is a %s", t.Shape, v.Name, v.Shape)
			return nil
		}
		for i := range v.Start {
			v.Start[i] = t.Data[min(i, len(t.Data)-1)]
		}
	}
	var before []float64 // a copy only to compare with a start the model gives
	if d.Start != nil {
		before = append(before, v.Start...)
	}
	dom.Project(v.Start)
	if d.Start != nil {
		for i := range before {
			if math.Abs(before[i]-v.Start[i]) > 1e-12*(1+math.Abs(before[i])) {
				c.warnf(d.Start, "the starting point of %q is outside its domain %s; it is projected onto the domain", v.Name, dom)
				break
			}
		}
	}
	return v
}

func (c *checker) checkDomain(d *ast.VarDecl, v *Var) (*domain.Domain, bool) {
	if d.Domain == nil {
		c.warnf(d.Name, "variable %q has no domain: the solver's theory assumes a compact domain (write e.g. `in box(-10, 10)` or `in ball(r)`)", v.Name)
		return &domain.Domain{Kind: domain.Unbounded}, true
	}
	var name *ast.Ident
	var args []*ast.Arg
	switch x := d.Domain.(type) {
	case *ast.Ident:
		name = x
	case *ast.Call:
		name, args = x.Fun, x.Args
	default:
		c.errorf(d.Domain, "a domain is box(lo, hi), ball(r), ball(r, rows), l1ball(r), nonneg or simplex")
		return nil, false
	}
	for _, a := range args {
		if a.Name != nil {
			c.errorf(a.Name, "domain arguments are positional: box(lo, hi), ball(r), ball(r, rows), l1ball(r), simplex(s)")
			return nil, false
		}
	}
	arity := func(lo, hi int, usage string) bool {
		if len(args) < lo || len(args) > hi {
			c.errorf(d.Domain, "%s takes %s", name.Name, usage)
			return false
		}
		return true
	}
	scalarArg := func(e ast.Expr, what string) (float64, bool) {
		t, ok := c.constValue(e, what)
		if !ok {
			return 0, false
		}
		if !t.Shape.IsScalar() {
			c.errorf(e, "%s must be a scalar, not a %s", what, t.Shape)
			return 0, false
		}
		return t.Data[0], true
	}
	switch name.Name {
	case "box":
		if !arity(2, 2, "two arguments: box(lo, hi)") {
			return nil, false
		}
		dom := &domain.Domain{Kind: domain.Box, Lo: make([]float64, v.Size), Hi: make([]float64, v.Size)}
		for k, dst := range [][]float64{dom.Lo, dom.Hi} {
			if inf, ok := infBound(args[k].Value); ok {
				for i := range dst {
					dst[i] = inf
				}
				continue
			}
			t, ok := c.boundValue(args[k].Value)
			if !ok {
				return nil, false
			}
			if !t.Shape.IsScalar() && !t.Shape.Equal(v.Shape) {
				c.errorf(args[k].Value, "the bound is a %s but %q is a %s", t.Shape, v.Name, v.Shape)
				return nil, false
			}
			for i := range dst {
				dst[i] = t.Data[min(i, len(t.Data)-1)]
			}
		}
		for i := range dom.Lo {
			if math.IsInf(dom.Lo[i], 1) || math.IsInf(dom.Hi[i], -1) {
				c.errorf(d.Domain, "empty box: a lower bound of inf or an upper bound of -inf leaves no point")
				return nil, false
			}
			if !(dom.Lo[i] <= dom.Hi[i]) {
				c.errorf(d.Domain, "empty box: lower bound %s is above upper bound %s", fmtNum(dom.Lo[i]), fmtNum(dom.Hi[i]))
				return nil, false
			}
		}
		return dom, true
	case "ball":
		if !arity(1, 2, "the radius and optionally rows: ball(r) or ball(r, rows)") {
			return nil, false
		}
		r, ok := scalarArg(args[0].Value, "the radius")
		if !ok {
			return nil, false
		}
		if !(r > 0) {
			c.errorf(args[0].Value, "the radius must be positive, not %s", fmtNum(r))
			return nil, false
		}
		if len(args) == 1 {
			return &domain.Domain{Kind: domain.Ball, Radius: r}, true
		}
		if id, ok := args[1].Value.(*ast.Ident); !ok || id.Name != "rows" {
			c.errorf(args[1].Value, "the second argument of ball can only be rows: ball(r, rows) bounds each row of a matrix")
			return nil, false
		}
		if v.Shape.Rank() != 2 {
			c.errorf(args[1].Value, "ball(r, rows) needs a matrix variable; %q is a %s", v.Name, v.Shape)
			return nil, false
		}
		return &domain.Domain{Kind: domain.RowBalls, Radius: r, Cols: v.Shape[1]}, true
	case "l1ball":
		if !arity(1, 1, "one argument, the radius: l1ball(r)") {
			return nil, false
		}
		r, ok := scalarArg(args[0].Value, "the radius")
		if !ok {
			return nil, false
		}
		if !(r > 0) {
			c.errorf(args[0].Value, "the radius must be positive, not %s", fmtNum(r))
			return nil, false
		}
		return &domain.Domain{Kind: domain.L1Ball, Radius: r}, true
	case "nonneg":
		if !arity(0, 0, "no arguments: nonneg is x >= 0, box(0, inf)") {
			return nil, false
		}
		return domain.NonNeg(v.Size), true
	case "simplex":
		if !arity(0, 1, "at most one argument, the sum: simplex or simplex(s)") {
			return nil, false
		}
		s := 1.0
		if len(args) == 1 {
			var ok bool
			if s, ok = scalarArg(args[0].Value, "the simplex sum"); !ok {
				return nil, false
			}
			if !(s > 0) {
				c.errorf(args[0].Value, "the simplex sum must be positive, not %s", fmtNum(s))
				return nil, false
			}
		}
		return &domain.Domain{Kind: domain.Simplex, Radius: s}, true
	}
	c.errorf(name, "unknown domain %q%s; domains are box(lo, hi), ball(r), ball(r, rows), l1ball(r), nonneg and simplex", name.Name, DidYouMean(name.Name, domains[:len(domains)-1]))
	return nil, false
}

// boundValue evaluates a bound of a box: a constant, or a list whose
// elements (or, for a matrix, the elements of whose rows) may be inf or
// -inf, a side without a bound for that element: box([-inf, -1.5], [inf, inf]).
func (c *checker) boundValue(e ast.Expr) (Tensor, bool) {
	v, ok := unparen(e).(*ast.Vector)
	if !ok || !hasInf(v) {
		return c.constValue(e, "a bound")
	}
	var out Tensor
	for k, el := range v.Elems {
		var t Tensor
		if inf, ok := infBound(el); ok {
			t = Scalar(inf)
		} else if t, ok = c.boundValue(el); !ok {
			return Tensor{}, false
		}
		if t.Shape.Rank() > 1 {
			c.errorf(el, "a list holds numbers or lists of numbers, not a %s", t.Shape)
			return Tensor{}, false
		}
		if k == 0 {
			out.Shape = Shape{len(v.Elems)}
			if t.Shape.Rank() == 1 {
				out.Shape = Shape{len(v.Elems), t.Shape[0]}
			}
		} else if t.Shape.Rank() != out.Shape.Rank()-1 || t.Shape.Rank() == 1 && t.Shape[0] != out.Shape[1] {
			c.errorf(el, "list elements must all have the same shape")
			return Tensor{}, false
		}
		out.Data = append(out.Data, t.Data...)
	}
	return out, true
}

// hasInf reports whether a list literal holds inf or -inf as an element
// (or as an element of a row).
func hasInf(v *ast.Vector) bool {
	for _, el := range v.Elems {
		if _, ok := infBound(el); ok {
			return true
		}
		if w, ok := unparen(el).(*ast.Vector); ok && hasInf(w) {
			return true
		}
	}
	return false
}

// infBound reports whether a box bound is inf or -inf (a side without a
// bound), and which.
func infBound(e ast.Expr) (float64, bool) {
	sign := 1.0
	for {
		switch x := e.(type) {
		case *ast.Paren:
			e = x.X
			continue
		case *ast.Unary:
			if x.Op != "-" && x.Op != "+" {
				return 0, false
			}
			if x.Op == "-" {
				sign = -sign
			}
			e = x.X
			continue
		case *ast.Ident:
			if x.Name == "inf" {
				return math.Inf(int(sign)), true
			}
		}
		return 0, false
	}
}

func (c *checker) checkFuncDecl(d *ast.FuncDecl) *Func {
	fn := &Func{Name: d.Name.Name, Decl: d}
	seen := map[string]bool{}
	for _, p := range d.Params {
		if seen[p.Name] {
			c.errorf(p, "duplicate parameter %q in function %q", p.Name, fn.Name)
			return nil
		}
		seen[p.Name] = true
		fn.Params = append(fn.Params, p.Name)
	}
	return fn
}

// checkUnusedFunc reports unknown names in a function nobody calls (a called
// function's body is checked at each call).
func (c *checker) checkUnusedFunc(g *global) {
	d := g.decl.(*ast.FuncDecl)
	locals := map[string]bool{}
	for _, p := range d.Params {
		locals[p.Name] = true
	}
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Binder:
			locals[n.Name.Name] = true
			ast.Inspect(n.Set, visit)
			return false
		case *ast.Member:
			ast.Inspect(n.X, visit) // the field name is not a name in scope
			return false
		case *ast.Call:
			if _, ok := c.globals[n.Fun.Name]; !ok && c.reservedName(n.Fun.Name) == "" {
				c.errorf(n.Fun, "unknown function %q%s", n.Fun.Name, DidYouMean(n.Fun.Name, c.callableNames()))
			}
			for _, a := range n.Args {
				ast.Inspect(a.Value, visit)
			}
			return false
		case *ast.Comprehension:
			for _, b := range n.Binders {
				locals[b.Name.Name] = true
			}
			return true
		}
		return c.nameExists(n, locals)
	}
	ast.Inspect(d.Body, visit)
}

func (c *checker) nameExists(n ast.Node, locals map[string]bool) bool {
	id, ok := n.(*ast.Ident)
	if !ok {
		return true
	}
	if _, ok := c.globals[id.Name]; !ok && !locals[id.Name] && c.reservedName(id.Name) == "" && id.Name != "rows" {
		if h := c.unknownBodyEnd(id); h != "" {
			c.errorf(id, "unknown name %q: %s", id.Name, h)
			return true
		}
		cands := c.namesOfKind("")
		for l := range locals {
			cands = append(cands, l)
		}
		c.errorf(id, "unknown name %q%s", id.Name, DidYouMean(id.Name, cands))
	}
	return true
}

func (c *checker) callableNames() []string {
	out := append(stdlib.Names(), c.namesOfKind("function")...)
	return out
}

// ---------------------------------------------------------------------------
// Objective and constraints

func (c *checker) checkObjective(objs []*ast.Objective) {
	if len(objs) == 0 {
		pos := ast.Pos{Filename: c.m.File.Name, Line: 1, Column: 1}
		c.report(diag.Warning, pos, ast.Pos{}, "the model has no objective (minimize ...): qrc will look for a feasible point")
		return
	}
	for _, o := range objs[1:] {
		c.errorf(o, "a model has one objective; the first is at %s", objs[0].Pos())
	}
	o := objs[0]
	if o.Sense == "maximize" {
		c.errorf(&spanNode{o.Keyword, len(o.Sense)}, "maximize is not supported: qrc minimizes weakly convex functions; write minimize -(...) if the negation is weakly convex")
		return
	}
	x := c.expr(o.X, nil)
	if x == nil {
		return
	}
	if !x.Shape().IsScalar() {
		c.errorf(o.X, "the objective must be a scalar, not a %s", x.Shape())
		return
	}
	if x.Deps()&DepVar == 0 {
		c.warnf(o.X, "the objective does not depend on any variable")
	}
	c.m.Objective = &Objective{Src: o, Expr: x}
}

func (c *checker) checkConstraints(cs []*ast.Constraint) {
	names := map[string]*ast.Constraint{}
	for _, sc := range cs {
		if prev, ok := names[sc.Name.Name]; ok {
			c.errorf(sc.Name, "constraint %q redeclared; the first is at %s", sc.Name.Name, prev.Pos())
			continue
		}
		names[sc.Name.Name] = sc
		if g, ok := c.globals[sc.Name.Name]; ok {
			c.errorf(sc.Name, "constraint %q has the name of the %s declared at %s", sc.Name.Name, g.kind, g.decl.Pos())
			continue
		}
		switch sc.Op {
		case "!=":
			c.errorf(&opNode{sc}, "!= is not a constraint; constraints are lhs <= rhs, lhs >= rhs or lhs == rhs")
			continue
		case "<", ">":
			c.errorf(&opNode{sc}, "strict inequalities are not supported; write %s= (the solver returns points that satisfy constraints up to a tolerance)", sc.Op)
			continue
		}
		c.checkConstraintGroup(sc)
	}
}

// opNode spans a constraint's comparison operator.
type opNode struct{ c *ast.Constraint }

func (o *opNode) Pos() ast.Pos { return o.c.OpPos }
func (o *opNode) End() ast.Pos {
	e := o.c.OpPos
	e.Offset += len(o.c.Op)
	e.Column += len(o.c.Op)
	return e
}

func (c *checker) checkConstraintGroup(sc *ast.Constraint) {
	g := &ConstraintGroup{Name: sc.Name.Name, Src: sc}
	var binders []*Binder
	sco := &scope{names: map[string]Expr{}}
	for _, b := range sc.Binders {
		bd := c.binder(b, sco)
		if bd == nil {
			return
		}
		binders = append(binders, bd)
		sco.names[bd.Name] = &IndexVal{node: node{dep: DepIndex, src: b.Name}, Binder: bd}
	}
	count := 0
	err := forBinders(binders, nil, nil, func(env) (bool, error) {
		count++
		if count > 1e6 {
			return false, fmt.Errorf("more than a million constraints")
		}
		return true, nil
	})
	if err != nil {
		c.errorf(sc.Name, "cannot expand constraint %q: %v", g.Name, err)
		return
	}
	nerr := len(c.errs.Errors())
	err = forBinders(binders, nil, nil, func(ix env) (bool, error) {
		idx := make([]int, len(binders))
		inst := &scope{names: map[string]Expr{}}
		for k, b := range binders {
			idx[k] = ix[b]
			inst.names[b.Name] = &Const{node: node{src: b.Src.Name}, Value: Scalar(float64(ix[b]))}
		}
		name := g.Name
		if len(binders) > 0 {
			parts := make([]string, len(idx))
			for k, v := range idx {
				parts[k] = fmt.Sprint(v)
			}
			name += "[" + strings.Join(parts, ",") + "]"
			c.ctx = []string{"in " + name}
		}
		ci := c.constraintInstance(sc, inst, name, idx)
		c.ctx = nil
		if len(c.errs.Errors()) > nerr {
			return false, nil // the other instances would repeat the error
		}
		if ci == nil {
			return true, nil
		}
		ci.Group = g
		g.Instances = append(g.Instances, ci)
		return true, nil
	})
	if err != nil {
		c.errorf(sc.Name, "cannot expand constraint %q: %v", g.Name, err)
		return
	}
	if count == 0 {
		c.warnf(sc.Name, "constraint %q ranges over an empty set: it adds no constraint", g.Name)
	}
	c.m.Groups = append(c.m.Groups, g)
	c.m.Constraints = append(c.m.Constraints, g.Instances...)
}

func (c *checker) constraintInstance(sc *ast.Constraint, sco *scope, name string, idx []int) *Constraint {
	lhs := c.expr(sc.LHS, sco)
	rhs := c.expr(sc.RHS, sco)
	if lhs == nil || rhs == nil {
		return nil
	}
	for _, side := range []struct {
		x Expr
		n ast.Expr
	}{{lhs, sc.LHS}, {rhs, sc.RHS}} {
		if !side.x.Shape().IsScalar() {
			c.errorf(side.n, "each side of a constraint must be a scalar, not a %s; index the constraint, e.g. %s[j in 1..%d]: ... [j] ...",
				side.x.Shape(), sc.Name.Name, side.x.Shape()[0])
			return nil
		}
	}
	f := &Arith{node: node{dep: lhs.Deps() | rhs.Deps(), src: sc}, Op: "-", X: lhs, Y: rhs}
	if sc.Op == ">=" {
		f.X, f.Y = rhs, lhs
	}
	if f.dep&DepVar == 0 {
		t, err := eval(f, nil)
		switch {
		case err != nil:
			c.errorf(sc, "cannot evaluate constraint %s: %v", name, err)
		case math.IsNaN(t.Data[0]):
			c.errorf(sc, "constraint %s does not depend on any variable and is not a number (%s %s %s)", name,
				fmtNum(evalOr(lhs)), sc.Op, fmtNum(evalOr(rhs)))
		case t.Data[0] > 0 || sc.Op == "==" && t.Data[0] != 0:
			c.errorf(sc, "constraint %s does not depend on any variable and is violated (%s %s %s is false)", name,
				fmtNum(evalOr(lhs)), sc.Op, fmtNum(evalOr(rhs)))
		default:
			// named by its group, so that the instances share one warning
			c.warnf(sc, "constraint %s does not depend on any variable; it always holds", sc.Name.Name)
		}
		return nil
	}
	return &Constraint{Name: name, Index: idx, Op: sc.Op, LHS: lhs, RHS: rhs, F: f}
}

func evalOr(e Expr) float64 {
	t, err := eval(e, nil)
	if err != nil {
		return math.NaN()
	}
	return t.Data[0]
}

// exprText returns the source-like text of e (for summaries).

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// memberNames returns the names after a dot (x.name) anywhere in f,
// sorted, without repeats; not nil.
func memberNames(f *ast.File) []string {
	names := []string{}
	ast.Inspect(f, func(n ast.Node) bool {
		if m, ok := n.(*ast.Member); ok && m.Name != nil {
			names = append(names, m.Name.Name)
		}
		return true
	})
	slices.Sort(names)
	return slices.Compact(names)
}
