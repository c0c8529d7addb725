//go:build linux

package data

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f into memory read-only, so that the
// parsers read the page cache without copying it. The pages are populated at
// once (MAP_POPULATE). A file truncated by another process while it is
// mapped makes reading its tail fault; the parsers run with
// debug.SetPanicOnFault and report that as an error. ok is false when the
// file cannot be mapped; the caller then reads it.
func mapFile(f *os.File, size int64) (data []byte, unmap func(), ok bool) {
	if size <= 0 || size != int64(int(size)) {
		return nil, nil, false
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return nil, nil, false
	}
	return b, func() { _ = syscall.Munmap(b) }, true
}
