package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"github.com/peterh/liner"

	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/repl"
)

var replCommand = &command{
	name:    "repl",
	summary: "an interactive session: build, solve and inspect a model",
	usage: `Usage: qrc repl [flags] [MODEL.qrc]

Repl starts an interactive session, with the declarations of MODEL.qrc if
given. Type declarations as in a .qrc file (data, param, var, func,
minimize, constraints, subject to blocks); declaring a name again replaces
it. let NAME = EXPR changes a parameter, drop NAME removes a constraint.
Every change is checked with the whole model and refused if it adds an
error. Commands:

  :solve [FLAGS]     solve, warm-started from the current point (--cold:
                     from the start); the flags are those of qrc solve
  :eval EXPR         an expression's value at the current point, with its shape
  :grad EXPR         a subgradient of a scalar expression at the current point
  :show [NAME]       the model, or a variable's value, a constraint's value,
                     slack and multiplier, a parameter ...
  :check             check the model, print every diagnostic
  :load FILE         add a model file's declarations
  :save FILE         write the model as a formatted .qrc file
  :set OPTION=VALUE  solver settings for :solve (the flags of qrc solve)
  :reset [point]     empty the model (or move the point back to the start)
  :help [COMMAND]    help
  :quit              end the session (or Ctrl-D)

On a terminal, lines are edited with the usual keys, Tab completes names,
keywords, commands and files, and the history is kept in the user's
configuration directory (qrc/history). A statement continues on a line
that starts with "...>" while a bracket is open or the line ends with an
operator; a subject to block ends at a blank line. Ctrl-C clears the line,
or stops a running :solve and keeps the best point so far.

When standard input or output is not a terminal (qrc repl model.qrc < session.txt)
no prompts, progress or timings are printed, so the output of a script is
the same on every run. Diagnostics go to standard error and point into the
input as <input>:LINE:COL.

Exit status: 0; for a script, 1 when a statement or command failed; 2 for a
bad command line.

Flags:
  --echo             print each input line after the prompt, as a transcript
` + modelFlagsUsage + `See docs/repl.md.
`,
}

func init() { replCommand.run = runRepl }

func runRepl(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("repl", replCommand.usage, stderr)
	echo := fs.Bool("echo", false, "")
	var mf modelFlags
	mf.register(fs)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(files) > 1 {
		fmt.Fprintf(stderr, "qrc repl: want at most one model file, got %d\n\n", len(files))
		fs.Usage()
		return exitUsage
	}
	if len(files) == 0 && (len(mf.set) > 0 || len(mf.data) > 0) {
		fmt.Fprintln(stderr, "qrc repl: --set and --data need a model file")
		return exitUsage
	}
	interactive := isTerminal(stdin) && isTerminal(stdout)
	intr := &interrupts{always: interactive}
	intr.start()
	defer intr.stop()
	sess := repl.New(repl.Options{
		Out: stdout, Err: stderr, Interactive: interactive, Echo: *echo,
		Watch: intr.watch,
	})
	if len(files) == 1 {
		if !sess.Load(files[0]) {
			return exitInvalid
		}
		for _, d := range mf.data {
			if !sess.SetDataPath(d.Name, d.Value) {
				return exitInvalid
			}
		}
		for _, a := range mf.set {
			if !sess.Exec("let " + a.Name + " = " + a.Value) {
				return exitInvalid
			}
		}
	}
	if !interactive {
		if err := sess.Run(&plainReader{r: bufio.NewReader(stdin)}); err != nil {
			fmt.Fprintf(stderr, "qrc repl: %v\n", err)
			return exitUsage
		}
		if sess.Failed() {
			return exitInvalid
		}
		return exitOK
	}

	line := liner.NewLiner()
	defer line.Close()
	line.SetCtrlCAborts(true)
	line.SetTabCompletionStyle(liner.TabPrints)
	line.SetWordCompleter(sess.Complete)
	history := historyFile()
	if history != "" {
		if b, err := fileio.ReadFile(history, 16<<20); err == nil {
			line.ReadHistory(bytes.NewReader(b))
		}
	}
	fmt.Fprintf(stdout, "qrc %s: declarations and :commands; :help lists them, Ctrl-D quits\n", version)
	err = sess.Run(&linerReader{line})
	if history != "" {
		if err := os.MkdirAll(filepath.Dir(history), 0o755); err == nil {
			if f, err := fileio.Create(history, 0o600, history); err == nil {
				if _, err := line.WriteHistory(f); err == nil {
					f.Commit()
				} else {
					f.Abort()
				}
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "qrc repl: %v\n", err)
	}
	return exitOK
}

// historyFile is where the REPL keeps its history: qrc/history in the
// user's configuration directory ("" when there is none).
func historyFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "qrc", "history")
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f any) bool {
	file, ok := f.(interface{ Stat() (os.FileInfo, error) }) // an *os.File or solvecmd.CheckedWriter
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// plainReader reads lines from a script: no prompts, no editing.
type plainReader struct{ r *bufio.Reader }

func (p *plainReader) ReadLine(string) (string, error) {
	line, err := p.r.ReadString('\n')
	if err == io.EOF && line != "" {
		err = nil
	}
	return strings.TrimRight(line, "\r\n"), err
}

// linerReader reads lines from a terminal with liner: editing, history and
// completion.
type linerReader struct{ st *liner.State }

func (l *linerReader) ReadLine(prompt string) (string, error) {
	line, err := l.st.Prompt(prompt)
	switch {
	case errors.Is(err, liner.ErrPromptAborted):
		return "", repl.ErrInterrupted
	case err == io.EOF:
		fmt.Println()
		return "", io.EOF
	case err != nil:
		return "", err
	}
	if strings.TrimSpace(line) != "" {
		l.st.AppendHistory(line)
	}
	return line, nil
}

// interrupts turns Ctrl-C (SIGINT) into the cancellation of a running
// solve's context. On a terminal it catches SIGINT for the whole session (at the
// prompt liner reads Ctrl-C itself, and a Ctrl-C between prompts must not
// end the session); for a script only during solves.
type interrupts struct {
	always bool
	sig    chan os.Signal
	mu     sync.Mutex
	cur    context.CancelFunc // cancels the running solve's context, or nil
	done   chan struct{}
}

func (w *interrupts) start() {
	w.sig = make(chan os.Signal, 1)
	w.done = make(chan struct{})
	if w.always {
		signal.Notify(w.sig, os.Interrupt)
	}
	go func() {
		for {
			select {
			case <-w.sig:
				w.mu.Lock()
				if w.cur != nil {
					w.cur()
					w.cur = nil
				}
				w.mu.Unlock()
			case <-w.done:
				return
			}
		}
	}()
}

func (w *interrupts) stop() {
	signal.Stop(w.sig)
	close(w.done)
}

// watch is repl.Options.Watch.
func (w *interrupts) watch(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	w.mu.Lock()
	w.cur = cancel
	w.mu.Unlock()
	if !w.always {
		signal.Notify(w.sig, os.Interrupt)
	}
	return ctx, func() {
		if !w.always {
			signal.Stop(w.sig)
		}
		w.mu.Lock()
		w.cur = nil
		w.mu.Unlock()
		cancel()
	}
}
