package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// CSVOptions controls [LoadCSV].
type CSVOptions struct {
	// Label names the label column; "" means the set has no label.
	Label string
	// Drop names columns to leave out of the feature matrix.
	Drop []string
}

// LoadCSV reads the CSV file at path.
//
// The first record is the header; its names are trimmed of spaces and must be
// non-empty and distinct. The label column and the dropped columns must exist.
// The feature matrix X holds every other column, in file order. Every cell
// outside the dropped columns must be a number (surrounding spaces are
// allowed); a dropped column whose cells are all numbers still appears in
// Columns. A leading UTF-8 byte order mark is ignored. The returned set has
// Format "csv".
func LoadCSV(path string, opt CSVOptions) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ioError(path, "open", err)
	}
	defer f.Close()
	return ReadCSV(f, path, opt)
}

// ReadCSV is like [LoadCSV] but reads from r; path names the data in errors
// and in the returned set.
func ReadCSV(r io.Reader, path string, opt CSVOptions) (*Set, error) {
	br := bufio.NewReader(r)
	bom := 0 // bytes skipped at the start of line 1
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\uFEFF")) {
		bom = 3
		_, _ = br.Discard(bom) // cannot fail: the bytes were peeked
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1 // field counts are checked below, with a better message
	cr.ReuseRecord = true
	pos := func(field int) (line, col int) {
		line, col = cr.FieldPos(field)
		if line == 1 {
			col += bom
		}
		return line, col
	}
	read := func() ([]string, error) {
		rec, err := cr.Read()
		var pe *csv.ParseError
		switch {
		case err == nil || err == io.EOF:
			return rec, err
		case errors.As(err, &pe):
			col := pe.Column
			if pe.Line == 1 {
				col += bom
			}
			return nil, &Error{Path: path, Line: pe.Line, Col: col, Msg: pe.Err.Error(), Err: err}
		default:
			return nil, ioError(path, "read", err)
		}
	}

	// Header.
	rec, err := read()
	if err == io.EOF {
		return nil, errorf(path, 0, 0, "no data rows")
	} else if err != nil {
		return nil, err
	}
	headerLine, _ := pos(0)
	names := make([]string, len(rec))
	seen := make(map[string]int, len(rec)) // name → 1-based field number
	for j, h := range rec {
		name := strings.TrimSpace(h)
		line, col := pos(j)
		if name == "" {
			return nil, errorf(path, line, col, "empty column name in header (field %d)", j+1)
		}
		if k, dup := seen[name]; dup {
			return nil, errorf(path, line, col, "duplicate column name %q (also field %d)", name, k)
		}
		seen[name] = j + 1
		names[j] = name
	}

	// Roles of the columns.
	unknown := func(name string) error {
		return errorf(path, headerLine, 0, "unknown column %q (columns: %s)", name, strings.Join(names, ", "))
	}
	label := -1
	if opt.Label != "" {
		k, ok := seen[opt.Label]
		if !ok {
			return nil, unknown(opt.Label)
		}
		label = k - 1
	}
	dropped := make([]bool, len(names))
	for _, name := range opt.Drop {
		k, ok := seen[name]
		if !ok {
			return nil, unknown(name)
		}
		if k-1 == label {
			return nil, errorf(path, headerLine, 0, "column %q is both the label and dropped", name)
		}
		dropped[k-1] = true
	}
	var features []int // field numbers (0-based) of the feature columns
	for j := range names {
		if j != label && !dropped[j] {
			features = append(features, j)
		}
	}
	if len(features) == 0 {
		return nil, errorf(path, headerLine, 0, "no feature columns: every column is the label or dropped")
	}

	// Data rows, gathered column by column. A dropped column is gathered
	// until it turns out to hold a non-numeric cell.
	cols := make([][]float64, len(names))
	bad := make([]bool, len(names)) // dropped columns with a non-numeric cell
	n := 0
	for {
		rec, err := read()
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if len(rec) != len(names) {
			line, _ := pos(0)
			return nil, errorf(path, line, 0, "row has %d fields, want %d like the header", len(rec), len(names))
		}
		for j, cell := range rec {
			if bad[j] {
				continue
			}
			cell = strings.TrimSpace(cell)
			v, ok := parseNumber(cell)
			switch {
			case ok:
				cols[j] = append(cols[j], v)
			case dropped[j]:
				bad[j], cols[j] = true, nil
			default:
				line, col := pos(j)
				return nil, errorf(path, line, col, "non-numeric cell %q in column %q", cell, names[j])
			}
		}
		n++
		if tooLarge(n, len(features)) {
			line, _ := pos(0)
			return nil, errorf(path, line, 0, "too many rows for a dense matrix of %d features", len(features))
		}
	}
	if n == 0 {
		return nil, errorf(path, 0, 0, "no data rows")
	}

	d := len(features)
	x := make([]float64, n*d)
	s := &Set{
		Path:     path,
		Format:   "csv",
		Features: make([]string, d),
		Columns:  make(map[string][]float64),
	}
	for k, j := range features {
		s.Features[k] = names[j]
		for i, v := range cols[j] {
			x[i*d+k] = v
		}
	}
	s.X = mat.NewDense(n, d, x)
	for j, c := range cols {
		if !bad[j] {
			s.Columns[names[j]] = c
		}
	}
	if label >= 0 {
		s.LabelName = names[label]
		s.Y = slices.Clone(cols[label])
	}
	return s, nil
}
