//go:build !unix

package main

import "time"

// cpuSeconds returns wall-clock seconds since the process started: this
// system has no getrusage, so qrc compare times methods by the wall clock.
func cpuSeconds() float64 { return time.Since(processStart).Seconds() }

// cpuClock names the clock cpuSeconds reads, for messages.
const cpuClock = "wall-clock time (no getrusage on this system)"
