package weakconvex

import (
	"math"
	"testing"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func loadModel(t *testing.T, src string) *check.Model {
	t.Helper()
	m, _, diags := modelfile.LoadSource("case.qrc", []byte(src), check.Options{})
	require.NotNil(t, m, "%v", diags)
	return m
}

// dot(x, x) and norm2(x)^2 get the verdict, rho and M of sum(j) square(x[j]).
func TestNaturalSquares(t *testing.T) {
	m := loadModel(t, `var x[4] in box(-2, 3)
minimize sum(x)
subject to
    a: dot(x, x) <= 4
    b: norm2(x)^2 <= 4
    c: sum(j in 1..4) square(x[j]) <= 4
    d: sum(j in 1..4) x[j] * x[j] <= 4
`)
	r := Analyze(m)
	require.NoError(t, r.Err)
	want := r.Function("c")
	require.True(t, want.Weak)
	assert.Equal(t, 0.0, want.Rho)
	for _, name := range []string{"a", "b", "d"} {
		f := r.Function(name)
		assert.Equal(t, want.Verdict(), f.Verdict(), name)
		assert.Equal(t, want.Rho, f.Rho, name)
		assert.InEpsilon(t, want.M, f.M, 1e-12, name) // the same bound up to the outward rounding of other sums
		assert.Equal(t, want.Smooth, f.Smooth, name)
	}
	require.Equal(t, 5, checkSound(t, "squares", m, 600))
}

// x' Q x written sum(j) x[j] * dot(Q[j], x) has rho = 2 max(0, -lambda_min(Q_sym)).
func TestQuadraticForm(t *testing.T) {
	cases := []struct {
		q   string
		rho float64 // by hand
	}{
		// Q_sym = [[1, 2], [2, -2]]: eigenvalues (-1 ± 5)/2 = 2, -3
		{"[[1, 3], [1, -2]]", 6},
		// 2I: convex (the product rule alone would give rho 1/2 per term)
		{"[[2, 0], [0, 2]]", 0},
		// [[2, 1], [1, 2]]: eigenvalues 1 and 3, positive definite
		{"[[2, 1], [1, 2]]", 0},
		// [[0, 1], [0, 0]]: Q_sym eigenvalues ±1/2
		{"[[0, 1], [0, 0]]", 1},
		// -I: concave, rho 2
		{"[[-1, 0], [0, -1]]", 2},
		// rank one and PSD: [1, 1][1, 1]^T, eigenvalues 0 and 2
		{"[[1, 1], [1, 1]]", 0},
	}
	for _, c := range cases {
		m := loadModel(t, "param Q = "+c.q+"\nvar x[2] in box(-1, 2)\nminimize sum(j in 1..2) x[j] * dot(Q[j], x)\n")
		r := Analyze(m)
		require.NoError(t, r.Err)
		f := r.Functions[0]
		require.True(t, f.Weak, "%s: %s", c.q, f.Verdict())
		if c.rho == 0 {
			assert.Equal(t, 0.0, f.Rho, "%s: a PSD Q is convex", c.q)
		} else {
			assert.InEpsilon(t, c.rho, f.Rho, 1e-9, c.q)
		}
		assert.True(t, f.Smooth)
		require.Equal(t, 1, checkSound(t, c.q, m, 900), c.q)
	}
	// The same form as a constraint, shifted and added to an affine term.
	m := loadModel(t, "param Q = [[1, 3], [1, -2]]\nvar x[2] in box(-1, 2)\nminimize x[1]\nsubject to\n    q: 2 * sum(j in 1..2) x[j] * dot(Q[j], x) - x[2] <= 1\n")
	r := Analyze(m)
	assert.InEpsilon(t, 12, r.Function("q").Rho, 1e-9)
}

// A one-sided box in a vector bound: log(x[2]) has x[2] >= 0.5, while x[1]
// is unbounded below.
func TestOneSidedVectorBox(t *testing.T) {
	m := loadModel(t, "var x[2] in box([-inf, 0.5], [1, inf])\nminimize -log(x[2])\nsubject to\n    c: log(x[1]) <= 0\n")
	r := Analyze(m)
	require.NoError(t, r.Err)
	assert.True(t, r.Functions[0].Weak)
	assert.Equal(t, 0.0, r.Functions[0].Rho) // -log is convex
	assert.InEpsilon(t, 2, r.Functions[0].M, 1e-9)
	c := r.Function("c")
	assert.False(t, c.Weak)
	assert.Contains(t, c.Why.Reason, "-Inf")
	assert.True(t, math.IsInf(c.Rho, 1))
}

// An equality h = 0 is h <= 0 and -h <= 0: its rho bounds both, and one
// whose -h has no curvature bound is refused.
func TestEqualityBothSigns(t *testing.T) {
	m := loadModel(t, `var w[3] in box(-1, 1)
minimize sum(w)
subject to
    bal: sum(w) == 1
    circ: w[1]^2 + w[3]^2 == 0.5
    band: w[1]^2 + w[3]^2 <= 0.5
    kink: abs(w[2]) == 0.5
`)
	r := Analyze(m)
	require.NoError(t, r.Err)
	assert.Equal(t, 0.0, r.Function("bal").Rho)
	assert.True(t, r.Function("bal").Weak)
	// h = w1^2 + w3^2 - 0.5 is convex, -h has curvature -2: rho 2; as an
	// inequality h alone counts, rho 0.
	assert.InEpsilon(t, 2, r.Function("circ").Rho, 1e-9)
	assert.Equal(t, 0.0, r.Function("band").Rho)
	k := r.Function("kink")
	assert.False(t, k.Weak)
	assert.Contains(t, k.Why.Reason, "-h must be weakly convex too")
	assert.False(t, r.Weak)
}
