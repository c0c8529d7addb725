package data

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/internal/pqtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeParquet writes the columns to name in a fresh directory.
func writeParquet(t *testing.T, name string, cols []pqtest.Col, groupRows int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	pqtest.Write(t, path, cols, groupRows)
	return path
}

// sameSet requires that the Parquet set p holds exactly what the CSV set c
// holds.
func sameSet(t *testing.T, c, p *Set) {
	t.Helper()
	assert.Equal(t, "parquet", p.Format)
	require.Equal(t, c.N(), p.N())
	require.Equal(t, c.D(), p.D())
	assert.Equal(t, c.X.RawMatrix().Data, p.X.RawMatrix().Data, "X")
	assert.Equal(t, c.Y, p.Y, "y")
	assert.Equal(t, c.Features, p.Features)
	assert.Equal(t, c.LabelName, p.LabelName)
	assert.Equal(t, c.Columns, p.Columns)
	assert.Equal(t, c.Text, p.Text)
	assert.Equal(t, c.Dropped, p.Dropped)
}

func TestParquetRoundTripFairness(t *testing.T) {
	c, err := LoadCSV("../examples/data/fairness.csv", CSVOptions{Label: "y", Drop: []string{"group"}})
	require.NoError(t, err)
	require.Equal(t, 1000, c.N())
	// The label and group as integers, the features as doubles; row groups
	// of 300 rows, so that a column is read from four chunks.
	path := filepath.Join(t.TempDir(), "fairness.parquet")
	pqtest.WriteCSV(t, path, "../examples/data/fairness.csv", map[string]string{"y": "int64", "group": "int32"}, 300)
	p, err := LoadParquet(path, ParquetOptions{Label: "y", Drop: []string{"group"}})
	require.NoError(t, err)
	sameSet(t, c, p)
	assert.Equal(t, 1000, p.N())
	assert.Equal(t, []float64{-1, 1}, p.Labels())
	assert.Contains(t, p.Columns, "group")
}

// textCSV is a CSV file with a text column, spaces around a value, missing
// values in a feature and a text cell, and a bool and an unsigned column.
const textCSV = `a,sex,flag,u,y
1.5,female,1,3,1
-2,male,0,18446744073709551615,-1
3e-3, female ,1,7,1
,female,0,1,1
4,,1,2,-1
0.25,male,0,0,-1
`

func TestParquetRoundTripText(t *testing.T) {
	csvPath := writeFile(t, "p.csv", textCSV)
	types := map[string]string{"flag": "bool", "u": "uint64", "y": "float"}
	pqPath := writeParquet(t, "p.parquet", pqtest.FromCSV(t, textCSV, types), 4)
	for _, drop := range [][]string{{"sex"}, {"u", "sex"}} { // u as a feature and as a dropped column
		opt := CSVOptions{Label: "y", Drop: drop, Missing: "drop"}
		c, err := LoadCSV(csvPath, opt)
		require.NoError(t, err)
		p, err := LoadParquet(pqPath, ParquetOptions{Label: opt.Label, Drop: opt.Drop, Missing: "drop"})
		require.NoError(t, err)
		sameSet(t, c, p)
		assert.Equal(t, 1, p.Dropped)
		assert.Equal(t, []string{"female", "male", ""}, p.Text["sex"].Levels)
		assert.Equal(t, []float64{1, 2, 1, 3, 2}, p.Columns["sex"])
	}
}

