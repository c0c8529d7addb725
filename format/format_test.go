package format

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/lang"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// examples returns the example models, by base name without ".qrc".
func examples(t testing.TB) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "examples", "*.qrc"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	m := map[string][]byte{}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		m[strings.TrimSuffix(filepath.Base(p), ".qrc")] = src
	}
	return m
}

// snippets are tricky inputs for the idempotence, round-trip and comment
// tests and the fuzz seeds.
var snippets = []struct{ name, src string }{
	{"empty", ""},
	{"only blank lines", "\n\n\n"},
	{"only a comment", "# just a comment"},
	{"comment before first decl", "# top\nparam a = 1\n"},
	{"header comment separated by blank", "# Header of the file.\n# Second line.\n\n\n# Doc of a.\nparam a = 1\n"},
	{"blank between doc and decl", "# doc\n\nparam a = 1\n"},
	{"trailing comments", "param a = 1 # one\nparam bb = 2      # two\nparam c = 3\n\nvar x in simplex # three\n"},
	{"comment inside multi-line expression", `func loss(k) = mean(i in train where train.y[i] == k)   # outer
                   sum(l in 1..K where l != k) phi(dot(W[k] - W[l], train.X[i]))  # inner
param z = 1 +   # mid
   2 +

   # own line inside
   3 # last
`},
	{"comment inside multi-line after blank", "param y = 0\n\nparam z = 1 +\n  # inside\n  2\n"},
	{"comments inside subject to", `minimize x
subject to  # header
    # doc of a

    a: x <= 1   # tail a


    # doc of b
    b[k in 1..3]: x[k] >= 0
      # between
    c: x
       + y <= 2 # tail c
# after block
`},
	{"comments at end of file", "param a = 1\n# end 1\n\n# end 2\n   # end 3\n"},
	{"comment between subject and to", "subject # odd\n to\n c: x <= 1\n"},
	{"nested comprehensions", "minimize sum(i in 1..n) max(j in 1..m where j != i and not (i < 2 or j > 3)) x[i, j] * y[j]\n"},
	{"comprehension products", "param a = sum(i in S) a * b / c + (sum(i in S) a) * b - x * sum(j in T, k in U) y[j, k]\n"},
	{"comprehension operands", "param a = -sum(i in 1..3) i * 2 + x^sum(i in 1..3) i + (-sum(i in S) i) * 2 + (sum(i in S) i)^2 + (sum(i in S) i)[1] + (sum(i in S) s).d\n"},
	{"unary minus and powers", "param a = -x^2 + (-x)^2 + x^-1 + 2^3^4 + (2^3)^4 + - -x + +x - -2 ^ - 3\n"},
	{"parentheses", "param b = (a + b) * (c - d) / ((e)) - (f * g) + (((h)))\n"},
	{"where conditions", "minimize sum(i in S where (i < 3)) x + sum(i in S where (i) < 3) x + sum(i in S where not not i >= 2 and (i <= 5 or i == 7)) x + mean(i in S where (i + 1) * 2 != 3) x\n"},
	{"named args and vectors", "data d = csv(\"f.csv\", label = \"y\", drop = [\"a\", \"b\"])\nvar v[3] in box([0, 0, 0], [1, 1, 1]) = [0.5, .5, 5e-1]\nparam e = []\nparam f = g()\n"},
	{"messy spacing", "param   a=1+2*3   param b=a\tparam c = train . d\nminimize(x)\nvar  W [ K , d ]in ball ( 1 )=0\n"},
	{"top-level constraints", "c1: x <= 1\nc2[i in 1..n, j in 1..m]: x[i] + y[j] >= 0 # both\n\nc3: -x > 2 * y\n"},
	{"func alignment", "func f(x) = x\nfunc longer(x, y) = x * y # c1\nfunc g() = 1 # c2\n\nfunc h(a) = a\n# doc\nfunc hh(a) = a\n"},
	{"param alignment broken by comment and blank", "param a = 1\nparam bbb = 2\n# doc\nparam cc = 3\nparam d = 4\n\nparam eeeee = 5\n"},
	{"maximize", "maximize x   # refused by the checker\n"},
	{"crlf", "param a = 1\r\n# c\r\nparam b = 2 # t\r\n"},
	{"tabs and blank lines", "\n\n\tparam a = 1\n\n\n\n\tparam b = 2\n\n\n"},
	{"blank lines after subject to", "subject to\n\n\n    c: x <= 1\n\n    d: y <= 2\n\nminimize x\n"},
	{"empty subject to", "subject to\n\nminimize x\nsubject to # empty\n"},
	{"long chain", "param total = alpha_one_value + beta_two_value * gamma - delta_three_value / epsilon + zeta_four_value + eta_five_value - theta\n"},
	{"long constraint sides", "subject to\n    tight: first_long_term_name + second_long_term_name + third_long_term_name <= fourth_long_term_name + fifth_long_term_name - sixth_long_name_x + seventh\n"},
	{"long comprehension", "func loss(k) = mean(i in train where train.y[i] == k) sum(l in 1..K where l != k) phi(dot(W[k] - W[l], train.X[i])) * weight_factor[k, l]\n"},
	{"long nested comprehension", "func lossy(k) = mean(i in train where train.y[i] == k and train.weight[i] > 0) sum(l in 1..K where l != k and l != k + 1) max(m in 1..K) phi(dot(W[k] - W[l], train.X[i])) * weight_factor[k, l, m]\n"},
	{"long unbreakable", "data d = csv(\"a/very/long/path/to/a/data/set/that/goes/on/and/on/and/on/forever/and/ever/data.csv\", label = \"y\")\n"},
	{"long chain of comprehensions", "minimize mean(i in people where people.group[i] == 0) sigma(dot(people.X[i], x)) + beta * mean(i in people where people.group[i] == 1) sigma(-dot(people.X[i], x)) - gamma * sum(j in 1..d) abs(x[j])\n"},
	{"long with comment", "param total = alpha_one_value + beta_two_value * gamma - delta_three_value / epsilon + zeta_four_value # why\nparam next = 1 # short\n"},
	{"two decls on a line with comment", "param a = 1 param b = 2 +\n 3 # c\n"},
	{"unicode", "# Ünïcödé comment – ok\nparam λ = 1 # λ\nparam μν = 2\nfunc σ(z) = 1 / (1 + exp(-z))\n"},
	{"numbers", "param a = 1e10 + 1.5E-3 + .25 + 007 + 1.0\n"},
	{"ranges", "minimize sum(i in a + 1..b - 1, j in 1...5, k in S) x[i, j, k] + sum(i in 1.5..2) i\n"},
	{"var forms", "var a\nvar b[3]\nvar c in simplex\nvar d = 1\nvar e[n, m] in box(-1, 1)\n"},
	{"func no params", "func c() = 3\n"},
	{"var dims closed on a later line", "var W[K,\n  d\n] # c\nparam x = 1\n"},
	{"call across lines", "param a = f(x,\n  y\n  ) # t\nminimize sum(i in\n S) x  # u\n"},
	{"doc and trailing on subject to", "# the constraints\nsubject to # here\n    a: x <= 1\n"},
	{"conditional", "minimize (if x > abs(y) then x else if x > 0 then y else -x) + 1 # c\nsubject to\n    a: 2 * if x > 0 then x else 0 <= 1\n"},
}

