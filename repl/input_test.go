package repl

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// feedAll adds lines to an Input and returns the statements made, and
// whether a statement is still pending at the end.
func feedAll(lines ...string) ([]Statement, bool) {
	in := Input{NeedsMore: needsMore}
	var out []Statement
	for i, l := range lines {
		out = append(out, in.Add(l, i+1)...)
	}
	return out, in.Pending()
}

func TestInputContinuation(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lines   []string
		want    []Statement
		pending bool
	}{
		{"one line", []string{"param K = 10"}, []Statement{{Text: "param K = 10", Line: 1}}, false},
		{"blank and comment lines are skipped", []string{"", "# note", "param K = 1"}, []Statement{{Text: "param K = 1", Line: 3}}, false},
		{"open bracket", []string{"param w = [1,", "2]"}, []Statement{{Text: "param w = [1,\n2]", Line: 1}}, false},
		{"open paren", []string{"minimize sum(j in 1..2", ") x[j]"}, []Statement{{Text: "minimize sum(j in 1..2\n) x[j]", Line: 1}}, false},
		{"trailing operator", []string{"minimize x +", "y"}, []Statement{{Text: "minimize x +\ny", Line: 1}}, false},
		{"trailing colon", []string{"c[k in 1..3]:", "x[k] <= 1"}, []Statement{{Text: "c[k in 1..3]:\nx[k] <= 1", Line: 1}}, false},
		{"trailing in", []string{"var x in", "box(0, 1)"}, []Statement{{Text: "var x in\nbox(0, 1)", Line: 1}}, false},
		{"parser wants more", []string{"minimize mean(i in d)", "x"}, []Statement{{Text: "minimize mean(i in d)\nx", Line: 1}}, false},
		{"unfinished at a blank line", []string{"param K =", ""}, []Statement{{Text: "param K =", Line: 1}}, false},
		{"still open", []string{"param w = [1,"}, nil, true},
		{"subject to ends at a blank line", []string{"subject to", "  a: x <= 1", "  b: x >= 0", "", ":solve"},
			[]Statement{{Text: "subject to\n  a: x <= 1\n  b: x >= 0", Line: 1}, {Text: ":solve", Line: 5}}, false},
		{"subject to ends at a command", []string{"subject to", "  a: x <= 1", ":solve"},
			[]Statement{{Text: "subject to\n  a: x <= 1", Line: 1}, {Text: ":solve", Line: 3}}, false},
		{"subject to ends at a declaration", []string{"subject to", "  a: x <= 1", "minimize x"},
			[]Statement{{Text: "subject to\n  a: x <= 1", Line: 1}, {Text: "minimize x", Line: 3}}, false},
		{"a constraint named let stays in the block", []string{"subject to", "  let: x <= 1", ""},
			[]Statement{{Text: "subject to\n  let: x <= 1", Line: 1}}, false},
		{"subject to pending", []string{"subject to", "  a: x <= 1"}, nil, true},
		{"commands are one line", []string{":eval (1 +"}, []Statement{{Text: ":eval (1 +", Line: 1}}, false},
		{"brackets in strings and comments", []string{`data d = csv("a(b.csv") # (`}, []Statement{{Text: `data d = csv("a(b.csv") # (`, Line: 1}}, false},
		{"a stray word is not continued", []string{"foo"}, []Statement{{Text: "foo", Line: 1}}, false},
		{"let", []string{"let K = 3"}, []Statement{{Text: "let K = 3", Line: 1}}, false},
		{"member and number are not operators", []string{"param n = d.n", "param e = 1.5"},
			[]Statement{{Text: "param n = d.n", Line: 1}, {Text: "param e = 1.5", Line: 2}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, pending := feedAll(tc.lines...)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.pending, pending)
		})
	}
}

func TestInputReset(t *testing.T) {
	in := Input{NeedsMore: needsMore}
	assert.Empty(t, in.Add("param w = [1,", 1))
	assert.True(t, in.Pending())
	in.Reset()
	assert.False(t, in.Pending())
	assert.Equal(t, []Statement{{Text: "param K = 2", Line: 2}}, in.Add("param K = 2", 2))
}
