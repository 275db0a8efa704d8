package ptfop

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// keyState is the live state of one partition key: its value-state
// entries and its timers.
type keyState struct {
	key     []any
	enc     []byte // never changed: keyedState.keys shares its bytes
	ents    []stateEntry
	one     [1]stateEntry // ents of a function with one state entry
	oneKey  [1]any        // key of a call partitioned by one column
	slot    int           // the key's place in keyedState.live
	dirty   bool
	noted   bool // in keyedState.written (noteWritten) already
	ref     bool // used since the eviction's hand last passed (second chance)
	warm    bool // evicted but kept for its timers: its values wait in its warm record
	named   map[string]*timer
	unnamed map[int64]*timer
}

// stateEntry is one value-state entry of a live key.
type stateEntry struct {
	val     any
	touched int64 // processing time of the last write, for TTL
	loaded  bool
	cleared bool
}

// Operator runs one PTF call: it pulls events from its inputs, calls Eval for
// rows and OnTimer for timers as the watermark passes them, and hands out
// what the function collected followed by the watermark.
type Operator struct {
	keyedState // value state by partition key (keyed.go, cache.go)

	node *Node
	inst ptf.PTF
	// cb is inst as a consoleBuffer (nil: it is none), once cbSet: a
	// type assertion per call was 2 % of a keyed call's CPU.
	cb     consoleBuffer
	cbSet  bool
	ex     *exec.Execution
	ctx    *ptf.Context
	ins    []exec.Stream
	ended  []bool
	turn   int
	idled  bool // the last step read an EvIdle: a batch ends there
	out    []exec.Event
	oi     int
	done   bool
	evaled bool // a PTF without tables ran its one call

	ttl []int64 // per state entry, milliseconds of processing time; 0: none
	// loadedTimers: timers came from the store, so saving must rewrite them.
	loadedTimers bool

	views viewState // list and map state (views.go, views_map.go)

	quiet int           // input rows since the last output or tick
	heads []*exec.Event // with on_time: the next row of each input, by time

	// obs watches the calls (observe.go): the trace, the timeline,
	// lineage; nil when nothing does. lin is the lineage observer, for
	// the why-not summary, and timeCols each input's event-time column
	// (view.RowTime).
	obs      exec.Observer
	lin      *lineage
	timeCols []int

	eventClock               // the operator's watermarks (watermark.go)
	timers     timerService  // timers by time and by key (timers.go)
	buffers    []*sortBuffer // per input, for ORDER BY (sortbuffer.go)
	notesBase  []int64       // each buffer's drops before MarkNotes
	firing     *timer        // the timer whose onTimer runs
	noTime     bool          // the running eval asked for time() and got none
	rec        *parRec       // a parallel worker's record of its calls (parallel.go)
	// restoredOut: after a restart, the watermark it had handed on went
	// on again as Restored.
	restoredOut bool

	// stepErr is the error of a batch of steps, returned once the output
	// of the steps before it is handed on.
	stepErr error
	// cons is the console output of a batch's steps, printed before the
	// rows of the step that printed it.
	cons consoleQueue

	// the current call
	cur  *keyState
	row  types.Row
	bind *TableBinding
	bi   int // index of bind in node.tables

	slab types.RowSlab // the field slices of the rows the calls collect
}

var _ exec.Call = (*Operator)(nil)

func (o *Operator) Next() (exec.Event, error) {
	for {
		if !o.cons.empty() {
			at := o.oi
			if at >= len(o.out) {
				at = -1
			}
			if err := o.cons.replay(at); err != nil {
				return exec.Event{}, err
			}
		}
		if ev, ok := o.pop(); ok {
			return ev, nil
		}
		if err := o.stepErr; err != nil {
			return exec.Event{}, err
		}
		if o.done {
			return exec.Event{Kind: exec.EvEnd}, nil
		}
		if err := o.steps(); err != nil {
			if errors.Is(err, ptf.ErrInterrupted) {
				return exec.Event{}, err // cancelled: nothing more goes on
			}
			// The rows before the failing one go on first, as they would
			// have one step at a time.
			o.stepErr = err
		}
	}
}

