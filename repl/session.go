// Package repl is the interactive session behind qrc repl: a model built up
// statement by statement, checked as a whole after every change, with
// commands to solve it, evaluate expressions at the current point, show
// values and save the model.
//
// The session's model is a list of declarations (syntax trees, as parsed).
// A statement that declares a name already declared replaces that
// declaration; every change is checked together with the rest of the model
// and refused, with the checker's diagnostics, when it adds an error. The
// current point (a value for every variable) starts at the model's
// starting point and moves to each solve's result; declarations that keep
// a variable's shape keep its value.
//
// The package does no terminal handling: a LineReader supplies the lines
// (cmd/qrc edits them with liner on a terminal, reads them plainly from a
// script). :solve runs the qrc library's solve with the flags, output files
// and result report of qrc solve (solvecmd).
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/lang"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/solvecmd"
)

// InputName is the file name in the positions of typed input: diagnostics
// read <input>:LINE:COL, LINE counting the lines of the session's input.
const InputName = "<input>"

// sessionName is the file name of the session's model as a whole (the
// position of diagnostics about no particular declaration).
const sessionName = "<session>"

// Options configure a Session.
type Options struct {
	Out io.Writer // results
	Err io.Writer // diagnostics, notes and the solver's progress
	// Interactive is set when a person types at a terminal: the prompts,
	// the solver's progress and timings are shown. A script's output has
	// none of them, so that it is the same on every run.
	Interactive bool
	// Echo writes each input line to Out after the prompt, as a
	// transcript of a scripted session.
	Echo bool
	// Watch, when not nil, is called as a solve starts with the solve's
	// context: Ctrl-C cancels the returned context (which stops the solve)
	// until release is called.
	Watch func(ctx context.Context) (watched context.Context, release func())
}

// solveRequest is one :solve.
type solveRequest struct {
	args        []string // the flags, :set options first
	model       *check.Model
	prog        *autodiff.Program
	sources     check.Sources
	x0          []float64 // the warm start (or the model's start for --cold)
	ctx         context.Context
	out, err    io.Writer
	interactive bool
}

// runSolve solves a :solve request with the library, as qrc solve does
// (flags, output files, progress when interactive, the report), and
// returns the solver's result. The qrc.Model of the solve pairs the
// session's current checked model with its kept program (qrc.NewModel):
// docs/repl.md, "How it is built", says why the session does not load
// its model through qrc.Parse. The error is for bad flags or a solve that
// could not start; what goes wrong while solving is in the result.
func runSolve(req *solveRequest) (*solve.Result, error) {
	flags, opts, err := solvecmd.ParseArgs(req.args)
	if err != nil {
		return nil, err
	}
	ctx := req.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	run := &solvecmd.Run{Name: "repl", Model: qrc.NewModel("session", req.model, req.prog, req.sources), X0: req.x0,
		Flags: flags, Options: opts, Ctx: ctx, Stdout: req.out, Stderr: req.err,
		Progress: req.interactive, HideTime: !req.interactive}
	rep, _ := run.Solve()
	if rep == nil {
		return nil, errors.New("the solve did not start")
	}
	return rep.Result(), nil
}

// Session is an interactive modelling session. It is not safe for
// concurrent use.
type Session struct {
	opts    Options
	out     io.Writer
	errw    io.Writer
	in      Input
	lines   int    // input lines read
	text    []byte // every line of input so far, for diagnostics
	sources check.Sources
	decls   []ast.Decl
	model   *check.Model // nil while the session's model has errors
	diags   diag.List    // the last check's diagnostics
	gen     int          // counts accepted changes of the model
	cache   data.Cache
	comp    compiled
	cur     current
	last    *lastSolve
	solveFn func(*solveRequest) (*solve.Result, error) // runSolve; tests replace it
	set     []setting                                  // :set options
	failed  bool                                       // a statement or command failed
	quit    bool
}

// current is the current point.
type current struct {
	m    *check.Model // the model x is laid out for
	x    []float64
	from string // where it came from, for :show
}

// lastSolve is what :show reports about the last solve.
type lastSolve struct {
	gen         int // the model generation it solved
	status      string
	multipliers map[string]float64
}

// setting is one :set option.
type setting struct{ name, value string }

