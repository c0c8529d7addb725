package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/point"
	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/solvecmd"
)

var sweepCommand = &command{
	name:    "sweep",
	summary: "solve a family of models over one parameter, warm-started",
	usage: `Usage: qrc sweep --over NAME=V1,V2,... --out DIR [flags] MODEL.qrc

Sweep solves the model once for each value of the parameter NAME, in the
order given, each solve starting from the previous one's solution (the
first from the model's start), with the flags of qrc solve. It prints a
table (value, status, objective, infeasibility, each constraint's
left-hand side, seconds) and writes into DIR:

  sweep.csv      the table
  sweep.png      the objective and each constraint's left-hand side
                 against the parameter (the trade-off the constraint buys)
  NAME=V.json    each solve's result, as qrc solve --out writes it

Exit status: 0 when every solve returned a feasible point, 3 when one was
infeasible, 1 for model errors, 2 for a bad command line.

Flags:
  --over NAME=V1,V2,...  the parameter and its values (required)
  --out DIR              where to write the table, figure and results (required)
  and every flag of qrc solve except --start, --out, --json, --trace
` + modelFlagsUsage,
}

func init() { sweepCommand.run = runSweep }

// sweepRow is one solve of a sweep.
type sweepRow struct {
	value   string
	res     *solve.Result
	lhs     []float64 // each constraint's left-hand side (f + rhs), NaN when the rhs is not a constant
	seconds float64
}

func runSweep(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("sweep", sweepCommand.usage, stderr)
	flags := solvecmd.RegisterFlags(fs)
	over := fs.String("over", "", "")
	var mf modelFlags
	mf.register(fs)
	file, ok := modelFile(fs, "sweep", args, stderr)
	if !ok {
		return exitUsage
	}
	dir := new(string)
	*dir, *flags.Out = *flags.Out, "" // solve's --out is the sweep's directory
	name, list, found := strings.Cut(*over, "=")
	values := strings.Split(list, ",")
	switch {
	case !found || strings.TrimSpace(name) == "" || strings.TrimSpace(list) == "":
		fmt.Fprintln(stderr, `qrc sweep: want --over NAME=V1,V2,...; "qrc help sweep" shows the usage`)
		return exitUsage
	case *flags.JSON || *flags.Trace != "" || *flags.Start != "":
		fmt.Fprintln(stderr, "qrc sweep: --json, --trace and --start are not sweep flags")
		return exitUsage
	case *dir == "":
		fmt.Fprintln(stderr, "qrc sweep: want --out DIR")
		return exitUsage
	}
	if *flags.Method == methodPenalty {
		fmt.Fprintln(stderr, "qrc sweep: sweeps run IQRC (--method iqrc or stochastic)")
		return exitUsage
	}
	opts, err := flags.Options()
	if err != nil {
		fmt.Fprintf(stderr, "qrc sweep: %v\n", err)
		return exitUsage
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "qrc sweep: %v\n", err)
		return exitUsage
	}
	name = strings.TrimSpace(name)
	var rows []sweepRow
	var m *check.Model
	var x0 []float64
	code := exitOK
	table := filepath.Join(*dir, "sweep.csv")
	ctx, release := solvecmd.NotifyStop("qrc")
	defer release()
	for _, v := range values {
		v = strings.TrimSpace(v)
		one := mf
		one.set = append(append(assignList(nil), mf.set...), check.Assign{Name: name, Value: v})
		model, ok := loadModel("sweep", file, &one, len(rows) == 0, stderr)
		if !ok {
			return exitInvalid
		}
		m = model.Checked()
		if x0 == nil || len(x0) != m.NumScalars {
			x0 = point.Start(m)
		}
		out := filepath.Join(*dir, name+"="+v+".json")
		*flags.Out = out
		run := &solvecmd.Run{Name: "sweep", Model: model, X0: x0,
			Flags: flags, Options: opts, Ctx: ctx, Stdout: io.Discard, Stderr: stderr, Progress: false}
		fmt.Fprintf(stderr, "qrc sweep: %s = %s ...\n", name, v)
		rep, c := run.Solve()
		if rep == nil {
			return c
		}
		res := rep.Result()
		if c == exitInfeasible || c == exitUsage || c == exitInterrupted {
			code = max(code, c)
		}
		row := sweepRow{value: v, res: res, seconds: res.Stats.Time.Seconds()}
		for i, k := range m.Constraints {
			lhs := nan
			if rhs := k.ConstRHS(); rhs != nil {
				lhs = res.F[i+1] + *rhs
				if k.Op == ">=" {
					lhs = *rhs - res.F[i+1]
				}
			}
			row.lhs = append(row.lhs, lhs)
		}
		rows = append(rows, row)
		// the table so far, so that a sweep stopped later keeps every
		// finished value
		if err := fileio.WriteFile(table, sweepCSV(name, m, rows), 0o644); err != nil {
			fmt.Fprintf(stderr, "qrc sweep: %v\n", err)
			return exitUsage
		}
		if rep.Success {
			x0 = res.X
		}
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "qrc sweep: interrupted at %s = %s; the table has the values solved so far\n", name, v)
			break
		}
	}
	head := sweepHead(name, m)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		txt := []string{r.value, r.res.Status.String(), num(r.res.Objective), num(r.res.Infeasibility)}
		for _, l := range r.lhs {
			txt = append(txt, num(l))
		}
		fmt.Fprintln(tw, strings.Join(append(txt, fmt.Sprintf("%.3g", r.seconds)), "\t"))
	}
	tw.Flush()
	if err := sweepFigure(filepath.Join(*dir, "sweep.png"), name, m, rows); err != nil {
		fmt.Fprintf(stderr, "qrc sweep: %v\n", err)
		return max(code, exitUsage)
	}
	fmt.Fprintf(stderr, "qrc sweep: wrote %s, %s and the results\n", table, filepath.Join(*dir, "sweep.png"))
	return code
}

