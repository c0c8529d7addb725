package trace

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
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
