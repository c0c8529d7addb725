// Package point reads and writes a point — a value for every decision
// variable of a checked model — as JSON.
//
// A point file is a JSON object whose field "variables" maps each variable's
// name to its value: a number for a scalar variable, an array of numbers for
// a vector, and an array of rows (arrays of numbers) for a matrix:
//
//	{
//	  "variables": {
//	    "t": 1.5,
//	    "x": [0.5, -0.25, 0],
//	    "W": [[0, 0.1], [0.2, 0.3]]
//	  }
//	}
//
// Other top-level fields are ignored, so a solver's result file, which holds
// "variables" next to its report, is a point file. Every variable of the model
// must be present with its exact shape, once; names the model does not
// declare, a name given twice and a number beyond float64's range (1e400)
// are errors. A UTF-8 byte order mark at the start is skipped.
//
// In memory a point is the flat vector x of all decision variables: variable
// v occupies x[v.Offset : v.Offset+v.Size], row-major (check.Var).
package point

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/fileio"
)

// Start returns the model's starting point: each variable's Start (already
// projected onto its domain) at its offset.
func Start(m *check.Model) []float64 {
	x := make([]float64, m.NumScalars)
	for _, v := range m.Vars {
		copy(v.Of(x), v.Start)
	}
	return x
}

// ReadStart reads the point file at path as a starting point: Read, then
// each variable projected onto its domain, as the model's own start is.
func ReadStart(path string, m *check.Model) ([]float64, error) {
	x, err := Read(path, m)
	if err != nil {
		return nil, err
	}
	for _, v := range m.Vars {
		v.Domain.Project(v.Of(x))
	}
	return x, nil
}

// Error is what is wrong with a point file: every problem found, each
// reported as "FILE: problem" on its own line.
type Error struct {
	File     string   // the file as named by the caller
	Problems []string // one message per problem, in a stable order
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = e.File + ": " + p
	}
	return strings.Join(lines, "\n")
}

// Read reads the point file at path and returns the flat vector of m's
// decision variables (length m.NumScalars). A file that cannot be read or
// parsed, or whose "variables" do not match m's variables by name and shape,
// gives an *Error naming the file and each problem.
func Read(path string, m *check.Model) ([]float64, error) {
	// a regular file of at most about 64 bytes per value (and 1 MiB)
	src, err := fileio.ReadFile(path, max(1<<20, 64*int64(m.NumScalars)))
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &Error{File: path, Problems: []string{"cannot read point: " + err.Error()}}
	}
	return Parse(path, src, m)
}

// Parse is Read for the file contents src; name is used in messages.
func Parse(name string, src []byte, m *check.Model) ([]float64, error) {
	fail := func(format string, args ...any) error {
		return &Error{File: name, Problems: []string{fmt.Sprintf(format, args...)}}
	}
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark, as editors on Windows write
	var top map[string]json.RawMessage
	if err := json.Unmarshal(src, &top); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(src, se.Offset)
			return nil, &Error{File: fmt.Sprintf("%s:%d:%d", name, line, col), Problems: []string{"invalid JSON: " + se.Error()}}
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fail("want a JSON object with a \"variables\" field, got %s", te.Value)
		}
		return nil, fail("invalid JSON: %v", err)
	}
	if top == nil {
		return nil, fail("want a JSON object with a \"variables\" field, got null")
	}
	raw, ok := top["variables"]
	if !ok {
		return nil, fail("no \"variables\" field (want an object mapping each variable's name to its value)")
	}
	var vars map[string]json.RawMessage
	if err := json.Unmarshal(raw, &vars); err != nil || vars == nil {
		return nil, fail("\"variables\" is %s, want an object mapping each variable's name to its value", jsonKind(raw))
	}
	if dup := duplicateKeys(raw); len(dup) > 0 {
		// encoding/json keeps the last value silently
		var problems []string
		for _, k := range dup {
			problems = append(problems, fmt.Sprintf("variable %q is given more than once", cutName(k)))
		}
		return nil, &Error{File: name, Problems: problems}
	}

	var problems []string
	names := make([]string, 0, len(m.Vars))
	for _, v := range m.Vars {
		names = append(names, v.Name)
	}
	var unknown []string
	for k := range vars {
		if !slices.Contains(names, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		problems = append(problems, fmt.Sprintf("unknown variable %q%s", k, check.DidYouMean(k, names)))
	}

	x := make([]float64, m.NumScalars)
	for _, v := range m.Vars {
		r, ok := vars[v.Name]
		if !ok {
			problems = append(problems, fmt.Sprintf("missing variable %q (%s)", v.Name, v.Shape))
			continue
		}
		var val any
		if err := json.Unmarshal(r, &val); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
				// a number beyond float64, such as 1e400
				problems = append(problems, fmt.Sprintf("variable %q: %s is out of range (the largest magnitude is about 1.8e308)", v.Name, cutName(strings.TrimPrefix(te.Value, "number "))))
			} else {
				problems = append(problems, fmt.Sprintf("variable %q: %v", v.Name, err))
			}
			continue
		}
		if err := fill(v.Of(x), v.Shape, val); err != "" {
			problems = append(problems, fmt.Sprintf("variable %q: %s", v.Name, err))
		}
	}
	if len(problems) > 0 {
		return nil, &Error{File: name, Problems: problems}
	}
	return x, nil
}

