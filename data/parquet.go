package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"gonum.org/v1/gonum/mat"
)

// ParquetOptions controls [LoadParquet]. The options mean what the
// [CSVOptions] of the same names mean.
type ParquetOptions struct {
	// Label names the label column; "" means the set has no label.
	Label string
	// Drop names columns to leave out of the feature matrix.
	Drop []string
	// Missing says what a null in a feature or label column does: "" or
	// "error" reports it ("missing value"), "drop" leaves its row out
	// (counted in Set.Dropped).
	Missing string
	// MaxMemory, when positive, replaces [MemoryLimit] as the most bytes the
	// set may take.
	MaxMemory int64
	// Columns, when not nil, names the columns whose values Set.Columns
	// keeps, as CSVOptions.Columns does; nil keeps every column's values.
	Columns []string
}

// parquetBatch is the number of values read from a column at a time.
const parquetBatch = 1 << 16

// LoadParquet reads the Parquet file at path (or the shards of a directory
// or glob, see [Shards]) through Apache Arrow's Go
// module (github.com/apache/arrow-go), which decodes Parquet's encodings and
// compression codecs.
//
// The columns are the file's top-level fields. The label column and the
// dropped columns must exist, and the feature matrix X holds every other
// column, in file order. A feature or label column must be numeric: boolean
// (read as 0 and 1), signed or unsigned integers of any width, or 32- or
// 64-bit floats; all are read as float64. A null in one is a missing value
// (see ParquetOptions.Missing), and NaN or an infinity is an error. A dropped
// column that is numeric, without nulls and finite, appears in Columns; a
// dropped string column (UTF-8, also dictionary-encoded) is a text column
// (see Set.Text) whose values are trimmed of surrounding spaces, a null
// reading as ""; other dropped columns (nested, dates, binary, ...) are
// ignored. The returned set has Format "parquet".
//
// A Parquet file has no lines: errors about a value name its 1-based row
// (counted over the whole file) and column, and errors about a damaged file
// name the column and the row a read started from. The memory limit is
// checked from the row count in the file's metadata before any column is
// read; the Parquet decoder's own buffers are held to the same limit.
func LoadParquet(path string, opt ParquetOptions) (s *Set, err error) {
	if shards, ok, err := Shards(path); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return loadShards(path, shards, opt.MaxMemory, func(p string) (*Set, error) { return LoadParquet(p, opt) })
	}
	f, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readParquet(f, path, opt)
}

// errMemory is what the bounded allocator panics with when the decoder's
// buffers would exceed the memory limit.
type errMemory struct{ need int64 }

// boundedAlloc is a memory.Allocator that counts the bytes the Parquet
// decoder takes and panics with errMemory beyond its limit; readParquet
// recovers the panic. The decoder leaves most of its buffers to the garbage
// collector instead of freeing them, so the count is reset for each column
// chunk (whose reader is dropped after it is read): what is bounded is the
// memory one column chunk's decoding takes, plus the text values kept (see
// hold).
type boundedAlloc struct {
	mu                sync.Mutex
	inner             memory.Allocator
	used, base, limit int64
}

// reset starts counting a new column chunk.
func (a *boundedAlloc) reset() {
	a.mu.Lock()
	a.used = a.base
	a.mu.Unlock()
}

// hold counts n bytes the loader keeps until the end.
func (a *boundedAlloc) hold(n int64) {
	a.mu.Lock()
	a.base += n
	a.mu.Unlock()
	a.add(n)
}

func (a *boundedAlloc) add(n int64) {
	a.mu.Lock()
	a.used = max(a.used+n, 0)
	used := a.used
	a.mu.Unlock()
	if used > a.limit {
		panic(errMemory{used})
	}
}

func (a *boundedAlloc) Allocate(size int) []byte {
	a.add(int64(size))
	return a.inner.Allocate(size)
}

func (a *boundedAlloc) Reallocate(size int, b []byte) []byte {
	if size > cap(b) {
		a.add(int64(size - cap(b)))
	}
	return a.inner.Reallocate(size, b)
}

func (a *boundedAlloc) Free(b []byte) {
	a.add(-int64(cap(b)))
	a.inner.Free(b)
}

// Column kinds of a Parquet file.
const (
	kindOther = iota
	kindNumber
	kindText
)

// pqColumn is one top-level field of a Parquet file.
type pqColumn struct {
	name     string
	node     schema.Node
	kind     int
	unsigned bool // an unsigned integer column
	role     int
	leaf     int // the Parquet leaf column, or -1 for a nested field
	maxDef   int16
}