// sweepHead is the sweep table's header.
func sweepHead(name string, m *check.Model) []string {
	head := []string{name, "status", "objective", "infeasibility"}
	for _, k := range m.Constraints {
		head = append(head, k.Name)
	}
	return append(head, "seconds")
}

// sweepCSV is the sweep table of rows as CSV.
func sweepCSV(name string, m *check.Model, rows []sweepRow) []byte {
	var table bytes.Buffer
	cw := csv.NewWriter(&table)
	cw.Write(sweepHead(name, m))
	for _, r := range rows {
		rec := []string{r.value, r.res.Status.String(), strconv.FormatFloat(r.res.Objective, 'g', -1, 64), strconv.FormatFloat(r.res.Infeasibility, 'g', -1, 64)}
		for _, l := range r.lhs {
			rec = append(rec, strconv.FormatFloat(l, 'g', -1, 64))
		}
		cw.Write(append(rec, strconv.FormatFloat(r.seconds, 'f', 3, 64)))
	}
	cw.Flush()
	return table.Bytes()
}

var nan = math.NaN()

// sweepFigure draws the objective (left) and the constraints' left-hand
// sides (right) against the swept values, which must be numbers.
func sweepFigure(path, name string, m *check.Model, rows []sweepRow) error {
	xs := make([]float64, len(rows))
	for i, r := range rows {
		v, err := strconv.ParseFloat(r.value, 64)
		if err != nil {
			return fmt.Errorf("the figure needs numeric values of %s, not %q (the table is written)", name, r.value)
		}
		xs[i] = v
	}
	obj, cons := plot.New(), plot.New()
	obj.Title.Text, cons.Title.Text = "objective", "constraints: left-hand side"
	obj.X.Label.Text, cons.X.Label.Text = name, name
	pts := make(plotter.XYs, len(rows))
	for i, r := range rows {
		pts[i] = plotter.XY{X: xs[i], Y: r.res.Objective}
	}
	if err := addLine(obj, "objective", pts, 0); err != nil {
		return err
	}
	for k, c := range m.Constraints {
		var p plotter.XYs
		for i, r := range rows {
			if l := r.lhs[k]; l == l {
				p = append(p, plotter.XY{X: xs[i], Y: l})
			}
		}
		if len(p) > 0 {
			if err := addLine(cons, c.Name, p, k+1); err != nil {
				return err
			}
		}
	}
	obj.Legend.Top, cons.Legend.Top = true, true
	legendRoom(obj, 1)
	legendRoom(cons, len(m.Constraints))
	const w, h = 24 * vg.Centimeter, 9 * vg.Centimeter
	img, err := draw.NewFormattedCanvas(w, h, "png")
	if err != nil {
		return err
	}
	dc := draw.New(img)
	pad := vg.Millimeter * 3
	obj.Draw(draw.Crop(dc, pad, -w/2-pad, pad, -pad))
	cons.Draw(draw.Crop(dc, w/2+pad, -pad, pad, -pad))
	f, err := fileio.Create(path, 0o644)
	if err != nil {
		return err
	}
	if _, err := img.WriteTo(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// legendRoom raises the top of p's y axis so that a legend of n entries
// at the top fits above the data: about 8% of the height per entry.
func legendRoom(p *plot.Plot, n int) {
	lo, hi := p.Y.Min, p.Y.Max
	if !(hi > lo) {
		return
	}
	frac := math.Min(0.6, 0.05+0.08*float64(n))
	p.Y.Max = hi + frac/(1-frac)*(hi-lo)
}

// addLine adds a line with points to p, in the k-th of sweepColors.
func addLine(p *plot.Plot, label string, pts plotter.XYs, k int) error {
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	c := sweepColors[k%len(sweepColors)]
	l.Color, s.Color = c, c
	l.Width = vg.Points(1.2)
	p.Add(l, s)
	p.Legend.Add(label, l, s)
	return nil
}

// sweepColors are the line colours of the sweep figure.
var sweepColors = []color.Color{
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
}
