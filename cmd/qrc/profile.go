package main

import (
	"bytes"
	"runtime/pprof"

	"github.com/qrc-lang/qrc/fileio"
)

// cpuProfile is a CPU profile of the whole command, kept in memory and
// written to its file only at the end, through fileio (atomically, never
// over a file the command reads), so that a command line or a model that
// turns out to be wrong never touches the file.
type cpuProfile struct {
	path string
	buf  bytes.Buffer
}

// startCPUProfile starts a CPU profile to be written to path by stop.
func startCPUProfile(path string) (*cpuProfile, error) {
	p := &cpuProfile{path: path}
	if err := pprof.StartCPUProfile(&p.buf); err != nil {
		return nil, err
	}
	return p, nil
}

// check says whether the profile's file can be written: a directory that
// takes it, not a file the command reads (call it once the model and its
// data are loaded).
func (p *cpuProfile) check() error { return fileio.CheckWritable(p.path) }

// discard stops the profile without writing it.
func (p *cpuProfile) discard() { pprof.StopCPUProfile() }

// stop stops the profile and writes its file.
func (p *cpuProfile) stop() error {
	pprof.StopCPUProfile()
	return fileio.WriteFile(p.path, p.buf.Bytes(), 0o644)
}