func TestParquetErrors(t *testing.T) {
	cols := pqtest.FromCSV(t, textCSV, map[string]string{"u": "date"})
	path := writeParquet(t, "p.parquet", cols, 100)
	name := filepath.Base(path)
	tests := []struct {
		name string
		opt  ParquetOptions
		want string
		err  Error // the fields other than Msg and Path
	}{
		{"unknown label", ParquetOptions{Label: "z", Drop: []string{"sex", "u"}},
			`unknown column "z" (columns: a, sex, flag, u, y)`, Error{Option: "label", Column: "z"}},
		{"unknown dropped column", ParquetOptions{Drop: []string{"sx"}},
			`unknown column "sx" (columns: a, sex, flag, u, y)`, Error{Option: "drop", Column: "sx"}},
		{"text feature", ParquetOptions{Label: "y", Drop: []string{"u"}},
			`column "sex" holds text, not numbers: a feature column must be numeric (drop = ["sex"] makes it a text column for where filters)`, Error{Column: "sex"}},
		{"date feature", ParquetOptions{Label: "y", Drop: []string{"sex"}},
			`column "u" holds values of type int32 Date, not numbers: a feature column must be numeric`, Error{Column: "u"}},
		{"text label", ParquetOptions{Label: "sex", Drop: []string{"u"}},
			`label column "sex" holds text, not numbers`, Error{Option: "label", Column: "sex"}},
		{"label dropped", ParquetOptions{Label: "y", Drop: []string{"y"}},
			`column "y" is both the label and dropped`, Error{Option: "drop", Column: "y"}},
		{"null", ParquetOptions{Label: "y", Drop: []string{"sex", "u"}},
			`row 4: missing value (null) in column "a"; parquet(..., missing = "drop") leaves such rows out`, Error{Column: "a"}},
		{"bad missing option", ParquetOptions{Missing: "zero"},
			`invalid option missing = "zero" (want "error" or "drop")`, Error{Option: "missing"}},
		{"no features", ParquetOptions{Label: "y", Drop: []string{"a", "sex", "flag", "u"}},
			`no feature columns: every column is the label or dropped`, Error{}},
		{"memory", ParquetOptions{Label: "y", Drop: []string{"sex", "u"}, MaxMemory: 100},
			`a dense 6 × 2 matrix and its 4 numeric columns (6 rows in the file's metadata) needs about 336 bytes, more than the 100 bytes a data set may take (the loader's MaxMemory option)`, Error{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadParquet(path, tt.opt)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, name+": "+tt.want, filepath.Base(err.Error()))
			assert.Equal(t, tt.err.Option, e.Option)
			assert.Equal(t, tt.err.Column, e.Column)
			assert.Zero(t, e.Line)
		})
	}

	// The same nulls with missing = "drop": rows 4 and 5 go (a is null in
	// row 4; the null text cell in row 5 is the value "").
	s, err := LoadParquet(path, ParquetOptions{Label: "y", Drop: []string{"sex", "u"}, Missing: "drop"})
	require.NoError(t, err)
	assert.Equal(t, 5, s.N())
	assert.Equal(t, 1, s.Dropped)
	assert.Equal(t, []float64{1, -1, 1, -1, -1}, s.Y)
	assert.Equal(t, []string{"female", "male", ""}, s.Text["sex"].Levels)
	assert.NotContains(t, s.Columns, "u") // a date column is not read

	// All rows missing.
	allNull := []pqtest.Col{{Name: "a", Type: "double", Cells: []string{"", ""}}, {Name: "b", Type: "double", Cells: []string{"1", "2"}}}
	_, err = LoadParquet(writeParquet(t, "n.parquet", allNull, 10), ParquetOptions{Missing: "drop"})
	assert.ErrorContains(t, err, `n.parquet: no data rows: all 2 rows have a missing value (missing = "drop")`)

	// The decoder's buffers and a text column's values count against the
	// memory limit too: a 40 000-byte value in a set of 2 × 1 numbers.
	long := []pqtest.Col{{Name: "a", Type: "double", Cells: []string{"1", "2"}}, {Name: "s", Type: "string", Cells: []string{strings.Repeat("ab", 20000), "x"}}}
	_, err = LoadParquet(writeParquet(t, "long.parquet", long, 10), ParquetOptions{Drop: []string{"s"}, MaxMemory: 30000})
	assert.Regexp(t, `^long.parquet: decoding column "s" in row group 1 \(from row 1\) needs about [0-9.]+ KiB, more than the 29.3 KiB a data set may take \(the loader's MaxMemory option\)$`, filepath.Base(err.Error()))
	s, err = LoadParquet(writeParquet(t, "long.parquet", long, 10), ParquetOptions{Drop: []string{"s"}, MaxMemory: 1 << 20})
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2}, s.Columns["s"])

	// NaN is not a number a model can use.
	nan := []pqtest.Col{{Name: "a", Type: "double", Cells: []string{"1", "NaN"}}}
	_, err = LoadParquet(writeParquet(t, "nan.parquet", nan, 10), ParquetOptions{})
	assert.ErrorContains(t, err, `nan.parquet: row 2: value NaN in column "a" is not a finite number`)

	// Not a Parquet file, empty, a directory.
	for file, want := range map[string]string{
		"x.csv":   `x.csv: not a Parquet file: it does not start and end with the bytes "PAR1" (the file may be truncated)`,
		"e.parq":  `e.parq: no data rows`,
		"short.p": `short.p: not a Parquet file`,
	} {
		content := map[string]string{"x.csv": textCSV, "e.parq": "", "short.p": "PAR1PAR1"}[file]
		_, err := LoadParquet(writeFile(t, file, content), ParquetOptions{})
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Contains(t, err.Error(), want)
	}
	_, err = LoadParquet(t.TempDir(), ParquetOptions{}) // a sharded set without shards
	assert.ErrorContains(t, err, "the directory holds no data file")
	_, err = LoadParquet(filepath.Join(t.TempDir(), "none.parquet"), ParquetOptions{})
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

