package runtime

import (
	"context"
	"fmt"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// Harness runs one PTF over rows without SQL, the way Flink's
// ProcessTableFunctionTestHarness does: for unit tests of PTF
// implementations (script's JS instances, stdlib's Go PTFs). It keeps
// state between Process calls.
type Harness struct {
	op  *ptfOp
	in  *feedStream
	out types.Schema
}

// HarnessOptions configure a Harness.
type HarnessOptions struct {
	// PartitionBy names the PARTITION BY columns of the table argument.
	PartitionBy []string
	// Args holds scalar argument values by name.
	Args map[string]any
	// UID names the call's state (default: the function name).
	UID string
	// Store keeps state (default: a new memory store).
	Store state.Store
	// Ctx is the statement's context (default: context.Background()).
	Ctx context.Context
}

// NewHarness binds def's first table argument to rows of schema input (or,
// for a function without table arguments, calls it once per Process).
func NewHarness(def *ptf.FuncDef, input types.Schema, opts HarnessOptions) (*Harness, error) {
	if opts.Store == nil {
		opts.Store = state.NewMem()
	}
	if opts.Ctx == nil {
		opts.Ctx = context.Background()
	}
	n := &ptfNode{def: def, fn: def.Name, uid: opts.UID, args: make([]any, len(def.Args)), mode: types.InsertOnly}
	if n.uid == "" {
		n.uid = def.Name
	}
	feed := &feedStream{}
	for i, a := range def.Args {
		if !a.IsTable() {
			n.args[i] = opts.Args[a.Name]
			continue
		}
		if len(n.tables) > 0 {
			return nil, fmt.Errorf("harness: %s has several table arguments", def.Name)
		}
		tb := tableBinding{decl: i, name: a.Name, in: &valuesNode{sch: input},
			set: a.Traits.Has(ptf.SetSemanticTable), pass: a.Traits.Has(ptf.PassColumnsThrough)}
		for _, c := range opts.PartitionBy {
			k := input.Index(c)
			if k < 0 {
				return nil, fmt.Errorf("harness: no column %q to partition by", c)
			}
			tb.partition = append(tb.partition, k)
		}
		tb.sem = ptf.TableSemantics{DataType: input.RowType(), PartitionBy: tb.partition, TimeColumn: -1, Changelog: types.InsertOnly}
		n.tables = append(n.tables, tb)
	}
	n.fnOut = outputSchema(def.Output)
	var cols []types.Column
	for _, t := range n.tables {
		if t.pass {
			cols = append(cols, input.Columns...)
			continue
		}
		for _, k := range t.partition {
			cols = append(cols, input.Columns[k])
		}
	}
	n.sch = types.Schema{Columns: append(cols, n.fnOut.Columns...)}
	ex := newExecution(opts.Ctx, opts.Store)
	st, err := n.open(ex)
	if err != nil {
		return nil, err
	}
	op := st.(*ptfOp)
	if len(op.ins) == 1 {
		op.ins[0] = feed
	}
	return &Harness{op: op, in: feed, out: n.sch}, nil
}

// Schema returns the output columns (key prefix and function output).
func (h *Harness) Schema() types.Schema { return h.out }

// Process runs eval for each row and returns the rows collected.
func (h *Harness) Process(rows ...types.Row) ([]types.Row, error) {
	h.in.rows = append(h.in.rows, rows...)
	if len(h.op.node.tables) == 0 {
		h.op.evaled = false
		if err := h.op.step(); err != nil {
			return nil, err
		}
	}
	for len(h.in.rows) > 0 {
		if err := h.op.step(); err != nil {
			return h.drain(), err
		}
	}
	return h.drain(), nil
}

func (h *Harness) drain() []types.Row {
	var out []types.Row
	for _, ev := range h.op.out[h.op.oi:] {
		if ev.kind == evRow {
			out = append(out, ev.row)
		}
	}
	h.op.out, h.op.oi = h.op.out[:0], 0
	return out
}

// Flush writes the live state to the store, as the end of a statement does.
func (h *Harness) Flush() error {
	return h.op.ex.store.Update(func(tx state.Tx) error { return h.op.flush(tx, false) })
}

// Close releases the instance.
func (h *Harness) Close() error { return h.op.close() }

// feedStream hands out the rows given to a Harness.
type feedStream struct {
	rows []types.Row
}

func (f *feedStream) next() (event, error) {
	if len(f.rows) == 0 {
		return event{kind: evWatermark}, nil
	}
	r := f.rows[0]
	f.rows = f.rows[1:]
	return event{kind: evRow, row: r}, nil
}

func (f *feedStream) close() error { return nil }
