package data

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/internal/pqtest"
)

// writeShards writes each text as dir/name-<i>.ext and returns dir.
func writeShards(t *testing.T, ext string, texts ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i, text := range texts {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "part-"+string(rune('0'+i))+"."+ext), []byte(text), 0o644))
	}
	return dir
}

// sameRows requires that a and b hold the same rows and columns.
func sameRows(t *testing.T, a, b *Set) {
	t.Helper()
	require.Equal(t, a.N(), b.N())
	require.Equal(t, a.D(), b.D())
	assert.Equal(t, a.IsSparse(), b.IsSparse())
	if a.IsSparse() {
		assert.Equal(t, a.Sparse, b.Sparse)
	} else {
		assert.Equal(t, rows(a.X), rows(b.X))
	}
	assert.Equal(t, a.Y, b.Y)
	assert.Equal(t, a.Features, b.Features)
	assert.Equal(t, a.Columns, b.Columns)
	assert.Equal(t, a.Text, b.Text)
	assert.Equal(t, a.LabelName, b.LabelName)
	assert.Equal(t, a.Dropped, b.Dropped)
}

// A directory or a glob of CSV shards loads as one file holding their rows
// in name order: text columns' levels merged in order of first appearance,
// and options (label, drop, missing) applied to each shard.
func TestShardsCSV(t *testing.T) {
	header := "x1,x2,group,y\n"
	parts := []string{
		"1,2,b,1\n3,,a,-1\n",
		"5,6,c,1\n7,8,b,1\n",
		"9,10,a,-1\n",
	}
	dir := writeShards(t, "csv", header+parts[0], header+parts[1], header+parts[2])
	whole := writeFile(t, "whole.csv", header+strings.Join(parts, ""))
	opt := CSVOptions{Label: "y", Drop: []string{"group"}, Missing: "drop"}
	want, err := LoadCSV(whole, opt)
	require.NoError(t, err)
	require.Equal(t, 4, want.N())
	require.Equal(t, 1, want.Dropped)
	for _, path := range []string{dir, filepath.Join(dir, "part-*.csv"), dir + string(filepath.Separator)} {
		got, err := LoadCSV(path, opt)
		require.NoError(t, err, path)
		sameRows(t, want, got)
		assert.Equal(t, path, got.Path)
		assert.Equal(t, []string{"b", "c", "a"}, got.Text["group"].Levels)
	}
	// the cache serves a sharded set as well (read again each time)
	var c Cache
	got, err := c.CSV(dir, opt)
	require.NoError(t, err)
	sameRows(t, want, got)
}

// LIBSVM shards of different widths load as their concatenation does: the
// width is the largest index of any shard.
func TestShardsLibSVM(t *testing.T) {
	parts := []string{"1 1:0.5 3:1\n-1 2:2\n", "1 1:1\n", "-1 5:3 6:1\n1 4:2\n"}
	whole := writeFile(t, "whole.svm", strings.Join(parts, ""))
	want, err := LoadLibSVM(whole, LibSVMOptions{})
	require.NoError(t, err)
	dir := writeShards(t, "svm", parts...)
	got, err := LoadLibSVM(filepath.Join(dir, "*.svm"), LibSVMOptions{})
	require.NoError(t, err)
	sameRows(t, want, got)
	assert.Equal(t, 6, got.D())
	assert.Equal(t, 5, got.N())
	// the features option applies to every shard
	got, err = LoadLibSVM(dir, LibSVMOptions{Features: 8})
	require.NoError(t, err)
	assert.Equal(t, 8, got.D())
	_, err = LoadLibSVM(dir, LibSVMOptions{Features: 5})
	assert.ErrorContains(t, err, filepath.Join(dir, "part-2.svm")+":1:")
}

// Parquet shards, the generator's format.
func TestShardsParquet(t *testing.T) {
	text := []string{"a,b,g,y\n1,2,u,0\n3,4,v,1\n", "a,b,g,y\n5,6,w,1\n", "a,b,g,y\n7,8,u,0\n9,0,v,1\n"}
	dir := t.TempDir()
	for i, s := range text {
		pqtest.Write(t, filepath.Join(dir, "train-"+string(rune('0'+i))+".parquet"), pqtest.FromCSV(t, s, nil), 2)
	}
	whole := filepath.Join(t.TempDir(), "whole.parquet")
	pqtest.Write(t, whole, pqtest.FromCSV(t, "a,b,g,y\n1,2,u,0\n3,4,v,1\n5,6,w,1\n7,8,u,0\n9,0,v,1\n", nil), 2)
	opt := ParquetOptions{Label: "y", Drop: []string{"g"}}
	want, err := LoadParquet(whole, opt)
	require.NoError(t, err)
	got, err := LoadParquet(filepath.Join(dir, "train-*.parquet"), opt)
	require.NoError(t, err)
	sameRows(t, want, got)
	assert.Equal(t, []float64{1, 2, 3, 1, 2}, got.Columns["g"])

	// a shard with other columns is named
	odd := filepath.Join(dir, "train-3.parquet")
	pqtest.Write(t, odd, pqtest.FromCSV(t, "a,c,g,y\n1,2,u,0\n", nil), 2)
	_, err = LoadParquet(dir, opt)
	assert.EqualError(t, err, odd+": this shard's columns differ from those of the first shard "+filepath.Join(dir, "train-0.parquet")+": feature columns a,c, not a,b")
}

// Shards that differ, patterns that match nothing, directories without
// data files are errors that name the file or pattern.
func TestShardsErrors(t *testing.T) {
	dir := writeShards(t, "csv", "a,y\n1,2\n", "a,y,z\n1,2,3\n")
	_, err := LoadCSV(dir, CSVOptions{Label: "y"})
	assert.EqualError(t, err, filepath.Join(dir, "part-1.csv")+": this shard's columns differ from those of the first shard "+
		filepath.Join(dir, "part-0.csv")+": feature columns a,z, not a")
	dir = writeShards(t, "csv", "a,y\n1,2\n", "a,b\n1,2\n")
	_, err = LoadCSV(dir, CSVOptions{Label: "y"})
	assert.ErrorContains(t, err, filepath.Join(dir, "part-1.csv")+`:1: unknown column "y"`)

	none := filepath.Join(t.TempDir(), "train-*.csv")
	_, err = LoadCSV(none, CSVOptions{})
	assert.EqualError(t, err, none+": no file matches this pattern")
	assert.True(t, errors.Is(err, fs.ErrNotExist))
	_, err = LoadCSV(filepath.Join(t.TempDir(), "[x"), CSVOptions{})
	assert.ErrorContains(t, err, "malformed file pattern")

	empty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(empty, "_SUCCESS"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(empty, ".part-0.csv.crc"), nil, 0o644))
	_, err = LoadCSV(empty, CSVOptions{})
	assert.EqualError(t, err, empty+": the directory holds no data file (a sharded data set reads the files directly in it whose names do not start with . or _)")

	// a file whose name has glob characters is read as itself
	odd := writeFile(t, "a[1].csv", "a\n1\n")
	s, err := LoadCSV(odd, CSVOptions{})
	require.NoError(t, err)
	assert.Equal(t, 1, s.N())

	// the memory limit holds for the concatenation as well as each shard
	dir = writeShards(t, "csv", "a,b\n1,2\n3,4\n", "a,b\n5,6\n7,8\n")
	_, err = LoadCSV(dir, CSVOptions{MaxMemory: 100})
	assert.ErrorContains(t, err, dir+": the first 2 of its 2 shards needs about")
}
