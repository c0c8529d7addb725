package data

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// viaDirect loads data through the mapped path, which parses straight into
// the set when it can, with blocks of 256 bytes (so that a few hundred rows
// make dozens of blocks), and fails unless the outcome is the block-parts
// path's (the reader path) and the direct path did (or did not) settle it.
func viaDirect(t *testing.T, data string, direct bool, load func(src source) (*Set, error)) (*Set, error) {
	t.Helper()
	load = withBlocks(load, 256)
	want := describe(load(source{r: strings.NewReader(data)}))
	before := directLoads.Load()
	s, err := load(source{data: []byte(data)})
	took := directLoads.Load() > before
	require.Equal(t, want, describe(s, err))
	require.Equal(t, direct, took, "direct path taken")
	return s, err
}

func svmLoader(opt LibSVMOptions) func(source) (*Set, error) {
	return func(src source) (*Set, error) { return readLibSVM(src, 0, "d.svm", opt) }
}

func csvLoader(opt CSVOptions) func(source) (*Set, error) {
	return func(src source) (*Set, error) { return readCSV(src, 0, "d.csv", opt) }
}

// svmLines returns n LIBSVM rows of up to 5 features, some left out.
func svmLines(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		var b strings.Builder
		fmt.Fprintf(&b, "%d", i%3-1)
		for j := 1; j <= 5; j++ {
			if (i+j)%4 != 0 {
				fmt.Fprintf(&b, " %d:%d.%d", j, i, j)
			}
		}
		lines[i] = b.String()
	}
	return lines
}

func TestDirectLibSVM(t *testing.T) {
	lines := svmLines(400)
	join := func(l []string) string { return strings.Join(l, "\n") + "\n" }

	s, _ := viaDirect(t, join(lines), true, svmLoader(LibSVMOptions{}))
	require.Equal(t, 400, s.N())
	require.False(t, s.IsSparse())
	assert.Equal(t, 399.4, s.X.At(399, 3))
	assert.Equal(t, 0.0, s.X.At(399, 4)) // (399+5)%4 == 0: left out

	// Blank lines, comments and CRLF in late blocks: their rows are closed up.
	l := append([]string(nil), lines...)
	for _, i := range []int{390, 300, 200, 120} {
		l = append(l[:i], append([]string{"", "# comment", "  \t", "\r"}, l[i:]...)...)
	}
	l[350] += " # trailing"
	l[351] += "\r"
	s, _ = viaDirect(t, join(l)+"\n\n", true, svmLoader(LibSVMOptions{}))
	require.Equal(t, 400, s.N())
	assert.Equal(t, 399.4, s.X.At(399, 3))

	// No final line break.
	viaDirect(t, strings.TrimSuffix(join(lines), "\n"), true, svmLoader(LibSVMOptions{}))

	// An error in a late block, at its own line and column.
	l = append([]string(nil), lines...)
	l[371] = "1 1:2 3:x"
	_, err := viaDirect(t, join(l), true, svmLoader(LibSVMOptions{}))
	assert.EqualError(t, err, `d.svm:372:9: invalid feature value "x"`)
	l[371] = "1 2:1 2:2"
	_, err = viaDirect(t, join(l), true, svmLoader(LibSVMOptions{}))
	assert.EqualError(t, err, "d.svm:372:7: feature index 2 after 2 (indices must be strictly increasing)")
	l[300] = "z 1:1"
	_, err = viaDirect(t, join(l), true, svmLoader(LibSVMOptions{}))
	assert.EqualError(t, err, `d.svm:301:1: invalid label "z"`, "the first of two errors")

	// A declared number of features, exceeded late.
	s, _ = viaDirect(t, join(lines), true, svmLoader(LibSVMOptions{Features: 7}))
	assert.Equal(t, 7, s.D())
	l = append([]string(nil), lines...)
	l[333] += " 8:1"
	_, err = viaDirect(t, join(l), true, svmLoader(LibSVMOptions{Features: 7}))
	assert.EqualError(t, err, "d.svm:334:36: feature index 8 exceeds the 7 features declared")

	// An index beyond the first block's largest: the block-parts path
	// loads the file, with d from that index.
	l = append([]string(nil), lines...)
	l[333] += " 9:1"
	s, _ = viaDirect(t, join(l), false, svmLoader(LibSVMOptions{}))
	assert.Equal(t, 9, s.D())
	assert.Equal(t, 1.0, s.X.At(333, 8))

	// A dense first block and a sparse rest: stored CSR, as before.
	l = append([]string(nil), lines[:40]...)
	for i := range 400 {
		l = append(l, fmt.Sprintf("%d", i%2))
	}
	s, _ = viaDirect(t, join(l), true, svmLoader(LibSVMOptions{}))
	assert.True(t, s.IsSparse())

	// A sparse first block: the block-parts path.
	viaDirect(t, "1 1:1 40:2\n"+join(lines), false, svmLoader(LibSVMOptions{}))
}

