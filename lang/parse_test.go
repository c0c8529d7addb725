package lang_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/diag/diagtest"
	"github.com/qrc-lang/qrc/lang"
)

// sexpr renders an expression fully parenthesised, to test structure.
func sexpr(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.Number:
		return e.Lit
	case *ast.String:
		return e.Lit
	case *ast.Paren:
		return sexpr(e.X)
	case *ast.Unary:
		return "(" + e.Op + " " + sexpr(e.X) + ")"
	case *ast.Binary:
		return "(" + e.Op + " " + sexpr(e.X) + " " + sexpr(e.Y) + ")"
	case *ast.Call:
		parts := []string{e.Fun.Name}
		for _, a := range e.Args {
			if a.Name != nil {
				parts = append(parts, a.Name.Name+"="+sexpr(a.Value))
			} else {
				parts = append(parts, sexpr(a.Value))
			}
		}
		return "(call " + strings.Join(parts, " ") + ")"
	case *ast.Index:
		parts := []string{sexpr(e.X)}
		for _, i := range e.Indices {
			parts = append(parts, sexpr(i))
		}
		return "(index " + strings.Join(parts, " ") + ")"
	case *ast.Member:
		return "(. " + sexpr(e.X) + " " + e.Name.Name + ")"
	case *ast.Vector:
		parts := []string{}
		for _, x := range e.Elems {
			parts = append(parts, sexpr(x))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case *ast.Range:
		return "(.. " + sexpr(e.Lo) + " " + sexpr(e.Hi) + ")"
	case *ast.Comprehension:
		parts := []string{e.Op.Name}
		for _, b := range e.Binders {
			parts = append(parts, b.Name.Name+" in "+sexpr(b.Set))
		}
		if e.Where != nil {
			parts = append(parts, "where "+sexpr(e.Where))
		}
		return "(" + strings.Join(parts, ", ") + " | " + sexpr(e.Body) + ")"
	}
	return "?"
}

func TestExpressionStructure(t *testing.T) {
	tests := []struct{ src, want string }{
		{"1 + 2 * 3", "(+ 1 (* 2 3))"},
		{"1 - 2 - 3", "(- (- 1 2) 3)"},
		{"a / b * c", "(* (/ a b) c)"},
		{"-x^2", "(- (^ x 2))"},
		{"x^-1", "(^ x (- 1))"},
		{"2^3^2", "(^ 2 (^ 3 2))"},
		{"(a + b) * c", "(* (+ a b) c)"},
		{"train.X[i]", "(index (. train X) i)"},
		{"W[k, j]", "(index W k j)"},
		{"f(a, label = \"y\")", "(call f a label=\"y\")"},
		{"[1, 2.5, .5, 1e-3]", "[1 2.5 .5 1e-3]"},
		{"sum(j in 1..n) x[j]", "(sum, j in (.. 1 n) | (index x j))"},
		// A comprehension's body is a product; + and - end it.
		{"mean(i in S) a * b + c", "(+ (mean, i in S | (* a b)) c)"},
		{"c * mean(i in S) a * b", "(* c (mean, i in S | (* a b)))"},
		{"sum(l in 1..K where l != k and not (l == 1 or l > 3)) phi(l)",
			"(sum, l in (.. 1 K), where (and (!= l k) (not (or (== l 1) (> l 3)))) | (call phi l))"},
		{"mean(i in t where t.y[i] == k) sum(l in 1..K) f(l)",
			"(mean, i in t, where (== (index (. t y) i) k) | (sum, l in (.. 1 K) | (call f l)))"},
		{"max(a, b)", "(call max a b)"},
		{"sum(v)", "(call sum v)"},
		{"1..K", "?"}, // not an expression by itself: tested as a parse error below
	}
	for _, tt := range tests {
		if tt.want == "?" {
			continue
		}
		e, errs := lang.ParseExpr("t", []byte(tt.src))
		require.Nil(t, errs, tt.src)
		assert.Equal(t, tt.want, sexpr(e), tt.src)
	}
}

