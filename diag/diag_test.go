package diag_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/diag"
)

func pos(line, col int) ast.Pos { return ast.Pos{Filename: "m.qrc", Line: line, Column: col} }

func TestRender(t *testing.T) {
	src := []byte("param a = 1\n\tvar x[3] in ball(lamda)\n")
	tests := []struct {
		d    diag.Diagnostic
		want string
	}{
		{diag.Diagnostic{Pos: pos(2, 18), End: pos(2, 23), Msg: "unknown"},
			"m.qrc:2:18: unknown\n    \tvar x[3] in ball(lamda)\n    \t                ^^^^^\n"},
		{diag.Diagnostic{Severity: diag.Warning, Pos: pos(1, 7), Msg: "w"},
			"m.qrc:1:7: warning: w\n    param a = 1\n          ^\n"},
		// A span running past the line is cut at its end.
		{diag.Diagnostic{Pos: pos(1, 11), End: pos(3, 1), Msg: "long"},
			"m.qrc:1:11: long\n    param a = 1\n              ^\n"},
		// A position past the end of the file prints the message alone.
		{diag.Diagnostic{Pos: pos(9, 1), Msg: "eof"}, "m.qrc:9:1: eof\n"},
		// No position at all.
		{diag.Diagnostic{Pos: ast.Pos{Filename: "--data x"}, Msg: "no data set"}, "--data x: no data set\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		diag.Render(&buf, &tt.d, src)
		assert.Equal(t, tt.want, buf.String())
	}
}

func TestList(t *testing.T) {
	var l diag.List
	assert.NoError(t, l.Err())
	l = append(l, &diag.Diagnostic{Severity: diag.Warning, Pos: pos(3, 1), Msg: "unused x"})
	assert.NoError(t, l.Err(), "warnings alone are not an error")
	l.AddAt(pos(1, 2), "bad %d", 1)
	assert.Error(t, l.Err())
	l.Sort()
	assert.Equal(t, "m.qrc:1:2: bad 1\nm.qrc:3:1: warning: unused x", l.Error())
	assert.Len(t, l.Errors(), 1)
	assert.Len(t, l.Warnings(), 1)
}