// batchSteps bounds the steps of one batch, and batchOut the output it
// may queue: a batch ends as soon as it has output, or after these.
const (
	batchSteps = 256
	batchOut   = 256
)

// steps runs one step, or, for a function that batches its calls
// ([ptf.Batcher]), up to batchSteps in one batch while the output stays
// under batchOut rows. A paced source (Execution.Paced) batches nothing:
// its rows' output must not wait for the next row.
func (o *Operator) steps() error {
	if err := o.compactValues(); err != nil {
		return err
	}
	b, ok := o.inst.(ptf.Batcher)
	if !ok || o.ex.Paced {
		return o.step()
	}
	return b.Batch(o.stepRun)
}

func (o *Operator) stepRun() error {
	_, err := o.stepRunN(batchSteps, batchOut)
	return err
}

// stepRunN runs up to steps steps while the queued output stays under out
// rows; it returns how many it ran.
func (o *Operator) stepRunN(steps, out int) (n int, err error) {
	cb := o.consoleBuf()
	// A batch ends where a checkpoint is due: the session takes it between
	// events, when every row read is processed and its output handed on.
	o.idled = false
	for ; n < steps && !o.done && !o.idled && len(o.out)-o.oi < out && (n == 0 || !o.ex.CheckpointDue(0)); n++ {
		mark := len(o.out)
		err := o.step()
		if err != nil {
			// The failing step's own output goes nowhere, as when steps
			// run one at a time.
			clear(o.out[mark:])
			o.out = o.out[:mark]
		}
		if cb != nil {
			// What the step's calls printed goes out before its rows.
			if c := cb.TakeConsole(); len(c) > 0 {
				o.cons.add(parConsole{at: mark, b: c, cb: cb})
			}
		}
		if err != nil {
			return n + 1, err
		}
	}
	return n, nil
}

// pop takes the next output from the queue; when none is left it empties
// the queue.
func (o *Operator) pop() (exec.Event, bool) {
	if o.oi < len(o.out) {
		ev := o.out[o.oi]
		o.out[o.oi] = exec.Event{}
		o.oi++
		return ev, true
	}
	o.out, o.oi = o.out[:0], 0
	return exec.Event{}, false
}

// Quiescent reports whether the operator holds no output it has not
// handed on.
func (o *Operator) Quiescent() bool { return o.oi >= len(o.out) && o.stepErr == nil }

// Notes says what a person should know about the call's event time after
// the statement: timers that fired only because the input ended, with no
// watermark seen before; rows that ORDER BY dropped as late.
func (o *Operator) Notes() []string {
	var notes []string
	fn := o.node.Fn
	if o.EndFire > 0 && !o.SawWM {
		notes = append(notes, fmt.Sprintf("note: %s: %s fired only at the end of input, as no watermark arrived before it (declare WATERMARK FOR <column> AS <column> - INTERVAL ... on the table so that timers fire as event time passes)",
			fn, exec.Plural(int64(o.EndFire), "timer")))
	}
	for i, b := range o.buffers {
		if b == nil {
			continue
		}
		dropped := b.Dropped
		if i < len(o.notesBase) {
			dropped -= o.notesBase[i]
		}
		if dropped > 0 {
			notes = append(notes, fmt.Sprintf("note: %s: ORDER BY dropped %s of table argument '%s' that arrived late (at or before the watermark)",
				fn, exec.Plural(dropped, "row"), o.node.Tables[i].Name))
		}
	}
	return notes
}

// MarkNotes makes Notes count the rows ORDER BY drops from now on.
func (o *Operator) MarkNotes() {
	o.notesBase = make([]int64, len(o.buffers))
	for i, b := range o.buffers {
		if b != nil {
			o.notesBase[i] = b.Dropped
		}
	}
}

// WhyNot summarises, after the statement, what did not lead to output:
// rows that came late or that ORDER BY dropped, keys that never emitted,
// timers still pending; "" without lineage.
func (o *Operator) WhyNot() string {
	if o.lin == nil {
		return ""
	}
	return o.lin.whyNot(view{o})
}

