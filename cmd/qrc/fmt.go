package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/aymanbagabas/go-udiff"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/format"
	"github.com/qrc-lang/qrc/limits"
)

var fmtCommand = &command{
	name:    "fmt",
	summary: "print models in canonical layout",
	usage: `Usage: qrc fmt [-w] [-l] [-d] MODEL.qrc...

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
  -d   print a unified diff of each file against its formatted text
       (nothing for a formatted file); exit status 1 when there is one
`,
}

func init() { fmtCommand.run = runFmt }

func runFmt(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("fmt", fmtCommand.usage, stderr)
	write := fs.Bool("w", false, "rewrite files in place")
	list := fs.Bool("l", false, "list files whose formatting differs")
	diff := fs.Bool("d", false, "print diffs")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if *diff && (*write || *list) {
		fmt.Fprintln(stderr, "qrc fmt: -d goes with neither -w nor -l")
		return exitUsage
	}
	mode := fmtPrint
	switch {
	case *write:
		mode = fmtWrite
	case *list:
		mode = fmtList
	case *diff:
		mode = fmtDiff
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
		return fmtOne("<stdin>", src, mode, stdout, stderr)
	}
	code := exitOK
	for _, path := range files {
		src, err := fileio.ReadFile(path, limits.MaxSourceBytes)
		if err != nil {
			fmt.Fprintf(stderr, "qrc fmt: %v\n", err)
			code = max(code, exitUsage)
			continue
		}
		code = max(code, fmtOne(path, src, mode, stdout, stderr))
	}
	return code
}

// What qrc fmt does with a formatted model.
const (
	fmtPrint = iota // print it
	fmtWrite        // -w: write it back
	fmtList         // -l: list the file if it changed
	fmtDiff         // -d: print the diff if it changed
)

func fmtOne(path string, src []byte, mode int, stdout, stderr io.Writer) int {
	out, diags := format.Source(path, src)
	if diags.HasErrors() {
		diags.Print(stderr, check.Sources{path: src})
		return exitInvalid
	}
	changed := !bytes.Equal(out, src)
	switch mode {
	case fmtList:
		if changed {
			fmt.Fprintln(stdout, path)
			return exitInvalid
		}
	case fmtDiff:
		if changed {
			fmt.Fprint(stdout, udiff.Unified(path+" (original)", path+" (formatted)", string(src), string(out)))
			return exitInvalid
		}
	case fmtWrite:
		if changed {
			if err := fileio.WriteFile(path, out, 0o644, path); err != nil {
				fmt.Fprintf(stderr, "qrc fmt: %v\n", err)
				return exitUsage
			}
		}
	default:
		stdout.Write(out)
	}
	return exitOK
}
