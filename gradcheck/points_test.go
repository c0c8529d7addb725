package gradcheck

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/modelfile"
)

func TestSampleStaysInTheDomain(t *testing.T) {
	inf := math.Inf(1)
	rng := rand.New(rand.NewPCG(1, 0))
	cases := []struct {
		name  string
		d     *domain.Domain
		start []float64
	}{
		{"box", &domain.Domain{Kind: domain.Box, Lo: []float64{-2, 0, 5}, Hi: []float64{2, 1e-3, 5}}, []float64{0, 0, 5}},
		{"half-infinite box", &domain.Domain{Kind: domain.Box, Lo: []float64{0, -inf, -inf}, Hi: []float64{inf, 1, inf}}, []float64{0, 1, 3}},
		{"ball", &domain.Domain{Kind: domain.Ball, Radius: 0.5}, make([]float64, 4)},
		{"row balls", &domain.Domain{Kind: domain.RowBalls, Radius: 0.1, Cols: 3}, make([]float64, 12)},
		{"simplex", &domain.Domain{Kind: domain.Simplex, Radius: 2}, []float64{0.4, 0.4, 0.4, 0.4, 0.4}},
		{"unbounded", &domain.Domain{Kind: domain.Unbounded}, []float64{10, -10}},
		{"l1 ball", &domain.Domain{Kind: domain.L1Ball, Radius: 0.7}, make([]float64, 6)},
		{"nonneg", domain.NonNeg(3), []float64{0, 2, 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := make([]float64, len(c.start))
			for range 200 {
				Sample(c.d, c.start, rng, x)
				assert.LessOrEqual(t, c.d.Violation(x), 1e-12, "%v", x)
			}
		})
	}
}

func TestSampleSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	// Uniform in a ball of dimension 3: E||x|| = 3/4 r, and points are
	// almost never on the sphere.
	d := &domain.Domain{Kind: domain.Ball, Radius: 2}
	x := make([]float64, 3)
	sum := 0.0
	const n = 4000
	for range n {
		Sample(d, x, rng, x)
		sum += math.Hypot(math.Hypot(x[0], x[1]), x[2])
	}
	assert.InDelta(t, 1.5, sum/n, 0.03)

	// Uniform on the simplex of dimension 4: each coordinate has mean s/4.
	d = &domain.Domain{Kind: domain.Simplex, Radius: 1}
	x = make([]float64, 4)
	mean := make([]float64, 4)
	for range n {
		Sample(d, x, rng, x)
		for i := range x {
			mean[i] += x[i] / n
		}
	}
	for i := range mean {
		assert.InDelta(t, 0.25, mean[i], 0.015)
	}

	// Uniform in the l1 ball of dimension 3 and radius 2: ||x||_1 is
	// distributed as 2 U^(1/3), with mean 2 * 3/4 = 1.5 (standard deviation
	// 2 sqrt(3/5 - 9/16) = 0.39, so 0.03 is 5 standard errors); by symmetry
	// each coordinate has mean 0.
	d = &domain.Domain{Kind: domain.L1Ball, Radius: 2}
	x = make([]float64, 3)
	l1, first := 0.0, 0.0
	for range n {
		Sample(d, x, rng, x)
		l1 += (math.Abs(x[0]) + math.Abs(x[1]) + math.Abs(x[2])) / n
		first += x[0] / n
	}
	assert.InDelta(t, 1.5, l1, 0.03)
	assert.InDelta(t, 0, first, 0.03)

	// Unbounded: around the start.
	d = &domain.Domain{Kind: domain.Unbounded}
	start := []float64{100}
	x = make([]float64, 1)
	m := 0.0
	for range n {
		Sample(d, start, rng, x)
		m += x[0] / n
	}
	assert.InDelta(t, 100, m, 0.1)
	Sample(nil, start, rng, x) // nil is unbounded
	assert.InDelta(t, 100, x[0], 10)
}

func TestPoints(t *testing.T) {
	src := `var t in box(-1, 1) = 0.5
var x[3] in simplex
var W[2, 4] in ball(0.1, rows)
var u[2]
minimize t + sum(j in 1..3) x[j] + norm2(W[1]) + norm2(u)
`
	m, _, diags := modelfile.LoadSource("m.qrc", []byte(src), check.Options{})
	require.NotNil(t, m, diags.Error())
	pts := Points(m, 3, 1)
	require.Len(t, pts, 4)
	assert.Equal(t, "start", pts[0].Label)
	assert.Equal(t, "random 3", pts[3].Label)
	assert.Equal(t, 0.5, pts[0].X[0])
	for _, p := range pts {
		require.Len(t, p.X, m.NumScalars)
		for _, v := range m.Vars {
			assert.LessOrEqual(t, v.Domain.Violation(p.X[v.Offset:v.Offset+v.Size]), 1e-12)
		}
	}
	assert.NotEqual(t, pts[1].X, pts[2].X)
	// The same seed gives the same points, another seed others.
	assert.Equal(t, pts, Points(m, 3, 1))
	assert.NotEqual(t, pts[1].X, Points(m, 3, 2)[1].X)
}
