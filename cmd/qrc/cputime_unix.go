//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuSeconds returns the CPU time of the whole process, user plus system,
// from getrusage(RUSAGE_SELF): the work the methods do, wherever the Go
// runtime runs it (the garbage collector's threads included), and not the
// time the process waits for a core on a shared machine. On error it
// falls back to wall-clock time since the process started.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return time.Since(processStart).Seconds()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// cpuClock names the clock cpuSeconds reads, for messages.
const cpuClock = "process CPU time (getrusage)"
