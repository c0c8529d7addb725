package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 42's findings, each through the
// binary.

// A --trace over a hard-linked file, written in place, on a disk with
// room for the new trace once but not twice: the write fails before the
// old trace is touched (both names keep it, no temporary file stays) and
// the result is printed with the error, exit 2. The old trace used to be
// truncated and cut half way. Needs root, to mount a small tmpfs.
func TestTraceInPlaceOnFullDisk(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("needs root on Linux to mount a small tmpfs")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	model := writeFiles(t, map[string]string{"m.qrc": "var x[2] in box(-1, 1) = 1\nminimize abs(x[1]) + abs(x[2] - 0.3)\n"})
	args := []string{"solve", "--quiet", filepath.Join(model, "m.qrc"), "--oracle", "switching", "--inner", "2", "--outer", "200"}
	// the new trace's size, written elsewhere
	r := run1(t, model, "", append(args, "--trace", "t.csv")...)
	require.Equal(t, 0, r.code, r.stderr)
	info, err := os.Stat(filepath.Join(model, "t.csv"))
	require.NoError(t, err)
	page := int64(os.Getpagesize())
	pages := (info.Size() + page - 1) / page
	require.GreaterOrEqual(t, pages, int64(2), "a trace of at least two pages")

	old := []byte("seconds,t,phase\nthe old trace\n")
	tr, link := filepath.Join(mnt, "t.csv"), filepath.Join(mnt, "t2.csv")
	require.NoError(t, os.WriteFile(tr, old, 0o644))
	require.NoError(t, os.Link(tr, link))
	// leave room for the temporary file (pages) only: the copy in place
	// then has the old trace's page, not the pages it needs
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(mnt, &st))
	free := int64(st.Bavail) * int64(st.Bsize)
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "filler"), make([]byte, free-pages*page), 0o644))

	r = run1(t, model, "", append(args, "--trace", tr)...)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stdout, "status ", "the result is printed")
	assert.Contains(t, r.stderr, "the file was left as it was")
	for _, name := range []string{tr, link} {
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		assert.Equal(t, string(old), string(b), "%s: the old trace, whole", name)
	}
	noTemp(t, mnt)
}
