package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals are the signals that stop a solve gracefully: the result so
// far is printed and --out written. Ctrl-C, kill (SIGTERM) and a closed
// terminal (SIGHUP) are treated alike.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// notifyStop returns a context cancelled at the first stop signal; a
// second signal exits at once with status 130 (the user insists). release
// stops listening.
func notifyStop() (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, stopSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			cancel()
		case <-done:
			return
		}
		select {
		case s := <-sig:
			fmt.Fprintf(os.Stderr, "\nqrc: second %v: exiting at once\n", s)
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel()
	}
}