// TestDirectLibSVMMemory checks memory-limit refusals around the direct
// path: a set whose bound does not fit is left to the block-parts path,
// which refuses it as before.
func TestDirectLibSVMMemory(t *testing.T) {
	data := strings.Join(svmLines(400), "\n") + "\n"
	// 400 × 5 dense and 400 labels: 19 200 bytes.
	s, _ := viaDirect(t, data, true, svmLoader(LibSVMOptions{MaxMemory: 19200}))
	require.Equal(t, 400, s.N())
	refused(t, data, "more than the 18.7 KiB a data set may take", svmLoader(LibSVMOptions{MaxMemory: 19199}))
	// Comment lines make the bound larger than the set: the block-parts
	// path loads it.
	withBlanks := strings.Repeat("# note\n", 100) + data
	viaDirect(t, withBlanks, false, svmLoader(LibSVMOptions{MaxMemory: 19200}))
	// A first block that announces too much is refused at its end, as
	// before.
	_, err := viaDirect(t, data, false, svmLoader(LibSVMOptions{MaxMemory: 500}))
	assert.ErrorContains(t, err, "the rows read so far needs about")
}

// refused checks that loading data through the mapped path is refused for
// its memory, by the block-parts path.
func refused(t *testing.T, data, msg string, load func(src source) (*Set, error)) {
	t.Helper()
	load = withBlocks(load, 256)
	before := directLoads.Load()
	_, err := load(source{data: []byte(data)})
	assert.ErrorContains(t, err, msg)
	assert.Equal(t, before, directLoads.Load())
}

// csvRows returns a header and n CSV rows of the columns a, b, g, y.
func csvRows(n int) []string {
	lines := []string{"a,b,g,y"}
	for i := range n {
		lines = append(lines, fmt.Sprintf("%d.25,-%d,%d,%d", i, i%7, i%3, i%2))
	}
	return lines
}

func TestDirectCSV(t *testing.T) {
	lines := csvRows(400)
	join := func(l []string) string { return strings.Join(l, "\n") + "\n" }
	opt := CSVOptions{Label: "y", Drop: []string{"g"}}

	s, _ := viaDirect(t, join(lines), true, csvLoader(opt))
	require.Equal(t, 400, s.N())
	assert.Equal(t, []float64{399.25, -399 % 7}, s.X.RawRowView(399))
	assert.Equal(t, 2.0, s.Columns["g"][398])
	assert.Equal(t, 1.0, s.Y[399])

	// Quotes, spaces, CRLF, empty lines and a quoted line break in late
	// blocks.
	l := append([]string(nil), lines...)
	l[100] = ` 99.25 , -1," 0",1`
	l[200] = "\"199.25\",\"-3\",2,1\r"
	l[250] = "249.25,\"\n-4\",0,0"
	l[300] = "\r\n\n299.25,-5,2,0"
	l[301] = "300.25,\t-6,0,1"
	l[302] = "301.25,-0,1,0 "
	s, err := viaDirect(t, join(l)+"\r\n", true, csvLoader(opt))
	require.NoError(t, err)
	require.Equal(t, 400, s.N())
	viaDirect(t, strings.TrimSuffix(join(lines), "\n"), true, csvLoader(opt))

	// Errors in late blocks, at their own line and column.
	l = append([]string(nil), lines...)
	l[380] = "379.25,-1.5.3,1,0"
	_, err = viaDirect(t, join(l), true, csvLoader(opt))
	assert.EqualError(t, err, `d.csv:381:8: non-numeric cell "-1.5.3" in column "b"`)
	l[378] = "377.25x-1,1,0"
	_, err = viaDirect(t, join(l), true, csvLoader(opt))
	assert.EqualError(t, err, "d.csv:379: row has 3 fields, want 4 like the header")
	l[375] = "374.25 5,-1,1,0"
	_, err = viaDirect(t, join(l), true, csvLoader(opt))
	assert.EqualError(t, err, `d.csv:376:1: non-numeric cell "374.25 5" in column "a"`)
	l[371] = "370.25,x,1,0"
	_, err = viaDirect(t, join(l), true, csvLoader(opt))
	assert.EqualError(t, err, `d.csv:372:8: non-numeric cell "x" in column "b"`)
	l[301] = "300.25,-6,0"
	_, err = viaDirect(t, join(l), true, csvLoader(opt))
	assert.EqualError(t, err, "d.csv:302: row has 3 fields, want 4 like the header")
	l[250] = "249.25,-4,0,0,5"
	_, err = viaDirect(t, join(l), true, csvLoader(opt))
	assert.EqualError(t, err, "d.csv:251: row has 5 fields, want 4 like the header")
	l[200] = `199.25,"-4,0,0`
	_, err = viaDirect(t, join(l), true, csvLoader(opt))
	assert.ErrorContains(t, err, `extraneous or missing " in quoted-field`)
	l = append([]string(nil), lines...)
	l[222] = "221.25,,0,1"
	_, err = viaDirect(t, join(l), true, csvLoader(opt))
	assert.EqualError(t, err, `d.csv:223:8: missing value (empty cell) in column "b"; csv(..., missing = "drop") leaves such rows out`)

	// Rows dropped for a missing value in late blocks are closed up.
	l[333] = "332.25,-4,1,"
	o := opt
	o.Missing = "drop"
	s, _ = viaDirect(t, join(l), true, csvLoader(o))
	assert.Equal(t, 398, s.N())
	assert.Equal(t, 2, s.Dropped)

	// A dropped column with text in a late block: the block-parts path.
	l = append([]string(nil), lines...)
	l[350] = "349.25,-6,female,1"
	s, _ = viaDirect(t, join(l), false, csvLoader(opt))
	assert.Equal(t, []string{"0", "1", "2", "female"}, s.Text["g"].Levels)

	// Other separators; one that may be part of a number is left to the
	// block-parts path.
	for _, sep := range []byte{';', '\t', ' ', '|'} {
		o := opt
		o.Sep = sep
		viaDirect(t, strings.ReplaceAll(join(lines), ",", string(sep)), true, csvLoader(o))
	}
	o = opt
	o.Sep = 'e'
	viaDirect(t, strings.ReplaceAll(join(lines), ",", "e"), false, csvLoader(o))
	o = CSVOptions{NoHeader: true, Label: "c4"}
	viaDirect(t, join(lines[1:]), true, csvLoader(o))
}