// fill stores the JSON value val, which must have shape s, in dst
// (row-major), or returns what is wrong with it.
func fill(dst []float64, s check.Shape, val any) string {
	if sig := shapeOf(val); sig == "" || !sameShape(sig, s) {
		return fmt.Sprintf("want %s, got %s", article(s.String()), describe(val))
	}
	switch s.Rank() {
	case 0:
		dst[0] = val.(float64)
	case 1:
		for i, e := range val.([]any) {
			dst[i] = e.(float64)
		}
	default:
		cols := s[1]
		for r, row := range val.([]any) {
			for c, e := range row.([]any) {
				dst[r*cols+c] = e.(float64)
			}
		}
	}
	return ""
}

// shapeOf returns a shape signature of val: "scalar", "vector 3",
// "matrix 2 3", or "" for a value that is not a number, an array of
// numbers, or a rectangular array of arrays of numbers.
func shapeOf(val any) string {
	switch v := val.(type) {
	case float64:
		return "scalar"
	case []any:
		if len(v) == 0 {
			return "vector 0"
		}
		if _, ok := v[0].([]any); ok {
			cols := -1
			for _, row := range v {
				r, ok := row.([]any)
				if !ok || (cols >= 0 && len(r) != cols) {
					return ""
				}
				cols = len(r)
				for _, e := range r {
					if _, ok := e.(float64); !ok {
						return ""
					}
				}
			}
			return fmt.Sprintf("matrix %d %d", len(v), cols)
		}
		for _, e := range v {
			if _, ok := e.(float64); !ok {
				return ""
			}
		}
		return fmt.Sprintf("vector %d", len(v))
	}
	return ""
}

func sameShape(sig string, s check.Shape) bool {
	switch s.Rank() {
	case 0:
		return sig == "scalar"
	case 1:
		return sig == fmt.Sprintf("vector %d", s[0])
	case 2:
		return sig == fmt.Sprintf("matrix %d %d", s[0], s[1])
	}
	return false
}

// describe says in words what val is, for "want ..., got ..." messages.
func describe(val any) string {
	switch v := val.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case map[string]any:
		return "an object"
	case float64:
		return "a number"
	case []any:
		if len(v) > 0 {
			if first, ok := v[0].([]any); ok {
				// An array of rows: say which row breaks the pattern.
				for i, row := range v {
					r, ok := row.([]any)
					if !ok {
						return fmt.Sprintf("an array of rows whose element %d is %s", i+1, describe(row))
					}
					if len(r) != len(first) {
						return fmt.Sprintf("rows of different lengths (row 1 has %d, row %d has %d)", len(first), i+1, len(r))
					}
					for j, e := range r {
						if _, ok := e.(float64); !ok {
							return fmt.Sprintf("an array of rows whose element [%d][%d] is %s", i+1, j+1, describe(e))
						}
					}
				}
				return fmt.Sprintf("a %s", check.Shape{len(v), len(first)})
			}
			for i, e := range v {
				if _, ok := e.(float64); !ok {
					return fmt.Sprintf("an array whose element %d is %s", i+1, describe(e))
				}
			}
		}
		return "a " + check.Shape{len(v)}.String()
	}
	return fmt.Sprintf("%T", val)
}

func article(s string) string {
	if s == "scalar" {
		return "a scalar (a number)"
	}
	if strings.HasPrefix(s, "vector") {
		return "a " + s + " (an array)"
	}
	return "a " + s + " (an array of rows)"
}

