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

func TestWriteFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.qrc")
	link := filepath.Join(dir, "link.qrc")
	require.NoError(t, os.WriteFile(real, []byte("old"), 0o640))
	require.NoError(t, os.Symlink("real.qrc", link))
	require.NoError(t, WriteFile(link, []byte("new"), 0o644))
	info, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeSymlink, "the link stays a link")
	b, err := os.ReadFile(real)
	require.NoError(t, err)
	assert.Equal(t, "new", string(b))
	info, err = os.Stat(real)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm())
	assert.ElementsMatch(t, []string{"real.qrc", "link.qrc"}, entries(t, dir))

	// a dangling link: the file it names is created
	dangling := filepath.Join(dir, "d.json")
	require.NoError(t, os.Symlink("made.json", dangling))
	require.NoError(t, WriteFile(dangling, []byte("{}"), 0o644))
	b, err = os.ReadFile(filepath.Join(dir, "made.json"))
	require.NoError(t, err)
	assert.Equal(t, "{}", string(b))
}

func TestWriteKeepsHardLinks(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.qrc"), filepath.Join(dir, "b.qrc")
	require.NoError(t, os.WriteFile(a, []byte("old old old"), 0o600))
	require.NoError(t, os.Link(a, b))
	require.NoError(t, WriteFile(a, []byte("new"), 0o644))
	for _, p := range []string{a, b} {
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, "new", string(got), p)
	}
	assert.True(t, Same(a, b), "still one file with two names")
	info, err := os.Stat(a)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	assert.ElementsMatch(t, []string{"a.qrc", "b.qrc"}, entries(t, dir), "no temporary file left")
}

func TestWriteDevices(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux devices")
	}
	require.NoError(t, WriteFile("/dev/null", []byte("x"), 0o644))
	info, err := os.Stat("/dev/null")
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeDevice, "/dev/null is still a device")
	err = WriteFile("/dev/full", []byte("x"), 0o644)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/dev/full")
	assert.ErrorIs(t, err, syscall.ENOSPC)
	require.NoError(t, CheckWritable("/dev/null"))
}

func TestRefusesInputs(t *testing.T) {
	defer ForgetInputs()
	dir := t.TempDir()
	in := filepath.Join(dir, "obs.csv")
	require.NoError(t, os.WriteFile(in, []byte("a\n1\n"), 0o644))
	_, err := ReadFile(in, 100)
	require.NoError(t, err)
	err = WriteFile(in, []byte("gone"), 0o644)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refusing to write")
	link := filepath.Join(dir, "l.csv")
	require.NoError(t, os.Symlink(in, link))
	assert.Error(t, WriteFile(link, []byte("gone"), 0o644), "through a link too")
	assert.Error(t, CheckWritable(in))
	b, err := os.ReadFile(in)
	require.NoError(t, err)
	assert.Equal(t, "a\n1\n", string(b))
	// unless the caller says it may replace it (fmt -w)
	require.NoError(t, WriteFile(in, []byte("b\n2\n"), 0o644, in))
	ForgetInputs()
	require.NoError(t, WriteFile(in, []byte("c\n"), 0o644))
}
