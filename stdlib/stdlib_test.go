package stdlib_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/stdlib"
)

func scalar(t *testing.T, name string, z float64, p ...float64) float64 {
	t.Helper()
	f := stdlib.Lookup(name)
	require.NotNil(t, f, name)
	require.NotNil(t, f.Scalar, name)
	return f.Scalar(z, p)
}

func TestScalarValues(t *testing.T) {
	tests := []struct {
		name string
		z    float64
		p    []float64
		want float64
	}{
		{"abs", -2, nil, 2},
		{"pos", -1, nil, 0},
		{"pos", 3, nil, 3},
		{"hinge", 0.25, nil, 0.75},
		{"hinge", 2, nil, 0},
		{"square", -3, nil, 9},
		{"sigmoid", 0, nil, 0.5},
		{"logistic", 0, nil, math.Ln2},
		{"huber", 0.5, []float64{1}, 0.125},
		{"huber", 3, []float64{1}, 2.5},
		{"mcp", 0.5, []float64{1, 2}, 0.5 - 0.25/4},
		{"mcp", 5, []float64{1, 2}, 1},
		{"scad", 0.5, []float64{1, 3.7}, 0.5},
		{"scad", 2, []float64{1, 3.7}, (2*3.7*2 - 4 - 1) / (2 * 2.7)},
		{"scad", 10, []float64{1, 3.7}, 4.7 / 2},
		{"max", 1, []float64{3, 2}, 3},
		{"min", 1, []float64{3, -2}, -2},
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, scalar(t, tt.name, tt.z, tt.p...), 1e-12, "%s(%v, %v)", tt.name, tt.z, tt.p)
	}
}

// The penalties are continuous at their breakpoints.
func TestPenaltiesContinuous(t *testing.T) {
	for _, c := range []struct {
		name string
		p    []float64
		bps  []float64
	}{{"mcp", []float64{1, 2}, []float64{2}}, {"scad", []float64{1, 3.7}, []float64{1, 3.7}}, {"huber", []float64{0.5}, []float64{0.5}}} {
		for _, b := range c.bps {
			lo, hi := scalar(t, c.name, b-1e-9, c.p...), scalar(t, c.name, b+1e-9, c.p...)
			assert.InDelta(t, lo, hi, 1e-8, "%s at %v", c.name, b)
		}
	}
}

func TestStableForms(t *testing.T) {
	assert.Equal(t, 1.0, stdlib.Sigmoid(1000))
	assert.Equal(t, 0.0, stdlib.Sigmoid(-1000))
	assert.InDelta(t, math.Exp(-50), stdlib.Sigmoid(-50), 1e-30)
	assert.Equal(t, 1000.0, stdlib.Logistic(1000))
	assert.InDelta(t, math.Exp(-1000), stdlib.Logistic(-1000), 1e-300)
	assert.InDelta(t, math.Exp(-30), stdlib.Logistic(-30), 1e-25)
	for _, z := range []float64{-1e308, -800, -1, 0, 1, 800, 1e308} {
		assert.False(t, math.IsNaN(stdlib.Sigmoid(z)), "sigmoid(%v)", z)
		assert.False(t, math.IsNaN(stdlib.Logistic(z)), "logistic(%v)", z)
	}
}

func TestReductions(t *testing.T) {
	v := []float64{3, -4, 0}
	assert.Equal(t, 7.0, stdlib.Lookup("norm1").Reduce(v))
	assert.Equal(t, 5.0, stdlib.Lookup("norm2").Reduce(v))
	assert.Equal(t, 4.0, stdlib.Lookup("norminf").Reduce(v))
	assert.Equal(t, -1.0, stdlib.Lookup("sum").Reduce(v))
	assert.InDelta(t, -1.0/3, stdlib.Lookup("mean").Reduce(v), 1e-15)
	assert.Equal(t, 3.0, stdlib.Lookup("max").Reduce(v))
	assert.Equal(t, -4.0, stdlib.Lookup("min").Reduce(v))
	// norm2 does not overflow.
	assert.InDelta(t, 5e300, stdlib.Lookup("norm2").Reduce([]float64{3e300, 4e300}), 1e286)
}

func TestParamChecks(t *testing.T) {
	assert.NotEmpty(t, stdlib.Lookup("huber").CheckParams([]float64{0}))
	assert.Empty(t, stdlib.Lookup("huber").CheckParams([]float64{1}))
	assert.NotEmpty(t, stdlib.Lookup("scad").CheckParams([]float64{1, 2}))
	assert.NotEmpty(t, stdlib.Lookup("mcp").CheckParams([]float64{1, -1}))
}

func TestTable(t *testing.T) {
	names := stdlib.Names()
	for _, want := range []string{"abs", "pos", "max", "min", "exp", "log", "log1p", "sqrt", "square", "sigmoid",
		"logistic", "tanh", "hinge", "huber", "mcp", "scad", "norm1", "norm2", "norminf", "logsumexp", "sum", "mean", "dot",
		"sin", "cos", "tan", "atan", "erf", "log10", "prod"} {
		assert.Contains(t, names, want)
	}
	for _, n := range names {
		f := stdlib.Lookup(n)
		assert.NotEmpty(t, f.Doc, n)
		assert.False(t, f.Props.Convex && f.Props.WeakConvexity != 0, "%s: convex functions have modulus 0", n)
	}
	assert.Nil(t, stdlib.Lookup("nope"))
	assert.True(t, stdlib.IsComprehension("mean"))
	assert.False(t, stdlib.IsComprehension("dot"))
}