func TestGolden(t *testing.T) {
	for name, src := range examples(t) {
		t.Run(name, func(t *testing.T) {
			got, errs := Source(name+".qrc", src)
			require.Nil(t, errs)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(golden, got, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./format -update to create the golden files")
			assert.Equal(t, string(want), string(got))
		})
	}
}

// inputs returns the examples and the snippets.
func inputs(t testing.TB) []struct{ name, src string } {
	var all []struct{ name, src string }
	for name, src := range examples(t) {
		all = append(all, struct{ name, src string }{name, string(src)})
	}
	return append(all, snippets...)
}

func TestIdempotent(t *testing.T) {
	for _, in := range inputs(t) {
		t.Run(in.name, func(t *testing.T) {
			once, errs := Source("in.qrc", []byte(in.src))
			require.Nil(t, errs)
			twice, errs := Source("out.qrc", once)
			require.Nil(t, errs, "formatted output does not parse:\n%s", once)
			assert.Equal(t, string(once), string(twice))
		})
	}
}

func TestRoundTrip(t *testing.T) {
	for _, in := range inputs(t) {
		t.Run(in.name, func(t *testing.T) {
			f, errs := lang.Parse("in.qrc", []byte(in.src))
			require.Nil(t, errs)
			out, errs := Source("in.qrc", []byte(in.src))
			require.Nil(t, errs)
			g, errs := lang.Parse("out.qrc", out)
			require.Nil(t, errs)
			assert.Equal(t, dump(f, false), dump(g, false), "output:\n%s", out)
		})
	}
}

func TestCommentsKept(t *testing.T) {
	for _, in := range inputs(t) {
		t.Run(in.name, func(t *testing.T) {
			f, errs := lang.Parse("in.qrc", []byte(in.src))
			require.Nil(t, errs)
			out, errs := Source("in.qrc", []byte(in.src))
			require.Nil(t, errs)
			g, errs := lang.Parse("out.qrc", out)
			require.Nil(t, errs)
			want := commentTexts(f)
			assert.Equal(t, want, commentTexts(g), "output:\n%s", out)
			assert.Equal(t, want, attachedTexts(f), "the parser left a comment unattached")
			// And textually, in order.
			rest := string(out)
			for _, c := range want {
				i := strings.Index(rest, c)
				require.GreaterOrEqual(t, i, 0, "comment %q missing or out of order in:\n%s", c, out)
				rest = rest[i+len(c):]
			}
		})
	}
}

// commentTexts returns the text of every comment of f, in order.
func commentTexts(f *ast.File) []string {
	var list []string
	for _, g := range f.Comments {
		for _, c := range g.List {
			list = append(list, c.Text)
		}
	}
	return list
}

// attachedTexts returns the comments attached to f's declarations and f's
// trailing comments, in source order.
func attachedTexts(f *ast.File) []string {
	var cs []*ast.Comment
	add := func(g *ast.CommentGroup) {
		if g != nil {
			cs = append(cs, g.List...)
		}
	}
	for _, d := range f.Decls {
		doc, line := d.Comments()
		add(doc)
		add(line)
		if s, ok := d.(*ast.SubjectTo); ok {
			for _, c := range s.Constraints {
				add(c.Doc)
				add(c.Comment)
			}
		}
	}
	add(f.Trailing)
	var list []string
	for i := range cs { // sort by offset (insertion; lists are short)
		for j := i; j > 0 && cs[j].Hash.Offset < cs[j-1].Hash.Offset; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	for _, c := range cs {
		list = append(list, c.Text)
	}
	return list
}

// TestLayout checks the exact output for a few inputs.
func TestLayout(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"spacing", "param   a=1+2*3   param bb=-a^2\nminimize(x)", "param a  = 1 + 2 * 3\nparam bb = -a^2\nminimize (x)\n"},
		{"blank lines collapse", "\n\n# h\n\n\n# d\nparam a = 1\n\n\n\nparam b = 2\n\n\n", "# h\n\n# d\nparam a = 1\n\nparam b = 2\n"},
		{"subject to", "subject to\n\n  # d\n\n  c[k in 1..K]: x[k] <= 1 # t\n\n  e: y >= 0\nf: z <= 1",
			"subject to\n    # d\n\n    c[k in 1..K]: x[k] <= 1  # t\n\n    e: y >= 0\n    f: z <= 1\n"},
		{"top-level constraint", "c: x <= 1\nminimize x", "c: x <= 1\nminimize x\n"},
		{"func alignment", "func f(x) = x\nfunc longer(x, y) = x * y\n\nfunc g() = 1",
			"func f(x)         = x\nfunc longer(x, y) = x * y\n\nfunc g() = 1\n"},
		{"trailing comment alignment", "param a = 1 # one\nparam bbb = 22 # two\nvar x # three\n\nvar y # four\n",
			"param a   = 1   # one\nparam bbb = 22  # two\nvar x           # three\n\nvar y  # four\n"},
		{"lifted comments", "param y = 0\n\nparam z = 1 +  # a\n  # b\n  2 # c\n",
			"param y = 0\n\n# a\n# b\nparam z = 1 + 2  # c\n"},
		{"empty", "", ""},
		{"long conditional breaks before each else", "minimize if x[1] > abs(x[2]) then 5 * sqrt(9 * x[1]^2 + 16 * x[2]^2) else if x[1] > 0 then 9 * x[1] + 16 * abs(x[2]) else 9 * x[1] + 16 * abs(x[2]) - x[1]^9\n",
			"minimize if x[1] > abs(x[2]) then 5 * sqrt(9 * x[1]^2 + 16 * x[2]^2)\n" +
				"         else if x[1] > 0 then 9 * x[1] + 16 * abs(x[2])\n" +
				"         else 9 * x[1] + 16 * abs(x[2]) - x[1]^9\n"},
		{"short conditional stays", "param p = if k > 1 then 2 else 3\n", "param p = if k > 1 then 2 else 3\n"},
		{"only comments", "\n# a\n\n# b", "# a\n\n# b\n"},
		{"long chain breaks before each operator", "param total = alpha_one_value + beta_two_value * gamma - delta_three_value / epsilon + zeta_four_value + eta - theta\n",
			"param total = alpha_one_value\n" +
				"              + beta_two_value * gamma\n" +
				"              - delta_three_value / epsilon\n" +
				"              + zeta_four_value\n" +
				"              + eta\n" +
				"              - theta\n"},
		{"long constraint breaks its left side first", "subject to\n    tight: first_long_term_name + second_long_term_name + third_long_term_name <= fourth_long_term_name + fifth\n",
			"subject to\n" +
				"    tight: first_long_term_name\n" +
				"           + second_long_term_name\n" +
				"           + third_long_term_name <= fourth_long_term_name + fifth\n"},
		{"long comprehension", "func loss(k) = mean(i in train where train.y[i] == k) sum(l in 1..K where l != k) phi(dot(W[k] - W[l], train.X[i])) * weight[k, l]\n",
			"func loss(k) = mean(i in train where train.y[i] == k)\n" +
				"                   sum(l in 1..K where l != k) phi(dot(W[k] - W[l], train.X[i])) * weight[k, l]\n"},
		{"nested long comprehension", "minimize mean(i in train where train.y[i] == k and train.weight[i] > 0) sum(l in 1..K where l != k and l != k + 1) max(m in 1..K) phi(dot(W[k] - W[l], train.X[i])) * weight_factor[k, l, m]\n",
			"minimize mean(i in train where train.y[i] == k and train.weight[i] > 0)\n" +
				"             sum(l in 1..K where l != k and l != k + 1)\n" +
				"                 max(m in 1..K) phi(dot(W[k] - W[l], train.X[i])) * weight_factor[k, l, m]\n"},
		{"chain of comprehensions", "minimize mean(i in people where people.group[i] == 0) sigma(dot(people.X[i], x)) + beta * mean(i in people where people.group[i] == 1) sigma(-dot(people.X[i], x)) - gamma * sum(j in 1..d) abs(x[j])\n",
			"minimize mean(i in people where people.group[i] == 0) sigma(dot(people.X[i], x))\n" +
				"         + beta * mean(i in people where people.group[i] == 1) sigma(-dot(people.X[i], x))\n" +
				"         - gamma * sum(j in 1..d) abs(x[j])\n"},
		{"comprehension in a long chain term", "param p = aaaaaaaaaaaaaaaa + beta * mean(i in people where people.group[i] == 1 and people.weight[i] > 0) sigma(-dot(people.X[i], x))\n",
			"param p = aaaaaaaaaaaaaaaa\n" +
				"          + beta * mean(i in people where people.group[i] == 1 and people.weight[i] > 0)\n" +
				"                       sigma(-dot(people.X[i], x))\n"},
		{"unbreakable stays long", "data d = csv(\"a/very/long/path/to/a/data/set/that/goes/on/and/on/and/on/forever/and/ever/data.csv\", label = \"y\")\n",
			"data d = csv(\"a/very/long/path/to/a/data/set/that/goes/on/and/on/and/on/forever/and/ever/data.csv\", label = \"y\")\n"},
		{"exactly 100 columns stays", "param p = " + strings.Repeat("a", 45) + " + " + strings.Repeat("b", 42) + "\n",
			"param p = " + strings.Repeat("a", 45) + " + " + strings.Repeat("b", 42) + "\n"},
		{"101 columns breaks", "param p = " + strings.Repeat("a", 45) + " + " + strings.Repeat("b", 43) + "\n",
			"param p = " + strings.Repeat("a", 45) + "\n          + " + strings.Repeat("b", 43) + "\n"},
		{"broken param takes no part in alignment", "param a = 1\nparam p = " + strings.Repeat("a", 45) + " + " + strings.Repeat("b", 43) + "\nparam bb = 2\nparam c = 3\n",
			"param a = 1\nparam p = " + strings.Repeat("a", 45) + "\n          + " + strings.Repeat("b", 43) + "\nparam bb = 2\nparam c  = 3\n"},
		{"comment on a broken declaration", "param p = " + strings.Repeat("a", 45) + " + " + strings.Repeat("b", 43) + " # c\nparam q = 1 # d\n",
			"param p = " + strings.Repeat("a", 45) + "\n          + " + strings.Repeat("b", 43) + "  # c\nparam q = 1" + strings.Repeat(" ", 46) + "# d\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := Source("in.qrc", []byte(tt.src))
			require.Nil(t, errs)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestSourceSyntaxError(t *testing.T) {
	out, errs := Source("bad.qrc", []byte("param = 1\n"))
	assert.Nil(t, out)
	require.NotEmpty(t, errs)
	assert.Contains(t, errs.Error(), "bad.qrc:1:")
}

func TestNodeMalformed(t *testing.T) {
	var buf bytes.Buffer
	err := Node(&buf, &ast.File{Decls: []ast.Decl{&ast.Constraint{}}})
	require.Error(t, err)
	assert.Empty(t, buf.String())
}

// Helpers for building trees by hand.
func id(name string) *ast.Ident { return &ast.Ident{Name: name} }
func num(lit string) *ast.Number {
	v, _ := strconv.ParseFloat(lit, 64)
	return &ast.Number{Lit: lit, Value: v}
}
func bin(x ast.Expr, op string, y ast.Expr) *ast.Binary { return &ast.Binary{X: x, Op: op, Y: y} }
func un(op string, x ast.Expr) *ast.Unary               { return &ast.Unary{Op: op, X: x} }
func ifx(c, a, b ast.Expr) *ast.If                      { return &ast.If{Cond: c, Then: a, Else: b} }
func sum(v string, lo, hi ast.Expr, body ast.Expr) *ast.Comprehension {
	return &ast.Comprehension{Op: id("sum"), Binders: []*ast.Binder{{Name: id(v), Set: &ast.Range{Lo: lo, Hi: hi}}}, Body: body}
}

func TestExprParens(t *testing.T) {
	x, y, z := id("x"), id("y"), id("z")
	s := sum("i", num("1"), id("n"), id("i"))
	tests := []struct {
		name      string
		e         ast.Expr
		want      string
		skipParse bool // the text does not parse back to the same tree (no Lit, or a condition)
	}{
		{"mul of adds", bin(bin(x, "+", y), "*", bin(y, "-", z)), "(x + y) * (y - z)", false},
		{"left-assoc sub", bin(bin(x, "-", y), "-", z), "x - y - z", false},
		{"right sub", bin(x, "-", bin(y, "-", z)), "x - (y - z)", false},
		{"right div", bin(x, "/", bin(y, "*", z)), "x / (y * z)", false},
		{"neg of pow", un("-", bin(x, "^", num("2"))), "-x^2", false},
		{"pow of neg", bin(un("-", x), "^", num("2")), "(-x)^2", false},
		{"pow right-assoc", bin(x, "^", bin(y, "^", z)), "x^y^z", false},
		{"pow left", bin(bin(x, "^", y), "^", z), "(x^y)^z", false},
		{"pow neg exponent", bin(x, "^", un("-", num("1"))), "x^-1", false},
		{"pow of product", bin(x, "^", bin(y, "*", z)), "x^(y * z)", false},
		{"mul by neg", bin(x, "*", un("-", y)), "x * -y", false},
		{"neg of sum", un("-", bin(x, "+", y)), "-(x + y)", false},
		{"double neg", un("-", un("-", x)), "--x", false},
		{"compr left of mul", bin(s, "*", x), "(sum(i in 1..n) i) * x", false},
		{"compr right of mul", bin(x, "*", s), "x * sum(i in 1..n) i", false},
		{"compr left of add", bin(s, "+", x), "sum(i in 1..n) i + x", false},
		{"compr base of pow", bin(s, "^", num("2")), "(sum(i in 1..n) i)^2", false},
		{"compr exponent", bin(x, "^", s), "x^sum(i in 1..n) i", false},
		{"compr under unary", un("-", s), "-sum(i in 1..n) i", false},
		{"unary compr left of mul", bin(un("-", s), "*", x), "(-sum(i in 1..n) i) * x", false},
		{"product ending in compr left of mul", bin(bin(y, "*", s), "/", x), "(y * sum(i in 1..n) i) / x", false},
		{"add as compr body", sum("i", num("1"), id("n"), bin(x, "+", y)), "sum(i in 1..n) (x + y)", false},
		{"mul as compr body", sum("i", num("1"), id("n"), bin(x, "*", y)), "sum(i in 1..n) x * y", false},
		{"index of compr", &ast.Index{X: s, Indices: []ast.Expr{num("1")}}, "(sum(i in 1..n) i)[1]", false},
		{"member of compr", &ast.Member{X: s, Name: id("d")}, "(sum(i in 1..n) i).d", false},
		{"index of add", &ast.Index{X: bin(x, "+", y), Indices: []ast.Expr{num("1"), z}}, "(x + y)[1, z]", false},
		{"member", &ast.Member{X: &ast.Index{X: id("train"), Indices: []ast.Expr{id("i")}}, Name: id("X")}, "train[i].X", false},
		{"user parens kept", &ast.Paren{X: &ast.Paren{X: x}}, "((x))", false},
		{"call named arg", &ast.Call{Fun: id("csv"), Args: []*ast.Arg{{Value: &ast.String{Lit: `"f.csv"`}}, {Name: id("label"), Value: &ast.String{Value: "y"}}}}, `csv("f.csv", label = "y")`, true},
		{"vector", &ast.Vector{Elems: []ast.Expr{num("1"), un("-", num("2")), bin(x, "+", y)}}, "[1, -2, x + y]", false},
		{"number without lit", &ast.Number{Value: 0.25}, "0.25", true},
		{"where", &ast.Comprehension{Op: id("max"), Binders: []*ast.Binder{{Name: id("j"), Set: id("S")}},
			Where: un("not", bin(bin(x, "<", y), "and", bin(x, ">", z))), Body: x}, "max(j in S where not (x < y and x > z)) x", false},
		{"or under and", bin(bin(bin(x, "<", y), "or", bin(x, ">", z)), "and", bin(y, "==", z)), "(x < y or x > z) and y == z", true},
		{"not of comparison", un("not", bin(x, "!=", y)), "not x != y", true},
		{"if", ifx(bin(x, ">", y), x, y), "if x > y then x else y", false},
		{"if left of add", bin(ifx(bin(x, ">", y), x, y), "+", z), "(if x > y then x else y) + z", false},
		{"if right of add", bin(z, "+", ifx(bin(x, ">", y), x, y)), "z + if x > y then x else y", false},
		{"add ending in if left of add", bin(bin(z, "+", ifx(bin(x, ">", y), x, y)), "-", z), "(z + if x > y then x else y) - z", false},
		{"if left of mul", bin(ifx(bin(x, ">", y), x, y), "*", z), "(if x > y then x else y) * z", false},
		{"index of if", &ast.Index{X: ifx(bin(x, ">", y), x, y), Indices: []ast.Expr{num("1")}}, "(if x > y then x else y)[1]", false},
		{"if under unary left of add", bin(un("-", ifx(bin(x, ">", y), x, y)), "+", z), "(-if x > y then x else y) + z", false},
		{"if as compr body left of add", bin(sum("i", num("1"), id("n"), ifx(bin(x, ">", y), x, y)), "+", z), "(sum(i in 1..n) if x > y then x else y) + z", false},
		{"sum as else", ifx(bin(x, ">", y), x, bin(y, "+", z)), "if x > y then x else y + z", false},
		{"else if", ifx(bin(x, ">", y), x, ifx(un("not", bin(x, "<", z)), z, y)), "if x > y then x else if not x < z then z else y", false},
		{"if in then", ifx(bin(x, ">", y), ifx(bin(x, ">", z), x, z), y), "if x > y then if x > z then x else z else y", false},
		{"if in a comparison", ifx(bin(ifx(bin(x, ">", y), x, y), "<", z), x, y), "if if x > y then x else y < z then x else y", false},
		{"and of comparisons", ifx(bin(bin(x, ">", y), "and", bin(x, "<", z)), x, y), "if x > y and x < z then x else y", false},
		{"nil", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Expr(tt.e)
			assert.Equal(t, tt.want, got)
			if tt.skipParse {
				return
			}
			back, errs := lang.ParseExpr("e", []byte(got))
			require.Nil(t, errs, "%s does not parse", got)
			assert.Equal(t, dump(tt.e, true), dump(back, true), "%s parses as a different tree", got)
		})
	}
}

// TestExprRandom prints random trees and checks that the text parses back to
// the same tree (ignoring parentheses) and prints the same again.
func TestExprRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		e := genExpr(r, 5)
		text := Expr(e)
		back, errs := lang.ParseExpr("e", []byte(text))
		require.Nil(t, errs, "case %d: %s does not parse", i, text)
		require.Equal(t, dump(e, true), dump(back, true), "case %d: %s parses as a different tree", i, text)
		require.Equal(t, text, Expr(back), "case %d", i)
	}
}

