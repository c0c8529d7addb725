//go:build !linux

package fileio

import "os"

// reserve does nothing where fallocate is not known: the copy in place
// may then fail half way on a full disk (the message names the temporary
// file that holds the whole new content).
func reserve(f *os.File, size int64) error { return nil }
