package serve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/modelfile"
)

// A frame is a table a client sent through the pipe: named columns of
// float64 values (NaN a missing value) or of text (categories), or a
// matrix X with optional labels y. A table is made into a data set the
// way data.ReadCSV makes a CSV file with the same header and cells into
// one, with the declaration's options (label, drop, missing): the same
// features in the same order, labels, numeric columns by name and text
// columns as categories (TestFrameMatchesCSV checks it). A matrix is
// the set as it is (qrc.WithData), whatever the declaration's options.
type frame struct {
	name string // the client's description, the set's Path: "DataFrame people"
	rows int
	cols []frameColumn

	// a matrix: x is rows×d row-major (or, sparse, csr), y nil without
	// labels
	matrix bool
	d      int
	x, y   []float64
	csr    *data.CSR
}

// frameColumn is one column of a table: num for a numeric column, or
// codes (1-based into levels, 0 for a missing cell) for a text column.
type frameColumn struct {
	name   string
	num    []float64
	levels []string
	codes  []int32
}

func (c *frameColumn) text() bool { return c.num == nil }

// columnHeader is a column as a frame request describes it.
type columnHeader struct {
	Name   string   `json:"name"`
	Kind   string   `json:"kind"` // "float64" or "text"
	Levels []string `json:"levels,omitempty"`
}

// frameRequest is the JSON header of op "frame"; the payload that
// follows holds the values: for a table each column in order, n float64
// (little-endian) for a numeric column, n int32 codes for a text one;
// for a matrix rows×cols float64 row-major, then rows labels when
// labels is set; for a sparse matrix in CSR form rows+1 row pointers
// (int64), nnz column indices (int32, 0-based, padded to a multiple of 8
// bytes), nnz values (float64), then the labels.
type frameRequest struct {
	Name    string         `json:"name"`
	Kind    string         `json:"kind"` // "table", "matrix" or "sparse"
	Rows    int            `json:"rows"`
	Cols    int            `json:"cols"`
	NNZ     int            `json:"nnz"` // a sparse matrix's stored entries
	Labels  bool           `json:"labels"`
	Columns []columnHeader `json:"columns"`
}

// payloadSize is the number of bytes the payload of r must have, or an
// error when r is not a valid frame header.
func (r *frameRequest) payloadSize() (int64, error) {
	if r.Rows < 1 {
		return 0, errors.New("a frame needs at least one row")
	}
	// bounds that keep every size below in int64 (and a frame's payload
	// is bounded by the data memory limit before it is read)
	if r.Rows > maxDim || r.Cols > maxDim || r.NNZ > maxDim*16 || len(r.Columns) > maxDim {
		return 0, fmt.Errorf("a frame of %d rows, %d columns, %d nonzeros and %d named columns is beyond the sizes qrc takes (%d)", r.Rows, r.Cols, r.NNZ, len(r.Columns), maxDim)
	}
	n := int64(r.Rows)
	switch r.Kind {
	case "matrix":
		if r.Cols < 1 {
			return 0, errors.New("a matrix needs at least one column")
		}
		size := n * int64(r.Cols) * 8
		if r.Labels {
			size += n * 8
		}
		return size, nil
	case "sparse":
		if r.Cols < 1 || r.NNZ < 0 {
			return 0, errors.New("a sparse matrix needs at least one column and nnz >= 0")
		}
		size := (n+1)*8 + pad8(int64(r.NNZ)*4) + int64(r.NNZ)*8
		if r.Labels {
			size += n * 8
		}
		return size, nil
	case "table":
		if len(r.Columns) == 0 {
			return 0, errors.New("a table needs at least one column")
		}
		var size int64
		seen := map[string]bool{}
		for _, c := range r.Columns {
			name := strings.TrimSpace(c.Name)
			switch {
			case name == "":
				return 0, errors.New("a column has an empty name")
			case seen[name]:
				return 0, fmt.Errorf("column %q appears twice", name)
			}
			seen[name] = true
			switch c.Kind {
			case "float64":
				size += n * 8
			case "text":
				size += pad8(n * 4)
			default:
				return 0, fmt.Errorf("column %q: kind must be float64 or text, not %q", c.Name, c.Kind)
			}
		}
		return size, nil
	}
	return 0, fmt.Errorf("kind must be table, matrix or sparse, not %q", r.Kind)
}

// maxDim bounds a frame's rows and columns.
const maxDim = 1 << 31

