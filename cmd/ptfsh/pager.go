package main

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"

	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// SET 'ptfsh.pager' = 'on' (or a command) sends the results of each
// statement typed at the prompt through a pager, for wide or long results:
// $PAGER, else less -SRFX (-S: long lines scroll sideways instead of
// wrapping, -F: a result that fits one screen is printed and less quits,
// -R: colours pass, -X: the screen is not cleared). The statement's
// notes, counts and timings go through the pager too, after its rows, as
// they print without one; an error prints after the pager ends.

// defaultPager is the pager when $PAGER is not set.
const defaultPager = "less -SRFX"

// pagerCommand returns the pager SET 'ptfsh.pager' asks for, or "" for
// none.
func pagerCommand(sess *session.Session) string {
	v, _ := sess.Setting("ptfsh.pager")
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "off", "false":
		return ""
	case "on", "true":
		if p := strings.TrimSpace(os.Getenv("PAGER")); p != "" {
			return p
		}
		return defaultPager
	}
	return v
}

// paged reports whether a statement prints a result worth paging.
func paged(st *sqlmini.Statement) bool {
	switch {
	case st == nil:
		return false
	case st.Query != nil, st.Explain != nil, st.Show != nil, st.Describe != nil:
		return true
	}
	return false
}

// startPager runs command with its stdout and stderr on out, and sends
// the session's results to its input until the returned function, which
// waits for the pager to end, is called. A pager that ends first (q
// before the end of a long or endless result) calls quit, which should
// stop the statement; stop then reports it, so that the statement's
// error (a cancellation, a closed pipe) is not shown. When the pager
// cannot start, the results go where they went and the error is returned.
func startPager(sess *session.Session, command string, out io.Writer, quit func()) (stop func() (quitFirst bool), err error) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Stdout, cmd.Stderr = out, out
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	restore := sess.SetOutput(in, in) // counts and notes after the rows, as without a pager
	ended := make(chan struct{})
	var quitFirst atomic.Bool
	stopping := make(chan struct{})
	go func() {
		cmd.Wait()
		select {
		case <-stopping:
		default:
			quitFirst.Store(true)
			quit()
		}
		close(ended)
	}()
	return func() bool {
		close(stopping)
		restore()
		in.Close()
		<-ended
		return quitFirst.Load()
	}, nil
}
