package lang_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/lang"
)

// if C then A else B is a primary whose else branch is a whole sum; its
// condition is a where filter's (comparisons with and, or, not); else if
// chains; else is required.
func TestParseIf(t *testing.T) {
	e, errs := lang.ParseExpr("e", []byte("2 * if x > abs(y) and not x == 0 then x else y + 1"))
	require.Nil(t, errs)
	b := e.(*ast.Binary)
	require.Equal(t, "*", b.Op)
	c := b.Y.(*ast.If)
	assert.Equal(t, 5, c.Pos().Column)
	assert.Equal(t, "and", c.Cond.(*ast.Binary).Op)
	assert.Equal(t, "x", c.Then.(*ast.Ident).Name)
	assert.Equal(t, "+", c.Else.(*ast.Binary).Op, "the else branch is y + 1")
	assert.Equal(t, 51, c.End().Column)

	e, errs = lang.ParseExpr("e", []byte("if x > 0 then 1 else if x < 0 then -1 else 0"))
	require.Nil(t, errs)
	inner, ok := e.(*ast.If).Else.(*ast.If)
	require.True(t, ok, "else if nests in the else branch")
	assert.Equal(t, "<", inner.Cond.(*ast.Binary).Op)

	for _, tt := range []struct{ src, want string }{
		{"if x > 0 then 1", `e:1:16: syntax error: unexpected end of file (expected "else")`},
		{"if x then 1 else 0", `e:1:6: syntax error: unexpected "then"`},
		{"param then = 1", ""},
	} {
		var errs []string
		if strings.HasPrefix(tt.src, "param") {
			_, ds := lang.Parse("m.qrc", []byte(tt.src))
			require.Len(t, ds, 1, tt.src)
			assert.Contains(t, ds[0].Error(), "keywords cannot be used as names")
			continue
		}
		_, ds := lang.ParseExpr("e", []byte(tt.src))
		for _, d := range ds {
			errs = append(errs, d.Error())
		}
		require.Len(t, errs, 1, tt.src)
		assert.True(t, strings.HasPrefix(errs[0], tt.want), "%q: got %q", tt.src, errs[0])
	}
}
