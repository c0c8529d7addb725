//go:build linux || darwin || freebsd

package data

import "syscall"

// addressSpaceLimit returns the process's address-space limit
// (RLIMIT_AS, ulimit -v) in bytes, or 0 when there is none.
func addressSpaceLimit() int64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur > 1<<62 { // RLIM_INFINITY is all ones
		return 0
	}
	return int64(r.Cur)
}
