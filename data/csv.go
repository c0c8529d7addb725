package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// CSVOptions controls [LoadCSV].
type CSVOptions struct {
	// Label names the label column; "" means the set has no label.
	Label string
	// Drop names columns to leave out of the feature matrix.
	Drop []string
	// Sep is the field separator; 0 means ','. It may be any single byte
	// but '"', '\r' and '\n' (for example ';' or '\t').
	Sep byte
	// NoHeader says the file has no header line: the first line is data and
	// the columns are called "c1", "c2", ...
	NoHeader bool
	// Missing says what an empty cell in a feature or label column does:
	// "" or "error" reports it ("missing value"), "drop" leaves its row out
	// (counted in Set.Dropped).
	Missing string
	// MaxMemory, when positive, replaces [MemoryLimit] as the most bytes the
	// set may take.
	MaxMemory int64
	// Columns, when not nil, names the columns whose values Set.Columns
	// holds: every other column keeps its name there with nil values, and
	// takes no memory beyond its place in X. nil keeps every column's
	// values. A model's checker passes the names the model uses, so that
	// a table of many features is not held twice (in X and by column).
	Columns []string
}

// keepsColumn reports whether a set loaded with the Columns option cols
// (CSVOptions.Columns, ParquetOptions.Columns) keeps the values of column
// name in Set.Columns.
func keepsColumn(cols []string, name string) bool {
	return cols == nil || slices.Contains(cols, name)
}

// keptColumns counts the names whose values a set loaded with the Columns
// option cols keeps.
func keptColumns(cols, names []string) int {
	n := 0
	for _, name := range names {
		if keepsColumn(cols, name) {
			n++
		}
	}
	return n
}

// matrixWhat names what a dense set holds in a memory refusal: its n × d
// matrix and kept of its numeric columns.
func matrixWhat(n, d, kept, numeric int) string {
	switch {
	case kept == 0:
		return fmt.Sprintf("a dense %d × %d matrix", n, d)
	case kept < numeric:
		return fmt.Sprintf("a dense %d × %d matrix and %d of its %d numeric columns", n, d, kept, numeric)
	}
	return fmt.Sprintf("a dense %d × %d matrix and its %d numeric columns", n, d, numeric)
}

// maxLevels is the most distinct values a text column may hold; a dropped
// column with more is left out of Text (it is not a category).
const maxLevels = 1 << 16

// tooManyLevels is the error for a text column with more than maxLevels
// distinct values that the model uses (the loader's Columns option names
// it): left out silently, the model then failed with "no field or column".
func tooManyLevels(path, name string) *Error {
	return &Error{Path: path, Column: name, Msg: fmt.Sprintf(
		"text column %q has more than %d distinct values, the most a text column may hold to be compared in a where filter (a column of ids or free text is not a category)",
		name, maxLevels)}
}

// LoadCSV reads the CSV file at path, or the shards of a directory or glob
// (see [Shards]).
//
// The first record is the header (unless NoHeader); its names are trimmed of
// spaces and must be non-empty and distinct. The label column and the dropped
// columns must exist. The feature matrix X holds every other column, in file
// order. Every cell outside the dropped columns must be a number (surrounding
// spaces are allowed); an empty one is a missing value (see
// CSVOptions.Missing). A dropped column whose cells are all numbers still
// appears in Columns; one with another cell is a text column (see Set.Text).
// Fields may be quoted as in RFC 4180; empty lines are skipped. A leading
// UTF-8 byte order mark is ignored. The returned set has Format "csv".
func LoadCSV(path string, opt CSVOptions) (*Set, error) {
	if shards, ok, err := Shards(path); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return loadShards(path, shards, opt.MaxMemory, func(p string) (*Set, error) { return LoadCSV(p, opt) })
	}
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src := source{r: f}
	if data, unmap, ok := mapFile(f, size); ok {
		defer unmap()
		src = source{data: data, f: f}
	}
	return readCSV(src, size, path, opt)
}

