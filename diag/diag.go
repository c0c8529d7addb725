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
		return fmt.Sprintf("%s: warning: %s", d.Pos, d.Msg)
	}
	return fmt.Sprintf("%s: %s", d.Pos, d.Msg)
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
	col := d.Pos.Column
	if col < 1 {
		col = 1
	}
	if col > len(line)+1 {
		col = len(line) + 1
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
	}
	width := 1
	if d.End.IsValid() && d.End.Line == d.Pos.Line && d.End.Column > d.Pos.Column {
		width = d.End.Column - d.Pos.Column
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
	var pad strings.Builder
	for _, c := range []byte(line[:col-1]) {
		if c == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
	}
	fmt.Fprintf(w, "    %s\n    %s%s\n", line, pad.String(), strings.Repeat("^", width))
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
