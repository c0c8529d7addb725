package data

import (
	"bytes"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// Parsing straight into the set.
//
// A mapped file of several blocks is parsed without parts: its blocks are
// cut first, their lines counted on all cores (a line holds at most one
// row, so the counts bound the rows of each block), and the first block is
// parsed on its own to fix the number of columns. The set's final arrays
// are then allocated once, for the bound, and each block is parsed on any
// core straight into its own range of rows. Rows a block did not fill
// (blank and comment lines, rows dropped for a missing value) are closed up
// afterwards by moving the later rows down. Whatever this path cannot
// settle — a line too long, a first block that fails or announces a set
// too large, a later index beyond the first block's largest, a CSV text
// column — is left to the block-parts path, which then parses the file
// from the start and gives the same set or error as it always did.

// directLoads counts the loads the direct path settled, with a set or an
// error (for the tests, which check that it is taken).
var directLoads atomic.Int64

// directChunks cuts a mapped file into chunks as the block-parts path does.
// ok is false when the file is a single chunk or holds a line too long.
func directChunks(src source, cut cutFunc) (cs []chunk, ok bool) {
	err := splitChunks(src.data, src.blockSize(), cut, func(c chunk) bool { cs = append(cs, c); return true })
	return cs, err == nil && len(cs) >= 2
}

// blockReader returns a chunk's bytes: its own when f is nil, else read
// from f at the chunk's offset into *buf (grown as needed), so that a pass
// over a mapped file reads the page cache through the kernel's large pages
// into a small buffer that stays in the cache, instead of through the
// mapping's 4 KiB pages (a pass over 186 MB costs 0.018 CPU seconds read
// so, 0.065 through the mapping). ok is false when the read comes short:
// the file changed.
type blockReader func(c chunk, buf *[]byte) (_ chunk, ok bool)

func readBlocks(f io.ReaderAt, chunkSize int) blockReader {
	if f == nil {
		return func(c chunk, _ *[]byte) (chunk, bool) { return c, true }
	}
	return func(c chunk, buf *[]byte) (chunk, bool) {
		if cap(*buf) < len(c.buf) {
			*buf = make([]byte, max(len(c.buf), chunkSize))
		}
		b := (*buf)[:len(c.buf)]
		if n, _ := f.ReadAt(b, c.off); n != len(b) {
			return c, false
		}
		c.buf = b
		return c, true
	}
}

// countLines returns, for each chunk, its line breaks and its lines (one
// more when its last line has no line break), counted on all cores. ok is
// false when a block could not be read or the mapped file faulted (it was
// truncated while read): the block-parts path then reports it.
func countLines(cs []chunk, read blockReader) (breaks, lines []int, ok bool) {
	breaks, lines = make([]int, len(cs)), make([]int, len(cs))
	var failed atomic.Bool
	parallelFor(len(cs), func(lo, hi int) {
		old := debug.SetPanicOnFault(true)
		defer func() {
			debug.SetPanicOnFault(old)
			if recover() != nil {
				failed.Store(true)
			}
		}()
		var buf []byte
		for k := lo; k < hi; k++ {
			c, ok := read(cs[k], &buf)
			if !ok {
				failed.Store(true)
				return
			}
			breaks[k] = bytes.Count(c.buf, []byte{'\n'})
			lines[k] = breaks[k]
			if len(c.buf) > 0 && c.buf[len(c.buf)-1] != '\n' {
				lines[k]++
			}
		}
	})
	return breaks, lines, !failed.Load()
}

// eachChunk calls parse(k, buf) for k = 1 .. n-1 on up to GOMAXPROCS
// goroutines, each with a buffer of its own for blockReader. When parse
// returns true (the chunk failed), no chunk after k is started; chunks
// already started run to their end.
func eachChunk(n int, parse func(k int, buf *[]byte) bool) {
	var next atomic.Int64
	next.Store(1)
	var halt atomic.Int64 // the lowest chunk that failed, or n
	halt.Store(int64(n))
	work := func() {
		var buf []byte
		for {
			k := next.Add(1) - 1
			if k >= int64(n) || k > halt.Load() {
				return
			}
			if parse(int(k), &buf) {
				for h := halt.Load(); k < h && !halt.CompareAndSwap(h, k); h = halt.Load() {
				}
			}
		}
	}
	w := min(runtime.GOMAXPROCS(0), n-1)
	var wg sync.WaitGroup
	for range w - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}

// closeUp moves the rows of each block down so that they follow each other:
// block k filled rows[k] rows of width w from row start[k], and the blocks
// are in order. It returns the number of rows.
func closeUp(x []float64, w int, start, rows []int) int {
	n := 0
	for k, r := range rows {
		if start[k] != n && r > 0 {
			copy(x[n*w:(n+r)*w], x[start[k]*w:(start[k]+r)*w])
		}
		n += r
	}
	return n
}

// trim returns x[:n], copied into a slice of its own when x's capacity is
// more than an eighth larger (the bound on the rows was far off), so that a
// set does not keep memory it does not use.
func trim(x []float64, n int) []float64 {
	if cap(x)-n > cap(x)/8 {
		c := makeFloats(n, n)
		copy(c, x[:n])
		return c
	}
	return x[:n:n]
}

// readLibSVMDense loads a mapped LIBSVM file whose first block shows a
// dense set straight into the dense matrix. ok is false when it leaves the
// file to the block-parts path (see above).
func readLibSVMDense(src source, size int64, path string, opt LibSVMOptions, b budget) (s *Set, ok bool, err error) {
	cs, ok := directChunks(src, cutLines)
	if !ok {
		return nil, false, nil
	}
	fault := func(err error) svmPart { return svmPart{err: ioError(path, "read", err)} }
	parse := func(dst *svmDense) func(chunk) svmPart {
		return func(c chunk) svmPart { return parseSVM(c, path, opt.Features, dst) }
	}
	p0 := guard(parse(nil), fault, cs[0])
	d := opt.Features
	if d == 0 {
		d = p0.maxIdx
	}
	if p0.err != nil || p0.rows == 0 || d == 0 || preferSparse(p0.rows, d, len(p0.vals)) ||
		svmEarly(int64(p0.rows), int64(len(p0.vals)), int64(p0.maxIdx), int64(p0.size), size, b) != "" {
		return nil, false, nil
	}
	read := readBlocks(src.f, src.blockSize())
	breaks, lines, ok := countLines(cs, read)
	if !ok {
		return nil, false, nil
	}
	breaks[0] = p0.endLine - 1
	start := make([]int, len(cs)) // the first row of each block in x
	bound := p0.rows
	for k := 1; k < len(cs); k++ {
		start[k] = bound
		bound += lines[k]
	}
	if denseBytes(bound, d)+8*int64(bound) > b.limit {
		return nil, false, nil
	}
	x, y := makeFloats(bound*d, bound*d), makeFloats(bound, bound)
	parts := make([]svmPart, len(cs))
	parts[0] = p0
	eachChunk(len(cs), func(k int, buf *[]byte) bool {
		c, ok := read(cs[k], buf)
		if !ok {
			parts[k] = svmPart{retry: true}
			return true
		}
		lo, hi := start[k], start[k]+lines[k]
		p := guard(parse(&svmDense{x: x[lo*d : hi*d], y: y[lo:hi], d: d}), fault, c)
		parts[k] = p
		return p.err != nil || p.retry
	})
	base := lineBases(breaks)
	if retry, err := partsFailed(parts, base, func(p svmPart) (bool, *Error) { return p.retry, p.err }); retry || err != nil {
		return nil, !retry, err
	}
	// The first block's rows.
	for i, end, st := 0, 0, 0; i < p0.rows; i, st = i+1, end {
		end = p0.rowEnd[i]
		row := x[i*d : (i+1)*d]
		for k := st; k < end; k++ {
			row[p0.cols[k]] = p0.vals[k]
		}
		y[i] = p0.labels[i]
	}
	rows := make([]int, len(cs))
	s = &Set{Path: path, Format: "libsvm", maxMemory: opt.MaxMemory}
	nnz := 0
	for k, p := range parts {
		rows[k] = p.rows
		nnz += p.nnz
		if p.maxIdx > s.d {
			s.d, s.maxIdxLine, s.maxIdxCol = p.maxIdx, p.maxLine+base[k]-1, p.maxCol
		}
	}
	nnz += len(p0.vals)
	n := closeUp(x, d, start, rows)
	closeUp(y, 1, start, rows)
	s.n, s.d = n, d

	if !preferSparse(n, d, nnz) { // the dense matrix fits: its bound did
		s.X, s.Y = mat.NewDense(n, d, trim(x, n*d)), trim(y, n)
		s.Features = make([]string, d)
		for j := range s.Features {
			s.Features[j] = "f" + strconv.Itoa(j+1)
		}
		directLoads.Add(1)
		return s, true, nil
	}
	// Fewer nonzeros than the first block showed: store CSR, as the
	// block-parts path would (it fits: the dense bound did).
	m := &CSR{Rows: n, Cols: d, RowPtr: make([]int, 1, n+1), ColIdx: makeInt32s(0, nnz), Val: makeFloats(0, nnz)}
	for i := range n {
		for j, v := range x[i*d : (i+1)*d] {
			if v != 0 {
				m.ColIdx = append(m.ColIdx, int32(j))
				m.Val = append(m.Val, v)
			}
		}
		m.RowPtr = append(m.RowPtr, len(m.Val))
	}
	s.Sparse, s.Y = m, trim(y, n)
	directLoads.Add(1)
	return s, true, nil
}

// csvDense is the set's arrays a CSV chunk's records are parsed into, from
// the chunk's first row on: x holds rows of the d features, cols[j] column
// j's cells (every column is numeric on this path), y the labels or nil.
type csvDense struct {
	x    []float64
	cols [][]float64
	y    []float64
}

// numberByte reports whether c may appear in a number, so that it cannot
// separate fields on the fast path.
func numberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E'
}