// ReadCSV is like [LoadCSV] but reads from r; path names the data in errors
// and in the returned set.
func ReadCSV(r io.Reader, path string, opt CSVOptions) (*Set, error) {
	return readCSV(source{r: r}, 0, path, opt)
}

// Column roles.
const (
	roleFeature = iota
	roleLabel
	roleDrop
)

// csvLayout is what the header says about the columns.
type csvLayout struct {
	names    []string
	role     []int
	features []int // column numbers of the features, in file order
	label    int   // column number of the label, or -1
	sep      byte
	drop     bool // missing = "drop"
}

// csvText holds a dropped column's cells as categories within one part.
type csvText struct {
	codes  []int32 // 0-based code per row
	levels []string
	index  map[string]int32
}

// csvPart is what parsing one chunk of a CSV file gives.
type csvPart struct {
	err     *Error
	cols    [][]float64 // per column: the numeric values (nil for text-only)
	notNum  []bool      // dropped columns with a cell that is not a number
	text    []*csvText  // per dropped column
	rows    int
	dropped int
	size    int
	endLine int // the line after the part's last, counted from 1 at the part's start
	seq     int
	retry   bool // the direct path leaves the file to the block-parts path: a text column, or the block could not be read
}

func readCSV(src source, size int64, path string, opt CSVOptions) (*Set, error) {
	lay := &csvLayout{sep: ','}
	if opt.Sep != 0 {
		if opt.Sep == '"' || opt.Sep == '\n' || opt.Sep == '\r' {
			return nil, &Error{Path: path, Option: "sep", Msg: fmt.Sprintf("invalid separator %q", opt.Sep)}
		}
		lay.sep = opt.Sep
	}
	switch opt.Missing {
	case "", "error":
	case "drop":
		lay.drop = true
	default:
		return nil, &Error{Path: path, Option: "missing", Msg: fmt.Sprintf("invalid option missing = %s (want \"error\" or \"drop\")", quoteString(opt.Missing))}
	}
	b := newBudget(opt.MaxMemory)
	var (
		rows, total int64 // rows and bytes parsed so far
		over        *Error
		overSeq     int
	)
	stop := func(p csvPart) bool {
		if p.err != nil || over != nil {
			return false
		}
		total += int64(p.size)
		rows += int64(p.rows)
		if msg := csvEarly(rows, total, size, lay, b, opt.Columns); msg != "" {
			over, overSeq = &Error{Path: path, Line: p.endLine - 1, Msg: msg}, p.seq
			return true
		}
		return false
	}
	parse := func(c chunk) csvPart {
		pos := 0
		if c.seq == 0 {
			var err *Error
			if pos, err = csvHeader(c, path, opt, lay); err != nil {
				return csvPart{err: err}
			}
		}
		return parseCSV(c, pos, path, lay)
	}
	if src.data != nil {
		if s, ok, err := readCSVDirect(src, size, path, opt, lay, b, parse); ok {
			return s, err
		}
		*lay = csvLayout{sep: lay.sep, drop: lay.drop}
	}
	parts, err := parallel(src, cutCSV, parse, func(err error) csvPart { return csvPart{err: ioError(path, "read", err)} },
		func(p csvPart) bool { return p.err != nil }, stop)
	breaks := make([]int, len(parts))
	for k, p := range parts {
		breaks[k] = p.endLine - 1
	}
	base := lineBases(breaks)
	if k := len(parts) - 1; k >= 0 && parts[k].err != nil {
		return nil, shiftLine(parts[k].err, base[k])
	}
	var tl tooLongError
	switch {
	case over != nil:
		return nil, shiftLine(over, base[overSeq])
	case errors.As(err, &tl):
		return nil, errorf(path, base[tl.seq]+tl.extra, 0, "record longer than %d bytes", MaxLine)
	case err != nil:
		return nil, ioError(path, "read", err)
	case lay.names == nil:
		return nil, errorf(path, 0, 0, "no data rows")
	}
	return buildCSV(parts, path, lay, b, opt)
}

