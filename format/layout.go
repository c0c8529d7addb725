package format

import (
	"strings"
	"unicode/utf8"

	"github.com/qrc-lang/qrc/ast"
)

// maxWidth is the width in columns beyond which a declaration is broken.
const maxWidth = 100

// comprIndent is how far a broken comprehension's body is indented past the
// column where the comprehension starts.
const comprIndent = 4

// A doc is the text of one declaration with its possible line breaks. It is
// one of:
//   - string: text that is never broken;
//   - []doc: the concatenation of its parts;
//   - *chain: a chain of "+" and "-" that can break before every operator;
//   - *compr: a comprehension that can break after its header;
//   - *cond: a conditional that can break before every else.
type doc any

// cond is "if c1 then t1 else if c2 then t2 ... else e", an else-if chain
// as one group. Broken, every "else" starts a new line indented to the
// column where the "if" starts.
type cond struct {
	id    int
	heads []string // "if c1 then ", "if c2 then ", ...
	thens []doc
	last  doc
}

// chain is "t0 op1 t1 op2 t2 ...". Broken, each operator starts a new line
// indented to the column where t0 starts.
type chain struct {
	id    int
	terms []doc // len(ops)+1 terms
	ops   []string
}

// compr is "header body". Broken, the body starts a new line indented
// comprIndent columns past the column where the header starts.
type compr struct {
	id     int
	header string
	body   doc
}

// Break kinds, in the order in which they are tried.
const (
	kindCond = iota // a conditional's else-if chain breaks first: its arms are the outermost groups
	kindChain
	kindCompr
)

// builder makes the doc of a declaration.
type builder struct {
	groups int // number of breakable groups so far
}

func (b *builder) newID() int {
	b.groups++
	return b.groups - 1
}

// spine returns the doc of e in a context that wants precedence min and, if
// a text at most open (see openness). Only the parts of e outside
// any bracket can break: a chain of "+" and "-" at the top, and the
// comprehensions reached from there through right operands, unary operands
// and comprehension bodies. Everything else is text; in particular nothing
// inside parentheses, brackets or a comprehension's header ever breaks.
func (b *builder) spine(e ast.Expr, min int, open int) doc {
	if e == nil || needParens(e, min, open) {
		return exprText(e, min, open)
	}
	switch e := e.(type) {
	case *ast.Binary:
		if e.Op == "+" || e.Op == "-" {
			var links []*ast.Binary // the chain from the right
			var x ast.Expr = e
			for {
				bx, ok := x.(*ast.Binary)
				if !ok || bx.Op != "+" && bx.Op != "-" {
					break
				}
				links = append(links, bx)
				x = bx.X
			}
			c := &chain{id: b.newID()}
			c.terms = append(c.terms, b.spine(x, precAdd, openMul))
			for i := len(links) - 1; i >= 0; i-- {
				c.ops = append(c.ops, links[i].Op)
				open := openMul // a term followed by "+" or "-"
				if i == 0 {
					open = openAll // the last: e as a whole is open enough
				}
				c.terms = append(c.terms, b.spine(links[i].Y, precMul, open))
			}
			return c
		}
		minX, openX, minY := operands(e.Op)
		return []doc{exprText(e.X, minX, openX) + binaryOp(e.Op), b.spine(e.Y, minY, openAll)}
	case *ast.Unary:
		return []doc{unaryOp(e.Op), b.spine(e.X, unaryOperand(e.Op), openAll)}
	case *ast.Comprehension:
		c := &compr{id: b.newID(), header: comprHeader(e)}
		c.body = b.spine(e.Body, precMul, openAll)
		return c
	case *ast.If:
		c := &cond{id: b.newID()}
		var x ast.Expr = e
		for {
			f, ok := x.(*ast.If)
			if !ok {
				break
			}
			c.heads = append(c.heads, "if "+exprText(f.Cond, precOr, openAll)+" then ")
			c.thens = append(c.thens, b.spine(f.Then, precAdd, openAll))
			x = f.Else
		}
		c.last = b.spine(x, precAdd, openAll)
		return c
	}
	return exprText(e, min, open)
}

// candidate is a place where an unbroken group could break.
type candidate struct {
	line int // index of the rendered line holding the break point
	id   int
	kind int
}

// renderer lays out a doc, breaking the groups marked in broken.
type renderer struct {
	broken []bool
	lines  []string
	cur    strings.Builder
	col    int
	cands  []candidate
}

func (r *renderer) text(s string) {
	r.cur.WriteString(s)
	r.col += width(s)
}

func (r *renderer) newline(indent int) {
	r.lines = append(r.lines, r.cur.String())
	r.cur.Reset()
	r.col = 0
	r.text(strings.Repeat(" ", indent))
}

func (r *renderer) render(d doc) {
	switch d := d.(type) {
	case string:
		r.text(d)
	case []doc:
		for _, x := range d {
			r.render(x)
		}
	case *chain:
		start := r.col
		r.render(d.terms[0])
		for i, op := range d.ops {
			if r.broken[d.id] {
				r.newline(start)
				r.text(op + " ")
			} else {
				r.cands = append(r.cands, candidate{line: len(r.lines), id: d.id, kind: kindChain})
				r.text(" " + op + " ")
			}
			r.render(d.terms[i+1])
		}
	case *cond:
		start := r.col
		for i, h := range d.heads {
			if i > 0 {
				r.elseBreak(d, start)
			}
			r.text(h)
			r.render(d.thens[i])
		}
		r.elseBreak(d, start)
		r.render(d.last)
	case *compr:
		start := r.col
		r.text(d.header)
		if r.broken[d.id] {
			r.newline(start + comprIndent)
		} else {
			r.cands = append(r.cands, candidate{line: len(r.lines), id: d.id, kind: kindCompr})
			r.text(" ")
		}
		r.render(d.body)
	}
}

// elseBreak writes the "else " of conditional d, on a new line at column
// start when d is broken.
func (r *renderer) elseBreak(d *cond, start int) {
	if r.broken[d.id] {
		r.newline(start)
		r.text("else ")
		return
	}
	r.cands = append(r.cands, candidate{line: len(r.lines), id: d.id, kind: kindCond})
	r.text(" else ")
}

// layout renders d, which has n groups, breaking groups until every line
// fits in maxWidth columns or no group that could shorten a long line is
// left. Each round looks at the first line that is too long and has an
// unbroken group breaking on it, and breaks one such group: a conditional
// if there is one, else a chain, else a comprehension, the leftmost
// (outermost) first.
func layout(d doc, n int) []string {
	broken := make([]bool, n)
	for {
		r := &renderer{broken: broken}
		r.render(d)
		r.lines = append(r.lines, r.cur.String())
		pick := -1
		for i, l := range r.lines {
			if width(l) <= maxWidth {
				continue
			}
			best := -1
			for j, c := range r.cands {
				if c.line == i && (best < 0 || c.kind < r.cands[best].kind) {
					best = j
				}
			}
			if best >= 0 {
				pick = r.cands[best].id
				break
			}
		}
		if pick < 0 {
			return r.lines
		}
		broken[pick] = true
	}
}

// width returns the width of s in columns: one per rune.
func width(s string) int { return utf8.RuneCountInString(s) }
