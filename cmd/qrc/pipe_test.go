package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 42's findings, each through the
// binary.

// --out naming a named pipe that no process reads: the solve is not held
// up forever; after fileio.PipeWait (5 s) the result is printed with the
// error after it and exit 2. It used to block in open(2) with nothing
// printed. With a reader, the JSON goes through the pipe.
func TestOutToUnreadPipe(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no named pipes")
	}
	dir := writeFiles(t, map[string]string{"m.qrc": obsModel, "obs.csv": obsCSV})
	fifo := filepath.Join(dir, "p")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	r := run1(t, dir, "", "solve", "--quiet", "m.qrc", "--out", "p")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stdout, "status         converged", "the result is printed")
	assert.Contains(t, r.stderr, "cannot write p: no process has the named pipe open for reading (waited 5s)")

	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // a reader: open blocks until qrc opens the pipe
		got <- b
	}()
	r = run1(t, dir, "", "solve", "--quiet", "m.qrc", "--out", "p")
	require.Equal(t, 0, r.code, r.stderr)
	var s solveJSON
	select {
	case b := <-got:
		require.NoError(t, json.Unmarshal(b, &s), string(b))
	case <-time.After(time.Minute):
		t.Fatal("the reader got nothing")
	}
	assert.Equal(t, "converged", s.Status)
	noTemp(t, dir)
}
