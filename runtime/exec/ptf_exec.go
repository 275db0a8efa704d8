package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// tableBinding is one table argument of a bound PTF call.
type TableBinding struct {
	Decl       int    // index in FuncDef.Args
	Name       string // argument name
	Source     string // the table as the call names it ("subquery" for one)
	In         Node
	Partition  []int
	Sem        ptf.TableSemantics
	Pass       bool     // PASS_COLUMNS_THROUGH
	Set        bool     // set semantics
	OrderNulls []string // NULLS FIRST/LAST of each ORDER BY column as written ("" when not)
}

// ptfNode is a bound PTF call.
type PtfNode struct {
	Def    *ptf.FuncDef
	Fn     string // the name it was called by
	Uid    string
	Args   []any
	Tables []TableBinding
	FnOut  types.Schema // the function's own columns
	Sch    types.Schema // prefix + function columns (+ rowtime)
	Mode   types.ChangelogMode
	Text   string
	// rowtime: the output ends with the on_time column of the input row
	// (or a timer's time), typed rowtimeType.
	Rowtime     bool
	RowtimeType types.Type
	// pos is where the statement calls the function.
	Pos types.Pos
	// orderBy are the ORDER BY keys of each table argument (nil: none).
	OrderBy [][]SortKey
}

func (n *PtfNode) Schema() types.Schema           { return n.Sch }
func (n *PtfNode) Changelog() types.ChangelogMode { return n.Mode }
func (n *PtfNode) Children() []Node {
	var c []Node
	for _, t := range n.Tables {
		c = append(c, t.In)
	}
	return c
}

func (n *PtfNode) Explain() string {
	uid := "null"
	if n.Uid != "" {
		uid = n.Uid
	}
	return "ProcessTableFunction(invocation=[" + n.Text + "], uid=[" + uid + "], select=[" +
		strings.Join(n.Sch.Names(), ",") + "])"
}

// startFresh forgets the state of a uid whose last statement finished, as
// a Flink job that ran to the end of its bounded input leaves nothing to
// restore: a new query starts afresh. A statement stopped without end of
// input (SET 'ptfsh.end-of-input' = 'false'), or killed, leaves its state
// to the next one with the same uid.
func startFresh(store state.Store, uid string) error {
	return store.Update(func(tx state.Tx) error {
		v, err := tx.Get(MetaNamespace, FinishedKey(uid))
		if err != nil || v == nil {
			return err
		}
		if err := DropUID(tx, uid); err != nil {
			return err
		}
		return tx.Delete(MetaNamespace, FinishedKey(uid))
	})
}

// markFinished records whether the statement that used uid ended its input.
func markFinished(tx state.Tx, uid string, finished bool) error {
	if finished {
		return tx.Put(MetaNamespace, FinishedKey(uid), []byte{1})
	}
	return tx.Delete(MetaNamespace, FinishedKey(uid))
}

