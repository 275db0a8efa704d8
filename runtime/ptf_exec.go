package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// tableBinding is one table argument of a bound PTF call.
type tableBinding struct {
	decl      int    // index in FuncDef.Args
	name      string // argument name
	in        node
	partition []int
	sem       ptf.TableSemantics
	pass      bool // PASS_COLUMNS_THROUGH
	set       bool // set semantics
	order     []*sqlmini.OrderItem
}

// ptfNode is a bound PTF call.
type ptfNode struct {
	def    *ptf.FuncDef
	fn     string // the name it was called by
	uid    string
	args   []any
	tables []tableBinding
	fnOut  types.Schema // the function's own columns
	sch    types.Schema // prefix + function columns (+ rowtime)
	mode   types.ChangelogMode
	text   string
	// rowtime: the output ends with the on_time column of the input row
	// (or a timer's time), typed rowtimeType.
	rowtime     bool
	rowtimeType types.Type
	// pos is where the statement calls the function.
	pos sqlmini.Pos
	// orderBy are the ORDER BY keys of each table argument (nil: none).
	orderBy [][]sortKey
}

func (n *ptfNode) schema() types.Schema           { return n.sch }
func (n *ptfNode) changelog() types.ChangelogMode { return n.mode }
func (n *ptfNode) children() []node {
	var c []node
	for _, t := range n.tables {
		c = append(c, t.in)
	}
	return c
}

func (n *ptfNode) explain() string {
	uid := "null"
	if n.uid != "" {
		uid = n.uid
	}
	return "ProcessTableFunction(invocation=[" + n.text + "], uid=[" + uid + "], select=[" +
		strings.Join(n.sch.Names(), ",") + "])"
}

// metaNamespace holds what the runtime records about each uid.
const metaNamespace = "meta"

// finishedKey marks a uid whose last statement read its input to the end.
func finishedKey(uid string) []byte { return []byte("finished/" + uid) }

// startFresh forgets the state of a uid whose last statement finished, as
// a Flink job that ran to the end of its bounded input leaves nothing to
// restore: a new query starts afresh. A statement stopped without end of
// input (SET 'ptfsh.end-of-input' = 'false'), or killed, leaves its state
// to the next one with the same uid.
func startFresh(store state.Store, uid string) error {
	return store.Update(func(tx state.Tx) error {
		v, err := tx.Get(metaNamespace, finishedKey(uid))
		if err != nil || v == nil {
			return err
		}
		if err := dropUID(tx, uid); err != nil {
			return err
		}
		return tx.Delete(metaNamespace, finishedKey(uid))
	})
}

// markFinished records whether the statement that used uid ended its input.
func markFinished(tx state.Tx, uid string, finished bool) error {
	if finished {
		return tx.Put(metaNamespace, finishedKey(uid), []byte{1})
	}
	return tx.Delete(metaNamespace, finishedKey(uid))
}

// dropUID removes every state entry and timer of a uid.
func dropUID(tx state.Tx, uid string) error {
	names, err := tx.Namespaces()
	if err != nil {
		return err
	}
	for _, ns := range names {
		if strings.HasPrefix(ns, "state/"+uid+"/") || ns == timerNamespace(uid) || isViewNamespace(ns, uid) ||
			strings.HasPrefix(ns, normalizeNamespace(uid+"/")) || strings.HasPrefix(ns, sortBufferNamespace(uid, "")) {
			if err := tx.DeleteNamespace(ns); err != nil {
				return err
			}
		}
	}
	return tx.Delete(metaNamespace, schemaKey(uid))
}

// stateNamespace is where entry name of uid lives in the store.
func stateNamespace(uid, name string) string { return "state/" + uid + "/" + name }

