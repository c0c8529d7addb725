package main_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Diagnostics and messages are safe and short to print, and say what is
// wrong where (docs/reliability.md, "Messages").
func TestMessages(t *testing.T) {
	long := strings.Repeat("a", 100000)
	var cons strings.Builder
	for k := 1; k <= 50; k++ {
		fmt.Fprintf(&cons, "    c%d: x <= %d\n", k, k)
	}
	dir := writeFiles(t, map[string]string{
		"esc.qrc":   "var x in box(-1,1)\nminimize x + y # \x1b]0;pwned\x07\x1b[2J\n",
		"long.qrc":  "var x in box(-1,1)\nminimize x + " + long + "\n",
		"wide.qrc":  "var 変数 in box(-1,1)\nminimize 変数 + 変数x\n",
		"sep.qrc":   "var x in box(-1,1)\nminimize x + 1_000\nsubject to\n    c: x <= 1\n",
		"big.qrc":   "var x[2^53] in box(-1,1)\nminimize x[1]\n",
		"inf.csv":   "a,y\n1e999,1\n2,1\n",
		"inf.qrc":   "data d = csv(\"inf.csv\", label = \"y\")\nvar w in box(-1,1)\nminimize mean(i in d) w * d.a[i]\n",
		"many.qrc":  "var x in box(-1,1)\nminimize x\nsubject to\n" + cons.String(),
		"n.csv":     "n,a,lab\n5,1,1\n6,2,-1\n",
		"n.qrc":     "data d = csv(\"n.csv\", label = \"lab\")\nvar w in box(-1,1)\nminimize w * d.n\n",
		"plain.qrc": "param r = 1\nvar x in box(-1,1)\nminimize x\n",
	})
	for _, c := range []struct {
		args []string
		code int
		want []string
		not  []string
	}{
		{[]string{"check", "esc.qrc"}, 1, []string{`minimize x + y # \x1b]0;pwned\x07\x1b[2J`}, []string{"\x1b"}},
		{[]string{"check", "long.qrc"}, 1, []string{`unknown name "aaaaaaaaaa`, `...(100002 bytes)...`}, []string{strings.Repeat("a", 1000)}},
		{[]string{"check", "wide.qrc"}, 1, []string{"    minimize 変数 + 変数x\n" + "    " + strings.Repeat(" ", 16) + "^^^^^\n"}, nil},
		{[]string{"check", "sep.qrc"}, 1, []string{"sep.qrc:2:14: numbers take no digit separators: write 1000, not 1_000"}, []string{"sep.qrc:3"}},
		{[]string{"check", "big.qrc"}, 1, []string{"a dimension of 9007199254740992 is too large"}, []string{"not an integer"}},
		{[]string{"check", "inf.qrc"}, 1, []string{`number "1e999" in column "a" is out of range`}, []string{"non-numeric"}},
		{[]string{"check", "many.qrc", "--explain", "nosuch"}, 2, []string{`no function "nosuch"`, "c19, ... (51 in all)"}, []string{"c20,"}},
		{[]string{"check", "n.qrc"}, 0, []string{`warning: data set "d" has a column named "n", but d.n is the set's number of rows`}, nil},
		{[]string{"check", "plain.qrc", "--set", "nosuch=1"}, 1, []string{`--set nosuch: the model has no parameter "nosuch"`}, []string{"--set nosuch: --set nosuch"}},
	} {
		r := run1(t, dir, "", c.args...)
		assert.Equal(t, c.code, r.code, "%v: %s", c.args, r.stderr)
		for _, w := range c.want {
			assert.Contains(t, r.stderr+r.stdout, w, c.args)
		}
		for _, w := range c.not {
			assert.NotContains(t, r.stderr+r.stdout, w, c.args)
		}
		assert.Less(t, len(r.stderr), 2000, "%v: a bounded message", c.args)
	}
}

