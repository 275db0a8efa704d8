package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/playground"
	"github.com/ptfsh/ptfsh/runtime/session"
)

// runServe is `ptfsh serve [--addr 127.0.0.1:PORT] [--examples DIR]`: the
// playground (package playground) on a loopback address, with a tab's
// shell built as the interactive shell's (its limits, a memory store)
// and exercises run as ptfsh test runs them. It prints the page's
// address with its token and serves until Ctrl-C or SIGTERM.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ptfsh serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8765", "listen on `ADDR`, a loopback address (127.0.0.1:0 picks a free port)")
	examples := fs.String("examples", "", "the folder of the lessons and labs (`DIR`, default: examples beside the working directory, if there)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ptfsh serve [--addr 127.0.0.1:PORT] [--examples DIR]\n\nflags:\n")
		fs.PrintDefaults()
	}
	if _, err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	ex := *examples
	if ex == "" {
		if fi, err := os.Stat("examples"); err == nil && fi.IsDir() {
			ex = "examples"
		}
	}
	if ex != "" {
		abs, err := filepath.Abs(ex)
		if err != nil {
			fmt.Fprintf(stderr, "ptfsh serve: %v\n", err)
			return 2
		}
		ex = abs
	}
	srv, err := playground.New(playgroundOptions(ex))
	if err != nil {
		fmt.Fprintf(stderr, "ptfsh serve: %v\n", err)
		return 1
	}
	defer srv.Close()
	ln, err := playground.Listen(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "ptfsh serve: %v\n", err)
		return 2
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(shut)
	}()
	fmt.Fprintf(stdout, "ptfsh serve: open http://%s/?token=%s (the token keeps the page yours; Ctrl-C stops)\n", ln.Addr(), srv.Token())
	if ex == "" {
		fmt.Fprintln(stderr, "note: no examples folder: the menu has no lessons (--examples DIR names one)")
	}
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "ptfsh serve: %v\n", err)
		return 1
	}
	return 0
}

// playgroundOptions are the playground's options: tabs get shells as the
// interactive shell's, exercises run as ptfsh test runs them.
func playgroundOptions(examples string) playground.Options {
	return playground.Options{
		Examples: examples,
		NewShell: func(dir string, out, errw io.Writer) (playground.Shell, error) {
			sh, err := assembly.New(assembly.Options{Out: out, Err: errw, Memory: true, BaseDir: dir, FunctionDir: dir}.ShellLimits())
			if err != nil {
				return nil, err
			}
			return shellOf{sh}, nil
		},
		Test: func(file, home string, hints int, reveal bool) (bool, string) {
			return runTestFileWith(file, home, testOptions{hints: hints, reveal: reveal})
		},
	}
}

// shellOf is an assembly shell as the playground sees it.
type shellOf struct{ sh *assembly.Shell }

func (s shellOf) Session() *session.Session { return s.sh.Session }
func (s shellOf) Close() error              { s.sh.Close(); return nil }
