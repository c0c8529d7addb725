package diagtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/diag/diagtest"
)

const src = "param a = b # ERROR \"unknown name \\\"b\\\"\"\n" +
	"var x in ball(-1) # ERROR @15 `radius (is|must not be) negative`\n" +
	"# a comment that is no expectation\n" +
	"var y in box(0, 1) # WARNING \"not used\" ERROR \"second\"\n"

func d(sev diag.Severity, line, col int, msg string) *diag.Diagnostic {
	return &diag.Diagnostic{Severity: sev, Pos: ast.Pos{Filename: "m.qrc", Line: line, Column: col}, Msg: msg}
}

func TestParse(t *testing.T) {
	want, err := diagtest.Parse([]byte(src))
	require.NoError(t, err)
	require.Len(t, want, 4)
	assert.Equal(t, diag.Error, want[0].Severity)
	assert.Equal(t, 1, want[0].Line)
	assert.Equal(t, 0, want[0].Column)
	assert.Equal(t, `unknown name "b"`, want[0].Rx.String())
	assert.Equal(t, 15, want[1].Column)
	assert.Equal(t, `radius (is|must not be) negative`, want[1].Rx.String())
	assert.Equal(t, diag.Warning, want[2].Severity)
	assert.Equal(t, 4, want[2].Line)
	assert.Equal(t, diag.Error, want[3].Severity)
	assert.Equal(t, 4, want[3].Line)

	for _, bad := range []string{"x # ERROR unquoted\n", "x # ERROR \"(\"\n", "x # ERROR \"a\" junk\n", "x # ERROR @0 \"a\"\n"} {
		_, err := diagtest.Parse([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func TestMismatches(t *testing.T) {
	want, err := diagtest.Parse([]byte(src))
	require.NoError(t, err)
	all := diag.List{
		d(diag.Error, 1, 11, `unknown name "b"`),
		d(diag.Error, 2, 15, "the radius is negative"),
		d(diag.Warning, 4, 5, `variable "y" is not used`),
		d(diag.Error, 4, 1, "a second error"),
	}
	assert.Empty(t, diagtest.Mismatches("m.qrc", want, all))

	// Each way of missing: wrong column, wrong line, wrong severity, wrong
	// text, wrong file; each gives one unexpected diagnostic and one
	// unmatched expectation.
	for _, wrong := range []*diag.Diagnostic{
		d(diag.Error, 2, 14, "the radius is negative"),
		d(diag.Error, 3, 15, "the radius is negative"),
		d(diag.Warning, 2, 15, "the radius is negative"),
		d(diag.Error, 2, 15, "the radius is zero"),
		{Severity: diag.Error, Pos: ast.Pos{Filename: "o.qrc", Line: 2, Column: 15}, Msg: "the radius is negative"},
	} {
		got := diag.List{all[0], wrong, all[2], all[3]}
		msgs := diagtest.Mismatches("m.qrc", want, got)
		require.Len(t, msgs, 2, "%v", wrong)
		assert.Contains(t, msgs[0], "unexpected")
		assert.Contains(t, msgs[1], "m.qrc:2:15: ERROR")
	}
	// A diagnostic twice matches one expectation once.
	assert.Len(t, diagtest.Mismatches("m.qrc", want, append(all, all[0])), 1)
}
