package repl

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qrc-lang/qrc/lang"
)

// Input gathers typed lines into statements. A statement is one line unless
//
//   - a bracket ( or [ is still open at the end of the line,
//   - the line ends with an operator or a word that needs something after
//     it (+ - * / ^ = == != < <= > >= , .. . : and in where and or not
//     subject to),
//   - NeedsMore says the text so far is an unfinished declaration (the
//     parser ran out of input), or
//   - it holds "subject to": the block goes on until a blank line, a
//     command (a line starting with ':') or a line that starts another
//     kind of declaration.
//
// A blank line ends any statement in progress (so a typo never traps the
// user in continuation lines). Commands (lines starting with ':') are always
// one line. Comment-only and blank lines outside a statement are skipped.
type Input struct {
	// NeedsMore, when not nil, reports whether the complete-looking text
	// of a statement is unfinished and should continue on the next line.
	NeedsMore func(text string) bool

	lines []string
	first int // the input line number of lines[0]
	block bool
}

// Statement is a complete statement: its text and the input line number
// (from 1) of its first line.
type Statement struct {
	Text string
	Line int
	File string // for declarations read from a file (:load): its name
}

// Pending reports whether a statement is in progress (the prompt shows
// continuation).
func (in *Input) Pending() bool { return len(in.lines) > 0 }

// Reset drops the statement in progress (Ctrl-C at the prompt).
func (in *Input) Reset() {
	in.lines, in.block = nil, false
}

// Add adds input line number n and returns the statements it completes
// (none while a statement continues; two when a line ends a subject to
// block and is a statement of its own).
func (in *Input) Add(line string, n int) []Statement {
	line = strings.TrimRight(line, "\r")
	blank := isBlank(line)
	if !in.Pending() {
		if blank {
			return nil
		}
		if isCommand(line) {
			return []Statement{{Text: line, Line: n}}
		}
		return in.start(line, n)
	}
	if in.block {
		if blank {
			return in.flush()
		}
		if isCommand(line) || startsDecl(line) {
			out := in.flush()
			return append(out, in.Add(line, n)...)
		}
		in.lines = append(in.lines, line)
		return nil
	}
	if blank {
		return in.flush()
	}
	in.lines = append(in.lines, line)
	return in.check()
}

// Flush returns the statement in progress, if any (at the end of input).
func (in *Input) Flush() []Statement {
	if !in.Pending() {
		return nil
	}
	return in.flush()
}

func (in *Input) start(line string, n int) []Statement {
	in.lines, in.first = []string{line}, n
	return in.check()
}

// check decides whether the lines so far make a statement.
func (in *Input) check() []Statement {
	text := strings.Join(in.lines, "\n")
	sc := scan(text)
	if sc.subjectTo {
		in.block = true
		return nil
	}
	if sc.depth > 0 || sc.trailing {
		return nil
	}
	if in.NeedsMore != nil && in.NeedsMore(text) {
		return nil
	}
	return in.flush()
}

func (in *Input) flush() []Statement {
	text := strings.Join(in.lines, "\n")
	st := Statement{Text: text, Line: in.first}
	in.Reset()
	if isBlank(text) {
		return nil
	}
	return []Statement{st}
}

func isCommand(line string) bool { return strings.HasPrefix(strings.TrimSpace(line), ":") }

// isBlank reports whether line holds nothing but white space and comments.
func isBlank(line string) bool {
	for _, l := range strings.Split(line, "\n") {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// startsDecl reports whether line starts a declaration that cannot be a
// constraint: it ends a subject to block.
func startsDecl(line string) bool {
	w := firstWords(line, 2)
	if len(w) == 0 {
		return false
	}
	switch {
	case lang.IsDeclKeyword(w[0]) || w[0] == "subject":
		return true
	case w[0] == "let" || w[0] == "drop": // unless it is a constraint named let or drop
		return len(w) > 1 && isIdentStart(w[1])
	}
	return false
}

// firstWords returns up to n leading tokens of line (words, or single
// punctuation characters).
func firstWords(line string, n int) []string {
	var out []string
	s := strings.TrimSpace(line)
	for len(out) < n && s != "" {
		r, size := utf8.DecodeRuneInString(s)
		if isIdentRune(r) {
			end := size
			for end < len(s) {
				r2, sz := utf8.DecodeRuneInString(s[end:])
				if !isIdentRune(r2) {
					break
				}
				end += sz
			}
			out = append(out, s[:end])
			s = strings.TrimSpace(s[end:])
			continue
		}
		out = append(out, s[:size])
		s = strings.TrimSpace(s[size:])
	}
	return out
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func isIdentStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

// scanned is what scan finds in a statement's text.
type scanned struct {
	depth     int  // open brackets at the end
	trailing  bool // the last token asks for more
	subjectTo bool // the text holds the words "subject to"
}

// continuing are the operators after which a statement goes on, as it
// does after every keyword (lang.IsKeyword).
var continuing = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "^": true, "=": true, "==": true, "!=": true,
	"<": true, "<=": true, ">": true, ">=": true, ",": true, "..": true, ".": true, ":": true,
}

// scan tokenizes text roughly — enough to count brackets outside strings and
// comments and to find the last token.
func scan(text string) scanned {
	var sc scanned
	last, prev := "", ""
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		case c == '"':
			j := i + 1
			for j < len(text) && text[j] != '"' && text[j] != '\n' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			i = min(j+1, len(text))
			prev, last = last, "string"
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '(' || c == '[':
			sc.depth++
		case c == ')' || c == ']':
			sc.depth--
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		tok := text[i : i+size]
		switch {
		case isIdentRune(r) || c == '.' && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9':
			j := i + size
			for j < len(text) {
				r2, sz := utf8.DecodeRuneInString(text[j:])
				if !isIdentRune(r2) && r2 != '.' || r2 == '.' && j+1 < len(text) && text[j+1] == '.' {
					break
				}
				if r2 == '.' && !unicode.IsDigit(r) { // train.X: the member is a token of its own
					break
				}
				j += sz
			}
			tok = text[i:j]
		case strings.HasPrefix(text[i:], ".."), strings.HasPrefix(text[i:], "=="), strings.HasPrefix(text[i:], "!="),
			strings.HasPrefix(text[i:], "<="), strings.HasPrefix(text[i:], ">="):
			tok = text[i : i+2]
		}
		i += len(tok)
		prev, last = last, tok
		if prev == "subject" && last == "to" {
			sc.subjectTo = true
		}
	}
	sc.trailing = continuing[last] || lang.IsKeyword(last)
	return sc
}
