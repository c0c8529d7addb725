package trace

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
)

// The legend's band at the top of each panel holds no data: the data end
// at least frac of the axis below its top, on the linear objective axis
// and on the log infeasibility axis alike.
func TestLegendHeadroom(t *testing.T) {
	lines := []*Line{
		{Method: "iqrc", Series: Outer, Records: []Record{{CPU: 0, Objective: 5.4, Infeasibility: 1}, {CPU: 1, Objective: 1.7}}},
		{Method: "iqrc", Series: Inner, Records: []Record{{CPU: 0.5, Objective: 4.9, Infeasibility: 1e-3}}},
		{Method: "penalty", Series: Outer, Records: []Record{{CPU: 0, Objective: 5.38, Infeasibility: 0.5}}},
	}
	frac := legendFraction(len(lines))
	assert.InDelta(t, 0.29, frac, 1e-12)
	lo, hi, ok := objectiveRange(lines)
	assert.True(t, ok)
	assert.Equal(t, 1.7, lo)
	assert.Equal(t, 5.4, hi)
	min, max := withHeadroom(lo, hi, frac)
	assert.Less(t, min, lo)
	// the top frac of [min, max] is above every objective value
	assert.InDelta(t, hi, max-frac*(max-min), 1e-12)

	_, _, ok = objectiveRange([]*Line{{Records: []Record{{Objective: 2}}}})
	assert.False(t, ok, "a single value has no range")
	assert.Equal(t, 0.6, legendFraction(20), "capped")
	assert.False(t, math.IsNaN(frac))
}

// TestDecimate: a line of 300 000 points becomes at most 4 per column, and
// in every column the decimated line has the original's lowest, highest,
// first and last values.
func TestDecimate(t *testing.T) {
	const n = 300000
	xys := make(plotter.XYs, n)
	for i := range xys {
		xys[i] = plotter.XY{X: float64(i) * 1e-3, Y: math.Sin(float64(i)/997) + float64(i%13)*0.01}
	}
	xMax := xys[n-1].X
	got := decimate(xys, xMax)
	require.LessOrEqual(t, len(got), 4*DecimateColumns)
	col := func(x float64) int { return int(math.Min(DecimateColumns-1, x/xMax*DecimateColumns)) }
	type span struct{ first, last, lo, hi float64 }
	summarize := func(p plotter.XYs) map[int]*span {
		m := map[int]*span{}
		for _, q := range p {
			s, ok := m[col(q.X)]
			if !ok {
				s = &span{first: q.Y, lo: q.Y, hi: q.Y}
				m[col(q.X)] = s
			}
			s.last, s.lo, s.hi = q.Y, math.Min(s.lo, q.Y), math.Max(s.hi, q.Y)
		}
		return m
	}
	want, have := summarize(xys), summarize(got)
	require.Equal(t, len(want), len(have))
	for c, w := range want {
		require.Equal(t, *w, *have[c], "column %d", c)
	}
	for i := 1; i < len(got); i++ {
		require.LessOrEqual(t, got[i-1].X, got[i].X, "the points keep their order")
	}
	short := xys[:100]
	require.Equal(t, short, decimate(short, xMax), "a short line is drawn as it is")
}