// step processes one input event (or the single call of a table-less PTF).
func (o *Operator) step() error {
	n := o.node
	if len(n.Tables) == 0 {
		if o.evaled {
			o.done = true
			return nil
		}
		o.evaled = true
		o.cur, o.bind = nil, nil
		if len(n.Def.State) > 0 {
			o.cur = o.keyState(nil)
		}
		return o.call(types.Row{})
	}
	if len(o.ins) == 1 {
		// One input: readNext comes down to reading it, without handing
		// the event back through its four results (on the stack).
		if o.ended[0] {
			o.done = true
			return nil
		}
		ev, err := o.ins[0].Next()
		if err != nil {
			return err
		}
		if ev.Kind == exec.EvEnd {
			o.ended[0] = true
		}
		return o.process(0, ev)
	}
	i, ev, ok, err := o.readNext()
	if err != nil {
		return err
	}
	if !ok {
		o.done = true
		return nil
	}
	return o.process(i, ev)
}

// readNext reads the next event of the call's inputs, and which input it
// came from; ok is false when every input has ended. A parallel call's
// coordinator reads through it too, so that its workers see the events
// in the order of parallelism 1.
func (o *Operator) readNext() (i int, ev exec.Event, ok bool, err error) {
	if o.node.Rowtime && len(o.ins) > 1 {
		return o.readByTime()
	}
	// Inputs take turns row by row, so that several table arguments
	// interleave deterministically (or, shuffled, in turns drawn at random).
	if o.ex.Shuffle != nil && len(o.ins) > 1 {
		o.turn = o.ex.Shuffle.IntN(len(o.ins))
	}
	idle := -1
	for tries := 0; tries < len(o.ins); tries++ {
		i := o.turn % len(o.ins)
		o.turn++
		if o.ended[i] {
			continue
		}
		ev, err := o.ins[i].Next()
		if err != nil {
			return 0, exec.Event{}, false, err
		}
		if ev.Kind == exec.EvIdle {
			idle = i // a live input with no row now: another may have one
			continue
		}
		if ev.Kind != exec.EvRow {
			o.turn-- // only rows take turns: the input keeps its turn
		}
		if ev.Kind == exec.EvEnd {
			o.ended[i] = true
		}
		return i, ev, true, nil
	}
	if idle >= 0 {
		return idle, exec.Event{Kind: exec.EvIdle}, true, nil
	}
	return 0, exec.Event{}, false, nil
}

// readByTime interleaves several inputs by event time (with on_time): of
// the rows waiting at the head of each input, the earliest goes first
// (ties to the earlier input). Watermarks and ends are handled as they come.
func (o *Operator) readByTime() (int, exec.Event, bool, error) {
	if o.heads == nil {
		o.heads = make([]*exec.Event, len(o.ins))
	}
	idle := -1
	for i := range o.ins {
		if o.ended[i] || o.heads[i] != nil {
			continue
		}
		ev, err := o.ins[i].Next()
		if err != nil {
			return 0, exec.Event{}, false, err
		}
		switch ev.Kind {
		case exec.EvRow:
			o.heads[i] = &ev
			continue
		case exec.EvIdle:
			idle = i // a live input with no row now does not hold the others' back
			continue
		case exec.EvEnd:
			o.ended[i] = true
		}
		return i, ev, true, nil
	}
	best, bestTs := -1, int64(0)
	for i, h := range o.heads {
		if h == nil {
			continue
		}
		ts, _ := types.TimeMillis(h.Row.Fields[o.node.Tables[i].Sem.TimeColumn])
		if best < 0 || ts < bestTs || ts == bestTs && o.ex.Shuffle != nil && o.ex.Shuffle.IntN(2) == 0 {
			best, bestTs = i, ts
		}
	}
	if best < 0 {
		if idle >= 0 {
			return idle, exec.Event{Kind: exec.EvIdle}, true, nil
		}
		return 0, exec.Event{}, false, nil
	}
	ev := *o.heads[best]
	o.heads[best] = nil
	return best, ev, true, nil
}

