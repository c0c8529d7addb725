package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/summary"
)

var checkCommand = &command{
	name:    "check",
	summary: "parse and check a model, and summarise it",
	usage: `Usage: qrc check [flags] MODEL.qrc

Check parses and checks a model and prints a summary: each data set (rows,
features, label values), parameter, variable (shape, domain, start), the
objective, every constraint with indexed constraints expanded, and the number
of scalar decision variables. Errors and warnings go to standard error as
file:line:col: message, with the source line and a caret.

Exit status: 0 when the model is valid, 1 when it has errors, 2 for a bad
command line.

Flags:
  --json             print the summary (and diagnostics) as one JSON object on
                     standard output; see docs/cli.md for its fields
  --set NAME=EXPR    override parameter NAME with the expression EXPR
                     (repeatable), e.g. --set r=3 --set lambda=0.5
  --data NAME=PATH   read data set NAME from PATH instead of the model's file,
                     with the same loader (repeatable), e.g.
                     --data train=../shared/data/pendigits
`,
}

func init() { checkCommand.run = runCheck }

// modelFlags are the flags every command that loads a model takes.
type modelFlags struct {
	set, data assignList
}

func (m *modelFlags) options() check.Options {
	return check.Options{Set: m.set, Data: m.data}
}

func runCheck(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", checkCommand.usage, stderr)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	var mf modelFlags
	fs.Var(&mf.set, "set", "override a parameter: NAME=EXPR")
	fs.Var(&mf.data, "data", "replace a data file: NAME=PATH")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "qrc check: want one model file, got %d\n\n", len(files))
		fs.Usage()
		return exitUsage
	}
	m, sources, diags := check.LoadFile(files[0], mf.options())
	s := summary.Of(files[0], m, diags)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			fmt.Fprintf(stderr, "qrc check: %v\n", err)
			return exitUsage
		}
	} else {
		diags.Print(stderr, sources)
		if m != nil {
			s.Text(stdout)
		}
	}
	if m == nil {
		if !*asJSON {
			n := len(diags.Errors())
			fmt.Fprintf(stderr, "%s: %d error%s\n", files[0], n, map[bool]string{true: "", false: "s"}[n == 1])
		}
		return exitInvalid
	}
	return exitOK
}
