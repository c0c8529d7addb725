// Package format prints a qrc syntax tree in canonical layout; it is the
// printer behind "qrc fmt".
//
// The output depends only on the tree, on which comments are attached where,
// and on where the source had blank lines (found from the line numbers in the
// positions), so formatting is idempotent: Source(Source(x)) == Source(x).
//
// # Layout
//
// Declarations. One per line, single spaces between tokens:
//
//	data train = libsvm("data/digits.svm")
//	param K = 10
//	var W[K, train.d] in ball(lambda, rows) = 0.5
//	func phi(z) = 1 / (1 + exp(z))
//	minimize loss(1)
//	subject to
//	    cap[k in 2..K]: loss(k) <= r
//
// "subject to" stands on its own line; its constraints follow, indented four
// spaces. A constraint outside any subject to block is not indented.
//
// Expressions. Spaces around the binary operators + - * /, the comparisons
// and "and"/"or"; none around "^" and ".." (x^2, 1..K); unary "-" and "+"
// attached (-x), "not c"; f(a, b), label = "y", W[k, j], train.X, [1, 2, 3];
// one space between a comprehension's header and its body:
// sum(l in 1..K where l != k) body. Number and string literals are printed as
// written. Parentheses written in the source are kept; parentheses that a
// tree built by hand needs to keep its structure are inserted, and no others
// (so -x^2 and -sum(i in S) x stay as they are: they parse back to the same
// tree).
//
// Alignment. In a run of single-line param declarations on consecutive lines
// the names are padded so that the "=" signs line up; the same for a run of
// single-line func declarations, padded after the signature's ")". A trailing
// comment is separated from the code by at least two spaces, and the trailing
// comments of consecutive lines are aligned to one column. A blank line or a
// comment line ends a run.
//
// Blank lines. Wherever the source had one or more blank lines (between
// declarations, between constraints, between comments, between a doc comment
// and its declaration) the output has exactly one; never at the start of the
// file nor right after "subject to". The output ends with one newline (an
// empty file stays empty).
//
// Comments. Every comment is kept, in order. A declaration's doc comments
// stand on their own lines before it, at its indentation; its line comment
// follows its last line; the file's trailing comments come last. The parser
// moves comments found inside a multi-line declaration to the end of its doc
// comment; they are printed just above the declaration, with no blank line
// among them or between them and the declaration.
//
// Line breaking. A declaration or constraint whose one-line form is longer
// than 100 columns (counting its indentation, not its line comment; a column
// is a rune) is broken, one group at a time, until its lines fit or nothing
// is left to break. Each round shortens the first line that is too long and
// can be broken, by breaking on it a chain if there is one, else its
// leftmost comprehension:
//
//  1. the top-level chain of "+" and "-" of an expression (the value of a
//     declaration, either side of a constraint) breaks before every
//     operator, the continuation lines indented to the column where the
//     expression starts;
//  2. then a comprehension, outermost first, breaks after its header, its
//     body on the next line indented four columns past the column where the
//     comprehension starts (which is how examples/npc.qrc lays out loss:
//     "sum(l in ...) ..." starts four columns right of "mean(i in ...)").
//
// Comprehensions are found through right operands, unary operands and
// comprehension bodies; nothing inside parentheses, brackets, a call's
// arguments or a comprehension's header ever breaks, so such a line may stay
// long. Whether to break is decided on the unpadded text, before alignment,
// so that alignment can never change where lines break; a broken declaration
// takes no part in alignment.
package format

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/lang"
)

// Node writes f to w in canonical layout.
//
// A malformed tree (one the parser could not produce, e.g. with a nil
// declaration) may make Node return an error; nothing is written then.
func Node(w io.Writer, f *ast.File) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("format: malformed syntax tree: %v", r)
		}
	}()
	p := &printer{}
	p.file(f)
	_, err = w.Write(p.bytes())
	return err
}