// process handles one event of input i.
func (o *Operator) process(i int, ev exec.Event) error {
	switch ev.Kind {
	case exec.EvEnd:
		o.ended[i] = true
		if !o.ex.Opts.EndOfInput {
			return nil // stop as with a savepoint: no final watermark, timers stay
		}
		return o.inputWatermark(i, exec.MaxWatermark)
	case exec.EvWatermark:
		o.SawWM = true
		if ev.Restored() && o.inHas[i] && ev.Wm <= o.inWM[i] {
			// A restarted run: this operator kept its watermark in the
			// checkpoint; the one it had handed on goes on again, once,
			// for the operators after it that keep none.
			if o.hasWM && !o.restoredOut && o.rec == nil {
				o.restoredOut = true
				o.out = append(o.out, exec.WatermarkEvent(o.wm, true))
			}
			return nil
		}
		return o.inputWatermark(i, ev.Wm)
	case exec.EvTick:
		o.out = append(o.out, ev)
		return nil
	case exec.EvIdle:
		o.idled = true
		o.out = append(o.out, ev)
		return nil
	case exec.EvStatus:
		return o.inputStatus(i, ev.Idle())
	}
	if b := o.buffers[i]; b != nil {
		if o.admit(i, ev.Row, b.seq+1) {
			b.seq++
			o.quietRow()
		}
		return nil
	}
	if o.obs != nil {
		o.obs.RowIn(view{o}, i, ev.Row, false)
	}
	before := len(o.out)
	if err := o.evalRow(i, ev.Row); err != nil {
		return err
	}
	if len(o.out) == before {
		o.quietRow()
	}
	return nil
}

// inputStatus marks input i idle or active again (EvStatus): an idle input
// holds the operator's watermark back no more.
func (o *Operator) inputStatus(i int, idle bool) error {
	if o.inIdle == nil {
		o.inIdle, o.inBehind = make([]bool, len(o.inWM)), make([]bool, len(o.inWM))
	}
	if o.inIdle[i] == idle {
		return nil
	}
	o.inIdle[i] = idle
	if !idle {
		o.inBehind[i] = true // it holds the watermark back once it caught up
		return nil
	}
	return o.advance(i)
}

// admit puts a row of input i, which has ORDER BY, into the input's
// buffer as the seq-th to arrive, or drops it when it is late (at or
// behind the input's watermark) or has no time; it reports whether it
// kept the row.
func (o *Operator) admit(i int, r types.Row, seq uint64) bool {
	b := o.buffers[i]
	ts, ok := types.TimeMillis(r.Fields[b.timeCol])
	if !ok || (o.inHas[i] && ts <= o.inWM[i]) {
		b.Dropped++ // late (or without time): ORDER BY drops it
		if o.obs != nil {
			o.obs.RowIn(view{o}, i, r, true)
		}
		return false
	}
	if o.obs != nil {
		o.obs.RowIn(view{o}, i, r, false)
	}
	b.addSeq(r, ts, seq)
	return true
}

// quietRow counts an input row that gave no output, and every quietRows
// of them hands control back with an EvTick.
func (o *Operator) quietRow() {
	if o.quiet++; o.quiet >= quietRows {
		o.quiet = 0
		o.out = append(o.out, exec.Event{Kind: exec.EvTick})
	}
}

// quietRows is how many input rows without output an operator consumes
// before it hands control back with an EvTick.
const quietRows = 1024

// evalRow calls Eval for a row of input i.
func (o *Operator) evalRow(i int, r types.Row) error { return o.evalRowKey(i, r, nil) }

// evalRowKey is evalRow with the row's encoded partition key, when the
// caller has it (enc not nil).
func (o *Operator) evalRowKey(i int, r types.Row, enc []byte) error {
	b := &o.node.Tables[i]
	o.bind, o.bi, o.row = b, i, r
	o.cur, o.noTime = nil, false
	switch {
	case enc != nil:
		o.cur = o.lookupEnc(enc, r, b.Partition, o.cur)
	case b.Set || len(o.node.Def.State) > 0:
		o.cur = o.lookupRow(r, b.Partition, o.cur)
	}
	return o.call(r)
}

