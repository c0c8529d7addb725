// Package lang parses .qrc model source into the syntax tree of package ast.
//
// The grammar is written with participle (see grammar.go and
// docs/language.md). Parse returns the tree with every comment attached to
// the declaration it belongs to, so that the formatter can reproduce them, and
// reports syntax errors as diagnostics with file, line and column.
package lang

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/diag"
)

var parser = participle.MustBuild[gFile](
	participle.Lexer(qrcLexer),
	participle.Elide("Comment", "Whitespace"),
	participle.Map(keywordMapper, "Ident"),
	participle.UseLookahead(participle.MaxLookahead),
)

var exprParser = participle.MustBuild[gExpr](
	participle.Lexer(qrcLexer),
	participle.Elide("Comment", "Whitespace"),
	participle.Map(keywordMapper, "Ident"),
	participle.UseLookahead(participle.MaxLookahead),
)

// Parse parses the model src read from filename (used in positions). It
// returns the syntax tree, or nil and a diagnostic list holding the syntax
// error. Parse never panics on any input.
func Parse(filename string, src []byte) (*ast.File, diag.List) {
	return parseWith(parser, filename, src, func(g *gFile) *ast.File {
		f := &ast.File{Name: filename}
		for _, d := range g.Decls {
			f.Decls = append(f.Decls, convDecl(d))
		}
		attachComments(f, filename, src)
		return f
	})
}

// ParseExpr parses a single expression, as typed in --set NAME=EXPR or at the
// REPL; name is the file name used in positions.
func ParseExpr(name string, src []byte) (ast.Expr, diag.List) {
	return parseWith(exprParser, name, src, convExpr)
}

// parseWith runs parser p on src and converts the result; a syntax error, or
// a panic in the parser (a bug, which must not crash the user's session),
// becomes a diagnostic.
func parseWith[G any, R any](p *participle.Parser[G], name string, src []byte, conv func(*G) R) (r R, errs diag.List) {
	defer func() {
		if x := recover(); x != nil {
			var zero R
			r, errs = zero, diag.List{{Pos: ast.Pos{Filename: name, Line: 1, Column: 1},
				Msg: fmt.Sprintf("internal error: parser failed: %v", x)}}
		}
	}()
	src = StripBOM(src)
	if d := checkText(name, src); d != nil {
		return r, diag.List{d}
	}
	pre := prescan(name, src)
	if pre.limit != nil {
		return r, diag.List{pre.limit}
	}
	g, err := p.ParseBytes(name, src)
	if err != nil {
		if pre.bracket != nil {
			return r, diag.List{pre.bracket}
		}
		return r, diag.List{syntaxError(name, src, err)}
	}
	return conv(g), nil
}

// StripBOM returns src without a leading UTF-8 byte order mark, which some
// editors write and which qrc ignores in every file it reads.
func StripBOM(src []byte) []byte { return bytes.TrimPrefix(src, []byte("\uFEFF")) }

// checkText rejects what the lexer would report poorly: invalid UTF-8 and NUL
// bytes.
func checkText(filename string, src []byte) *diag.Diagnostic {
	line, col := 1, 1
	for i := 0; i < len(src); {
		r, size := rune(src[i]), 1
		if r >= 0x80 {
			r, size = utf8.DecodeRune(src[i:])
		}
		if r == 0 || r == utf8.RuneError && size == 1 {
			what := "invalid UTF-8"
			if r == 0 {
				what = "NUL byte"
			}
			return &diag.Diagnostic{Pos: ast.Pos{Filename: filename, Offset: i, Line: line, Column: col},
				Msg: what + " in model source"}
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col += size
		}
		i += size
	}
	return nil
}

// syntaxError turns a participle error into a diagnostic with a message in
// qrc's words.
func syntaxError(filename string, src []byte, err error) *diag.Diagnostic {
	d := &diag.Diagnostic{Pos: ast.Pos{Filename: filename, Line: 1, Column: 1}, Msg: err.Error()}
	var perr participle.Error
	if pe, ok := err.(participle.Error); ok {
		perr = pe
	}
	if perr == nil {
		return d
	}
	p := perr.Position()
	d.Pos = ast.Pos{Filename: filename, Offset: p.Offset, Line: p.Line, Column: p.Column}
	msg := perr.Message()
	if ut, ok := err.(*participle.UnexpectedTokenError); ok {
		tok := ut.Unexpected
		d.End = ast.Pos{Filename: filename, Offset: p.Offset + len(tok.Value), Line: p.Line, Column: p.Column + len(tok.Value)}
		expect := ""
		if i := strings.Index(msg, " (expected "); i >= 0 {
			expect = expectation(strings.TrimSuffix(msg[i+len(" (expected "):], ")"))
		}
		switch {
		case tok.EOF():
			msg = "unexpected end of file" + expect
		case expect == " (expected a name)" && IsKeyword(tok.Value):
			msg = fmt.Sprintf("unexpected keyword %q (expected a name; keywords cannot be used as names)", tok.Value)
		default:
			msg = "unexpected " + describeToken(tok) + expect
		}
	} else if strings.Contains(msg, "invalid input text") {
		r, _ := utf8.DecodeRune(src[min(p.Offset, len(src)):])
		msg = fmt.Sprintf("unexpected character %q", r)
		if r == '"' {
			msg = "unterminated string (a string ends with \" on the same line)"
		}
	}
	d.Msg = "syntax error: " + msg
	return d
}