// pad8 rounds a column's bytes up to a multiple of 8: every column of a
// payload starts at a float64 boundary.
func pad8[T int | int64](n T) T { return (n + 7) &^ 7 }

// newFrame decodes a frame from its header and payload (of
// payloadSize bytes).
func newFrame(r *frameRequest, payload []byte) (*frame, error) {
	f := &frame{name: r.Name, rows: r.Rows}
	if f.name == "" {
		f.name = "frame"
	}
	n := r.Rows
	if r.Kind == "sparse" {
		f.matrix, f.d = true, r.Cols
		m := &data.CSR{Rows: n, Cols: r.Cols, RowPtr: make([]int, n+1), ColIdx: make([]int32, r.NNZ)}
		off := 0
		for i := range m.RowPtr {
			m.RowPtr[i] = int(int64(binary.LittleEndian.Uint64(payload[off:])))
			off += 8
		}
		for k := range m.ColIdx {
			m.ColIdx[k] = int32(binary.LittleEndian.Uint32(payload[off+4*k:]))
		}
		off += pad8(r.NNZ * 4)
		m.Val = floats(payload[off : off+r.NNZ*8])
		off += r.NNZ * 8
		if r.Labels {
			f.y = floats(payload[off:])
		}
		if err := (&data.Set{Sparse: m}).Validate(); err != nil {
			return nil, err
		}
		f.csr = m
		return f, nil
	}
	if r.Kind == "matrix" {
		f.matrix, f.d = true, r.Cols
		f.x = floats(payload[:n*r.Cols*8])
		if r.Labels {
			f.y = floats(payload[n*r.Cols*8:])
		}
		return f, nil
	}
	off := 0
	for _, h := range r.Columns {
		c := frameColumn{name: strings.TrimSpace(h.Name)}
		if h.Kind == "float64" {
			c.num = floats(payload[off : off+n*8])
			off += n * 8
		} else {
			c.levels = make([]string, len(h.Levels))
			for i, l := range h.Levels {
				c.levels[i] = strings.TrimSpace(l)
			}
			c.codes = make([]int32, n)
			for i := range c.codes {
				code := int32(binary.LittleEndian.Uint32(payload[off+4*i:]))
				if code < 0 || int(code) > len(c.levels) {
					return nil, fmt.Errorf("column %q, row %d: category code %d is not in 0..%d", c.name, i+1, code, len(c.levels))
				}
				c.codes[i] = code
			}
			off += pad8(n * 4)
		}
		f.cols = append(f.cols, c)
	}
	return f, nil
}

// alignedBytes returns n bytes whose start is aligned for float64, so
// that floats can view a payload's columns (each a multiple of 8 bytes
// from its start) in place.
func alignedBytes(n int) []byte {
	if n == 0 {
		return nil
	}
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
}

// littleEndian is whether this machine stores numbers as the payload does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// floats returns the little-endian float64 values of b, which starts at a
// float64 boundary (alignedBytes): on a little-endian machine b itself,
// viewed as []float64 without a copy (the payload of a large table is
// most of the memory a frame takes, and copying it took longer than the
// pipe), else decoded.
func floats(b []byte) []float64 {
	if len(b) == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(float64(0)) == 0 {
		return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(b)/8)
	}
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

// bytes is the memory the frame holds.
func (f *frame) bytes() int64 {
	s := int64(len(f.x)+len(f.y)) * 8
	if f.csr != nil {
		s += int64(len(f.csr.RowPtr))*8 + int64(len(f.csr.ColIdx))*4 + int64(len(f.csr.Val))*8
	}
	for _, c := range f.cols {
		s += int64(len(c.num))*8 + int64(len(c.codes))*4
	}
	return s
}