// inputWatermark advances input i's watermark to w: its ORDER BY buffer
// hands out the rows due (the function still sees the old watermark),
// then the operator's watermark, the minimum over the inputs, advances and
// fires the timers due before it is forwarded.
func (o *Operator) inputWatermark(i int, w int64) error {
	if o.inHas[i] && w <= o.inWM[i] {
		return nil
	}
	if b := o.buffers[i]; b != nil {
		for {
			e, ok := b.pop(w)
			if !ok {
				break
			}
			o.recStart()
			err := o.evalRow(i, e.row)
			o.recRow(e, err)
			if err != nil {
				return err
			}
		}
	}
	o.inWM[i], o.inHas[i] = w, true
	return o.advance(i)
}

// advance moves the operator's watermark to the least of its inputs'
// (an input without a watermark holds it back) and fires the timers due.
// An idle input holds nothing back, and one that came back from idle
// behind the operator's watermark only once it caught up (Flink's
// StatusWatermarkValve); when every input is idle the greatest counts.
func (o *Operator) advance(i int) error {
	min := int64(exec.MaxWatermark)
	active := false
	for j := range o.inWM { // a parallel worker has no Ins of its own
		if o.inIdle != nil && (o.inIdle[j] || o.inBehind[j] && o.inHas[j] && o.hasWM && o.inWM[j] < o.wm) {
			continue
		}
		if o.inBehind != nil {
			o.inBehind[j] = false
		}
		active = true
		if !o.inHas[j] {
			return nil // an input without a watermark holds the operator's back
		}
		if o.inWM[j] < min {
			min = o.inWM[j]
		}
	}
	if !active {
		min = exec.MinWatermark
		for j := range o.inWM {
			if o.inHas[j] && o.inWM[j] > min {
				min = o.inWM[j]
			}
		}
		if min == exec.MinWatermark {
			return nil
		}
	}
	if o.hasWM && min <= o.wm {
		return nil
	}
	prev, had := o.wm, o.hasWM
	o.wm, o.hasWM = min, true
	if o.obs != nil {
		o.obs.Watermark(view{o}, i, prev, had)
	}
	if err := o.fireTimers(); err != nil {
		return err
	}
	if min != exec.MaxWatermark && o.rec == nil { // a parallel worker's watermarks go out from the coordinator
		o.out = append(o.out, exec.Event{Kind: exec.EvWatermark, Wm: min})
	}
	return nil
}

// fireTimers calls OnTimer for every timer due at the current watermark,
// in time order; timers that onTimer registers at or before it fire in the
// same pass.
func (o *Operator) fireTimers() error {
	// The runaway guard counts the firings of timers that onTimer
	// registered during this pass: timers registered before it, however
	// many keys hold them, are no loop.
	limit := o.ex.Opts.MaxTimerFirings
	before, fired := o.timers.seq, 0
	for t := o.timers.Next(o.wm); t != nil; t = o.timers.Next(o.wm) {
		o.recStart()
		if t.seq > before {
			fired++
		}
		if limit > 0 && fired > limit {
			err := o.runawayError(o.wm)
			o.recFire(t, err)
			return err
		}
		if o.wm == exec.MaxWatermark {
			o.EndFire++
		}
		o.promote(t.ks)
		o.firing, o.cur, o.bind = t, t.ks, nil
		if o.obs != nil {
			o.obs.CallStart(view{o})
		}
		mark := len(o.out)
		err := o.inst.OnTimer(o.ctx)
		o.takeConsole(mark)
		o.endCall(o.cur)
		if o.obs != nil {
			o.obs.CallEnd(view{o}, err)
		}
		o.firing = nil
		if err != nil {
			err = o.callError(err)
		}
		o.recFire(t, err)
		if err != nil {
			return err
		}
		if o.rec == nil { // a parallel worker's record keeps its timers
			o.timers.release(t)
		}
	}
	return nil
}

// runawayError is the error of a watermark wm at which more timers that
// onTimer registered fired than ptfsh.timers.max-firings allows.
func (o *Operator) runawayError(wm int64) error {
	return types.At(o.node.Pos, fmt.Errorf("%s: more than %d timers that onTimer registered fired at watermark %d: does onTimer keep registering timers in the past? (raise SET 'ptfsh.timers.max-firings' if this is intended)", o.node.Fn, o.ex.Opts.MaxTimerFirings, wm))
}

