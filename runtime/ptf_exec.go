package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/state"
)

// tableBinding is one table argument of a bound PTF call.
type tableBinding struct {
	decl      int    // index in FuncDef.Args
	name      string // argument name
	in        node
	partition []int
	sem       TableSemantics
	pass      bool // PASS_COLUMNS_THROUGH
	set       bool // set semantics
}

// ptfNode is a bound PTF call.
type ptfNode struct {
	def    *FuncDef
	fn     string // the name it was called by
	uid    string
	args   []any
	tables []tableBinding
	fnOut  Schema // the function's own columns
	sch    Schema // prefix + function columns (+ rowtime)
	mode   ChangelogMode
	text   string
	// rowtime: the output ends with the on_time column of the input row.
	rowtime bool
}

func (n *ptfNode) schema() Schema           { return n.sch }
func (n *ptfNode) changelog() ChangelogMode { return n.mode }
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
		strings.Join(n.sch.Names(), ",") + "], changelogMode=[" + n.mode.ShortString() + "])"
}

// stateNamespace is where entry name of uid lives in the store.
func stateNamespace(uid, name string) string { return "state/" + uid + "/" + name }

func (n *ptfNode) open(ex *execution) (stream, error) {
	spec := CallSpec{Ctx: ex.ctx, UID: n.uid, Args: n.args, Tables: make([]Schema, len(n.def.Args)), Output: n.fnOut}
	for _, t := range n.tables {
		spec.Tables[t.decl] = t.in.schema()
	}
	inst, err := n.def.New(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.fn, err)
	}
	op := &ptfOp{node: n, inst: inst, ex: ex, cache: map[string]*keyState{}}
	op.ctx = &Context{h: op}
	if len(n.def.State) > 0 {
		codec, ok := inst.(StateCodec)
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
	ex.ptfs = append(ex.ptfs, op)
	return op, nil
}

// keyState is the live state of one partition key.
type keyState struct {
	key     []any
	enc     []byte
	vals    []any
	loaded  []bool
	cleared []bool
	dirty   bool
}

// ptfOp runs one PTF call: it pulls rows from its inputs, calls Eval, and
// hands out what the function collected.
type ptfOp struct {
	node   *ptfNode
	inst   PTF
	codec  StateCodec
	ex     *execution
	ctx    *Context
	ins    []stream
	ended  []bool
	turn   int
	queue  []Row
	qi     int
	done   bool
	evaled bool // a PTF without tables ran its one call

	cache  map[string]*keyState
	stored bool // the store may hold state of this uid

	// the current call
	cur  *keyState
	row  Row
	bind *tableBinding
}

func (o *ptfOp) next() (event, error) {
	for {
		if o.qi < len(o.queue) {
			r := o.queue[o.qi]
			o.queue[o.qi] = Row{}
			o.qi++
			return event{kind: evRow, row: r}, nil
		}
		o.queue, o.qi = o.queue[:0], 0
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
		return o.call(Row{})
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
		switch ev.kind {
		case evEnd:
			o.ended[i] = true
			continue
		case evWatermark:
			return nil
		}
		b := &n.tables[i]
		o.bind, o.row = b, ev.row
		o.cur = nil
		if b.set || len(n.def.State) > 0 {
			o.cur = o.keyState(partitionKey(ev.row, b.partition))
		}
		return o.call(ev.row)
	}
	o.done = true
	return nil
}

func (o *ptfOp) call(r Row) error {
	err := o.inst.Eval(o.ctx, r)
	if o.cur != nil {
		o.endCall(o.cur)
	}
	if err != nil {
		return o.callError(err)
	}
	return nil
}

// callError adds the partition key and the input row to a PTF's error.
func (o *ptfOp) callError(err error) error {
	if errors.Is(err, ErrInterrupted) {
		return err
	}
	var where []string
	if o.cur != nil && len(o.cur.key) > 0 {
		where = append(where, "key ("+formatFields(o.cur.key)+")")
	}
	if o.bind != nil {
		where = append(where, "input row "+FormatRow(o.row, o.bind.in.schema()))
	}
	if len(where) == 0 {
		return err
	}
	return &CallError{Err: err, Where: strings.Join(where, ", ")}
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
		s[i] = FormatValue(v, Type{})
	}
	return strings.Join(s, ", ")
}

// endCall applies clearState requests once the call has returned.
func (o *ptfOp) endCall(ks *keyState) {
	for i, c := range ks.cleared {
		if c {
			ks.vals[i], ks.loaded[i], ks.cleared[i] = nil, true, false
			ks.dirty = true
		}
	}
}

func (o *ptfOp) keyState(key []any) *keyState {
	enc := encodeKey(key)
	if ks, ok := o.cache[string(enc)]; ok {
		return ks
	}
	n := len(o.node.def.State)
	ks := &keyState{key: key, enc: enc, vals: make([]any, n), loaded: make([]bool, n), cleared: make([]bool, n)}
	o.cache[string(enc)] = ks
	return ks
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
func (o *ptfOp) flush(tx state.Tx) error {
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
			if err := tx.Put(ns, ks.enc, b); err != nil {
				return err
			}
		}
		ks.dirty = false
	}
	return nil
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
	return first
}

