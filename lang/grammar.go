package lang

import "github.com/alecthomas/participle/v2/lexer"

// The participle grammar. These types mirror the surface syntax one to one;
// parse.go converts them into the ast package's tree, which is what the rest
// of qrc sees. docs/language.md gives the same grammar in EBNF.

// qrcLexer splits a model into tokens. Keywords are matched before
// identifiers, so a keyword can never be used as a name; "1..K" lexes as
// 1, .., K because a number needs digits after its decimal point.
var qrcLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `#[^\n]*`},
	{Name: "String", Pattern: `"(\\.|[^"\\\n])*"`},
	{Name: "Number", Pattern: `(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?`},
	{Name: "Keyword", Pattern: `\b(data|param|var|func|minimize|maximize|subject|to|in|where|and|or|not)\b`},
	{Name: "Ident", Pattern: `[\p{L}_][\p{L}\p{N}_]*`},
	{Name: "Op", Pattern: `\.\.|==|!=|<=|>=|[-+*/^<>=]`},
	{Name: "Punct", Pattern: `[()\[\],:.]`},
	{Name: "Whitespace", Pattern: `[ \t\r\n]+`},
})

type gFile struct {
	Decls []*gDecl `@@*`
}

type gDecl struct {
	Data       *gData       `  @@`
	Param      *gParam      `| @@`
	Var        *gVar        `| @@`
	Func       *gFunc       `| @@`
	Objective  *gObjective  `| @@`
	SubjectTo  *gSubjectTo  `| @@`
	Constraint *gConstraint `| @@`
}

type gIdent struct {
	Pos  lexer.Position
	Name string `@Ident`
}

type gData struct {
	Pos    lexer.Position
	Name   *gIdent `"data" @@ "="`
	Source *gExpr  `@@`
}

type gParam struct {
	Pos   lexer.Position
	Name  *gIdent `"param" @@ "="`
	Value *gExpr  `@@`
}

type gVar struct {
	Pos    lexer.Position
	Name   *gIdent  `"var" @@`
	Dims   []*gExpr `( "[" @@ ( "," @@ )* "]" )?`
	Domain *gExpr   `( "in" @@ )?`
	Start  *gExpr   `( "=" @@ )?`
}

type gFunc struct {
	Pos    lexer.Position
	Name   *gIdent   `"func" @@`
	Params []*gIdent `"(" ( @@ ( "," @@ )* )? ")"`
	Body   *gExpr    `"=" @@`
}

type gObjective struct {
	Pos   lexer.Position
	Sense string `@( "minimize" | "maximize" )`
	X     *gExpr `@@`
}

type gSubjectTo struct {
	Pos         lexer.Position
	Constraints []*gConstraint `"subject" "to" @@*`
}

type gConstraint struct {
	Pos     lexer.Position
	Name    *gIdent    `@@`
	Binders []*gBinder `( "[" @@ ( "," @@ )* "]" )?`
	LHS     *gExpr     `":" @@`
	Op      *gOp       `@@`
	RHS     *gExpr     `@@`
}

type gOp struct {
	Pos lexer.Position
	Op  string `@( "<=" | ">=" | "==" | "!=" | "<" | ">" )`
}

type gBinder struct {
	Name *gIdent `@@ "in"`
	Lo   *gExpr  `@@`
	Hi   *gExpr  `( ".." @@ )?`
}

// gExpr is a sum of terms: the loosest-binding arithmetic level.
type gExpr struct {
	Head *gTerm    `@@`
	Tail []*gAddOp `@@*`
}

type gAddOp struct {
	Pos  lexer.Position
	Op   string `@( "+" | "-" )`
	Term *gTerm `@@`
}

// gTerm is a product of factors. A comprehension's body is a gTerm.
type gTerm struct {
	Head *gUnary   `@@`
	Tail []*gMulOp `@@*`
}

type gMulOp struct {
	Pos lexer.Position
	Op  string  `@( "*" | "/" )`
	X   *gUnary `@@`
}

type gUnary struct {
	Pos   lexer.Position
	Op    string  `(   @( "-" | "+" )`
	X     *gUnary `    @@ )`
	Power *gPower `| @@`
}

// gPower is right-associative and binds tighter than unary minus:
// -x^2 is -(x^2), and x^-1 is allowed.
type gPower struct {
	Base  *gPostfix    `@@`
	Caret *lexer.Token `( @"^"`
	Exp   *gUnary      `  @@ )?`
}

type gPostfix struct {
	X   *gPrimary  `@@`
	Ops []*gPostOp `@@*`
}

type gPostOp struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Index  []*gExpr `  "[" @@ ( "," @@ )* "]"`
	Member *gIdent  `| "." @@`
}

type gPrimary struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Number *string  `  @Number`
	String *string  `| @String`
	Compr  *gCompr  `| @@`
	Call   *gCall   `| @@`
	Ident  *gIdent  `| @@`
	Paren  *gExpr   `| "(" @@ ")"`
	Vector *gVector `| @@`
}

type gVector struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Elems  []*gExpr `"[" ( @@ ( "," @@ )* )? "]"`
}

type gCall struct {
	EndPos lexer.Position
	Fun    *gIdent `@@ "("`
	Args   []*gArg `( @@ ( "," @@ )* )? ")"`
}

type gArg struct {
	Name  *gIdent `( @@ "=" )?`
	Value *gExpr  `@@`
}

type gCompr struct {
	Op      *gIdent      `@@ "("`
	Binders []*gBinder   `@@ ( "," @@ )*`
	Where   *gOr         `( "where" @@ )?`
	Rpar    *lexer.Token `@")"`
	Body    *gTerm       `@@`
}

// Conditions (where filters): or of ands of (possibly negated) comparisons.
type gOr struct {
	Head *gAnd    `@@`
	Tail []*gOrOp `@@*`
}

type gOrOp struct {
	Pos lexer.Position
	X   *gAnd `"or" @@`
}

type gAnd struct {
	Head *gNot     `@@`
	Tail []*gAndOp `@@*`
}

type gAndOp struct {
	Pos lexer.Position
	X   *gNot `"and" @@`
}

type gNot struct {
	Pos   lexer.Position
	Not   *gNot `  "not" @@`
	Paren *gOr  `| "(" @@ ")"`
	Cmp   *gCmp `| @@`
}

type gCmp struct {
	X  *gExpr `@@`
	Op *gOp   `@@`
	Y  *gExpr `@@`
}
