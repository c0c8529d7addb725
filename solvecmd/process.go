package solvecmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// The process-wide behaviour that qrc and qrc-beam share, so that a solve
// run by either ends the same way on a signal, a closed pipe or a full
// standard output (docs/reliability.md, "Signals" and "Output files").

// StopSignals are the signals that stop a solve gracefully: the result so
// far is printed and --out written. Ctrl-C, kill (SIGTERM) and a closed
// terminal (SIGHUP) are treated alike.
var StopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// sameSignal is how soon a repeat of the first stop signal counts as the
// same one: GNU timeout (and kill -- -PGID) sends its signal both to the
// process and to its process group, so it arrives twice within
// microseconds; a user who insists presses Ctrl-C again later.
const sameSignal = time.Second

// NotifyStop returns a context cancelled at the first stop signal; a
// second signal exits at once with status ExitInterrupted (the user
// insists), saying so on standard error after prog's name. release stops
// listening.
func NotifyStop(prog string) (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, StopSignals...)
	done := make(chan struct{})
	go func() {
		var first os.Signal
		select {
		case first = <-sig:
			cancel()
		case <-done:
			return
		}
		at := time.Now()
		for {
			select {
			case s := <-sig:
				if s == first && time.Since(at) < sameSignal {
					continue // the same signal sent to the process and its group
				}
				fmt.Fprintf(os.Stderr, "\n%s: second %v: exiting at once\n", prog, s)
				os.Exit(ExitInterrupted)
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel()
	}
}

// Stdio returns standard output and error as CheckedWriters, with SIGPIPE
// ignored: a closed pipe on either is then a write error to report (and
// the result is still written to --out), not a silent death by SIGPIPE in
// the middle of writing files. Call it once, in main.
func Stdio() (stdout, stderr *CheckedWriter) {
	signal.Ignore(syscall.SIGPIPE)
	return &CheckedWriter{f: os.Stdout}, &CheckedWriter{f: os.Stderr}
}

// Finish returns the exit code of a command that returned code: a failed
// write to standard output or standard error (a full disk, a closed pipe)
// is reported where it still can be, after prog's name, and makes the
// exit status ExitUsage (an output that could not be written), whatever
// the command's own code: never 0, and never a solve's status (4 for
// numerical_error), which would say the result was given.
func Finish(prog string, code int, stdout, stderr *CheckedWriter) int {
	if err := stdout.Failed(); err != nil {
		fmt.Fprintf(stderr, "%s: writing standard output: %v\n", prog, err)
		code = ExitUsage
	}
	if stderr.Failed() != nil {
		code = ExitUsage
	}
	return code
}

// CheckedWriter is standard output or error, keeping the first write
// error. It has the file's Stat, so a terminal is still seen as one.
type CheckedWriter struct {
	f   *os.File
	mu  sync.Mutex
	err error
}

// Write writes p to the file and keeps the first error.
func (c *CheckedWriter) Write(p []byte) (int, error) {
	n, err := c.f.Write(p)
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	return n, err
}

// Stat is the file's.
func (c *CheckedWriter) Stat() (os.FileInfo, error) { return c.f.Stat() }

// Failed returns the first write error.
func (c *CheckedWriter) Failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// ParseInterspersed parses flags that may come before, between or after
// the positional arguments (qrc check model.qrc --json), and returns the
// positional arguments. "--" ends the flags, so that a model file named
// -m.qrc is given as -- -m.qrc. A bad flag or value is one line on the
// flag set's output, after prog ("qrc solve") and naming the help command
// (help, "qrc help solve"); -h, -help or --help prints the full usage
// (fs.Usage) and returns flag.ErrHelp. fs must be ContinueOnError.
func ParseInterspersed(fs *flag.FlagSet, args []string, prog, help string) ([]string, error) {
	out := fs.Output()
	usage := fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	defer func() { fs.SetOutput(out); fs.Usage = usage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usage()
			} else {
				fmt.Fprintf(out, "%s: %v; %q lists the flags\n", prog, err, help)
			}
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, checkNames(out, prog, pos)
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			pos = append(pos, rest...)
			return pos, checkNames(out, prog, pos)
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// errEmptyName is ParseInterspersed's error for an empty argument.
var errEmptyName = errors.New("an empty file name")

// checkNames refuses an empty positional argument (qrc check ”), which
// names no file: without it the message was about a file "-".
func checkNames(out io.Writer, prog string, pos []string) error {
	for i, p := range pos {
		if p == "" {
			fmt.Fprintf(out, "%s: argument %d is empty; it must name a file\n", prog, i+1)
			return errEmptyName
		}
	}
	return nil
}
