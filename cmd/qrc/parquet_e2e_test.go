package main_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/internal/pqtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParquetSolveFairness solves examples/fairness.qrc with its data given
// as a Parquet file (written here from examples/data/fairness.csv, with an
// integer label and group) through --data: the csv declaration reads the
// .parquet file with its label and drop options, and the result is the one
// on the CSV file.
func TestParquetSolveFairness(t *testing.T) {
	pq := filepath.Join(t.TempDir(), "fairness.parquet")
	pqtest.WriteCSV(t, pq, filepath.Join(repoRoot, "examples/data/fairness.csv"), map[string]string{"y": "int64", "group": "int32"}, 256)

	var sum struct {
		Data []struct {
			Loader   string    `json:"loader"`
			Path     string    `json:"path"`
			Rows     int       `json:"rows"`
			Features int       `json:"features"`
			Labels   []float64 `json:"labels"`
			Columns  []string  `json:"columns"`
		} `json:"data"`
	}
	r := qrc(t, "", "check", "examples/fairness.qrc", "--data", "people="+pq, "--json")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &sum))
	require.Len(t, sum.Data, 1)
	d := sum.Data[0]
	assert.Equal(t, "parquet", d.Loader)
	assert.Equal(t, pq, d.Path)
	assert.Equal(t, 1000, d.Rows)
	assert.Equal(t, 5, d.Features)
	assert.Equal(t, []float64{-1, 1}, d.Labels)

	csv, r1 := solveOut(t, "examples/fairness.qrc", "--outer", "20")
	require.Equal(t, 0, r1.code, r1.stderr)
	par, r2 := solveOut(t, "examples/fairness.qrc", "--outer", "20", "--data", "people="+pq)
	require.Equal(t, 0, r2.code, r2.stderr)
	require.True(t, par.Success, par.Status)
	assert.Equal(t, csv.Status, par.Status)
	assert.Equal(t, csv.Objective, par.Objective)
	assert.Equal(t, csv.Variables, par.Variables)
	assert.Equal(t, csv.OuterIterations, par.OuterIterations)
	require.Len(t, par.Constraints, 2)
	for k := range csv.Constraints {
		assert.Equal(t, csv.Constraints[k].Value, par.Constraints[k].Value)
	}
}

// TestParquetModel reads a Parquet file declared with parquet(...): a text
// column in a where filter and a null dropped with missing = "drop" give the
// known objective; without it the null is reported by row and column; a
// damaged file is an error, not a crash.
func TestParquetModel(t *testing.T) {
	text, want, rows := people() // the CSV of TestTextColumnsAndMissing, ';'-separated
	pq := pqtest.FromCSV(t, strings.ReplaceAll(text, ";", ","), map[string]string{"y": "int32"})
	dir := t.TempDir()
	good := pqtest.Bytes(t, pq, 8)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.parquet"), good, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cut.parquet"), good[:len(good)/2], 0o644))
	damaged := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(damaged[len(damaged)-8:], 1<<30) // the footer's length
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.parquet"), damaged, 0o644))
	model := `data P = parquet("p.parquet", label = "y", drop = ["sex"], missing = "drop")
var w in box(-1, 1)
minimize mean(i in P where P.sex[i] == "female") (w - P.a[i])^2
`
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("m.qrc", model)
	r := qrcIn(t, dir, nil, "check", "m.qrc")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, fmt.Sprintf("mean over P %d/30 rows", rows))
	assert.Contains(t, r.stdout, "parquet")

	r = qrcIn(t, dir, nil, "eval", "m.qrc", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var e struct {
		Objective struct{ Value float64 } `json:"objective"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &e))
	assert.InDelta(t, want, e.Objective.Value, 1e-12) // at w = 0

	r = qrcIn(t, dir, nil, "solve", "m.qrc")
	require.Equal(t, 0, r.code, r.stderr)

	write("strict.qrc", strings.Replace(model, `, missing = "drop"`, "", 1))
	r = qrcIn(t, dir, nil, "check", "strict.qrc")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, `strict.qrc:1:18: cannot load data set "P": p.parquet: row 31: missing value (null) in column "a"; parquet(..., missing = "drop") leaves such rows out`)

	for file, msg := range map[string]string{
		"cut.parquet": `cut.parquet: not a Parquet file: it does not start and end with the bytes "PAR1" (the file may be truncated)`,
		"bad.parquet": `bad.parquet: damaged Parquet file: cannot read its metadata (the footer): file is smaller than indicated metadata size`,
	} {
		write("d.qrc", strings.Replace(model, "p.parquet", file, 1))
		r = qrcIn(t, dir, nil, "check", "d.qrc")
		assert.Equal(t, 1, r.code, file)
		assert.Contains(t, r.stderr, `d.qrc:1:18: cannot load data set "P": `+msg)
		assert.NotContains(t, r.stderr, "panic")
		assert.NotContains(t, r.stderr, "female")
	}
}