// readCSVDirect loads a mapped CSV file of numeric columns straight into X,
// Columns and Y. parse parses a chunk into a part as the block-parts path
// does (the first one with its header, filling lay). ok is false when it
// leaves the file to the block-parts path (see above).
func readCSVDirect(src source, size int64, path string, opt CSVOptions, lay *csvLayout, b budget, parse func(chunk) csvPart) (s *Set, ok bool, err error) {
	if numberByte(lay.sep) {
		return nil, false, nil
	}
	cs, ok := directChunks(src, cutCSV)
	if !ok {
		return nil, false, nil
	}
	fault := func(err error) csvPart { return csvPart{err: ioError(path, "read", err)} }
	p0 := guard(parse, fault, cs[0])
	if p0.err != nil || p0.rows == 0 || slices.Contains(p0.notNum, true) ||
		csvEarly(int64(p0.rows), int64(p0.size), size, lay, b, opt.Columns) != "" {
		return nil, false, nil
	}
	ncol, d := len(lay.names), len(lay.features)
	read := readBlocks(src.f, src.blockSize())
	breaks, lines, ok := countLines(cs, read)
	if !ok {
		return nil, false, nil
	}
	breaks[0] = p0.endLine - 1
	start := make([]int, len(cs)) // the first row of each block
	bound := p0.rows
	for k := 1; k < len(cs); k++ {
		start[k] = bound
		bound += lines[k]
	}
	need := denseBytes(bound, d) + denseBytes(bound, keptColumns(opt.Columns, lay.names))
	if lay.label >= 0 {
		need += 8 * int64(bound)
	}
	if need > b.limit {
		return nil, false, nil
	}
	x := makeFloats(bound*d, bound*d)
	cols := make([][]float64, ncol) // nil for a column Columns does not keep
	for j := range cols {
		if keepsColumn(opt.Columns, lay.names[j]) {
			cols[j] = makeFloats(bound, bound)
		}
	}
	var y []float64
	if lay.label >= 0 {
		y = makeFloats(bound, bound)
	}
	parts := make([]csvPart, len(cs))
	parts[0] = p0
	eachChunk(len(cs), func(k int, buf *[]byte) bool {
		c, ok := read(cs[k], buf)
		if !ok {
			parts[k] = csvPart{retry: true}
			return true
		}
		lo, hi := start[k], start[k]+lines[k]
		dst := &csvDense{x: x[lo*d : hi*d], cols: make([][]float64, ncol)}
		for j, c := range cols {
			if c != nil {
				dst.cols[j] = c[lo:hi]
			}
		}
		if y != nil {
			dst.y = y[lo:hi]
		}
		p := guard(func(c chunk) csvPart { return parseCSVInto(c, path, lay, dst) }, fault, c)
		parts[k] = p
		return p.err != nil || p.retry
	})
	base := lineBases(breaks)
	if retry, err := partsFailed(parts, base, func(p csvPart) (bool, *Error) { return p.retry, p.err }); retry || err != nil {
		return nil, !retry, err
	}
	// The first block's rows.
	for i := range p0.rows {
		for k, j := range lay.features {
			x[i*d+k] = p0.cols[j][i]
		}
	}
	for j, c := range cols {
		copy(c, p0.cols[j])
	}
	if y != nil {
		copy(y, p0.cols[lay.label])
	}
	rows := make([]int, len(cs))
	dropped := 0
	for k, p := range parts {
		rows[k] = p.rows
		dropped += p.dropped
	}
	n := closeUp(x, d, start, rows)
	for _, c := range cols {
		if c != nil {
			closeUp(c, 1, start, rows)
		}
	}
	if y != nil {
		closeUp(y, 1, start, rows)
	}
	s = &Set{
		Path:      path,
		Format:    "csv",
		X:         mat.NewDense(n, d, trim(x, n*d)),
		Features:  make([]string, d),
		Columns:   make(map[string][]float64, ncol),
		Dropped:   dropped,
		n:         n,
		d:         d,
		maxMemory: opt.MaxMemory,
	}
	for k, j := range lay.features {
		s.Features[k] = lay.names[j]
	}
	for j, c := range cols {
		if c != nil {
			c = trim(c, n)
		}
		s.Columns[lay.names[j]] = c
	}
	if y != nil {
		s.LabelName = lay.names[lay.label]
		s.Y = trim(y, n)
	}
	directLoads.Add(1)
	return s, true, nil
}

