package data

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// LibSVMOptions controls [LoadLibSVM].
type LibSVMOptions struct {
	// Features, when positive, fixes the number of features d; an entry with
	// a larger index is an error. Zero means d is the largest index seen.
	Features int

	// MaxMemory, when positive, replaces [MemoryLimit] as the most bytes the
	// set may take.
	MaxMemory int64
}

// maxIndex is the largest LIBSVM feature index: CSR stores column numbers
// in 32 bits.
const maxIndex = 1<<31 - 1

// LoadLibSVM reads the LIBSVM file at path, or the shards of a directory or
// glob (see [Shards]).
//
// Each non-blank line is "label idx:value idx:value ...", with a numeric
// label and 1-based feature indices strictly increasing within the line;
// features a line leaves out are 0. Fields are separated by spaces or tabs,
// and "#" starts a comment that runs to the end of the line. A leading UTF-8
// byte order mark is ignored. The returned set has Format "libsvm" and nil
// Columns. It is stored sparse (Sparse set, X nil until [Set.Dense]) when its
// CSR form takes less than half the memory of a dense matrix or when only it
// fits in [MemoryLimit], and dense (X set, Features "f1".."fd") otherwise.
func LoadLibSVM(path string, opt LibSVMOptions) (*Set, error) {
	if shards, ok, err := Shards(path); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return loadShards(path, shards, opt.MaxMemory, func(p string) (*Set, error) { return LoadLibSVM(p, opt) })
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
	return readLibSVM(src, size, path, opt)
}

// ReadLibSVM is like [LoadLibSVM] but reads from r; path names the data in
// errors and in the returned set.
func ReadLibSVM(r io.Reader, path string, opt LibSVMOptions) (*Set, error) {
	return readLibSVM(source{r: r}, 0, path, opt)
}

// svmPart is what parsing one chunk of a LIBSVM file gives.
type svmPart struct {
	err     *Error
	labels  []float64
	rowEnd  []int // nonzeros in this part up to the end of each row
	cols    []int32
	vals    []float64
	maxIdx  int // largest index in the part, and where it first appears
	maxLine int
	maxCol  int
	size    int // bytes parsed
	endLine int // the line after the part's last, counted from 1 at the part's start
	seq     int

	rows  int  // rows parsed
	nnz   int  // nonzeros written, when parsed into a dense block
	retry bool // the direct path leaves the file to the block-parts path: an index beyond dst.d, or the block could not be read
}

func readLibSVM(src source, size int64, path string, opt LibSVMOptions) (*Set, error) {
	if opt.Features < 0 {
		return nil, &Error{Path: path, Option: "features", Msg: fmt.Sprintf("invalid option: %d features", opt.Features)}
	}
	b := newBudget(opt.MaxMemory)
	if src.data != nil {
		if s, ok, err := readLibSVMDense(src, size, path, opt, b); ok {
			return s, err
		}
	}
	var (
		sRows, sNNZ, sMax int64 // in the parts parsed so far
		over              *Error
		overSeq           int
		total             int64
	)
	stop := func(p svmPart) bool {
		if p.err != nil || over != nil {
			return false
		}
		sRows += int64(len(p.labels))
		sNNZ += int64(len(p.vals))
		sMax = max(sMax, int64(p.maxIdx))
		total += int64(p.size)
		if msg := svmEarly(sRows, sNNZ, sMax, total, size, b); msg != "" {
			over, overSeq = &Error{Path: path, Line: p.endLine - 1, Msg: msg}, p.seq
			return true
		}
		return false
	}
	parts, err := parallel(src, cutLines, func(c chunk) svmPart { return parseSVM(c, path, opt.Features, nil) },
		func(err error) svmPart { return svmPart{err: ioError(path, "read", err)} },
		func(p svmPart) bool { return p.err != nil }, stop)
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
		return nil, errorf(path, base[tl.seq]+tl.extra, 0, "line longer than %d bytes", MaxLine)
	case err != nil:
		return nil, ioError(path, "read", err)
	}

	n, nnz := 0, 0
	s := &Set{Path: path, Format: "libsvm", maxMemory: opt.MaxMemory}
	for k, p := range parts {
		n += len(p.labels)
		nnz += len(p.vals)
		if p.maxIdx > s.d {
			s.d, s.maxIdxLine, s.maxIdxCol = p.maxIdx, p.maxLine, p.maxCol
			s.maxIdxLine += base[k] - 1
		}
	}
	d := s.d
	if opt.Features > 0 {
		d = opt.Features
	}
	switch {
	case n == 0:
		return nil, errorf(path, 0, 0, "no data rows")
	case d == 0:
		return nil, errorf(path, 0, 0, "no features: every row is empty")
	}
	s.n, s.d = n, d

	dense := denseBytes(n, d) + 8*int64(n) // with the labels
	sparse := csrBytes(n, nnz) + 8*int64(n)
	if min(dense, sparse) > b.limit {
		what := fmt.Sprintf("a dense %d × %d matrix and %d labels", n, d, n)
		need := dense
		if sparse < dense {
			what, need = fmt.Sprintf("a sparse %d × %d matrix with %d nonzeros and %d labels", n, d, nnz, n), sparse
		}
		return nil, errorf(path, 0, 0, "%s", b.exceeded(need, what))
	}
	if !preferSparse(n, d, nnz) && dense <= b.limit {
		x := makeFloats(n*d, n*d)
		y := make([]float64, 0, n)
		first := make([]int, len(parts)) // first row of each part
		for k, p := range parts {
			first[k] = len(y)
			y = append(y, p.labels...)
		}
		parallelFor(len(parts), func(lo, hi int) {
			for k := lo; k < hi; k++ {
				p, i, start := &parts[k], first[k], 0
				for _, end := range p.rowEnd {
					row := x[i*d : (i+1)*d]
					for k := start; k < end; k++ {
						row[p.cols[k]] = p.vals[k]
					}
					start = end
					i++
				}
			}
		})
		s.X, s.Y = mat.NewDense(n, d, x), y
		s.Features = make([]string, d)
		for j := range s.Features {
			s.Features[j] = "f" + strconv.Itoa(j+1)
		}
		return s, nil
	}
	m := &CSR{Rows: n, Cols: d, RowPtr: make([]int, 1, n+1), ColIdx: makeInt32s(0, nnz), Val: makeFloats(0, nnz)}
	y := make([]float64, 0, n)
	for k := range parts {
		p := &parts[k]
		base := len(m.Val)
		for _, end := range p.rowEnd {
			m.RowPtr = append(m.RowPtr, base+end)
		}
		m.ColIdx = append(m.ColIdx, p.cols...)
		m.Val = append(m.Val, p.vals...)
		y = append(y, p.labels...)
		*p = svmPart{} // let the part go
	}
	s.Sparse, s.Y = m, y
	return s, nil
}

