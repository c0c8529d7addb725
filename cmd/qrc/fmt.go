package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/format"
	"github.com/qrc-lang/qrc/limits"
)

var fmtCommand = &command{
	name:    "fmt",
	summary: "print models in canonical layout",
	usage: `Usage: qrc fmt [-w] [-l] MODEL.qrc...

Fmt prints each model in qrc's canonical layout (docs/language.md, "Layout"):
one declaration per line, aligned parameter and function definitions, long
expressions broken before + and - and after comprehension headers, and every
comment kept. Formatting a formatted model changes nothing. With no file, fmt
reads standard input.

Exit status: 0 on success, 1 when a model has a syntax error (or, with -l,
when some file is not formatted), 2 for a bad command line.

Flags:
  -w   write the result back to each file instead of printing it
       (files already formatted are left untouched)
  -l   list the files whose formatting differs, print nothing else
`,
}

func init() { fmtCommand.run = runFmt }

func runFmt(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("fmt", fmtCommand.usage, stderr)
	write := fs.Bool("w", false, "rewrite files in place")
	list := fs.Bool("l", false, "list files whose formatting differs")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(files) == 0 {
		if *write {
			fmt.Fprintln(stderr, "qrc fmt: -w needs file names")
			return exitUsage
		}
		src, err := io.ReadAll(io.LimitReader(stdin, limits.MaxSourceBytes+1))
		if err != nil {
			fmt.Fprintf(stderr, "qrc fmt: %v\n", err)
			return exitUsage
		}
		return fmtOne("<stdin>", src, false, *list, stdout, stderr)
	}
	code := exitOK
	for _, path := range files {
		src, err := fileio.ReadFile(path, limits.MaxSourceBytes)
		if err != nil {
			fmt.Fprintf(stderr, "qrc fmt: %v\n", err)
			code = max(code, exitUsage)
			continue
		}
		code = max(code, fmtOne(path, src, *write, *list, stdout, stderr))
	}
	return code
}

func fmtOne(path string, src []byte, write, list bool, stdout, stderr io.Writer) int {
	out, diags := format.Source(path, src)
	if diags.HasErrors() {
		diags.Print(stderr, check.Sources{path: src})
		return exitInvalid
	}
	changed := !bytes.Equal(out, src)
	switch {
	case list:
		if changed {
			fmt.Fprintln(stdout, path)
			return exitInvalid
		}
	case write:
		if changed {
			if err := fileio.WriteFile(path, out, 0o644); err != nil {
				fmt.Fprintf(stderr, "qrc fmt: %v\n", err)
				return exitUsage
			}
		}
	default:
		stdout.Write(out)
	}
	return exitOK
}
