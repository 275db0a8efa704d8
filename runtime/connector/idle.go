package connector

import (
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
)

// idleTimer marks a live source idle when it had no rows for
// table.exec.source.idle-timeout, as Flink's WatermarksWithIdleness: an
// idle source holds no watermark back downstream ([exec.Valve]) until its
// next row makes it active again. Time is the execution's processing
// time, so a fixed clock (SET 'ptfsh.processing-time') never makes a
// source idle by itself.
type idleTimer struct {
	timeout time.Duration // 0: never idle
	last    int64         // processing time of the last row, or of the open
	idle    bool
}

func newIdleTimer(ex *exec.Execution, timeout time.Duration) idleTimer {
	return idleTimer{timeout: timeout, last: ex.Now()}
}

// check is called when the source has no row now: it returns the event
// that marks the source idle once the timeout passed, and asks the driver
// to pull again when it will have passed.
func (t *idleTimer) check(ex *exec.Execution) (exec.Event, bool) {
	if t.timeout <= 0 || t.idle {
		return exec.Event{}, false
	}
	due := t.last + t.timeout.Milliseconds()
	if now := ex.Now(); now >= due {
		t.idle = true
		return exec.StatusEvent(true), true
	} else {
		ex.Live().WakeAt(time.Now().Add(time.Duration(due-now) * time.Millisecond))
	}
	return exec.Event{}, false
}

// active is called with each row: it returns the event that marks an idle
// source active again, which goes before the row.
func (t *idleTimer) active(ex *exec.Execution) (exec.Event, bool) {
	if t.timeout <= 0 {
		return exec.Event{}, false
	}
	t.last = ex.Now()
	if !t.idle {
		return exec.Event{}, false
	}
	t.idle = false
	return exec.Event{Kind: exec.EvStatus}, true
}

// wmPace holds a live source's watermarks to one per
// 'pipeline.auto-watermark-interval' of wall-clock time, as Flink's
// periodic watermark generation: rows that come together in one interval
// share a watermark, so that one of them is not late to another merely
// because it came a row later.
type wmPace struct {
	every time.Duration // 0: a watermark may follow every row
	last  time.Time     // when the last one went out
}

// due reports whether a watermark may go out now.
func (p *wmPace) due() bool { return p.every <= 0 || time.Since(p.last) >= p.every }

// emitted notes that a watermark went out.
func (p *wmPace) emitted() { p.last = time.Now() }

// wake asks the driver to pull again when a held watermark may go out.
func (p *wmPace) wake(ex *exec.Execution) { ex.Live().WakeAt(p.last.Add(p.every)) }