// svmEarly returns the message refusing a LIBSVM set whose first total
// bytes (of size, or 0 for a reader) hold rows rows, nnz nonzeros and
// indices up to maxIdx, when the set they announce will not fit, or "".
func svmEarly(rows, nnz, maxIdx, total, size int64, b budget) string {
	if size > 0 && total >= size {
		return "" // the whole file: the final check says more
	}
	// The least the set will take: dense or CSR, and the labels.
	held := 8*rows + min(8*rows*maxIdx, 12*nnz+8*rows)
	need, what := held, "the rows read so far"
	if size > 0 {
		need = int64(float64(held) * float64(size) / float64(total))
		what = fmt.Sprintf("the set (estimated from the first %s of %s)", FormatBytes(total), FormatBytes(size))
	}
	return b.exceeded(need, what)
}

// isSpace reports whether c separates LIBSVM fields. The carriage return
// makes files with CRLF line endings read cleanly.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// bom is the UTF-8 byte order mark.
var bom = []byte("\uFEFF")

// Byte classes of the LIBSVM scanner.
const (
	clSpace = 1 << iota // separates fields
	clEOL               // ends a line: '\n'
	clHash              // starts a comment
)

var svmClass = func() (t [256]uint8) {
	for _, c := range []byte(" \t\r\v\f") {
		t[c] = clSpace
	}
	t['\n'], t['#'] = clEOL, clHash
	return
}()

// svmDense is a block of rows of the final dense matrix that parseSVM
// writes a chunk's rows into instead of collecting them in a part: x holds
// at least as many zero rows of d values as the chunk has lines, y as many
// labels.
type svmDense struct {
	x, y []float64
	d    int
}