// set makes the data set req asks for from the frame.
func (f *frame) set(req check.DataRequest) (*data.Set, error) {
	if f.matrix {
		return f.matrixSet(req)
	}
	if req.Loader == "libsvm" {
		return nil, fmt.Errorf("%s is a table of named columns, and this data set is declared with libsvm: give it as a matrix (X, y), or declare it with csv(...)", f.name)
	}
	opt := req.CSV
	index := map[string]int{}
	for j, c := range f.cols {
		index[c.name] = j
	}
	role := make([]int, len(f.cols)) // 0 feature, 1 label, 2 dropped
	label := -1
	if opt.Label != "" {
		j, ok := index[opt.Label]
		if !ok {
			return nil, fmt.Errorf("%s has no label column %q (its columns: %s)", f.name, opt.Label, f.columnNames())
		}
		label, role[j] = j, 1
	}
	for _, name := range opt.Drop {
		j, ok := index[name]
		if !ok {
			return nil, fmt.Errorf("%s has no column %q to drop (its columns: %s)", f.name, name, f.columnNames())
		}
		if role[j] == 1 {
			return nil, fmt.Errorf("column %q is both the label and dropped", name)
		}
		role[j] = 2
	}
	var features []int
	for j, c := range f.cols {
		if role[j] == 2 {
			continue
		}
		if c.text() {
			what := "a feature"
			if role[j] == 1 {
				what = "the label"
			}
			return nil, fmt.Errorf("column %q is %s but holds text (category) values; drop it (drop = [%q]) or give numbers", c.name, what, c.name)
		}
		if role[j] == 0 {
			features = append(features, j)
		}
	}
	// The rows kept: a missing value (NaN) in a feature or the label is an
	// error, or leaves its row out with missing = "drop"; the dropped
	// columns keep their missing cells.
	keep := make([]bool, f.rows)
	kept := 0
	for i := range keep {
		keep[i] = true
		for j, c := range f.cols {
			if role[j] != 2 && math.IsNaN(c.num[i]) {
				if opt.Missing != "drop" {
					return nil, fmt.Errorf("missing value (NaN) in column %q, row %d; csv(..., missing = \"drop\") leaves such rows out", c.name, i+1)
				}
				keep[i] = false
				break
			}
			if role[j] != 2 && math.IsInf(c.num[i], 0) {
				return nil, fmt.Errorf("column %q, row %d: %v is not a finite number", c.name, i+1, c.num[i])
			}
		}
		if keep[i] {
			kept++
		}
	}
	if kept == 0 {
		return nil, fmt.Errorf("%s: no data rows: all %d rows have a missing value (missing = \"drop\")", f.name, f.rows)
	}
	pick := func(v []float64) []float64 {
		if kept == f.rows {
			return v // shared with the frame: neither is changed
		}
		out := make([]float64, 0, kept)
		for i, k := range keep {
			if k {
				out = append(out, v[i])
			}
		}
		return out
	}
	d := len(features)
	s := &data.Set{Path: f.name, Format: req.Loader, Features: make([]string, d), Columns: map[string][]float64{}, Dropped: f.rows - kept}
	x := make([]float64, 0, kept*d)
	for i, k := range keep {
		if !k {
			continue
		}
		for _, j := range features {
			x = append(x, f.cols[j].num[i])
		}
	}
	for k, j := range features {
		s.Features[k] = f.cols[j].name
	}
	s.X = mat.NewDense(kept, d, x)
	if d == 0 {
		return nil, fmt.Errorf("%s has no feature columns left (every column is the label or dropped)", f.name)
	}
	if label >= 0 {
		s.LabelName = f.cols[label].name
		s.Y = pick(f.cols[label].num)
	}
	uses := func(name string) bool { return opt.Columns == nil || slices.Contains(opt.Columns, name) }
	for j, c := range f.cols {
		switch {
		case !c.text() && role[j] == 2 && hasNonFinite(c.num, keep):
			// a dropped column with a missing or non-finite cell is a
			// text column, as in a CSV file (an empty cell, "inf"):
			// its levels are the numbers' shortest decimal texts
			c = asText(c)
			fallthrough
		case c.text():
			levels, codes := recode(c, keep, kept)
			if s.Text == nil {
				s.Text = map[string]*data.TextColumn{}
			}
			s.Text[c.name] = &data.TextColumn{Levels: levels}
			if !uses(c.name) {
				codes = nil
			}
			s.Columns[c.name] = codes
		default:
			var v []float64
			if uses(c.name) {
				v = pick(c.num)
			}
			s.Columns[c.name] = v
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// matrixSet is the data set of a matrix frame: the matrix as sent (its
// values shared, neither is changed), except for a set declared with
// libsvm, which is stored as the LIBSVM loader stores the same rows:
// sparse (CSR) when that takes less than half the memory of a dense
// matrix, else dense, with libsvm's features = N option widening it.
func (f *frame) matrixSet(req check.DataRequest) (*data.Set, error) {
	d := f.d
	if req.Loader == "libsvm" && req.LibSVM.Features > 0 {
		if req.LibSVM.Features < d {
			return nil, fmt.Errorf("%s has %d columns, more than the declaration's features = %d", f.name, d, req.LibSVM.Features)
		}
		d = req.LibSVM.Features
	}
	s := &data.Set{Path: f.name, Format: req.Loader, Y: f.y}
	m := f.csr
	if req.Loader == "libsvm" {
		if m == nil {
			m = toCSR(f.rows, f.d, f.x)
		}
		if d != m.Cols {
			m = &data.CSR{Rows: m.Rows, Cols: d, RowPtr: m.RowPtr, ColIdx: m.ColIdx, Val: m.Val}
		}
		if preferSparse(f.rows, d, m.NNZ()) {
			s.Sparse = m
		}
	}
	if s.Sparse == nil {
		x := f.x
		if x == nil || d != f.d {
			x = toDense(m, d)
		}
		s.X = mat.NewDense(f.rows, d, x)
		s.Features = make([]string, d)
		for j := range s.Features {
			s.Features[j] = "f" + strconv.Itoa(j+1)
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// preferSparse is the LIBSVM loader's rule: a CSR matrix (12 bytes a
// nonzero, 8 a row) when it takes less than half the dense matrix's
// memory.
func preferSparse(n, d, nnz int) bool {
	return 2*(12*float64(nnz)+8*float64(n+1)) < 8*float64(n)*float64(d)
}

// toCSR is the CSR form of the dense row-major n×d matrix x, its
// nonzeros in order.
func toCSR(n, d int, x []float64) *data.CSR {
	m := &data.CSR{Rows: n, Cols: d, RowPtr: make([]int, 1, n+1)}
	for i := range n {
		for j, v := range x[i*d : (i+1)*d] {
			if v != 0 {
				m.ColIdx = append(m.ColIdx, int32(j))
				m.Val = append(m.Val, v)
			}
		}
		m.RowPtr = append(m.RowPtr, len(m.Val))
	}
	return m
}

// toDense is the dense row-major form of m with d columns.
func toDense(m *data.CSR, d int) []float64 {
	x := make([]float64, m.Rows*d)
	for i := range m.Rows {
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			x[i*d+int(m.ColIdx[k])] = m.Val[k]
		}
	}
	return x
}

// hasNonFinite reports whether a kept row of v is NaN or infinite.
func hasNonFinite(v []float64, keep []bool) bool {
	for i, k := range keep {
		if k && (math.IsNaN(v[i]) || math.IsInf(v[i], 0)) {
			return true
		}
	}
	return false
}

// asText is a numeric column as text, each value its shortest decimal
// (a CSV writer's), NaN the empty cell, the infinities "inf" and "-inf".
func asText(c frameColumn) frameColumn {
	t := frameColumn{name: c.name, codes: make([]int32, len(c.num))}
	at := map[string]int32{}
	for i, v := range c.num {
		var w string
		switch {
		case math.IsNaN(v):
			continue // code 0: the empty cell
		case math.IsInf(v, 1):
			w = "inf"
		case math.IsInf(v, -1):
			w = "-inf"
		default:
			w = strconv.FormatFloat(v, 'g', -1, 64)
		}
		code, ok := at[w]
		if !ok {
			t.levels = append(t.levels, w)
			code = int32(len(t.levels))
			at[w] = code
		}
		t.codes[i] = code
	}
	return t
}

// recode numbers the levels of a text column that appear in the kept
// rows in order of first appearance, 1-based, as the CSV loader does; a
// missing cell is the level "" (an empty cell of a CSV file).
func recode(c frameColumn, keep []bool, kept int) ([]string, []float64) {
	var levels []string
	at := map[string]int{}
	codes := make([]float64, 0, kept)
	for i, k := range keep {
		if !k {
			continue
		}
		v := ""
		if c.codes[i] > 0 {
			v = c.levels[c.codes[i]-1]
		}
		g, ok := at[v]
		if !ok {
			levels = append(levels, v)
			g = len(levels)
			at[v] = g
		}
		codes = append(codes, float64(g))
	}
	return levels, codes
}

// columnNames lists the frame's columns for messages.
func (f *frame) columnNames() string {
	names := make([]string, len(f.cols))
	for j, c := range f.cols {
		names[j] = c.name
	}
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(", ... (%d in all)", len(names))
	}
	return strings.Join(names, ", ")
}

// loader serves the data sets a load request gives as frames, and reads
// every other from its file (through the server's cache).
type loader struct {
	frames map[string]*frame // by data set name
	files  modelfile.Data
}

// LoadData implements check.Loader.
func (l loader) LoadData(req check.DataRequest) (*data.Set, error) {
	if f, ok := l.frames[req.Name]; ok {
		return f.set(req)
	}
	return l.files.LoadData(req)
}
