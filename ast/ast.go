// Package ast declares the syntax tree of a .qrc model.
//
// Every node records where it starts (Pos) and where it ends (End), so that
// diagnostics can point at the exact spot in the source. The tree is produced
// by package lang and consumed by the checker and the formatter; it carries no
// types or values (those are the checker's business).
package ast

import "fmt"

// Pos is a position in a source file. Line and Column are 1-based; Column
// counts bytes. The zero Pos is "no position".
type Pos struct {
	Filename string // file name as given to the parser; may be empty
	Offset   int    // byte offset, starting at 0
	Line     int    // line number, starting at 1
	Column   int    // column number, starting at 1 (byte count)
}

// IsValid reports whether p names a real position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String formats p as "file:line:col", "line:col" without a file name, or
// "-" for the zero Pos.
func (p Pos) String() string {
	switch {
	case !p.IsValid() && p.Filename == "":
		return "-"
	case !p.IsValid():
		return p.Filename
	case p.Filename == "":
		return fmt.Sprintf("%d:%d", p.Line, p.Column)
	}
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
}

// Before reports whether p comes strictly before q in the same file.
func (p Pos) Before(q Pos) bool { return p.Offset < q.Offset }

// Node is implemented by every node of the tree.
type Node interface {
	Pos() Pos // first byte of the node
	End() Pos // first byte after the node
}

// Expr is an expression node.
type Expr interface {
	Node
	exprNode()
}

// Decl is a top-level declaration.
type Decl interface {
	Node
	declNode()
	// Comments returns the leading (doc) and trailing (line) comments
	// attached to the declaration; either may be nil.
	Comments() (doc, line *CommentGroup)
}

// ---------------------------------------------------------------------------
// Comments

// Comment is one "# ..." comment; Text includes the leading '#'.
type Comment struct {
	Hash Pos
	Text string
}

// Pos returns the position of the '#'.
func (c *Comment) Pos() Pos { return c.Hash }

// End returns the position just after the comment text.
func (c *Comment) End() Pos {
	e := c.Hash
	e.Offset += len(c.Text)
	e.Column += len(c.Text)
	return e
}

// CommentGroup is a run of comments on consecutive lines with nothing else
// between them, or a single trailing comment.
type CommentGroup struct {
	List []*Comment
}

// Pos returns the position of the first comment.
func (g *CommentGroup) Pos() Pos { return g.List[0].Pos() }

// End returns the end of the last comment.
func (g *CommentGroup) End() Pos { return g.List[len(g.List)-1].End() }

// ---------------------------------------------------------------------------
// Expressions

// Ident is a name: a parameter, variable, data set, function, index or
// built-in.
type Ident struct {
	NamePos Pos
	Name    string
}

// Number is a numeric literal.
type Number struct {
	ValuePos Pos
	Lit      string  // as written
	Value    float64 // its value
}

// String is a string literal (used for file paths and column names).
type String struct {
	ValuePos Pos
	Lit      string // as written, with quotes
	Value    string // unquoted
}

// Vector is a literal list "[e1, e2, ...]".
type Vector struct {
	Lbrack Pos
	Elems  []Expr
	Rbrack Pos
}

// Paren is a parenthesised expression.
type Paren struct {
	Lparen Pos
	X      Expr
	Rparen Pos
}

// Unary is "-x" or "+x", or "not c" in a condition.
type Unary struct {
	OpPos Pos
	Op    string
	X     Expr
}

// Binary is "x op y" for the arithmetic operators + - * / ^, the comparisons
// == != < <= > >= (in where filters) and the logical and / or.
type Binary struct {
	X     Expr
	OpPos Pos
	Op    string
	Y     Expr
}

// Arg is one argument of a call, optionally named: "label = \"y\"".
type Arg struct {
	Name  *Ident // nil for a positional argument
	Value Expr
}

// Call is "f(args)".
type Call struct {
	Fun    *Ident
	Lparen Pos
	Args   []*Arg
	Rparen Pos
}

// Index is "x[i]" or "x[i, j]".
type Index struct {
	X       Expr
	Lbrack  Pos
	Indices []Expr
	Rbrack  Pos
}

// Member is "x.name", e.g. "train.X" or "train.d".
type Member struct {
	X    Expr
	Dot  Pos
	Name *Ident
}

