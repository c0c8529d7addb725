package fileio

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileReplacesKeepingMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.qrc")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o600))
	require.NoError(t, WriteFile(p, []byte("new text"), 0o644))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "new text", string(b))
	info, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	assert.Equal(t, []string{"m.qrc"}, entries(t, dir), "no temporary file left")

	q := filepath.Join(dir, "new.json")
	require.NoError(t, WriteFile(q, []byte("{}"), 0o640))
	info, err = os.Stat(q)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm())
}

func TestCreateAbortLeavesTarget(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "trace.csv")
	require.NoError(t, os.WriteFile(p, []byte("kept"), 0o644))
	w, err := Create(p, 0o644)
	require.NoError(t, err)
	_, err = w.Write([]byte("partial"))
	require.NoError(t, err)
	// until Commit the target is untouched
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "kept", string(b))
	w.Abort()
	w.Abort() // twice is harmless
	b, err = os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "kept", string(b))
	assert.Equal(t, []string{"trace.csv"}, entries(t, dir))
	assert.Error(t, w.Commit(), "commit after abort")
}

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, CheckWritable(filepath.Join(dir, "r.json")))
	assert.Empty(t, entries(t, dir), "nothing left behind")
	err := CheckWritable(filepath.Join(dir, "no", "r.json"))
	require.Error(t, err)
	assert.Equal(t, "cannot write "+filepath.Join(dir, "no", "r.json")+": no such file or directory", err.Error())
	err = CheckWritable(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file (a directory)")
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.qrc")
	require.NoError(t, os.WriteFile(p, []byte("0123456789"), 0o644))
	b, err := ReadFile(p, 10)
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(b))
	_, err = ReadFile(p, 9)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the file is 10 bytes; the most qrc reads is 9")
	_, err = ReadFile(dir, 100)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file (a directory)")
	if runtime.GOOS == "linux" {
		fifo := filepath.Join(dir, "fifo")
		require.NoError(t, syscall.Mkfifo(fifo, 0o644))
		_, err = ReadFile(fifo, 100) // must not block waiting for a writer
		require.Error(t, err)
		assert.Contains(t, err.Error(), "not a regular file (a named pipe)")
		_, err = ReadFile("/dev/zero", 100)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "not a regular file (a device)")
	}
}

func TestSamePath(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.qrc")
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	assert.True(t, SamePath(p, filepath.Join(dir, "x", "..", "m.qrc")))
	link := filepath.Join(dir, "link.qrc")
	require.NoError(t, os.Symlink(p, link))
	assert.True(t, SamePath(link, p), "a link to the file is the file")
	assert.True(t, SamePath(filepath.Join(dir, "new"), filepath.Join(dir, ".", "new")), "the same path before it exists")
	assert.False(t, SamePath(p, filepath.Join(dir, "other")))
}
