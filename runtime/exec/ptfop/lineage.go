package ptfop

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Lineage (SET 'ptfsh.lineage' = 'on', EXPLAIN WHY): each row a PTF call
// emits carries what led to it, the input row that its eval was called
// for or the timer whose onTimer emitted it ([exec.Event].Why), which the
// result shows in a column of its own ([exec.LineageNode]); and at the end
// of the statement each call says why rows did not come: rows that arrived
// late, rows ORDER BY dropped, keys that never emitted, timers still
// pending.

// maxNamedKeys bounds the keys a why-not summary names.
const maxNamedKeys = 5

// lineage is the observer that says why each row came, and counts what
// the why-not summary says.
type lineage struct {
	in, late, dropped []int64 // per input
	seen, emitted     map[string]bool
	order             []string // keys in the order they were first seen
	// byFunction counts the rows the function said it dropped
	// (ctx.noteDropped), by reason, and reasons keeps their order.
	byFunction map[string]int64
	reasons    []string
}

func newLineage(inputs int) *lineage {
	return &lineage{in: make([]int64, inputs), late: make([]int64, inputs), dropped: make([]int64, inputs),
		seen: map[string]bool{}, emitted: map[string]bool{}}
}

// RowIn counts a row of input i arriving.
func (l *lineage) RowIn(c exec.CallView, i int, r types.Row, dropped bool) {
	l.in[i]++
	wm, hasWM := c.Watermark()
	switch ts, ok := c.RowTime(i, r); {
	case dropped:
		l.dropped[i]++
	case ok && hasWM && ts <= wm:
		l.late[i]++
	}
	if key, ok := c.PartitionKey(i, r); ok {
		k := exec.FormatKey(key)
		if !l.seen[k] {
			l.seen[k] = true
			l.order = append(l.order, k)
		}
	}
}

func (l *lineage) Watermark(exec.CallView, int, int64, bool)    {}
func (l *lineage) CallStart(exec.CallView)                      {}
func (l *lineage) CallEnd(exec.CallView, error)                 {}
func (l *lineage) TimerSet(exec.CallView, exec.Timer)           {}
func (l *lineage) TimerCleared(exec.CallView, exec.Timer, bool) {}

// Dropped counts a row the function dropped on purpose, by its reason.
func (l *lineage) Dropped(c exec.CallView, reason string) {
	if l.byFunction == nil {
		l.byFunction = map[string]int64{}
	}
	if l.byFunction[reason] == 0 {
		l.reasons = append(l.reasons, reason)
	}
	l.byFunction[reason]++
}

// RowOut says what led the running call to emit the row, and marks its
// key as one that emitted.
func (l *lineage) RowOut(c exec.CallView, ev *exec.Event) {
	key := ""
	if k, ok := c.Key(); ok && len(k) > 0 {
		key = exec.FormatKey(k)
		l.emitted[key] = true
	}
	if t, ok := c.Firing(); ok {
		var why string
		switch wm, _ := c.Watermark(); {
		case wm == exec.MaxWatermark:
			why = "the end of input fired it"
		case wm == t.Time:
			why = "watermark " + timeline.FormatTime(wm) + " reached it"
		default:
			why = "watermark " + timeline.FormatTime(wm) + " passed it"
		}
		s := fmt.Sprintf("%s at %s (%s)", timerName(t), timeline.FormatTime(t.Time), why)
		if key != "" {
			s += ", key (" + key + ")"
		}
		ev.SetWhy(s)
		return
	}
	i, r, ok := c.Input()
	if !ok {
		ev.SetWhy("the call without a table")
		return
	}
	s := "row " + types.FormatRow(r, c.InputSchema(i)) + " of " + c.InputName(i)
	if late := lateReason(c); late != "" {
		s += ", " + late
	}
	ev.SetWhy(s)
}

// whyNot summarises, after the statement, what did not lead to output:
// rows that came late or that ORDER BY dropped, keys that never emitted,
// timers still pending.
func (l *lineage) whyNot(c exec.CallView) string {
	var parts []string
	for i := range c.Inputs() {
		s := fmt.Sprintf("%s from %s", exec.Plural(l.in[i], "row"), c.InputName(i))
		if l.late[i] > 0 {
			s += fmt.Sprintf(", %d late (at or behind the watermark when it came)", l.late[i])
		}
		if l.dropped[i] > 0 {
			s += fmt.Sprintf(", %d dropped by ORDER BY as late", l.dropped[i])
		}
		parts = append(parts, s)
	}
	if len(l.reasons) > 0 {
		var n int64
		var by []string
		for _, r := range l.reasons {
			n += l.byFunction[r]
			by = append(by, fmt.Sprintf("%s %d", r, l.byFunction[r]))
		}
		parts = append(parts, fmt.Sprintf("%s dropped by the function (%s)", exec.Plural(n, "row"), strings.Join(by, ", ")))
	}
	var silent []string
	for _, k := range l.order {
		if !l.emitted[k] {
			silent = append(silent, "("+k+")")
		}
	}
	if n := len(silent); n > 0 {
		shown := silent[:min(n, maxNamedKeys)]
		s := fmt.Sprintf("%s never emitted: %s", exec.Plural(int64(n), "key"), strings.Join(shown, ", "))
		if n > len(shown) {
			s += fmt.Sprintf(" and %d more", n-len(shown))
		}
		parts = append(parts, s)
	}
	var pend []string
	n := c.PendingTimers(func(key []any, t exec.Timer) {
		pend = append(pend, fmt.Sprintf("(%s) %s at %s", exec.FormatKey(key), timerName(t), timeline.FormatTime(t.Time)))
	})
	if n > 0 {
		sort.Strings(pend)
		s := fmt.Sprintf("%s pending when the input stopped: %s", exec.Plural(int64(n), "timer"), strings.Join(pend[:min(len(pend), maxNamedKeys)], ", "))
		if len(pend) > maxNamedKeys {
			s += fmt.Sprintf(" and %d more", len(pend)-maxNamedKeys)
		}
		parts = append(parts, s)
	}
	return "why not: " + c.Name() + ": " + strings.Join(parts, "; ")
}