func (n *ptfNode) open(ex *execution) (stream, error) {
	spec := ptf.CallSpec{Ctx: ex.ctx, UID: n.uid, Args: n.args, Tables: make([]types.Schema, len(n.def.Args)), Output: n.fnOut}
	for _, t := range n.tables {
		spec.Tables[t.decl] = t.in.schema()
	}
	inst, err := n.def.New(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.fn, err)
	}
	op := &ptfOp{node: n, inst: inst, ex: ex, cache: map[string]*keyState{}, spilled: map[string]bool{}}
	op.ctx = ptf.NewContext(op)
	if n.uid != "" {
		if err := startFresh(ex.store, n.uid); err != nil {
			return nil, at(n.pos, fmt.Errorf("%s: %w", n.fn, err))
		}
		if err := clearSpill(ex.store, n.uid); err != nil {
			return nil, at(n.pos, fmt.Errorf("%s: %w", n.fn, err))
		}
		if len(n.def.State) > 0 {
			if err := checkEvolution(ex.store, n.fn, n.uid, n.def.State, ex.discardIncompatible); err != nil {
				return nil, at(n.pos, err)
			}
		}
	}
	if len(n.def.State) > 0 {
		codec, ok := inst.(ptf.StateCodec)
		if !ok {
			return nil, fmt.Errorf("%s declares state but its instance cannot keep state", n.fn)
		}
		op.codec = codec
		op.stored = op.storeHasState()
	}
	for _, t := range n.tables {
		st, err := t.in.open(ex)
		if err != nil {
			op.close()
			return nil, err
		}
		op.ins = append(op.ins, st)
	}
	op.ended = make([]bool, len(op.ins))
	op.inWM, op.inHas = make([]int64, len(op.ins)), make([]bool, len(op.ins))
	op.buffers = make([]*sortBuffer, len(op.ins))
	for i, t := range n.tables {
		if len(t.sem.OrderBy) > 0 {
			op.buffers[i] = newSortBuffer(t.sem.OrderBy[0], n.orderBy[i])
			if n.uid != "" {
				b := op.buffers[i]
				if err := ex.store.View(func(tx state.Tx) error { return b.load(tx, sortBufferNamespace(n.uid, t.name)) }); err != nil {
					op.close()
					return nil, at(n.pos, err)
				}
			}
		}
	}
	op.ttl = make([]int64, len(n.def.State))
	for i, sd := range n.def.State {
		switch {
		case sd.TTLSet:
			op.ttl[i] = sd.TTL.Milliseconds()
		default:
			op.ttl[i] = ex.defaultTTL
		}
	}
	if n.uid != "" && hasSetSemantics(n.tables) {
		if err := op.loadTimers(); err != nil {
			op.close()
			return nil, err
		}
	}
	if ex.parallelism > 1 {
		why := parallelReason(n, ex)
		if why == "" && op.timers.n > 0 {
			why = "timers of an earlier run"
		}
		if why == "" {
			if err := op.openWorkers(spec, ex.parallelism); err != nil {
				op.close()
				return nil, at(n.pos, err)
			}
			ex.notes = append(ex.notes, fmt.Sprintf("note: %s ran on %d workers (parallelism %d)", n.fn, ex.parallelism, ex.parallelism))
		} else {
			ex.notes = append(ex.notes, fmt.Sprintf("note: %s ran on 1 worker (parallelism %d): %s", n.fn, ex.parallelism, why))
		}
	}
	ex.ptfs = append(ex.ptfs, op)
	return op, nil
}

// keyState is the live state of one partition key: its value-state
// entries and its timers.
type keyState struct {
	key     []any
	enc     []byte
	vals    []any
	loaded  []bool
	cleared []bool
	touched []int64 // processing time of the last write, for TTL
	dirty   bool
	named   map[string]*timer
	unnamed map[int64]*timer
}

// ptfOp runs one PTF call: it pulls events from its inputs, calls Eval for
// rows and OnTimer for timers as the watermark passes them, and hands out
// what the function collected followed by the watermark.
type ptfOp struct {
	node   *ptfNode
	inst   ptf.PTF
	codec  ptf.StateCodec
	ex     *execution
	ctx    *ptf.Context
	ins    []stream
	ended  []bool
	turn   int
	out    []event
	oi     int
	done   bool
	evaled bool // a PTF without tables ran its one call

	cache  map[string]*keyState
	stored bool    // the store may hold state of this uid
	ttl    []int64 // per state entry, milliseconds of processing time; 0: none
	// loadedTimers: timers came from the store, so saving must rewrite them.
	loadedTimers bool

	views viewOverlay // list and map state changed since the last checkpoint (views.go)

	spilled map[string]bool // keys with values in the spill area (cache.go)
	spills  int64           // keys spilled so far
	quiet   int             // input rows since the last output or tick
	heads   []*event        // with on_time: the next row of each input, by time
	tr      *callTrace      // the call being traced (trace.go)
	// evictErr is a spill that failed; the call that caused it reports it.
	evictErr error
	// loading: timers are being read inside a store transaction, so no
	// spill (which writes) may happen.
	loading bool

	// event time
	wm      int64 // the operator's watermark: the minimum of its inputs'
	hasWM   bool
	inWM    []int64 // each input's watermark (tableWatermark)
	inHas   []bool
	timers  timerService
	buffers []*sortBuffer // per input, for ORDER BY
	firing  *timer
	sawWM   bool // a watermark other than the end of input arrived
	endFire int  // timers fired by the end of input

	// par runs the call on several workers (parallel.go); worker marks
	// one of them.
	par    *parState
	worker bool

	// the current call
	cur  *keyState
	row  types.Row
	bind *tableBinding
	bi   int // index of bind in node.tables
}