// TestDirectCSVMemory is TestDirectLibSVMMemory for CSV.
func TestDirectCSVMemory(t *testing.T) {
	data := strings.Join(csvRows(400), "\n") + "\n"
	// X 400 × 3, Columns 400 × 4 and Y: 25 600 bytes.
	opt := CSVOptions{Label: "y", MaxMemory: 25600}
	s, _ := viaDirect(t, data, true, csvLoader(opt))
	require.Equal(t, 400, s.N())
	opt.MaxMemory--
	refused(t, data, "more than the 25.0 KiB a data set may take", csvLoader(opt))
	opt.MaxMemory = 1000
	_, err := viaDirect(t, data, false, csvLoader(opt))
	assert.ErrorContains(t, err, "the rows read so far needs about")
}

// TestDirectFileLoads checks the direct path from a file, mapped, with the
// ordinary block size: several blocks, values in order.
func TestDirectFileLoads(t *testing.T) {
	var svm, csv bytes.Buffer
	csv.WriteString("a,b\n")
	for i := range 600000 {
		fmt.Fprintf(&svm, "%d 1:%d 2:%d.5\n", i%2, i, i%9)
		fmt.Fprintf(&csv, "%d,%d.5\n", i, i%9)
	}
	before := directLoads.Load()
	s, err := LoadLibSVM(writeFile(t, "f.svm", svm.String()), LibSVMOptions{})
	require.NoError(t, err)
	c, err := LoadCSV(writeFile(t, "f.csv", csv.String()), CSVOptions{Label: "b"})
	require.NoError(t, err)
	require.Equal(t, before+2, directLoads.Load())
	for i := range 600000 {
		require.Equal(t, []float64{float64(i), float64(i%9) + 0.5}, s.X.RawRowView(i))
		require.Equal(t, float64(i%2), s.Y[i])
		require.Equal(t, float64(i), c.X.At(i, 0))
		require.Equal(t, float64(i%9)+0.5, c.Y[i])
	}
}

// shortReader is a file that reads short from offset cut on, or after
// reads reads (it was truncated after it was mapped).
type shortReader struct {
	data  []byte
	cut   int64
	reads *atomic.Int64 // reads left, or nil
}

func (r shortReader) ReadAt(b []byte, off int64) (int, error) {
	if off+int64(len(b)) > r.cut || r.reads != nil && r.reads.Add(-1) < 0 {
		return max(0, int(r.cut-off)-1), io.EOF
	}
	return copy(b, r.data[off:]), nil
}