// host implementation

func (o *ptfOp) input() int { return o.inputIndex() }

func (o *ptfOp) inputIndex() int {
	if o.bind == nil {
		return -1
	}
	return o.bind.decl
}

func (o *ptfOp) key() []any {
	if o.cur == nil {
		return nil
	}
	return o.cur.key
}

func (o *ptfOp) collect(r Row) error {
	n := o.node
	if !n.mode.Contains(r.Kind) {
		return fmt.Errorf("Invalid row kind received: %s. Expected produced changelog mode: %s", r.Kind, n.mode)
	}
	if len(r.Fields) != n.fnOut.Len() {
		return fmt.Errorf("collect: expected %d output column(s) %v, got %d value(s)", n.fnOut.Len(), n.fnOut.Names(), len(r.Fields))
	}
	prefix := o.prefix()
	out := make([]any, 0, n.sch.Len())
	out = append(out, prefix...)
	out = append(out, r.Fields...)
	if n.rowtime {
		out = append(out, o.row.Fields[o.bind.sem.TimeColumn])
	}
	o.queue = append(o.queue, Row{Kind: r.Kind, Fields: out})
	return nil
}

// prefix returns the key columns (or pass-through columns) of the output.
func (o *ptfOp) prefix() []any {
	n := o.node
	if len(n.tables) == 0 {
		return nil
	}
	if o.bind != nil && o.bind.pass {
		return o.row.Fields
	}
	var p []any
	for _, t := range n.tables {
		if !t.set || len(t.partition) == 0 {
			continue
		}
		if o.cur != nil && len(o.cur.key) == len(t.partition) {
			p = append(p, o.cur.key...)
		} else {
			p = append(p, make([]any, len(t.partition))...)
		}
	}
	return p
}

func (o *ptfOp) state(i int) (any, error) {
	ks := o.cur
	if ks == nil {
		return nil, fmt.Errorf("state is only available for tables with set semantics")
	}
	if i < 0 || i >= len(ks.vals) {
		return nil, fmt.Errorf("no state entry %d", i)
	}
	ks.dirty = true
	if ks.loaded[i] && ks.vals[i] != nil {
		return ks.vals[i], nil
	}
	if !ks.loaded[i] && o.stored {
		var data []byte
		err := o.ex.store.View(func(tx state.Tx) error {
			var err error
			data, err = tx.Get(stateNamespace(o.node.uid, o.node.def.State[i].Name), ks.enc)
			return err
		})
		if err != nil {
			return nil, err
		}
		if data != nil {
			v, err := o.codec.DecodeState(i, data)
			if err != nil {
				return nil, fmt.Errorf("state %q: %w", o.node.def.State[i].Name, err)
			}
			ks.vals[i], ks.loaded[i] = v, true
			return v, nil
		}
	}
	v, err := o.codec.NewState(i)
	if err != nil {
		return nil, err
	}
	ks.vals[i], ks.loaded[i] = v, true
	return v, nil
}

func (o *ptfOp) setState(i int, v any) {
	if ks := o.cur; ks != nil && i >= 0 && i < len(ks.vals) {
		ks.vals[i], ks.loaded[i], ks.dirty = v, true, true
	}
}

func (o *ptfOp) clearState(i int) {
	if ks := o.cur; ks != nil && i >= 0 && i < len(ks.vals) {
		ks.cleared[i], ks.dirty = true, true
	}
}

func (o *ptfOp) clearAllState() {
	for i := range o.node.def.State {
		o.clearState(i)
	}
}

func (o *ptfOp) semantics(arg int) (TableSemantics, bool) {
	for _, t := range o.node.tables {
		if t.decl == arg {
			return t.sem, true
		}
	}
	return TableSemantics{}, false
}

func (o *ptfOp) changelogMode() ChangelogMode { return o.node.mode }
func (o *ptfOp) time() (int64, bool) {
	if o.bind == nil || o.bind.sem.TimeColumn < 0 {
		return 0, false
	}
	return TimeMillis(o.row.Fields[o.bind.sem.TimeColumn])
}
func (o *ptfOp) currentWatermark() (int64, bool)          { return 0, false }
func (o *ptfOp) tableWatermark() (int64, bool)            { return 0, false }
func (o *ptfOp) currentTimer() (string, bool)             { return "", false }
func (o *ptfOp) clearAllTimers() error                    { return o.timersUnavailable() }
func (o *ptfOp) registerOnTime(string, bool, int64) error { return o.timersUnavailable() }
func (o *ptfOp) clearTimer(string, bool, int64) error     { return o.timersUnavailable() }

func (o *ptfOp) timersUnavailable() error {
	for _, t := range o.node.tables {
		if !t.set {
			return fmt.Errorf("Timers are not supported in the current PTF declaration. Timers are only available for table arguments with set semantics (table argument '%s')", t.name)
		}
		if t.pass {
			return fmt.Errorf("Timers are not supported in the current PTF declaration. Timers are disabled for table arguments that pass columns through (table argument '%s')", t.name)
		}
	}
	return fmt.Errorf("%w: event-time timers are not implemented yet", ErrNoTimers)
}