// pqValues is what reading one column gives.
type pqValues struct {
	vals      []float64 // numeric: the values; text: the 1-based codes
	levels    []string  // text: the distinct values
	index     map[string]int
	nulls     []bool        // rows holding a null (nil when there is none)
	firstNull int           // 1-based row of the first null, or 0
	nonFinite int           // 1-based row of the first NaN or infinity, or 0
	tooMany   bool          // text with more than maxLevels values
	alloc     *boundedAlloc // charged with the bytes of the levels
}

func readParquet(r parquet.ReaderAtSeeker, path string, opt ParquetOptions) (s *Set, err error) {
	drop := false
	switch opt.Missing {
	case "", "error":
	case "drop":
		drop = true
	default:
		return nil, &Error{Path: path, Option: "missing", Msg: fmt.Sprintf("invalid option missing = %s (want \"error\" or \"drop\")", quoteString(opt.Missing))}
	}
	b := newBudget(opt.MaxMemory)
	if err := checkMagic(r, path); err != nil {
		return nil, err
	}
	alloc := &boundedAlloc{inner: memory.NewGoAllocator(), limit: b.limit}
	where := "its metadata (the footer)"
	defer func() {
		if p := recover(); p != nil {
			s = nil
			if m, ok := p.(errMemory); ok {
				err = errorf(path, 0, 0, "%s", b.exceeded(m.need, "decoding "+where))
				return
			}
			err = errorf(path, 0, 0, "damaged Parquet file: cannot read %s: the Parquet decoder failed: %s", where, cleanMsg(fmt.Sprint(p)))
		}
	}()
	props := parquet.NewReaderProperties(alloc)
	rdr, err := file.NewParquetReader(r, file.WithReadProps(props))
	if err != nil {
		return nil, errorf(path, 0, 0, "damaged Parquet file: cannot read %s: %s", where, pqMsg(err))
	}
	md := rdr.MetaData()
	var n int64
	for k := range md.NumRowGroups() {
		rn := md.RowGroups[k].GetNumRows()
		if rn < 0 {
			return nil, errorf(path, 0, 0, "damaged Parquet file: row group %d has %d rows", k+1, rn)
		}
		if n+rn > math.MaxInt32 {
			return nil, errorf(path, 0, 0, "more than %d rows, the most a data set may have", math.MaxInt32)
		}
		n += rn
	}
	if n != md.GetNumRows() {
		return nil, errorf(path, 0, 0, "damaged Parquet file: the metadata counts %d rows, its row groups %d", md.GetNumRows(), n)
	}

	// The columns and their roles.
	root := md.Schema.Root()
	cols := make([]pqColumn, root.NumFields())
	names := make([]string, len(cols))
	seen := make(map[string]int, len(cols)) // name → 1-based column number
	for j := range cols {
		nd := root.Field(j)
		c := pqColumn{name: nd.Name(), node: nd, leaf: -1}
		if pn, ok := nd.(*schema.PrimitiveNode); ok && nd.RepetitionType() != parquet.Repetitions.Repeated {
			c.leaf = md.Schema.ColumnIndexByNode(nd)
			c.kind, c.unsigned = pqKind(pn)
			if c.leaf < 0 {
				c.kind = kindOther
			} else {
				c.maxDef = md.Schema.Column(c.leaf).MaxDefinitionLevel()
			}
		}
		if k, dup := seen[c.name]; dup {
			return nil, errorf(path, 0, 0, "duplicate column name %s (columns %d and %d)", quoteString(c.name), k, j+1)
		}
		seen[c.name] = j + 1
		cols[j], names[j] = c, c.name
	}
	unknown := func(option, name string) *Error {
		return &Error{Path: path, Option: option, Column: name,
			Msg: fmt.Sprintf("unknown column %s (columns: %s)", quoteString(name), nameList(names))}
	}
	label := -1
	if opt.Label != "" {
		k, ok := seen[opt.Label]
		if !ok {
			return nil, unknown("label", opt.Label)
		}
		label = k - 1
		cols[label].role = roleLabel
	}
	for _, name := range opt.Drop {
		k, ok := seen[name]
		if !ok {
			return nil, unknown("drop", name)
		}
		if k-1 == label {
			return nil, &Error{Path: path, Option: "drop", Column: name,
				Msg: fmt.Sprintf("column %s is both the label and dropped", quoteString(name))}
		}
		cols[k-1].role = roleDrop
	}
	var features []int
	numeric, text, kept := 0, 0, 0
	for j, c := range cols {
		if c.role != roleDrop {
			if c.kind != kindNumber {
				e := &Error{Path: path, Column: c.name, Msg: fmt.Sprintf("column %s holds %s, not numbers: a feature column must be numeric%s",
					quoteString(c.name), typeName(c), map[bool]string{true: fmt.Sprintf(" (drop = [%s] makes it a text column for where filters)", quoteString(c.name))}[c.kind == kindText])}
				if c.role == roleLabel {
					e.Option, e.Msg = "label", fmt.Sprintf("label column %s holds %s, not numbers", quoteString(c.name), typeName(c))
				}
				return nil, e
			}
			if c.role == roleFeature {
				features = append(features, j)
			}
		}
		switch c.kind {
		case kindNumber:
			numeric++
		case kindText:
			text++
		}
		if (c.kind == kindNumber || c.kind == kindText) && keepsColumn(opt.Columns, c.name) {
			kept++
		}
	}
	if len(features) == 0 {
		return nil, errorf(path, 0, 0, "no feature columns: every column is the label or dropped")
	}
	if n == 0 {
		return nil, errorf(path, 0, 0, "no data rows")
	}
	d := len(features)
	need := denseBytes(int(n), d) + denseBytes(int(n), kept) // X and Columns
	if label >= 0 {
		need += 8 * n // Y
	}
	if msg := b.exceeded(need, fmt.Sprintf("%s (%d rows in the file's metadata)", matrixWhat(int(n), d, kept, numeric+text), n)); msg != "" {
		return nil, errorf(path, 0, 0, "%s", msg)
	}

	// Read the columns.
	vals := make([]*pqValues, len(cols))
	for j, c := range cols {
		if c.kind == kindOther {
			continue
		}
		where = fmt.Sprintf("column %s", quoteString(c.name))
		v, err := readPQColumn(rdr, c, int(n), alloc, path, &where)
		if err != nil {
			return nil, err
		}
		if c.role != roleDrop && v.nonFinite > 0 {
			return nil, &Error{Path: path, Column: c.name,
				Msg: fmt.Sprintf("row %d: value %s in column %s is not a finite number", v.nonFinite, fmtFloat(v.vals[v.nonFinite-1]), quoteString(c.name))}
		}
		vals[j] = v
	}
	where = "the file"

	// Missing values: the first in row order, or the rows to leave out.
	keep := make([]bool, n)
	for i := range keep {
		keep[i] = true
	}
	first, firstCol := 0, -1
	for j, c := range cols {
		v := vals[j]
		if c.role == roleDrop || v == nil || v.firstNull == 0 {
			continue
		}
		if !drop {
			if first == 0 || v.firstNull < first {
				first, firstCol = v.firstNull, j
			}
			continue
		}
		for i, null := range v.nulls {
			if null {
				keep[i] = false
			}
		}
	}
	if firstCol >= 0 {
		name := cols[firstCol].name
		return nil, &Error{Path: path, Column: name,
			Msg: fmt.Sprintf("row %d: missing value (null) in column %s; parquet(..., missing = \"drop\") leaves such rows out", first, quoteString(name))}
	}
	rows := 0
	for _, k := range keep {
		if k {
			rows++
		}
	}
	dropped := int(n) - rows
	if rows == 0 {
		return nil, errorf(path, 0, 0, "no data rows: all %d rows have a missing value (missing = \"drop\")", dropped)
	}
	pick := func(v []float64) []float64 {
		if dropped == 0 {
			return v
		}
		out := makeFloats(0, rows)
		for i, k := range keep {
			if k {
				out = append(out, v[i])
			}
		}
		return out
	}

	s = &Set{
		Path:      path,
		Format:    "parquet",
		Features:  make([]string, d),
		Columns:   make(map[string][]float64),
		Dropped:   dropped,
		maxMemory: opt.MaxMemory,
	}
	colv := make([][]float64, len(cols))
	for j, c := range cols {
		v := vals[j]
		switch {
		case v == nil:
			continue
		case c.kind == kindText:
			if v.tooMany {
				if opt.Columns != nil && keepsColumn(opt.Columns, c.name) {
					return nil, tooManyLevels(path, c.name)
				}
				continue
			}
			codes := pick(v.vals)
			if s.Text == nil {
				s.Text = map[string]*TextColumn{}
			}
			s.Text[c.name] = &TextColumn{Levels: v.levels}
			s.Columns[c.name] = codes
		case c.role == roleDrop && (v.firstNull > 0 || v.nonFinite > 0):
			continue // not a clean numeric column
		default:
			colv[j] = pick(v.vals)
			s.Columns[c.name] = colv[j]
		}
	}
	x := makeFloats(rows*d, rows*d)
	for k, j := range features {
		s.Features[k] = cols[j].name
	}
	parallelFor(rows, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := x[i*d : (i+1)*d]
			for k, j := range features {
				row[k] = colv[j][i]
			}
		}
	})
	s.X = mat.NewDense(rows, d, x)
	s.n, s.d = rows, d
	if label >= 0 {
		s.LabelName = cols[label].name
		s.Y = slices.Clone(colv[label])
	}
	for name := range s.Columns {
		if !keepsColumn(opt.Columns, name) {
			s.Columns[name] = nil // read for X, but not kept by column
		}
	}
	return s, nil
}

