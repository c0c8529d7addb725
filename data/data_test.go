package data

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// writeFile writes content to a file called name in a fresh temporary
// directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// rows returns the rows of m as slices.
func rows(m *mat.Dense) [][]float64 {
	n, _ := m.Dims()
	out := make([][]float64, n)
	for i := range out {
		out[i] = mat.Row(nil, i, m)
	}
	return out
}

func TestLoadLibSVM(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		opt      LibSVMOptions
		x        [][]float64
		y        []float64
		labels   []float64
		features []string
	}{
		{
			name: "comments blank lines tabs and CRLF",
			content: "# a comment line\n" +
				"1 1:0.5 3:2   # trailing comment\n" +
				"\n" +
				"-1\t2:1e-1\r\n" +
				"   \n" +
				"2.5 4:-3 \n" +
				"1 1:0\n",
			x:        [][]float64{{0.5, 0, 2, 0}, {0, 0.1, 0, 0}, {0, 0, 0, -3}, {0, 0, 0, 0}},
			y:        []float64{1, -1, 2.5, 1},
			labels:   []float64{-1, 1, 2.5},
			features: []string{"f1", "f2", "f3", "f4"},
		},
		{
			name:     "row without features",
			content:  "3\n7 2:4\n",
			x:        [][]float64{{0, 0}, {0, 4}},
			y:        []float64{3, 7},
			labels:   []float64{3, 7},
			features: []string{"f1", "f2"},
		},
		{
			name:     "Features widens d",
			content:  "1 1:1\n2 2:2\n",
			opt:      LibSVMOptions{Features: 4},
			x:        [][]float64{{1, 0, 0, 0}, {0, 2, 0, 0}},
			y:        []float64{1, 2},
			labels:   []float64{1, 2},
			features: []string{"f1", "f2", "f3", "f4"},
		},
		{
			name:     "Features equal to the largest index",
			content:  "+1 1:1 2:2\n",
			opt:      LibSVMOptions{Features: 2},
			x:        [][]float64{{1, 2}},
			y:        []float64{1},
			labels:   []float64{1},
			features: []string{"f1", "f2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "set.svm", tt.content)
			s, err := LoadLibSVM(path, tt.opt)
			require.NoError(t, err)
			assert.Equal(t, path, s.Path)
			assert.Equal(t, "libsvm", s.Format)
			assert.Equal(t, len(tt.x), s.N())
			assert.Equal(t, len(tt.features), s.D())
			assert.Equal(t, tt.x, rows(s.X))
			assert.Equal(t, tt.y, s.Y)
			assert.Equal(t, tt.labels, s.Labels())
			assert.Equal(t, tt.features, s.Features)
			assert.Nil(t, s.Columns)
			assert.Empty(t, s.LabelName)
		})
	}
}

func TestLoadLibSVMErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		opt     LibSVMOptions
		want    string // the message after the path
	}{
		{"empty file", "", LibSVMOptions{}, ": no data rows"},
		{"only comments", "# nothing\n\n  # here\n", LibSVMOptions{}, ": no data rows"},
		{"no features", "1\n2\n", LibSVMOptions{}, ": no features: every row is empty"},
		{"non-numeric label", "1 1:1\nabc 1:2\n", LibSVMOptions{}, `:2:1: invalid label "abc"`},
		{"NaN label", "NaN 1:2\n", LibSVMOptions{}, `:1:1: invalid label "NaN"`},
		{"missing colon", "1 1:1  3\n", LibSVMOptions{}, `:1:8: malformed feature "3" (want index:value)`},
		{"non-integer index", "1\t1.5:1\n", LibSVMOptions{}, `:1:3: invalid feature index "1.5" (want an integer >= 1)`},
		{"alphabetic index", "1 qid:3 1:1\n", LibSVMOptions{}, `:1:3: invalid feature index "qid" (want an integer >= 1)`},
		{"empty index", "1 :3\n", LibSVMOptions{}, `:1:3: invalid feature index "" (want an integer >= 1)`},
		{"zero index", "1 0:3\n", LibSVMOptions{}, `:1:3: invalid feature index "0" (want an integer >= 1)`},
		{"negative index", "1 2:1 -1:3\n", LibSVMOptions{}, `:1:7: invalid feature index "-1" (want an integer >= 1)`},
		{"non-numeric value", "1 1:1\n\n2 1:2 13:x2\n", LibSVMOptions{}, `:3:10: invalid feature value "x2"`},
		{"empty value", "1 4:\n", LibSVMOptions{}, `:1:5: invalid feature value ""`},
		{"infinite value", "1 4:1e400\n", LibSVMOptions{}, `:1:5: invalid feature value "1e400"`},
		{"decreasing indices", "1 3:1 2:1\n", LibSVMOptions{}, `:1:7: feature index 2 after 3 (indices must be strictly increasing)`},
		{"repeated index", "1 3:1 3:1\n", LibSVMOptions{}, `:1:7: feature index 3 after 3 (indices must be strictly increasing)`},
		{"index beyond Features", "1 1:1\n2 2:1 5:1\n", LibSVMOptions{Features: 4}, `:2:7: feature index 5 exceeds the 4 features declared`},
		{"negative Features", "1 1:1\n", LibSVMOptions{Features: -1}, `: invalid option: -1 features`},
		{"index beyond int32", "1 1:1\n2 2147483648:1\n", LibSVMOptions{}, `:2:3: feature index "2147483648" is larger than 2147483647, the largest supported`},
		{"byte order mark then bad label", "\uFEFFx 1:1\n", LibSVMOptions{}, `:1:4: invalid label "x"`},
		{"hexadecimal value", "1 1:0x1p-2\n", LibSVMOptions{}, `:1:5: invalid feature value "0x1p-2"`},
		{"digit separator", "1 1:1_000\n", LibSVMOptions{}, `:1:5: invalid feature value "1_000"`},
		{"long token is cut", "1 1:" + strings.Repeat("root:x:0:0:", 10) + "\n", LibSVMOptions{}, `:1:5: invalid feature value "root:x:0:0:root:x:0:0:ro..."`},
		{"control bytes are escaped", "\x1b[2J 1:1\n", LibSVMOptions{}, `:1:1: invalid label "\x1b[2J"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "bad.svm", tt.content)
			s, err := LoadLibSVM(path, tt.opt)
			assert.Nil(t, s)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, path+tt.want, err.Error())
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope")
	for name, load := range map[string]func() (*Set, error){
		"libsvm": func() (*Set, error) { return LoadLibSVM(path, LibSVMOptions{}) },
		"csv":    func() (*Set, error) { return LoadCSV(path, CSVOptions{}) },
	} {
		t.Run(name, func(t *testing.T) {
			s, err := load()
			assert.Nil(t, s)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, path+": cannot open file: no such file or directory", err.Error())
			assert.Equal(t, 0, e.Line)
			assert.ErrorIs(t, err, fs.ErrNotExist)
		})
	}
}

func TestLoadCSV(t *testing.T) {
	const people = "a, b ,grp,y,name\n" +
		"1,2,3,1,ann\n" +
		"\n" +
		"4, 5.5 ,6,-1,bob\n" +
		"\"7\",-8e-1,0,1,\"cy, d\"\n"
	tests := []struct {
		name     string
		content  string
		opt      CSVOptions
		x        [][]float64
		y        []float64
		labels   []float64
		features []string
		columns  map[string][]float64
	}{
		{
			name:     "label and drops",
			content:  people,
			opt:      CSVOptions{Label: "y", Drop: []string{"grp", "name"}},
			x:        [][]float64{{1, 2}, {4, 5.5}, {7, -0.8}},
			y:        []float64{1, -1, 1},
			labels:   []float64{-1, 1},
			features: []string{"a", "b"},
			columns: map[string][]float64{
				"a":    {1, 4, 7},
				"b":    {2, 5.5, -0.8},
				"grp":  {3, 6, 0},
				"y":    {1, -1, 1},
				"name": {1, 2, 3},
			},
		},
		{
			name:     "no label",
			content:  people,
			opt:      CSVOptions{Drop: []string{"name"}},
			x:        [][]float64{{1, 2, 3, 1}, {4, 5.5, 6, -1}, {7, -0.8, 0, 1}},
			features: []string{"a", "b", "grp", "y"},
			columns: map[string][]float64{
				"a":    {1, 4, 7},
				"b":    {2, 5.5, -0.8},
				"grp":  {3, 6, 0},
				"y":    {1, -1, 1},
				"name": {1, 2, 3},
			},
		},
		{
			name:     "byte order mark and label first",
			content:  "\uFEFFlab,x\r\n2,0.25\r\n1,0.5\r\n2,1\r\n",
			opt:      CSVOptions{Label: "lab"},
			x:        [][]float64{{0.25}, {0.5}, {1}},
			y:        []float64{2, 1, 2},
			labels:   []float64{1, 2},
			features: []string{"x"},
			columns:  map[string][]float64{"lab": {2, 1, 2}, "x": {0.25, 0.5, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "set.csv", tt.content)
			s, err := LoadCSV(path, tt.opt)
			require.NoError(t, err)
			assert.Equal(t, path, s.Path)
			assert.Equal(t, "csv", s.Format)
			assert.Equal(t, len(tt.x), s.N())
			assert.Equal(t, len(tt.features), s.D())
			assert.Equal(t, tt.x, rows(s.X))
			assert.Equal(t, tt.y, s.Y)
			assert.Equal(t, tt.labels, s.Labels())
			assert.Equal(t, tt.features, s.Features)
			assert.Equal(t, tt.columns, s.Columns)
			if tt.columns["name"] != nil {
				assert.Equal(t, map[string]*TextColumn{"name": {Levels: []string{"ann", "bob", "cy, d"}}}, s.Text)
			} else {
				assert.Nil(t, s.Text)
			}
			assert.Equal(t, tt.opt.Label, s.LabelName)
		})
	}
}

func TestLoadCSVErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		opt     CSVOptions
		want    string // the message after the path
	}{
		{"empty file", "", CSVOptions{}, ": no data rows"},
		{"header only", "a,b\n", CSVOptions{}, ": no data rows"},
		{"empty column name", "a, ,b\n1,2,3\n", CSVOptions{}, ":1:3: empty column name in header (field 2)"},
		{"duplicate column name", "a,b, a\n1,2,3\n", CSVOptions{}, `:1:5: duplicate column name "a" (also field 1)`},
		{"duplicate after BOM", "\uFEFFa,a\n1,2\n", CSVOptions{}, `:1:6: duplicate column name "a" (also field 1)`},
		{"unknown label", "\n\na,b,c\n1,2,3\n", CSVOptions{Label: "grp"}, `:3: unknown column "grp" (columns: a, b, c)`},
		{"unknown drop", "a,b,c\n1,2,3\n", CSVOptions{Label: "a", Drop: []string{"b", "grp"}}, `:1: unknown column "grp" (columns: a, b, c)`},
		{"label dropped", "a,b,c\n1,2,3\n", CSVOptions{Label: "a", Drop: []string{"a"}}, `:1: column "a" is both the label and dropped`},
		{"no feature columns", "a,b\n1,2\n", CSVOptions{Label: "a", Drop: []string{"b"}}, `:1: no feature columns: every column is the label or dropped`},
		{"non-numeric cell", "a,b,c\n1,2,3\n4, abc ,6\n", CSVOptions{}, `:3:3: non-numeric cell "abc" in column "b"`},
		{"non-numeric label", "a,y\n1,yes\n", CSVOptions{Label: "y"}, `:2:3: non-numeric cell "yes" in column "y"`},
		{"empty cell", "a,b\n1,\n", CSVOptions{}, `:2:3: missing value (empty cell) in column "b"; csv(..., missing = "drop") leaves such rows out`},
		{"blank cell", "a,b\n1,2\n  ,3\n", CSVOptions{}, `:3:1: missing value (empty cell) in column "a"; csv(..., missing = "drop") leaves such rows out`},
		{"hexadecimal cell", "a,b\n1,0x1p-2\n", CSVOptions{}, `:2:3: non-numeric cell "0x1p-2" in column "b"`},
		{"digit separator", "a,b\n1_000,2\n", CSVOptions{}, `:2:1: non-numeric cell "1_000" in column "a"`},
		{"infinity", "a,b\n1,inf\n", CSVOptions{}, `:2:3: non-numeric cell "inf" in column "b"`},
		{"overflow", "a,b\n1,1e999\n", CSVOptions{}, `:2:3: number "1e999" in column "b" is out of range (float64 holds magnitudes up to about 1.8e308)`},
		{"not a number", "a,b\n1,1e99x\n", CSVOptions{}, `:2:3: non-numeric cell "1e99x" in column "b"`},
		{"long cell is cut", "a,b\n1,root:*:20228:0:99999:7:::daemon\n", CSVOptions{}, `:2:3: non-numeric cell "root:*:20228:0:99999:7::..." in column "b"`},
		{"bare quote", "a,b\n1,2\"\n", CSVOptions{}, `:2:4: bare " in non-quoted-field`},
		{"unclosed quote", "a,b\n1,\"2\n", CSVOptions{}, `:2:3: extraneous or missing " in quoted-field`},
		{"all rows dropped", "a,b\n1,\n,2\n", CSVOptions{Missing: "drop"}, `: no data rows: all 2 rows have a missing value (missing = "drop")`},
		{"bad missing option", "a,b\n1,2\n", CSVOptions{Missing: "zero"}, `: invalid option missing = "zero" (want "error" or "drop")`},
		{"bad separator", "a,b\n1,2\n", CSVOptions{Sep: '"'}, `: invalid separator '"'`},
		{"header of a private file", "root:x:0:0:root:/root:/bin/bash\nx\n", CSVOptions{Label: "y"}, `:1: unknown column "y" (columns: "root:x:0:0:root:/root:/b...")`},
		{"NaN cell", "a,b\nNaN,1\n", CSVOptions{}, `:2:1: non-numeric cell "NaN" in column "a"`},
		{"too many fields", "a,b\n1,2\n1,2,3\n", CSVOptions{}, `:3: row has 3 fields, want 2 like the header`},
		{"too few fields", "a,b\n1,2\n\n3\n", CSVOptions{}, `:4: row has 1 fields, want 2 like the header`},
		{"bad quote", "a,b\n1,\"2\"x\n", CSVOptions{}, `:2:5: extraneous or missing " in quoted-field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "bad.csv", tt.content)
			s, err := LoadCSV(path, tt.opt)
			assert.Nil(t, s)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, path+tt.want, err.Error())
		})
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{Path: "d/x.csv", Line: 17, Col: 9, Msg: "bad"}, "d/x.csv:17:9: bad"},
		{Error{Path: "d/x.csv", Line: 17, Msg: "bad"}, "d/x.csv:17: bad"},
		{Error{Path: "d/x.csv", Msg: "bad"}, "d/x.csv: bad"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
}

func TestEmptySet(t *testing.T) {
	var s *Set
	assert.Zero(t, s.N())
	assert.Zero(t, s.D())
	assert.Zero(t, s.MatrixBytes())
	assert.Nil(t, s.Labels())
	assert.Nil(t, (&Set{}).Labels())
}

// TestMatrixBytes: 8 bytes an entry of a dense matrix, 12 a nonzero of a
// sparse one.
func TestMatrixBytes(t *testing.T) {
	assert.Equal(t, int64(3*4*8), (&Set{X: mat.NewDense(3, 4, nil)}).MatrixBytes())
	sp := &CSR{Rows: 2, Cols: 1000, RowPtr: []int{0, 2, 5}, ColIdx: make([]int32, 5), Val: make([]float64, 5)}
	assert.Equal(t, int64(5*12), (&Set{Sparse: sp}).MatrixBytes())
}

// pendigits is the path of the shared pendigits data.
var pendigits = shareddata.Path("pendigits")

// requireFile skips the test or benchmark when path (a file of
// ../shared/data) does not exist.
func requireFile(tb testing.TB, path string) {
	tb.Helper()
	shareddata.Require(tb, filepath.Base(path))
}

func TestLoadLibSVMPendigits(t *testing.T) {
	requireFile(t, pendigits)
	want := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		path    string
		maxElem float64
	}{
		{pendigits, 100},
		{pendigits + ".scale", 1},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			requireFile(t, tt.path)
			s, err := LoadLibSVM(tt.path, LibSVMOptions{})
			require.NoError(t, err)
			assert.Equal(t, 7494, s.N())
			assert.Equal(t, 16, s.D())
			assert.Equal(t, want, s.Labels())
			assert.GreaterOrEqual(t, mat.Min(s.X), 0.0)
			assert.Equal(t, tt.maxElem, mat.Max(s.X))
			assert.Equal(t, tt.path, s.Path)
		})
	}
}

func BenchmarkLoadLibSVMPendigits(b *testing.B) {
	requireFile(b, pendigits)
	for b.Loop() {
		if _, err := LoadLibSVM(pendigits, LibSVMOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