// TestParquetDamaged cuts a valid file short at every length and
// overwrites each of its bytes: every outcome is a set or a *Error, never
// a panic, and a truncated file is refused.
func TestParquetDamaged(t *testing.T) {
	good := pqtest.Bytes(t, pqtest.FromCSV(t, textCSV, map[string]string{"u": "uint64"}), 4)
	opt := ParquetOptions{Label: "y", Drop: []string{"sex"}, Missing: "drop", MaxMemory: 64 << 20}
	load := func(b []byte) (*Set, error) {
		return readParquet(bytes.NewReader(b), "d.parquet", opt)
	}
	s, err := load(good)
	require.NoError(t, err)
	require.Equal(t, 5, s.N())
	for n := range len(good) {
		_, err := load(good[:n])
		var e *Error
		require.ErrorAs(t, err, &e, "cut at %d", n)
		assert.NotContains(t, err.Error(), "female", "cut at %d", n)
	}
	damaged := 0
	for i := range good {
		for _, v := range []byte{[]byte{0x00, 0xff, good[i] ^ 0x10}[i%3]} {
			b := bytes.Clone(good)
			b[i] = v
			_, err := load(b)
			if err != nil {
				damaged++
				var e *Error
				require.ErrorAs(t, err, &e, "byte %d = %#x", i, v)
				assert.Zero(t, e.Line)
			}
		}
	}
	assert.Positive(t, damaged)
}

func TestParquetCache(t *testing.T) {
	path := writeParquet(t, "p.parquet", pqtest.FromCSV(t, textCSV, nil), 100)
	var c Cache
	opt := ParquetOptions{Label: "y", Drop: []string{"sex"}, Missing: "drop"}
	s1, err := c.Parquet(path, opt)
	require.NoError(t, err)
	s2, err := c.Parquet(path, opt)
	require.NoError(t, err)
	assert.Same(t, s1, s2)
	assert.Equal(t, 1, c.Reads())
	opt.Missing = ""
	_, err = c.Parquet(path, opt)
	assert.ErrorContains(t, err, "missing value (null)")
	assert.Equal(t, 2, c.Reads())
}

func FuzzParquet(f *testing.F) {
	f.Add(pqtest.Bytes(f, pqtest.FromCSV(f, textCSV, map[string]string{"u": "uint64", "flag": "bool"}), 4), uint8(0))
	f.Add(pqtest.Bytes(f, []pqtest.Col{{Name: "a", Type: "int32", Cells: []string{"1", "", "3"}}}, 2), uint8(4))
	f.Fuzz(func(t *testing.T, b []byte, flags uint8) {
		opt := ParquetOptions{MaxMemory: 64 << 20}
		if flags&4 != 0 {
			opt.Missing = "drop"
		}
		if flags&8 != 0 {
			opt.Label = "y"
		}
		if flags&16 != 0 {
			opt.Drop = []string{"sex"}
		}
		s, err := readParquet(bytes.NewReader(b), "f.parquet", opt)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not a *data.Error: %v", err, err)
			}
			return
		}
		if s.N() < 1 || s.D() < 1 {
			t.Fatalf("a set of %d × %d", s.N(), s.D())
		}
	})
}