// parseSVM parses the lines of one chunk, into a part or, when dst is not
// nil, straight into dst's rows (the part then holds no rows, only their
// count and nonzeros, and retry set when a feature index exceeds dst.d).
func parseSVM(c chunk, path string, features int, dst *svmDense) svmPart {
	buf := c.buf
	var p svmPart
	var row []float64 // the current row of dst
	if dst == nil {
		est := len(buf)/8 + 1 // "j:v " takes at least 4 bytes; data files take about 10
		p = svmPart{cols: makeInt32s(0, est), vals: makeFloats(0, est),
			labels: make([]float64, 0, len(buf)/64+1), rowEnd: make([]int, 0, len(buf)/64+1)}
	}
	p.size = len(buf)
	fail := func(line, col int, format string, args ...any) svmPart {
		return svmPart{err: errorf(path, line, col, format, args...)}
	}
	line := c.line
	pos := 0
	n := len(buf)
	for pos < n {
		ls := pos // start of the line, for columns
		if c.off == 0 && pos == 0 && bytes.HasPrefix(buf, bom) {
			pos = len(bom)
		}
		for pos < n && svmClass[buf[pos]] == clSpace {
			pos++
		}
		if pos == n || svmClass[buf[pos]] != 0 { // blank or comment-only line
			k := bytes.IndexByte(buf[pos:], '\n')
			if k < 0 {
				pos = n
			} else {
				pos += k + 1
			}
			if pos-ls > MaxLine+1 {
				return fail(line, 0, "line longer than %d bytes", MaxLine)
			}
			line++
			continue
		}
		// The label, read in the pass that finds its end.
		start := pos
		y, end, ok := scanFloat(buf, pos)
		if !ok || end < n && svmClass[buf[end]] == 0 {
			for pos < n && svmClass[buf[pos]] == 0 {
				pos++
			}
			if pos-ls > MaxLine {
				return fail(line, 0, "line longer than %d bytes", MaxLine)
			}
			return fail(line, start-ls+1, "invalid label %s", quote(buf[start:pos]))
		}
		pos = end
		if pos-ls > MaxLine {
			return fail(line, 0, "line longer than %d bytes", MaxLine)
		}
		if dst != nil {
			row = dst.x[p.rows*dst.d : (p.rows+1)*dst.d]
		}
		prev, prevCol := 0, 0
		for {
			for pos < n && svmClass[buf[pos]] == clSpace {
				pos++
			}
			if pos == n || buf[pos] == '\n' {
				break
			}
			if buf[pos] == '#' {
				k := bytes.IndexByte(buf[pos:], '\n')
				if k < 0 {
					pos = n
				} else {
					pos += k
				}
				break
			}
			start := pos
			j := 0
			for pos < n {
				d := buf[pos] - '0'
				if d > 9 {
					break
				}
				if j <= maxIndex {
					j = j*10 + int(d)
				}
				pos++
			}
			col := start - ls + 1
			if pos == n || buf[pos] != ':' {
				// Not digits then ':' — find out which message fits.
				tokEnd := pos
				for tokEnd < n && svmClass[buf[tokEnd]] == 0 {
					tokEnd++
				}
				tok := buf[start:tokEnd]
				k := bytes.IndexByte(tok, ':')
				if k < 0 {
					return fail(line, col, "malformed feature %s (want index:value)", quote(tok))
				}
				return fail(line, col, "invalid feature index %s (want an integer >= 1)", quote(tok[:k]))
			}
			switch {
			case pos == start || j < 1:
				return fail(line, col, "invalid feature index %s (want an integer >= 1)", quote(buf[start:pos]))
			case j > maxIndex:
				return fail(line, col, "feature index %s is larger than %d, the largest supported", quote(buf[start:pos]), maxIndex)
			case j <= prev:
				return fail(line, col, "feature index %d after %d (indices must be strictly increasing)", j, prev)
			case features > 0 && j > features:
				return fail(line, col, "feature index %d exceeds the %d features declared", j, features)
			case dst != nil && j > dst.d:
				return svmPart{retry: true}
			}
			pos++ // the ':'
			vs := pos
			v, end, ok := scanFloat(buf, pos)
			if !ok || end < n && svmClass[buf[end]] == 0 {
				for pos < n && svmClass[buf[pos]] == 0 {
					pos++
				}
				if pos-ls > MaxLine {
					return fail(line, 0, "line longer than %d bytes", MaxLine)
				}
				return fail(line, vs-ls+1, "invalid feature value %s", quote(buf[vs:pos]))
			}
			pos = end
			if pos-ls > MaxLine {
				return fail(line, 0, "line longer than %d bytes", MaxLine)
			}
			prev, prevCol = j, col
			if v != 0 {
				if dst != nil {
					row[j-1] = v
					p.nnz++
				} else {
					p.cols = append(p.cols, int32(j-1))
					p.vals = append(p.vals, v)
				}
			}
		}
		if pos-ls > MaxLine {
			return fail(line, 0, "line longer than %d bytes", MaxLine)
		}
		if prev > p.maxIdx {
			p.maxIdx, p.maxLine, p.maxCol = prev, line, prevCol
		}
		if dst != nil {
			dst.y[p.rows] = y
		} else {
			p.labels = append(p.labels, y)
			p.rowEnd = append(p.rowEnd, len(p.vals))
		}
		p.rows++
		line++
		pos++ // the '\n'
	}
	p.endLine, p.seq = line, c.seq
	return p
}
