package trace

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/qrc-lang/qrc/fileio"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgimg" // registers png
	_ "gonum.org/v1/plot/vg/vgsvg" // registers svg
)

// The figure's size: 960×360 pixels in PNG (96 dots per inch).
const (
	FigureWidth  = 10 * vg.Inch
	FigureHeight = 3.75 * vg.Inch
)

// colors follow the paper: IQRC's outer iterates red, its inner iterates
// blue, the penalty method black; other methods take the rest in order.
var (
	paperColors = map[string]color.Color{
		"iqrc " + Outer:    color.RGBA{R: 214, G: 39, B: 40, A: 255},
		"iqrc " + Inner:    color.RGBA{R: 31, G: 119, B: 180, A: 255},
		"penalty " + Outer: color.Black,
	}
	otherColors = []color.Color{
		color.RGBA{R: 44, G: 160, B: 44, A: 255},
		color.RGBA{R: 255, G: 127, B: 14, A: 255},
		color.RGBA{R: 148, G: 103, B: 189, A: 255},
		color.RGBA{R: 140, G: 86, B: 75, A: 255},
	}
)

// InfeasibilityFloor returns the value at which an infeasibility of 0 is
// drawn on the log scale: a tenth of the smallest positive infeasibility
// of the lines, kept within [1e-12, 1e-6]; 1e-8 when none is positive.
func InfeasibilityFloor(lines []*Line) float64 {
	lo := math.Inf(1)
	for _, l := range lines {
		for _, r := range l.Records {
			if r.Infeasibility > 0 {
				lo = math.Min(lo, r.Infeasibility)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return 1e-8
	}
	return math.Max(1e-12, math.Min(1e-6, lo/10))
}

// Draw draws the figure, objective against CPU seconds on the left and
// infeasibility (log scale) against CPU seconds on the right, one line per
// Line with a legend, and writes it to w in format ("png" or "svg").
// Outer lines are steps (an iterate holds until the next one) and, when a
// method stopped before the last record of any line, continue dashed at
// their last value; Inner lines join their samples.
// The panels' titles say what they show; title, if not empty, is put
// before both.
func Draw(w io.Writer, format string, lines []*Line, title string) error {
	if format != "png" && format != "svg" {
		return fmt.Errorf("figure format %q; want png or svg", format)
	}
	if len(lines) == 0 {
		return fmt.Errorf("nothing to draw: no records")
	}
	floor := InfeasibilityFloor(lines)
	obj, inf := plot.New(), plot.New()
	obj.X.Label.Text, inf.X.Label.Text = "CPU seconds", "CPU seconds"
	obj.Y.Label.Text = "objective"
	inf.Y.Label.Text = "infeasibility" // a long rotated label would squeeze the panel
	inf.Y.Scale = plot.LogScale{}
	inf.Y.Tick.Marker = decades{}
	obj.Title.Text = "objective"
	inf.Title.Text = fmt.Sprintf("infeasibility (log scale; 0 drawn at %g)", floor)
	if title != "" {
		obj.Title.Text = title + ": " + obj.Title.Text
		inf.Title.Text = title + ": " + inf.Title.Text
	}
	obj.Legend.Top, inf.Legend.Top = true, true
	next := 0
	infMax, xMax := floor, 0.0
	for _, l := range lines {
		for _, r := range l.Records {
			xMax = math.Max(xMax, r.CPU)
		}
	}
	for _, l := range lines {
		c, ok := paperColors[l.Method+" "+l.Series]
		if !ok {
			c = otherColors[next%len(otherColors)]
			next++
		}
		var o, f plotter.XYs
		for _, r := range l.Records {
			x := clampPlot(r.CPU)
			if !math.IsNaN(r.Objective) {
				o = append(o, plotter.XY{X: x, Y: clampPlot(r.Objective)})
			}
			if !math.IsNaN(r.Infeasibility) {
				f = append(f, plotter.XY{X: x, Y: clampPlot(math.Max(r.Infeasibility, floor))})
				infMax = math.Max(infMax, f[len(f)-1].Y)
			}
		}
		o, f = decimate(o, xMax), decimate(f, xMax)
		for _, p := range []struct {
			plot *plot.Plot
			xys  plotter.XYs
		}{{obj, o}, {inf, f}} {
			if len(p.xys) == 0 {
				continue // every value NaN: nothing to draw
			}
			line, err := plotter.NewLine(p.xys)
			if err != nil {
				return fmt.Errorf("line %s: %v", l.Label(), err)
			}
			line.Color = c
			line.Width = vg.Points(1.2)
			if l.Series == Inner {
				line.Width = vg.Points(0.8)
			} else {
				// an iterate holds until the next one
				line.StepStyle = plotter.PostStep
			}
			p.plot.Add(line)
			p.plot.Legend.Add(l.Label(), line)
			// a method that stopped early keeps its last iterate: dashed
			last := p.xys[len(p.xys)-1]
			if l.Series == Outer && last.X < xMax {
				ext, err := plotter.NewLine(plotter.XYs{last, {X: xMax, Y: last.Y}})
				if err != nil {
					return fmt.Errorf("line %s: %v", l.Label(), err)
				}
				ext.Color, ext.Width, ext.Dashes = c, line.Width, []vg.Length{vg.Points(4), vg.Points(3)}
				p.plot.Add(ext)
			}
		}
	}
	obj.X.Min, inf.X.Min = 0, 0
	inf.Y.Min, inf.Y.Max = floor/2, infMax*2
	// Headroom above the data for the legend (top right), so that it hides
	// no line.
	frac := legendFraction(len(lines))
	if lo, hi, ok := objectiveRange(lines); ok {
		obj.Y.Min, obj.Y.Max = withHeadroom(lo, hi, frac)
	}
	if m := inf.Y.Min * math.Pow(inf.Y.Max/inf.Y.Min, 1/(1-frac)); m > inf.Y.Max && m <= plotLimit {
		inf.Y.Max = m // (beyond plotLimit the legend may overlap: a trace of such values is broken anyway)
	}
	canvas, err := draw.NewFormattedCanvas(FigureWidth, FigureHeight, format)
	if err != nil {
		return err
	}
	dc := draw.New(canvas)
	pad := vg.Millimeter * 3
	half := FigureWidth / 2
	obj.Draw(draw.Crop(dc, pad, -half-pad, pad, -pad))
	inf.Draw(draw.Crop(dc, half+pad, -pad, pad, -pad))
	_, err = canvas.WriteTo(w)
	return err
}

// DecimateColumns is the number of columns of a panel a long line is
// reduced to before drawing (more than the panel has pixels).
const DecimateColumns = 2000

// decimate reduces a line of more than 4 points per column (of
// DecimateColumns over [0, xMax]) to at most 4 per run of points in one
// column: the first, the lowest, the highest and the last, in their order.
// Drawn, that is the same shape (every column spans the line's range in it,
// and a step's levels where it enters and leaves the column are kept) at a
// fraction of the cost: a 300 000-row trace drew for a minute.
func decimate(xys plotter.XYs, xMax float64) plotter.XYs {
	if len(xys) <= 4*DecimateColumns || !(xMax > 0) {
		return xys
	}
	column := func(x float64) int { return int(math.Min(DecimateColumns-1, math.Max(0, x/xMax*DecimateColumns))) }
	out := make(plotter.XYs, 0, 4*DecimateColumns)
	for i := 0; i < len(xys); {
		c := column(xys[i].X)
		j, lo, hi := i, i, i
		for j < len(xys) && column(xys[j].X) == c {
			if xys[j].Y < xys[lo].Y {
				lo = j
			}
			if xys[j].Y > xys[hi].Y {
				hi = j
			}
			j++
		}
		keep := []int{i, lo, hi, j - 1}
		slices.Sort(keep)
		for k, idx := range keep {
			if k == 0 || idx != keep[k-1] {
				out = append(out, xys[idx])
			}
		}
		i = j
	}
	return out
}

// legendFraction is the share of a panel's height, at the top, kept free
// of data for a legend of n entries: about 8% per entry.
func legendFraction(n int) float64 { return math.Min(0.6, 0.05+0.08*float64(n)) }

// objectiveRange is the range of the lines' objective values; ok is false
// when it is empty or not finite.
func objectiveRange(lines []*Line) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for _, r := range l.Records {
			lo, hi = math.Min(lo, r.Objective), math.Max(hi, r.Objective)
		}
	}
	span := hi - lo
	return lo, hi, span > 0 && !math.IsInf(span, 0) && !math.IsNaN(span)
}

