// Package fileio reads and writes the files qrc is given so that nothing
// the user owns is lost: every output file is written atomically (to a
// temporary file in the same directory, synced, then renamed over the
// target), outputs can be checked for writability before a long run, and
// inputs are read only when they are regular files of bounded size.
package fileio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ReadFile reads the regular file path, refusing any other kind of file (a
// FIFO, a device, a directory) and a file of more than max bytes, so that a
// read never blocks or grows without bound.
func ReadFile(path string, max int64) ([]byte, error) {
	// Stat before opening: opening a named pipe blocks until a writer
	// comes.
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("not a regular file (%s)", kind(info.Mode()))}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("not a regular file (%s)", kind(info.Mode()))}
	}
	if info.Size() > max {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("the file is %d bytes; the most qrc reads is %d", info.Size(), max)}
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("the file has more than %d bytes, the most qrc reads", max)}
	}
	return b, nil
}

// kind names a file mode for a message.
func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// File is an output file being written: the bytes go to a temporary file
// beside the target, which Commit renames over it. Until Commit, the target
// is untouched; Abort removes the temporary file.
type File struct {
	f      *os.File
	path   string
	perm   os.FileMode
	closed bool
}

// Create starts writing path atomically. The file gets permissions perm
// (or those of the file it replaces).
func Create(path string, perm os.FileMode) (*File, error) {
	if info, err := os.Stat(path); err == nil {
		if !info.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file (%s)", path, kind(info.Mode()))
		}
		perm = info.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return &File{f: f, path: path, perm: perm}, nil
}

// Write writes to the temporary file.
func (w *File) Write(p []byte) (int, error) { return w.f.Write(p) }

// Commit syncs the temporary file and renames it over the target.
func (w *File) Commit() error {
	if w.closed {
		return errors.New("fileio: commit after close")
	}
	w.closed = true
	err := w.f.Chmod(w.perm)
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(w.f.Name(), w.path)
	}
	if err != nil {
		os.Remove(w.f.Name())
		return fmt.Errorf("writing %s: %w", w.path, unwrapPath(err))
	}
	return nil
}

// Abort removes the temporary file, leaving the target as it was. It does
// nothing after Commit.
func (w *File) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	w.f.Close()
	os.Remove(w.f.Name())
}

// WriteFile writes data to path atomically: a reader (or a kill at any
// moment) sees either the old file or the whole new one.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	w, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	return w.Commit()
}

// CheckWritable reports whether path can be written atomically: its
// directory exists and takes a new file, and path is not a directory or
// another non-regular file. It leaves nothing behind.
func CheckWritable(path string) error {
	w, err := Create(path, 0o644)
	if err != nil {
		return err
	}
	w.Abort()
	return nil
}

// Same reports whether paths a and b name the same existing file (through
// links or different spellings).
func Same(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(ia, ib)
}

// SamePath reports whether a and b name the same file: the same existing
// file, or the same cleaned absolute path when either does not exist yet.
func SamePath(a, b string) bool {
	if Same(a, b) {
		return true
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// unwrapPath drops the "open /tmp/.x.tmp123:" prefix of a path error, which
// names the temporary file rather than the user's.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
