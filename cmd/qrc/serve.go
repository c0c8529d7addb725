package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/qrc-lang/qrc/serve"
)

var serveCommand = &command{
	name:    "serve",
	summary: "answer JSON requests on standard input: the Python package's solver",
	usage: `Usage: qrc serve

Serve keeps models loaded and solves them for a client program — the
Python package in python/ — that writes one JSON request a line on standard
input and reads one JSON response a line on standard output: data tables
sent once through the pipe, models loaded from a file or a text with
parameters, solves with qrc solve's flags and a start (a previous
result: a warm re-solve), progress events while a solve runs, and
{"op": "interrupt"} to stop it with the best point so far. docs/python.md
describes the protocol.

Ctrl-C (SIGINT) stops a running solve as the interrupt request does; with
no solve running it ends the server. The end of standard input ends it
too, stopping a running solve.

Exit status: 0 at the end of the input; 2 when the pipe fails (a request
line beyond 256 MiB, a write that fails); 130 on Ctrl-C with no solve.
`,
}

func init() { serveCommand.run = runServe }

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", serveCommand.usage, stderr)
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "qrc serve: takes no arguments; \"qrc help serve\" shows the usage\n")
		return exitUsage
	}
	s := serve.New(stdin, stdout)
	s.Version = versionLine()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	go func() {
		for range sig {
			if !s.Interrupt() {
				os.Exit(exitInterrupted)
			}
		}
	}()
	if err := s.Serve(); err != nil {
		fmt.Fprintf(stderr, "qrc serve: %v\n", err)
		return exitUsage
	}
	return exitOK
}
