package session

import (
	"context"
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// Harness runs one PTF over rows without SQL, the way Flink's
// ProcessTableFunctionTestHarness does: for unit tests of PTF
// implementations (script's JS instances, stdlib's Go PTFs). It keeps
// state between Process calls.
type Harness struct {
	op  *exec.PtfOp
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
	n := &exec.PtfNode{Def: def, Fn: def.Name, Uid: opts.UID, Args: make([]any, len(def.Args)), Mode: types.InsertOnly}
	if n.Uid == "" {
		n.Uid = def.Name
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
		tb := exec.TableBinding{Decl: i, Name: a.Name, In: &exec.ValuesNode{Sch: input},
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
	n.FnOut = plan.OutputSchema(def.Output)
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
	ex := exec.NewExecution(opts.Ctx, opts.Store)
	st, err := n.Open(ex)
	if err != nil {
		return nil, err
	}
	op := st.(*exec.PtfOp)
	if len(op.Ins) == 1 {
		op.Ins[0] = feed
	}
	return &Harness{op: op, in: feed, out: n.Sch}, nil
}

// Schema returns the output columns (key prefix and function output).
func (h *Harness) Schema() types.Schema { return h.out }

// Process runs eval for each row and returns the rows collected.
func (h *Harness) Process(rows ...types.Row) ([]types.Row, error) {
	h.in.rows = append(h.in.rows, rows...)
	if len(h.op.Node.Tables) == 0 {
		h.op.Evaled = false
		if err := h.op.Step(); err != nil {
			return nil, err
		}
	}
	for len(h.in.rows) > 0 {
		if err := h.op.Step(); err != nil {
			return h.drain(), err
		}
	}
	return h.drain(), nil
}

func (h *Harness) drain() []types.Row {
	var out []types.Row
	for _, ev := range h.op.Out[h.op.Oi:] {
		if ev.Kind == exec.EvRow {
			out = append(out, ev.Row)
		}
	}
	h.op.Out, h.op.Oi = h.op.Out[:0], 0
	return out
}

// Flush writes the live state to the store, as the end of a statement does.
func (h *Harness) Flush() error {
	return h.op.Ex.Store.Update(func(tx state.Tx) error { return h.op.Flush(tx, false) })
}

// Close releases the instance.
func (h *Harness) Close() error { return h.op.Close() }

// feedStream hands out the rows given to a Harness.
type feedStream struct {
	rows []types.Row
}

func (f *feedStream) Next() (exec.Event, error) {
	if len(f.rows) == 0 {
		return exec.Event{Kind: exec.EvWatermark}, nil
	}
	r := f.rows[0]
	f.rows = f.rows[1:]
	return exec.Event{Kind: exec.EvRow, Row: r}, nil
}

func (f *feedStream) Close() error { return nil }
