package ptf

import (
	"errors"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// Errors a PTF instance may branch on.
var (
	// ErrInterrupted reports a call stopped by cancellation (Ctrl-C); a call
	// stopped by a limit (the eval timeout, ...) reports ErrLimit.
	ErrInterrupted = errors.New("interrupted")
	// ErrNoTimers reports a timer operation where timers are not available.
	ErrNoTimers = errors.New("timers are not available")
)

// Context is what a PTF call sees of the runtime, as Flink's
// ProcessTableFunction.Context: the current input, state, timers and the
// collector. One Context is reused for every call of an instance; it is
// valid only during the call it was passed to.
type Context struct {
	h Host
}

// NewContext returns the Context of an instance whose calls h serves: the
// operator that runs the instance.
func NewContext(h Host) *Context { return &Context{h: h} }

// Host is the operator behind a Context. The runtime's PTF operator
// implements it; tests may implement it too.
type Host interface {
	Input() int
	Key() []any
	Collect(r types.Row) error
	State(i int) (any, error)
	SetState(i int, v any)
	ClearState(i int)
	ClearAllState()
	Semantics(arg int) (TableSemantics, bool)
	ChangelogMode() types.ChangelogMode
	Time() (int64, bool)
	CurrentWatermark() (int64, bool)
	TableWatermark() (int64, bool)
	RegisterOnTime(name string, named bool, ts int64) error
	ClearTimer(name string, named bool, ts int64) error
	ClearAllTimers() error
	CurrentTimer() (string, bool)
	// NoteDropped records that the running call drops its row on purpose
	// (a duplicate, a late row), for why-not summaries and the trace.
	NoteDropped(reason string)

	// List and map state of the current key (views.go, context_views.go).
	ListSize(i int) (int, error)
	ListSlice(i, from, max int) ([]any, error)
	ListAdd(i int, vs []any) error
	ListClear(i int) error
	MapGet(i int, k any) (any, bool, error)
	MapPut(i int, keys, vals []any) error
	MapRemove(i int, k any) error
	MapClear(i int) error
	MapIter(i int) (MapCursor, error)
}

// Input returns the declaration index of the table argument whose row is
// being processed, or -1 (no table arguments, or a timer).
func (c *Context) Input() int { return c.h.Input() }

// Key returns the partition key values of the current call (nil without
// PARTITION BY). The slice must not be modified.
func (c *Context) Key() []any { return c.h.Key() }

// Collect emits one output row of the function's own columns (no key
// prefix, no rowtime); r.Kind is its change kind. The runtime copies what
// it keeps, so r may be reused after Collect returns.
func (c *Context) Collect(r types.Row) error { return c.h.Collect(r) }

// State returns the live value of value-state entry i for the current key,
// creating a fresh default on first use.
func (c *Context) State(i int) (any, error) { return c.h.State(i) }

// SetState replaces the live value of value-state entry i.
func (c *Context) SetState(i int, v any) { c.h.SetState(i, v) }

// ClearState clears state entry i when the call returns: changes made to it
// later in the same call are discarded, and the next call sees a default.
func (c *Context) ClearState(i int) { c.h.ClearState(i) }

// ClearAllState clears every state entry, as ClearState does.
func (c *Context) ClearAllState() { c.h.ClearAllState() }

// TableSemantics describes table argument arg (a declaration index); false
// if arg is not a table argument.
func (c *Context) TableSemantics(arg int) (TableSemantics, bool) { return c.h.Semantics(arg) }

// ChangelogMode is the changelog mode of the function's output.
func (c *Context) ChangelogMode() types.ChangelogMode { return c.h.ChangelogMode() }

// Time returns the event time of the current row (its on_time column) or
// of the firing timer, in epoch milliseconds; false when there is none.
func (c *Context) Time() (int64, bool) { return c.h.Time() }

// CurrentWatermark returns the operator's watermark; false before the first.
func (c *Context) CurrentWatermark() (int64, bool) { return c.h.CurrentWatermark() }

// TableWatermark returns the watermark of the input that delivered the
// current row; false before its first watermark and inside OnTimer.
func (c *Context) TableWatermark() (int64, bool) { return c.h.TableWatermark() }

// RegisterOnTime registers the named timer (replacing an earlier one of the
// same name) at ts, in epoch milliseconds.
func (c *Context) RegisterOnTime(name string, ts int64) error {
	return c.h.RegisterOnTime(name, true, ts)
}

// RegisterOnTimeUnnamed registers an unnamed timer at ts.
func (c *Context) RegisterOnTimeUnnamed(ts int64) error { return c.h.RegisterOnTime("", false, ts) }

// ClearTimer removes the named timer.
func (c *Context) ClearTimer(name string) error { return c.h.ClearTimer(name, true, 0) }

// ClearTimerAt removes the unnamed timer at ts.
func (c *Context) ClearTimerAt(ts int64) error { return c.h.ClearTimer("", false, ts) }

// ClearAllTimers removes every timer of the current key.
func (c *Context) ClearAllTimers() error { return c.h.ClearAllTimers() }

// CurrentTimer returns the name of the firing timer; false for an unnamed
// timer or outside OnTimer.
func (c *Context) CurrentTimer() (string, bool) { return c.h.CurrentTimer() }

// NoteDropped records that the running call drops its input row on
// purpose, and why (a word or two: "late", "duplicate"): EXPLAIN WHY
// counts such rows by reason and the trace shows them. It changes nothing
// else; a ptfsh extension (on Flink the export makes it do nothing).
func (c *Context) NoteDropped(reason string) { c.h.NoteDropped(reason) }

// ErrLimit reports a call stopped by one of the limits on a function: the
// eval timeout, the call-stack depth, the memory guard or the rows per call
// (SET 'ptf.eval-timeout', 'ptf.max-call-depth', 'ptf.max-memory',
// 'ptf.max-rows-per-call'). Unlike ErrInterrupted it is the function's
// doing, so the error names the key and the row it stopped at.
var ErrLimit = errors.New("limit exceeded")

// SourceError is an error that points into the source of a function:
// script.Error implements it (the interface lives here so that runtime
// does not import script). FormatError shows the source line and the
// stack it gives.
type SourceError interface {
	error
	// SourceLine returns the line of the function's source the error
	// points at, without its line end, and the 1-based column in it,
	// counted in characters; false when the source is not known.
	SourceLine() (line string, col int, ok bool)
	// JSStack returns the JavaScript stack, one indented frame a line
	// ("    at eval (f.js:3:9)"); "" when there is none.
	JSStack() string
}