func (o *ptfOp) next() (event, error) {
	for {
		if o.par != nil {
			at := o.oi
			if at >= len(o.out) {
				at = -1
			}
			if err := o.par.replayConsole(at); err != nil {
				return event{}, err
			}
		}
		if o.oi < len(o.out) {
			ev := o.out[o.oi]
			o.out[o.oi] = event{}
			o.oi++
			return ev, nil
		}
		o.out, o.oi = o.out[:0], 0
		if o.done {
			return event{kind: evEnd}, nil
		}
		if err := o.step(); err != nil {
			return event{}, err
		}
	}
}

// step processes one input event (or the single call of a table-less PTF).
func (o *ptfOp) step() error {
	n := o.node
	if len(n.tables) == 0 {
		if o.evaled {
			o.done = true
			return nil
		}
		o.evaled = true
		o.cur, o.bind = nil, nil
		if len(n.def.State) > 0 {
			o.cur = o.keyState(nil)
		}
		return o.call(types.Row{})
	}
	if o.par != nil {
		return o.stepParallel()
	}
	if o.node.rowtime && len(o.ins) > 1 {
		return o.stepByTime()
	}
	// Inputs take turns row by row, so that several table arguments
	// interleave deterministically.
	for tries := 0; tries < len(o.ins); tries++ {
		i := o.turn % len(o.ins)
		o.turn++
		if o.ended[i] {
			continue
		}
		ev, err := o.ins[i].next()
		if err != nil {
			return err
		}
		if ev.kind == evWatermark || ev.kind == evTick {
			o.turn-- // only rows take turns: the input keeps its turn
		}
		return o.process(i, ev)
	}
	o.done = true
	return nil
}

// stepByTime interleaves several inputs by event time (with on_time): of
// the rows waiting at the head of each input, the earliest goes first
// (ties to the earlier input). Watermarks and ends are handled as they come.
func (o *ptfOp) stepByTime() error {
	if o.heads == nil {
		o.heads = make([]*event, len(o.ins))
	}
	for i := range o.ins {
		if o.ended[i] || o.heads[i] != nil {
			continue
		}
		ev, err := o.ins[i].next()
		if err != nil {
			return err
		}
		if ev.kind == evRow {
			o.heads[i] = &ev
			continue
		}
		return o.process(i, ev)
	}
	best, bestTs := -1, int64(0)
	for i, h := range o.heads {
		if h == nil {
			continue
		}
		ts, _ := types.TimeMillis(h.row.Fields[o.node.tables[i].sem.TimeColumn])
		if best < 0 || ts < bestTs {
			best, bestTs = i, ts
		}
	}
	if best < 0 {
		o.done = true
		return nil
	}
	ev := *o.heads[best]
	o.heads[best] = nil
	return o.process(best, ev)
}

// process handles one event of input i.
func (o *ptfOp) process(i int, ev event) error {
	switch ev.kind {
	case evEnd:
		o.ended[i] = true
		if !o.ex.endOfInput {
			return nil // stop as with a savepoint: no final watermark, timers stay
		}
		return o.inputWatermark(i, MaxWatermark)
	case evWatermark:
		o.sawWM = true
		return o.inputWatermark(i, ev.wm)
	case evTick:
		o.out = append(o.out, ev)
		return nil
	}
	if b := o.buffers[i]; b != nil {
		ts, ok := types.TimeMillis(ev.row.Fields[b.timeCol])
		if !ok || (o.inHas[i] && ts <= o.inWM[i]) {
			b.dropped++ // late (or without time): ORDER BY drops it
			return nil
		}
		b.add(ev.row, ts)
		o.quietRow()
		return nil
	}
	before := len(o.out)
	if err := o.evalRow(i, ev.row); err != nil {
		return err
	}
	if len(o.out) == before {
		o.quietRow()
	}
	return nil
}