func genExpr(r *rand.Rand, depth int) ast.Expr {
	if depth == 0 || r.IntN(5) == 0 {
		switch r.IntN(3) {
		case 0:
			return id([]string{"x", "y", "z", "W"}[r.IntN(4)])
		case 1:
			return num([]string{"1", "2.5", ".5", "1e3"}[r.IntN(4)])
		default:
			return &ast.String{Lit: `"s"`, Value: "s"}
		}
	}
	d := depth - 1
	switch r.IntN(10) {
	case 0, 1, 2:
		return bin(genExpr(r, d), []string{"+", "-", "*", "/", "^"}[r.IntN(5)], genExpr(r, d))
	case 3:
		return un([]string{"-", "+"}[r.IntN(2)], genExpr(r, d))
	case 4:
		c := &ast.Comprehension{Op: id([]string{"sum", "mean", "max", "min"}[r.IntN(4)]),
			Binders: []*ast.Binder{{Name: id("i"), Set: &ast.Range{Lo: genExpr(r, d), Hi: genExpr(r, d)}}}, Body: genExpr(r, d)}
		if r.IntN(2) == 0 {
			c.Binders = append(c.Binders, &ast.Binder{Name: id("j"), Set: genExpr(r, d)})
		}
		if r.IntN(2) == 0 {
			c.Where = genCond(r, d)
		}
		return c
	case 5:
		return &ast.Call{Fun: id("f"), Args: []*ast.Arg{{Value: genExpr(r, d)}, {Name: id("k"), Value: genExpr(r, d)}}}
	case 6:
		return &ast.Index{X: genExpr(r, d), Indices: []ast.Expr{genExpr(r, d)}}
	case 7:
		return &ast.Member{X: genExpr(r, d), Name: id("d")}
	case 8:
		if r.IntN(2) == 0 {
			return &ast.If{Cond: genCond(r, d), Then: genExpr(r, d), Else: genExpr(r, d)}
		}
		return &ast.Vector{Elems: []ast.Expr{genExpr(r, d), genExpr(r, d)}}
	default:
		return &ast.Paren{X: genExpr(r, d)}
	}
}

