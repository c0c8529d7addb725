package check_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
)

func TestKinks(t *testing.T) {
	load := func(src string) *check.Model {
		t.Helper()
		m, _, diags := modelfile.LoadSource("m.qrc", []byte(src), check.Options{})
		require.NoError(t, diags.Err())
		return m
	}
	smooth, k := check.Smooth(load("var x[2] in box(-1, 1)\nminimize sum(j in 1..2) exp(x[j]) + x[1]^2\nsubject to\n    c: sigmoid(x[1]) <= 0.9\n"))
	assert.True(t, smooth)
	assert.Nil(t, k)

	// abs of a constant is smooth in the variables; the kinks that depend on
	// them are listed once each, in order
	m := load("param p = -2\nvar x[2] in box(-1, 1)\nminimize abs(p) * abs(x[1]) + max(j in 1..2) x[j]\nsubject to\n    c: x[2]^0.5 <= 1\n")
	kinks := check.Kinks(m)
	var atoms []string
	for _, k := range kinks {
		atoms = append(atoms, k.Atom)
	}
	assert.Equal(t, []string{"abs", "max(...)", "^0.5"}, atoms)
	smooth, k = check.Smooth(m)
	assert.False(t, smooth)
	require.NotNil(t, k)
	assert.Equal(t, "m.qrc:3:19", k.Expr.Src().Pos().String())
	assert.Contains(t, k.Reason, "abs is not differentiable everywhere")
}