// The library names the overrides it is given (the value of param r, the
// file for data set D, check.CheckEvalExpr); the command line shows the
// flags that gave them, as it always has, in its text, its caret lines,
// its JSON and the REPL.
func TestOverrideMessagesNameFlags(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"m.qrc":   "param r = 1\ndata D = csv(\"d.csv\", label = \"y\")\nvar x in box(-1, 1)\nminimize mean(i in D) (x - D.a[i])^2 + r * x\n",
		"d.csv":   "a,y\n1,1\n2,1\n",
		"cmp.qrc": "var x in box(-1, 1)\nminimize (x > 0) * x\n",
	})
	const syntax = "--set r:1:4: syntax error: unexpected end of file (expected an expression)\n    3 +\n       ^\nm.qrc: 1 error\n"
	const noParam = "--set nosuch: the model has no parameter \"nosuch\"\nm.qrc: 1 error\n"
	const noData = "--data Q: the model has no data set \"Q\" (did you mean \"D\"?)\nm.qrc: 1 error\n"
	const missing = "m.qrc:2:6: cannot load data set \"D\" (from --data D): missing.csv: cannot open file: no such file or directory\n" +
		"    data D = csv(\"d.csv\", label = \"y\")\n         ^\nm.qrc: 1 error\n"
	const comparison = "cmp.qrc:2:13: a comparison is 0 or 1, a step that is not differentiable, so it is only allowed in a where filter, " +
		"as a constraint (name: lhs <= rhs), or in an evaluation (:eval, qrc eval --metric); in the objective or a constraint write a smooth " +
		"surrogate of the step, such as sigmoid(k * (a - b)) for a > b, or choose between two expressions with if a > b then ... else ...\n" +
		"    minimize (x > 0) * x\n                ^\n"
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"check", "m.qrc", "--set", "r=3 +"}, syntax},
		{[]string{"solve", "m.qrc", "--set", "r=3 +"}, syntax},
		{[]string{"eval", "m.qrc", "--set", "r=3 +"}, syntax},
		{[]string{"gradcheck", "m.qrc", "--set", "r=3 +"}, syntax},
		{[]string{"check", "m.qrc", "--set", "r=log(0-1)"}, "--set r:1:1: parameter \"r\" is NaN\n    log(0-1)\n    ^^^^^^^^\nm.qrc: 1 error\n"},
		{[]string{"check", "m.qrc", "--set", "nosuch=1"}, noParam},
		{[]string{"bench", "m.qrc", "--set", "nosuch=1"}, noParam},
		{[]string{"check", "m.qrc", "--data", "Q=d.csv"}, noData},
		{[]string{"solve", "m.qrc", "--data", "Q=d.csv"}, noData},
		{[]string{"check", "m.qrc", "--data", "D=missing.csv"}, missing},
		{[]string{"solve", "m.qrc", "--data", "D=missing.csv"}, missing},
		{[]string{"check", "cmp.qrc"}, comparison + "cmp.qrc: 1 error\n"},
		{[]string{"solve", "cmp.qrc"}, comparison + "cmp.qrc: 1 error\n"},
		{[]string{"repl", "cmp.qrc"}, comparison + "1 error: the model is unchanged\n"},
		{[]string{"repl", "m.qrc", "--data", "Q=x.csv"}, "--data Q: the model has no data set \"Q\" (did you mean \"D\"?)\n"},
	} {
		r := run1(t, dir, "", c.args...)
		assert.Equal(t, 1, r.code, "%v: %s", c.args, r.stderr)
		assert.Equal(t, c.stderr, r.stderr, c.args)
	}
	// the JSON summary's diagnostics name the flags too
	for _, c := range []struct {
		args           []string
		pos, file, msg string
	}{
		{[]string{"--set", "r=3 +"}, "--set r:1:4", "--set r", "syntax error: unexpected end of file (expected an expression)"},
		{[]string{"--data", "Q=d.csv"}, "--data Q", "--data Q", `the model has no data set "Q" (did you mean "D"?)`},
		{[]string{"--data", "D=missing.csv"}, "m.qrc:2:6", "m.qrc", `cannot load data set "D" (from --data D): missing.csv: cannot open file: no such file or directory`},
	} {
		r := run1(t, dir, "", append([]string{"check", "--json", "m.qrc"}, c.args...)...)
		assert.Equal(t, 1, r.code, "%v: %s", c.args, r.stderr)
		var s struct {
			Diagnostics []struct{ Pos, File, Message string }
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &s), r.stdout)
		require.Len(t, s.Diagnostics, 1, c.args)
		assert.Equal(t, c.pos, s.Diagnostics[0].Pos, c.args)
		assert.Equal(t, c.file, s.Diagnostics[0].File, c.args)
		assert.Equal(t, c.msg, s.Diagnostics[0].Message, c.args)
	}
}