func genCond(r *rand.Rand, depth int) ast.Expr {
	d := max(depth-1, 0)
	switch r.IntN(5) {
	case 0:
		return bin(genCond(r, d), []string{"and", "or"}[r.IntN(2)], genCond(r, d))
	case 1:
		return un("not", genCond(r, d))
	case 2:
		return &ast.Paren{X: genCond(r, d)}
	default:
		return bin(genExpr(r, d), []string{"==", "!=", "<", "<=", ">", ">="}[r.IntN(6)], genExpr(r, d))
	}
}

// dump returns a position-free text of a tree: positions and comments are
// left out; with noParens, parentheses too.
func dump(n any, noParens bool) string {
	var sb strings.Builder
	dumpValue(&sb, reflect.ValueOf(n), noParens)
	return sb.String()
}

var (
	posType       = reflect.TypeOf(ast.Pos{})
	groupType     = reflect.TypeOf(&ast.CommentGroup{})
	groupListType = reflect.TypeOf([]*ast.CommentGroup{})
	fileType      = reflect.TypeOf(ast.File{})
)

func dumpValue(sb *strings.Builder, v reflect.Value, noParens bool) {
	switch v.Kind() {
	case reflect.Invalid:
		sb.WriteString("nil")
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			sb.WriteString("nil")
			return
		}
		if p, ok := v.Interface().(*ast.Paren); ok && noParens {
			dumpValue(sb, reflect.ValueOf(p.X), noParens)
			return
		}
		dumpValue(sb, v.Elem(), noParens)
	case reflect.Struct:
		sb.WriteString(v.Type().Name() + "{")
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Type == posType || f.Type == groupType || f.Type == groupListType || v.Type() == fileType && f.Name == "Name" {
				continue
			}
			sb.WriteString(f.Name + ":")
			dumpValue(sb, v.Field(i), noParens)
			sb.WriteString(" ")
		}
		sb.WriteString("}")
	case reflect.Slice:
		sb.WriteString("[")
		for i := range v.Len() {
			dumpValue(sb, v.Index(i), noParens)
			sb.WriteString(", ")
		}
		sb.WriteString("]")
	case reflect.String:
		sb.WriteString(strconv.Quote(v.String()))
	default:
		fmt.Fprint(sb, v.Interface())
	}
}

