package main

import (
	"fmt"
	"io"
	"os"

	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/trace"
)

var plotCommand = &command{
	name:    "plot",
	summary: "redraw Figure 1 from traces saved by qrc compare or qrc solve --trace",
	usage: `Usage: qrc plot [flags] TRACE.csv... -o FILE.png|FILE.svg

Plot reads traces written by qrc compare (METHOD.csv, with the header
` + trace.Header + `)
or by qrc solve --trace (one line per phase, timed in wall-clock seconds)
and draws the same figure as compare: objective against CPU seconds on the
left, infeasibility (log scale; 0 drawn at a floor the title gives) on the
right, one line per method and series. The extension of FILE chooses PNG or
SVG.

Flags:
  -o FILE            the figure to write (required), .png or .svg
  --title T          put T before the panel titles
`,
}

func init() { plotCommand.run = runPlot }

func runPlot(args []string, _ io.Reader, _, stderr io.Writer) int {
	fs := newFlagSet("plot", plotCommand.usage, stderr)
	out := fs.String("o", "", "")
	title := fs.String("title", "", "")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(files) == 0 || *out == "" {
		fmt.Fprintln(stderr, "qrc plot: want at least one trace file and -o FILE")
		fmt.Fprintln(stderr)
		fs.Usage()
		return exitUsage
	}
	var recs []trace.Record
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "qrc plot: %v\n", err)
			return exitUsage
		}
		fileio.NoteInput(name) // -o may not replace it
		r, err := trace.Read(f, name)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "qrc plot: %v\n", err)
			return exitInvalid
		}
		recs = append(recs, r...)
	}
	if err := trace.DrawFile(*out, trace.Lines(recs), *title); err != nil {
		fmt.Fprintf(stderr, "qrc plot: %v\n", err)
		return exitUsage
	}
	return exitOK
}