// checkMagic refuses a file that does not start and end with Parquet's
// magic bytes, before the decoder sees it.
func checkMagic(r parquet.ReaderAtSeeker, path string) error {
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return ioError(path, "read", err)
	}
	if size == 0 {
		return errorf(path, 0, 0, "no data rows")
	}
	head, tail := make([]byte, 4), make([]byte, 4)
	if size >= 12 {
		if _, err := r.ReadAt(head, 0); err != nil {
			return ioError(path, "read", err)
		}
		if _, err := r.ReadAt(tail, size-4); err != nil {
			return ioError(path, "read", err)
		}
	}
	if string(head) != "PAR1" || string(tail) != "PAR1" && string(tail) != "PARE" {
		return errorf(path, 0, 0, "not a Parquet file: it does not start and end with the bytes \"PAR1\" (the file may be truncated)")
	}
	if string(tail) == "PARE" {
		return errorf(path, 0, 0, "cannot read an encrypted Parquet file")
	}
	return nil
}

// pqKind classifies a primitive column as the loader reads it, and says
// whether it holds unsigned integers.
func pqKind(n *schema.PrimitiveNode) (int, bool) {
	lt := n.LogicalType()
	none := lt == nil || lt.Equals(schema.NoLogicalType{})
	switch n.PhysicalType() {
	case parquet.Types.Boolean, parquet.Types.Float, parquet.Types.Double:
		if none {
			return kindNumber, false
		}
	case parquet.Types.Int32, parquet.Types.Int64:
		if none {
			return kindNumber, false
		}
		if it, ok := lt.(schema.IntLogicalType); ok {
			return kindNumber, !it.IsSigned()
		}
	case parquet.Types.ByteArray:
		switch lt.(type) {
		case schema.StringLogicalType, schema.EnumLogicalType:
			return kindText, false
		}
	}
	return kindOther, false
}

