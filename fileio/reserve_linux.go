package fileio

import (
	"errors"
	"os"
	"syscall"
)

// fallocKeepSize is FALLOC_FL_KEEP_SIZE: allocate without changing the
// file's size.
const fallocKeepSize = 1

// reserve allocates the blocks of f's first size bytes without changing
// its size or content, so that writing them cannot run out of space; an
// error (ENOSPC) leaves f as it was. A filesystem without fallocate is
// asked for its free space instead.
func reserve(f *os.File, size int64) error {
	if size == 0 {
		return nil
	}
	err := syscall.Fallocate(int(f.Fd()), fallocKeepSize, 0, size)
	if err == nil || !(errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS)) {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(f.Fd()), &st); err != nil {
		return nil // unknown: write as before
	}
	// the blocks beyond the old size, and one more for rounding
	need := size - info.Size() + st.Bsize
	if need > 0 && uint64(need) > st.Bavail*uint64(st.Bsize) {
		return syscall.ENOSPC
	}
	return nil
}