// TestDirectReadsBlocks checks the direct path reading blocks from the file
// instead of the mapping: the same set, and a file that reads short (in the
// line count or in the parse) left to the block-parts path.
func TestDirectReadsBlocks(t *testing.T) {
	svm := strings.Join(svmLines(400), "\n") + "\n"
	csv := strings.Join(csvRows(400), "\n") + "\n"
	for _, c := range []struct {
		data string
		cut  cutFunc
		load func(source) (*Set, error)
	}{{svm, cutLines, svmLoader(LibSVMOptions{})}, {csv, cutCSV, csvLoader(CSVOptions{Label: "y"})}} {
		func() {
			load := withBlocks(c.load, 256)
			data := []byte(c.data)
			want := describe(load(source{r: bytes.NewReader(data)}))
			cs, _ := directChunks(source{data: data, block: 256}, c.cut)
			n := int64(len(data))
			for _, f := range []shortReader{
				{data: data, cut: n},
				{data: data, cut: n - 1},                       // in the line count
				{data: data, cut: n, reads: new(atomic.Int64)}, // in the parse
			} {
				if f.reads != nil {
					f.reads.Store(int64(len(cs)) + 3) // the line count and three blocks
				}
				before := directLoads.Load()
				require.Equal(t, want, describe(load(source{data: data, f: f})))
				require.Equal(t, f.cut == n && f.reads == nil, directLoads.Load() > before, "direct path taken")
			}
		}()
	}
}

// TestCSVColumnsKept: with CSVOptions.Columns the set keeps the values of
// the named columns only, every other column's name mapping to nil, and
// X, Y and the text columns' levels are those of a load that keeps every
// column; the direct and the block-parts paths agree (viaDirect). The
// memory needed counts the kept columns only.
func TestCSVColumnsKept(t *testing.T) {
	lines := csvRows(400)
	join := func(l []string) string { return strings.Join(l, "\n") + "\n" }
	all, _ := viaDirect(t, join(lines), true, csvLoader(CSVOptions{Label: "y", Drop: []string{"g"}}))
	some, _ := viaDirect(t, join(lines), true, csvLoader(CSVOptions{Label: "y", Drop: []string{"g"}, Columns: []string{"g", "zz"}}))
	assert.Equal(t, all.X.RawMatrix().Data, some.X.RawMatrix().Data)
	assert.Equal(t, all.Y, some.Y)
	require.Len(t, some.Columns, 4)
	assert.Equal(t, all.Columns["g"], some.Columns["g"])
	for _, name := range []string{"a", "b", "y"} {
		c, ok := some.Columns[name]
		assert.True(t, ok, name)
		assert.Nil(t, c, name)
	}
	none, _ := viaDirect(t, join(lines), true, csvLoader(CSVOptions{Label: "y", Columns: []string{}}))
	assert.Equal(t, all.Y, none.Y, "the label's values without its column")

	// a text column (the block-parts path): its levels stay, its codes
	// only when named
	text := []string{"a,sex,y"}
	for i := range 300 {
		text = append(text, fmt.Sprintf("%d,%s,%d", i, []string{"f", "m"}[i%2], i%2))
	}
	opt := CSVOptions{Label: "y", Drop: []string{"sex"}}
	withCodes, _ := viaDirect(t, join(text), false, csvLoader(CSVOptions{Label: "y", Drop: []string{"sex"}, Columns: []string{"sex"}}))
	assert.Equal(t, 2.0, withCodes.Columns["sex"][1])
	assert.Nil(t, withCodes.Columns["a"])
	opt.Columns = []string{}
	without, _ := viaDirect(t, join(text), false, csvLoader(opt))
	c, ok := without.Columns["sex"]
	assert.True(t, ok)
	assert.Nil(t, c)
	assert.Equal(t, []string{"f", "m"}, without.Text["sex"].Levels)
	assert.Equal(t, withCodes.X.RawMatrix().Data, without.X.RawMatrix().Data)

	// the memory limit counts X, Y and the kept columns: 400 rows of X (2
	// features), Y and 4 columns need 400·7·8 = 22 400 bytes, with no
	// column 400·3·8 = 9600
	limited := func(cols []string) error {
		_, err := readCSV(source{r: strings.NewReader(join(lines))}, 0, "d.csv", CSVOptions{Label: "y", Drop: []string{"g"}, Columns: cols, MaxMemory: 16000})
		return err
	}
	require.Error(t, limited(nil))
	require.NoError(t, limited([]string{}))
	// the whole file mapped (no early estimate): the final refusal names
	// the kept columns; X, Y and g need 400·4·8 = 12 800 bytes
	_, err := readCSV(source{data: []byte(join(lines))}, int64(len(join(lines))), "d.csv", CSVOptions{Label: "y", Drop: []string{"g"}, Columns: []string{"g"}, MaxMemory: 10000})
	require.ErrorContains(t, err, "d.csv: a dense 400 × 2 matrix and 1 of its 4 numeric columns needs about 12.5 KiB")
}
