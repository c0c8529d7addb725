package autodiff

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// wolfe is the objective of Wolfe's function (Lukšan & Vlček 2000).
const wolfe = `if x[1] > abs(x[2]) then 5 * sqrt(9 * x[1]^2 + 16 * x[2]^2)
    else if x[1] > 0 then 9 * x[1] + 16 * abs(x[2])
    else 9 * x[1] + 16 * abs(x[2]) - x[1]^9`

// The conditional's value and subgradient are the branch's the condition
// takes, by hand; the branch not taken adds nothing, not even a NaN or an
// infinite derivative.
func TestIfKnownValues(t *testing.T) {
	t.Parallel()
	s145 := math.Sqrt(145)
	cases := []struct {
		decl, obj string
		x         []float64
		val       float64
		grad      []float64
	}{
		// 5 sqrt(9 x1^2 + 16 x2^2), gradient 5 (9 x1, 16 x2) / sqrt(...)
		{"var x[2]\n", wolfe, []float64{3, 2}, 5 * s145, []float64{5 * 27 / s145, 5 * 32 / s145}},
		{"var x[2]\n", wolfe, []float64{1, 2}, 41, []float64{9, 16}},
		// on the boundary x1 = |x2| the condition x1 > |x2| fails
		{"var x[2]\n", wolfe, []float64{1, 1}, 25, []float64{9, 16}},
		// 9 x1 + 16 |x2| - x1^9 at (-1, -1): -9 + 16 + 1; (9 - 9 x1^8, -16)
		{"var x[2]\n", wolfe, []float64{-1, -1}, 8, []float64{0, -16}},
		{"var x[2]\n", wolfe, []float64{-1, 0}, -8, []float64{0, 0}},
		// log of a negative number and log(0) in the branch not taken
		{"var x[2]\n", "if x[1] > 0 then log(x[1]) else x[2]", []float64{-1, 3}, 3, []float64{0, 1}},
		{"var x[2]\n", "if x[1] > 0 then log(x[1]) else x[2]", []float64{0, 3}, 3, []float64{0, 1}},
		{"var x[2]\n", "if x[1] > 0 then log(x[1]) else x[2]", []float64{math.E, 3}, 1, []float64{1 / math.E, 0}},
		// and, not; a condition on an index inside a comprehension
		{"var x[2]\n", "if x[1] > 0 and not x[2] <= 0 then x[1] * x[2] else 0", []float64{2, 3}, 6, []float64{3, 2}},
		{"var x[2]\n", "if x[1] > 0 and not x[2] <= 0 then x[1] * x[2] else 0", []float64{2, -3}, 0, []float64{0, 0}},
		{"var x[3]\n", "sum(j in 1..3) (if j == 2 then 2 * x[j] else x[j]^2)", []float64{1, 2, 3}, 1 + 4 + 9, []float64{2, 2, 6}},
		// a scalar branch broadcast to the vector one
		{"var x[3]\n", "norm1(if x[1] > 0 then x else 1)", []float64{1, -2, 3}, 6, []float64{1, -1, 1}},
		{"var x[3]\n", "norm1(if x[1] > 0 then x else 1)", []float64{-1, 2, 3}, 3, []float64{0, 0, 0}},
		// lists of expressions: norm2((3, 4)) = 5 with (3, 4)/5 through a - b
		{"var x[3]\n", "norm2([x[1] - x[2], x[3]])", []float64{4, 1, 4}, 5, []float64{0.6, -0.6, 0.8}},
		{"var x[3]\n", "sum(i in 1..2) dot([i, x[i]], [1, 2])", []float64{1, 2, 0}, 3 + 6, []float64{2, 2, 0}},
		{"var x[3]\n", "sum([[x[1], 1], [2, x[2]]])", []float64{1, 2, 0}, 6, []float64{1, 1, 0}},
		// rows that are vectors: [[x1, 2 x1], [x2, 0]]
		{"var x[3]\n", "norm1([x[1] * [1, 2], [x[2], 0]])", []float64{1, -2, 0}, 5, []float64{3, -1, 0}},
		{"var x[3]\n", "norm2([x[1] - x[2], x[3]])^2", []float64{4, 1, 4}, 25, []float64{6, -6, 8}},
		// the max the analysis recognises: ties to the else branch
		{"var x[2]\n", "if x[1] > x[2] then x[1] else x[2]", []float64{2, 2}, 2, []float64{0, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.obj, func(t *testing.T) {
			_, p, err := compileSource(t, tc.decl+"minimize "+tc.obj+"\n", nil)
			require.NoError(t, err)
			vals := make([]float64, 1)
			require.NoError(t, p.Eval(tc.x, vals))
			require.InDelta(t, tc.val, vals[0], 1e-12*math.Max(1, math.Abs(tc.val)))
			g := make([]float64, len(tc.x))
			require.NoError(t, p.Gradient([]float64{1}, g))
			require.InDeltaSlice(t, tc.grad, g, 1e-12)
		})
	}
}

// Away from the boundaries, the subgradient of a conditional matches
// finite differences, also inside a mean over data rows.
func TestIfFiniteDifferences(t *testing.T) {
	t.Parallel()
	src := "data D = csv(\"d.csv\", label = \"y\")\nvar x[2]\nminimize mean(i in D) (if D.y[i] * dot(D.X[i], x) < 1 then 1 - D.y[i] * dot(D.X[i], x) else 0) + (" + wolfe + ")\n"
	files := map[string]string{"d.csv": "a,b,y\n1,2,1\n-1,0.5,-1\n0.3,-2,1\n2,1,-1\n"}
	_, p, err := compileSource(t, src, files)
	require.NoError(t, err)
	for _, x := range [][]float64{{3, 2}, {1, 2}, {-1.5, 0.3}, {0.2, -0.7}} {
		require.Less(t, fdCheck(t, p, x), 1e-5, "x = %v", x)
	}
}
