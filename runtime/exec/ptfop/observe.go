package ptfop

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// The operator's observers: the trace (trace.go), the timeline
// (timeline.go) and lineage (lineage.go) each watch the call through
// [exec.Observer]; the statement's settings say which (newObserver). A
// call with one runs on one worker (parallelReason), so that its events
// come in the order they happen.

// newObserver returns the observer of operator o from its execution's
// settings: nil when nothing watches, one observer, or several in turn.
// It keeps the lineage observer in o.lin for the why-not summary.
func newObserver(o *Operator) exec.Observer {
	var obs observers
	ex := o.ex
	if ex.Trace != nil {
		obs = append(obs, &trace{w: escapingWriter{ex.Trace}, filter: ex.Opts.TraceFilter, rows: make([]int64, len(o.node.Tables))})
	}
	if ex.Timeline != nil {
		obs = append(obs, &timelineObserver{rec: ex.Timeline})
	}
	if ex.Opts.Lineage {
		o.lin = newLineage(len(o.node.Tables))
		obs = append(obs, o.lin)
	}
	switch len(obs) {
	case 0:
		return nil
	case 1:
		return obs[0]
	}
	return obs
}

// observers tells each of several observers every event, in turn.
type observers []exec.Observer

func (m observers) RowIn(c exec.CallView, in int, r types.Row, dropped bool) {
	for _, o := range m {
		o.RowIn(c, in, r, dropped)
	}
}

func (m observers) Watermark(c exec.CallView, in int, prev int64, had bool) {
	for _, o := range m {
		o.Watermark(c, in, prev, had)
	}
}

func (m observers) CallStart(c exec.CallView) {
	for _, o := range m {
		o.CallStart(c)
	}
}

func (m observers) CallEnd(c exec.CallView, err error) {
	for _, o := range m {
		o.CallEnd(c, err)
	}
}

func (m observers) RowOut(c exec.CallView, ev *exec.Event) {
	for _, o := range m {
		o.RowOut(c, ev)
	}
}

func (m observers) TimerSet(c exec.CallView, t exec.Timer) {
	for _, o := range m {
		o.TimerSet(c, t)
	}
}

func (m observers) Dropped(c exec.CallView, reason string) {
	for _, o := range m {
		o.Dropped(c, reason)
	}
}

func (m observers) TimerCleared(c exec.CallView, t exec.Timer, all bool) {
	for _, o := range m {
		o.TimerCleared(c, t, all)
	}
}

// view is the operator as its observer sees it.
type view struct{ o *Operator }

var _ exec.CallView = view{}

func (v view) Function() string { return v.o.node.Fn }

// Name names the call in the timeline and the notes: the function, and
// its uid when that is another name, so that two calls of one function in
// a query have lanes of their own.
func (v view) Name() string {
	n := v.o.node
	if n.UID != "" && n.UID != n.Fn {
		return n.Fn + " (uid " + n.UID + ")"
	}
	return n.Fn
}

func (v view) Inputs() int { return len(v.o.node.Tables) }

func (v view) InputName(i int) string { return v.o.node.Tables[i].sourceName() }

func (v view) InputSchema(i int) types.Schema { return v.o.node.Tables[i].In.Schema() }

func (v view) Schema() types.Schema { return v.o.node.Sch }

func (v view) RowTime(i int, r types.Row) (int64, bool) {
	o := v.o
	if o.timeCols == nil {
		for _, b := range o.node.Tables {
			o.timeCols = append(o.timeCols, b.timeColumn())
		}
	}
	col := o.timeCols[i]
	if col < 0 || col >= len(r.Fields) {
		return 0, false
	}
	return types.TimeMillis(r.Fields[col])
}

func (v view) PartitionKey(i int, r types.Row) ([]any, bool) {
	b := &v.o.node.Tables[i]
	if len(b.Partition) == 0 {
		return nil, false // row semantics, or no PARTITION BY
	}
	return keycodec.Pick(r, b.Partition), true
}

func (v view) Watermark() (int64, bool) { return v.o.wm, v.o.hasWM }

func (v view) InputWatermark(i int) (int64, bool) { return v.o.inWM[i], v.o.inHas[i] }