// quietRow counts an input row that gave no output, and every quietRows
// of them hands control back with an evTick.
func (o *ptfOp) quietRow() {
	if o.quiet++; o.quiet >= quietRows {
		o.quiet = 0
		o.out = append(o.out, event{kind: evTick})
	}
}

// quietRows is how many input rows without output an operator consumes
// before it hands control back with an evTick.
const quietRows = 1024

// evalRow calls Eval for a row of input i.
func (o *ptfOp) evalRow(i int, r types.Row) error {
	b := &o.node.tables[i]
	o.bind, o.bi, o.row = b, i, r
	o.cur = nil
	if b.set || len(o.node.def.State) > 0 {
		o.cur = o.keyState(keycodec.Pick(r, b.partition))
	}
	return o.call(r)
}

// inputWatermark advances input i's watermark to w: its ORDER BY buffer
// hands out the rows due (the function still sees the old watermark),
// then the operator's watermark, the minimum over the inputs, advances and
// fires the timers due before it is forwarded.
func (o *ptfOp) inputWatermark(i int, w int64) error {
	if o.inHas[i] && w <= o.inWM[i] {
		return nil
	}
	if b := o.buffers[i]; b != nil {
		for {
			r, ok := b.pop(w)
			if !ok {
				break
			}
			if err := o.evalRow(i, r); err != nil {
				return err
			}
		}
	}
	o.inWM[i], o.inHas[i] = w, true
	min := int64(MaxWatermark)
	for j := range o.ins {
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
	o.wm, o.hasWM = min, true
	if err := o.fireTimers(); err != nil {
		return err
	}
	if min != MaxWatermark {
		o.out = append(o.out, event{kind: evWatermark, wm: min})
	}
	return nil
}

// fireTimers calls OnTimer for every timer due at the current watermark,
// in time order; timers that onTimer registers at or before it fire in the
// same pass.
func (o *ptfOp) fireTimers() error {
	limit := o.ex.maxTimerFirings
	fired := 0
	for t := o.timers.next(o.wm); t != nil; t = o.timers.next(o.wm) {
		fired++
		if limit > 0 && fired > limit {
			return at(o.node.pos, fmt.Errorf("%s: more than %d timers fired at watermark %d: does onTimer keep registering timers in the past? (raise SET 'ptfsh.timers.max-firings' if this is intended)", o.node.fn, limit, o.wm))
		}
		if o.wm == MaxWatermark {
			o.endFire++
		}
		o.firing, o.cur, o.bind = t, t.ks, nil
		o.traceStart()
		err := o.inst.OnTimer(o.ctx)
		o.endCall(o.cur)
		o.traceEnd(err)
		o.firing = nil
		if err != nil {
			return o.callError(err)
		}
	}
	return nil
}

func (o *ptfOp) call(r types.Row) error {
	if err := o.evictErr; err != nil {
		return at(o.node.pos, err)
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
func (o *ptfOp) callError(err error) error {
	if errors.Is(err, ptf.ErrInterrupted) {
		return at(o.node.pos, err)
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
		where = append(where, "input row "+types.FormatRow(o.row, o.bind.in.schema()))
	}
	if len(where) == 0 {
		return at(o.node.pos, err)
	}
	return at(o.node.pos, &CallError{Err: err, Where: strings.Join(where, ", ")})
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
func (o *ptfOp) endCall(ks *keyState) {
	o.endCallViews(ks)
	for i, c := range ks.cleared {
		if c {
			ks.vals[i], ks.loaded[i], ks.cleared[i] = nil, true, false
			ks.dirty = true
		}
	}
}

func (o *ptfOp) keyState(key []any) *keyState {
	enc := keycodec.Encode(key)
	if ks, ok := o.cache[string(enc)]; ok {
		return ks
	}
	n := len(o.node.def.State)
	ks := &keyState{key: key, enc: enc, vals: make([]any, n), loaded: make([]bool, n), cleared: make([]bool, n), touched: make([]int64, n)}
	o.cache[string(enc)] = ks
	if err := o.maybeEvict(ks); err != nil {
		o.evictErr = err
	}
	return ks
}

// loadTimers reads the timers a previous statement or run left.
func (o *ptfOp) loadTimers() error {
	var types []types.Type
	for _, t := range o.node.tables {
		for _, k := range t.partition {
			types = append(types, t.in.schema().Columns[k].Type)
		}
		break // co-partitioned tables share the key's types
	}
	o.loading = true
	defer func() { o.loading = false }()
	err := o.ex.store.View(func(tx state.Tx) error {
		return o.timers.load(tx, o.node.uid, func(enc []byte) (*keyState, error) {
			if ks, ok := o.cache[string(enc)]; ok {
				return ks, nil
			}
			key, err := keycodec.Decode(enc, types)
			if err != nil {
				return nil, err
			}
			return o.keyState(key), nil
		})
	})
	if err != nil {
		return fmt.Errorf("%s: reading timers: %w", o.node.fn, err)
	}
	o.loadedTimers = o.timers.n > 0
	return nil
}

func (o *ptfOp) storeHasState() bool {
	found := false
	_ = o.ex.store.View(func(tx state.Tx) error {
		for _, sd := range o.node.def.State {
			_ = tx.Scan(stateNamespace(o.node.uid, sd.Name), nil, func(k, v []byte) error {
				found = true
				return errStopScan
			})
			if found {
				return nil
			}
		}
		return nil
	})
	return found
}

var errStopScan = errors.New("stop scan")

// flush writes every changed state value to the store in one transaction.
// flush writes the changed state and the timers to tx; final marks the
// end of the statement (finished when its input ended).
func (o *ptfOp) flush(tx state.Tx, final bool) error {
	if o.node.uid != "" {
		if err := markFinished(tx, o.node.uid, final && o.ex.endOfInput); err != nil {
			return err
		}
	}
	if o.node.uid != "" && o.par != nil {
		if err := o.par.saveTimers(tx, o.node.uid); err != nil {
			return err
		}
		if err := o.par.flush(tx); err != nil {
			return err
		}
	} else if o.node.uid != "" && (o.timers.n > 0 || o.loadedTimers) {
		if err := o.timers.save(tx, o.node.uid); err != nil {
			return err
		}
	}
	return o.flushState(tx)
}

// flushState writes the operator's changed state (not its timers) to tx.
func (o *ptfOp) flushState(tx state.Tx) error {
	if err := o.flushViews(tx); err != nil {
		return err
	}
	for i, b := range o.buffers {
		if b != nil && o.node.uid != "" {
			if err := b.save(tx, sortBufferNamespace(o.node.uid, o.node.tables[i].name)); err != nil {
				return err
			}
		}
	}
	if o.codec == nil {
		return nil
	}
	for _, ks := range o.cache {
		if !ks.dirty {
			continue
		}
		for i, sd := range o.node.def.State {
			if !ks.loaded[i] {
				continue
			}
			ns := stateNamespace(o.node.uid, sd.Name)
			if ks.vals[i] == nil {
				if err := tx.Delete(ns, ks.enc); err != nil {
					return err
				}
				continue
			}
			b, err := o.codec.EncodeState(i, ks.vals[i])
			if err != nil {
				return fmt.Errorf("%s: state %q of key (%s): %w", o.node.fn, sd.Name, formatFields(ks.key), err)
			}
			// Each value is stored after the processing time it was last
			// written at, so that TTL holds across runs.
			b = append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(b)), uint64(ks.touched[i])), b...)
			if err := tx.Put(ns, ks.enc, b); err != nil {
				return err
			}
		}
		ks.dirty = false
	}
	return o.flushSpill(tx)
}

func (o *ptfOp) close() error {
	var first error
	for _, in := range o.ins {
		if err := in.close(); err != nil && first == nil {
			first = err
		}
	}
	if c, ok := o.inst.(interface{ Close() error }); ok {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	if o.par != nil {
		if err := o.par.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// host implementation
