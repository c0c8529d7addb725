package main_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
