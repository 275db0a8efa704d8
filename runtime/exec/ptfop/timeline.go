package ptfop

import (
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// timelineObserver records the time events of a PTF call in the
// statement's timeline (EXPLAIN TIMELINE, SET 'ptfsh.timeline'): rows in
// (late rows marked, rows that ORDER BY drops), the watermark as it
// advances, timers set, fired and cleared, rows out.
type timelineObserver struct {
	rec exec.TimeRecorder
}

// add records ev with the processing time it happened at, where the
// statement's clock is moved by hand.
func (t *timelineObserver) add(c exec.CallView, ev timeline.Event) {
	ev.Proc, ev.HasProc = c.ProcessingTime()
	t.rec.Add(ev)
}

func (t *timelineObserver) RowIn(c exec.CallView, in int, r types.Row, dropped bool) {
	key, hasKey := c.PartitionKey(in, r)
	ts, hasTS := c.RowTime(in, r)
	wm, hasWM := c.Watermark()
	ev := timeline.Event{Kind: timeline.RowIn, Call: c.Name(), Input: c.InputName(in), Key: keyText(key, hasKey), Time: ts, HasTime: hasTS,
		WM: wm, HasWM: hasWM, Row: types.FormatRow(r, c.InputSchema(in))}
	switch {
	case dropped:
		ev.Kind = timeline.DroppedRow
		ev.WM, ev.HasWM = c.InputWatermark(in)
	case hasTS && hasWM && ts <= wm:
		ev.Kind = timeline.LateRow
	}
	t.add(c, ev)
}

func (t *timelineObserver) Watermark(c exec.CallView, in int, prev int64, had bool) {
	wm, _ := c.Watermark()
	t.add(c, timeline.Event{Kind: timeline.Watermark, Call: c.Name(), Time: wm, HasTime: true, WM: prev, HasWM: had})
}

func (t *timelineObserver) CallStart(c exec.CallView) {
	if tm, ok := c.Firing(); ok {
		t.timer(c, timeline.TimerFired, tm)
	}
}

func (t *timelineObserver) CallEnd(exec.CallView, error) {}

func (t *timelineObserver) RowOut(c exec.CallView, ev *exec.Event) {
	var ts int64
	var ok bool
	if tm, firing := c.Firing(); firing {
		ts, ok = tm.Time, true
	} else if i, r, in := c.Input(); in {
		ts, ok = c.RowTime(i, r)
	}
	wm, hasWM := c.Watermark()
	t.add(c, timeline.Event{Kind: timeline.RowOut, Call: c.Name(), Key: keyText(c.Key()), Time: ts, HasTime: ok, WM: wm, HasWM: hasWM,
		Row: types.FormatRow(ev.Row, c.Schema())})
}

// TimerSet records a timer set; a named timer that replaces one at
// another time clears that one, and one set again as it is records
// nothing.
func (t *timelineObserver) TimerSet(c exec.CallView, tm exec.Timer) {
	if _, ok := c.Key(); !ok {
		return
	}
	before, has := exec.Timer{}, false
	c.KeyTimers(func(k exec.Timer) {
		if k.Named == tm.Named && (tm.Named && k.Name == tm.Name || !tm.Named && k.Time == tm.Time) {
			before, has = k, true
		}
	})
	if has {
		if before.Time == tm.Time {
			return
		}
		t.timer(c, timeline.TimerCleared, before)
	}
	t.timer(c, timeline.TimerSet, tm)
}

// TimerCleared records the timers of the key that the clear removes.
// Dropped: the timeline draws the row as it came; EXPLAIN WHY counts it.
func (t *timelineObserver) Dropped(exec.CallView, string) {}

func (t *timelineObserver) TimerCleared(c exec.CallView, tm exec.Timer, all bool) {
	if _, ok := c.Key(); !ok {
		return
	}
	c.KeyTimers(func(k exec.Timer) {
		if all || k.Named == tm.Named && (tm.Named && k.Name == tm.Name || !tm.Named && k.Time == tm.Time) {
			t.timer(c, timeline.TimerCleared, k)
		}
	})
}

// timer records a timer event of the running call's key.
func (t *timelineObserver) timer(c exec.CallView, kind timeline.Kind, tm exec.Timer) {
	wm, hasWM := c.Watermark()
	t.add(c, timeline.Event{Kind: kind, Call: c.Name(), Key: keyText(c.Key()), Time: tm.Time, HasTime: true, WM: wm, HasWM: hasWM, Name: tm.Name})
}
