package check_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/internal/pqtest"
	"github.com/qrc-lang/qrc/modelfile"
)

// peopleCSV has a text column, a missing value and a ±1 label.
const peopleCSV = `a,sex,y
1,female,1
2,male,-1
3,female,1
,male,1
5, female ,-1
`

// peopleDir writes p.csv and its Parquet form p.parquet into a fresh
// directory.
func peopleDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.csv"), []byte(peopleCSV), 0o644))
	pqtest.Write(t, filepath.Join(dir, "p.parquet"), pqtest.FromCSV(t, peopleCSV, map[string]string{"y": "int32"}), 2)
	return dir
}

// TestParquetWhereText checks a parquet data set with a text column in a
// where filter, against the same model over the CSV file.
func TestParquetWhereText(t *testing.T) {
	dir := peopleDir(t)
	model := func(loader, file string) string {
		return `data P = ` + loader + `("` + file + `", label = "y", drop = ["sex"], missing = "drop")
var w
minimize mean(i in P where P.sex[i] == "female") (w - P.a[i])^2 + mean(i in P) P.y[i] * w
`
	}
	mc, err := src(t, model("csv", "p.csv"), check.Options{Dir: dir})
	require.NoError(t, err)
	mp, err := src(t, model("parquet", "p.parquet"), check.Options{Dir: dir})
	require.NoError(t, err)
	assert.Equal(t, "parquet", mp.Data[0].Loader)
	assert.Equal(t, 4, mp.Data[0].Set.N())
	assert.Equal(t, 1, mp.Data[0].Set.Dropped)
	mc0, mp0 := check.Means(mc.Objective.Expr), check.Means(mp.Objective.Expr)
	require.Len(t, mp0, 2)
	assert.Equal(t, []int{1, 3, 4}, mp0[0].Rows) // the females among the 4 complete rows
	assert.Equal(t, mc0[0].Rows, mp0[0].Rows)
	assert.Equal(t, mc.Data[0].Set.Y, mp.Data[0].Set.Y)
}

func TestParquetOptionErrors(t *testing.T) {
	dir := peopleDir(t)
	tests := []struct{ model, want string }{
		{`data P = parquet("p.parquet", label = "z")`,
			`m.qrc:1:39: cannot load data set "P": ` + filepath.Join(dir, "p.parquet") + `: unknown column "z" (columns: a, sex, y)`},
		{`data P = parquet("p.parquet", label = "y")`,
			`m.qrc:1:18: cannot load data set "P": ` + filepath.Join(dir, "p.parquet") + `: column "sex" holds text, not numbers: a feature column must be numeric (drop = ["sex"] makes it a text column for where filters)`},
		{`data P = parquet("p.parquet", label = "y", drop = ["sex"])`,
			`m.qrc:1:18: cannot load data set "P": ` + filepath.Join(dir, "p.parquet") + `: row 4: missing value (null) in column "a"; parquet(..., missing = "drop") leaves such rows out`},
		{`data P = parquet("p.parquet", sep = ";")`,
			`m.qrc:1:31: parquet has no option "sep"; its options are label, drop, missing`},
		{`data P = parquet("p.parquet", missing = "zero")`,
			`m.qrc:1:41: missing must be "error" (the default: a null is an error) or "drop" (rows with a null are left out)`},
		{`data P = parquet(label = "y")`,
			`m.qrc:1:10: parquet needs the data file's name, e.g. parquet("data/train.parquet")`},
		{`data P = parquet("p.csv", label = "y", drop = ["sex"])`,
			`: not a Parquet file: it does not start and end with the bytes "PAR1" (the file may be truncated)`},
		{`data parquet = csv("p.csv")`, `m.qrc:1:6: cannot declare "parquet": it is a data loader`},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			_, err := src(t, tt.model+"\nvar w\nminimize w\n", check.Options{Dir: dir})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestParquetDataOverride: --data NAME=FILE.parquet reads a csv data set's
// Parquet form with the declaration's label, drop and missing options, and
// FILE.csv a parquet data set's CSV form.
func TestParquetDataOverride(t *testing.T) {
	dir := peopleDir(t)
	const opts = `, label = "y", drop = ["sex"], missing = "drop")
var w
minimize mean(i in P where P.sex[i] == "male") P.a[i] * w
`
	pq := filepath.Join(dir, "p.parquet")
	m, err := src(t, `data P = csv("p.csv", sep = ","`+opts, check.Options{Dir: dir, Data: []check.Assign{{Name: "P", Value: pq}}})
	require.NoError(t, err)
	assert.Equal(t, "parquet", m.Data[0].Loader)
	assert.Equal(t, pq, m.Data[0].Path)
	assert.Equal(t, "parquet", m.Data[0].Set.Format)
	assert.Equal(t, []int{2}, check.Means(m.Objective.Expr)[0].Rows)

	m, err = src(t, `data P = parquet("p.parquet"`+opts, check.Options{Dir: dir, Data: []check.Assign{{Name: "P", Value: filepath.Join(dir, "p.csv")}}})
	require.NoError(t, err)
	assert.Equal(t, "csv", m.Data[0].Loader)
	assert.Equal(t, "csv", m.Data[0].Set.Format)

	// Through a cache, twice: read once.
	var c data.Cache
	for range 2 {
		m, err = src(t, `data P = parquet("p.parquet"`+opts, check.Options{Dir: dir, Loader: modelfile.Data{Cache: &c}})
		require.NoError(t, err)
		assert.Equal(t, "parquet", m.Data[0].Set.Format)
	}
	assert.Equal(t, 1, c.Reads())
}
