package lang

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/limits"
)

// scan is what the pre-scan of a source learns before participle runs:
// a limit the source exceeds (participle is recursive, so deep nesting
// must be refused before it runs), and the innermost bracket left open or
// closed by the wrong bracket (which makes a better message than
// participle's when the parse fails).
type scan struct {
	limit   *diag.Diagnostic
	bracket *diag.Diagnostic
}

// level is one open bracket of the pre-scan: chain counts the unary
// operators, powers and "not"s that nest inside it since the last binary
// operator or separator.
type level struct {
	open  lexer.Token
	chain int
}

// prefixAfter are the tokens after which + and - are unary.
var prefixAfter = map[string]bool{"(": true, "[": true, ",": true, "=": true, ":": true, "..": true,
	"+": true, "-": true, "*": true, "/": true, "^": true, "<": true, "<=": true, ">": true, ">=": true,
	"==": true, "!=": true, "minimize": true, "maximize": true, "in": true, "where": true, "and": true,
	"or": true, "not": true}

// resets end a chain of nested unary operators at the current level, as
// does every keyword but "not" (resetsChain).
var resets = map[string]bool{",": true, "=": true, ":": true, "..": true, "*": true, "/": true,
	"<": true, "<=": true, ">": true, ">=": true, "==": true, "!=": true}

// resetsChain reports whether token v ends a chain of nested unary
// operators.
func resetsChain(v string) bool { return resets[v] || IsKeyword(v) && v != "not" }

// prescan checks src against the size limits of package limits before it
// is parsed: its length, its line lengths, its number of tokens and its
// nesting depth. It never recurses, so it is safe on any input.
func prescan(name string, src []byte) scan {
	var s scan
	at := func(line, col, off int) ast.Pos {
		return ast.Pos{Filename: name, Offset: off, Line: line, Column: col}
	}
	if len(src) > limits.MaxSourceBytes {
		s.limit = &diag.Diagnostic{Pos: at(1, 1, 0), Msg: fmt.Sprintf("the model is %d bytes; the most qrc reads is %d (limits.MaxSourceBytes)", len(src), limits.MaxSourceBytes)}
		return s
	}
	line, start := 1, 0
	for i := 0; i <= len(src); i++ {
		if i == len(src) || src[i] == '\n' {
			if i-start > limits.MaxLineBytes {
				s.limit = &diag.Diagnostic{Pos: at(line, limits.MaxLineBytes+1, start+limits.MaxLineBytes),
					Msg: fmt.Sprintf("line %d is %d bytes long; the longest line qrc reads is %d bytes (limits.MaxLineBytes)", line, i-start, limits.MaxLineBytes)}
				return s
			}
			line, start = line+1, i+1
		}
	}
	lx, err := qrcLexer.LexString(name, string(src))
	if err != nil {
		return s
	}
	symbols := lexer.SymbolsByRune(qrcLexer)
	var stack []level
	top := level{}
	depth, tokens := 0, 0
	prev := ""
	numEnd, numPos, numVal := -1, ast.Pos{}, "" // the number just before, if the last token was one
	for {
		tok, err := lx.Next()
		if err != nil {
			// a lexical error (an unterminated string, a stray
			// character) has a message of its own
			s.bracket = nil
			return s
		}
		if tok.EOF() {
			break
		}
		switch symbols[tok.Type] {
		case "Comment", "Whitespace":
			continue
		}
		tokens++
		p := tok.Pos
		here := at(p.Line, p.Column, p.Offset)
		if tokens > limits.MaxTokens {
			s.limit = &diag.Diagnostic{Pos: here, Msg: fmt.Sprintf("the model has more than %d tokens (limits.MaxTokens); put large constants in a data file", limits.MaxTokens)}
			return s
		}
		v := tok.Value
		if symbols[tok.Type] == "String" {
			if _, err := strconv.Unquote(v); err != nil {
				s.limit = &diag.Diagnostic{Pos: here, End: at(p.Line, p.Column+len(v), p.Offset+len(v)),
					Msg: "unknown escape in string " + v + " (strings take Go's escapes: \\\\ \\\" \\n \\t \\uXXXX)"}
				return s
			}
		}
		if symbols[tok.Type] == "Ident" && numEnd >= 0 && p.Offset == numEnd && strings.HasPrefix(v, "_") && strings.Trim(v, "_0123456789") == "" {
			// 1_000 lexes as 1 and a name _000, which the parser reports
			// at the token after it (on the next line at a line's end)
			s.limit = &diag.Diagnostic{Pos: numPos, End: at(p.Line, p.Column+len(v), p.Offset+len(v)),
				Msg: fmt.Sprintf("numbers take no digit separators: write %s, not %s%s", numVal+strings.ReplaceAll(v, "_", ""), numVal, v)}
			return s
		}
		numEnd = -1
		if symbols[tok.Type] == "Number" {
			numEnd, numPos, numVal = p.Offset+len(v), here, v
		}
		if symbols[tok.Type] == "String" || symbols[tok.Type] == "Number" {
			v = "x"
		}
		switch {
		case v == "(" || v == "[":
			stack = append(stack, top)
			top = level{open: tok}
			depth++
		case v == ")" || v == "]":
			if len(stack) == 0 {
				if s.bracket == nil {
					s.bracket = &diag.Diagnostic{Pos: here, End: at(p.Line, p.Column+1, p.Offset+1), Msg: fmt.Sprintf("syntax error: %q closes no bracket", v)}
				}
				break
			}
			if want := map[string]string{"(": ")", "[": "]"}[top.open.Value]; v != want && s.bracket == nil {
				o := top.open.Pos
				s.bracket = &diag.Diagnostic{Pos: here, End: at(p.Line, p.Column+1, p.Offset+1),
					Msg: fmt.Sprintf("syntax error: %q does not match the %q opened at %d:%d (expected %q)", v, top.open.Value, o.Line, o.Column, want)}
			}
			depth -= 1 + top.chain
			top = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		case (v == "-" || v == "+") && (prev == "" || prefixAfter[prev]), v == "^", v == "not":
			top.chain++
			depth++
		case resetsChain(v) || v == "+" || v == "-":
			depth -= top.chain
			top.chain = 0
		}
		if depth > limits.MaxDepth {
			s.limit = &diag.Diagnostic{Pos: here, Msg: fmt.Sprintf("the expression is nested more than %d levels deep (parentheses, brackets, unary operators and powers; limits.MaxDepth)", limits.MaxDepth)}
			return s
		}
		prev = tok.Value
	}
	if len(stack) > 0 && s.bracket == nil {
		o := top.open.Pos
		close := map[string]string{"(": ")", "[": "]"}[top.open.Value]
		s.bracket = &diag.Diagnostic{Pos: at(o.Line, o.Column, o.Offset), End: at(o.Line, o.Column+1, o.Offset+1),
			Msg: fmt.Sprintf("syntax error: %q is never closed (no matching %q)", top.open.Value, close)}
	}
	return s
}
