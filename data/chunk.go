package data

import (
	"bytes"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"
)

// chunkSize is the size of the blocks a file is read and parsed in. A file
// of at most one block is parsed on one goroutine; a larger one is parsed a
// block per worker on up to GOMAXPROCS goroutines. A source's block size
// (tests make it tiny to cross block boundaries with small inputs)
// replaces it.
const chunkSize = 4 << 20

// chunk is a run of whole lines of a file.
type chunk struct {
	seq  int    // 0-based position in the file
	buf  []byte // whole records; the last ends with '\n' unless it ends the file
	line int    // 1-based line number of buf's first line, relative to the chunk: always 1 (see lineBases)
	off  int64  // byte offset of buf in the file
}

// cutFunc returns the length of the longest prefix of buf made of whole
// records (ending just after a '\n'), or 0 when buf holds no complete record.
type cutFunc func(buf []byte) int

// cutLines cuts after the last newline.
func cutLines(buf []byte) int { return bytes.LastIndexByte(buf, '\n') + 1 }

// tooLongError is returned by readChunks for a record longer than MaxLine.
// seq is the number of chunks emitted before it, and extra the number of
// empty lines between them and the record.
type tooLongError struct{ seq, extra int }

func (tooLongError) Error() string { return "line too long" }

// readChunks reads r in blocks of whole records and calls emit for each in
// file order. When more than MaxLine bytes hold no complete record, the
// reading stops with a tooLongError carrying the record's line number (the
// parsers check the length of every record they see); a read error is
// returned as is.
// emit returning false stops the reading early.
func readChunks(r io.Reader, chunkSize int, cut cutFunc, emit func(chunk) bool) error {
	var (
		pending []byte // bytes read but not yet emitted
		off     int64
		seq     int
	)
	size := chunkSize
	for eof := false; !eof; {
		buf := make([]byte, max(size, len(pending)+chunkSize/4, 1))
		n := copy(buf, pending)
		for n < len(buf) && !eof {
			m, err := r.Read(buf[n:])
			n += m
			if err == io.EOF {
				eof = true
			} else if err != nil {
				return err
			}
		}
		buf = buf[:n]
		k := len(buf)
		if !eof {
			k = cut(buf)
		}
		if k == 0 {
			if len(buf) > MaxLine {
				return tooLongError{seq, blankLines(buf)}
			}
			pending = buf
			size = 2 * len(buf)
			continue
		}
		size = chunkSize
		c := chunk{seq: seq, buf: buf[:k], line: 1, off: off}
		pending = buf[k:]
		off += int64(k)
		seq++
		if len(c.buf) > 0 && !emit(c) {
			return nil
		}
	}
	return nil
}

// splitChunks cuts data into chunks of about chunkSize bytes of whole
// records and calls emit for each in order, like readChunks.
func splitChunks(data []byte, chunkSize int, cut cutFunc, emit func(chunk) bool) error {
	off, seq := 0, 0
	for off < len(data) {
		end := min(off+chunkSize, len(data))
		k := end - off
		for end < len(data) {
			if k = cut(data[off:end]); k > 0 {
				break
			}
			if end-off > MaxLine {
				return tooLongError{seq, blankLines(data[off:end])}
			}
			end = min(off+2*(end-off), len(data))
			k = end - off
		}
		c := chunk{seq: seq, buf: data[off : off+k : off+k], line: 1, off: int64(off)}
		off += k
		seq++
		if !emit(c) {
			return nil
		}
	}
	return nil
}

// blankLines counts the line breaks in buf before its first byte that is
// not part of an empty line (or a byte order mark).
func blankLines(buf []byte) int {
	rest := bytes.TrimLeft(buf, "\r\n\uFEFF")
	return bytes.Count(buf[:len(buf)-len(rest)], []byte{'\n'})
}

// lineBases returns the 1-based file line of the first line of each chunk,
// from the number of line breaks in each (chunks are parsed with line
// numbers relative to their start, so that no serial pass counts lines
// before the parallel parse), and one more entry: the line after them.
func lineBases(breaks []int) []int {
	base := make([]int, len(breaks)+1)
	base[0] = 1
	for k, n := range breaks {
		base[k+1] = base[k] + n
	}
	return base
}