// withHeadroom returns axis limits for data in [lo, hi] with 2% below and
// the top frac of the axis above hi.
func withHeadroom(lo, hi, frac float64) (min, max float64) {
	span := hi - lo
	min, max = lo-0.02*span, hi+frac/(1-frac)*(hi-(lo-0.02*span))
	if math.IsInf(min, 0) || math.IsInf(max, 0) || math.IsNaN(min) || math.IsNaN(max) {
		return lo, hi // no room for headroom at the ends of the float range
	}
	return min, max
}

// DrawFile draws the figure into path, whose extension (.png or .svg)
// chooses the format.
func DrawFile(path string, lines []*Line, title string) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "png" && format != "svg" {
		return fmt.Errorf("%s: the figure's file name must end in .png or .svg", path)
	}
	f, err := fileio.Create(path, 0o644)
	if err != nil {
		return err
	}
	if err := Draw(f, format, lines, title); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %v", path, err)
	}
	return f.Commit()
}

// plotLimit is the largest magnitude the figure draws: a value beyond it
// (up to an infinity) is drawn at ±plotLimit, so that the axes and their
// ticks stay finite.
const plotLimit = 1e300

// clampPlot clamps v to [-plotLimit, plotLimit].
func clampPlot(v float64) float64 { return math.Max(-plotLimit, math.Min(plotLimit, v)) }

// decades ticks a log axis at the powers of ten, labelled 1e-05 … 1e+02.
type decades struct{}

// Ticks returns a labelled tick at every power of ten in [lo, hi].
func (decades) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	if !(lo > 0) || math.IsInf(hi, 0) || math.IsNaN(hi) {
		return nil
	}
	// at most the 617 decades of float64, whatever lo and hi are
	for e := math.Max(-324, math.Floor(math.Log10(lo))); e <= math.Min(308, math.Ceil(math.Log10(hi))); e++ {
		v := math.Pow(10, e)
		if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
			ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("1e%+03d", int(e))})
		}
	}
	return ticks
}
