package problem_test

import (
	"testing"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/qrc-lang/qrc/problem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConstraintsDescribeEqualities(t *testing.T) {
	src := `param Q = [[1, 2, 0], [0, 1, 0], [0, 0, 1]]
var w[3] in box(0, 1)
minimize sum(j in 1..3) square(w[j] - 0.5)
subject to
    bal: sum(w) == 1
    lin: dot(Q[1], w) + 2 * w[2] / 4 - mean(j in 1..3) w[j] - (1 - w[3]) == 0
    circ[k in 1..2]: w[k]^2 + w[3]^2 == 0.5
    prod: w[1] * w[2] == 0.1
    cap: w[1] <= 0.8
    floor: sum(j in 1..3) w[j] >= 0.2
`
	m, _, diags := modelfile.LoadSource("eq.qrc", []byte(src), check.Options{})
	require.NotNil(t, m, "%v", diags)
	cs := problem.Constraints(m)
	type row struct {
		name       string
		eq, affine bool
		line, col  int
	}
	want := []row{
		{"bal", true, true, 5, 5}, {"lin", true, true, 6, 5}, {"circ[1]", true, false, 7, 5}, {"circ[2]", true, false, 7, 5},
		{"prod", true, false, 8, 5}, {"cap", false, true, 9, 5}, {"floor", false, true, 10, 5},
	}
	require.Len(t, cs, len(want))
	for i, w := range want {
		assert.Equal(t, w.name, cs[i].Name)
		assert.Equal(t, w.eq, cs[i].Equality, w.name)
		assert.Equal(t, w.affine, cs[i].Affine, w.name)
		assert.Equal(t, w.line, cs[i].Pos.Line, w.name)
		assert.Equal(t, w.col, cs[i].Pos.Column, w.name)
	}
	assert.True(t, problem.HasEquality(cs))
	assert.False(t, problem.HasEquality(cs[5:]))
}