// Source parses src (filename used in positions) and returns it in canonical
// layout; syntax errors come back as diagnostics.
func Source(filename string, src []byte) ([]byte, diag.List) {
	f, errs := lang.Parse(filename, src)
	if errs.HasErrors() || f == nil {
		return nil, errs
	}
	var buf bytes.Buffer
	if err := Node(&buf, f); err != nil {
		return nil, diag.List{{Pos: ast.Pos{Filename: filename, Line: 1, Column: 1}, Msg: err.Error()}}
	}
	return buf.Bytes(), nil
}

// Alignment kinds of an output line.
const (
	alignNone = iota
	alignParam
	alignFunc
)

// outLine is one line of output.
type outLine struct {
	code    string // the text with its indentation: code, a comment, or "" (blank)
	comment string // the trailing comment, if any
	align   int    // alignParam or alignFunc for a single-line param or func
	head    int    // with align: the byte length of the text before the padding
}

// printer collects the output lines of a file.
type printer struct {
	lines   []outLine
	lastEnd int  // source line on which the last printed element ends; 0 if unknown
	noBlank bool // no blank line may come next (just after "subject to")
}

// gap prints a blank line if the source had one between the last printed
// element and line.
func (p *printer) gap(line int) {
	if len(p.lines) > 0 && !p.noBlank && p.lastEnd > 0 && line > p.lastEnd+1 {
		p.lines = append(p.lines, outLine{})
	}
}

// done records that an element ending on source line end was printed.
func (p *printer) done(end int) {
	p.lastEnd = end
	p.noBlank = false
}

func (p *printer) file(f *ast.File) {
	for _, d := range f.Decls {
		p.decl(d, "")
	}
	if f.Trailing != nil {
		for _, c := range f.Trailing.List {
			p.gap(c.Hash.Line)
			p.lines = append(p.lines, outLine{code: c.Text})
			p.done(c.Hash.Line)
		}
	}
}

// decl prints a declaration or constraint with its comments.
func (p *printer) decl(d ast.Decl, indent string) {
	docGroup, line := d.Comments()
	start := d.Pos()
	p.docComments(docGroup, start, indent)
	p.gap(start.Line)
	if s, ok := d.(*ast.SubjectTo); ok {
		p.lines = append(p.lines, outLine{code: indent + "subject to"})
		p.lineComment(line, indent)
		p.done(endLine(start.Line, line))
		p.noBlank = true
		for _, c := range s.Constraints {
			p.decl(c, indent+strings.Repeat(" ", 4))
		}
		p.noBlank = false
		return
	}
	var b builder
	var head string
	var parts []doc
	align := alignNone
	switch d := d.(type) {
	case *ast.DataDecl:
		parts = []doc{indent + "data " + identName(d.Name) + " = ", b.spine(d.Source, precAdd, openAll)}
	case *ast.ParamDecl:
		head = indent + "param " + identName(d.Name)
		parts = []doc{head + " = ", b.spine(d.Value, precAdd, openAll)}
		align = alignParam
	case *ast.VarDecl:
		s := indent + "var " + identName(d.Name)
		if len(d.Dims) > 0 {
			var sb strings.Builder
			writeList(&sb, d.Dims)
			s += "[" + sb.String() + "]"
		}
		parts = []doc{s}
		if d.Domain != nil {
			if d.Start == nil {
				parts = append(parts, " in ", b.spine(d.Domain, precAdd, openAll))
			} else {
				parts = append(parts, " in "+exprText(d.Domain, precAdd, openAll))
			}
		}
		if d.Start != nil {
			parts = append(parts, " = ", b.spine(d.Start, precAdd, openAll))
		}
	case *ast.FuncDecl:
		names := make([]string, len(d.Params))
		for i, x := range d.Params {
			names[i] = identName(x)
		}
		head = indent + "func " + identName(d.Name) + "(" + strings.Join(names, ", ") + ")"
		parts = []doc{head + " = ", b.spine(d.Body, precAdd, openAll)}
		align = alignFunc
	case *ast.Objective:
		sense := d.Sense
		if sense == "" {
			sense = "minimize"
		}
		parts = []doc{indent + sense + " ", b.spine(d.X, precAdd, openAll)}
	case *ast.Constraint:
		s := indent + identName(d.Name)
		if len(d.Binders) > 0 {
			s += "[" + binders(d.Binders) + "]"
		}
		parts = []doc{s + ": ", b.spine(d.LHS, precAdd, openAll), " " + d.Op + " ", b.spine(d.RHS, precAdd, openAll)}
	default:
		panic(fmt.Sprintf("unknown declaration %T", d))
	}
	lines := layout(parts, b.groups)
	for _, l := range lines {
		p.lines = append(p.lines, outLine{code: l})
	}
	if len(lines) == 1 && align != alignNone {
		last := &p.lines[len(p.lines)-1]
		last.align, last.head = align, len(head)
	}
	p.lineComment(line, indent)
	p.done(endLine(d.End().Line, line))
}

