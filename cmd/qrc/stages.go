package main

import (
	"fmt"
	"time"
)

// clock measures one piece of a command's work in wall and CPU seconds,
// for the notes that say where the time goes.
type clock struct {
	wall time.Time
	cpu  float64
}

func startClock() clock { return clock{wall: time.Now(), cpu: cpuSeconds()} }

// note is "what: 6.1 s (CPU 7.9 s)" since the clock started.
func (c clock) note(what string) string {
	return fmt.Sprintf("%s: %.2f s (CPU %.2f s)", what, time.Since(c.wall).Seconds(), cpuSeconds()-c.cpu)
}
