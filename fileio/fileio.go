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
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
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
	NoteInput(path)
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

// File is an output file being written. For a regular file the bytes go
// to a temporary file beside the target, which Commit renames over it:
// until Commit the target is untouched, and Abort removes the temporary
// file. A device, a named pipe or a file reached through /proc (such as
// /dev/stdout) is written in place, as it is opened. A regular file with
// more than one hard link, or one whose owner the new file cannot keep, is
// also written in place, at Commit, from the temporary file, so that its
// other names and its owner stay (a write that fails half way then names
// the temporary file, which holds the whole new content).
type File struct {
	f       *os.File // the temporary file, or the target itself (stream)
	path    string   // the name the user gave, for messages
	target  string   // the file written: path with its symbolic links followed
	perm    os.FileMode
	mode    writeMode
	closed  bool
	written bool // a byte was written (streams)
}

// writeMode is how a File reaches its target.
type writeMode int

const (
	atomic  writeMode = iota // temporary file renamed over the target
	inPlace                  // temporary file copied into the target at Commit
	stream                   // the target opened and written directly
)

// Create starts writing path. The file gets permissions perm, or those
// (and the owner) of the file it replaces. A symbolic link is followed:
// the file it points to is replaced, the link stays. Create refuses a file
// the process has read as an input (ReadFile, NoteInput) unless its name
// is among mayReplace (qrc fmt -w, a --checkpoint over its --start file).
func Create(path string, perm os.FileMode, mayReplace ...string) (*File, error) {
	target, proc, err := resolve(path)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := checkNotInput(path, target, mayReplace); err != nil {
		return nil, err
	}
	info, err := os.Stat(target)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if exists && (!info.Mode().IsRegular() || proc) {
		if info.IsDir() {
			return nil, fmt.Errorf("%s is not a regular file (%s)", path, kind(info.Mode()))
		}
		if info.Mode()&os.ModeSocket != 0 {
			return nil, fmt.Errorf("%s is not a regular file (%s)", path, kind(info.Mode()))
		}
		// a device or a pipe is written as it is; one of the process's
		// own descriptors (/dev/stdout is /proc/self/fd/1) is written
		// through a duplicate, which shares its offset, so that a
		// regular file behind it gets the bytes after those the process
		// wrote there itself instead of over them
		var f *os.File
		if fd, ok := ownFD(target); ok {
			if nfd, derr := syscall.Dup(fd); derr == nil {
				f = os.NewFile(uintptr(nfd), target)
			}
		}
		if f == nil {
			f, err = openStream(target, info.Mode())
		}
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
		return &File{f: f, path: path, target: target, mode: stream}, nil
	}
	mode := atomic
	if exists {
		perm = info.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)
		if links(info) > 1 {
			mode = inPlace
		}
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil && exists && errors.Is(err, fs.ErrPermission) {
		// the directory takes no new file, but the file may be writable:
		// write it in place from a temporary file elsewhere
		if t, werr := os.OpenFile(target, os.O_WRONLY, 0); werr == nil {
			t.Close()
			mode = inPlace
			f, err = os.CreateTemp("", "qrc-"+base+".tmp*")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	w := &File{f: f, path: path, target: target, perm: perm, mode: mode}
	if exists && mode == atomic && !keepOwner(f, info) {
		w.mode = inPlace // the new file could not take the old one's owner
	}
	return w, nil
}

// PipeWait is how long Create waits for a process to open a named pipe
// for reading before it gives up: opening a pipe for writing blocks until
// a reader comes, and qrc must not hang on a pipe nobody reads.
var PipeWait = 5 * time.Second

// errNoReader is Create's error for a named pipe that no process opened
// for reading within PipeWait.
var errNoReader = errors.New("no process has the named pipe open for reading")

// openStream opens a device or a named pipe for writing without blocking
// (O_NONBLOCK: a pipe without a reader is ENXIO at once, and a device that
// would block in open does not), waiting up to PipeWait for a pipe's
// reader. The file stays non-blocking: Go's poller then waits for a slow
// reader without holding a thread, and a write is as blocking as ever.
func openStream(target string, mode os.FileMode) (*os.File, error) {
	deadline := time.Now().Add(PipeWait)
	for {
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
		if err == nil || mode&os.ModeNamedPipe == 0 || !errors.Is(err, syscall.ENXIO) {
			return f, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w (waited %v)", errNoReader, PipeWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Write writes to the temporary file, or to the target itself for a
// device or a pipe.
func (w *File) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if n > 0 {
		w.written = true
	}
	if err != nil {
		return n, fmt.Errorf("writing %s: %w", w.path, unwrapPath(err))
	}
	return n, nil
}

// Commit finishes the file: the temporary file is synced and renamed over
// the target (or copied into it); a device or pipe is closed. Any error,
// such as a full disk, is returned, and no temporary file stays behind
// unless the message names it.
func (w *File) Commit() error {
	if w.closed {
		return errors.New("fileio: commit after close")
	}
	w.closed = true
	if w.mode == stream {
		if err := w.f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", w.path, unwrapPath(err))
		}
		return nil
	}
	err := w.f.Chmod(w.perm)
	if err == nil {
		err = w.f.Sync()
	}
	if err != nil || w.mode == atomic {
		if cerr := w.f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil && w.mode == atomic {
		err = os.Rename(w.f.Name(), w.target)
	}
	if err != nil {
		os.Remove(w.f.Name())
		return fmt.Errorf("writing %s: %w", w.path, unwrapPath(err))
	}
	if w.mode == inPlace {
		return w.copyIn()
	}
	return nil
}

// copyIn copies the synced temporary file into the target, in place. The
// space of the new content is reserved in the target first (reserve), so
// that a disk with room for the temporary file but not for a second copy
// fails before a byte of the target changes: the target is then left as
// it was (it used to be truncated first and cut half way). The content is
// written over the old from its start, and the target cut to its length
// last.
func (w *File) copyIn() error {
	defer w.f.Close()
	info, err := w.f.Stat()
	if err != nil {
		os.Remove(w.f.Name())
		return fmt.Errorf("writing %s: %w", w.path, unwrapPath(err))
	}
	size := info.Size()
	t, err := os.OpenFile(w.target, os.O_WRONLY, 0)
	if err != nil {
		os.Remove(w.f.Name())
		return fmt.Errorf("writing %s: %w", w.path, unwrapPath(err))
	}
	if err := reserve(t, size); err != nil {
		t.Close()
		os.Remove(w.f.Name())
		return fmt.Errorf("writing %s in place: %w; the file was left as it was", w.path, err)
	}
	_, err = w.f.Seek(0, io.SeekStart)
	if err == nil {
		_, err = io.Copy(t, w.f)
	}
	if err == nil {
		err = t.Truncate(size)
	}
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s in place: %w; its whole new content is in %s", w.path, unwrapPath(err), w.f.Name())
	}
	os.Remove(w.f.Name())
	return nil
}

// Abort removes the temporary file, leaving the target as it was (a
// device or pipe keeps what was written to it). It does nothing after
// Commit.
func (w *File) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	w.f.Close()
	if w.mode != stream {
		os.Remove(w.f.Name())
	}
}

// WriteFile writes data to path as Create does: a reader (or a kill at any
// moment) sees either the old file or the whole new one.
func WriteFile(path string, data []byte, perm os.FileMode, mayReplace ...string) error {
	w, err := Create(path, perm, mayReplace...)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return err
	}
	return w.Commit()
}

// CheckWritable reports whether path can be written atomically: its
// directory exists and takes a new file, and path is not a directory or
// another non-regular file. It leaves nothing behind.
func CheckWritable(path string, mayReplace ...string) error {
	target, proc, err := resolve(path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if info, err := os.Stat(target); err == nil && (proc || !info.Mode().IsRegular()) && !info.IsDir() {
		// a device or pipe: opening a pipe would block until a reader
		// comes; ask the kernel instead
		if err := checkNotInput(path, target, mayReplace); err != nil {
			return err
		}
		if err := syscall.Access(target, 2); err != nil {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
		return nil
	}
	w, err := Create(path, 0o644, mayReplace...)
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

// resolve follows the symbolic links of path's last element to the file
// they name (which need not exist). proc says the chain reached a link in
// /proc, such as /dev/stdout's /proc/self/fd/1: such a link names an open
// file, not a place to create one, so the file is written through it.
func resolve(path string) (target string, proc bool, err error) {
	p := path
	for range 40 {
		if inProc(p) {
			return p, true, nil
		}
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, false, nil
		}
		if err != nil {
			return "", false, err
		}
		if info.Mode()&os.ModeSymlink == 0 {
			return p, false, nil
		}
		l, err := os.Readlink(p)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(p), l)
		}
		p = l
	}
	return "", false, errors.New("too many levels of symbolic links")
}

// inProc reports whether p's directory is in /proc (through links, as
// /dev/fd is).
func inProc(p string) bool {
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return false
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir == "/proc" || strings.HasPrefix(dir, "/proc/")
}

// ownFD returns N when p is /proc/self/fd/N (or /proc/PID/fd/N of this
// process).
func ownFD(p string) (int, bool) {
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil || dir != fmt.Sprintf("/proc/%d/fd", os.Getpid()) {
		return 0, false
	}
	fd, err := strconv.Atoi(filepath.Base(p))
	return fd, err == nil && fd >= 0
}

// links is the number of hard links of a file (1 when unknown).
func links(info os.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// keepOwner gives the temporary file f the owner and group of the file
// it replaces, and reports whether it has them.
func keepOwner(f *os.File, old os.FileInfo) bool {
	ost, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	info, err := f.Stat()
	if err != nil {
		return false
	}
	nst, ok := info.Sys().(*syscall.Stat_t)
	if !ok || nst.Uid == ost.Uid && nst.Gid == ost.Gid {
		return true
	}
	return f.Chown(int(ost.Uid), int(ost.Gid)) == nil
}

// The inputs the process has read, with their symbolic links followed:
// Create refuses to write over them. They are compared with an output by
// what their names are now (SamePath), so a file deleted since it was read
// does not hold its inode against a new one.
var inputs struct {
	sync.Mutex
	paths []string
}

// NoteInput records that the process reads path (a model, a data set, a
// start point, a trace to plot), so that no output replaces it. ReadFile
// notes its files itself.
func NoteInput(path string) {
	target, _, err := resolve(path)
	if err != nil {
		target = path
	}
	inputs.Lock()
	defer inputs.Unlock()
	if !slices.Contains(inputs.paths, target) {
		inputs.paths = append(inputs.paths, target)
	}
}

// ForgetInputs clears the inputs NoteInput recorded (a new command in the
// same process).
func ForgetInputs() {
	inputs.Lock()
	inputs.paths = nil
	inputs.Unlock()
}

// checkNotInput refuses target (path as given) when it is an input the
// process read and not one of mayReplace.
func checkNotInput(path, target string, mayReplace []string) error {
	for _, m := range mayReplace {
		if m != "" && SamePath(m, target) {
			return nil
		}
	}
	inputs.Lock()
	defer inputs.Unlock()
	for _, in := range inputs.paths {
		if SamePath(in, target) {
			return fmt.Errorf("refusing to write %s: it is a file this command reads (%s); choose another file", path, in)
		}
	}
	return nil
}
