package exec

import (
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Observer watches a PTF call event by event, for the people who learn
// and debug with ptfsh: the trace (--trace), lineage (EXPLAIN WHY, SET
// 'ptfsh.lineage') and the timeline (EXPLAIN TIMELINE) are observers
// (runtime/exec/ptfop). The operator calls its observer, when it has one,
// as each event happens; an operator without one pays a comparison with
// nil per event. An observer is called from the call's goroutine only: a
// call that has one runs on one worker.
//
// Every method gets the call's view, which answers for the moment of the
// event (the running eval or onTimer, the watermark as it is then); an
// observer keeps nothing of it past the method but what it copies.
type Observer interface {
	// RowIn: row r of input in arrived; dropped: its input has ORDER BY,
	// which drops it as late (or without a time).
	RowIn(c CallView, in int, r types.Row, dropped bool)
	// Watermark: the call's watermark (c.Watermark) advanced from prev
	// (had: it had one) when input in's did.
	Watermark(c CallView, in int, prev int64, had bool)
	// CallStart: a call is about to run: eval of c.Input's row (or of a
	// function without table argument), or onTimer of c.Firing's timer,
	// which fires now.
	CallStart(c CallView)
	// CallEnd: the call started last returned err.
	CallEnd(c CallView, err error)
	// RowOut: the running call collected ev; an observer may say why
	// (Event.Why).
	RowOut(c CallView, ev *Event)
	// TimerSet: the running call registers t; c.KeyTimers shows its
	// key's timers as they are before it.
	TimerSet(c CallView, t Timer)
	// TimerCleared: the running call clears t, or every timer of its key
	// (all); c.KeyTimers shows them as they are before it.
	TimerCleared(c CallView, t Timer, all bool)
	// Dropped: the running call says it drops its row on purpose, and why
	// (ctx.noteDropped).
	Dropped(c CallView, reason string)
}

// CallView is what an observer may ask of the PTF call it watches.
type CallView interface {
	// Function is the function as the statement calls it; Name names the
	// call for people: the function, and its uid when that is another
	// name.
	Function() string
	Name() string
	// Inputs is the number of table arguments. InputName names input i
	// (its table, else its argument) and InputSchema gives its columns.
	Inputs() int
	InputName(i int) string
	InputSchema(i int) types.Schema
	// Schema is the call's output.
	Schema() types.Schema
	// RowTime is the event time of a row of input i: its on_time column,
	// else its table's time attribute.
	RowTime(i int, r types.Row) (int64, bool)
	// PartitionKey is the PARTITION BY key of a row of input i; ok is
	// false for an input with row semantics or without PARTITION BY.
	PartitionKey(i int, r types.Row) (key []any, ok bool)
	// Watermark is the call's watermark; InputWatermark is input i's.
	Watermark() (int64, bool)
	InputWatermark(i int) (int64, bool)
	// Key is the partition key of the running call; ok is false for a
	// call that has none (row semantics, no table).
	Key() (key []any, ok bool)
	// Input is the input and the row of the running eval; ok is false
	// for onTimer and for a function without table argument.
	Input() (in int, r types.Row, ok bool)
	// Firing is the timer whose onTimer runs.
	Firing() (Timer, bool)
	// KeyTimers calls f with each timer of the running call's key.
	KeyTimers(f func(Timer))
	// PendingTimers calls f with each timer that waits to fire, and its
	// key, in no order; it returns how many wait.
	PendingTimers(f func(key []any, t Timer)) int
	// ProcessingTime is the processing time now, in epoch milliseconds,
	// where the statement's clock is moved by hand (a stream's, stepped by
	// ADVANCE PROCESSING TIME); ok is false otherwise.
	ProcessingTime() (ms int64, ok bool)
	// State describes the value state of the running call's key as it is
	// now ("-" without a key); ok is false for a function that declares
	// no state.
	State() (desc string, ok bool)
}

// Timer is a timer of a PTF call as observers see it: its time in epoch
// milliseconds of event time, and its name when it is named.
type Timer struct {
	Name  string
	Named bool
	Time  int64
}

// TimeRecorder receives the time events of a statement's PTF calls and
// SQL operators (a [*timeline.Record]).
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