// New starts a session with an empty model.
func New(opts Options) *Session {
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	if opts.Err == nil {
		opts.Err = opts.Out
	}
	s := &Session{opts: opts, out: opts.Out, errw: opts.Err, solveFn: runSolve}
	s.in.NeedsMore = needsMore
	s.reset()
	return s
}

// reset empties the model (keeping the input read so far for diagnostics).
func (s *Session) reset() {
	s.sources = check.Sources{}
	s.decls = nil
	s.gen++
	s.last = nil
	s.set = nil
	s.cur = current{}
	s.comp = compiled{}
	m, diags := s.checkDecls(nil)
	s.model, s.diags = m, diags
}

// Failed reports whether a statement or command of the session failed (the
// exit status of a scripted session).
func (s *Session) Failed() bool { return s.failed }

// ErrInterrupted is returned by a LineReader when the user abandons the line
// with Ctrl-C.
var ErrInterrupted = errors.New("interrupted")

// LineReader supplies input lines.
type LineReader interface {
	// ReadLine shows prompt (when there is a person to see it) and returns
	// the next line without its line ending: io.EOF at the end of input
	// (Ctrl-D), ErrInterrupted when the line was abandoned (Ctrl-C).
	ReadLine(prompt string) (string, error)
}

// The prompts: a new statement, and a statement's continuation lines.
const (
	Prompt         = "qrc> "
	ContinuePrompt = "...> "
)

// Run reads and executes lines until the end of input or :quit.
func (s *Session) Run(r LineReader) error {
	for !s.quit {
		prompt := Prompt
		if s.in.Pending() {
			prompt = ContinuePrompt
		}
		line, err := r.ReadLine(prompt)
		if errors.Is(err, ErrInterrupted) {
			s.in.Reset()
			continue
		}
		if err == io.EOF {
			for _, st := range s.in.Flush() {
				s.exec(st)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if s.opts.Echo {
			fmt.Fprintf(s.out, "%s%s\n", prompt, line)
		}
		for _, st := range s.feed(line) {
			s.exec(st)
			if s.quit {
				break
			}
		}
	}
	return nil
}

// Exec executes text — one or more lines, as if typed — and reports
// whether every statement in it succeeded. An unfinished statement at the
// end of text is executed too.
func (s *Session) Exec(text string) bool {
	before := s.failed
	s.failed = false
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		for _, st := range s.feed(line) {
			s.exec(st)
		}
	}
	for _, st := range s.in.Flush() {
		s.exec(st)
	}
	ok := !s.failed
	s.failed = s.failed || before
	return ok
}

// feed records an input line and returns the statements it completes.
func (s *Session) feed(line string) []Statement {
	s.lines++
	s.text = append(append(s.text, line...), '\n')
	s.sources[InputName] = s.text
	return s.in.Add(line, s.lines)
}

// fail prints an error message and marks the session as failed.
func (s *Session) fail(format string, args ...any) {
	s.failed = true
	fmt.Fprintf(s.errw, format+"\n", args...)
}

// printDiags prints diagnostics with their source lines; those about the
// model as a whole have no position.
func (s *Session) printDiags(l diag.List) {
	for _, d := range l {
		if d.Pos.Filename == sessionName {
			fmt.Fprintf(s.errw, "%s: %s\n", d.Severity, d.Msg)
			continue
		}
		diag.Render(s.errw, d, s.sources[d.Pos.Filename])
	}
}

// exec executes one statement.
func (s *Session) exec(st Statement) {
	text := strings.TrimSpace(st.Text)
	switch {
	case strings.HasPrefix(text, ":"):
		s.command(st)
	case isLet(text):
		s.let(st)
	case isDrop(text):
		s.drop(st)
	default:
		s.declare(st)
	}
}

func isLet(text string) bool  { return keywordStatement(text, "let") }
func isDrop(text string) bool { return keywordStatement(text, "drop") }

// keywordStatement reports whether text is "word NAME ..." (and not a
// constraint named word).
func keywordStatement(text, word string) bool {
	w := firstWords(text, 2)
	return len(w) == 2 && w[0] == word && isIdentStart(w[1])
}

// padded returns src preceded by the lines before input line n and col-1
// spaces, so that positions in it are positions in the session's input.
func padded(n, col int, src string) []byte {
	return []byte(strings.Repeat("\n", max(n-1, 0)) + strings.Repeat(" ", max(col-1, 0)) + src)
}

// needsMore reports whether text is an unfinished declaration: the parser
// ran out of input. Only declarations (a keyword first, or a constraint
// with its colon) continue this way, so a stray word is an error at once.
func needsMore(text string) bool {
	w := firstWords(text, 1)
	if len(w) == 0 || strings.HasPrefix(w[0], ":") || keywordStatement(text, "let") || keywordStatement(text, "drop") {
		return false
	}
	if !lang.IsDeclKeyword(w[0]) && !strings.Contains(text, ":") {
		return false
	}
	_, errs := lang.Parse(InputName, []byte(text))
	return len(errs) > 0 && strings.HasPrefix(errs[0].Msg, "syntax error: unexpected end of file")
}

// declare executes a statement of declarations.
func (s *Session) declare(st Statement) {
	f, errs := lang.Parse(InputName, padded(st.Line, 1, st.Text))
	if errs != nil {
		s.failed = true
		s.printDiags(errs)
		return
	}
	decls := flatten(f)
	if len(decls) == 0 {
		return
	}
	s.change(decls, nil, st)
}

// declKey names what a declaration declares: globals and constraints are
// in separate name spaces, and there is one objective.
func declKey(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.DataDecl:
		return "g " + d.Name.Name
	case *ast.ParamDecl:
		return "g " + d.Name.Name
	case *ast.VarDecl:
		return "g " + d.Name.Name
	case *ast.FuncDecl:
		return "g " + d.Name.Name
	case *ast.Constraint:
		return "c " + d.Name.Name
	}
	return "objective"
}

