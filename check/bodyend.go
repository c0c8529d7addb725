package check

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/qrc-lang/qrc/ast"
)

// A bodyEnd is a name in the right operand of a "+" or "-" whose left
// operand is a comprehension binding the same name: in
// "sum(j in S) a[j] + b[j]" the body of the sum ends before the "+" (a
// comprehension's body is a product of factors), so the j of b[j] is not
// the sum's, though the writer probably meant sum(j in S) (a[j] + b[j]).
type bodyEnd struct {
	comp *ast.Comprehension
	op   *ast.Binary
}

// hint explains the body's end for name.
func (b bodyEnd) hint(name string) string {
	return fmt.Sprintf("the body of %s(%s ...) ends before the %q at %d:%d, so this %s is not the one it binds; to take the %s of both terms, parenthesise them: %s(%s) (... %s ...)",
		b.comp.Op.Name, name, b.op.Op, b.op.OpPos.Line, b.op.OpPos.Column, name, b.comp.Op.Name, b.comp.Op.Name, binderText(b.comp), b.op.Op)
}

// binderText is the comprehension's binders as written: "j in 1..n".
func binderText(c *ast.Comprehension) string {
	parts := make([]string, len(c.Binders))
	for i, b := range c.Binders {
		parts[i] = b.Name.Name + " in ..."
	}
	return strings.Join(parts, ", ")
}

// findBodyEnds records, for every identifier in the file that falls after
// the end of a comprehension's body and names one of its binders, where
// that body ended.
func (c *checker) findBodyEnds() {
	c.bodyEnds = map[ast.Pos]bodyEnd{}
	ast.Inspect(c.m.File, func(n ast.Node) bool {
		b, ok := n.(*ast.Binary)
		if !ok || (b.Op != "+" && b.Op != "-") {
			return true
		}
		left := b.X
		for {
			l, ok := left.(*ast.Binary)
			if !ok || (l.Op != "+" && l.Op != "-") {
				break
			}
			left = l.X
		}
		comp, ok := left.(*ast.Comprehension)
		if !ok {
			return true
		}
		bound := map[string]bool{}
		for _, bd := range comp.Binders {
			bound[bd.Name.Name] = true
		}
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Comprehension:
				// a comprehension that binds the name again is not a mistake
				for _, bd := range n.Binders {
					if bound[bd.Name.Name] {
						return false
					}
				}
			case *ast.Member:
				ast.Inspect(n.X, visit) // the field name is not a name
				return false
			case *ast.Ident:
				if bound[n.Name] {
					if _, seen := c.bodyEnds[n.NamePos]; !seen {
						c.bodyEnds[n.NamePos] = bodyEnd{comp, b}
					}
				}
			}
			return true
		}
		ast.Inspect(b.Y, visit)
		return true
	})
}

// warnBodyEnds warns at each recorded name that resolved to something
// else (a global of the same name), where no error was reported.
func (c *checker) warnBodyEnds() {
	poss := slices.SortedFunc(maps.Keys(c.bodyEnds), func(a, b ast.Pos) int { return a.Offset - b.Offset })
	for _, pos := range poss {
		b := c.bodyEnds[pos]
		if c.bodyEndErrs[pos] {
			continue
		}
		var id *ast.Ident
		ast.Inspect(b.op.Y, func(n ast.Node) bool {
			if x, ok := n.(*ast.Ident); ok && x.NamePos == pos {
				id = x
			}
			return id == nil
		})
		if id != nil {
			if _, global := c.globals[id.Name]; global {
				c.warnf(id, "%q here is the %s %q, not the binder of the %s before it: %s", id.Name, c.globals[id.Name].kind, id.Name, b.comp.Op.Name, b.hint(id.Name))
			}
		}
	}
}

// unknownBodyEnd returns the explanation for an unknown name that a
// comprehension's body end left unbound, and marks it reported, or "".
func (c *checker) unknownBodyEnd(id *ast.Ident) string {
	b, ok := c.bodyEnds[id.NamePos]
	if !ok {
		return ""
	}
	c.bodyEndErrs[id.NamePos] = true
	return b.hint(id.Name)
}
