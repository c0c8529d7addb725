package solvecmd

import (
	"bytes"
	"fmt"
	"io"
	"runtime/pprof"

	"github.com/qrc-lang/qrc/fileio"
)

// CPUProfile is a CPU profile of the whole command (--cpuprofile), kept in
// memory and written to its file only at the end, through fileio
// (atomically, never over a file the command reads), so that a command
// line or a model that turns out to be wrong never touches the file.
//
// A nil *CPUProfile (no --cpuprofile) does nothing.
type CPUProfile struct {
	path    string
	buf     bytes.Buffer
	stopped bool
}

// StartCPUProfile starts a CPU profile to be written to path by End; it
// returns nil when path is "".
func StartCPUProfile(path string) (*CPUProfile, error) {
	if path == "" {
		return nil, nil
	}
	p := &CPUProfile{path: path}
	if err := pprof.StartCPUProfile(&p.buf); err != nil {
		return nil, err
	}
	return p, nil
}

// Check says whether the profile's file can be written: a directory that
// takes it, not a file the command reads (call it once the model and its
// data are loaded). On an error the profile is discarded.
func (p *CPUProfile) Check() error {
	if p == nil {
		return nil
	}
	err := fileio.CheckWritable(p.path)
	if err != nil {
		p.Discard()
	}
	return err
}

// Discard stops the profile without writing it (a command line, model or
// data that turned out to be wrong).
func (p *CPUProfile) Discard() {
	if p != nil && !p.stopped {
		pprof.StopCPUProfile()
		p.stopped = true
	}
}

// End stops the profile and writes its file unless it was discarded, and
// returns the command's exit code: code, or ExitUsage when the file could
// not be written (said on stderr after the command's name prog).
func (p *CPUProfile) End(stderr io.Writer, prog string, code int) int {
	if p == nil || p.stopped {
		return code
	}
	pprof.StopCPUProfile()
	p.stopped = true
	if err := fileio.WriteFile(p.path, p.buf.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "%s: --cpuprofile: %v\n", prog, err)
		return max(code, ExitUsage)
	}
	return code
}

// CheckProfile refuses a --cpuprofile path that names the same file as
// --out, --trace, --checkpoint or --start: the profile, written last,
// would replace the result (or the start), and a profile is never worth
// that. It is a check of the command line, made before anything runs.
func (f *Flags) CheckProfile(path string) error {
	if path == "" {
		return nil
	}
	for _, o := range []struct{ flag, path string }{{"--out", *f.Out}, {"--trace", *f.Trace}, {"--checkpoint", *f.Checkpoint}, {"--start", *f.Start}} {
		if o.path != "" && !(o.flag == "--start" && o.path == RandomStart) && fileio.SamePath(o.path, path) {
			return fmt.Errorf("--cpuprofile and %s name the same file %s; one would replace the other", o.flag, path)
		}
	}
	return nil
}