func jsonKind(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "not valid JSON"
	}
	return describe(v)
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(src []byte, off int64) (int, int) {
	if off > int64(len(src)) {
		off = int64(len(src))
	}
	before := src[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col < 1 {
		col = 1
	}
	return line, col
}

// Variables is the "variables" object of a point: m's variables with their
// values in x, in declaration order. It implements json.Marshaler, so a
// result type can embed it as a field:
//
//	type Result struct {
//		Variables point.Variables `json:"variables"`
//		...
//	}
type Variables struct {
	Model *check.Model
	X     []float64 // the flat vector, length Model.NumScalars
	// NonFinite writes a NaN or infinite element as the string "NaN",
	// "Infinity" or "-Infinity" instead of failing (a result reports the
	// point it stopped at even when it is not finite; such a file cannot
	// be read back as a start).
	NonFinite bool
}

// MarshalJSON writes the object {"NAME": value, ...} in declaration order,
// each value a number, an array or an array of rows, with the shortest
// decimal form that reads back to the same float64. A NaN or infinite
// element is an error (JSON cannot represent it) naming the element.
func (v Variables) MarshalJSON() ([]byte, error) {
	if len(v.X) != v.Model.NumScalars {
		return nil, fmt.Errorf("point: %d values for a model with %d scalar variables", len(v.X), v.Model.NumScalars)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, vr := range v.Model.Vars {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(vr.Name)
		b.Write(name)
		b.WriteByte(':')
		vals := vr.Of(v.X)
		for j, e := range vals {
			if (math.IsNaN(e) || math.IsInf(e, 0)) && !v.NonFinite {
				return nil, fmt.Errorf("point: %s is %v, which JSON cannot represent", ElementName(vr, j), e)
			}
		}
		switch vr.Shape.Rank() {
		case 0:
			writeNum(&b, vals[0])
		case 1:
			writeRow(&b, vals)
		default:
			cols := vr.Shape[1]
			b.WriteByte('[')
			for r := 0; r < vr.Shape[0]; r++ {
				if r > 0 {
					b.WriteByte(',')
				}
				writeRow(&b, vals[r*cols:(r+1)*cols])
			}
			b.WriteByte(']')
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeRow(b *bytes.Buffer, vals []float64) {
	b.WriteByte('[')
	for i, e := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		writeNum(b, e)
	}
	b.WriteByte(']')
}

func writeNum(b *bytes.Buffer, e float64) {
	if s := NonFiniteString(e); s != "" {
		b.WriteString(`"` + s + `"`)
		return
	}
	if e == 0 {
		e = 0 // -0 reads back as 0 either way; write "0"
	}
	b.WriteString(strconv.FormatFloat(e, 'g', -1, 64))
}

// NonFiniteString is how qrc's JSON writes a number JSON cannot represent:
// "NaN", "Infinity" or "-Infinity"; "" for a finite number.
func NonFiniteString(e float64) string {
	switch {
	case math.IsNaN(e):
		return "NaN"
	case math.IsInf(e, 1):
		return "Infinity"
	case math.IsInf(e, -1):
		return "-Infinity"
	}
	return ""
}

// Marshal returns the point file for x: {"variables": {...}} with one
// variable per line (a matrix one row per line), and a final newline.
func Marshal(m *check.Model, x []float64) ([]byte, error) {
	if _, err := (Variables{Model: m, X: x}).MarshalJSON(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"variables\": {")
	for i, v := range m.Vars {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(v.Name)
		fmt.Fprintf(&b, "\n    %s: ", name)
		vals := v.Of(x)
		switch v.Shape.Rank() {
		case 0:
			writeNum(&b, vals[0])
		case 1:
			writeRow(&b, vals)
		default:
			cols := v.Shape[1]
			b.WriteByte('[')
			for r := 0; r < v.Shape[0]; r++ {
				if r > 0 {
					b.WriteByte(',')
				}
				b.WriteString("\n      ")
				writeRow(&b, vals[r*cols:(r+1)*cols])
			}
			b.WriteString("\n    ]")
		}
	}
	b.WriteString("\n  }\n}\n")
	return b.Bytes(), nil
}

// Write writes the point file for x to w (see Marshal).
func Write(w io.Writer, m *check.Model, x []float64) error {
	out, err := Marshal(m, x)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// ElementName names element k (0-based, row-major) of variable v as in a
// model, with 1-based indices: "t", "x[3]", "W[2, 7]".
func ElementName(v *check.Var, k int) string {
	switch v.Shape.Rank() {
	case 0:
		return v.Name
	case 1:
		return fmt.Sprintf("%s[%d]", v.Name, k+1)
	}
	cols := v.Shape[1]
	return fmt.Sprintf("%s[%d, %d]", v.Name, k/cols+1, k%cols+1)
}

// Coordinate names coordinate j of the flat vector of m's decision
// variables, as ElementName does; "" when j is out of range.
func Coordinate(m *check.Model, j int) string {
	for _, v := range m.Vars {
		if j >= v.Offset && j < v.Offset+v.Size {
			return ElementName(v, j-v.Offset)
		}
	}
	return ""
}

// duplicateKeys lists the keys that occur more than once in the JSON
// object raw, in order of their second occurrence.
func duplicateKeys(raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	seen := map[string]bool{}
	var dup []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return dup
		}
		k, _ := t.(string)
		if seen[k] && !slices.Contains(dup, k) {
			dup = append(dup, k)
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return dup
		}
	}
	return dup
}

// cutName quotes at most 64 bytes of a name or token from a file.
func cutName(s string) string {
	if len(s) > 64 {
		return s[:61] + "..."
	}
	return s
}