func (n *PtfNode) Open(ex *Execution) (Stream, error) {
	spec := ptf.CallSpec{Ctx: ex.Ctx, UID: n.Uid, Args: n.Args, Tables: make([]types.Schema, len(n.Def.Args)), Output: n.FnOut}
	for _, t := range n.Tables {
		spec.Tables[t.Decl] = t.In.Schema()
	}
	inst, err := n.Def.New(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.Fn, err)
	}
	ttl := stateTTLs(n, ex)
	op := &PtfOp{Node: n, inst: inst, Ex: ex, keyedState: newKeyedState(n, ex), Views: newViewState(n, ex, ttl), Ttl: ttl}
	op.ctx = ptf.NewContext(op)
	if n.Uid != "" {
		if err := startFresh(ex.Store, n.Uid); err != nil {
			return nil, types.At(n.Pos, fmt.Errorf("%s: %w", n.Fn, err))
		}
		if err := clearSpill(ex.Store, n.Uid); err != nil {
			return nil, types.At(n.Pos, fmt.Errorf("%s: %w", n.Fn, err))
		}
		if len(n.Def.State) > 0 {
			if err := checkEvolution(ex.Store, n.Fn, n.Uid, n.Def.State, ex.DiscardIncompatible); err != nil {
				return nil, types.At(n.Pos, err)
			}
		}
	}
	if len(n.Def.State) > 0 {
		codec, ok := inst.(ptf.StateCodec)
		if !ok {
			return nil, fmt.Errorf("%s declares state but its instance cannot keep state", n.Fn)
		}
		op.codec = codec
		if op.stored, err = op.storeHasState(); err != nil {
			return nil, types.At(n.Pos, fmt.Errorf("%s: %w", n.Fn, err))
		}
	}
	for i := range n.Tables {
		t := &n.Tables[i]
		st, err := t.In.Open(ex)
		if err != nil {
			op.Close()
			return nil, err
		}
		if ex.Shuffle != nil {
			st = newShuffleStream(st, ex.Shuffle, t)
		}
		op.Ins = append(op.Ins, st)
	}
	op.ended = make([]bool, len(op.Ins))
	if ex.Lineage {
		op.lin = newLineage(len(op.Ins))
	}
	op.inWM, op.inHas = make([]int64, len(op.Ins)), make([]bool, len(op.Ins))
	op.Buffers = make([]*sortBuffer, len(op.Ins))
	for i, t := range n.Tables {
		if len(t.Sem.OrderBy) > 0 {
			op.Buffers[i] = newSortBuffer(t.Sem.OrderBy[0], n.OrderBy[i])
			if n.Uid != "" {
				b := op.Buffers[i]
				if err := ex.Store.View(func(tx state.Tx) error { return b.load(tx, sortBufferNamespace(n.Uid, t.Name)) }); err != nil {
					op.Close()
					return nil, types.At(n.Pos, err)
				}
			}
		}
	}
	if n.Uid != "" && HasSetSemantics(n.Tables) {
		if err := op.loadTimers(); err != nil {
			op.Close()
			return nil, err
		}
	}
	if n.Uid != "" {
		if err := op.loadWatermarks(); err != nil {
			op.Close()
			return nil, types.At(n.Pos, err)
		}
	}
	if ex.Parallelism > 1 {
		why := parallelReason(n, ex)
		if why == "" {
			par, err := newParallelOp(op, spec, ex.Parallelism)
			if err != nil {
				return nil, types.At(n.Pos, err)
			}
			ex.Notes = append(ex.Notes, fmt.Sprintf("note: %s ran on %d workers (parallelism %d)", n.Fn, ex.Parallelism, ex.Parallelism))
			ex.Ptfs = append(ex.Ptfs, par)
			return par, nil
		}
		ex.Notes = append(ex.Notes, fmt.Sprintf("note: %s ran on 1 worker (parallelism %d): %s", n.Fn, ex.Parallelism, why))
	}
	ex.Ptfs = append(ex.Ptfs, op)
	return op, nil
}

// stateTTLs returns the time to live of each state entry of call n, in
// milliseconds of processing time (0: none).
func stateTTLs(n *PtfNode, ex *Execution) []int64 {
	ttl := make([]int64, len(n.Def.State))
	for i, sd := range n.Def.State {
		switch {
		case sd.TTLSet:
			ttl[i] = sd.TTL.Milliseconds()
		default:
			ttl[i] = ex.DefaultTTL
		}
	}
	return ttl
}

