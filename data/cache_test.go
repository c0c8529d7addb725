package data

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCache(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.svm")
	require.NoError(t, os.WriteFile(path, []byte("1 1:0.5\n2 2:1\n"), 0o644))
	var c Cache
	a, err := c.LibSVM(path, LibSVMOptions{})
	require.NoError(t, err)
	b, err := c.LibSVM(path, LibSVMOptions{})
	require.NoError(t, err)
	assert.Same(t, a, b, "an unchanged file is served from memory")
	assert.Equal(t, 1, c.Reads())

	// other options are another entry
	wide, err := c.LibSVM(path, LibSVMOptions{Features: 5})
	require.NoError(t, err)
	assert.Equal(t, 5, wide.D())
	assert.Equal(t, 2, c.Reads())

	// a changed file is read again
	require.NoError(t, os.WriteFile(path, []byte("1 1:0.5\n2 2:1\n3 1:2\n"), 0o644))
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(path, later, later))
	d, err := c.LibSVM(path, LibSVMOptions{})
	require.NoError(t, err)
	assert.Equal(t, 3, d.N())
	assert.Equal(t, 3, c.Reads())

	// errors are not cached, and say what the loader says
	_, err = c.CSV(filepath.Join(dir, "missing.csv"), CSVOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.csv")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.csv"), []byte("x,y\n1,oops\n"), 0o644))
	_, err = c.CSV(filepath.Join(dir, "b.csv"), CSVOptions{Label: "y"})
	require.Error(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.csv"), []byte("x,y\n1,2\n"), 0o644))
	s, err := c.CSV(filepath.Join(dir, "b.csv"), CSVOptions{Label: "y"})
	require.NoError(t, err)
	assert.Equal(t, []float64{2}, s.Y)
}