// kindName returns the kind of declaration d ("data set", "parameter",
// "variable", "function", "constraint", "objective") and its name.
func kindName(d ast.Decl) (kind, name string) {
	switch d := d.(type) {
	case *ast.DataDecl:
		return "data set", d.Name.Name
	case *ast.ParamDecl:
		return "parameter", d.Name.Name
	case *ast.VarDecl:
		return "variable", d.Name.Name
	case *ast.FuncDecl:
		return "function", d.Name.Name
	case *ast.Constraint:
		return "constraint", d.Name.Name
	}
	return "objective", ""
}

// describe names a declaration for messages: "parameter K".
func describe(d ast.Decl) string {
	kind, name := kindName(d)
	if name == "" {
		return "the objective"
	}
	return kind + " " + name
}

// find returns the index of the declaration with key, or -1.
func (s *Session) find(key string) int {
	for i, d := range s.decls {
		if declKey(d) == key {
			return i
		}
	}
	return -1
}

// change applies new declarations (replacing those with the same names) and
// removals, checks the result, and keeps it unless it adds errors. It
// reports whether the change was kept. st is the statement that made it:
// new warnings inside it are printed, and each replaced declaration is
// reported unless the statement says so itself (let).
func (s *Session) change(add []ast.Decl, remove []string, st Statement) bool {
	next := slices.Clone(s.decls)
	var notes []string
	for _, key := range remove {
		if i := slices.IndexFunc(next, func(d ast.Decl) bool { return declKey(d) == key }); i >= 0 {
			next = slices.Delete(next, i, i+1)
		}
	}
	first := map[string]ast.Decl{}
	var dups diag.List
	for _, d := range add {
		key := declKey(d)
		if prev, ok := first[key]; ok {
			dups = append(dups, &diag.Diagnostic{Pos: d.Pos(), Msg: fmt.Sprintf("%s is declared twice; the first is at %s", describe(d), prev.Pos())})
			continue
		}
		first[key] = d
		if i := slices.IndexFunc(next, func(d ast.Decl) bool { return declKey(d) == key }); i >= 0 {
			old := next[i]
			next[i] = d
			if j := s.find(key); j >= 0 && s.decls[j] == old && !isLet(st.Text) && !strings.HasPrefix(st.File, "--data ") {
				notes = append(notes, fmt.Sprintf("redefined %s (was: %s)", describe(d), oneLine(old)))
			}
			continue
		}
		next = append(next, d)
	}
	if len(dups) > 0 {
		s.failed = true
		s.printDiags(dups)
		fmt.Fprintf(s.errw, "%d error%s: the model is unchanged\n", len(dups), plural(len(dups)))
		return false
	}
	m, diags := s.checkDecls(next)
	if added := newErrors(diags, s.diags); len(added) > 0 {
		s.failed = true
		s.printDiags(added)
		n := len(added)
		fmt.Fprintf(s.errw, "%d error%s: the model is unchanged\n", n, plural(n))
		return false
	}
	var warn diag.List
	for _, d := range newWarnings(diags, s.diags) {
		// A variable declared before the objective and constraints that use
		// it is the normal way to build a model at the prompt: :check
		// reports unused variables, statements do not.
		if inStatement(d, st) && (st.File != "" || !strings.Contains(d.Msg, "is not used by the objective or any constraint")) {
			warn = append(warn, d)
		}
	}
	s.printDiags(warn)
	for _, n := range notes {
		fmt.Fprintln(s.errw, n)
	}
	s.decls, s.model, s.diags = next, m, diags
	s.gen++
	if m != nil {
		s.movePoint()
	}
	return true
}

