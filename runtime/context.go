package runtime

import "github.com/ptfsh/ptfsh/runtime/types"
import "errors"

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
	h host
}

// host is the operator behind a Context. The runtime's PTF operator
// implements it; tests may implement it too.
type host interface {
	input() int
	key() []any
	collect(r types.Row) error
	state(i int) (any, error)
	setState(i int, v any)
	clearState(i int)
	clearAllState()
	semantics(arg int) (TableSemantics, bool)
	changelogMode() ChangelogMode
	time() (int64, bool)
	currentWatermark() (int64, bool)
	tableWatermark() (int64, bool)
	registerOnTime(name string, named bool, ts int64) error
	clearTimer(name string, named bool, ts int64) error
	clearAllTimers() error
	currentTimer() (string, bool)

	// List and map state of the current key (views.go, context_views.go).
	listSize(i int) (int, error)
	listSlice(i, from, max int) ([]any, error)
	listAdd(i int, vs []any) error
	listClear(i int) error
	mapGet(i int, k any) (any, bool, error)
	mapPut(i int, keys, vals []any) error
	mapRemove(i int, k any) error
	mapClear(i int) error
	mapIter(i int) (mapCursor, error)
}

// Input returns the declaration index of the table argument whose row is
// being processed, or -1 (no table arguments, or a timer).
func (c *Context) Input() int { return c.h.input() }

// Key returns the partition key values of the current call (nil without
// PARTITION BY). The slice must not be modified.
func (c *Context) Key() []any { return c.h.key() }

// Collect emits one output row of the function's own columns (no key
// prefix, no rowtime); r.Kind is its change kind. The runtime copies what
// it keeps, so r may be reused after Collect returns.
func (c *Context) Collect(r types.Row) error { return c.h.collect(r) }

// State returns the live value of value-state entry i for the current key,
// creating a fresh default on first use.
func (c *Context) State(i int) (any, error) { return c.h.state(i) }

// SetState replaces the live value of value-state entry i.
func (c *Context) SetState(i int, v any) { c.h.setState(i, v) }

// ClearState clears state entry i when the call returns: changes made to it
// later in the same call are discarded, and the next call sees a default.
func (c *Context) ClearState(i int) { c.h.clearState(i) }

// ClearAllState clears every state entry, as ClearState does.
func (c *Context) ClearAllState() { c.h.clearAllState() }

// TableSemantics describes table argument arg (a declaration index); false
// if arg is not a table argument.
func (c *Context) TableSemantics(arg int) (TableSemantics, bool) { return c.h.semantics(arg) }

// ChangelogMode is the changelog mode of the function's output.
func (c *Context) ChangelogMode() ChangelogMode { return c.h.changelogMode() }

// Time returns the event time of the current row (its on_time column) or
// of the firing timer, in epoch milliseconds; false when there is none.
func (c *Context) Time() (int64, bool) { return c.h.time() }

// CurrentWatermark returns the operator's watermark; false before the first.
func (c *Context) CurrentWatermark() (int64, bool) { return c.h.currentWatermark() }

// TableWatermark returns the watermark of the input that delivered the
// current row; false before its first watermark and inside OnTimer.
func (c *Context) TableWatermark() (int64, bool) { return c.h.tableWatermark() }

// RegisterOnTime registers the named timer (replacing an earlier one of the
// same name) at ts, in epoch milliseconds.
func (c *Context) RegisterOnTime(name string, ts int64) error {
	return c.h.registerOnTime(name, true, ts)
}

// RegisterOnTimeUnnamed registers an unnamed timer at ts.
func (c *Context) RegisterOnTimeUnnamed(ts int64) error { return c.h.registerOnTime("", false, ts) }

// ClearTimer removes the named timer.
func (c *Context) ClearTimer(name string) error { return c.h.clearTimer(name, true, 0) }

// ClearTimerAt removes the unnamed timer at ts.
func (c *Context) ClearTimerAt(ts int64) error { return c.h.clearTimer("", false, ts) }

// ClearAllTimers removes every timer of the current key.
func (c *Context) ClearAllTimers() error { return c.h.clearAllTimers() }

// CurrentTimer returns the name of the firing timer; false for an unnamed
// timer or outside OnTimer.
func (c *Context) CurrentTimer() (string, bool) { return c.h.currentTimer() }