// Range is the integer set "lo..hi" (inclusive).
type Range struct {
	Lo Expr
	Hi Expr
}

// Binder is "name in set", where set is a Range or the name of a data set
// (its rows).
type Binder struct {
	Name *Ident
	Set  Expr
}

// Comprehension is "op(i in S, j in T where cond) body" for op one of sum,
// mean, max or min. The body extends over a product of factors: "sum(i in S)
// a * b + c" is "(sum(i in S) a*b) + c".
type Comprehension struct {
	Op      *Ident
	Lparen  Pos
	Binders []*Binder
	Where   Expr // nil when there is no filter
	Rparen  Pos
	Body    Expr
}

// If is the conditional "if Cond then Then else Else": Then where the
// condition (comparisons combined by and, or, not) holds, else Else.
type If struct {
	IfPos Pos
	Cond  Expr
	Then  Expr
	Else  Expr
}

// Pos implementations.

func (x *Ident) Pos() Pos         { return x.NamePos }
func (x *Number) Pos() Pos        { return x.ValuePos }
func (x *String) Pos() Pos        { return x.ValuePos }
func (x *Vector) Pos() Pos        { return x.Lbrack }
func (x *Paren) Pos() Pos         { return x.Lparen }
func (x *Unary) Pos() Pos         { return x.OpPos }
func (x *Binary) Pos() Pos        { return x.X.Pos() }
func (x *Call) Pos() Pos          { return x.Fun.Pos() }
func (x *Index) Pos() Pos         { return x.X.Pos() }
func (x *Member) Pos() Pos        { return x.X.Pos() }
func (x *Range) Pos() Pos         { return x.Lo.Pos() }
func (x *Binder) Pos() Pos        { return x.Name.Pos() }
func (x *Comprehension) Pos() Pos { return x.Op.Pos() }
func (x *If) Pos() Pos            { return x.IfPos }
func (x *Arg) Pos() Pos {
	if x.Name != nil {
		return x.Name.Pos()
	}
	return x.Value.Pos()
}

// End implementations.

func (x *Ident) End() Pos         { return advance(x.NamePos, len(x.Name)) }
func (x *Number) End() Pos        { return advance(x.ValuePos, len(x.Lit)) }
func (x *String) End() Pos        { return advance(x.ValuePos, len(x.Lit)) }
func (x *Vector) End() Pos        { return advance(x.Rbrack, 1) }
func (x *Paren) End() Pos         { return advance(x.Rparen, 1) }
func (x *Unary) End() Pos         { return x.X.End() }
func (x *Binary) End() Pos        { return x.Y.End() }
func (x *Call) End() Pos          { return advance(x.Rparen, 1) }
func (x *Index) End() Pos         { return advance(x.Rbrack, 1) }
func (x *Member) End() Pos        { return x.Name.End() }
func (x *Range) End() Pos         { return x.Hi.End() }
func (x *Binder) End() Pos        { return x.Set.End() }
func (x *Comprehension) End() Pos { return x.Body.End() }
func (x *If) End() Pos            { return x.Else.End() }
func (x *Arg) End() Pos           { return x.Value.End() }

func (*Ident) exprNode()         {}
func (*Number) exprNode()        {}
func (*String) exprNode()        {}
func (*Vector) exprNode()        {}
func (*Paren) exprNode()         {}
func (*Unary) exprNode()         {}
func (*Binary) exprNode()        {}
func (*Call) exprNode()          {}
func (*Index) exprNode()         {}
func (*Member) exprNode()        {}
func (*Range) exprNode()         {}
func (*Comprehension) exprNode() {}
func (*If) exprNode()            {}

// advance returns p moved n bytes to the right on the same line.
func advance(p Pos, n int) Pos {
	p.Offset += n
	p.Column += n
	return p
}

// ---------------------------------------------------------------------------
// Declarations

// DataDecl is "data NAME = loader(args)".
type DataDecl struct {
	Doc     *CommentGroup
	Keyword Pos
	Name    *Ident
	Source  Expr // a *Call such as libsvm("file") or csv("file", label = "y")
	Comment *CommentGroup
}

// ParamDecl is "param NAME = EXPR".
type ParamDecl struct {
	Doc     *CommentGroup
	Keyword Pos
	Name    *Ident
	Value   Expr
	Comment *CommentGroup
}