func (v view) Key() ([]any, bool) {
	if v.o.cur == nil {
		return nil, false
	}
	return v.o.cur.key, true
}

func (v view) Input() (int, types.Row, bool) {
	o := v.o
	if o.bind == nil || o.firing != nil {
		return 0, types.Row{}, false
	}
	return o.bi, o.row, true
}

func (v view) Firing() (exec.Timer, bool) {
	if t := v.o.firing; t != nil {
		return timerOf(t.name, t.named, t.time), true
	}
	return exec.Timer{}, false
}

func (v view) KeyTimers(f func(exec.Timer)) {
	ks := v.o.cur
	if ks == nil {
		return
	}
	for _, t := range ks.named {
		f(exec.Timer{Name: t.name, Named: true, Time: t.time})
	}
	for _, t := range ks.unnamed {
		f(exec.Timer{Time: t.time})
	}
}

func (v view) PendingTimers(f func(key []any, t exec.Timer)) int {
	ts := &v.o.timers
	for _, t := range ts.q {
		if !t.dead {
			f(t.ks.key, timerOf(t.name, t.named, t.time))
		}
	}
	return ts.n
}

func (v view) ProcessingTime() (int64, bool) {
	if !v.o.ex.SteppedClock {
		return 0, false
	}
	return v.o.ex.Now(), true
}

func (v view) State() (string, bool) {
	if len(v.o.node.Def.State) == 0 {
		return "", false
	}
	return v.o.describeState(v.o.cur), true
}

// describeState shows a key's value state without changing it: live
// values encoded, others as stored, or (default).
func (o *Operator) describeState(ks *keyState) string {
	if ks == nil || o.codec == nil {
		return "-"
	}
	var parts []string
	for i, sd := range o.node.Def.State {
		if sd.Kind != ptf.ValueState {
			parts = append(parts, sd.Name+"=("+stateKindName(sd.Kind)+" view)")
			continue
		}
		v := "(default)"
		switch {
		case ks.ents[i].loaded && ks.ents[i].val != nil:
			if b, err := o.codec.AppendState(nil, i, ks.ents[i].val); err == nil {
				v = readable(o.codec, b)
			}
			if x, ok := o.expired(i, ks.ents[i].touched); ok {
				v = x
			}
		case !ks.ents[i].loaded && o.mayBeStored(ks.enc):
			b, err := o.readStored(i, ks.enc)
			if err == nil && len(b) > 8 {
				v = readable(o.codec, b[8:]) // after the 8-byte write time
				if x, ok := o.expired(i, int64(binary.BigEndian.Uint64(b))); ok {
					v = x
				}
			}
			if err != nil {
				v = "(unreadable: " + err.Error() + ")" // the call that reads it reports the error
			}
		}
		parts = append(parts, sd.Name+"="+v)
	}
	return strings.Join(parts, " ")
}

// expired describes state entry i, last written at processing time
// written, when its TTL has passed: the call that reads it gets its
// default.
func (o *Operator) expired(i int, written int64) (string, bool) {
	ttl := o.ttl[i]
	if ttl <= 0 {
		return "", false
	}
	now := o.ex.Now()
	if now-written <= ttl {
		return "", false
	}
	return "(expired: written " + timeline.FormatTime(written) + ", " + timeline.FormatDuration(ttl) + " to live; the call gets its default)", true
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

// lateReason says why the row of the running eval is late, or "".
func lateReason(c exec.CallView) string {
	i, r, ok := c.Input()
	wm, hasWM := c.Watermark()
	if !ok || !hasWM {
		return ""
	}
	ts, ok := c.RowTime(i, r)
	if !ok || ts > wm {
		return ""
	}
	rel := "<"
	if ts == wm {
		rel = "="
	}
	return fmt.Sprintf("late: ts %s %s watermark %s", timeline.FormatTime(ts), rel, timeline.FormatTime(wm))
}

// keyText is a key as the observers show it ("" for none).
func keyText(key []any, ok bool) string {
	if !ok {
		return ""
	}
	return exec.FormatKey(key)
}

// timerName names a timer for people: timer 'name', or unnamed timer.
func timerName(t exec.Timer) string {
	if t.Named {
		return "timer '" + t.Name + "'"
	}
	return "unnamed timer"
}
