package exec

import (
	"sync"
	"sync/atomic"
	"time"
)

// Live inputs. A source whose rows come as wall-clock time passes — a
// pipe on standard input, a followed file, a paced datagen table, a
// topic — never blocks in Next: when it has nothing to give it returns an
// EvIdle event, and the driver waits on the execution's Live (Wait) until
// a source says it has rows (Wake), a source or operator asked to be
// pulled again at a time (WakeAt), or the statement is stopped. Operators
// pass EvIdle on once they hold no output a person is waiting for (a
// batch of parallel calls is handed out first); an operator with several
// inputs reads another input while one is idle and is idle only when all
// are.
//
// The first Ctrl-C or SIGTERM of a statement over a live input stops it
// (Stop): sources end as if their input ended, but without the maximum
// watermark, and the statement takes its final checkpoint, as Flink's
// stop-with-savepoint does; the next run with the same state goes on from
// there. A second one cancels it.

// Live is what the sources and the driver of one execution share about
// waiting. Wake and Stop are safe for use from any goroutine; WakeAt is
// for the statement's goroutine.
type Live struct {
	wake      chan struct{}
	requested atomic.Bool // Stop was called
	stopped   atomic.Bool // the driver began the stop (BeginStop)

	mu       sync.Mutex
	deadline time.Time // the earliest time asked for by WakeAt; zero: none
	sources  int       // live sources opened
}

func newLive() *Live { return &Live{wake: make(chan struct{}, 1)} }

// Live returns the execution's Live.
func (ex *Execution) Live() *Live {
	if ex.live == nil {
		ex.live = newLive()
	}
	return ex.live
}

// AddSource records that a live source was opened: the statement's input
// does not end by itself (stdin, a followed file, an unbounded table).
func (l *Live) AddSource() {
	l.mu.Lock()
	l.sources++
	l.mu.Unlock()
}

// HasSources reports whether a live source was opened.
func (l *Live) HasSources() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sources > 0
}

// Wake says that a source has rows to give: the driver pulls again. It
// never blocks.
func (l *Live) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// WakeAt asks the driver to pull again at t at the latest (the next row
// of a paced source, the end of a processing-time window, an idle
// timeout). It is for the statement's goroutine, whose next Wait takes
// the time; another goroutine says it has rows with Wake.
func (l *Live) WakeAt(t time.Time) {
	l.mu.Lock()
	if l.deadline.IsZero() || t.Before(l.deadline) {
		l.deadline = t
	}
	l.mu.Unlock()
}

// Stop asks to stop the statement. It returns at once; the driver begins
// the stop (BeginStop) between two events, and the live sources end at
// their next Next.
func (l *Live) Stop() {
	l.requested.Store(true)
	l.Wake()
}

// StopRequested reports whether Stop was called.
func (l *Live) StopRequested() bool { return l.requested.Load() }

// Stopping reports whether the stop began: a live source then ends as
// if its input ended.
func (l *Live) Stopping() bool { return l.stopped.Load() }

// Stopping is what a live source asks before it reads: it begins a stop
// that Stop asked for (sources run on the statement's goroutine, as the
// driver does, so that an operator that keeps the driver waiting, one
// whose rows a filter drops, still stops) and reports whether the
// statement is stopping.
func (ex *Execution) Stopping() bool {
	ex.BeginStop()
	return ex.Live().Stopping()
}

// BeginStop begins a stop that Stop asked for, on the statement's
// goroutine (the driver's, between two events, or a source's): the
// statement ends without the end of input (no
// maximum watermark, timers and state stay, as Flink's stop-with-savepoint
// leaves them), then the sources are told. It reports whether it began
// one.
func (ex *Execution) BeginStop() bool {
	l := ex.Live()
	if !l.requested.Load() || l.stopped.Load() {
		return false
	}
	ex.Opts.EndOfInput = false
	l.stopped.Store(true)
	return true
}

// Wait waits until a source wakes the driver, a time asked for passes,
// (a time asked for holds for one Wait: a source that still waits asks
// again when it next returns EvIdle),
// at most until limit (zero: no limit), or done is closed. It reports
// whether done was closed.
func (l *Live) Wait(limit time.Duration, done <-chan struct{}) bool {
	l.mu.Lock()
	d := l.deadline
	l.deadline = time.Time{}
	l.mu.Unlock()
	var wait time.Duration
	switch {
	case !d.IsZero():
		wait = time.Until(d)
		if limit > 0 && limit < wait {
			wait = limit
		}
		if wait <= 0 {
			return false
		}
	case limit > 0:
		wait = limit
	}
	var timer <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-l.wake:
	case <-timer:
	case <-done:
		return true
	}
	return false
}

// Sources is the number of live sources opened so far.
func (l *Live) Sources() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sources
}