// FuzzFormat checks that for any input that parses, formatting does not
// panic, gives text that parses to the same tree, keeps every comment in
// order, and is idempotent.
func FuzzFormat(f *testing.F) {
	for _, in := range inputs(f) {
		f.Add([]byte(in.src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		in, errs := lang.Parse("in.qrc", src)
		if errs != nil {
			return
		}
		once, errs := Source("in.qrc", src)
		if errs != nil {
			t.Fatalf("Source failed on input that parses: %v", errs)
		}
		out, errs := lang.Parse("out.qrc", once)
		if errs != nil {
			t.Fatalf("output does not parse: %v\ninput:\n%q\noutput:\n%s", errs, src, once)
		}
		if a, b := dump(in, false), dump(out, false); a != b {
			t.Fatalf("output parses to a different tree\ninput:\n%q\noutput:\n%s\nin:  %s\nout: %s", src, once, a, b)
		}
		if a, b := commentTexts(in), commentTexts(out); !reflect.DeepEqual(a, b) {
			t.Fatalf("comments changed\ninput:\n%q\noutput:\n%s\nin:  %q\nout: %q", src, once, a, b)
		}
		twice, errs := Source("out.qrc", once)
		if errs != nil || !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent\ninput:\n%q\nonce:\n%s\ntwice:\n%s", src, once, twice)
		}
	})
}
