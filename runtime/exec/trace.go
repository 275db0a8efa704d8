package exec

import (
	"fmt"
	"io"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// Tracing (--trace, SET 'ptfsh.trace' = 'on') shows each call of eval and
// onTimer as it happens, for learning and debugging (docs/design.md §7): the key,
// the input row or the timer, the watermark, the state before and after,
// the timers registered and cleared, and the rows emitted.

// SetTrace turns tracing on ('on') or off.
const SetTrace = "ptfsh.trace"

// callTrace collects what one call did.
type callTrace struct {
	w      io.Writer
	before string
	late   string // why the row is late, or ""
	events []string
}

// traceStart opens the trace of a call; a no-op unless tracing.
func (o *PtfOp) traceStart() {
	o.noteCall() // the timeline (timeline_hook.go)
	if o.Ex.Trace == nil {
		return
	}
	late := o.lateReason()
	key := ""
	if o.cur != nil {
		key = formatFields(o.cur.key)
	}
	if !o.traceShows(key, late != "") || (o.Ex.TraceFilter.Key != "" && o.cur == nil) {
		return // filtered out: not traced
	}
	o.tr = &callTrace{w: o.Ex.Trace, before: o.describeState(o.cur), late: late}
}

// traceEvent records a timer registered or cleared, or a row emitted.
func (o *PtfOp) traceEvent(format string, args ...any) {
	if o.tr != nil {
		o.tr.events = append(o.tr.events, fmt.Sprintf(format, args...))
	}
}

// traceEnd prints the call.
func (o *PtfOp) traceEnd(err error) {
	tr := o.tr
	if tr == nil {
		return
	}
	o.tr = nil
	var b strings.Builder
	wm := "null"
	if o.hasWM {
		wm = traceTime(o.wm)
	}
	key := "()"
	if o.cur != nil {
		key = "(" + formatFields(o.cur.key) + ")"
	}
	switch {
	case o.firing != nil:
		name := "unnamed timer"
		if o.firing.named {
			name = "timer '" + o.firing.name + "'"
		}
		why := "watermark " + wm + " passed it"
		if o.wm == MaxWatermark {
			why = "end of input: the last watermark fires every timer left"
		}
		fmt.Fprintf(&b, "trace %s onTimer key %s: %s fired at %s (%s)\n", o.Node.Fn, key, name, traceTime(o.firing.time), why)
	case o.bind != nil:
		fmt.Fprintf(&b, "trace %s eval key %s row %s, watermark %s\n", o.Node.Fn, key, types.FormatRow(o.row, o.bind.In.Schema()), wm)
	default:
		fmt.Fprintf(&b, "trace %s eval, watermark %s\n", o.Node.Fn, wm)
	}
	if tr.late != "" {
		fmt.Fprintf(&b, "  %s\n", tr.late)
	}
	if len(o.Node.Def.State) > 0 {
		fmt.Fprintf(&b, "  state before: %s\n", tr.before)
	}
	for _, e := range tr.events {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	if len(o.Node.Def.State) > 0 {
		fmt.Fprintf(&b, "  state after:  %s\n", o.describeState(o.cur))
	}
	if err != nil {
		fmt.Fprintf(&b, "  failed: %v\n", err)
	}
	io.WriteString(tr.w, b.String())
}

// traceTime shows an event time as a timestamp in the session time zone
// (UTC), 2025-03-27 12:00:05; the maximum watermark is the end of input.
func traceTime(ms int64) string { return timeline.FormatTime(ms) }

// describeState shows a key's value state without changing it: live
// values encoded, others as stored, or (default).
func (o *PtfOp) describeState(ks *keyState) string {
	if ks == nil || o.codec == nil {
		return "-"
	}
	var parts []string
	for i, sd := range o.Node.Def.State {
		if sd.Kind != ptf.ValueState {
			parts = append(parts, sd.Name+"=("+[...]string{"value", "list", "map"}[sd.Kind]+" view)")
			continue
		}
		v := "(default)"
		switch {
		case ks.ents[i].loaded && ks.ents[i].val != nil:
			if b, err := o.codec.AppendState(nil, i, ks.ents[i].val); err == nil {
				v = readable(o.codec, b)
			}
		case !ks.ents[i].loaded && o.mayBeStored(ks.enc):
			err := o.Ex.Store.View(func(tx state.Tx) error {
				b, err := o.readStored(tx, i, ks.enc)
				if err == nil && len(b) > 8 {
					v = readable(o.codec, b[8:]) // after the 8-byte write time
				}
				return err
			})
			if err != nil {
				v = "(unreadable: " + err.Error() + ")" // the call that reads it reports the error
			}
		}
		parts = append(parts, sd.Name+"="+v)
	}
	return strings.Join(parts, " ")
}

// readable shows an encoded state value as its codec renders it, else as
// hex.
func readable(codec ptf.StateCodec, b []byte) string {
	if d, ok := codec.(ptf.StateDescriber); ok {
		if s, ok := d.DescribeState(b); ok {
			return s
		}
	}
	return fmt.Sprintf("x'%x'", b)
}