// parseCSVInto parses the records of one chunk (not the first: no header)
// into dst. A record of numbers, each surrounded by nothing but spaces, is
// read in one pass that converts the numbers as it finds the separators;
// any other record (quoted fields, empty cells, other spaces, errors) is
// read again by csvReader and checked as parseCSV does, so that values and
// errors are the same. A cell that is not a number in a dropped column
// stops the parse with retry set (the column is text: the block-parts path
// handles it).
func parseCSVInto(c chunk, path string, lay *csvLayout, dst *csvDense) csvPart {
	buf := c.buf
	n := len(buf)
	ncol, sep := len(lay.names), lay.sep
	d := len(lay.features)
	feat := make([]int, ncol) // position among the features, or -1
	for j := range feat {
		feat[j] = -1
	}
	for k, j := range lay.features {
		feat[j] = k
	}
	label := lay.label
	p := csvPart{size: n}
	r := &csvReader{buf: buf, sep: sep, path: path}
	row := make([]float64, ncol)
	pos, line, ls := 0, c.line, 0
	i := 0               // the next row
	spaces := sep != ' ' // spaces may surround a number
records:
	for {
		for pos < n { // empty lines, as csvReader.next skips them
			if buf[pos] == '\n' {
				pos++
			} else if buf[pos] == '\r' && pos+1 < n && buf[pos+1] == '\n' {
				pos += 2
			} else {
				break
			}
			line++
			ls = pos
		}
		if pos >= n {
			break
		}
		// The fast path.
		q := pos
		xrow := dst.x[i*d : (i+1)*d]
		for j := 0; j < ncol; j++ {
			for spaces && q < n && buf[q] == ' ' {
				q++
			}
			v, end, ok := scanFloat(buf, q)
			if !ok {
				goto slow
			}
			for q = end; spaces && q < n && buf[q] == ' '; q++ {
			}
			if j < ncol-1 {
				if q == n || buf[q] != sep {
					goto slow
				}
				q++
			}
			if c := dst.cols[j]; c != nil {
				c[i] = v
			}
			if k := feat[j]; k >= 0 {
				xrow[k] = v
			}
			if j == label {
				dst.y[i] = v
			}
		}
		// The end of the record: a line break, CRLF or the end of the chunk.
		switch {
		case q == n:
		case buf[q] == '\n':
			q++
			line++
		case buf[q] == '\r' && q+1 < n && buf[q+1] == '\n':
			q += 2
			line++
		default:
			goto slow
		}
		if q-pos > MaxLine {
			goto slow
		}
		pos = q
		if pos <= n && buf[pos-1] == '\n' {
			ls = pos
		}
		i++
		continue
	slow:
		// csvReader and the checks of parseCSV.
		r.pos, r.line, r.ls = pos, line, ls
		if ok, err := r.next(); err != nil {
			return csvPart{err: err}
		} else if !ok {
			break
		}
		pos, line, ls = r.pos, r.line, r.ls
		if len(r.fields) != ncol {
			return csvPart{err: errorf(path, r.fields[0].line, 0, "row has %d fields, want %d like the header", len(r.fields), ncol)}
		}
		for j, f := range r.fields {
			cell := bytes.TrimSpace(f.val)
			if lay.role[j] == roleDrop {
				v, ok := parseFloat(cell)
				if !ok {
					return csvPart{retry: true} // a text column
				}
				row[j] = v
				continue
			}
			if len(cell) == 0 {
				if lay.drop {
					p.dropped++
					continue records
				}
				return csvPart{err: missingCell(path, f.line, f.col, lay.names[j])}
			}
			v, ok := parseFloat(cell)
			if !ok {
				return csvPart{err: &Error{Path: path, Line: f.line, Col: f.col, Column: lay.names[j],
					Msg: badCell(cell, lay.names[j])}}
			}
			row[j] = v
		}
		for j, v := range row {
			if c := dst.cols[j]; c != nil {
				c[i] = v
			}
			if k := feat[j]; k >= 0 {
				xrow[k] = v
			}
		}
		if label >= 0 {
			dst.y[i] = row[label]
		}
		i++
	}
	p.rows, p.endLine, p.seq = i, line, c.seq
	return p
}

// partsFailed looks at the blocks parsed into X, in file order: the first
// that asks for the block-parts path (retry) makes it report retry; the
// first with an error returns the error at its line in the file (base:
// each block's first line; the direct path counts as taken).
func partsFailed[P any](parts []P, base []int, status func(P) (retry bool, err *Error)) (retry bool, err error) {
	for k, p := range parts {
		r, e := status(p)
		if r {
			return true, nil
		}
		if e != nil {
			directLoads.Add(1)
			return false, shiftLine(e, base[k])
		}
	}
	return false, nil
}
