package data

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/qrc-lang/qrc/fileio"
)

// openRegular opens path for reading after making sure it is a regular file:
// a named pipe would block in open or read forever, a device such as
// /dev/zero never ends, and a directory is not data. The file is opened
// non-blocking so that a file replaced by a pipe between the check and the
// open cannot hang, then checked again.
func openRegular(path string) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, ioError(path, "open", err)
	}
	if msg := notRegular(st.Mode()); msg != "" {
		return nil, 0, &Error{Path: path, Msg: msg}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, ioError(path, "open", err)
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, ioError(path, "read", err)
	}
	if msg := notRegular(st.Mode()); msg != "" {
		f.Close()
		return nil, 0, &Error{Path: path, Msg: msg}
	}
	fileio.NoteInput(path)
	return f, st.Size(), nil
}

// notRegular describes why a file of mode m cannot be read as data, or
// returns "" for a regular file.
func notRegular(m fs.FileMode) string {
	var kind string
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	default:
		kind = "a special file"
	}
	return fmt.Sprintf("cannot read %s: a data set must be a regular file", kind)
}