// csvEarly returns the message refusing a CSV set whose first total bytes
// (of size, or 0 for a reader) hold rows rows, when the set they announce
// will not fit, or "".
func csvEarly(rows, total, size int64, lay *csvLayout, b budget, cols []string) string {
	if size > 0 && total >= size {
		return "" // the whole file: the final check says more
	}
	// X, the columns Columns keeps and Y each hold their cells.
	held := 8 * rows * int64(len(lay.features)+keptColumns(cols, lay.names)+1)
	need, what := held, "the rows read so far"
	if size > 0 {
		need = int64(float64(held) * float64(size) / float64(total))
		what = fmt.Sprintf("the set (estimated from the first %s of %s)", FormatBytes(total), FormatBytes(size))
	}
	return b.exceeded(need, what)
}

// cutCSV cuts buf after the last newline that ends a record: one outside
// quotes. A prefix of nothing but empty lines is not cut, so that the first
// block holds the header.
func cutCSV(buf []byte) int {
	k := cutRecords(buf)
	if len(bytes.Trim(buf[:k], "\r\n\uFEFF")) == 0 {
		return 0
	}
	return k
}

func cutRecords(buf []byte) int {
	if bytes.IndexByte(buf, '"') < 0 {
		return cutLines(buf)
	}
	in, last := false, 0
	for i, c := range buf {
		switch {
		case c == '"':
			in = !in
		case c == '\n' && !in:
			last = i + 1
		}
	}
	return last
}

// csvField is one field of a record.
type csvField struct {
	val       []byte
	line, col int
}

// csvReader reads records from a chunk.
type csvReader struct {
	buf     []byte
	pos     int
	line    int // line of pos
	ls      int // offset of the start of line; may be negative for a BOM
	sep     byte
	path    string
	fields  []csvField
	scratch []byte
}

// next reads the next non-empty record into r.fields. It returns false at
// the end of the chunk.
func (r *csvReader) next() (bool, *Error) {
	buf := r.buf
	// Skip empty lines.
	for r.pos < len(buf) {
		switch {
		case buf[r.pos] == '\n':
			r.pos++
			r.line++
			r.ls = r.pos
			continue
		case buf[r.pos] == '\r' && r.pos+1 < len(buf) && buf[r.pos+1] == '\n':
			r.pos += 2
			r.line++
			r.ls = r.pos
			continue
		}
		break
	}
	if r.pos >= len(buf) {
		return false, nil
	}
	r.fields = r.fields[:0]
	r.scratch = r.scratch[:0]
	recStart, recLine := r.pos, r.line
	for {
		start := r.pos
		f := csvField{line: r.line, col: start - r.ls + 1}
		if start < len(buf) && buf[start] == '"' {
			r.pos++
			sStart := len(r.scratch)
			for {
				k := bytes.IndexByte(buf[r.pos:], '"')
				if k < 0 {
					return false, &Error{Path: r.path, Line: f.line, Col: f.col, Msg: `extraneous or missing " in quoted-field`}
				}
				seg := buf[r.pos : r.pos+k]
				for {
					nl := bytes.IndexByte(seg, '\n')
					if nl < 0 {
						break
					}
					r.line++
					r.ls = r.pos + (len(buf[r.pos:r.pos+k]) - len(seg)) + nl + 1
					seg = seg[nl+1:]
				}
				r.scratch = append(r.scratch, buf[r.pos:r.pos+k]...)
				r.pos += k + 1
				if r.pos < len(buf) && buf[r.pos] == '"' {
					r.scratch = append(r.scratch, '"')
					r.pos++
					continue
				}
				break
			}
			f.val = r.scratch[sStart:len(r.scratch):len(r.scratch)]
			if r.pos < len(buf) && buf[r.pos] == '\r' && r.pos+1 < len(buf) && buf[r.pos+1] == '\n' {
				r.pos++
			}
			if r.pos < len(buf) && buf[r.pos] != r.sep && buf[r.pos] != '\n' {
				return false, &Error{Path: r.path, Line: r.line, Col: r.pos - r.ls, Msg: `extraneous or missing " in quoted-field`}
			}
		} else {
			i := start
			for i < len(buf) {
				c := buf[i]
				if c == r.sep || c == '\n' {
					break
				}
				if c == '"' {
					return false, &Error{Path: r.path, Line: r.line, Col: i - r.ls + 1, Msg: `bare " in non-quoted-field`}
				}
				i++
			}
			end := i
			if end > start && buf[end-1] == '\r' && (end == len(buf) || buf[end] == '\n') {
				end--
			}
			f.val = buf[start:end]
			r.pos = i
		}
		r.fields = append(r.fields, f)
		if r.pos-recStart > MaxLine {
			return false, errorf(r.path, recLine, 0, "record longer than %d bytes", MaxLine)
		}
		if r.pos < len(buf) && buf[r.pos] == r.sep {
			r.pos++
			continue
		}
		// End of record.
		if r.pos < len(buf) {
			r.pos++ // the '\n'
			r.line++
			r.ls = r.pos
		}
		return true, nil
	}
}

