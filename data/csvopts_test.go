package data

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCSVOptions(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		opt      CSVOptions
		x        [][]float64
		y        []float64
		features []string
		text     map[string][]string
		dropped  int
	}{
		{
			name:     "semicolon",
			content:  "a;b;y\n1,5;2;1\n", // a decimal comma is not a number...
			opt:      CSVOptions{Sep: ';', Label: "y", Drop: []string{"a"}},
			x:        [][]float64{{2}},
			y:        []float64{1},
			features: []string{"b"},
			text:     map[string][]string{"a": {"1,5"}}, // ...so "a" is text
		},
		{
			name:     "tab",
			content:  "a\tb\n1\t2\n\"3\"\t4\n",
			opt:      CSVOptions{Sep: '\t'},
			x:        [][]float64{{1, 2}, {3, 4}},
			features: []string{"a", "b"},
		},
		{
			name:     "no header",
			content:  "\uFEFF1,2,-1\n3,4,1\n",
			opt:      CSVOptions{NoHeader: true, Label: "c3"},
			x:        [][]float64{{1, 2}, {3, 4}},
			y:        []float64{-1, 1},
			features: []string{"c1", "c2"},
		},
		{
			name:     "missing values dropped",
			content:  "a,b,g\n1,2,x\n,3,y\n4, ,z\n5,6,\n",
			opt:      CSVOptions{Missing: "drop", Drop: []string{"g"}},
			x:        [][]float64{{1, 2}, {5, 6}},
			features: []string{"a", "b"},
			text:     map[string][]string{"g": {"x", ""}}, // an empty text cell is a value
			dropped:  2,
		},
		{
			name:     "quoted text with separators, quotes and line breaks",
			content:  "g,a\n\"x, \"\"y\"\"\n z\",1\nw,2\r\n\"x, \"\"y\"\"\n z\",3\n",
			opt:      CSVOptions{Drop: []string{"g"}},
			x:        [][]float64{{1}, {2}, {3}},
			features: []string{"a"},
			text:     map[string][]string{"g": {"x, \"y\"\n z", "w"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "set.csv", tt.content)
			s, err := LoadCSV(path, tt.opt)
			require.NoError(t, err)
			assert.Equal(t, tt.x, rows(s.X))
			assert.Equal(t, tt.y, s.Y)
			assert.Equal(t, tt.features, s.Features)
			assert.Equal(t, tt.dropped, s.Dropped)
			got := map[string][]string{}
			for name, c := range s.Text {
				got[name] = c.Levels
			}
			if tt.text == nil {
				tt.text = map[string][]string{}
			}
			assert.Equal(t, tt.text, got)
		})
	}
}

func TestCSVTextCodes(t *testing.T) {
	path := writeFile(t, "g.csv", "x,sex\n1,female\n2, male\n3,female\n")
	s, err := LoadCSV(path, CSVOptions{Drop: []string{"sex"}})
	require.NoError(t, err)
	sex := s.Text["sex"]
	require.NotNil(t, sex)
	assert.Equal(t, []string{"female", "male"}, sex.Levels)
	assert.Equal(t, 1, sex.Level("female"))
	assert.Equal(t, 2, sex.Level("male"))
	assert.Equal(t, 0, sex.Level("other"))
	assert.Equal(t, []float64{1, 2, 1}, s.Columns["sex"])
}

func TestErrorCarriesOptionAndColumn(t *testing.T) {
	path := writeFile(t, "e.csv", "a,b,y\n1,2,yes\n")
	for _, tt := range []struct {
		opt            CSVOptions
		option, column string
	}{
		{CSVOptions{Label: "z"}, "label", "z"},
		{CSVOptions{Drop: []string{"a", "q"}}, "drop", "q"},
		{CSVOptions{Label: "y", Drop: []string{"y"}}, "drop", "y"},
		{CSVOptions{Label: "y"}, "", "y"},
		{CSVOptions{Missing: "x"}, "missing", ""},
		{CSVOptions{Sep: '\n'}, "sep", ""},
	} {
		_, err := LoadCSV(path, tt.opt)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, tt.option, e.Option, err.Error())
		assert.Equal(t, tt.column, e.Column, err.Error())
	}
}

