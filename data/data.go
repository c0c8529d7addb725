// Package data loads the data sets a qrc model declares: LIBSVM, CSV and
// Parquet files.
//
// The loaders return a [Set] holding the feature matrix — dense, or for a
// LIBSVM file with few nonzeros sparse in [CSR] form — and, when the file has
// one, a label vector. Problems in a file are reported as [*Error] values
// carrying the file's path and the 1-based line and byte column of the
// offending text, so that a front end can point at them the way a compiler
// points at source code; an error quotes at most a short, sanitised piece of
// the file. The loaders never panic or hang on bad input and bound the memory
// they take: every line is at most [MaxLine] bytes, only regular files are
// read, and a set that would need more than [MemoryLimit] is refused with
// the number, early (from the first block of the file) when possible.
//
// Numbers are decimal, as CSV and LIBSVM writers produce them: an optional
// sign, digits with an optional point and an optional exponent. NaN, ±Inf,
// hexadecimal floats and digit separators ("0x1p-2", "1_000") are refused.
// Files are parsed in blocks on all GOMAXPROCS cores when they are large.
//
// Parquet files are decoded by Apache Arrow's Go module; [LoadParquet] says
// how their typed columns are read and how its errors are positioned (by
// row and column, a Parquet file having no lines).
package data

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Set is a loaded data set: n rows, d features.
type Set struct {
	Path   string // the file it was read from
	Format string // "libsvm", "csv" or "parquet"

	// X is the n×d feature matrix, row-major. It is nil for a sparse set
	// until [Set.Dense] converts it.
	X *mat.Dense

	// Sparse holds the feature matrix of a sparse set (a LIBSVM file whose
	// CSR form takes less than half the memory of a dense matrix); it is nil
	// for a dense set. Memory of a sparse set is proportional to its
	// nonzeros.
	Sparse *CSR

	Y []float64 // labels, length n; nil when the set has no label column

	// Features holds the feature names, length d: the CSV header (or
	// Parquet column) names of the feature columns in file order ("c1", "c2", ... for a CSV file without
	// a header), or "f1".."fd" for a dense LIBSVM set. It is nil for a sparse
	// set, whose feature j (1-based) is called "fj"; see [Set.FeatureName].
	Features []string

	// Columns maps the name of every numeric CSV or Parquet column to its
	// values, each of length n: the features, the label and those dropped
	// columns whose cells are all numbers (for Parquet: numeric, no null,
	// finite). It also holds, for each text column (see Text),
	// the row's category code: the 1-based position of its value in
	// Text[name].Levels, so that an evaluator can run a where filter over
	// it. The slices are copies; changing them does not change X or Y. It is
	// nil for LIBSVM.
	Columns map[string][]float64

	// Text maps the name of every dropped CSV column that holds a cell that
	// is not a number (a text or category column such as "female"/"male"),
	// and of every dropped Parquet string column, to its distinct values. It
	// is nil for LIBSVM.
	Text map[string]*TextColumn

	// LabelName is the CSV or Parquet label column's name; "" for LIBSVM or
	// when the set has no label.
	LabelName string

	// Dropped counts the rows left out because of a missing value
	// (CSVOptions.Missing or ParquetOptions.Missing = "drop").
	Dropped int

	n, d       int
	maxMemory  int64 // the loader's MaxMemory option, for Dense
	maxIdxLine int   // where a LIBSVM set's largest index first appears
	maxIdxCol  int
	denseMu    sync.Mutex
}

// TextColumn is a CSV column of text values, stored as categories.
type TextColumn struct {
	// Levels holds the distinct values (trimmed of surrounding spaces) in
	// the order they first appear in the file.
	Levels []string
}

// Level returns the 1-based category code of value v, or 0 when no row has
// it.
func (t *TextColumn) Level(v string) int {
	return slices.Index(t.Levels, v) + 1
}

// N returns the number of rows.
func (s *Set) N() int {
	switch {
	case s == nil:
		return 0
	case s.X != nil:
		n, _ := s.X.Dims()
		return n
	case s.Sparse != nil:
		return s.Sparse.Rows
	}
	return 0
}

// D returns the number of features.
func (s *Set) D() int {
	switch {
	case s == nil:
		return 0
	case s.X != nil:
		_, d := s.X.Dims()
		return d
	case s.Sparse != nil:
		return s.Sparse.Cols
	}
	return 0
}

// FeatureName returns the name of feature j (1-based): Features[j-1], or
// "fj" for a sparse set.
func (s *Set) FeatureName(j int) string {
	if j >= 1 && j <= len(s.Features) {
		return s.Features[j-1]
	}
	return fmt.Sprintf("f%d", j)
}

// MatrixBytes returns the memory of the set's feature matrix: 8 bytes an
// entry of a dense set, 12 a nonzero of a sparse one (its value and
// column index).
func (s *Set) MatrixBytes() int64 {
	switch {
	case s == nil:
		return 0
	case s.IsSparse():
		return int64(len(s.Sparse.Val)) * 12
	}
	return int64(s.N()) * int64(s.D()) * 8
}

// IsSparse reports whether the set is stored in CSR form.
func (s *Set) IsSparse() bool { return s != nil && s.Sparse != nil }

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

	// Option names the loader option the error is about ("label", "drop",
	// "sep", ...), or is "" when it is about the file. Column names the
	// column concerned (as the model spells it), or is "". A front end uses
	// them to point at the option in the model instead of at the file name.
	Option, Column string
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
