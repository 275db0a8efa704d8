package ptfop

import (
	"encoding/binary"
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// host serves the calls of a PTF (eval, onTimer) with what they ask of the
// runtime through their [ptf.Context]: the input, the key, state, timers,
// event time, output. It is the operator seen from inside a call, a type
// of its own so that the operator's methods are the operator's.
type host struct{ o *Operator }

var _ ptf.Host = host{}

func (h host) Input() int {
	if h.o.bind == nil {
		return -1
	}
	return h.o.bind.Decl
}

func (h host) Key() []any {
	o := h.o
	if o.cur == nil {
		return nil
	}
	return o.cur.key
}

func (h host) Collect(r types.Row) error {
	o := h.o
	n := o.node
	if !n.Mode.Contains(r.Kind) {
		return fmt.Errorf("Invalid row kind received: %s. Expected produced changelog mode: %s", r.Kind, n.Mode)
	}
	if len(r.Fields) != n.FnOut.Len() {
		return fmt.Errorf("collect: expected %d output column(s) %v, got %d value(s)", n.FnOut.Len(), n.FnOut.Names(), len(r.Fields))
	}
	// The output's fields come from a slab (one allocation per block of
	// rows), and the event is built in the queue: an observer gets a
	// pointer to it there, so nothing of a row escapes on its own.
	out := o.appendPrefix(o.slab.Fields(n.Sch.Len())[:0])
	out = append(out, r.Fields...)
	if n.Rowtime {
		out = append(out, o.rowtime())
	}
	o.out = append(o.out, exec.Event{Kind: exec.EvRow, Row: types.Row{Kind: r.Kind, Fields: out}})
	if o.obs != nil {
		o.obs.RowOut(view{o}, &o.out[len(o.out)-1])
	}
	return nil
}

// appendPrefix appends the key columns (or pass-through columns) of the
// output to p.
func (o *Operator) appendPrefix(p []any) []any {
	n := o.node
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

func (h host) State(i int) (any, error) {
	o := h.o
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
	ttl := o.ttl[i]
	var now int64
	if ttl > 0 {
		now = o.ex.Now()
		if e.loaded && e.val != nil && now-e.touched > ttl {
			e.val = nil // expired: never returned, a fresh default instead
		}
	}
	e.touched = now
	if e.loaded && e.val != nil {
		return e.val, nil
	}
	if !e.loaded && o.mayBeStored(ks.enc) {
		data, err := o.readStored(i, ks.enc)
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
				return nil, fmt.Errorf("state %q: %w", o.node.Def.State[i].Name, err)
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

func (h host) SetState(i int, v any) {
	o := h.o
	if ks := o.cur; ks != nil && i >= 0 && i < len(ks.ents) {
		e := &ks.ents[i]
		e.val, e.loaded, e.touched, ks.dirty = v, true, 0, true
		if o.ttl[i] > 0 {
			e.touched = o.ex.Now() // the TTL counts from this write
		}
	}
}

func (h host) ClearState(i int) {
	o := h.o
	if ks := o.cur; ks != nil && i >= 0 && i < len(ks.ents) {
		ks.ents[i].cleared, ks.dirty = true, true
	}
}

func (h host) ClearAllState() {
	o := h.o
	for i := range o.node.Def.State {
		h.ClearState(i)
	}
}

func (h host) Semantics(arg int) (ptf.TableSemantics, bool) {
	o := h.o
	for _, t := range o.node.Tables {
		if t.Decl == arg {
			return t.Sem, true
		}
	}
	return ptf.TableSemantics{}, false
}

func (h host) ChangelogMode() types.ChangelogMode { return h.o.node.Mode }

// rowtime is the rowtime output value: the input row's on_time column, or
// the firing timer's time typed like it.
func (o *Operator) rowtime() any {
	if o.firing != nil {
		if o.node.RowtimeType.Kind == types.KindTimestamp {
			return types.LocalDateTime{Millis: o.firing.time}
		}
		return types.Instant{Millis: o.firing.time}
	}
	if o.bind == nil || o.bind.Sem.TimeColumn < 0 {
		return nil
	}
	return o.row.Fields[o.bind.Sem.TimeColumn]
}

func (h host) Time() (int64, bool) {
	o := h.o
	if o.firing != nil {
		return o.firing.time, true
	}
	if o.bind == nil || o.bind.Sem.TimeColumn < 0 {
		o.noTime = true
		return 0, false
	}
	return types.TimeMillis(o.row.Fields[o.bind.Sem.TimeColumn])
}

func (h host) CurrentWatermark() (int64, bool) { return h.o.wm, h.o.hasWM }

func (h host) TableWatermark() (int64, bool) {
	o := h.o
	if o.firing != nil || o.bind == nil || !o.inHas[o.bi] {
		return 0, false
	}
	return o.inWM[o.bi], true
}

func (h host) CurrentTimer() (string, bool) {
	o := h.o
	if o.firing == nil || !o.firing.named {
		return "", false
	}
	return o.firing.name, true
}

func (h host) NoteDropped(reason string) {
	if o := h.o; o.obs != nil {
		o.obs.Dropped(view{o}, reason)
	}
}

func (h host) RegisterOnTime(name string, named bool, ts int64) error {
	o := h.o
	if err := o.timersAllowed(); err != nil {
		return err
	}
	if o.noTime && o.firing == nil {
		// On Flink time() is null here and time() + 60000 fails; in
		// JavaScript it is 60000, a timer in 1970 that would fire at once.
		// A timer at a time of its own (registerOnTime(1000)) is fine.
		return fmt.Errorf("registerOnTime after time() gave null: the call passes no on_time argument, so its rows have no event time to count a timer from (null + 60000 is a time in 1970); pass on_time => DESCRIPTOR(column) to the call")
	}
	if o.obs != nil {
		o.obs.TimerSet(view{o}, timerOf(name, named, ts))
	}
	o.timers.register(o.cur, name, named, ts)
	return nil
}

func (h host) ClearTimer(name string, named bool, ts int64) error {
	o := h.o
	if err := o.timersAllowed(); err != nil {
		return err
	}
	if o.obs != nil {
		o.obs.TimerCleared(view{o}, timerOf(name, named, ts), false)
	}
	o.timers.clear(o.cur, name, named, ts)
	return nil
}

func (h host) ClearAllTimers() error {
	o := h.o
	if err := o.timersAllowed(); err != nil {
		return err
	}
	if o.obs != nil {
		o.obs.TimerCleared(view{o}, exec.Timer{}, true)
	}
	o.timers.clearKey(o.cur)
	return nil
}

// timersAllowed applies Flink's rule: timers only when every table argument
// has set semantics and none passes columns through.
func (o *Operator) timersAllowed() error {
	ok := len(o.node.Tables) > 0 && o.cur != nil
	for _, t := range o.node.Tables {
		ok = ok && t.Set && !t.Pass
	}
	if !ok {
		return fmt.Errorf("%w: Timers are not supported in the current PTF declaration. Note that only PTFs that take set semantic tables support timers. Also timers are not available for advanced traits such as supporting pass-through columns or updates.", ptf.ErrNoTimers)
	}
	return nil
}

// timerOf is a timer as observers see it: a name only when it is named.
func timerOf(name string, named bool, ts int64) exec.Timer {
	if !named {
		name = ""
	}
	return exec.Timer{Name: name, Named: named, Time: ts}
}

// List and map state: the operator's views (views.go, views_map.go) at the
// key of the running call.

func (h host) ListSize(i int) (int, error) { return h.o.views.ListSize(h.o.cur, i) }

func (h host) ListSlice(i, from, max int) ([]any, error) {
	o := h.o
	return o.views.ListSlice(o.cur, i, from, max)
}

func (h host) ListAdd(i int, vs []any) error { return h.o.views.ListAdd(h.o.cur, i, vs) }

func (h host) ListClear(i int) error { return h.o.views.ListClear(h.o.cur, i) }

func (h host) MapGet(i int, k any) (any, bool, error) { return h.o.views.MapGet(h.o.cur, i, k) }

func (h host) MapPut(i int, keys, vals []any) error { return h.o.views.MapPut(h.o.cur, i, keys, vals) }

func (h host) MapRemove(i int, k any) error { return h.o.views.MapRemove(h.o.cur, i, k) }

func (h host) MapClear(i int) error { return h.o.views.MapClear(h.o.cur, i) }

func (h host) MapIter(i int) (ptf.MapCursor, error) { return h.o.views.MapIter(h.o.cur, i) }
