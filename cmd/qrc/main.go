// Command qrc is the qrc modelling language's command-line tool.
//
// Usage:
//
//	qrc check [flags] MODEL.qrc      parse and check a model, print its summary
//	qrc solve [flags] MODEL.qrc      find a feasible, nearly stationary point
//	qrc sweep --over P=V1,V2 ...     solve for each value of a parameter, warm-started
//	qrc compare [flags] MODEL.qrc    run methods side by side: traces, Figure 1, a summary
//	qrc plot TRACE.csv... -o FILE    redraw Figure 1 from saved traces
//	qrc eval [flags] MODEL.qrc       evaluate the objective and constraints at a point
//	qrc gradcheck [flags] MODEL.qrc  compare subgradients with finite differences
//	qrc bench [flags] MODEL.qrc      time full evaluations of a model
//	qrc fmt [-w] [-l] MODEL.qrc...   print models in canonical layout
//	qrc repl [flags] [MODEL.qrc]     an interactive session on a model
//	qrc help [COMMAND]               show help
//	qrc version                      print the version
//
// See docs/cli.md for every flag and the JSON output.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/solvecmd"
)

// version is the tool's version, set at build time with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes.
const (
	exitOK      = 0 // success
	exitInvalid = 1 // the model has errors (or fmt -l found unformatted files)
	exitUsage   = 2 // the command line is wrong, or an output file cannot be written
	// qrc solve also exits 3, 4, 5 and 130: solvecmd.StatusExit.
)

func main() {
	// A closed pipe on standard output or error is an error to report
	// (and the result is still written to --out), not a silent death by
	// SIGPIPE in the middle of writing files.
	stdout, stderr := solvecmd.Stdio()
	code := run(os.Args[1:], os.Stdin, stdout, stderr)
	os.Exit(solvecmd.Finish("qrc", code, stdout, stderr))
}

// command is a subcommand of qrc.
type command struct {
	name    string
	summary string
	usage   string // the full help text
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands []*command

func init() {
	commands = []*command{checkCommand, solveCommand, sweepCommand, compareCommand, plotCommand, evalCommand, gradcheckCommand, benchCommand, fmtCommand, replCommand, serveCommand}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run executes qrc with args and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		mainUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if args[1] == "version" {
				fmt.Fprint(stdout, versionUsage)
				return exitOK
			}
			if c := lookup(args[1]); c != nil {
				fmt.Fprint(stdout, c.usage)
				return exitOK
			}
			fmt.Fprintf(stderr, "qrc help: unknown command %q\n", args[1])
			return exitUsage
		}
		mainUsage(stdout)
		return exitOK
	case "version", "-version", "--version":
		if len(args) > 1 {
			fmt.Fprintf(stderr, "qrc version: takes no arguments; \"qrc help version\" says what it prints\n")
			return exitUsage
		}
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	}
	c := lookup(args[0])
	fileio.ForgetInputs() // the inputs of an earlier command in this process
	if c == nil {
		fmt.Fprintf(stderr, "qrc: unknown command %q\n\n", args[0])
		mainUsage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

// versionUsage is the help of qrc version.
const versionUsage = `Usage: qrc version

Version prints qrc's version, the Go version it was built with, and, when
it was built from a git checkout (go build or go install in a clone), the
commit and whether the tree had uncommitted changes, e.g.

	qrc 0.1.0-dev (go1.26.8, commit 3f2a9c1d0b7e, modified)

"qrc --version" is the same.
`

// versionLine is the line qrc version prints.
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Sprintf("qrc %s (%s)", version, runtime.Version())
	}
	parts := []string{info.GoVersion}
	var rev string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		parts = append(parts, "commit "+rev[:min(12, len(rev))])
		if modified {
			parts = append(parts, "modified")
		}
	}
	return fmt.Sprintf("qrc %s (%s)", version, strings.Join(parts, ", "))
}

func mainUsage(w io.Writer) {
	fmt.Fprint(w, `qrc is a modelling language and solver for nonsmooth, weakly convex
optimization with weakly convex constraints.

Usage:

	qrc <command> [flags] [arguments]

Commands:

`)
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `	help       show help for a command
	version    print qrc's version

Run "qrc help <command>" for a command's flags.
`)
}
