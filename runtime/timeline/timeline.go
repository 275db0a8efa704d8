// Package timeline records what happens in time during a query, and draws
// it: EXPLAIN TIMELINE draws the record in the terminal (Text), SET
// 'ptfsh.timeline' = 'out.svg' (or '.html') writes it as a picture (SVG,
// HTML).
//
// A Record is a list of Events in the order they happened: rows into a PTF
// call with their key and event time (late rows marked), the call's
// watermark as it advances, timers set, fired and cleared, and rows out.
// The PTF operator (runtime/exec/ptfop) adds them through its timeline
// hook when a statement asks for a timeline; nothing is recorded
// otherwise. The SQL operators that act in time (window aggregations,
// Top-N and deduplication, OVER, MATCH_RECOGNIZE) add theirs the same way,
// a section each: a window's
// end is its timer, and an operator on processing time follows the
// processing-time clock (Clock events) where others follow the watermark.
//
// Two views (View): the event view puts event time across and one lane
// per partition key down, below a lane of the watermark; above MaxLanes
// keys, keys share lanes (buckets in the order the keys first appear) and
// a lane shows how many rows fall in each stretch of time, so that 20,000
// rows stay readable. The arrival view (arrival.go) draws event time up
// against arrival time across, as books on stream processing do: a point
// per row, the watermark as a curve, late rows below it, timers fired on
// its rises; many rows become bins. TextView, SVGView and HTMLView draw
// either.
//
// Times are shown in the session time zone, which is UTC in ptfsh.
//
// The package is a leaf: the standard library only.
package timeline

import (
	"fmt"
	"math"
	"time"
)

// Kind is what an Event records.
type Kind uint8

const (
	// RowIn is an input row that reached the call (or its ORDER BY buffer).
	RowIn Kind = iota
	// LateRow is an input row at or before the watermark that still reaches eval.
	LateRow
	// DroppedRow is a late row that ORDER BY dropped.
	DroppedRow
	// Watermark is the call's watermark advancing to Time (from WM).
	Watermark
	// TimerSet is a timer registered for Time.
	TimerSet
	// TimerFired is a timer whose time the watermark passed: onTimer ran.
	TimerFired
	// TimerCleared is a timer cleared (or replaced by one of the same name).
	TimerCleared
	// RowOut is a row the call emitted.
	RowOut
	// Clock is the processing-time clock that an operator on processing
	// time follows moving to Time (from WM): it plays the watermark's part.
	Clock
)

var kindNames = [...]string{"row in", "late row", "dropped row", "watermark", "timer set", "timer fired", "timer cleared", "row out", "processing time"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// End is the watermark at the end of a bounded input (Flink's
// Long.MAX_VALUE), drawn at the right edge as "end of input".
const End = math.MaxInt64

// Event is one thing that happened in time.
type Event struct {
	Kind Kind
	// Call is the PTF as the query called it.
	Call string
	// Input names the table of an input row (RowIn, LateRow, DroppedRow).
	Input string
	// Key is the partition key as printed ("Bob", "Bob, 3"); "" for none.
	Key string
	// Time is the event time: the row's, the new watermark's, the timer's,
	// the output row's. HasTime is false for a row without a time.
	Time    int64
	HasTime bool
	// WM is the call's watermark when the event happened (for Watermark:
	// the one before); HasWM is false while there is none.
	WM    int64
	HasWM bool
	// Name is a timer's name ("" for an unnamed timer).
	Name string
	// Row is a row as printed (rows in and out), for the tooltips.
	Row string
	// Proc is the processing time (epoch milliseconds) at which the event
	// happened, where the statement runs on a processing-time clock;
	// HasProc says so. The arrival view puts rows there when all have one.
	Proc    int64
	HasProc bool
	// Window marks an event of a window operator of SQL (a window
	// aggregation) rather than of a PTF call: a row it drops was late for
	// its windows (not for ORDER BY), a timer is a window's end.
	Window bool
	// OnClock marks an event of an operator on processing time: Time and
	// WM are times of the processing-time clock, which Clock events move.
	OnClock bool
}

// MaxEvents is how many events a Record keeps (some 200 MB at most); it
// counts the ones after.
var MaxEvents = 1_000_000

// Record collects the events of one statement. The zero value is ready.
type Record struct {
	Events []Event
	// Missed counts the events after MaxEvents, which were not kept.
	Missed int64
	// Notes say what the drawing leaves out (a statement that failed).
	Notes []string
}

// Add appends an event (the hook the operator calls).
func (r *Record) Add(e Event) {
	if len(r.Events) >= MaxEvents {
		r.Missed++
		return
	}
	r.Events = append(r.Events, e)
}

// FormatTime shows epoch milliseconds as a timestamp in the session time
// zone (UTC): 2025-03-27 12:00:05, with milliseconds when there are some
// (12:00:05.250); the end of input as "end of input".
func FormatTime(ms int64) string {
	if ms == End {
		return "end of input"
	}
	t := time.UnixMilli(ms).UTC()
	if ms%1000 != 0 {
		return t.Format("2006-01-02 15:04:05.000")
	}
	return t.Format("2006-01-02 15:04:05")
}

// FormatDuration shows a span of milliseconds for people: 3 s, 1.5 s,
// 250 ms, 2 min 5 s, 3 h 10 min, 2 d 4 h.
func FormatDuration(ms int64) string {
	neg := ""
	if ms < 0 {
		neg, ms = "-", -ms
	}
	switch {
	case ms < 1000:
		return fmt.Sprintf("%s%d ms", neg, ms)
	case ms < 60_000:
		if ms%1000 == 0 {
			return fmt.Sprintf("%s%d s", neg, ms/1000)
		}
		return neg + trimZeros(fmt.Sprintf("%.3f", float64(ms)/1000)) + " s"
	case ms < 3_600_000:
		return join(neg, ms/60_000, "min", ms%60_000/1000, "s")
	case ms < 86_400_000:
		return join(neg, ms/3_600_000, "h", ms%3_600_000/60_000, "min")
	}
	return join(neg, ms/86_400_000, "d", ms%86_400_000/3_600_000, "h")
}

func join(neg string, a int64, ua string, b int64, ub string) string {
	if b == 0 {
		return fmt.Sprintf("%s%d %s", neg, a, ua)
	}
	return fmt.Sprintf("%s%d %s %d %s", neg, a, ua, b, ub)
}

func trimZeros(s string) string {
	for len(s) > 0 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
