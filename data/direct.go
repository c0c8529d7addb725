package data

import (
	"bytes"
	"runtime"
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

// directChunks cuts a mapped file into chunks as the block-parts path does.
// ok is false when the file is a single chunk or holds a line too long.
func directChunks(data []byte, cut cutFunc) (cs []chunk, ok bool) {
	err := splitChunks(data, cut, func(c chunk) bool { cs = append(cs, c); return true })
	return cs, err == nil && len(cs) >= 2
}

// countLines returns, for each chunk, its line breaks and its lines (one
// more when its last line has no line break), counted on all cores.
func countLines(cs []chunk) (breaks, lines []int) {
	breaks, lines = make([]int, len(cs)), make([]int, len(cs))
	parallelFor(len(cs), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			b := cs[k].buf
			breaks[k] = bytes.Count(b, []byte{'\n'})
			lines[k] = breaks[k]
			if len(b) > 0 && b[len(b)-1] != '\n' {
				lines[k]++
			}
		}
	})
	return breaks, lines
}

// eachChunk calls parse(k) for k = 1 .. n-1 on up to GOMAXPROCS goroutines.
// When parse(k) returns true (the chunk failed), no chunk after k is
// started; chunks already started run to their end.
func eachChunk(n int, parse func(k int) bool) {
	var next atomic.Int64
	next.Store(1)
	var halt atomic.Int64 // the lowest chunk that failed, or n
	halt.Store(int64(n))
	work := func() {
		for {
			k := next.Add(1) - 1
			if k >= int64(n) || k > halt.Load() {
				return
			}
			if parse(int(k)) {
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
func readLibSVMDense(data []byte, size int64, path string, opt LibSVMOptions, b budget) (s *Set, ok bool, err error) {
	cs, ok := directChunks(data, cutLines)
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
	breaks, lines := countLines(cs)
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
	eachChunk(len(cs), func(k int) bool {
		lo, hi := start[k], start[k]+lines[k]
		p := guard(parse(&svmDense{x: x[lo*d : hi*d], y: y[lo:hi], d: d}), fault, cs[k])
		parts[k] = p
		return p.err != nil || p.overflow
	})
	base := lineBases(breaks)
	for k, p := range parts {
		if p.overflow {
			return nil, false, nil
		}
		if p.err != nil {
			return nil, true, shiftLine(p.err, base[k])
		}
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
	return s, true, nil
}