// shiftLine moves an error found in a chunk whose first line is file line
// base from the chunk's line numbers to the file's.
func shiftLine(e *Error, base int) *Error {
	if e.Line > 0 {
		e.Line += base - 1
	}
	return e
}

// source is where the chunks come from: a mapped file or a reader.
type source struct {
	data  []byte // the whole file, when mapped
	r     io.Reader
	f     io.ReaderAt // the mapped file, which the direct path reads blocks of
	block int         // the size of its chunks; 0 means chunkSize
}

// blockSize is the size of the source's chunks.
func (s source) blockSize() int {
	if s.block > 0 {
		return s.block
	}
	return chunkSize
}

func (s source) chunks(cut cutFunc, emit func(chunk) bool) error {
	if s.data != nil {
		return splitChunks(s.data, s.blockSize(), cut, emit)
	}
	return readChunks(s.r, s.blockSize(), cut, emit)
}

// faultError is a fault reading a mapped file (it was truncated while read).
type faultError struct{ v any }

func (e faultError) Error() string { return "the file changed while it was read" }

// guard runs parse on c, turning a memory fault (a mapped file truncated
// under the parser) into failed(err) instead of a crash.
func guard[R any](parse func(chunk) R, fault func(error) R, c chunk) (res R) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if v := recover(); v != nil {
			res = fault(faultError{v})
		}
	}()
	return parse(c)
}

// parallel reads src in chunks and calls parse on each, on up to GOMAXPROCS
// goroutines when the file spans several chunks. The first chunk is parsed
// before any other is read, so that parse can use what it learns from it
// (a CSV header) and a load that will not fit can stop early (stop returns
// true after a chunk's result is recorded). It returns the results in file
// order; the slice stops at the first chunk whose result reports failure.
func parallel[R any](src source, cut cutFunc, parse func(chunk) R, fault func(error) R, failed func(R) bool, stop func(R) bool) ([]R, error) {
	var (
		mu      sync.Mutex
		results []R
		have    []bool
		next    int  // the results before it have been given to stop, in file order
		bad     = -1 // lowest seq with a failed result
		halt    bool
	)
	record := func(seq int, res R) {
		mu.Lock()
		defer mu.Unlock()
		for len(results) <= seq {
			var zero R
			results = append(results, zero)
			have = append(have, false)
		}
		results[seq], have[seq] = res, true
		if failed(res) && (bad < 0 || seq < bad) {
			bad = seq
		}
		// stop sees the results in file order, whatever order the
		// workers finish in, so that what it decides (the line at which
		// the rows read so far exceed the memory limit) is the same from
		// run to run and the same as a reader's
		for stop != nil && !halt && next < len(have) && have[next] {
			halt = stop(results[next])
			next++
		}
	}
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan chunk, workers)
	var wg sync.WaitGroup
	started := 0
	err := src.chunks(cut, func(c chunk) bool {
		if c.seq == 0 {
			record(0, guard(parse, fault, c))
		} else {
			if started < workers {
				started++
				wg.Add(1)
				go func() {
					defer wg.Done()
					for c := range jobs {
						record(c.seq, guard(parse, fault, c))
					}
				}()
			}
			jobs <- c
		}
		mu.Lock()
		defer mu.Unlock()
		return bad < 0 && !halt
	})
	close(jobs)
	wg.Wait()
	if bad >= 0 {
		results = results[:bad+1]
	}
	return results, err
}

// parallelFor calls f on consecutive ranges [lo, hi) covering 0..n, on up
// to GOMAXPROCS goroutines, and returns when all are done.
func parallelFor(n int, f func(lo, hi int)) {
	w := min(runtime.GOMAXPROCS(0), n)
	if w <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for k := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(k*n/w, (k+1)*n/w)
		}()
	}
	wg.Wait()
}

// makeFloats returns a zeroed slice of length n and capacity c, asking for
// huge pages when it is large (see adviseHuge).
func makeFloats(n, c int) []float64 {
	s := make([]float64, n, c)
	if c > 0 {
		adviseHuge(unsafe.Pointer(unsafe.SliceData(s)), 8*c)
	}
	return s
}

// makeInt32s is makeFloats for int32.
func makeInt32s(n, c int) []int32 {
	s := make([]int32, n, c)
	if c > 0 {
		adviseHuge(unsafe.Pointer(unsafe.SliceData(s)), 4*c)
	}
	return s
}
