package lang

import "github.com/alecthomas/participle/v2/lexer"

// The participle grammar. These types mirror the surface syntax one to one;
// parse.go converts them into the ast package's tree, which is what the rest
// of qrc sees. docs/language.md gives the same grammar in EBNF.

// qrcLexer splits a model into tokens. Keywords are identifiers retyped by
// keywordMapper, so a keyword can never be used as a name; "1..K" lexes as
// 1, .., K because a number needs digits after its decimal point.
var qrcLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `#[^\n]*`},
	{Name: "String", Pattern: `"(\\.|[^"\\\n])*"`},
	{Name: "Number", Pattern: `(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?`},
	{Name: "Ident", Pattern: `[\p{L}_][\p{L}\p{N}_]*`},
	// Keywords lex as identifiers and are retyped by keywordMapper, so that
	// "inλ" is one name; this rule only declares the token type.
	{Name: "Keyword", Pattern: `[^\x00-\x{10FFFF}]`},
	{Name: "Op", Pattern: `\.\.|==|!=|<=|>=|[-+*/^<>=]`},
	{Name: "Punct", Pattern: `[()\[\],:.]`},
	{Name: "Whitespace", Pattern: `[ \t\r\n]+`},
})

type gFile struct {
	Decls []*gDecl `parser:"@@*"`
}

type gDecl struct {
	Data       *gData       `parser:"  @@"`
	Param      *gParam      `parser:"| @@"`
	Var        *gVar        `parser:"| @@"`
	Func       *gFunc       `parser:"| @@"`
	Objective  *gObjective  `parser:"| @@"`
	SubjectTo  *gSubjectTo  `parser:"| @@"`
	Constraint *gConstraint `parser:"| @@"`
}

type gIdent struct {
	Pos  lexer.Position
	Name string `parser:"@Ident"`
}

type gData struct {
	Pos    lexer.Position
	Name   *gIdent `parser:"\"data\" @@ \"=\""`
	Source *gExpr  `parser:"@@"`
}

type gParam struct {
	Pos   lexer.Position
	Name  *gIdent `parser:"\"param\" @@ \"=\""`
	Value *gExpr  `parser:"@@"`
}

type gVar struct {
	Pos    lexer.Position
	Name   *gIdent  `parser:"\"var\" @@"`
	Dims   []*gExpr `parser:"( \"[\" @@ ( \",\" @@ )*"`
	Rbrack *gRbrack `parser:"  @@ )?"`
	Domain *gExpr   `parser:"( \"in\" @@ )?"`
	Start  *gExpr   `parser:"( \"=\" @@ )?"`
}

type gFunc struct {
	Pos    lexer.Position
	Name   *gIdent   `parser:"\"func\" @@"`
	Params []*gIdent `parser:"\"(\" ( @@ ( \",\" @@ )* )? \")\""`
	Body   *gExpr    `parser:"\"=\" @@"`
}

type gObjective struct {
	Pos   lexer.Position
	Sense string `parser:"@( \"minimize\" | \"maximize\" )"`
	X     *gExpr `parser:"@@"`
}

type gSubjectTo struct {
	Pos         lexer.Position
	To          *gTo           `parser:"\"subject\" @@"`
	Constraints []*gConstraint `parser:"@@*"`
}

// gTo is the "to" of "subject to", kept for its position.
type gTo struct {
	Pos lexer.Position
	To  string `parser:"@\"to\""`
}

type gConstraint struct {
	Pos     lexer.Position
	Name    *gIdent    `parser:"@@"`
	Binders []*gBinder `parser:"( \"[\" @@ ( \",\" @@ )* \"]\" )?"`
	LHS     *gExpr     `parser:"\":\" @@"`
	Op      *gOp       `parser:"@@"`
	RHS     *gExpr     `parser:"@@"`
}

type gOp struct {
	Pos lexer.Position
	Op  string `parser:"@( \"<=\" | \">=\" | \"==\" | \"!=\" | \"<\" | \">\" )"`
}

type gBinder struct {
	Name *gIdent `parser:"@@ \"in\""`
	Lo   *gExpr  `parser:"@@"`
	Hi   *gExpr  `parser:"( \"..\" @@ )?"`
}

// gExpr is a sum of terms: the loosest-binding arithmetic level.
type gExpr struct {
	Head *gTerm    `parser:"@@"`
	Tail []*gAddOp `parser:"@@*"`
}

type gAddOp struct {
	Pos  lexer.Position
	Op   string `parser:"@( \"+\" | \"-\" )"`
	Term *gTerm `parser:"@@"`
}

// gTerm is a product of factors. A comprehension's body is a gTerm.
type gTerm struct {
	Head *gUnary   `parser:"@@"`
	Tail []*gMulOp `parser:"@@*"`
}

type gMulOp struct {
	Pos lexer.Position
	Op  string  `parser:"@( \"*\" | \"/\" )"`
	X   *gUnary `parser:"@@"`
}