// csvHeader reads the header (or, with NoHeader, counts the columns of the
// first record) and fills lay. It returns the offset where the data start.
func csvHeader(c chunk, path string, opt CSVOptions, lay *csvLayout) (int, *Error) {
	r := &csvReader{buf: c.buf, line: c.line, sep: lay.sep, path: path}
	if bytes.HasPrefix(c.buf, bom) {
		r.pos = len(bom)
	}
	ok, err := r.next()
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errorf(path, 0, 0, "no data rows")
	}
	headerLine := r.fields[0].line
	names := make([]string, len(r.fields))
	seen := make(map[string]int, len(names)) // name → 1-based field number
	for j, f := range r.fields {
		if opt.NoHeader {
			names[j] = "c" + strconv.Itoa(j+1)
			seen[names[j]] = j + 1
			continue
		}
		name := string(bytes.TrimSpace(f.val))
		if name == "" {
			return 0, errorf(path, f.line, f.col, "empty column name in header (field %d)", j+1)
		}
		if k, dup := seen[name]; dup {
			return 0, errorf(path, f.line, f.col, "duplicate column name %s (also field %d)", quoteString(name), k)
		}
		seen[name] = j + 1
		names[j] = name
	}
	unknown := func(option, name string) *Error {
		return &Error{Path: path, Line: headerLine, Option: option, Column: name,
			Msg: fmt.Sprintf("unknown column %s (columns: %s)", quoteString(name), nameList(names))}
	}
	lay.label = -1
	role := make([]int, len(names))
	if opt.Label != "" {
		k, ok := seen[opt.Label]
		if !ok {
			return 0, unknown("label", opt.Label)
		}
		lay.label = k - 1
		role[k-1] = roleLabel
	}
	for _, name := range opt.Drop {
		k, ok := seen[name]
		if !ok {
			return 0, unknown("drop", name)
		}
		if k-1 == lay.label {
			return 0, &Error{Path: path, Line: headerLine, Option: "drop", Column: name,
				Msg: fmt.Sprintf("column %s is both the label and dropped", quoteString(name))}
		}
		role[k-1] = roleDrop
	}
	for j := range names {
		if role[j] == roleFeature {
			lay.features = append(lay.features, j)
		}
	}
	if len(lay.features) == 0 {
		return 0, errorf(path, headerLine, 0, "no feature columns: every column is the label or dropped")
	}
	lay.names, lay.role = names, role
	if opt.NoHeader {
		if bytes.HasPrefix(c.buf, bom) {
			return len(bom), nil
		}
		return 0, nil
	}
	return r.pos, nil
}

