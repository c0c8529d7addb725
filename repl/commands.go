package repl

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/solvecmd"
)

// command is a REPL command, typed as :NAME ARGS.
type command struct {
	name    string
	args    string // the argument synopsis
	summary string
	help    string // more, for :help NAME
	run     func(s *Session, arg string, st Statement, col int)
}

// commands is filled in init (the help command lists them).
var commands []*command

// aliases are other names of commands.
var aliases = map[string]string{"q": "quit", "exit": "quit", "h": "help", "?": "help"}

func init() {
	commands = []*command{
		{"solve", "[FLAGS]", "solve the model, warm-started from the current point",
			`Solves the session's model with the flags of qrc solve (qrc help solve),
after the options of :set. It starts from the current point — the last
solution — unless --cold is given, which starts from the model's starting
point. Ctrl-C stops the solve and keeps the best point so far. The result
becomes the current point; :show reports the constraints' multipliers.`,
			(*Session).solveCmd},
		{"eval", "EXPR", "the value of an expression at the current point, with its shape",
			`Evaluates an expression of the model's names at the current point, e.g.
:eval loss(2), :eval W[1], :eval norm2(x) - 1. The value is printed with its
shape (scalar, vector of length n, m×n matrix).`,
			(*Session).evalCmd},
		{"grad", "EXPR", "a subgradient of a scalar expression at the current point",
			`Prints a subgradient of a scalar expression at the current point, the one
the solver would use, per variable, and its norm.`,
			(*Session).gradCmd},
		{"show", "[NAME]", "the model, or a name's value",
			`Without a name, summarises the model and the current point. With a name:
a variable's value at the current point; a constraint's value f = lhs - rhs
(rhs - lhs for >=), slack and multiplier from the last solve, for each of its
instances; a parameter's value; a data set; a function; "objective" for the
objective's value.`,
			(*Session).showCmd},
		{"check", "", "check the model and print every diagnostic",
			`Checks the session's model again (data files are read again if they
changed) and prints all its errors and warnings.`,
			(*Session).checkCmd},
		{"load", "FILE", "add the declarations of a model file",
			`Adds every declaration of a .qrc file to the session; declarations of names
the session already has replace them. Data paths in the file are relative to
the file.`,
			(*Session).loadCmd},
		{"save", "FILE", "write the model as a formatted .qrc file",
			`Writes the session's model, in canonical layout, to FILE; qrc solve FILE
solves the same model. Data paths are written relative to FILE's directory.`,
			(*Session).saveCmd},
		{"set", "[OPTION=VALUE ...]", "solver settings for :solve",
			`Sets options of :solve, named as the flags of qrc solve without the dashes:
:set inner=2000 eps=1e-4. OPTION= removes one; :set alone lists them.`,
			(*Session).setCmd},
		{"reset", "[point]", "empty the model (or: move the point back to the start)",
			`:reset removes every declaration, the solution and the settings.
:reset point moves the current point back to the model's starting point.`,
			(*Session).resetCmd},
		{"help", "[COMMAND]", "this list, or a command's help", "", (*Session).helpCmd},
		{"quit", "", "end the session (also Ctrl-D)", "", func(s *Session, _ string, _ Statement, _ int) { s.quit = true }},
	}
}

// statementHelp documents the statements.
const statementHelp = `Statements:
  data, param, var, func, minimize, name: lhs <= rhs, subject to ...
                       declare, as in a .qrc file; declaring a name again
                       replaces its declaration. A subject to block ends at
                       a blank line.
  let NAME = EXPR      change parameter NAME
  drop NAME            remove constraint NAME (or another unused declaration)

A statement continues on the next line while a bracket is open or the line
ends with an operator; a blank line ends it. Tab completes names, keywords
and commands; Ctrl-C clears the line or stops a solve; Ctrl-D quits.
`

