//go:build !windows

package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// terminal is a qrc repl running on a pseudo-terminal.
type terminal struct {
	t    *testing.T
	f    *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  strings.Builder
	seen int // how much of out expect has consumed
	done chan struct{}
}

func startTerminal(t *testing.T, dir string, args ...string) *terminal {
	t.Helper()
	if _, err := os.Stat("/dev/ptmx"); err != nil {
		t.Skip("no pseudo-terminals here (/dev/ptmx):", err)
	}
	cmd := exec.Command(qrcBin, args...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "HOME="+dir, "TERM=xterm")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Skip("cannot start a pseudo-terminal:", err)
	}
	term := &terminal{t: t, f: f, cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		f.Close()
	})
	return term
}

// expect waits until the output after the last expectation contains want,
// and consumes the output up to its end.
func (term *terminal) expect(want string, within time.Duration) {
	term.t.Helper()
	deadline := time.Now().Add(within)
	for {
		term.mu.Lock()
		rest := term.out.String()[term.seen:]
		i := strings.Index(rest, want)
		if i >= 0 {
			term.seen += i + len(want)
		}
		term.mu.Unlock()
		if i >= 0 {
			return
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("no %q within %s; the terminal shows:\n%s", want, within, rest)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// send types keys.
func (term *terminal) send(keys string) {
	term.t.Helper()
	_, err := term.f.Write([]byte(keys))
	require.NoError(term.t, err)
}

const (
	keyLeft  = "\x1b[D"
	keyUp    = "\x1b[A"
	keyBack  = "\x7f"
	keyHome  = "\x01" // Ctrl-A
	keyCtrlC = "\x03"
	keyCtrlD = "\x04"
)

// TestReplTerminal drives qrc repl through a real pseudo-terminal: line
// editing, history, tab completion, Ctrl-C at the prompt and during a
// solve, Ctrl-D, and the history file.
func TestReplTerminal(t *testing.T) {
	dir := t.TempDir()
	term := startTerminal(t, dir, "repl", "examples/npc.qrc")
	term.expect("qrc> ", 30*time.Second)

	// editing: "param q = 12", left, backspace (deletes the 1), type 3
	term.send("param q = 12" + keyLeft + keyBack + "3\r")
	term.expect("qrc> ", 30*time.Second)
	term.send(":eval q\r")
	term.expect("scalar: 32", 30*time.Second)
	// Ctrl-A goes to the start of the line
	term.send("eval q + 1" + keyHome + ":\r")
	term.expect("scalar: 33", 30*time.Second)
	// the up arrow recalls the last line
	term.send(keyUp + "\r")
	term.expect("scalar: 33", 30*time.Second)

	// tab completes commands and names
	term.send(":sh\t")
	term.expect(":show", 30*time.Second)
	term.send(" ca\t")
	term.expect("cap", 30*time.Second)
	term.send("\r")
	term.expect("cap[10]", 30*time.Second)

	// a continuation line shows its own prompt
	term.send("param w = [1,\r")
	term.expect("...> ", 30*time.Second)
	term.send("2]\r:eval w\r")
	term.expect("vector of length 2: [1, 2]", 30*time.Second)

	// Ctrl-C at the prompt clears the line (the half-typed statement is
	// never run), also in the middle of a continued statement
	term.send("this is not a statement" + keyCtrlC)
	term.expect("qrc> ", 30*time.Second)
	term.send("param v = [1," + "\r")
	term.expect("...> ", 30*time.Second)
	term.send(keyCtrlC)
	term.send(":eval 40 + 2\r")
	term.expect("scalar: 42", 30*time.Second)

	// Ctrl-C during a solve stops it and returns to the prompt with the
	// best point so far as the current point
	term.send(":solve --outer 100000\r")
	term.expect("Ctrl-C stops the solve", 30*time.Second)
	time.Sleep(300 * time.Millisecond) // under way
	term.send(keyCtrlC)
	term.expect("status         interrupted", 30*time.Second)
	term.expect("qrc> ", 30*time.Second)
	term.send(":show objective\r")
	term.expect("at the last solve (interrupted)", 30*time.Second)
	term.send("junk" + keyCtrlC + ":eval 6 * 7\r") // Ctrl-C at the prompt still only clears the line
	term.expect("scalar: 42", 30*time.Second)

	// Ctrl-D ends the session; the history is kept
	term.send(keyCtrlD)
	select {
	case <-term.done:
	case <-time.After(10 * time.Second):
		t.Fatal("qrc repl did not exit on Ctrl-D")
	}
	require.NoError(t, term.cmd.Wait())
	history, err := os.ReadFile(filepath.Join(dir, "qrc", "history"))
	require.NoError(t, err)
	assert.Contains(t, string(history), ":eval q + 1\n")
	assert.Contains(t, string(history), ":solve --outer 100000\n")
	assert.NotContains(t, string(history), "this is not a statement")
}