// docComments prints the doc comments g of a declaration starting at start.
// Comments that the parser lifted out of the declaration (they come after its
// start) stay together just above it.
func (p *printer) docComments(g *ast.CommentGroup, start ast.Pos, indent string) {
	if g == nil {
		return
	}
	lifted := false
	for _, c := range g.List {
		if after(c.Hash, start) {
			if !lifted {
				p.gap(start.Line)
				lifted = true
			}
			p.lines = append(p.lines, outLine{code: indent + c.Text})
			p.done(start.Line)
			continue
		}
		p.gap(c.Hash.Line)
		p.lines = append(p.lines, outLine{code: indent + c.Text})
		p.done(c.Hash.Line)
	}
}

// lineComment puts the line comment g after the last line printed. A group
// of more than one comment (which the parser never makes) continues on lines
// of its own.
func (p *printer) lineComment(g *ast.CommentGroup, indent string) {
	if g == nil || len(g.List) == 0 {
		return
	}
	p.lines[len(p.lines)-1].comment = g.List[0].Text
	for _, c := range g.List[1:] {
		p.lines = append(p.lines, outLine{code: indent + c.Text})
	}
}

// after reports whether comment position c comes after position start.
func after(c, start ast.Pos) bool {
	if !c.IsValid() || !start.IsValid() {
		return false
	}
	return c.Line > start.Line || c.Line == start.Line && c.Column > start.Column
}

// endLine returns the last source line of an element ending on line end with
// line comment g.
func endLine(end int, g *ast.CommentGroup) int {
	if g != nil {
		for _, c := range g.List {
			end = max(end, c.Hash.Line)
		}
	}
	return end
}

// bytes aligns the collected lines and returns the output.
func (p *printer) bytes() []byte {
	lines := p.lines
	// Pad the names of runs of param (func) declarations so the "=" line up.
	for i := 0; i < len(lines); {
		kind := lines[i].align
		if kind == alignNone {
			i++
			continue
		}
		j, w := i, 0
		for ; j < len(lines) && lines[j].align == kind; j++ {
			w = max(w, width(lines[j].code[:lines[j].head]))
		}
		for k := i; k < j; k++ {
			l := &lines[k]
			l.code = l.code[:l.head] + strings.Repeat(" ", w-width(l.code[:l.head])) + l.code[l.head:]
		}
		i = j
	}
	// Align the trailing comments of consecutive lines.
	for i := 0; i < len(lines); {
		if lines[i].comment == "" {
			i++
			continue
		}
		j, w := i, 0
		for ; j < len(lines) && lines[j].comment != ""; j++ {
			w = max(w, width(lines[j].code))
		}
		for k := i; k < j; k++ {
			l := &lines[k]
			l.code += strings.Repeat(" ", w+2-width(l.code)) + l.comment
		}
		i = j
	}
	var buf bytes.Buffer
	for _, l := range lines {
		buf.WriteString(l.code)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}
