package ptfop

import (
	"context"
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// Harness runs one PTF over rows without SQL, the way Flink's
// ProcessTableFunctionTestHarness does: for unit tests of PTF
// implementations (script's JS instances, stdlib's Go PTFs). It keeps
// state between Process calls.
type Harness struct {
	op  *Operator
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
	n := &Node{Def: def, Fn: def.Name, UID: opts.UID, Args: make([]any, len(def.Args)), Mode: types.InsertOnly}
	if n.UID == "" {
		n.UID = def.Name
	}
	feed := &feedStream{}
	for i, a := range def.Args {
		if !a.IsTable() {
			n.Args[i] = opts.Args[a.Name]
			continue
		}
		if len(n.Tables) > 0 {
			return nil, fmt.Errorf("harness: %s has several table arguments", def.Name)
		}
		tb := TableBinding{Decl: i, Name: a.Name, In: &exec.ValuesNode{Sch: input},
			Set: a.Traits.Has(ptf.SetSemanticTable), Pass: a.Traits.Has(ptf.PassColumnsThrough)}
		for _, c := range opts.PartitionBy {
			k := input.Index(c)
			if k < 0 {
				return nil, fmt.Errorf("harness: no column %q to partition by", c)
			}
			tb.Partition = append(tb.Partition, k)
		}
		tb.Sem = ptf.TableSemantics{DataType: input.RowType(), PartitionBy: tb.Partition, TimeColumn: -1, Changelog: types.InsertOnly}
		n.Tables = append(n.Tables, tb)
	}
	n.FnOut = OutputSchema(def.Output)
	var cols []types.Column
	for _, t := range n.Tables {
		if t.Pass {
			cols = append(cols, input.Columns...)
			continue
		}
		for _, k := range t.Partition {
			cols = append(cols, input.Columns[k])
		}
	}
	n.Sch = types.Schema{Columns: append(cols, n.FnOut.Columns...)}
	ex := exec.NewExecution(opts.Ctx, opts.Store, exec.DefaultOptions())
	st, err := n.Open(ex)
	if err != nil {
		return nil, err
	}
	op := st.(*Operator)
	if len(op.ins) == 1 {
		op.ins[0] = feed
	}
	return &Harness{op: op, in: feed, out: n.Sch}, nil
}

// OutputSchema is the columns of a function's output type: the fields of
// a ROW, else one column EXPR$0.
func OutputSchema(t types.Type) types.Schema {
	if t.Kind == types.KindRow {
		return types.SchemaOf(t)
	}
	return types.Schema{Columns: []types.Column{{Name: "EXPR$0", Type: t}}}
}

// Schema returns the output columns (key prefix and function output).
func (h *Harness) Schema() types.Schema { return h.out }

// Process runs eval for each row and returns the rows collected.
func (h *Harness) Process(rows ...types.Row) ([]types.Row, error) {
	h.in.rows = append(h.in.rows, rows...)
	if len(h.op.node.Tables) == 0 {
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
		if ev.Kind == exec.EvRow {
			out = append(out, ev.Row)
		}
	}
	h.op.out, h.op.oi = h.op.out[:0], 0
	return out
}

// Flush writes the live state to the store, as the end of a statement does.
func (h *Harness) Flush() error {
	return h.op.ex.Store.Update(func(tx state.Tx) error { return h.op.Flush(tx, false) })
}

// Close releases the instance.
func (h *Harness) Close() error { return h.op.Close() }

// feedStream hands out the rows given to a Harness.
type feedStream struct {
	rows []types.Row
}

var _ exec.Stream = (*feedStream)(nil)

func (f *feedStream) Next() (exec.Event, error) {
	if len(f.rows) == 0 {
		return exec.Event{Kind: exec.EvWatermark}, nil
	}
	r := f.rows[0]
	f.rows = f.rows[1:]
	return exec.Event{Kind: exec.EvRow, Row: r}, nil
}

func (f *feedStream) Close() error { return nil }