// grammarWords names the grammar's rules in error messages.
var grammarWords = map[string]string{
	"gexpr": "an expression", "gterm": "an expression", "gunary": "an expression", "gpower": "an expression",
	"gpostfix": "an expression", "gprimary": "an expression", "gident": "a name", "<ident>": "a name",
	"gbinder": "an index such as k in 1..K", "gop": "<= or >=", "gor": "a condition", "gnot": "a condition",
	"gcmp": "a comparison", "gif": "an expression", "<number>": "a number", "<string>": "a string",
	"glparen": `"("`, "grparen": `")"`, "grbrack": `"]"`, "gcaret": `"^"`, "gto": `"to"`,
}

// expectation rewrites participle's "expected" list (tokens and rule names)
// as " (expected X)", naming only the first alternative it can describe.
func expectation(list string) string {
	first := strings.Fields(list)
	if len(first) == 0 {
		return ""
	}
	w := first[0]
	if strings.HasPrefix(w, `"`) {
		return " (expected " + w + ")"
	}
	if d, ok := grammarWords[strings.ToLower(w)]; ok {
		return " (expected " + d + ")"
	}
	return ""
}

// describeToken names a token for an error message.
func describeToken(tok lexer.Token) string {
	v := tok.Value
	switch {
	case len(v) > 0 && (v[0] == '"'):
		return "string " + v
	case len(v) > 0 && (v[0] >= '0' && v[0] <= '9' || v[0] == '.' && len(v) > 1):
		return "number " + v
	}
	return strconv.Quote(v)
}

// ---------------------------------------------------------------------------
// Conversion from the participle grammar to the ast.

func pos(p lexer.Position) ast.Pos {
	return ast.Pos{Filename: p.Filename, Offset: p.Offset, Line: p.Line, Column: p.Column}
}

// before returns the position one byte before p (for a closing bracket whose
// EndPos is known).
func before(p lexer.Position) ast.Pos {
	q := pos(p)
	q.Offset--
	q.Column--
	return q
}

func convIdent(g *gIdent) *ast.Ident {
	if g == nil {
		return nil
	}
	return &ast.Ident{NamePos: pos(g.Pos), Name: g.Name}
}

func convDecl(g *gDecl) ast.Decl {
	switch {
	case g.Data != nil:
		return &ast.DataDecl{Keyword: pos(g.Data.Pos), Name: convIdent(g.Data.Name), Source: convExpr(g.Data.Source)}
	case g.Param != nil:
		return &ast.ParamDecl{Keyword: pos(g.Param.Pos), Name: convIdent(g.Param.Name), Value: convExpr(g.Param.Value)}
	case g.Var != nil:
		d := &ast.VarDecl{Keyword: pos(g.Var.Pos), Name: convIdent(g.Var.Name)}
		for _, e := range g.Var.Dims {
			d.Dims = append(d.Dims, convExpr(e))
		}
		if g.Var.Rbrack != nil {
			d.Rbrack = pos(g.Var.Rbrack.Pos)
		}
		if g.Var.Domain != nil {
			d.Domain = convExpr(g.Var.Domain)
		}
		if g.Var.Start != nil {
			d.Start = convExpr(g.Var.Start)
		}
		return d
	case g.Func != nil:
		d := &ast.FuncDecl{Keyword: pos(g.Func.Pos), Name: convIdent(g.Func.Name), Body: convExpr(g.Func.Body)}
		for _, p := range g.Func.Params {
			d.Params = append(d.Params, convIdent(p))
		}
		return d
	case g.Objective != nil:
		return &ast.Objective{Keyword: pos(g.Objective.Pos), Sense: g.Objective.Sense, X: convExpr(g.Objective.X)}
	case g.SubjectTo != nil:
		d := &ast.SubjectTo{Keyword: pos(g.SubjectTo.Pos), To: pos(g.SubjectTo.To.Pos)}
		for _, c := range g.SubjectTo.Constraints {
			d.Constraints = append(d.Constraints, convConstraint(c))
		}
		return d
	default:
		return convConstraint(g.Constraint)
	}
}

func convConstraint(g *gConstraint) *ast.Constraint {
	c := &ast.Constraint{Name: convIdent(g.Name), LHS: convExpr(g.LHS), OpPos: pos(g.Op.Pos), Op: g.Op.Op, RHS: convExpr(g.RHS)}
	for _, b := range g.Binders {
		c.Binders = append(c.Binders, convBinder(b))
	}
	return c
}

func convBinder(g *gBinder) *ast.Binder {
	b := &ast.Binder{Name: convIdent(g.Name), Set: convExpr(g.Lo)}
	if g.Hi != nil {
		b.Set = &ast.Range{Lo: b.Set, Hi: convExpr(g.Hi)}
	}
	return b
}