func (o *Operator) call(r types.Row) error {
	if err := o.evictErr; err != nil {
		return types.At(o.node.Pos, err)
	}
	if o.obs != nil {
		o.obs.CallStart(view{o})
	}
	mark := len(o.out)
	err := o.inst.Eval(o.ctx, r)
	o.takeConsole(mark)
	if o.cur != nil {
		o.endCall(o.cur)
	}
	if o.obs != nil {
		o.obs.CallEnd(view{o}, err)
	}
	if err != nil {
		return o.callError(err)
	}
	return nil
}

// takeConsole keeps what a call of a function that batches its calls
// printed, to go out just before the call's output (at mark): each call's
// lines in their place among the rows, as one call at a time prints
// them. A parallel worker keeps it in its record instead.
func (o *Operator) takeConsole(mark int) {
	if o.rec != nil {
		return
	}
	if cb := o.consoleBuf(); cb != nil {
		if c := cb.TakeConsole(); len(c) > 0 {
			o.cons.add(parConsole{at: mark, b: c, cb: cb})
		}
	}
}

// consoleBuf is the call's instance as a consoleBuffer, or nil.
func (o *Operator) consoleBuf() consoleBuffer {
	if !o.cbSet {
		o.cb, _ = o.inst.(consoleBuffer)
		o.cbSet = true
	}
	return o.cb
}

// callError adds the partition key and the input row to a PTF's error.
func (o *Operator) callError(err error) error {
	if errors.Is(err, ptf.ErrInterrupted) {
		return types.At(o.node.Pos, err)
	}
	var where []string
	if o.cur != nil && len(o.cur.key) > 0 {
		where = append(where, "key ("+exec.FormatKey(o.cur.key)+")")
	}
	if o.firing != nil {
		name := "unnamed timer"
		if o.firing.named {
			name = "timer '" + o.firing.name + "'"
		}
		where = append(where, fmt.Sprintf("%s at %d", name, o.firing.time))
	} else if o.bind != nil {
		where = append(where, "input row "+types.FormatRow(o.row, o.bind.In.Schema()))
	}
	if len(where) == 0 {
		return types.At(o.node.Pos, err)
	}
	// The key and row are data: their control characters are escaped.
	return types.At(o.node.Pos, &CallError{Err: err, Where: types.EscapeControls(strings.Join(where, ", "))})
}

// CallError is a PTF error with the key and row it happened at.
type CallError struct {
	Err   error
	Where string
}

func (e *CallError) Error() string { return e.Err.Error() + " (at " + e.Where + ")" }
func (e *CallError) Unwrap() error { return e.Err }

// endCall applies clearState requests once the call has returned.
func (o *Operator) endCall(ks *keyState) {
	o.views.endCall(ks)
	for i := range ks.ents {
		if e := &ks.ents[i]; e.cleared {
			e.val, e.loaded, e.cleared = nil, true, false
			ks.dirty = true
		}
	}
}

func (o *Operator) keyState(key []any) *keyState { return o.lookup(key, o.cur) }

// loadTimers reads the timers a previous statement or run left.
func (o *Operator) loadTimers() error {
	// Co-partitioned tables share the key's types: the first table's are
	// the key's (timers need set semantics, so there is one).
	t := o.node.Tables[0]
	var types []types.Type
	for _, k := range t.Partition {
		types = append(types, t.In.Schema().Columns[k].Type)
	}
	o.loading = true
	defer func() { o.loading = false }()
	err := o.ex.Store.View(func(tx state.Tx) error {
		return o.timers.load(tx, o.node.UID, func(enc []byte) (*keyState, error) {
			if slot := o.keys[string(enc)]; slot.ks != nil {
				return slot.ks, nil
			}
			key, err := keycodec.Decode(enc, types)
			if err != nil {
				return nil, err
			}
			return o.keyState(key), nil
		})
	})
	if err != nil {
		return fmt.Errorf("%s: reading timers: %w", o.node.Fn, err)
	}
	o.loadedTimers = o.timers.n > 0
	return nil
}