func TestParseExamples(t *testing.T) {
	paths, err := filepath.Glob("../examples/*.qrc")
	require.NoError(t, err)
	require.Len(t, paths, 10) // adult, control, fairness, german, mcp, newsvendor, np, npc, phase, wolfe
	for _, p := range paths {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		f, errs := lang.Parse(p, src)
		require.Nil(t, errs, p)
		require.NotEmpty(t, f.Decls)
	}
}

// TestComprehensionBodyBoundaries: a comprehension's body ends before a
// binary operator, so the paper's parity constraint (the form the first
// fairness example used) is two means added, not one mean of a sum.
func TestComprehensionBodyBoundaries(t *testing.T) {
	src := `var x[2] in ball(5)
subject to
    parity_m: mean(i in 1..3) sigma(x[1] * i)
              + beta * mean(i in 1..3) sigma(-x[2] * i) <= r
    parity_f: mean(i in 1..3) sigma(x[2] * i) <= r
`
	f, errs := lang.Parse("fairness.qrc", []byte(src))
	require.Nil(t, errs)
	st := f.Decls[len(f.Decls)-1].(*ast.SubjectTo)
	require.Len(t, st.Constraints, 2)
	// mean(...) sigma(...) + beta * mean(...) sigma(...): two means added.
	lhs, ok := st.Constraints[0].LHS.(*ast.Binary)
	require.True(t, ok)
	assert.Equal(t, "+", lhs.Op)
	assert.IsType(t, &ast.Comprehension{}, lhs.X)
	assert.Equal(t, "<=", st.Constraints[0].Op)
}

func TestPositions(t *testing.T) {
	src := "param a = 1\n\nvar x[3] in box(-1, 1)\nminimize  norm2(x - a)\n"
	f, errs := lang.Parse("m.qrc", []byte(src))
	require.Nil(t, errs)
	v := f.Decls[1].(*ast.VarDecl)
	assert.Equal(t, ast.Pos{Filename: "m.qrc", Offset: 13, Line: 3, Column: 1}, v.Pos())
	assert.Equal(t, 5, v.Name.Pos().Column)
	call := v.Domain.(*ast.Call)
	assert.Equal(t, 13, call.Pos().Column)
	assert.Equal(t, 16, call.Lparen.Column)
	assert.Equal(t, 22, call.Rparen.Column)
	assert.Equal(t, 23, v.End().Column)
	o := f.Decls[2].(*ast.Objective)
	n := o.X.(*ast.Call)
	assert.Equal(t, 4, n.Pos().Line)
	assert.Equal(t, 11, n.Pos().Column)
	b := n.Args[0].Value.(*ast.Binary)
	assert.Equal(t, 19, b.OpPos.Column)
}

func TestComments(t *testing.T) {
	src := `# header

# doc of a
param a = 1   # line comment of a
func f(z) = z +   # inside
            1
subject to   # on subject to
    # doc of c
    c: a <= 2  # line of c
# trailing
`
	f, errs := lang.Parse("m.qrc", []byte(src))
	require.Nil(t, errs)
	doc, line := f.Decls[0].Comments()
	require.NotNil(t, doc)
	assert.Equal(t, []string{"# header", "# doc of a"}, texts(doc))
	assert.Equal(t, []string{"# line comment of a"}, texts(line))
	doc, _ = f.Decls[1].Comments()
	assert.Equal(t, []string{"# inside"}, texts(doc))
	st := f.Decls[2].(*ast.SubjectTo)
	assert.Equal(t, []string{"# on subject to"}, texts(st.Comment))
	assert.Equal(t, []string{"# doc of c"}, texts(st.Constraints[0].Doc))
	assert.Equal(t, []string{"# line of c"}, texts(st.Constraints[0].Comment))
	assert.Equal(t, []string{"# trailing"}, texts(f.Trailing))
	n := 0
	for _, g := range f.Comments {
		n += len(g.List)
	}
	assert.Equal(t, 8, n)
}

func texts(g *ast.CommentGroup) []string {
	if g == nil {
		return nil
	}
	var out []string
	for _, c := range g.List {
		out = append(out, c.Text)
	}
	return out
}

