package data

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// LibSVMOptions controls [LoadLibSVM].
type LibSVMOptions struct {
	// Features, when positive, fixes the number of features d; an entry with
	// a larger index is an error. Zero means d is the largest index seen.
	Features int
}

// maxLine is the longest LIBSVM line accepted, in bytes.
const maxLine = 64 << 20

// LoadLibSVM reads the LIBSVM file at path.
//
// Each non-blank line is "label idx:value idx:value ...", with a numeric
// label and 1-based feature indices strictly increasing within the line;
// features a line leaves out are 0. Fields are separated by spaces or tabs,
// and "#" starts a comment that runs to the end of the line. The returned set
// has Format "libsvm", Features "f1".."fd" and nil Columns.
func LoadLibSVM(path string, opt LibSVMOptions) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ioError(path, "open", err)
	}
	defer f.Close()
	return ReadLibSVM(f, path, opt)
}

// ReadLibSVM is like [LoadLibSVM] but reads from r; path names the data in
// errors and in the returned set.
func ReadLibSVM(r io.Reader, path string, opt LibSVMOptions) (*Set, error) {
	if opt.Features < 0 {
		return nil, errorf(path, 0, 0, "invalid option: %d features", opt.Features)
	}

	// The rows are collected sparsely, since d is known only at the end:
	// row i's entries are idx[ends[i-1]:ends[i]] and val[ends[i-1]:ends[i]].
	var (
		labels []float64
		ends   []int
		idx    []int
		val    []float64
		maxIdx int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		pos := 0 // byte offset of the next unread character of text
		next := func() (tok string, col int) {
			for pos < len(text) && isSpace(text[pos]) {
				pos++
			}
			start := pos
			for pos < len(text) && !isSpace(text[pos]) {
				pos++
			}
			return text[start:pos], start + 1
		}

		tok, col := next()
		if tok == "" {
			continue // blank or comment-only line
		}
		y, ok := parseNumber(tok)
		if !ok {
			return nil, errorf(path, line, col, "invalid label %q", tok)
		}
		prev := 0
		for {
			tok, col := next()
			if tok == "" {
				break
			}
			is, vs, ok := strings.Cut(tok, ":")
			if !ok {
				return nil, errorf(path, line, col, "malformed feature %q (want index:value)", tok)
			}
			j, err := strconv.Atoi(is)
			if err != nil || j < 1 {
				return nil, errorf(path, line, col, "invalid feature index %q (want an integer >= 1)", is)
			}
			if j <= prev {
				return nil, errorf(path, line, col, "feature index %d after %d (indices must be strictly increasing)", j, prev)
			}
			if opt.Features > 0 && j > opt.Features {
				return nil, errorf(path, line, col, "feature index %d exceeds the %d features declared", j, opt.Features)
			}
			v, ok := parseNumber(vs)
			if !ok {
				return nil, errorf(path, line, col+len(is)+1, "invalid feature value %q", vs)
			}
			prev = j
			if v != 0 {
				idx = append(idx, j)
				val = append(val, v)
			}
		}
		maxIdx = max(maxIdx, prev)
		labels = append(labels, y)
		ends = append(ends, len(idx))
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, errorf(path, line+1, 0, "line longer than %d bytes", maxLine)
		}
		return nil, ioError(path, "read", err)
	}

	n, d := len(labels), maxIdx
	if opt.Features > 0 {
		d = opt.Features
	}
	switch {
	case n == 0:
		return nil, errorf(path, 0, 0, "no data rows")
	case d == 0:
		return nil, errorf(path, 0, 0, "no features: every row is empty")
	case tooLarge(n, d):
		return nil, errorf(path, 0, 0, "%d rows × %d features is too large for a dense matrix", n, d)
	}

	x := make([]float64, n*d)
	start := 0
	for i, end := range ends {
		row := x[i*d : (i+1)*d]
		for k := start; k < end; k++ {
			row[idx[k]-1] = val[k]
		}
		start = end
	}
	names := make([]string, d)
	for j := range names {
		names[j] = "f" + strconv.Itoa(j+1)
	}
	return &Set{
		Path:     path,
		Format:   "libsvm",
		X:        mat.NewDense(n, d, x),
		Y:        labels,
		Features: names,
	}, nil
}

// isSpace reports whether c separates LIBSVM fields. The carriage return
// makes files with CRLF line endings read cleanly.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}
