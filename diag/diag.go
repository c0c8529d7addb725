// Package diag holds qrc's diagnostics: messages about a model that point at
// a position in its source, and their rendering with the source line and a
// caret under the spot.
package diag

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/qrc-lang/qrc/ast"
)

// Severity says whether a diagnostic makes a model invalid.
type Severity int

// The severities.
const (
	Error   Severity = iota // the model is invalid
	Warning                 // the model is valid but probably not what was meant
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one message about a model.
type Diagnostic struct {
	Severity Severity
	Pos      ast.Pos // where the problem is
	End      ast.Pos // end of the offending text; may be zero (one caret)
	Msg      string
}

// Error formats d as "file:line:col: msg" ("warning: " is inserted before
// the message of a warning).
func (d *Diagnostic) Error() string {
	if d.Severity == Warning {
		return fmt.Sprintf("%s: warning: %s", Clean(d.Pos.String()), Clean(d.Msg))
	}
	return fmt.Sprintf("%s: %s", Clean(d.Pos.String()), Clean(d.Msg))
}

// List is a list of diagnostics; it implements error.
type List []*Diagnostic

// Add appends an error at the span of node n.
func (l *List) Add(n ast.Node, format string, args ...any) {
	*l = append(*l, &Diagnostic{Severity: Error, Pos: n.Pos(), End: n.End(), Msg: fmt.Sprintf(format, args...)})
}

// AddAt appends an error at pos.
func (l *List) AddAt(pos ast.Pos, format string, args ...any) {
	*l = append(*l, &Diagnostic{Severity: Error, Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// HasErrors reports whether any diagnostic in l is an error.
func (l List) HasErrors() bool {
	for _, d := range l {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns the diagnostics of severity Error.
func (l List) Errors() List { return l.filter(Error) }

// Warnings returns the diagnostics of severity Warning.
func (l List) Warnings() List { return l.filter(Warning) }

func (l List) filter(s Severity) List {
	var out List
	for _, d := range l {
		if d.Severity == s {
			out = append(out, d)
		}
	}
	return out
}

// Sort orders l by file and position, keeping the order of diagnostics at
// the same position.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// Error joins the messages of l, one per line.
func (l List) Error() string {
	msgs := make([]string, len(l))
	for i, d := range l {
		msgs[i] = d.Error()
	}
	return strings.Join(msgs, "\n")
}

// Err returns l as an error when it holds at least one error, else nil.
func (l List) Err() error {
	if l.HasErrors() {
		return l
	}
	return nil
}

// Print writes every diagnostic of l to w, each followed by its source line
// and a caret; sources maps a file name to its text (a missing file prints
// the message alone).
func (l List) Print(w io.Writer, sources map[string][]byte) {
	for _, d := range l {
		Render(w, d, sources[d.Pos.Filename])
	}
}

// Render writes d to w as
//
//	file:line:col: message
//	    source line
//	    ^^^^
//
// with one caret under each byte of the offending text on that line (at
// least one). When src is nil or the position is unknown only the first line
// is written. Tabs in the source line are kept so the caret lines up.
func Render(w io.Writer, d *Diagnostic, src []byte) {
	fmt.Fprintln(w, d.Error())
	line, ok := sourceLine(src, d.Pos.Line)
	if !ok {
		return
	}
	line = strings.TrimRight(line, "\r")
	// columns count characters (the parser's) and offsets bytes: work in
	// bytes of the line from here on
	lineStart := lineOffset(src, d.Pos.Line)
	col := byteColumn(line, lineStart, d.Pos)
	endCol := 0 // the end's byte column on this line, if it is on it
	if d.End.IsValid() && d.End.Line == d.Pos.Line {
		endCol = byteColumn(line, lineStart, d.End)
	}
	// a very long line is shown as a window around the column
	trimmed := 0
	if len(line) > maxShown {
		start := max(0, col-1-maxShown/2)
		for start > 0 && start < len(line) && !utf8.RuneStart(line[start]) {
			start--
		}
		end := min(len(line), start+maxShown)
		for end < len(line) && !utf8.RuneStart(line[end]) {
			end--
		}
		pre, post := "", ""
		if start > 0 {
			pre = "..."
		}
		if end < len(line) {
			post = "..."
		}
		trimmed = len(line) - (end - start)
		line = pre + line[start:end] + post
		col = col - start + len(pre)
		if endCol > 0 {
			endCol = endCol - start + len(pre)
		}
	}
	width := 1
	if endCol > col {
		width = endCol - col
	} else if d.End.IsValid() && d.End.Line > d.Pos.Line {
		width = len(line) + 1 - col
	}
	if col-1+width > len(line) && len(line) >= col {
		width = len(line) - col + 1
	}
	if width < 1 {
		width = 1
	}
	if trimmed > 0 {
		width = min(width, max(1, len(line)-col+1))
	}
	// the line as shown (control characters escaped, so that a model
	// cannot drive the terminal), the caret under the span's display
	// columns (wide characters take two, combining marks none)
	var shown, pad strings.Builder
	carets := 0
	for i, r := range line {
		text := display(r)
		shown.WriteString(text)
		switch {
		case i < col-1 && r == '\t':
			pad.WriteByte('\t')
		case i < col-1:
			pad.WriteString(strings.Repeat(" ", textWidth(text)))
		case i < col-1+width:
			carets += textWidth(text)
		}
	}
	fmt.Fprintf(w, "    %s\n    %s%s\n", shown.String(), pad.String(), strings.Repeat("^", max(1, carets)))
}

// display is how rune r of a source line is shown: itself, or escaped
// (\x1b, \u009b) when it is a control character other than a tab.
func display(r rune) string {
	if r == '\t' || !unicode.IsControl(r) && r != utf8.RuneError && !unicode.Is(unicode.Bidi_Control, r) {
		return string(r)
	}
	if r < 0x80 {
		return fmt.Sprintf("\\x%02x", r)
	}
	return fmt.Sprintf("\\u%04x", r)
}

// textWidth is the number of terminal columns text takes.
func textWidth(text string) int {
	n := 0
	for _, r := range text {
		n += runeWidth(r)
	}
	return n
}

// runeWidth is the number of terminal columns r takes: 0 for combining
// marks and format characters, 2 for East Asian wide and fullwidth
// characters and emoji, else 1 (Markus Kuhn's wcwidth, in short).
func runeWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r >= 0x1100 && (r <= 0x115f || r == 0x2329 || r == 0x232a ||
		r >= 0x2e80 && r <= 0xa4cf && r != 0x303f || r >= 0xac00 && r <= 0xd7a3 ||
		r >= 0xf900 && r <= 0xfaff || r >= 0xfe30 && r <= 0xfe6f || r >= 0xff00 && r <= 0xff60 ||
		r >= 0xffe0 && r <= 0xffe6 || r >= 0x1f300 && r <= 0x1f64f || r >= 0x1f900 && r <= 0x1f9ff ||
		r >= 0x20000 && r <= 0x3fffd):
		return 2
	}
	return 1
}

// Clean makes a message safe and short to print: control characters other
// than newlines and tabs escaped, and every run of more than 80 bytes
// without a space (a 1 MB name in quotes) cut to its first 60 bytes and
// its last few, with its length.
func Clean(msg string) string {
	var b strings.Builder
	for _, r := range msg {
		if r == '\n' {
			b.WriteRune(r)
		} else {
			b.WriteString(display(r))
		}
	}
	msg = b.String()
	if len(msg) <= 80 {
		return msg
	}
	b.Reset()
	for i := 0; i < len(msg); {
		j := i
		for j < len(msg) && msg[j] != ' ' && msg[j] != '\n' {
			j++
		}
		tok := msg[i:j]
		if len(tok) > 80 {
			head, tail := 60, len(tok)-3
			for head > 0 && !utf8.RuneStart(tok[head]) {
				head--
			}
			for tail < len(tok) && !utf8.RuneStart(tok[tail]) {
				tail++
			}
			tok = fmt.Sprintf("%s...(%d bytes)...%s", tok[:head], len(tok), tok[tail:])
		}
		b.WriteString(tok)
		if j < len(msg) {
			b.WriteByte(msg[j])
		}
		i = j + 1
	}
	return b.String()
}

// lineOffset is the byte offset in src where line n (1-based) starts.
func lineOffset(src []byte, n int) int {
	off := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src[off:], '\n')
		if j < 0 {
			return off
		}
		off += j + 1
	}
	return off
}

// byteColumn is p's 1-based byte column in line, which starts at byte
// lineStart of the source: from p's byte offset when it lies on the line,
// else from its column counted in characters; within 1..len(line)+1.
func byteColumn(line string, lineStart int, p ast.Pos) int {
	col := 0
	switch {
	case (p.Offset > 0 || lineStart == 0 && p.Column == 1) && p.Offset >= lineStart && p.Offset <= lineStart+len(line):
		col = p.Offset - lineStart + 1
	default:
		col = 1
		for n := 1; n < p.Column && col <= len(line); n++ {
			_, size := utf8.DecodeRuneInString(line[col-1:])
			col += size
		}
	}
	return max(1, min(col, len(line)+1))
}

// maxShown is the most bytes of a source line Render shows.
const maxShown = 160

// sourceLine returns line n (1-based) of src.
func sourceLine(src []byte, n int) (string, bool) {
	if src == nil || n < 1 {
		return "", false
	}
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return "", false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return string(src), true
}