// nameList lists header names for a message: at most 20, each shortened and
// sanitised when it is long or holds unusual characters.
func nameList(names []string) string {
	var b strings.Builder
	for j, n := range names {
		if j == 20 {
			fmt.Fprintf(&b, ", ... (%d in all)", len(names))
			break
		}
		if j > 0 {
			b.WriteString(", ")
		}
		if len(n) > maxToken || strings.ContainsFunc(n, func(r rune) bool { return r < ' ' || r == 0x7f || r == '"' || r == 0xFFFD }) {
			b.WriteString(quoteString(n))
		} else {
			b.WriteString(n)
		}
	}
	return b.String()
}

// parseCSV parses the records of one chunk from offset pos.
func parseCSV(c chunk, pos int, path string, lay *csvLayout) csvPart {
	ncol := len(lay.names)
	r := &csvReader{buf: c.buf, pos: pos, line: c.line, sep: lay.sep, path: path}
	if pos > 0 {
		// After the header: find the line and line start of pos.
		r.line += bytes.Count(c.buf[:pos], []byte{'\n'})
		r.ls = bytes.LastIndexByte(c.buf[:pos], '\n') + 1
	}
	estRows := len(c.buf)/(2*ncol) + 1
	p := csvPart{size: len(c.buf), cols: make([][]float64, ncol), notNum: make([]bool, ncol), text: make([]*csvText, ncol)}
	for j := range ncol {
		p.cols[j] = make([]float64, 0, min(estRows, 1<<16))
		if lay.role[j] == roleDrop {
			p.text[j] = &csvText{index: map[string]int32{}}
		}
	}
	row := make([]float64, ncol)
	codes := make([]int32, ncol)
	fail := func(e *Error) csvPart { return csvPart{err: e} }
records:
	for {
		ok, err := r.next()
		if err != nil {
			return fail(err)
		}
		if !ok {
			break
		}
		if len(r.fields) != ncol {
			return fail(errorf(path, r.fields[0].line, 0, "row has %d fields, want %d like the header", len(r.fields), ncol))
		}
		for j, f := range r.fields {
			cell := bytes.TrimSpace(f.val)
			if lay.role[j] == roleDrop {
				t := p.text[j]
				if t.index != nil {
					code, ok := t.index[string(cell)]
					if !ok {
						if len(t.levels) >= maxLevels {
							t.index = nil // not a category column
						} else {
							code = int32(len(t.levels))
							t.levels = append(t.levels, string(cell))
							t.index[t.levels[code]] = code
						}
					}
					codes[j] = code
				}
				if !p.notNum[j] {
					v, ok := parseFloat(cell)
					if !ok {
						p.notNum[j] = true
					}
					row[j] = v
				}
				continue
			}
			if len(cell) == 0 {
				if lay.drop {
					p.dropped++
					continue records
				}
				return fail(missingCell(path, f.line, f.col, lay.names[j]))
			}
			v, ok := parseFloat(cell)
			if !ok {
				return fail(&Error{Path: path, Line: f.line, Col: f.col, Column: lay.names[j],
					Msg: badCell(cell, lay.names[j])})
			}
			row[j] = v
		}
		for j := range ncol {
			if !p.notNum[j] {
				p.cols[j] = append(p.cols[j], row[j])
			}
			if t := p.text[j]; t != nil && t.index != nil {
				t.codes = append(t.codes, codes[j])
			}
		}
		p.rows++
	}
	for j := range ncol {
		if p.notNum[j] {
			p.cols[j] = nil
		}
	}
	p.endLine, p.seq = r.line, c.seq
	return p
}

