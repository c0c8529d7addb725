package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopSignals are the signals that stop a solve gracefully: the result so
// far is printed and --out written. Ctrl-C, kill (SIGTERM) and a closed
// terminal (SIGHUP) are treated alike.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// sameSignal is how soon a repeat of the first stop signal counts as the
// same one: GNU timeout (and kill -- -PGID) sends its signal both to the
// process and to its process group, so it arrives twice within
// microseconds; a user who insists presses Ctrl-C again later.
const sameSignal = time.Second

// notifyStop returns a context cancelled at the first stop signal; a
// second signal exits at once with status 130 (the user insists). release
// stops listening.
func notifyStop() (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, stopSignals...)
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
				fmt.Fprintf(os.Stderr, "\nqrc: second %v: exiting at once\n", s)
				os.Exit(exitInterrupted)
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
