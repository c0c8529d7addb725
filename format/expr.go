package format

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/qrc-lang/qrc/ast"
)

// Precedence levels, loosest first. They mirror the grammar in lang/grammar.go:
// conditions are or < and < not < comparison, and an arithmetic expression is
// additive < multiplicative < unary < power < postfix/primary.
const (
	precNone    = 0 // anything goes (inside parentheses); also a Range
	precOr      = 1
	precAnd     = 2
	precNot     = 3
	precCmp     = 4
	precAdd     = 5 // a gExpr: what call arguments, indices, declarations hold
	precMul     = 6 // a gTerm: what a comprehension's body is
	precUnary   = 7
	precPow     = 8
	precPostfix = 9 // postfix and primary expressions
)

// prec returns the precedence level of e as printed without parentheses.
func prec(e ast.Expr) int {
	switch e := e.(type) {
	case *ast.Binary:
		switch e.Op {
		case "or":
			return precOr
		case "and":
			return precAnd
		case "+", "-":
			return precAdd
		case "*", "/":
			return precMul
		case "^":
			return precPow
		}
		return precCmp
	case *ast.Unary:
		if e.Op == "not" {
			return precNot
		}
		return precUnary
	case *ast.Range:
		return precNone
	}
	return precPostfix
}

// How far the text of an expression, printed without parentheses around
// it, reaches to the right (see openness): what it would swallow of what
// follows.
const (
	openNone = 0 // nothing
	openMul  = 1 // it ends with a comprehension body: "*", "/", "^", "[" and "."
	openAll  = 2 // it ends with an if's else branch: "+" and "-" too
)

// operands returns what the grammar allows as the operands of the binary
// operator op: the least precedence of the left operand, how open it may
// be (see openness), and the least precedence of the right operand.
func operands(op string) (minX int, openX int, minY int) {
	switch op {
	case "or":
		return precOr, openAll, precAnd
	case "and":
		return precAnd, openAll, precNot
	case "+", "-":
		return precAdd, openMul, precMul
	case "*", "/":
		return precMul, openNone, precUnary
	case "^":
		// The base of a power is a postfix expression, the exponent a unary
		// one: -x^2 is -(x^2), x^-1 is allowed, x^y^z is x^(y^z).
		return precPostfix, openNone, precUnary
	}
	return precAdd, openAll, precAdd // comparisons are not associative
}

// unaryOperand returns the least precedence of the operand of op.
func unaryOperand(op string) int {
	if op == "not" {
		return precNot
	}
	return precUnary
}

// openness says how far the text of e, printed without parentheses around
// it, reaches to the right. The body of a comprehension is a product of
// factors that extends as far as it can, so a text ending with one
// followed by "*", "/", "^", "[" or "." would swallow what follows
// (openMul); the else branch of an if is a whole sum, which swallows "+"
// and "-" too (openAll). The left operand of a binary operator and the
// operand of an index or member may be only as open as operands allows.
func openness(e ast.Expr) int {
	switch e := e.(type) {
	case *ast.If:
		return openAll
	case *ast.Comprehension:
		if e.Body != nil && prec(e.Body) >= precMul {
			return max(openMul, openness(e.Body))
		}
		return openMul
	case *ast.Binary:
		_, _, minY := operands(e.Op)
		if e.Y != nil && prec(e.Y) >= minY {
			return openness(e.Y)
		}
	case *ast.Unary:
		if e.X != nil && prec(e.X) >= unaryOperand(e.Op) {
			return openness(e.X)
		}
	case *ast.Range:
		if e.Hi != nil && prec(e.Hi) >= precAdd {
			return openness(e.Hi)
		}
	}
	return openNone
}

// needParens reports whether e must be parenthesised where the grammar wants
// an expression of precedence at least min whose text is at most open.
func needParens(e ast.Expr, min int, open int) bool {
	return prec(e) < min || openness(e) > open
}

// Expr returns the canonical one-line text of an expression (used in
// summaries and the REPL). Parentheses written by the user (ast.Paren) are
// kept; parentheses that a tree built by hand needs to keep its structure
// under the grammar's precedence rules are inserted. A nil expression is "".
func Expr(e ast.Expr) string {
	var sb strings.Builder
	writeExpr(&sb, e, precNone, openAll)
	return sb.String()
}

// exprText returns the text of e in a context that wants precedence min and
// a text at most open (see openness).
func exprText(e ast.Expr, min int, open int) string {
	var sb strings.Builder
	writeExpr(&sb, e, min, open)
	return sb.String()
}

