// Package data loads the data sets a qrc model declares: LIBSVM and CSV files.
//
// Both loaders return a [Set] holding a dense n×d feature matrix and, when the
// file has one, a label vector. Problems in a file are reported as [*Error]
// values carrying the file's path and the 1-based line and byte column of the
// offending text, so that a front end can point at them the way a compiler
// points at source code. The loaders never panic on bad input.
//
// Cells and feature values must be finite numbers: NaN and ±Inf are rejected
// along with anything else strconv.ParseFloat does not accept.
package data

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// Set is a loaded data set: n rows, d features.
type Set struct {
	Path   string     // the file it was read from
	Format string     // "libsvm" or "csv"
	X      *mat.Dense // n×d feature matrix, row-major
	Y      []float64  // labels, length n; nil when the set has no label column

	// Features holds the feature names, length d: the CSV header names of the
	// feature columns in file order, or "f1".."fd" for LIBSVM.
	Features []string

	// Columns maps the header name of every numeric CSV column to its values,
	// each of length n: the features, the label and those dropped columns
	// whose cells are all numbers. The slices are copies; changing them does
	// not change X or Y. It is nil for LIBSVM.
	Columns map[string][]float64

	// LabelName is the CSV label column's name; "" for LIBSVM or when the set
	// has no label.
	LabelName string
}

// N returns the number of rows.
func (s *Set) N() int {
	if s == nil || s.X == nil {
		return 0
	}
	n, _ := s.X.Dims()
	return n
}

// D returns the number of features.
func (s *Set) D() int {
	if s == nil || s.X == nil {
		return 0
	}
	_, d := s.X.Dims()
	return d
}

// Labels returns the distinct label values sorted ascending, or nil when the
// set has no labels.
func (s *Set) Labels() []float64 {
	if s == nil || s.Y == nil {
		return nil
	}
	ls := slices.Clone(s.Y)
	slices.Sort(ls)
	return slices.Compact(ls)
}

// Error is a problem in a data file, located by the file's own 1-based line
// and byte column. Col is 0 when a column is not meaningful, and Line is 0 for
// whole-file problems such as a missing or empty file.
type Error struct {
	Path      string
	Line, Col int
	Msg       string
	Err       error // the underlying error, if any (e.g. from the OS); see Unwrap
}

// Error formats the error as "path:line:col: msg", "path:line: msg" when Col
// is 0, or "path: msg" when Line is 0.
func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	default:
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
	}
}

// Unwrap returns the underlying error, so that errors.Is(err, fs.ErrNotExist)
// works for a missing file.
func (e *Error) Unwrap() error { return e.Err }

// maxElems bounds n·d so that a stray huge feature index is reported instead
// of exhausting memory: 1<<28 float64s are 2 GiB.
const maxElems = 1 << 28

// errorf returns an *Error at path:line:col.
func errorf(path string, line, col int, format string, args ...any) *Error {
	return &Error{Path: path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// ioError wraps an error from opening or reading path as a whole-file *Error,
// dropping the path the OS error repeats.
func ioError(path, what string, err error) *Error {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return &Error{Path: path, Msg: "cannot " + what + " file: " + msg, Err: err}
}

// parseNumber parses s as a finite float64, reporting whether it is one.
func parseNumber(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// tooLarge reports whether an n×d matrix would exceed maxElems elements.
func tooLarge(n, d int) bool {
	return n > 0 && d > maxElems/n
}