// inStatement reports whether diagnostic d points into statement st (typed
// input) or into the file st loads.
func inStatement(d *diag.Diagnostic, st Statement) bool {
	if st.File != "" {
		return d.Pos.Filename == st.File
	}
	if d.Pos.Filename != InputName {
		return false
	}
	n := strings.Count(st.Text, "\n")
	return d.Pos.Line >= st.Line && d.Pos.Line <= st.Line+n
}

// newErrors returns the errors of l that were not in old (a model can have
// errors the session did not cause: a data file that went away).
func newErrors(l, old diag.List) diag.List { return diff(l.Errors(), old.Errors()) }

func newWarnings(l, old diag.List) diag.List { return diff(l.Warnings(), old.Warnings()) }

func diff(l, old diag.List) diag.List {
	seen := map[string]bool{}
	for _, d := range old {
		seen[d.Error()] = true
	}
	var out diag.List
	for _, d := range l {
		if !seen[d.Error()] {
			out = append(out, d)
		}
	}
	return out
}

// checkDecls checks a list of declarations as one model.
func (s *Session) checkDecls(decls []ast.Decl) (*check.Model, diag.List) {
	f := &ast.File{Name: sessionName, Decls: decls}
	return check.Check(f, check.Options{Dir: ".", Loader: modelfile.Data{Cache: &s.cache}})
}