type gUnary struct {
	Pos   lexer.Position
	Op    string  `parser:"(   @( \"-\" | \"+\" )"`
	X     *gUnary `parser:"    @@ )"`
	Power *gPower `parser:"| @@"`
}

// gPower is right-associative and binds tighter than unary minus:
// -x^2 is -(x^2), and x^-1 is allowed.
type gPower struct {
	Base  *gPostfix `parser:"@@"`
	Caret *gCaret   `parser:"( @@"`
	Exp   *gUnary   `parser:"  @@ )?"`
}

type gPostfix struct {
	X   *gPrimary  `parser:"@@"`
	Ops []*gPostOp `parser:"@@*"`
}

type gPostOp struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Index  []*gExpr `parser:"  \"[\" @@ ( \",\" @@ )* \"]\""`
	Member *gIdent  `parser:"| \".\" @@"`
}

type gPrimary struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Number *string  `parser:"  @Number"`
	String *string  `parser:"| @String"`
	If     *gIf     `parser:"| @@"`
	Compr  *gCompr  `parser:"| @@"`
	Call   *gCall   `parser:"| @@"`
	Ident  *gIdent  `parser:"| @@"`
	Paren  *gParen  `parser:"| \"(\" @@ \")\""`
	Vector *gVector `parser:"| @@"`
}

// gIf is the conditional "if C then A else B". Its else branch is a whole
// sum, so it extends as far as an expression can: "if c then a else b + 1"
// is "if c then a else (b + 1)"; parenthesise it to add to it.
type gIf struct {
	Pos  lexer.Position
	Cond *gOr   `parser:"\"if\" @@"`
	Then *gExpr `parser:"\"then\" @@"`
	Else *gExpr `parser:"\"else\" @@"`
}

// gParen is a parenthesised expression. It also accepts a comparison, which
// is never valid there, so that the checker can explain where comparisons
// belong instead of the parser failing deep inside the operands.
type gParen struct {
	X  *gExpr `parser:"@@"`
	Op *gOp   `parser:"( @@"`
	Y  *gExpr `parser:"  @@ )?"`
}

type gVector struct {
	Pos    lexer.Position
	EndPos lexer.Position
	Elems  []*gExpr `parser:"\"[\" ( @@ ( \",\" @@ )* )? \"]\""`
}

type gCall struct {
	EndPos lexer.Position
	Fun    *gIdent  `parser:"@@"`
	Lpar   *gLparen `parser:"@@"`
	Args   []*gArg  `parser:"( @@ ( \",\" @@ )* )? \")\""`
}

type gArg struct {
	Name  *gIdent `parser:"( @@ \"=\" )?"`
	Value *gExpr  `parser:"@@"`
}

type gCompr struct {
	Op      *gIdent    `parser:"@@"`
	Lpar    *gLparen   `parser:"@@"`
	Binders []*gBinder `parser:"@@ ( \",\" @@ )*"`
	Where   *gOr       `parser:"( \"where\" @@ )?"`
	Rpar    *gRparen   `parser:"@@"`
	Body    *gTerm     `parser:"@@"`
}

// Conditions (where filters): or of ands of (possibly negated) comparisons.
type gOr struct {
	Head *gAnd    `parser:"@@"`
	Tail []*gOrOp `parser:"@@*"`
}

type gOrOp struct {
	Pos lexer.Position
	X   *gAnd `parser:"\"or\" @@"`
}

type gAnd struct {
	Head *gNot     `parser:"@@"`
	Tail []*gAndOp `parser:"@@*"`
}

type gAndOp struct {
	Pos lexer.Position
	X   *gNot `parser:"\"and\" @@"`
}

type gNot struct {
	Pos   lexer.Position
	Not   *gNot `parser:"  \"not\" @@"`
	Paren *gOr  `parser:"| \"(\" @@ \")\""`
	Cmp   *gCmp `parser:"| @@"`
}

type gCmp struct {
	X  *gExpr `parser:"@@"`
	Op *gOp   `parser:"@@"`
	Y  *gExpr `parser:"@@"`
}

// Single tokens whose positions the tree keeps. (A token captured directly
// into a lexer.Token field carries the position of the white space before
// it, so each is a node of its own.)
type (
	gLparen struct {
		Pos lexer.Position
		V   string `parser:"@\"(\""`
	}
	gRparen struct {
		Pos lexer.Position
		V   string `parser:"@\")\""`
	}
	gRbrack struct {
		Pos lexer.Position
		V   string `parser:"@\"]\""`
	}
	gCaret struct {
		Pos lexer.Position
		V   string `parser:"@\"^\""`
	}
)

// keywordMapper gives the identifiers that are keywords the Keyword type.
func keywordMapper(tok lexer.Token) (lexer.Token, error) {
	if IsKeyword(tok.Value) {
		tok.Type = qrcLexer.Symbols()["Keyword"]
	}
	return tok, nil
}
