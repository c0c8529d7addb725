//go:build !(linux || darwin || freebsd)

package data

// addressSpaceLimit returns 0: no address-space limit is read here.
func addressSpaceLimit() int64 { return 0 }
