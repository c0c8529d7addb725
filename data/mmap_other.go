//go:build !linux

package data

import (
	"os"
	"unsafe"
)

// mapFile is not used on this system: files are read.
func mapFile(f *os.File, size int64) (data []byte, unmap func(), ok bool) {
	return nil, nil, false
}

// adviseHuge does nothing on this system.
func adviseHuge(p unsafe.Pointer, n int) {}
