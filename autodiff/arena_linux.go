//go:build linux

package autodiff

import (
	"runtime"
	"syscall"
	"unsafe"
)

// arenaMapMin is the smallest arena mapped from the kernel directly.
const arenaMapMin = 4 << 20

// allocateArena returns n zeroed float64s for p's registers. An arena of
// 4 MiB or more is mapped from the kernel, outside the Go heap, and backed
// by transparent huge pages where the system allows: the kernel's pages
// are zero already, so the Go allocator's clearing pass (24 s for the 4.8
// GB arena of npc.qrc on 10^7 rows, most of it one page fault per 4 KiB)
// is not needed, and the first touch faults once per 2 MiB. The mapping
// is released when p is garbage collected (the arena holds no pointers,
// and only p's registers refer to it).
func allocateArena(p *Program, n int) []float64 {
	bytes := 8 * n
	if bytes < arenaMapMin {
		return make([]float64, n)
	}
	b, err := syscall.Mmap(-1, 0, bytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]float64, n)
	}
	_ = syscall.Madvise(b, 14) // MADV_HUGEPAGE; failure is harmless
	p.mapped = true
	runtime.AddCleanup(p, func(b []byte) { _ = syscall.Munmap(b) }, b)
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
