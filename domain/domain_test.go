package domain_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/qrc-lang/qrc/domain"
)

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s)
}

// A projection lands in the set and is at least as close as any sampled
// point of the set.
func TestProjectionsAreNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 4
	doms := []*domain.Domain{
		{Kind: domain.Box, Lo: []float64{-1, 0, -2, 0.5}, Hi: []float64{1, 0, 2, 3}},
		{Kind: domain.Ball, Radius: 1.5},
		{Kind: domain.RowBalls, Radius: 0.7, Cols: 2},
		{Kind: domain.Simplex, Radius: 1},
		{Kind: domain.Simplex, Radius: 2.5},
		{Kind: domain.L1Ball, Radius: 1},
		{Kind: domain.L1Ball, Radius: 7},
		domain.NonNeg(n),
		{Kind: domain.Box, Lo: []float64{-1, math.Inf(-1), 0, 2}, Hi: []float64{math.Inf(1), 0, math.Inf(1), 3}},
	}
	for _, d := range doms {
		for trial := 0; trial < 200; trial++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64() * 3
			}
			p := append([]float64(nil), x...)
			d.Project(p)
			assert.LessOrEqual(t, d.Violation(p), 1e-12, "%s: projection outside", d)
			best := dist(x, p)
			for s := 0; s < 50; s++ {
				y := make([]float64, n)
				for i := range y {
					y[i] = p[i] + rng.NormFloat64()*0.3
				}
				d.Project(y) // a point of the set
				assert.GreaterOrEqual(t, dist(x, y), best-1e-9, "%s: a closer point exists", d)
			}
			// Projecting twice changes nothing.
			q := append([]float64(nil), p...)
			d.Project(q)
			assert.InDelta(t, 0, dist(p, q), 1e-12)
		}
	}
}

func TestSimplexKnown(t *testing.T) {
	x := []float64{0.5, 0.5, 2}
	(&domain.Domain{Kind: domain.Simplex, Radius: 1}).Project(x)
	assert.InDeltaSlice(t, []float64{0, 0, 1}, x, 1e-12)
	y := []float64{0, 0, 0, 0}
	(&domain.Domain{Kind: domain.Simplex, Radius: 1}).Project(y)
	assert.InDeltaSlice(t, []float64{0.25, 0.25, 0.25, 0.25}, y, 1e-12)
}

// The l1 ball's projection against closed forms: soft thresholding at the
// level theta with sum(max(|x_i| - theta, 0)) = r.
func TestL1BallKnown(t *testing.T) {
	d := &domain.Domain{Kind: domain.L1Ball, Radius: 1}
	// |x| = (3, 1, 0.5): theta = (3 - 1) = 2 keeps only the first: (1, 0, 0)
	x := []float64{-3, 1, 0.5}
	d.Project(x)
	assert.InDeltaSlice(t, []float64{-1, 0, 0}, x, 1e-12)
	// |x| = (2, 1.5, -): theta with (2 - t) + (1.5 - t) = 1 is 1.25
	y := []float64{2, -1.5, 0.2}
	d.Project(y)
	assert.InDeltaSlice(t, []float64{0.75, -0.25, 0}, y, 1e-12)
	// inside: unchanged
	z := []float64{0.3, -0.3, 0.2}
	d.Project(z)
	assert.Equal(t, []float64{0.3, -0.3, 0.2}, z)
	assert.InDelta(t, 0, d.Violation(z), 0)
	assert.InDelta(t, 2.5, d.Violation([]float64{-3, 0.5, 0}), 1e-15)
}

