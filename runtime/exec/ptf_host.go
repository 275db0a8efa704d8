package exec

import (
	"encoding/binary"
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// The PTF operator's side of Context (the host interface of context.go):
// what a call of eval or onTimer asks of the runtime.

func (o *PtfOp) Input() int { return o.inputIndex() }

func (o *PtfOp) inputIndex() int {
	if o.bind == nil {
		return -1
	}
	return o.bind.Decl
}

func (o *PtfOp) Key() []any {
	if o.cur == nil {
		return nil
	}
	return o.cur.key
}

func (o *PtfOp) Collect(r types.Row) error {
	n := o.Node
	if !n.Mode.Contains(r.Kind) {
		return fmt.Errorf("Invalid row kind received: %s. Expected produced changelog mode: %s", r.Kind, n.Mode)
	}
	if len(r.Fields) != n.FnOut.Len() {
		return fmt.Errorf("collect: expected %d output column(s) %v, got %d value(s)", n.FnOut.Len(), n.FnOut.Names(), len(r.Fields))
	}
	out := o.appendPrefix(make([]any, 0, n.Sch.Len()))
	out = append(out, r.Fields...)
	if n.Rowtime {
		out = append(out, o.rowtime())
	}
	ev := Event{Kind: EvRow, Row: types.Row{Kind: r.Kind, Fields: out}}
	if o.Ex.Lineage {
		ev.Why = o.cause()
	}
	o.Out = append(o.Out, ev)
	o.noteOut(types.Row{Kind: r.Kind, Fields: out})
	if o.tr != nil {
		o.traceEvent("emitted %s", types.FormatRow(types.Row{Kind: r.Kind, Fields: out}, n.Sch))
	}
	return nil
}

// appendPrefix appends the key columns (or pass-through columns) of the
// output to p.
func (o *PtfOp) appendPrefix(p []any) []any {
	n := o.Node
	if len(n.Tables) == 0 {
		return p
	}
	if o.bind != nil && o.bind.Pass {
		return append(p, o.row.Fields...)
	}
	for _, t := range n.Tables {
		if !t.Set || len(t.Partition) == 0 {
			continue
		}
		if o.cur != nil && len(o.cur.key) == len(t.Partition) {
			p = append(p, o.cur.key...)
		} else {
			p = append(p, make([]any, len(t.Partition))...)
		}
	}
	return p
}

func (o *PtfOp) State(i int) (any, error) {
	ks := o.cur
	if ks == nil {
		return nil, fmt.Errorf("state is only available for tables with set semantics")
	}
	if i < 0 || i >= len(ks.ents) {
		return nil, fmt.Errorf("no state entry %d", i)
	}
	e := &ks.ents[i]
	ks.dirty = true
	// An entry with a TTL reads the clock at every access; one without
	// takes its write time when it is encoded (touched 0: written since),
	// which saves a clock read per call.
	ttl := o.Ttl[i]
	var now int64
	if ttl > 0 {
		now = o.Ex.Now()
		if e.loaded && e.val != nil && now-e.touched > ttl {
			e.val = nil // expired: never returned, a fresh default instead
		}
	}
	e.touched = now
	if e.loaded && e.val != nil {
		return e.val, nil
	}
	if !e.loaded && o.mayBeStored(ks.enc) {
		var data []byte
		err := o.Ex.Store.View(func(tx state.Tx) error {
			var err error
			data, err = o.readStored(tx, i, ks.enc)
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(data) >= 8 {
			written := int64(binary.BigEndian.Uint64(data))
			data = data[8:]
			if ttl > 0 && now-written > ttl {
				data = nil // expired while stored
			}
		}
		if data != nil {
			v, err := o.codec.DecodeState(i, data)
			if err != nil {
				return nil, fmt.Errorf("state %q: %w", o.Node.Def.State[i].Name, err)
			}
			e.val, e.loaded = v, true
			return v, nil
		}
	}
	v, err := o.codec.NewState(i)
	if err != nil {
		return nil, err
	}
	e.val, e.loaded = v, true
	return v, nil
}

func (o *PtfOp) SetState(i int, v any) {
	if ks := o.cur; ks != nil && i >= 0 && i < len(ks.ents) {
		e := &ks.ents[i]
		e.val, e.loaded, e.touched, ks.dirty = v, true, 0, true
		if o.Ttl[i] > 0 {
			e.touched = o.Ex.Now() // the TTL counts from this write
		}
	}
}

func (o *PtfOp) ClearState(i int) {
	if ks := o.cur; ks != nil && i >= 0 && i < len(ks.ents) {
		ks.ents[i].cleared, ks.dirty = true, true
	}
}

func (o *PtfOp) ClearAllState() {
	for i := range o.Node.Def.State {
		o.ClearState(i)
	}
}

func (o *PtfOp) Semantics(arg int) (ptf.TableSemantics, bool) {
	for _, t := range o.Node.Tables {
		if t.Decl == arg {
			return t.Sem, true
		}
	}
	return ptf.TableSemantics{}, false
}

func (o *PtfOp) ChangelogMode() types.ChangelogMode { return o.Node.Mode }

// rowtime is the rowtime output value: the input row's on_time column, or
// the firing timer's time typed like it.
func (o *PtfOp) rowtime() any {
	if o.firing != nil {
		if o.Node.RowtimeType.Kind == types.KindTimestamp {
			return types.LocalDateTime{Millis: o.firing.time}
		}
		return types.Instant{Millis: o.firing.time}
	}
	if o.bind == nil || o.bind.Sem.TimeColumn < 0 {
		return nil
	}
	return o.row.Fields[o.bind.Sem.TimeColumn]
}

func (o *PtfOp) Time() (int64, bool) {
	if o.firing != nil {
		return o.firing.time, true
	}
	if o.bind == nil || o.bind.Sem.TimeColumn < 0 {
		return 0, false
	}
	return types.TimeMillis(o.row.Fields[o.bind.Sem.TimeColumn])
}

func (o *PtfOp) CurrentWatermark() (int64, bool) { return o.wm, o.hasWM }

func (o *PtfOp) TableWatermark() (int64, bool) {
	if o.firing != nil || o.bind == nil || !o.inHas[o.bi] {
		return 0, false
	}
	return o.inWM[o.bi], true
}

func (o *PtfOp) CurrentTimer() (string, bool) {
	if o.firing == nil || !o.firing.named {
		return "", false
	}
	return o.firing.name, true
}

func (o *PtfOp) RegisterOnTime(name string, named bool, ts int64) error {
	if err := o.timersAllowed(); err != nil {
		return err
	}
	o.noteTimerSet(name, named, ts)
	o.timers.register(o.cur, name, named, ts)
	if o.tr != nil { // the arguments cost a formatting each
		o.traceEvent("registered %s at %s", timerName(name, named), traceTime(ts))
	}
	return nil
}

func (o *PtfOp) ClearTimer(name string, named bool, ts int64) error {
	if err := o.timersAllowed(); err != nil {
		return err
	}
	o.noteTimersCleared(name, named, ts, false)
	o.timers.clear(o.cur, name, named, ts)
	switch {
	case o.tr == nil:
	case named:
		o.traceEvent("cleared timer '%s'", name)
	default:
		o.traceEvent("cleared unnamed timer at %s", traceTime(ts))
	}
	return nil
}

func (o *PtfOp) ClearAllTimers() error {
	if err := o.timersAllowed(); err != nil {
		return err
	}
	o.noteTimersCleared("", false, 0, true)
	o.timers.clearKey(o.cur)
	o.traceEvent("cleared all timers")
	return nil
}

// timersAllowed applies Flink's rule: timers only when every table argument
// has set semantics and none passes columns through.
func (o *PtfOp) timersAllowed() error {
	ok := len(o.Node.Tables) > 0 && o.cur != nil
	for _, t := range o.Node.Tables {
		ok = ok && t.Set && !t.Pass
	}
	if !ok {
		return fmt.Errorf("%w: Timers are not supported in the current PTF declaration. Note that only PTFs that take set semantic tables support timers. Also timers are not available for advanced traits such as supporting pass-through columns or updates.", ptf.ErrNoTimers)
	}
	return nil
}

func timerName(name string, named bool) string {
	if named {
		return "timer '" + name + "'"
	}
	return "unnamed timer"
}

// List and map state: the call's views (views.go, views_map.go) at the
// current key.

func (o *PtfOp) ListSize(i int) (int, error) { return o.Views.ListSize(o.cur, i) }

func (o *PtfOp) ListSlice(i, from, max int) ([]any, error) {
	return o.Views.ListSlice(o.cur, i, from, max)
}

func (o *PtfOp) ListAdd(i int, vs []any) error { return o.Views.ListAdd(o.cur, i, vs) }

func (o *PtfOp) ListClear(i int) error { return o.Views.ListClear(o.cur, i) }

func (o *PtfOp) MapGet(i int, k any) (any, bool, error) { return o.Views.MapGet(o.cur, i, k) }

func (o *PtfOp) MapPut(i int, keys, vals []any) error { return o.Views.MapPut(o.cur, i, keys, vals) }

func (o *PtfOp) MapRemove(i int, k any) error { return o.Views.MapRemove(o.cur, i, k) }

func (o *PtfOp) MapClear(i int) error { return o.Views.MapClear(o.cur, i) }

func (o *PtfOp) MapIter(i int) (ptf.MapCursor, error) { return o.Views.MapIter(o.cur, i) }

// ViewsPending returns the number of list elements and map entries waiting
// for a checkpoint (for a checkpoint policy that bounds memory).
func (o *PtfOp) ViewsPending() int { return o.Views.Pending }