func writeExpr(sb *strings.Builder, e ast.Expr, min int, open int) {
	if e == nil {
		return
	}
	if needParens(e, min, open) {
		sb.WriteByte('(')
		writeExpr(sb, e, precNone, openAll)
		sb.WriteByte(')')
		return
	}
	switch e := e.(type) {
	case *ast.Ident:
		sb.WriteString(identName(e))
	case *ast.Number:
		sb.WriteString(numberLit(e))
	case *ast.String:
		sb.WriteString(stringLit(e))
	case *ast.Vector:
		sb.WriteByte('[')
		writeList(sb, e.Elems)
		sb.WriteByte(']')
	case *ast.Paren:
		sb.WriteByte('(')
		writeExpr(sb, e.X, precNone, openAll)
		sb.WriteByte(')')
	case *ast.Unary:
		sb.WriteString(unaryOp(e.Op))
		writeExpr(sb, e.X, unaryOperand(e.Op), openAll)
	case *ast.Binary:
		minX, openX, minY := operands(e.Op)
		writeExpr(sb, e.X, minX, openX)
		sb.WriteString(binaryOp(e.Op))
		writeExpr(sb, e.Y, minY, openAll)
	case *ast.Call:
		sb.WriteString(identName(e.Fun))
		sb.WriteByte('(')
		for i, a := range e.Args {
			if i > 0 {
				sb.WriteString(", ")
			}
			if a == nil {
				continue
			}
			if a.Name != nil {
				sb.WriteString(a.Name.Name)
				sb.WriteString(" = ")
			}
			writeExpr(sb, a.Value, precAdd, openAll)
		}
		sb.WriteByte(')')
	case *ast.Index:
		writeExpr(sb, e.X, precPostfix, openNone)
		sb.WriteByte('[')
		writeList(sb, e.Indices)
		sb.WriteByte(']')
	case *ast.Member:
		writeExpr(sb, e.X, precPostfix, openNone)
		sb.WriteByte('.')
		sb.WriteString(identName(e.Name))
	case *ast.Range:
		writeRange(sb, e)
	case *ast.Comprehension:
		sb.WriteString(comprHeader(e))
		sb.WriteByte(' ')
		writeExpr(sb, e.Body, precMul, openAll)
	case *ast.If:
		sb.WriteString("if ")
		writeExpr(sb, e.Cond, precOr, openAll)
		sb.WriteString(" then ")
		writeExpr(sb, e.Then, precAdd, openAll)
		sb.WriteString(" else ")
		writeExpr(sb, e.Else, precAdd, openAll)
	default:
		fmt.Fprintf(sb, "<bad %T>", e)
	}
}

// writeList writes expressions separated by ", ".
func writeList(sb *strings.Builder, list []ast.Expr) {
	for i, x := range list {
		if i > 0 {
			sb.WriteString(", ")
		}
		writeExpr(sb, x, precAdd, openAll)
	}
}

// writeRange writes "lo..hi"; both ends are ordinary expressions.
func writeRange(sb *strings.Builder, r *ast.Range) {
	writeExpr(sb, r.Lo, precAdd, openAll)
	sb.WriteString("..")
	writeExpr(sb, r.Hi, precAdd, openAll)
}

// binders returns "i in S, j in 1..n".
func binders(list []*ast.Binder) string {
	var sb strings.Builder
	for i, b := range list {
		if i > 0 {
			sb.WriteString(", ")
		}
		if b == nil {
			continue
		}
		sb.WriteString(identName(b.Name))
		sb.WriteString(" in ")
		if r, ok := b.Set.(*ast.Range); ok {
			writeRange(&sb, r)
		} else {
			writeExpr(&sb, b.Set, precAdd, openAll)
		}
	}
	return sb.String()
}

// comprHeader returns "op(binders where cond)".
func comprHeader(c *ast.Comprehension) string {
	var sb strings.Builder
	sb.WriteString(identName(c.Op))
	sb.WriteByte('(')
	sb.WriteString(binders(c.Binders))
	if c.Where != nil {
		sb.WriteString(" where ")
		writeExpr(&sb, c.Where, precOr, openAll)
	}
	sb.WriteByte(')')
	return sb.String()
}

// binaryOp returns op with its surrounding spaces: none around "^".
func binaryOp(op string) string {
	if op == "^" {
		return op
	}
	return " " + op + " "
}

// unaryOp returns op as it precedes its operand: "-" and "+" attached, "not "
// followed by a space.
func unaryOp(op string) string {
	if op == "not" {
		return "not "
	}
	return op
}

func identName(id *ast.Ident) string {
	if id == nil {
		return ""
	}
	return id.Name
}

// numberLit returns the literal as written, or for a number built without
// one, the shortest text of its value.
func numberLit(n *ast.Number) string {
	if n.Lit != "" {
		return n.Lit
	}
	return strconv.FormatFloat(n.Value, 'g', -1, 64)
}

// stringLit returns the literal as written, or for a string built without
// one, its value quoted.
func stringLit(s *ast.String) string {
	if s.Lit != "" {
		return s.Lit
	}
	return strconv.Quote(s.Value)
}