// nonneg and one-sided boxes: max(x, lo) and min(x, hi) per side.
func TestNonNegAndOneSided(t *testing.T) {
	x := []float64{-2, 0, 3.5}
	domain.NonNeg(3).Project(x)
	assert.Equal(t, []float64{0, 0, 3.5}, x)
	d := &domain.Domain{Kind: domain.Box, Lo: []float64{1, 1}, Hi: []float64{math.Inf(1), math.Inf(1)}}
	y := []float64{-4, 1e300}
	d.Project(y)
	assert.Equal(t, []float64{1, 1e300}, y)
	assert.Equal(t, "box(1, inf)", d.String())
	assert.Equal(t, "nonneg", domain.NonNeg(2).String())
	assert.Equal(t, "box(-inf, 0)", (&domain.Domain{Kind: domain.Box, Lo: []float64{math.Inf(-1)}, Hi: []float64{0}}).String())
	assert.Equal(t, "l1ball(2)", (&domain.Domain{Kind: domain.L1Ball, Radius: 2}).String())
	assert.False(t, domain.NonNeg(2).Compact())
	assert.True(t, (&domain.Domain{Kind: domain.L1Ball, Radius: 2}).Compact())
}

func TestStringsAndCompact(t *testing.T) {
	assert.Equal(t, "box(-2, 2)", (&domain.Domain{Kind: domain.Box, Lo: []float64{-2, -2}, Hi: []float64{2, 2}}).String())
	assert.Equal(t, "ball(0.1, rows)", (&domain.Domain{Kind: domain.RowBalls, Radius: 0.1}).String())
	assert.Equal(t, "simplex", (&domain.Domain{Kind: domain.Simplex, Radius: 1}).String())
	assert.Equal(t, "ball_rows", domain.RowBalls.String())
	assert.False(t, (&domain.Domain{Kind: domain.Unbounded}).Compact())
	assert.True(t, (&domain.Domain{Kind: domain.Ball, Radius: 1}).Compact())
}

// The domain's inequalities: the largest value is the violation, the
// subgradients match finite differences away from kinks, and a point is in
// the domain exactly when every value is <= 0.
func TestConstraints(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	inf := math.Inf(1)
	doms := []*domain.Domain{
		{Kind: domain.Box, Lo: []float64{-1, -inf, -2, 0.5}, Hi: []float64{1, 0, inf, 3}},
		{Kind: domain.Ball, Radius: 1.5},
		{Kind: domain.RowBalls, Radius: 0.7, Cols: 2},
		{Kind: domain.Simplex, Radius: 2.5},
		{Kind: domain.Unbounded},
		{Kind: domain.L1Ball, Radius: 1.5},
		domain.NonNeg(4),
	}
	counts := []int{6, 1, 2, 6, 0, 1, 4}
	for di, d := range doms {
		for trial := 0; trial < 50; trial++ {
			x := make([]float64, 4)
			for i := range x {
				x[i] = rng.NormFloat64() * 2
			}
			cs := d.Constraints(x, nil)
			assert.Len(t, cs, counts[di], d.String())
			worst := 0.0
			for ci, c := range cs {
				worst = math.Max(worst, c.Value)
				// central differences along each covered element
				for j := range c.Grad {
					h := 1e-6
					xp := append([]float64(nil), x...)
					xm := append([]float64(nil), x...)
					xp[c.Start+j] += h
					xm[c.Start+j] -= h
					vp := d.Constraints(xp, nil)[ci].Value
					vm := d.Constraints(xm, nil)[ci].Value
					assert.InDelta(t, (vp-vm)/(2*h), c.Grad[j], 1e-6, "%s constraint %d d/dx%d", d, ci, c.Start+j)
				}
			}
			assert.InDelta(t, d.Violation(x), worst, 1e-12, d.String())
			p := append([]float64(nil), x...)
			d.Project(p)
			for ci, c := range d.Constraints(p, nil) {
				assert.LessOrEqual(t, c.Value, 1e-12, "%s constraint %d at the projection", d, ci)
			}
		}
	}
	// at 0 the norm's subgradient is 0
	cs := (&domain.Domain{Kind: domain.Ball, Radius: 1}).Constraints([]float64{0, 0}, nil)
	assert.Equal(t, []float64{0, 0}, cs[0].Grad)
	assert.Equal(t, -1.0, cs[0].Value)
}
