package main

import (
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
` + modelFlagsUsage,
}

func init() { checkCommand.run = runCheck }

// modelFlags are the flags every command that loads a model takes.
type modelFlags struct {
	set, data assignList
}

func (m *modelFlags) options() check.Options {
	return check.Options{Set: m.set, Data: m.data, RequireVariables: true}
}

func runCheck(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", checkCommand.usage, stderr)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	var mf modelFlags
	mf.register(fs)
	file, ok := modelFile(fs, "check", args, stderr)
	if !ok {
		return exitUsage
	}
	m, sources, diags := check.LoadFile(file, mf.options())
	s := summary.Of(file, m, diags)
	if *asJSON {
		if err := writeJSON(stdout, s); err != nil {
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
			printErrorCount(stderr, file, len(diags.Errors()))
		}
		return exitInvalid
	}
	return exitOK
}