func convExpr(g *gExpr) ast.Expr {
	x := convTerm(g.Head)
	for _, t := range g.Tail {
		x = &ast.Binary{X: x, OpPos: pos(t.Pos), Op: t.Op, Y: convTerm(t.Term)}
	}
	return x
}

func convTerm(g *gTerm) ast.Expr {
	x := convUnary(g.Head)
	for _, t := range g.Tail {
		x = &ast.Binary{X: x, OpPos: pos(t.Pos), Op: t.Op, Y: convUnary(t.X)}
	}
	return x
}

func convUnary(g *gUnary) ast.Expr {
	if g.Power == nil {
		return &ast.Unary{OpPos: pos(g.Pos), Op: g.Op, X: convUnary(g.X)}
	}
	x := convPostfix(g.Power.Base)
	if g.Power.Exp != nil {
		x = &ast.Binary{X: x, OpPos: pos(g.Power.Caret.Pos), Op: "^", Y: convUnary(g.Power.Exp)}
	}
	return x
}

func convPostfix(g *gPostfix) ast.Expr {
	x := convPrimary(g.X)
	for _, op := range g.Ops {
		if op.Member != nil {
			x = &ast.Member{X: x, Dot: pos(op.Pos), Name: convIdent(op.Member)}
			continue
		}
		ix := &ast.Index{X: x, Lbrack: pos(op.Pos), Rbrack: before(op.EndPos)}
		for _, e := range op.Index {
			ix.Indices = append(ix.Indices, convExpr(e))
		}
		x = ix
	}
	return x
}

func convPrimary(g *gPrimary) ast.Expr {
	switch {
	case g.Number != nil:
		// out of range, ParseFloat returns +Inf (with an error), which
		// the checker reports
		v, _ := strconv.ParseFloat(*g.Number, 64)
		return &ast.Number{ValuePos: pos(g.Pos), Lit: *g.Number, Value: v}
	case g.String != nil:
		s, err := strconv.Unquote(*g.String)
		if err != nil {
			s = strings.Trim(*g.String, `"`)
		}
		return &ast.String{ValuePos: pos(g.Pos), Lit: *g.String, Value: s}
	case g.If != nil:
		return &ast.If{IfPos: pos(g.If.Pos), Cond: convOr(g.If.Cond), Then: convExpr(g.If.Then), Else: convExpr(g.If.Else)}
	case g.Compr != nil:
		c := &ast.Comprehension{Op: convIdent(g.Compr.Op), Lparen: pos(g.Compr.Lpar.Pos), Rparen: pos(g.Compr.Rpar.Pos),
			Body: convTerm(g.Compr.Body)}
		for _, b := range g.Compr.Binders {
			c.Binders = append(c.Binders, convBinder(b))
		}
		if g.Compr.Where != nil {
			c.Where = convOr(g.Compr.Where)
		}
		return c
	case g.Call != nil:
		c := &ast.Call{Fun: convIdent(g.Call.Fun), Lparen: pos(g.Call.Lpar.Pos), Rparen: before(g.Call.EndPos)}
		for _, a := range g.Call.Args {
			c.Args = append(c.Args, &ast.Arg{Name: convIdent(a.Name), Value: convExpr(a.Value)})
		}
		return c
	case g.Ident != nil:
		return convIdent(g.Ident)
	case g.Paren != nil:
		x := convExpr(g.Paren.X)
		if g.Paren.Op != nil {
			x = &ast.Binary{X: x, OpPos: pos(g.Paren.Op.Pos), Op: g.Paren.Op.Op, Y: convExpr(g.Paren.Y)}
		}
		return &ast.Paren{Lparen: pos(g.Pos), X: x, Rparen: before(g.EndPos)}
	default:
		v := &ast.Vector{Lbrack: pos(g.Vector.Pos), Rbrack: before(g.Vector.EndPos)}
		for _, e := range g.Vector.Elems {
			v.Elems = append(v.Elems, convExpr(e))
		}
		return v
	}
}

func convOr(g *gOr) ast.Expr {
	x := convAnd(g.Head)
	for _, t := range g.Tail {
		x = &ast.Binary{X: x, OpPos: pos(t.Pos), Op: "or", Y: convAnd(t.X)}
	}
	return x
}

func convAnd(g *gAnd) ast.Expr {
	x := convNot(g.Head)
	for _, t := range g.Tail {
		x = &ast.Binary{X: x, OpPos: pos(t.Pos), Op: "and", Y: convNot(t.X)}
	}
	return x
}

func convNot(g *gNot) ast.Expr {
	switch {
	case g.Not != nil:
		return &ast.Unary{OpPos: pos(g.Pos), Op: "not", X: convNot(g.Not)}
	case g.Paren != nil:
		// The closing parenthesis position is not recorded by the grammar;
		// it is just after the inner condition.
		inner := convOr(g.Paren)
		return &ast.Paren{Lparen: pos(g.Pos), X: inner, Rparen: inner.End()}
	default:
		return &ast.Binary{X: convExpr(g.Cmp.X), OpPos: pos(g.Cmp.Op.Pos), Op: g.Cmp.Op.Op, Y: convExpr(g.Cmp.Y)}
	}
}