// buildCSV assembles the set from the parts.
func buildCSV(parts []csvPart, path string, lay *csvLayout, b budget, opt CSVOptions) (*Set, error) {
	ncol := len(lay.names)
	n, dropped := 0, 0
	notNum := make([]bool, ncol)
	for _, p := range parts {
		n += p.rows
		dropped += p.dropped
		for j := range ncol {
			notNum[j] = notNum[j] || p.notNum[j]
		}
	}
	if n == 0 {
		if dropped > 0 {
			return nil, errorf(path, 0, 0, "no data rows: all %d rows have a missing value (missing = \"drop\")", dropped)
		}
		return nil, errorf(path, 0, 0, "no data rows")
	}
	d := len(lay.features)
	numeric, kept := 0, 0
	for j := range ncol {
		if !notNum[j] {
			numeric++
			if keepsColumn(opt.Columns, lay.names[j]) {
				kept++
			}
		}
	}
	need := denseBytes(n, d) + denseBytes(n, kept) // X and Columns
	if lay.label >= 0 {
		need += 8 * int64(n) // Y
	}
	if msg := b.exceeded(need, matrixWhat(n, d, kept, numeric)); msg != "" {
		return nil, errorf(path, 0, 0, "%s", msg)
	}
	s := &Set{
		Path:      path,
		Format:    "csv",
		Features:  make([]string, d),
		Columns:   make(map[string][]float64),
		Dropped:   dropped,
		maxMemory: opt.MaxMemory,
	}
	// merge returns column j's values from the parts
	merge := func(j int) []float64 {
		c := makeFloats(0, n)
		for _, p := range parts {
			c = append(c, p.cols[j]...)
		}
		return c
	}
	for j := range ncol {
		if notNum[j] {
			continue
		}
		var c []float64
		if keepsColumn(opt.Columns, lay.names[j]) {
			c = merge(j)
		}
		s.Columns[lay.names[j]] = c
	}
	x := makeFloats(n*d, n*d)
	for k, j := range lay.features {
		s.Features[k] = lay.names[j]
	}
	first := make([]int, len(parts)) // each part's first row
	for k := 1; k < len(parts); k++ {
		first[k] = first[k-1] + parts[k-1].rows
	}
	parallelFor(len(parts), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			p := &parts[k]
			for i := range p.rows {
				row := x[(first[k]+i)*d : (first[k]+i+1)*d]
				for f, j := range lay.features {
					row[f] = p.cols[j][i]
				}
			}
		}
	})
	s.X = mat.NewDense(n, d, x)
	s.n, s.d = n, d
	if lay.label >= 0 {
		s.LabelName = lay.names[lay.label]
		s.Y = merge(lay.label)
	}
	// Text columns: dropped columns with a cell that is not a number.
	for j := range ncol {
		if lay.role[j] != roleDrop || !notNum[j] {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && p.text[j].index != nil
		}
		if !ok {
			if opt.Columns != nil && keepsColumn(opt.Columns, lay.names[j]) {
				return nil, tooManyLevels(path, lay.names[j])
			}
			continue
		}
		var levels []string
		index := map[string]int32{}
		codes := make([]float64, 0, n)
		for _, p := range parts {
			t := p.text[j]
			remap := make([]float64, len(t.levels))
			for k, l := range t.levels {
				g, seen := index[l]
				if !seen {
					g = int32(len(levels))
					levels = append(levels, l)
					index[l] = g
				}
				remap[k] = float64(g + 1)
			}
			for _, c := range t.codes {
				codes = append(codes, remap[c])
			}
		}
		if len(levels) > maxLevels {
			if opt.Columns != nil && keepsColumn(opt.Columns, lay.names[j]) {
				return nil, tooManyLevels(path, lay.names[j])
			}
			continue
		}
		if s.Text == nil {
			s.Text = map[string]*TextColumn{}
		}
		s.Text[lay.names[j]] = &TextColumn{Levels: levels}
		if !keepsColumn(opt.Columns, lay.names[j]) {
			codes = nil
		}
		s.Columns[lay.names[j]] = codes
	}
	return s, nil
}

// missingCell is the error for an empty cell at line:col of column name.
func missingCell(path string, line, col int, name string) *Error {
	return &Error{Path: path, Line: line, Col: col, Column: name,
		Msg: fmt.Sprintf("missing value (empty cell) in column %s; csv(..., missing = \"drop\") leaves such rows out", quoteString(name))}
}