// typeName describes a column's type for a message.
func typeName(c pqColumn) string {
	switch c.kind {
	case kindText:
		return "text"
	case kindNumber:
		return "numbers"
	}
	pn, ok := c.node.(*schema.PrimitiveNode)
	if !ok || c.leaf < 0 {
		return "nested or repeated values"
	}
	t := strings.ToLower(pn.PhysicalType().String())
	if lt := pn.LogicalType(); lt != nil && !lt.Equals(schema.NoLogicalType{}) {
		t += " " + cleanMsg(lt.String())
	}
	return "values of type " + t
}

// batchReader is a typed Parquet column chunk reader.
type batchReader[T any] interface {
	ReadBatch(batchSize int64, values []T, defLvls, repLvls []int16) (int64, int, error)
	Err() error // the error that stopped a read returning 0 values
}

// readChunk reads the rows of one column chunk, calling put for each value
// (null reports a null).
func readChunk[T any](r batchReader[T], rows int, maxDef int16, put func(v T, null bool)) error {
	size := min(parquetBatch, rows)
	vals := make([]T, size)
	var defs []int16
	if maxDef > 0 {
		defs = make([]int16, size)
	}
	var zero T
	for got := 0; got < rows; {
		total, nv, err := r.ReadBatch(int64(min(size, rows-got)), vals, defs, nil)
		if err != nil {
			return err
		}
		if total <= 0 && r.Err() != nil {
			return r.Err()
		}
		if total <= 0 || int(total) > rows-got || nv < 0 || nv > int(total) {
			return errShortChunk
		}
		k := 0
		for i := range int(total) {
			if maxDef > 0 && defs[i] < maxDef {
				put(zero, true)
				continue
			}
			if k >= nv {
				return errShortChunk
			}
			put(vals[k], false)
			k++
		}
		got += int(total)
	}
	return nil
}

