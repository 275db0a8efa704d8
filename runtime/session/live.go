package session

import (
	"bufio"
	"io"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
)

// Results as they happen. A statement's output goes through buffers (one
// write per row would cost a system call each); outFlusher empties them
// when the input is idle (the driver is about to wait) and, while rows
// keep coming, when what was written has waited flushAfter, so that an
// emitted row shows within a tenth of a second on a slow input and a fast
// one keeps its throughput.

// flushAfter is how long written output may wait in a buffer.
const flushAfter = 100 * time.Millisecond

// outFlusher flushes a statement's output: the printer's buffer and a
// sink's own (a file sink's).
type outFlusher struct {
	out     *bufio.Writer // nil: no printer buffer
	sink    interface{ Flush() error }
	pending time.Time // when output was first written since the last flush; zero: none
	// refresher redraws the table mode's table so far on a terminal, at
	// most every refreshEvery.
	refresher   format.Refresher
	refreshedAt time.Time
	// wake asks the driver to pull again at a time: a redraw held back
	// by refreshEvery is made then, also while the input is quiet.
	wake func(time.Time)
}

// refreshEvery bounds how often the table mode redraws its table.
const refreshEvery = 250 * time.Millisecond

func newOutFlusher(out *bufio.Writer, sink Sink) *outFlusher {
	f := &outFlusher{out: out}
	if fl, ok := sink.(interface{ Flush() error }); ok {
		f.sink = fl
	}
	if r, ok := sink.(format.Refresher); ok {
		f.refresher = r
	}
	return f
}

// leave says that something else is written to the terminal after the
// output so far: a drawing of the table mode stays, the next goes below.
func (f *outFlusher) leave() {
	if f.refresher != nil {
		f.refresher.Leave()
	}
}

// wrote notes that output was written.
func (f *outFlusher) wrote() {
	if f.pending.IsZero() {
		f.pending = time.Now()
	}
}

// tick flushes what has waited flushAfter.
func (f *outFlusher) tick() error {
	if f.pending.IsZero() || time.Since(f.pending) < flushAfter {
		return nil
	}
	return f.flush()
}

// flush writes out everything buffered.
func (f *outFlusher) flush() error {
	f.pending = time.Time{}
	if f.refresher != nil {
		if time.Since(f.refreshedAt) >= refreshEvery {
			f.refreshedAt = time.Now()
			if err := f.refresher.Refresh(); err != nil {
				return err
			}
		} else if f.wake != nil {
			f.wake(f.refreshedAt.Add(refreshEvery))
		}
	}
	if f.sink != nil {
		if err := f.sink.Flush(); err != nil {
			return err
		}
	}
	if f.out != nil {
		return f.out.Flush()
	}
	return nil
}

// setRunning records the execution of the statement that runs (nil: none),
// for Stop, which another goroutine calls.
func (s *Session) setRunning(ex *exec.Execution, out *outFlusher) {
	s.runMu.Lock()
	s.runEx = ex
	s.runMu.Unlock()
	s.runOut = out
}

// Stop stops the statement that runs, if it reads a live input (standard
// input, a followed file, an unbounded table) and was not stopped yet: it
// ends with a final checkpoint, without its end of input, as Flink's
// stop-with-savepoint, so that the next run with the same state goes on.
// It reports whether it stopped one; the caller cancels the statement
// otherwise (a second Ctrl-C, a statement over a bounded input). Stop is
// safe to call from any goroutine.
func (s *Session) Stop() bool {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	ex := s.runEx
	if ex == nil || !ex.Live().HasSources() || ex.Live().StopRequested() {
		return false
	}
	ex.Live().Stop()
	return true
}

// ConsoleWriter writes what functions print (console.log) to W, after the
// output the running statement still holds in its buffers, so that a line
// printed by a call comes after the rows emitted before it, in a terminal
// and in a file that takes both. Session is set once the session exists;
// the writer is used on the statement's goroutine.
type ConsoleWriter struct {
	W       io.Writer
	Session *Session
}

func (c *ConsoleWriter) Write(p []byte) (int, error) {
	if s := c.Session; s != nil && s.runOut != nil {
		if err := s.runOut.flush(); err != nil {
			return 0, err
		}
		s.runOut.leave()
	}
	return c.W.Write(p)
}