func lookupCommand(name string) *command {
	if a, ok := aliases[name]; ok {
		name = a
	}
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func commandNames() []string {
	var out []string
	for _, c := range commands {
		out = append(out, c.name)
	}
	return out
}

// command executes a :command statement.
func (s *Session) command(st Statement) {
	text := st.Text
	lead := len(text) - len(strings.TrimLeft(text, " \t"))
	body := text[lead+1:]
	name := body
	arg := ""
	if i := strings.IndexAny(body, " \t"); i >= 0 {
		name, arg = body[:i], body[i:]
	}
	col := lead + 1 + len(name) + 1 + len(arg) - len(strings.TrimLeft(arg, " \t"))
	arg = strings.TrimSpace(arg)
	c := lookupCommand(name)
	if c == nil {
		s.fail("unknown command :%s%s; :help lists the commands", name, suggestCommand(name))
		return
	}
	c.run(s, arg, st, col)
}

func suggestCommand(name string) string {
	if sug := check.DidYouMean(name, commandNames()); sug != "" {
		return strings.Replace(sug, `"`, `":`, 1)
	}
	return ""
}

func (s *Session) helpCmd(arg string, _ Statement, _ int) {
	arg = strings.TrimPrefix(arg, ":")
	if arg == "" {
		fmt.Fprintln(s.out, "Commands:")
		tw := tabwriter.NewWriter(s.out, 0, 0, 2, ' ', 0)
		for _, c := range commands {
			fmt.Fprintf(tw, "  :%s %s\t%s\n", c.name, c.args, c.summary)
		}
		tw.Flush()
		fmt.Fprintln(s.out)
		fmt.Fprint(s.out, statementHelp)
		return
	}
	if arg == "let" || arg == "drop" {
		fmt.Fprint(s.out, statementHelp)
		return
	}
	c := lookupCommand(arg)
	if c == nil {
		s.fail("no help for %q: it is not a command%s", arg, suggestCommand(arg))
		return
	}
	fmt.Fprintf(s.out, ":%s %s\n    %s\n", c.name, c.args, c.summary)
	if c.help != "" {
		fmt.Fprintf(s.out, "\n%s\n", c.help)
	}
}

// needModel reports whether the session has a valid model, explaining when
// it does not.
func (s *Session) needModel() bool {
	if s.model == nil {
		s.fail("the model has errors; :check lists them")
		return false
	}
	return true
}

func (s *Session) solveCmd(arg string, _ Statement, _ int) {
	if !s.needModel() {
		return
	}
	if len(s.model.Vars) == 0 {
		s.fail(":solve: the model has no variables; declare some with var")
		return
	}
	var args []string
	for _, o := range s.set {
		args = append(args, "--"+o.name+"="+o.value)
	}
	cold := false
	for _, a := range strings.Fields(arg) {
		if a == "--cold" || a == "-cold" {
			cold = true
			continue
		}
		args = append(args, a)
	}
	if _, _, err := solvecmd.ParseArgs(args); err != nil {
		s.fail(":solve: %v", err)
		return
	}
	began := time.Now()
	prog, reused, err := s.program()
	if err != nil {
		s.failed = true
		s.printCompileError(err)
		return
	}
	if s.opts.Interactive && !reused {
		fmt.Fprintf(s.errw, "compiled the model in %.3g ms\n", float64(time.Since(began).Microseconds())/1000)
	}
	x0 := slices.Clone(s.cur.x)
	if cold {
		s.startPoint()
		x0 = slices.Clone(s.cur.x)
	}
	req := &solveRequest{args: args, model: s.model, prog: prog, sources: s.sources, x0: x0,
		out: s.out, err: s.errw, interactive: s.opts.Interactive}
	if s.opts.Watch != nil {
		ctx, release := s.opts.Watch(context.Background())
		defer release()
		req.ctx = ctx
	}
	if s.opts.Interactive {
		fmt.Fprintf(s.errw, "solving from %s; Ctrl-C stops the solve and keeps the best point so far\n", s.cur.from)
	}
	res, err := s.solveFn(req)
	prog.ResetSamples() // a stochastic solve leaves the program on a minibatch
	if err != nil {
		s.fail(":solve: %v", err)
		return
	}
	if len(res.X) == len(x0) {
		s.cur = current{m: s.model, x: slices.Clone(res.X), from: "the last solve (" + res.Status.String() + ")"}
	}
	last := &lastSolve{gen: s.gen, status: res.Status.String(), multipliers: map[string]float64{}}
	if c := res.Certificate; c != nil {
		for i, k := range s.model.Constraints {
			if i < len(c.Multipliers) {
				last.multipliers[k.Name] = c.Multipliers[i]
			}
		}
	}
	s.last = last
	if res.Status.String() == "numerical_error" {
		s.failed = true
	}
}

func (s *Session) checkCmd(_ string, _ Statement, _ int) {
	m, diags := s.checkDecls(s.decls)
	s.printDiags(diags)
	s.model, s.diags = m, diags
	if m == nil {
		n := len(diags.Errors())
		s.fail("the model has %d error%s", n, plural(n))
		return
	}
	s.movePoint()
	fmt.Fprintf(s.out, "valid model: %d variable%s (%d scalar%s), %d constraint%s\n", len(m.Vars), plural(len(m.Vars)),
		m.NumScalars, plural(m.NumScalars), len(m.Constraints), plural(len(m.Constraints)))
}

func (s *Session) loadCmd(arg string, st Statement, _ int) {
	if arg == "" {
		s.fail(":load FILE: which file?")
		return
	}
	path := unquote(arg)
	if s.load(path, Statement{File: path, Line: st.Line}) {
		fmt.Fprintf(s.out, "loaded %s\n", path)
	}
}

func (s *Session) resetCmd(arg string, _ Statement, _ int) {
	switch arg {
	case "":
		s.reset()
		fmt.Fprintln(s.out, "the model is empty")
	case "point":
		if !s.needModel() {
			return
		}
		s.startPoint()
		fmt.Fprintln(s.out, "the current point is the starting point")
	default:
		s.fail(":reset takes nothing or \"point\", not %q", arg)
	}
}

func (s *Session) setCmd(arg string, _ Statement, _ int) {
	if arg == "" {
		if len(s.set) == 0 {
			fmt.Fprintln(s.out, "no options set (:set OPTION=VALUE; the options are the flags of qrc solve)")
		}
		for _, o := range s.set {
			fmt.Fprintf(s.out, "%s=%s\n", o.name, o.value)
		}
		return
	}
	next := slices.Clone(s.set)
	for _, a := range strings.Fields(arg) {
		name, value, ok := strings.Cut(a, "=")
		name = strings.TrimLeft(name, "-")
		if !ok || name == "" {
			s.fail(":set %s: want OPTION=VALUE", a)
			return
		}
		next = slices.DeleteFunc(next, func(o setting) bool { return o.name == name })
		if value != "" {
			next = append(next, setting{name, value})
		}
	}
	var args []string
	for _, o := range next {
		if o.name == "cold" {
			s.fail(":set: cold is not a setting; use :solve --cold")
			return
		}
		args = append(args, "--"+o.name+"="+o.value)
	}
	if _, _, err := solvecmd.ParseArgs(args); err != nil {
		s.fail(":set: %v", err)
		return
	}
	s.set = next
}

// unquote removes the quotes around a file name typed as a string.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}