// TestSyntaxErrorFiles parses the models of testdata/syntax, each with the
// error expected written on its line (# ERROR @COL "regexp", package
// diagtest).
func TestSyntaxErrorFiles(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "syntax", "*.qrc"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 6, "the syntax errors are missing")
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			f, errs := lang.Parse(path, src)
			assert.Nil(t, f)
			want := diagtest.Match(t, path, src, errs)
			require.Len(t, want, 1)
		})
	}
}

// TestSyntaxErrors holds the errors whose source cannot carry an
// expectation on its line: too deep, too long, a string left open (the
// comment would be in it), bytes that are not text.
func TestSyntaxErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"param a = " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "m.qrc:1:267: the expression is nested more than 256 levels deep"},
		{"param a = " + strings.Repeat("-\n", 300) + "1", "m.qrc:257:1: the expression is nested more than 256 levels deep"},
		{"param a = 1 + " + strings.Repeat("x", 1100000), "m.qrc:1:1048577: line 1 is 1100014 bytes long"},
		{"param a = \"abc", `m.qrc:1:11: syntax error: unterminated string`},
		{"param a = 1\x00", "m.qrc:1:12: NUL byte in model source"},
		{"param a = 1\xff", "m.qrc:1:12: invalid UTF-8 in model source"},
	}
	for _, tt := range tests {
		_, errs := lang.Parse("m.qrc", []byte(tt.src))
		require.Len(t, errs, 1, tt.src)
		assert.True(t, strings.HasPrefix(errs[0].Error(), tt.want), "%q: got %q", tt.src, errs[0].Error())
	}
}

func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("../examples/*.qrc")
	for _, p := range paths {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte("param a = (1 + 2\n"))
	f.Add([]byte("c[k in 1..3, l in 1..k]: sum(j in 1..k where j != l) x[j]^2 >= -1 # c\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, errs := lang.Parse("fuzz.qrc", src)
		if (file == nil) == (errs == nil) {
			t.Fatalf("Parse returned file=%v errs=%v", file != nil, errs)
		}
		for _, d := range errs {
			if !d.Pos.IsValid() {
				t.Fatalf("diagnostic without a position: %v", d)
			}
		}
	})
}

func TestParseExprPositions(t *testing.T) {
	e, errs := lang.ParseExpr("--set r", []byte("x +  y"))
	require.Nil(t, errs)
	b := e.(*ast.Binary)
	assert.Equal(t, 1, b.X.Pos().Column)
	assert.Equal(t, 6, b.Y.Pos().Column)
	_, errs = lang.ParseExpr("--set r", []byte("3 +"))
	require.Len(t, errs, 1)
	assert.Equal(t, "--set r:1:4: syntax error: unexpected end of file (expected an expression)", errs[0].Error())
}

func TestBracketAndParenPositions(t *testing.T) {
	src := "var W[2,\n  3\n] # c\nminimize sum (i in 1..2) norm2 (W[i])\nsubject\n  to # t\n  c: W[1, 1] <= 1\n"
	f, errs := lang.Parse("m.qrc", []byte(src))
	require.Nil(t, errs)
	v := f.Decls[0].(*ast.VarDecl)
	assert.Equal(t, 3, v.End().Line)
	assert.Equal(t, []string{"# c"}, texts(v.Comment))
	c := f.Decls[1].(*ast.Objective).X.(*ast.Comprehension)
	assert.Equal(t, 14, c.Lparen.Column)
	assert.Equal(t, 32, c.Body.(*ast.Call).Lparen.Column)
	st := f.Decls[2].(*ast.SubjectTo)
	assert.Equal(t, []string{"# t"}, texts(st.Comment))
}

func TestKeywordPrefixedNames(t *testing.T) {
	f, errs := lang.Parse("m.qrc", []byte("param inλ = 1\nparam notα = inλ\nparam index = 2\n"))
	require.Nil(t, errs)
	assert.Equal(t, "inλ", f.Decls[0].(*ast.ParamDecl).Name.Name)
	assert.Equal(t, "notα", f.Decls[1].(*ast.ParamDecl).Name.Name)
}