// errShortChunk is a column chunk whose values do not match its row count.
var errShortChunk = errors.New("the column chunk holds fewer or more values than its row group's rows")

// readPQColumn reads the n values of one column, row group by row group.
func readPQColumn(rdr *file.Reader, c pqColumn, n int, alloc *boundedAlloc, path string, where *string) (*pqValues, error) {
	v := &pqValues{vals: makeFloats(0, n), alloc: alloc}
	if c.kind == kindText {
		v.index = map[string]int{}
	}
	put := func(x float64, null bool) {
		r := len(v.vals)
		if null {
			if v.nulls == nil {
				v.nulls = make([]bool, n)
			}
			v.nulls[r] = true
			if v.firstNull == 0 {
				v.firstNull = r + 1
			}
		} else if v.nonFinite == 0 && (math.IsNaN(x) || math.IsInf(x, 0)) {
			v.nonFinite = r + 1
		}
		v.vals = append(v.vals, x)
	}
	for g := range rdr.NumRowGroups() {
		row := len(v.vals)
		rg := rdr.RowGroup(g)
		rows := int(rg.NumRows())
		*where = fmt.Sprintf("column %s in row group %d (from row %d)", quoteString(c.name), g+1, row+1)
		if rows == 0 {
			continue
		}
		v.alloc.reset()
		cr, err := rg.Column(c.leaf)
		if err == nil {
			err = readTyped(cr, c, rows, v, put)
		}
		if err != nil {
			return nil, errorf(path, 0, 0, "damaged Parquet file: cannot read %s: %s", *where, pqMsg(err))
		}
		if len(v.vals) != row+rows {
			return nil, errorf(path, 0, 0, "damaged Parquet file: %s: %s", *where, errShortChunk)
		}
	}
	return v, nil
}

// readTyped reads one column chunk with its typed reader.
func readTyped(cr file.ColumnChunkReader, c pqColumn, rows int, v *pqValues, put func(float64, bool)) error {
	switch r := cr.(type) {
	case *file.BooleanColumnChunkReader:
		return readChunk(r, rows, c.maxDef, func(b bool, null bool) {
			put(map[bool]float64{true: 1}[b], null)
		})
	case *file.Int32ColumnChunkReader:
		return readChunk(r, rows, c.maxDef, func(x int32, null bool) {
			if c.unsigned {
				put(float64(uint32(x)), null)
			} else {
				put(float64(x), null)
			}
		})
	case *file.Int64ColumnChunkReader:
		return readChunk(r, rows, c.maxDef, func(x int64, null bool) {
			if c.unsigned {
				put(float64(uint64(x)), null)
			} else {
				put(float64(x), null)
			}
		})
	case *file.Float32ColumnChunkReader:
		return readChunk(r, rows, c.maxDef, func(x float32, null bool) { put(float64(x), null) })
	case *file.Float64ColumnChunkReader:
		return readChunk(r, rows, c.maxDef, put)
	case *file.ByteArrayColumnChunkReader:
		return readChunk(r, rows, c.maxDef, func(b parquet.ByteArray, null bool) {
			put(v.code(b), false)
		})
	}
	return fmt.Errorf("unexpected column reader %T", cr)
}

// code returns the 1-based code of text value b (trimmed of surrounding
// spaces; a null is ""), adding it to the levels.
func (v *pqValues) code(b []byte) float64 {
	if v.tooMany {
		return 0
	}
	str := string(bytes.TrimSpace(b))
	k, ok := v.index[str]
	if !ok {
		if len(v.levels) >= maxLevels {
			v.tooMany, v.levels, v.index = true, nil, nil
			return 0
		}
		v.alloc.hold(int64(len(str)) + 16)
		v.levels = append(v.levels, str)
		k = len(v.levels)
		v.index[str] = k
	}
	return float64(k)
}

// fmtFloat formats a non-finite value for a message.
func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// pqMsg is cleanMsg for an error of the Parquet decoder, without the
// prefixes that repeat what the loader's message says.
func pqMsg(err error) string {
	msg := err.Error()
	for _, p := range []string{"parquet: ", "could not read footer: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return cleanMsg(msg)
}

// cleanMsg makes a message of the Parquet decoder safe to print: control
// and invalid bytes escaped, at most 160 bytes.
func cleanMsg(s string) string {
	const maxMsg = 160
	cut := false
	if len(s) > maxMsg {
		n := maxMsg
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], true
	}
	q := strconv.Quote(s)
	q = q[1 : len(q)-1]
	if cut {
		q += "..."
	}
	return q
}
