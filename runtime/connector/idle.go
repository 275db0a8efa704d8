package connector

import (
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
)

// idleTimer marks a live source idle when it had no rows for
// table.exec.source.idle-timeout, as Flink's WatermarksWithIdleness: an
// idle source holds no watermark back downstream (exec.Valve) until its
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
		return exec.Event{Kind: exec.EvStatus, Idle: true}, true
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
