package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/data"
)

// --shards writes the rows of the single --rows file, split in order into
// shards that load (as a glob, a directory) to the same set, in every
// format.
func TestShards(t *testing.T) {
	sp := largeSpec{Rows: 1001, Features: 16, Classes: 10, Noise: 0.18, Seed: 18}
	whole := filepath.Join(t.TempDir(), "whole.svm")
	require.NoError(t, runLarge(sp, "", whole))
	want, err := data.LoadLibSVM(whole, data.LibSVMOptions{Features: 16})
	require.NoError(t, err)
	wantX, err := want.Dense()
	require.NoError(t, err)
	for _, format := range []string{"parquet", "csv", "libsvm"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, runShards(sp, 3, format, dir))
			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			ext := map[string]string{"parquet": "parquet", "csv": "csv", "libsvm": "svm"}[format]
			require.Len(t, ents, 3)
			assert.Equal(t, "train-00000."+ext, ents[0].Name())
			var got *data.Set
			switch format {
			case "parquet":
				got, err = data.LoadParquet(filepath.Join(dir, "train-*.parquet"), data.ParquetOptions{Label: "y"})
			case "csv":
				got, err = data.LoadCSV(dir, data.CSVOptions{Label: "y"})
			default:
				got, err = data.LoadLibSVM(dir, data.LibSVMOptions{Features: 16})
			}
			require.NoError(t, err)
			require.Equal(t, 1001, got.N())
			gotX, err := got.Dense()
			require.NoError(t, err)
			assert.Equal(t, want.Y, got.Y)
			assert.Equal(t, wantX.RawMatrix().Data, gotX.RawMatrix().Data)
			// shard k holds rows [k*N/S, (k+1)*N/S)
			if format == "csv" {
				first, err := data.LoadCSV(filepath.Join(dir, "train-00000.csv"), data.CSVOptions{Label: "y"})
				require.NoError(t, err)
				assert.Equal(t, 333, first.N())
			}
		})
	}
	assert.Error(t, runShards(sp, 0, "parquet", t.TempDir()))
	assert.Error(t, runShards(sp, 2, "json", t.TempDir()))
}
