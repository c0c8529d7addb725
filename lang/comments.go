package lang

import (
	"strings"

	"github.com/qrc-lang/qrc/ast"
)

// item is a unit that comments attach to: a declaration, a constraint inside
// a subject to block, or the "subject to" header line.
type item struct {
	start, end   ast.Pos
	doc, comment **ast.CommentGroup
	lifted       []*ast.Comment // comments from inside the item's span
}

// attachComments finds every comment in src and attaches it to f:
//   - a comment at the end of the line on which an item ends is that item's
//     line comment;
//   - comments on lines of their own before an item are its doc comment;
//   - comments inside a multi-line item are moved to the end of its doc
//     comment, so that reformatting never loses them;
//   - comments after the last item are the file's trailing comments.
func attachComments(f *ast.File, filename string, src []byte) {
	comments, codeLines := scanComments(filename, src)
	if len(comments) == 0 {
		return
	}
	var items []*item
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.DataDecl:
			items = append(items, &item{start: d.Pos(), end: d.End(), doc: &d.Doc, comment: &d.Comment})
		case *ast.ParamDecl:
			items = append(items, &item{start: d.Pos(), end: d.End(), doc: &d.Doc, comment: &d.Comment})
		case *ast.VarDecl:
			items = append(items, &item{start: d.Pos(), end: d.End(), doc: &d.Doc, comment: &d.Comment})
		case *ast.FuncDecl:
			items = append(items, &item{start: d.Pos(), end: d.End(), doc: &d.Doc, comment: &d.Comment})
		case *ast.Objective:
			items = append(items, &item{start: d.Pos(), end: d.End(), doc: &d.Doc, comment: &d.Comment})
		case *ast.SubjectTo:
			header := d.To
			header.Offset += len("to")
			header.Column += len("to")
			items = append(items, &item{start: d.Pos(), end: header, doc: &d.Doc, comment: &d.Comment})
			for _, c := range d.Constraints {
				items = append(items, &item{start: c.Pos(), end: c.End(), doc: &c.Doc, comment: &c.Comment})
			}
		case *ast.Constraint:
			items = append(items, &item{start: d.Pos(), end: d.End(), doc: &d.Doc, comment: &d.Comment})
		}
	}
	var trailing []*ast.Comment
	for _, c := range comments {
		line := c.Hash.Line
		if codeLines[line] { // a comment after code on the same line
			it := lastStartingBy(items, c.Hash)
			switch {
			case it == nil: // cannot happen: code precedes it
				trailing = append(trailing, c)
			case it.end.Line == line:
				appendGroup(it.comment, c)
			default:
				it.lifted = append(it.lifted, c)
			}
			continue
		}
		if it := lastStartingBy(items, c.Hash); it != nil && c.Hash.Offset < it.end.Offset {
			it.lifted = append(it.lifted, c) // inside a multi-line item
			continue
		}
		if it := firstStartingAfter(items, c.Hash); it != nil {
			appendGroup(it.doc, c)
			continue
		}
		trailing = append(trailing, c)
	}
	for _, it := range items {
		for _, c := range it.lifted {
			appendGroup(it.doc, c)
		}
	}
	if len(trailing) > 0 {
		f.Trailing = &ast.CommentGroup{List: trailing}
	}
	// The file's comment groups: runs of comments on consecutive lines.
	var g *ast.CommentGroup
	for _, c := range comments {
		if g != nil && !codeLines[c.Hash.Line] && c.Hash.Line == g.End().Line+1 && !codeLines[g.End().Line] {
			g.List = append(g.List, c)
			continue
		}
		g = &ast.CommentGroup{List: []*ast.Comment{c}}
		f.Comments = append(f.Comments, g)
	}
}

func appendGroup(g **ast.CommentGroup, c *ast.Comment) {
	if *g == nil {
		*g = &ast.CommentGroup{}
	}
	(*g).List = append((*g).List, c)
}

// lastStartingBy returns the last item that starts before p.
func lastStartingBy(items []*item, p ast.Pos) *item {
	var last *item
	for _, it := range items {
		if it.start.Offset > p.Offset {
			break
		}
		last = it
	}
	return last
}

// firstStartingAfter returns the first item that starts after p.
func firstStartingAfter(items []*item, p ast.Pos) *item {
	for _, it := range items {
		if it.start.Offset > p.Offset {
			return it
		}
	}
	return nil
}

// scanComments lexes src and returns its comments in order, and the set of
// lines that hold code (any token that is neither a comment nor white space).
func scanComments(filename string, src []byte) ([]*ast.Comment, map[int]bool) {
	lex, err := qrcLexer.LexString(filename, string(src))
	if err != nil {
		return nil, nil
	}
	sym := qrcLexer.Symbols()
	var comments []*ast.Comment
	code := map[int]bool{}
	for {
		tok, err := lex.Next()
		if err != nil || tok.EOF() {
			break
		}
		switch tok.Type {
		case sym["Comment"]:
			comments = append(comments, &ast.Comment{Hash: pos(tok.Pos), Text: strings.TrimRight(tok.Value, " \t\r")})
		case sym["Whitespace"]:
		default:
			code[tok.Pos.Line] = true
		}
	}
	return comments, code
}