// oneLine is a declaration's text on one line, shortened.
func oneLine(d ast.Decl) string {
	t := strings.Join(strings.Fields(declText(d, false)), " ")
	if len(t) > 70 {
		t = t[:67] + "..."
	}
	return t
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// let executes "let NAME = EXPR".
func (s *Session) let(st Statement) {
	text := st.Text
	lead := len(text) - len(strings.TrimLeft(text, " \t"))
	rest := text[lead+len("let"):]
	nameStart := lead + len("let") + len(rest) - len(strings.TrimLeft(rest, " \t"))
	w := firstWords(text[nameStart:], 2)
	name := w[0]
	if len(w) < 2 || w[1] != "=" {
		s.fail("%s:%d:%d: let NAME = EXPR: expected = after %s", InputName, st.Line, nameStart+1, name)
		return
	}
	eq := strings.Index(text[nameStart:], "=") + nameStart
	i := s.find("g " + name)
	old, ok := (*ast.ParamDecl)(nil), false
	if i >= 0 {
		old, ok = s.decls[i].(*ast.ParamDecl)
	}
	if !ok {
		what := "not declared"
		if i >= 0 {
			kind, _ := kindName(s.decls[i])
			what = "a " + kind
		}
		s.fail("%s:%d:%d: let changes a parameter; %s is %s%s", InputName, st.Line, nameStart+1, name, what,
			check.DidYouMean(name, s.names("parameter")))
		return
	}
	line, col := st.Line+strings.Count(text[:eq+1], "\n"), eq+2
	if nl := strings.LastIndex(text[:eq+1], "\n"); nl >= 0 {
		col = eq + 1 - nl
	}
	x, errs := lang.ParseExpr(InputName, padded(line, col, text[eq+1:]))
	if errs != nil {
		s.failed = true
		s.printDiags(errs)
		return
	}
	id := &ast.Ident{NamePos: ast.Pos{Filename: InputName, Line: st.Line, Column: nameStart + 1, Offset: nameStart}, Name: name}
	d := &ast.ParamDecl{Doc: old.Doc, Keyword: id.NamePos, Name: id, Value: x, Comment: old.Comment}
	var was string
	if p := s.param(name); p != nil {
		was = p.Value.String()
	}
	if !s.change([]ast.Decl{d}, nil, st) {
		return
	}
	if p := s.param(name); p != nil {
		if was != "" {
			fmt.Fprintf(s.out, "%s = %s (was %s)\n", name, p.Value, was)
		} else {
			fmt.Fprintf(s.out, "%s = %s\n", name, p.Value)
		}
	}
}

// drop executes "drop NAME": it removes a constraint, or any other
// declaration nothing else uses.
func (s *Session) drop(st Statement) {
	w := firstWords(st.Text, 3)
	name := w[1]
	if len(w) > 2 {
		s.fail("%s:%d: drop takes one name: drop NAME", InputName, st.Line)
		return
	}
	key := "c " + name
	i := s.find(key)
	if i < 0 {
		key = "g " + name
		i = s.find(key)
	}
	if i < 0 {
		s.fail("%s:%d: drop: nothing is declared as %s%s", InputName, st.Line, name, check.DidYouMean(name, s.names("")))
		return
	}
	what := describe(s.decls[i])
	if s.change(nil, []string{key}, st) {
		fmt.Fprintf(s.out, "dropped %s\n", what)
	}
}

// names lists the names the model declares of a kind ("parameter",
// "variable", "data set", "function", "constraint"; "" for all).
func (s *Session) names(kind string) []string {
	var out []string
	for _, d := range s.decls {
		k, name := kindName(d)
		if name != "" && (kind == "" || k == kind) {
			out = append(out, name)
		}
	}
	return out
}

// param returns the checked parameter name, or nil.
func (s *Session) param(name string) *check.Param {
	if s.model == nil {
		return nil
	}
	for _, p := range s.model.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Load adds the declarations of the model file path to the session (as
// :load does) and reports whether it succeeded.
func (s *Session) Load(path string) bool {
	return s.load(path, Statement{File: path})
}

// SetDataPath makes data set name read the file path (relative to the
// working directory), as --data NAME=PATH does.
func (s *Session) SetDataPath(name, path string) bool {
	i := s.find("g " + name)
	var d *ast.DataDecl
	if i >= 0 {
		d, _ = s.decls[i].(*ast.DataDecl)
	}
	if d == nil {
		s.fail("--data %s: the model has no data set %q%s", name, name, check.DidYouMean(name, s.names("data set")))
		return false
	}
	nd := *d
	call, ok := d.Source.(*ast.Call)
	if !ok || len(call.Args) == 0 {
		s.fail("--data %s: the data set has no file to replace", name)
		return false
	}
	nc := *call
	nc.Args = slices.Clone(call.Args)
	lit := &ast.String{ValuePos: call.Args[0].Value.Pos(), Value: path}
	if old, ok := call.Args[0].Value.(*ast.String); ok {
		lit.ValuePos = old.ValuePos
	}
	nc.Args[0] = &ast.Arg{Name: call.Args[0].Name, Value: lit}
	nd.Source = &nc
	return s.change([]ast.Decl{&nd}, nil, Statement{File: "--data " + name})
}

// relocate rewrites the relative data paths of a file's declarations,
// which are relative to the file, as paths relative to the working
// directory (the session's data paths are).
func relocate(decls []ast.Decl, dir string) {
	for _, d := range decls {
		dd, ok := d.(*ast.DataDecl)
		if !ok {
			continue
		}
		call, ok := dd.Source.(*ast.Call)
		if !ok || len(call.Args) == 0 || call.Args[0].Name != nil {
			continue
		}
		str, ok := call.Args[0].Value.(*ast.String)
		if !ok || filepath.IsAbs(str.Value) {
			continue
		}
		// Value is what the checker reads; Lit, the text as written in the
		// file, keeps the positions of diagnostics right. :save writes
		// Value, relative to the saved file.
		str.Value = filepath.Join(dir, str.Value)
	}
}

// flatten lists f's declarations with every subject to block replaced by
// its constraints: the session keeps constraints one by one.
func flatten(f *ast.File) []ast.Decl {
	var decls []ast.Decl
	for _, d := range f.Decls {
		if sub, ok := d.(*ast.SubjectTo); ok {
			for _, c := range sub.Constraints {
				decls = append(decls, c)
			}
			continue
		}
		decls = append(decls, d)
	}
	return decls
}
