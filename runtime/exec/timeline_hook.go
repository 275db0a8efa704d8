package exec

import (
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// The PTF operator's time events: rows in (late rows marked, rows that
// ORDER BY drops), the watermark as it advances, timers set, fired and
// cleared, rows out. They go to the statement's timeline (EXPLAIN
// TIMELINE, SET 'ptfsh.timeline') and explain the trace (--trace): why a
// row is late, what moved the watermark, why a timer fired. Nothing is
// computed unless one of the two is on.

// TimeRecorder receives the time events of a statement's PTF calls
// (a *timeline.Record).
type TimeRecorder interface {
	Add(timeline.Event)
}

// TraceFilter narrows the trace (SET 'ptfsh.trace.key', 'ptfsh.trace.function',
// 'ptfsh.trace.late'): the zero value shows everything.
type TraceFilter struct {
	// Key shows only calls for this partition key, as the trace prints it
	// (Bob, or Bob, 3 for two columns; the brackets may be given).
	Key string
	// Function shows only the calls of this function (as called).
	Function string
	// Late shows only the calls of eval for late rows and the rows that
	// ORDER BY drops.
	Late bool
}

// Settings of the trace's filters.
const (
	SetTraceKey      = "ptfsh.trace.key"
	SetTraceFunction = "ptfsh.trace.function"
	SetTraceLate     = "ptfsh.trace.late"
)

// opTime is what an operator keeps for its time events.
type opTime struct {
	rows    []int64 // rows that arrived from each input
	timeCol []int   // each input's time column (-1: none)
}

// callName names the call in the timeline: the function, and its uid
// when that is another name, so that two calls of one function in a query
// have lanes of their own.
func (o *PtfOp) callName() string {
	if o.Node.Uid != "" && o.Node.Uid != o.Node.Fn {
		return o.Node.Fn + " (uid " + o.Node.Uid + ")"
	}
	return o.Node.Fn
}

// timeOn reports whether anyone listens to time events.
func (o *PtfOp) timeOn() bool { return o.Ex.Timeline != nil || o.Ex.Trace != nil }

func (o *PtfOp) times() *opTime {
	if o.tl == nil {
		t := &opTime{rows: make([]int64, len(o.Node.Tables))}
		for _, b := range o.Node.Tables {
			col := b.Sem.TimeColumn
			if col < 0 { // without on_time: the table's time attribute, if any
				for j, c := range b.In.Schema().Columns {
					if c.TimeAttr {
						col = j
						break
					}
				}
			}
			t.timeCol = append(t.timeCol, col)
		}
		o.tl = t
	}
	return o.tl
}

// rowTime is the event time of a row of input i.
func (o *PtfOp) rowTime(i int, r types.Row) (int64, bool) {
	col := o.times().timeCol[i]
	if col < 0 || col >= len(r.Fields) {
		return 0, false
	}
	return types.TimeMillis(r.Fields[col])
}

// sourceName names input i for people: its table, else its argument.
func (o *PtfOp) sourceName(i int) string {
	b := o.Node.Tables[i]
	if b.Source != "" {
		return b.Source
	}
	return b.Name
}

// noteRow records a row of input i arriving; dropped: ORDER BY drops it.
func (o *PtfOp) noteRow(i int, r types.Row, dropped bool) {
	if !o.timeOn() {
		return
	}
	t := o.times()
	t.rows[i]++
	b := &o.Node.Tables[i]
	key := ""
	if len(b.Partition) > 0 {
		key = formatFields(keycodec.Pick(r, b.Partition))
	}
	ts, hasTS := o.rowTime(i, r)
	if dropped && o.Ex.Trace != nil && o.traceShows(key, true) {
		why := "it has no time"
		if hasTS {
			why = lateBy(ts, o.inWM[i])
		}
		fmt.Fprintf(o.Ex.Trace, "trace %s ORDER BY dropped row %d of %s: %s %s\n", o.Node.Fn, t.rows[i], o.sourceName(i), why, types.FormatRow(r, b.In.Schema()))
	}
	if o.Ex.Timeline == nil {
		return
	}
	ev := timeline.Event{Kind: timeline.RowIn, Call: o.callName(), Input: o.sourceName(i), Key: key, Time: ts, HasTime: hasTS,
		WM: o.wm, HasWM: o.hasWM, Row: types.FormatRow(r, b.In.Schema())}
	switch {
	case dropped:
		ev.Kind, ev.WM, ev.HasWM = timeline.DroppedRow, o.inWM[i], o.inHas[i]
	case hasTS && o.hasWM && ts <= o.wm:
		ev.Kind = timeline.LateRow
	}
	o.Ex.Timeline.Add(ev)
}

// lateBy says how late a row at ts is for watermark wm.
func lateBy(ts, wm int64) string {
	if ts == wm {
		return fmt.Sprintf("late: ts %s = watermark (a row at the watermark is late)", timeline.FormatTime(ts))
	}
	return fmt.Sprintf("late by %s (ts %s < watermark %s)", timeline.FormatDuration(wm-ts), timeline.FormatTime(ts), timeline.FormatTime(wm))
}

// lateReason says why the row of the current eval is late, or "".
func (o *PtfOp) lateReason() string {
	if o.bind == nil || o.firing != nil || !o.hasWM {
		return ""
	}
	ts, ok := o.rowTime(o.bi, o.row)
	if !ok || ts > o.wm {
		return ""
	}
	rel := "<"
	if ts == o.wm {
		rel = "="
	}
	return fmt.Sprintf("late: ts %s %s watermark %s", timeline.FormatTime(ts), rel, timeline.FormatTime(o.wm))
}

// noteWatermark records the operator's watermark advancing from prev
// (had: there was one) because input i's advanced.
func (o *PtfOp) noteWatermark(i int, prev int64, had bool) {
	if !o.timeOn() {
		return
	}
	if o.Ex.Timeline != nil {
		o.Ex.Timeline.Add(timeline.Event{Kind: timeline.Watermark, Call: o.callName(), Time: o.wm, HasTime: true, WM: prev, HasWM: had})
	}
	if o.Ex.Trace == nil || !o.traceShows("", false) || o.Ex.TraceFilter.Late {
		return
	}
	from := "none"
	if had {
		from = timeline.FormatTime(prev)
	}
	why := fmt.Sprintf("after row %d of %s", o.times().rows[i], o.sourceName(i))
	if o.wm == MaxWatermark {
		why = o.sourceName(i) + " ended"
		if len(o.Ins) > 1 {
			why = "every input ended"
		}
	}
	fmt.Fprintf(o.Ex.Trace, "trace %s watermark %s → %s (%s)\n", o.Node.Fn, from, timeline.FormatTime(o.wm), why)
}

// noteTimer records a timer of the current key set, fired or cleared.
func (o *PtfOp) noteTimer(kind timeline.Kind, name string, named bool, ts int64) {
	if o.Ex.Timeline == nil {
		return
	}
	key := ""
	if o.cur != nil {
		key = formatFields(o.cur.key)
	}
	if !named {
		name = ""
	}
	o.Ex.Timeline.Add(timeline.Event{Kind: kind, Call: o.callName(), Key: key, Time: ts, HasTime: true, WM: o.wm, HasWM: o.hasWM, Name: name})
}

// noteTimersCleared records the timers of the current key that a clear
// (name, or ts for an unnamed one; all: every one) is about to remove.
func (o *PtfOp) noteTimersCleared(name string, named bool, ts int64, all bool) {
	if o.Ex.Timeline == nil || o.cur == nil {
		return
	}
	ks := o.cur
	switch {
	case all:
		for _, t := range ks.named {
			o.noteTimer(timeline.TimerCleared, t.name, true, t.time)
		}
		for _, t := range ks.unnamed {
			o.noteTimer(timeline.TimerCleared, "", false, t.time)
		}
	case named:
		if t, ok := ks.named[name]; ok {
			o.noteTimer(timeline.TimerCleared, name, true, t.time)
		}
	default:
		if _, ok := ks.unnamed[ts]; ok {
			o.noteTimer(timeline.TimerCleared, "", false, ts)
		}
	}
}

// noteTimerSet records a timer registered; a named timer that replaces
// one at another time clears that one.
func (o *PtfOp) noteTimerSet(name string, named bool, ts int64) {
	if o.Ex.Timeline == nil || o.cur == nil {
		return
	}
	if named {
		if t, ok := o.cur.named[name]; ok {
			if t.time == ts {
				return
			}
			o.noteTimer(timeline.TimerCleared, name, true, t.time)
		}
	} else if _, ok := o.cur.unnamed[ts]; ok {
		return
	}
	o.noteTimer(timeline.TimerSet, name, named, ts)
}

// noteCall records the start of a call: a timer firing.
func (o *PtfOp) noteCall() {
	if o.Ex.Timeline != nil && o.firing != nil {
		o.noteTimer(timeline.TimerFired, o.firing.name, o.firing.named, o.firing.time)
	}
}

// noteOut records a row the current call emitted.
func (o *PtfOp) noteOut(r types.Row) {
	if o.Ex.Timeline == nil {
		return
	}
	var ts int64
	var ok bool
	switch {
	case o.firing != nil:
		ts, ok = o.firing.time, true
	case o.bind != nil:
		ts, ok = o.rowTime(o.bi, o.row)
	}
	key := ""
	if o.cur != nil {
		key = formatFields(o.cur.key)
	}
	o.Ex.Timeline.Add(timeline.Event{Kind: timeline.RowOut, Call: o.callName(), Key: key, Time: ts, HasTime: ok, WM: o.wm, HasWM: o.hasWM,
		Row: types.FormatRow(r, o.Node.Sch)})
}

// traceShows applies the trace's filters to a line about key (a
// formatted key; "" for a line of no key); late: the line is about a late
// row.
func (o *PtfOp) traceShows(key string, late bool) bool {
	f := o.Ex.TraceFilter
	if f.Function != "" && !strings.EqualFold(f.Function, o.Node.Fn) {
		return false
	}
	if f.Late && !late {
		return false
	}
	if f.Key != "" && key != "" {
		want := strings.TrimSpace(f.Key)
		if strings.HasPrefix(want, "(") && strings.HasSuffix(want, ")") {
			want = strings.TrimSpace(want[1 : len(want)-1])
		}
		if key != want {
			return false
		}
	}
	return true
}