// Flush writes every changed state value to the store in one transaction.
// flush writes the changed state and the timers to tx; final marks the
// end of the statement (finished when its input ended).
func (o *Operator) Flush(tx state.Tx, final bool) error {
	if err := o.flushMeta(tx, final); err != nil {
		return err
	}
	if o.node.UID != "" && (o.timers.n > 0 || o.loadedTimers) {
		if err := o.timers.save(tx, o.node.UID); err != nil {
			return err
		}
	}
	if err := o.flushState(tx, final); err != nil {
		return err
	}
	if final {
		o.release() // the statement is over (keyed.go)
	}
	return nil
}

// flushMeta writes whether the statement finished and the operator's
// watermarks to tx.
func (o *Operator) flushMeta(tx state.Tx, final bool) error {
	if o.node.UID == "" {
		return nil
	}
	if err := markFinished(tx, o.node.UID, final && o.ex.Opts.EndOfInput); err != nil {
		return err
	}
	return o.saveWatermarks(tx, final)
}

// flushState writes the operator's changed state (not its timers) to tx;
// final: the statement's last checkpoint.
func (o *Operator) flushState(tx state.Tx, final bool) error {
	if err := o.views.flush(tx); err != nil {
		return err
	}
	for i, b := range o.buffers {
		if b != nil && o.node.UID != "" {
			if err := b.save(tx, exec.SortBufferNamespace(o.node.UID, o.node.Tables[i].Name)); err != nil {
				return err
			}
		}
	}
	return o.flushValues(tx, final)
}

func (o *Operator) Close() error {
	var first error
	for _, in := range o.ins {
		if err := in.Close(); err != nil && first == nil {
			first = err
		}
	}
	if c, ok := o.inst.(interface{ Close() error }); ok {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// opWatermarks is what a checkpoint keeps of an operator's event time while
// its statement runs, so that a killed statement run again sees the
// watermarks an uninterrupted run sees. The last checkpoint of a statement
// drops it: a statement stopped without end of input hands the next one its
// state and timers but not its watermark, as a Flink job restored from a
// savepoint starts without one.
type opWatermarks struct {
	WM    int64   `json:"wm"`
	Has   bool    `json:"has"`
	In    []int64 `json:"in"`
	InHas []bool  `json:"inHas"`
	SawWM bool    `json:"sawWM"`
}

func (o *Operator) saveWatermarks(tx state.Tx, final bool) error {
	if final {
		return tx.Delete(exec.MetaNamespace, exec.WatermarkKey(o.node.UID))
	}
	b, err := json.Marshal(opWatermarks{WM: o.wm, Has: o.hasWM, In: o.inWM, InHas: o.inHas, SawWM: o.SawWM})
	if err != nil {
		return err
	}
	return tx.Put(exec.MetaNamespace, exec.WatermarkKey(o.node.UID), b)
}

func (o *Operator) loadWatermarks() error {
	var w *opWatermarks
	err := o.ex.Store.View(func(tx state.Tx) error {
		b, err := tx.Get(exec.MetaNamespace, exec.WatermarkKey(o.node.UID))
		if err != nil || b == nil {
			return err
		}
		w = &opWatermarks{}
		return json.Unmarshal(b, w)
	})
	if err != nil {
		return fmt.Errorf("%s: reading its checkpointed watermarks: %w", o.node.Fn, err)
	}
	if w == nil || len(w.In) != len(o.inWM) || len(w.InHas) != len(o.inHas) {
		return nil // none, or a call with other inputs: start without
	}
	o.wm, o.hasWM, o.SawWM = w.WM, w.Has, w.SawWM
	copy(o.inWM, w.In)
	copy(o.inHas, w.InHas)
	return nil
}

// eventClock is an operator's event time: its watermark, the minimum of
// its inputs' watermarks, each input's (ctx.tableWatermark), and what the
// end-of-statement notes report.
type eventClock struct {
	wm    int64 // the operator's watermark
	hasWM bool
	inWM  []int64 // each input's watermark
	inHas []bool
	// inIdle marks the inputs that are idle (EvStatus), inBehind those
	// back from idle whose watermark has not caught up with the
	// operator's; nil until an input's status first changes.
	inIdle, inBehind []bool
	SawWM            bool // a watermark other than the end of input arrived
	EndFire          int  // timers fired by the end of input
}