// TestLargeFilesParseInBlocks checks files of several blocks, parsed in
// parallel: values and labels in order, a quoted record spanning a block
// boundary, and an error far into the file at its own line and column.
func TestLargeFilesParseInBlocks(t *testing.T) {
	const n = 400000 // about 12 MB: three blocks
	var csv, svm bytes.Buffer
	csv.WriteString("a,b,t,y\n")
	for i := range n {
		t := "plain"
		if i%100000 == 99999 {
			t = "\"two\nlines\""
		}
		fmt.Fprintf(&csv, "%d,%d.5,%s,%d\n", i, i%1000, t, i%2)
		fmt.Fprintf(&svm, "%d 1:%d 3:%d.25\n", i%2, i+1, i%7)
	}
	csvPath := writeFile(t, "big.csv", csv.String())
	svmPath := writeFile(t, "big.svm", svm.String())

	s, err := LoadCSV(csvPath, CSVOptions{Label: "y", Drop: []string{"t"}})
	require.NoError(t, err)
	require.Equal(t, n, s.N())
	for i := range n {
		require.Equal(t, float64(i), s.X.At(i, 0))
		require.Equal(t, float64(i%1000)+0.5, s.X.At(i, 1))
		require.Equal(t, float64(i%2), s.Y[i])
	}
	assert.Equal(t, []string{"plain", "two\nlines"}, s.Text["t"].Levels)

	v, err := LoadLibSVM(svmPath, LibSVMOptions{})
	require.NoError(t, err)
	require.Equal(t, n, v.N())
	require.False(t, v.IsSparse())
	for i := range n {
		require.Equal(t, float64(i+1), v.X.At(i, 0))
		require.Equal(t, 0.0, v.X.At(i, 1))
		require.Equal(t, float64(i%7)+0.25, v.X.At(i, 2))
		require.Equal(t, float64(i%2), v.Y[i])
	}

	// An error near the end, and another one later: the first is reported
	// (row i is on line i+2 of the CSV, plus one line for each of the 3 quoted records before it).
	bad := strings.Replace(csv.String(), "\n399990,", "\n399990x,", 1)
	bad = strings.Replace(bad, "\n399995,", "\n?,", 1)
	_, err = LoadCSV(writeFile(t, "bad.csv", bad), CSVOptions{Label: "y", Drop: []string{"t"}})
	assert.ErrorContains(t, err, `bad.csv:399995:1: non-numeric cell "399990x" in column "a"`)
	badSVM := strings.Replace(svm.String(), " 1:350001 ", " 1:350001 2:x ", 1)
	_, err = LoadLibSVM(writeFile(t, "bad.svm", badSVM), LibSVMOptions{})
	assert.ErrorContains(t, err, `bad.svm:350001:14: invalid feature value "x"`)
}

// TestReadersMatchLoaders checks that the io.Reader path (blocks read, not
// mapped) gives what the file path gives, over several blocks.
func TestReadersMatchLoaders(t *testing.T) {
	var csv, svm bytes.Buffer
	csv.WriteString("a,b\n")
	for i := range 700000 {
		fmt.Fprintf(&csv, "%d,\"%d.5\"\n", i, i%13)
		fmt.Fprintf(&svm, "%d 2:%d\n", i%3, i)
	}
	c1, err := LoadCSV(writeFile(t, "r.csv", csv.String()), CSVOptions{Label: "b"})
	require.NoError(t, err)
	c2, err := ReadCSV(bytes.NewReader(csv.Bytes()), "r.csv", CSVOptions{Label: "b"})
	require.NoError(t, err)
	assert.Equal(t, c1.X.RawMatrix().Data, c2.X.RawMatrix().Data)
	assert.Equal(t, c1.Y, c2.Y)
	assert.Equal(t, float64(699999%13)+0.5, c2.Y[699999])

	s1, err := LoadLibSVM(writeFile(t, "r.svm", svm.String()), LibSVMOptions{})
	require.NoError(t, err)
	s2, err := ReadLibSVM(bytes.NewReader(svm.Bytes()), "r.svm", LibSVMOptions{})
	require.NoError(t, err)
	require.False(t, s2.IsSparse())
	assert.Equal(t, s1.X.RawMatrix().Data, s2.X.RawMatrix().Data)
	assert.Equal(t, s1.Y, s2.Y)
	assert.Equal(t, 699999.0, s2.X.At(699999, 1))
}
