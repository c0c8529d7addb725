// Package diagtest checks diagnostics against expectations written in a
// model's text, on the line they are about (go/parser's error_test.go and
// starlark's resolve/testdata show the shape):
//
//	param a = b       # ERROR "unknown name \"b\""
//	var x in ball(-1) # ERROR @15 `radius .* negative`
//	var y in box(0, 1) # WARNING "not used"
//
// An expectation is ERROR or WARNING, an optional @COLUMN, and a regular
// expression in double quotes (Go escapes) or backquotes. A line may carry
// several. Each diagnostic in the file must match an expectation of its
// severity on its line (and column, when given), and each expectation must
// be matched by one diagnostic.
package diagtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/diag"
)

// Expectation is one ERROR or WARNING comment.
type Expectation struct {
	Severity diag.Severity
	Line     int
	Column   int // 0: any column on the line
	Rx       *regexp.Regexp
}

func (e Expectation) String() string {
	at := strconv.Itoa(e.Line)
	if e.Column > 0 {
		at += ":" + strconv.Itoa(e.Column)
	}
	return fmt.Sprintf("%s: %s %q", at, strings.ToUpper(e.Severity.String()), e.Rx)
}

// marker finds the start of a line's expectations.
var marker = regexp.MustCompile(`#\s*(ERROR|WARNING)\b`)

// one matches one expectation at the start of a string.
var one = regexp.MustCompile("^\\s*#?\\s*(ERROR|WARNING)(?:\\s+@([1-9][0-9]*))?\\s+(\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`)")

// Parse reads the expectations in src.
func Parse(src []byte) ([]Expectation, error) {
	var out []Expectation
	for i, line := range strings.Split(string(src), "\n") {
		loc := marker.FindStringIndex(line)
		if loc == nil {
			continue
		}
		rest := line[loc[0]:]
		for strings.TrimSpace(rest) != "" {
			m := one.FindStringSubmatch(rest)
			if m == nil {
				return nil, fmt.Errorf("line %d: malformed expectation %q (want ERROR [@COL] \"regexp\")", i+1, strings.TrimSpace(rest))
			}
			e := Expectation{Severity: diag.Error, Line: i + 1}
			if m[1] == "WARNING" {
				e.Severity = diag.Warning
			}
			if m[2] != "" {
				e.Column, _ = strconv.Atoi(m[2])
			}
			text, err := strconv.Unquote(m[3])
			if err != nil {
				return nil, fmt.Errorf("line %d: %s: %v", i+1, m[3], err)
			}
			if e.Rx, err = regexp.Compile(text); err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			out = append(out, e)
			rest = rest[len(m[0]):]
		}
	}
	return out, nil
}

// Match reports, through t, each diagnostic of diags that no expectation in
// src (the text of filename) accounts for, and each expectation that no
// diagnostic matched. It returns the expectations.
func Match(t testing.TB, filename string, src []byte, diags diag.List) []Expectation {
	t.Helper()
	want, err := Parse(src)
	if err != nil {
		t.Fatalf("%s: %v", filename, err)
	}
	for _, msg := range Mismatches(filename, want, diags) {
		t.Error(msg)
	}
	return want
}

// Mismatches are the messages Match reports, one per unexpected diagnostic
// or unmatched expectation.
func Mismatches(filename string, want []Expectation, diags diag.List) []string {
	used := make([]bool, len(want))
	var out []string
	for _, d := range diags {
		k := -1
		for i, e := range want {
			if !used[i] && d.Pos.Filename == filename && e.Severity == d.Severity && e.Line == d.Pos.Line &&
				(e.Column == 0 || e.Column == d.Pos.Column) && e.Rx.MatchString(d.Msg) {
				k = i
				break
			}
		}
		if k < 0 {
			out = append(out, "unexpected "+d.Error())
			continue
		}
		used[k] = true
	}
	for i, e := range want {
		if !used[i] {
			out = append(out, fmt.Sprintf("%s:%s: no diagnostic matched", filename, e))
		}
	}
	return out
}
