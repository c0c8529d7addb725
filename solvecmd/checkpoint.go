package solvecmd

import (
	"fmt"
	"io"
	"time"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/point"
	"github.com/qrc-lang/qrc/solve"
)

// defaultCheckpointEvery is how often --checkpoint writes the current
// iterate unless --checkpoint-every says otherwise.
const defaultCheckpointEvery = 10 * time.Second

// checkpointer is a solve.Recorder that writes the current outer iterate to
// a point file, atomically, at the first outer iteration and then at most
// every interval, so that a run killed at any moment can resume with
// --start FILE from an iterate at most one interval old. A failed write is
// reported once and does not stop the solve.
type checkpointer struct {
	path    string
	m       *check.Model
	every   time.Duration
	last    time.Duration // Elapsed at the last write
	written int           // writes done
	stderr  io.Writer
	warned  bool
	name    string // the command, for messages
	start   string // the --start file, which the checkpoint may replace (a resumed run)
}

// Record writes an outer iterate when the interval has passed.
func (c *checkpointer) Record(it solve.Iteration) error {
	if it.K > 0 { // inner records
		return nil
	}
	if c.written > 0 && it.Elapsed-c.last < c.every {
		return nil
	}
	c.write(it.X)
	c.last = it.Elapsed
	return nil
}

// write writes x to the checkpoint file and returns the error of a failed
// write, which it reports once (the solve goes on).
func (c *checkpointer) write(x []float64) error {
	b, err := point.Marshal(c.m, x)
	if err == nil {
		err = fileio.WriteFile(c.path, b, 0o644, c.start)
	}
	if err != nil {
		if !c.warned {
			fmt.Fprintf(c.stderr, "qrc %s: --checkpoint: %v (the solve goes on; the file keeps its last point)\n", c.name, err)
			c.warned = true
		}
		return err
	}
	c.written++
	return nil
}
