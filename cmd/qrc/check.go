package main

import (
	"fmt"
	"io"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/solvecmd"
	"github.com/qrc-lang/qrc/summary"
	"github.com/qrc-lang/qrc/weakconvex"
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

It ends with the weak-convexity analysis (docs/analysis.md): for the
objective and every constraint, "weakly convex: rho <= R, M <= M, smooth"
(the function is R-weakly convex on the domain with subgradients of norm
at most M) or "not provably weakly convex" with the subexpression and the
reason, and the verdict for the model.

Exit status: 0 when the model is valid, 1 when it has errors, 2 for a bad
command line.

Flags:
  --json             print the summary (and diagnostics) as one JSON object on
                     standard output; see docs/cli.md for its fields
  --explain NAME     print the weak-convexity derivation of the function NAME
                     (objective, or a constraint such as cap[2]): every
                     subexpression with its rule, range, rho and M
` + modelFlagsUsage,
}

func init() { checkCommand.run = runCheck }

// modelFlags are the flags every command that loads a model takes.
type modelFlags struct {
	set, data assignList
}

func (m *modelFlags) options() []qrc.Option {
	var opts []qrc.Option
	for _, a := range m.set {
		opts = append(opts, qrc.WithParamExpr(a.Name, a.Value))
	}
	for _, a := range m.data {
		opts = append(opts, qrc.WithDataFile(a.Name, a.Value))
	}
	return opts
}

// checkOptions are the flags as the checker's options.
func (m *modelFlags) checkOptions() check.Options {
	return check.Options{Set: m.set, Data: m.data, RequireVariables: true, UsedColumns: true}
}

func runCheck(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", checkCommand.usage, stderr)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	explain := fs.String("explain", "", "print the weak-convexity derivation of a function")
	var mf modelFlags
	mf.register(fs)
	file, ok := modelFile(fs, "check", args, stderr)
	if !ok {
		return exitUsage
	}
	if *explain != "" && *asJSON {
		fmt.Fprintln(stderr, "qrc check: --explain prints text; it does not combine with --json")
		return exitUsage
	}
	m, sources, diags := modelfile.Load(file, mf.checkOptions())
	// the diagnostics name the flags that gave an override (--set r), here
	// and in the JSON summary
	diags, sources = solvecmd.DiagsToFlags(diags), solvecmd.SourcesToFlags(sources)
	s := summary.Of(file, m, diags)
	var wc *weakconvex.Report
	if m != nil {
		wc = weakconvex.Analyze(m)
	}
	if *explain != "" && m != nil {
		diags.Print(stderr, sources)
		if err := wc.Explain(stdout, *explain); err != nil {
			fmt.Fprintf(stderr, "qrc check: --explain: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	if *asJSON {
		out := checkJSON{Summary: s}
		if wc != nil {
			out.WeakConvexity = wc.JSON()
		}
		if err := writeJSON(stdout, out); err != nil {
			fmt.Fprintf(stderr, "qrc check: %v\n", err)
			return exitUsage
		}
	} else {
		diags.Print(stderr, sources)
		if m != nil {
			s.Text(stdout)
			wc.Text(stdout)
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

// checkJSON is qrc check's JSON: the summary's fields and the
// weak-convexity analysis (null for an invalid model).
type checkJSON struct {
	*summary.Summary
	WeakConvexity *weakconvex.JSON `json:"weak_convexity"`
}
