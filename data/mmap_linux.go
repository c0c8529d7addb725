//go:build linux

package data

import (
	"os"
	"syscall"
	"unsafe"
)

// mapFile maps the first size bytes of f into memory read-only, so that the
// parsers read the page cache without copying it. The pages are not
// populated up front (MAP_POPULATE): the direct path (direct.go) reads the
// blocks with pread and touches only the pages where it cuts them, and a
// populated mapping of a 1.5 GB file counted 1.5 GB of page cache in the
// process's resident set while it loaded. A file truncated by another process while it is
// mapped makes reading its tail fault; the parsers run with
// debug.SetPanicOnFault and report that as an error. ok is false when the
// file cannot be mapped; the caller then reads it.
func mapFile(f *os.File, size int64) (data []byte, unmap func(), ok bool) {
	if size <= 0 || size != int64(int(size)) {
		return nil, nil, false
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	return b, func() { _ = syscall.Munmap(b) }, true
}

// hugeMin is the smallest allocation worth backing with huge pages.
const hugeMin = 4 << 20

// adviseHuge asks the kernel to back the n bytes at p with transparent huge
// pages (where the system enables them on request, as Debian does by
// default): a fresh matrix of hundreds of megabytes is then first touched
// with one fault per 2 MiB instead of one per 4 KiB, which on a virtual
// machine is most of the cost of building a large set. Failure is ignored:
// the memory is used either way.
func adviseHuge(p unsafe.Pointer, n int) {
	if n < hugeMin {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(p), n), 14) // MADV_HUGEPAGE
}
