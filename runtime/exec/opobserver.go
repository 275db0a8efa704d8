package exec

import (
	"strconv"

	"github.com/ptfsh/ptfsh/runtime/timeline"
)

// OpObserver watches a SQL operator that acts in time (a window
// aggregation, Top-N or deduplication, OVER, MATCH_RECOGNIZE) for the
// statement's timeline, as Observer watches a PTF call: the operator
// tells it what happens, in Flink's terms, as it happens, and the
// observer records it. The operators
// (runtime/exec/sqlop) call it without knowing how a timeline is kept;
// Execution.OperatorObserver gives one, or nil when the statement draws no
// timeline, so that an operator pays a comparison with nil per event.
//
// Keys are partition or group keys as FormatKey prints them ("" for
// none); rows are printed (types.FormatRow); times are epoch milliseconds,
// of event time for an operator on event time, of processing time for one
// on processing time. An observer is called from the statement's
// goroutine only.
type OpObserver interface {
	// RowIn: a row of key came at time t (hasTime: it has one); late: at
	// or before the watermark, yet still used (a HOP window still open).
	RowIn(key string, t int64, hasTime, late bool, row string)
	// Dropped: a row of key came too late, and the operator drops it (the
	// watermark passed all its windows).
	Dropped(key string, t int64, hasTime bool, row string)
	// Watermark: the operator's watermark advanced to wm (timeline.End:
	// the end of input).
	Watermark(wm int64)
	// Clock: the processing-time clock, which an operator on processing
	// time follows, moved to now.
	Clock(now int64)
	// TimerSet: the operator waits for time t for key (Flink registers a
	// timer there: a window's end - 1).
	TimerSet(key string, t int64)
	// TimerFired: the time t of key came (the watermark or the clock
	// passed it): a window fires.
	TimerFired(key string, t int64)
	// RowOut: the operator emitted row for key, at time t.
	RowOut(key string, t int64, row string)
}

// OpSection says how a SQL operator's section of the timeline reads.
type OpSection struct {
	// ProcTime: the operator acts on processing time: its times are the
	// clock's (Clock moves it), and its events carry the processing time.
	ProcTime bool
	// Windows: the operator is a window operator, whose timers are its
	// windows' ends and whose dropped rows came too late for them.
	Windows bool
}

// OperatorObserver returns the observer of the SQL operator id, whose
// timeline section is named name (a second operator of the same name gets
// "name (2)"), or nil when the statement draws no timeline. The operators
// that make up one picture (a window table function and the aggregation
// over it) share id, and so the observer.
func (ex *Execution) OperatorObserver(id any, name string, sec OpSection) OpObserver {
	if ex.Timeline == nil {
		return nil
	}
	if o, ok := ex.opObservers[id]; ok {
		return o
	}
	if ex.opObservers == nil {
		ex.opObservers = map[any]*opRecorder{}
		ex.opNames = map[string]int{}
	}
	ex.opNames[name]++
	if n := ex.opNames[name]; n > 1 {
		name += " (" + strconv.Itoa(n) + ")"
	}
	o := &opRecorder{ex: ex, rec: ex.Timeline, call: name, sec: sec}
	ex.opObservers[id] = o
	return o
}

// opRecorder records an operator's events into the timeline: it keeps
// the operator's watermark (or clock) to stamp each event with.
type opRecorder struct {
	ex   *Execution
	rec  TimeRecorder
	call string
	sec  OpSection
	// wm is the watermark, or on processing time the clock, as last
	// recorded; hasWM is false before the first.
	wm    int64
	hasWM bool
}

func (o *opRecorder) add(e timeline.Event) {
	e.Call, e.Window, e.OnClock = o.call, o.sec.Windows, o.sec.ProcTime
	e.WM, e.HasWM = o.wm, o.hasWM
	if o.ex.SteppedClock || o.sec.ProcTime {
		e.Proc, e.HasProc = o.ex.Now(), true
	}
	o.rec.Add(e)
}

func (o *opRecorder) RowIn(key string, t int64, hasTime, late bool, row string) {
	k := timeline.RowIn
	if late {
		k = timeline.LateRow
	}
	o.add(timeline.Event{Kind: k, Key: key, Time: t, HasTime: hasTime, Row: row})
}

func (o *opRecorder) Dropped(key string, t int64, hasTime bool, row string) {
	o.add(timeline.Event{Kind: timeline.DroppedRow, Key: key, Time: t, HasTime: hasTime, Row: row})
}

func (o *opRecorder) Watermark(wm int64) {
	if o.hasWM && wm <= o.wm {
		return
	}
	o.add(timeline.Event{Kind: timeline.Watermark, Time: wm, HasTime: true})
	o.wm, o.hasWM = wm, true
}

func (o *opRecorder) Clock(now int64) {
	if o.hasWM && now <= o.wm {
		return
	}
	o.add(timeline.Event{Kind: timeline.Clock, Time: now, HasTime: true})
	o.wm, o.hasWM = now, true
}

func (o *opRecorder) TimerSet(key string, t int64) {
	o.add(timeline.Event{Kind: timeline.TimerSet, Key: key, Time: t, HasTime: true})
}

func (o *opRecorder) TimerFired(key string, t int64) {
	o.add(timeline.Event{Kind: timeline.TimerFired, Key: key, Time: t, HasTime: true})
}

func (o *opRecorder) RowOut(key string, t int64, row string) {
	o.add(timeline.Event{Kind: timeline.RowOut, Key: key, Time: t, HasTime: true, Row: row})
}