// VarDecl is "var NAME[dims] in DOMAIN = START"; Dims, Domain and Start are
// optional.
type VarDecl struct {
	Doc     *CommentGroup
	Keyword Pos
	Name    *Ident
	Dims    []Expr
	Rbrack  Pos  // the "]" after the dimensions (zero without them)
	Domain  Expr // *Ident (simplex) or *Call (box(lo, hi), ball(r), ball(r, rows)); nil = unbounded
	Start   Expr // nil = 0 projected onto the domain
	Comment *CommentGroup
}

// FuncDecl is "func NAME(params) = BODY".
type FuncDecl struct {
	Doc     *CommentGroup
	Keyword Pos
	Name    *Ident
	Params  []*Ident
	Body    Expr
	Comment *CommentGroup
}

// Objective is "minimize EXPR" (or "maximize EXPR", which the checker refuses
// with an explanation).
type Objective struct {
	Doc     *CommentGroup
	Keyword Pos
	Sense   string // "minimize" or "maximize"
	X       Expr
	Comment *CommentGroup
}

// SubjectTo is the block "subject to" followed by constraints.
type SubjectTo struct {
	Doc         *CommentGroup
	Keyword     Pos // "subject"
	To          Pos // "to"
	Constraints []*Constraint
	Comment     *CommentGroup // on the "subject to" line
}

// Constraint is "name[binders]: lhs op rhs" with op one of <=, >= (and, to
// be refused with an explanation, ==, !=, <, >). It may stand inside a
// subject to block or on its own at the top level.
type Constraint struct {
	Doc     *CommentGroup
	Name    *Ident
	Binders []*Binder
	LHS     Expr
	OpPos   Pos
	Op      string
	RHS     Expr
	Comment *CommentGroup
}

// Pos and End of declarations.

func (d *DataDecl) Pos() Pos   { return d.Keyword }
func (d *ParamDecl) Pos() Pos  { return d.Keyword }
func (d *VarDecl) Pos() Pos    { return d.Keyword }
func (d *FuncDecl) Pos() Pos   { return d.Keyword }
func (d *Objective) Pos() Pos  { return d.Keyword }
func (d *SubjectTo) Pos() Pos  { return d.Keyword }
func (d *Constraint) Pos() Pos { return d.Name.Pos() }

func (d *DataDecl) End() Pos  { return d.Source.End() }
func (d *ParamDecl) End() Pos { return d.Value.End() }
func (d *VarDecl) End() Pos {
	switch {
	case d.Start != nil:
		return d.Start.End()
	case d.Domain != nil:
		return d.Domain.End()
	case len(d.Dims) > 0:
		return advance(d.Rbrack, 1)
	}
	return d.Name.End()
}
func (d *FuncDecl) End() Pos  { return d.Body.End() }
func (d *Objective) End() Pos { return d.X.End() }
func (d *SubjectTo) End() Pos {
	if n := len(d.Constraints); n > 0 {
		return d.Constraints[n-1].End()
	}
	return advance(d.To, len("to"))
}
func (d *Constraint) End() Pos { return d.RHS.End() }

func (*DataDecl) declNode()   {}
func (*ParamDecl) declNode()  {}
func (*VarDecl) declNode()    {}
func (*FuncDecl) declNode()   {}
func (*Objective) declNode()  {}
func (*SubjectTo) declNode()  {}
func (*Constraint) declNode() {}

// Comments implementations.

func (d *DataDecl) Comments() (doc, line *CommentGroup)   { return d.Doc, d.Comment }
func (d *ParamDecl) Comments() (doc, line *CommentGroup)  { return d.Doc, d.Comment }
func (d *VarDecl) Comments() (doc, line *CommentGroup)    { return d.Doc, d.Comment }
func (d *FuncDecl) Comments() (doc, line *CommentGroup)   { return d.Doc, d.Comment }
func (d *Objective) Comments() (doc, line *CommentGroup)  { return d.Doc, d.Comment }
func (d *SubjectTo) Comments() (doc, line *CommentGroup)  { return d.Doc, d.Comment }
func (d *Constraint) Comments() (doc, line *CommentGroup) { return d.Doc, d.Comment }

// File is a parsed model file.
type File struct {
	Name     string          // the file name given to the parser
	Decls    []Decl          // in source order
	Comments []*CommentGroup // every comment group in the file, in order
	Trailing *CommentGroup   // comments after the last declaration, if any
}
