package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/ptfsh/ptfsh/runtime/session"
)

// interruptible returns a context for running statements of sess: the
// first Ctrl-C (SIGINT) or SIGTERM stops a statement over a live input
// with a final checkpoint (session.Stop), so that the next run with the
// same state goes on; a statement over bounded inputs, or a second signal,
// is cancelled. release stops listening.
func interruptible(sess *session.Session) (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sigs:
				if !sess.Stop() {
					cancel()
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
