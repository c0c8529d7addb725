package data

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// withBlocks is load with its sources' blocks of n bytes.
func withBlocks(load func(source) (*Set, error), n int) func(source) (*Set, error) {
	return func(src source) (*Set, error) {
		src.block = n
		return load(src)
	}
}

// describe renders a load's outcome for comparison: the error, or the
// set's shape, labels, matrix, columns and text columns.
func describe(s *Set, err error) string {
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return "not a *data.Error: " + err.Error()
		}
		return err.Error()
	}
	// a sparse set is described by its nonzeros, not densified: a 12-byte
	// file can name feature 10^7 (a dense X of 80 MB per load)
	var x any
	if s.IsSparse() {
		var nz []string
		for i := range s.N() {
			c, v := s.Sparse.Row(i)
			for k, j := range c {
				nz = append(nz, fmt.Sprintf("(%d,%d)=%v", i, j, v[k]))
			}
		}
		x = nz
	} else {
		x = s.X.RawMatrix().Data
	}
	feats := fmt.Sprint(s.Features)
	if len(s.Features) > 100 {
		feats = fmt.Sprintf("%d names %v...%v", len(s.Features), s.Features[:3], s.Features[len(s.Features)-3:])
	}
	text := map[string][]string{}
	for k, t := range s.Text {
		text[k] = t.Levels
	}
	return fmt.Sprintf("%d×%d y=%v X=%v cols=%v text=%v feats=%v dropped=%d", s.N(), s.D(), s.Y, x, s.Columns, text, feats, s.Dropped)
}

// loadBoth loads data with the normal block size and with tiny blocks (so
// that a small input is cut into many blocks parsed in parallel), through
// the reader path and through the in-memory path, and fails unless all
// four agree.
func loadBoth(t *testing.T, data []byte, load func(src source) (*Set, error)) {
	want := describe(load(source{r: bytes.NewReader(data)}))
	if len(data) > 0 {
		if got := describe(load(source{data: data})); got != want {
			t.Fatalf("mapped path differs:\n got %s\nwant %s", got, want)
		}
	}
	for _, n := range []int{1, 3, 17} {
		load := withBlocks(load, n)
		if got := describe(load(source{r: bytes.NewReader(data)})); got != want {
			t.Fatalf("blocks of %d bytes (reader) differ:\n got %s\nwant %s", n, got, want)
		}
		if len(data) > 0 {
			if got := describe(load(source{data: data})); got != want {
				t.Fatalf("blocks of %d bytes (mapped) differ:\n got %s\nwant %s", n, got, want)
			}
		}
	}
}

func FuzzLibSVM(f *testing.F) {
	for _, s := range []string{"1 1:0.5 3:2 # c\n-1\t2:1e-1\r\n\n2 4:-3\n", "\uFEFF1 1:1\n", "1 2:1 1:1\n", "x", "1 1:1\n2 5:0x1\n3 2:2\n"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, features uint8) {
		opt := LibSVMOptions{Features: int(features % 8), MaxMemory: 1 << 20}
		loadBoth(t, data, func(src source) (*Set, error) { return readLibSVM(src, 0, "f.svm", opt) })
	})
}

func FuzzCSV(f *testing.F) {
	for _, s := range []string{"a,b,y\n1,2,1\n\"3\",4,-1\n", "a;g\n1;\"x\ny\"\n2;z\n", "\uFEFFa,b\n1,\n", "a,b\n1,2\"\n", "a\n\"unclosed\n"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, flags uint8) {
		opt := CSVOptions{MaxMemory: 1 << 20}
		if flags&1 != 0 {
			opt.Sep = ';'
		}
		if flags&2 != 0 {
			opt.NoHeader = true
		}
		if flags&4 != 0 {
			opt.Missing = "drop"
		}
		if flags&8 != 0 {
			opt.Label = "a"
		}
		if flags&16 != 0 {
			opt.Drop = []string{"g"}
		}
		loadBoth(t, data, func(src source) (*Set, error) { return readCSV(src, 0, "f.csv", opt) })
	})
}