// keyState is the live state of one partition key: its value-state
// entries and its timers.
type keyState struct {
	key     []any
	enc     []byte // never changed: keyedState.keys shares its bytes
	ents    []stateEntry
	one     [1]stateEntry // ents of a function with one state entry
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

// ptfOp runs one PTF call: it pulls events from its inputs, calls Eval for
// rows and OnTimer for timers as the watermark passes them, and hands out
// what the function collected followed by the watermark.
type PtfOp struct {
	keyedState // value state by partition key (keyed.go, cache.go)

	Node   *PtfNode
	inst   ptf.PTF
	Ex     *Execution
	ctx    *ptf.Context
	Ins    []Stream
	ended  []bool
	turn   int
	Out    []Event
	Oi     int
	done   bool
	Evaled bool // a PTF without tables ran its one call

	Ttl []int64 // per state entry, milliseconds of processing time; 0: none
	// loadedTimers: timers came from the store, so saving must rewrite them.
	loadedTimers bool

	Views viewState // list and map state (views.go, views_map.go)

	quiet int        // input rows since the last output or tick
	heads []*Event   // with on_time: the next row of each input, by time
	tr    *callTrace // the call being traced (trace.go)
	tl    *opTime    // for time events: the timeline, the trace (timeline_hook.go)

	eventClock               // the operator's watermarks (watermark.go)
	timers     timerService  // timers by time and by key (timers.go)
	Buffers    []*sortBuffer // per input, for ORDER BY (sortbuffer.go)
	firing     *timer        // the timer whose onTimer runs
	rec        *parRec       // a parallel worker's record of its calls (parallel.go)
	lin        *lineage      // with lineage on, the why-not counts (lineage.go)

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
}

func (o *PtfOp) Next() (Event, error) {
	for {
		if !o.cons.empty() {
			at := o.Oi
			if at >= len(o.Out) {
				at = -1
			}
			if err := o.cons.replay(at); err != nil {
				return Event{}, err
			}
		}
		if ev, ok := o.pop(); ok {
			return ev, nil
		}
		if err := o.stepErr; err != nil {
			return Event{}, err
		}
		if o.done {
			return Event{Kind: EvEnd}, nil
		}
		if err := o.steps(); err != nil {
			if errors.Is(err, ptf.ErrInterrupted) {
				return Event{}, err // cancelled: nothing more goes on
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
// (ptf.Batcher), up to batchSteps in one batch while the output stays
// under batchOut rows. A paced source (Execution.Paced) batches nothing:
// its rows' output must not wait for the next row.
func (o *PtfOp) steps() error {
	b, ok := o.inst.(ptf.Batcher)
	if !ok || o.Ex.Paced {
		return o.Step()
	}
	return b.Batch(o.stepRun)
}

func (o *PtfOp) stepRun() error {
	cb, _ := o.inst.(consoleBuffer)
	// A batch ends where a checkpoint is due: the session takes it between
	// events, when every row read is processed and its output handed on.
	for n := 0; n < batchSteps && !o.done && len(o.Out)-o.Oi < batchOut && (n == 0 || !o.Ex.CheckpointDue(0)); n++ {
		mark := len(o.Out)
		err := o.Step()
		if err != nil {
			// The failing step's own output goes nowhere, as when steps
			// run one at a time.
			clear(o.Out[mark:])
			o.Out = o.Out[:mark]
		}
		if cb != nil {
			// What the step's calls printed goes out before its rows.
			if c := cb.TakeConsole(); len(c) > 0 {
				o.cons.add(parConsole{at: mark, b: c, cb: cb})
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pop takes the next output from the queue; when none is left it empties
// the queue.
func (o *PtfOp) pop() (Event, bool) {
	if o.Oi < len(o.Out) {
		ev := o.Out[o.Oi]
		o.Out[o.Oi] = Event{}
		o.Oi++
		return ev, true
	}
	o.Out, o.Oi = o.Out[:0], 0
	return Event{}, false
}

// Quiescent reports whether the operator holds no output it has not
// handed on.
func (o *PtfOp) Quiescent() bool { return o.Oi >= len(o.Out) && o.stepErr == nil }

// Main returns the operator itself: it keeps the call's event time.
func (o *PtfOp) Main() *PtfOp { return o }

// step processes one input event (or the single call of a table-less PTF).
func (o *PtfOp) Step() error {
	n := o.Node
	if len(n.Tables) == 0 {
		if o.Evaled {
			o.done = true
			return nil
		}
		o.Evaled = true
		o.cur, o.bind = nil, nil
		if len(n.Def.State) > 0 {
			o.cur = o.keyState(nil)
		}
		return o.call(types.Row{})
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
func (o *PtfOp) readNext() (i int, ev Event, ok bool, err error) {
	if o.Node.Rowtime && len(o.Ins) > 1 {
		return o.readByTime()
	}
	// Inputs take turns row by row, so that several table arguments
	// interleave deterministically (or, shuffled, in turns drawn at random).
	if o.Ex.Shuffle != nil && len(o.Ins) > 1 {
		o.turn = o.Ex.Shuffle.IntN(len(o.Ins))
	}
	for tries := 0; tries < len(o.Ins); tries++ {
		i := o.turn % len(o.Ins)
		o.turn++
		if o.ended[i] {
			continue
		}
		ev, err := o.Ins[i].Next()
		if err != nil {
			return 0, Event{}, false, err
		}
		if ev.Kind == EvWatermark || ev.Kind == evTick {
			o.turn-- // only rows take turns: the input keeps its turn
		}
		if ev.Kind == EvEnd {
			o.ended[i] = true
		}
		return i, ev, true, nil
	}
	return 0, Event{}, false, nil
}

// readByTime interleaves several inputs by event time (with on_time): of
// the rows waiting at the head of each input, the earliest goes first
// (ties to the earlier input). Watermarks and ends are handled as they come.
func (o *PtfOp) readByTime() (int, Event, bool, error) {
	if o.heads == nil {
		o.heads = make([]*Event, len(o.Ins))
	}
	for i := range o.Ins {
		if o.ended[i] || o.heads[i] != nil {
			continue
		}
		ev, err := o.Ins[i].Next()
		if err != nil {
			return 0, Event{}, false, err
		}
		if ev.Kind == EvRow {
			o.heads[i] = &ev
			continue
		}
		if ev.Kind == EvEnd {
			o.ended[i] = true
		}
		return i, ev, true, nil
	}
	best, bestTs := -1, int64(0)
	for i, h := range o.heads {
		if h == nil {
			continue
		}
		ts, _ := types.TimeMillis(h.Row.Fields[o.Node.Tables[i].Sem.TimeColumn])
		if best < 0 || ts < bestTs || ts == bestTs && o.Ex.Shuffle != nil && o.Ex.Shuffle.IntN(2) == 0 {
			best, bestTs = i, ts
		}
	}
	if best < 0 {
		return 0, Event{}, false, nil
	}
	ev := *o.heads[best]
	o.heads[best] = nil
	return best, ev, true, nil
}

// process handles one event of input i.
func (o *PtfOp) process(i int, ev Event) error {
	switch ev.Kind {
	case EvEnd:
		o.ended[i] = true
		if !o.Ex.EndOfInput {
			return nil // stop as with a savepoint: no final watermark, timers stay
		}
		return o.inputWatermark(i, MaxWatermark)
	case EvWatermark:
		o.SawWM = true
		return o.inputWatermark(i, ev.Wm)
	case evTick:
		o.Out = append(o.Out, ev)
		return nil
	}
	if b := o.Buffers[i]; b != nil {
		if o.admit(i, ev.Row, b.seq+1) {
			b.seq++
			o.quietRow()
		}
		return nil
	}
	o.noteRow(i, ev.Row, false)
	o.lineRow(i, ev.Row, false)
	before := len(o.Out)
	if err := o.evalRow(i, ev.Row); err != nil {
		return err
	}
	if len(o.Out) == before {
		o.quietRow()
	}
	return nil
}

// admit puts a row of input i, which has ORDER BY, into the input's
// buffer as the seq-th to arrive, or drops it when it is late (at or
// behind the input's watermark) or has no time; it reports whether it
// kept the row.
func (o *PtfOp) admit(i int, r types.Row, seq uint64) bool {
	b := o.Buffers[i]
	ts, ok := types.TimeMillis(r.Fields[b.timeCol])
	if !ok || (o.inHas[i] && ts <= o.inWM[i]) {
		b.Dropped++ // late (or without time): ORDER BY drops it
		o.noteRow(i, r, true)
		o.lineRow(i, r, true)
		return false
	}
	o.noteRow(i, r, false)
	o.lineRow(i, r, false)
	b.addSeq(r, ts, seq)
	return true
}

// quietRow counts an input row that gave no output, and every quietRows
// of them hands control back with an evTick.
func (o *PtfOp) quietRow() {
	if o.quiet++; o.quiet >= quietRows {
		o.quiet = 0
		o.Out = append(o.Out, Event{Kind: evTick})
	}
}

// quietRows is how many input rows without output an operator consumes
// before it hands control back with an evTick.
const quietRows = 1024

// evalRow calls Eval for a row of input i.
func (o *PtfOp) evalRow(i int, r types.Row) error { return o.evalRowKey(i, r, nil) }

// evalRowKey is evalRow with the row's encoded partition key, when the
// caller has it (enc not nil).
func (o *PtfOp) evalRowKey(i int, r types.Row, enc []byte) error {
	b := &o.Node.Tables[i]
	o.bind, o.bi, o.row = b, i, r
	o.cur = nil
	switch {
	case enc != nil:
		o.cur = o.lookupEnc(enc, r, b.Partition, o.cur)
	case b.Set || len(o.Node.Def.State) > 0:
		o.cur = o.lookupRow(r, b.Partition, o.cur)
	}
	return o.call(r)
}

// inputWatermark advances input i's watermark to w: its ORDER BY buffer
// hands out the rows due (the function still sees the old watermark),
// then the operator's watermark, the minimum over the inputs, advances and
// fires the timers due before it is forwarded.
func (o *PtfOp) inputWatermark(i int, w int64) error {
	if o.inHas[i] && w <= o.inWM[i] {
		return nil
	}
	if b := o.Buffers[i]; b != nil {
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
	min := int64(MaxWatermark)
	for j := range o.inWM { // a parallel worker has no Ins of its own
		if !o.inHas[j] {
			return nil // an input without a watermark holds the operator's back
		}
		if o.inWM[j] < min {
			min = o.inWM[j]
		}
	}
	if o.hasWM && min <= o.wm {
		return nil
	}
	prev, had := o.wm, o.hasWM
	o.wm, o.hasWM = min, true
	o.noteWatermark(i, prev, had)
	if err := o.fireTimers(); err != nil {
		return err
	}
	if min != MaxWatermark && o.rec == nil { // a parallel worker's watermarks go out from the coordinator
		o.Out = append(o.Out, Event{Kind: EvWatermark, Wm: min})
	}
	return nil
}

// fireTimers calls OnTimer for every timer due at the current watermark,
// in time order; timers that onTimer registers at or before it fire in the
// same pass.
func (o *PtfOp) fireTimers() error {
	// The runaway guard counts the firings of timers that onTimer
	// registered during this pass: timers registered before it, however
	// many keys hold them, are no loop.
	limit := o.Ex.MaxTimerFirings
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
		if o.wm == MaxWatermark {
			o.EndFire++
		}
		o.promote(t.ks)
		o.firing, o.cur, o.bind = t, t.ks, nil
		o.traceStart()
		err := o.inst.OnTimer(o.ctx)
		o.endCall(o.cur)
		o.traceEnd(err)
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
func (o *PtfOp) runawayError(wm int64) error {
	return types.At(o.Node.Pos, fmt.Errorf("%s: more than %d timers that onTimer registered fired at watermark %d: does onTimer keep registering timers in the past? (raise SET 'ptfsh.timers.max-firings' if this is intended)", o.Node.Fn, o.Ex.MaxTimerFirings, wm))
}

func (o *PtfOp) call(r types.Row) error {
	if err := o.evictErr; err != nil {
		return types.At(o.Node.Pos, err)
	}
	o.traceStart()
	err := o.inst.Eval(o.ctx, r)
	if o.cur != nil {
		o.endCall(o.cur)
	}
	o.traceEnd(err)
	if err != nil {
		return o.callError(err)
	}
	return nil
}

// callError adds the partition key and the input row to a PTF's error.
func (o *PtfOp) callError(err error) error {
	if errors.Is(err, ptf.ErrInterrupted) {
		return types.At(o.Node.Pos, err)
	}
	var where []string
	if o.cur != nil && len(o.cur.key) > 0 {
		where = append(where, "key ("+formatFields(o.cur.key)+")")
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
		return types.At(o.Node.Pos, err)
	}
	return types.At(o.Node.Pos, &CallError{Err: err, Where: strings.Join(where, ", ")})
}

// CallError is a PTF error with the key and row it happened at.
type CallError struct {
	Err   error
	Where string
}

func (e *CallError) Error() string { return e.Err.Error() + " (at " + e.Where + ")" }
func (e *CallError) Unwrap() error { return e.Err }

func formatFields(vals []any) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = types.FormatValue(v, types.Type{})
	}
	return strings.Join(s, ", ")
}

// endCall applies clearState requests once the call has returned.
func (o *PtfOp) endCall(ks *keyState) {
	o.Views.endCall(ks)
	for i := range ks.ents {
		if e := &ks.ents[i]; e.cleared {
			e.val, e.loaded, e.cleared = nil, true, false
			ks.dirty = true
		}
	}
}

func (o *PtfOp) keyState(key []any) *keyState { return o.lookup(key, o.cur) }

// loadTimers reads the timers a previous statement or run left.
func (o *PtfOp) loadTimers() error {
	var types []types.Type
	for _, t := range o.Node.Tables {
		for _, k := range t.Partition {
			types = append(types, t.In.Schema().Columns[k].Type)
		}
		break // co-partitioned tables share the key's types
	}
	o.loading = true
	defer func() { o.loading = false }()
	err := o.Ex.Store.View(func(tx state.Tx) error {
		return o.timers.load(tx, o.Node.Uid, func(enc []byte) (*keyState, error) {
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
		return fmt.Errorf("%s: reading timers: %w", o.Node.Fn, err)
	}
	o.loadedTimers = o.timers.n > 0
	return nil
}

var errStopScan = errors.New("stop scan")

// flush writes every changed state value to the store in one transaction.
// flush writes the changed state and the timers to tx; final marks the
// end of the statement (finished when its input ended).
func (o *PtfOp) Flush(tx state.Tx, final bool) error {
	if err := o.flushMeta(tx, final); err != nil {
		return err
	}
	if o.Node.Uid != "" && (o.timers.n > 0 || o.loadedTimers) {
		if err := o.timers.save(tx, o.Node.Uid); err != nil {
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
func (o *PtfOp) flushMeta(tx state.Tx, final bool) error {
	if o.Node.Uid == "" {
		return nil
	}
	if err := markFinished(tx, o.Node.Uid, final && o.Ex.EndOfInput); err != nil {
		return err
	}
	return o.saveWatermarks(tx, final)
}

// flushState writes the operator's changed state (not its timers) to tx;
// final: the statement's last checkpoint.
func (o *PtfOp) flushState(tx state.Tx, final bool) error {
	if err := o.Views.flush(tx); err != nil {
		return err
	}
	for i, b := range o.Buffers {
		if b != nil && o.Node.Uid != "" {
			if err := b.save(tx, sortBufferNamespace(o.Node.Uid, o.Node.Tables[i].Name)); err != nil {
				return err
			}
		}
	}
	return o.flushValues(tx, final)
}

func (o *PtfOp) Close() error {
	var first error
	for _, in := range o.Ins {
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

// host implementation

// upsertKey is the key of upsert output: the first table's PARTITION BY
// columns, which lead the output row.
func (n *PtfNode) UpsertKey() []int {
	if n.Mode.Contains(types.UpdateBefore) || n.Mode.IsInsertOnly() || len(n.Tables) == 0 || n.Tables[0].Pass {
		return nil
	}
	k := make([]int, len(n.Tables[0].Partition))
	for i := range k {
		k[i] = i
	}
	return k
}

func HasSetSemantics(ts []TableBinding) bool {
	for _, t := range ts {
		if t.Set {
			return true
		}
	}
	return false
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

func (o *PtfOp) saveWatermarks(tx state.Tx, final bool) error {
	if final {
		return tx.Delete(MetaNamespace, wmKey(o.Node.Uid))
	}
	b, err := json.Marshal(opWatermarks{WM: o.wm, Has: o.hasWM, In: o.inWM, InHas: o.inHas, SawWM: o.SawWM})
	if err != nil {
		return err
	}
	return tx.Put(MetaNamespace, wmKey(o.Node.Uid), b)
}

func (o *PtfOp) loadWatermarks() error {
	var w *opWatermarks
	err := o.Ex.Store.View(func(tx state.Tx) error {
		b, err := tx.Get(MetaNamespace, wmKey(o.Node.Uid))
		if err != nil || b == nil {
			return err
		}
		w = &opWatermarks{}
		return json.Unmarshal(b, w)
	})
	if err != nil {
		return fmt.Errorf("%s: reading its checkpointed watermarks: %w", o.Node.Fn, err)
	}
	if w == nil || len(w.In) != len(o.inWM) || len(w.InHas) != len(o.inHas) {
		return nil // none, or a call with other inputs: start without
	}
	o.wm, o.hasWM, o.SawWM = w.WM, w.Has, w.SawWM
	copy(o.inWM, w.In)
	copy(o.inHas, w.InHas)
	return nil
}
