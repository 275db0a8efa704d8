package ptfop

import (
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// TableBinding is one table argument of a bound PTF call.
type TableBinding struct {
	Decl       int    // index in FuncDef.Args
	Name       string // argument name
	Source     string // the table as the call names it ("subquery" for one)
	In         exec.Node
	Partition  []int
	Sem        ptf.TableSemantics
	Pass       bool     // PASS_COLUMNS_THROUGH
	Set        bool     // set semantics
	OrderNulls []string // NULLS FIRST/LAST of each ORDER BY column as written ("" when not)
}

// Node is a bound PTF call: the plan node that runs the function over its
// table arguments ([Operator], or [Parallel] on several workers).
type Node struct {
	Def    *ptf.FuncDef
	Fn     string // the name it was called by
	UID    string
	Args   []any
	Tables []TableBinding
	FnOut  types.Schema // the function's own columns
	Sch    types.Schema // prefix + function columns (+ rowtime)
	Mode   types.ChangelogMode
	Text   string
	// Rowtime: the output ends with the on_time column of the input row
	// (or a timer's time), typed RowtimeType.
	Rowtime     bool
	RowtimeType types.Type
	// Pos is where the statement calls the function.
	Pos types.Pos
	// OrderBy are the ORDER BY keys of each table argument (nil: none).
	OrderBy [][]SortKey
}

var _ exec.Node = (*Node)(nil)

var (
	_ exec.Node        = (*Node)(nil)
	_ exec.UpsertKeyed = (*Node)(nil)
)

// sourceName names the input for people: its table, else its argument.
func (b *TableBinding) sourceName() string {
	if b.Source != "" {
		return b.Source
	}
	return b.Name
}

// timeColumn is the input's event-time column: its on_time column, else
// its table's time attribute (-1: none).
func (b *TableBinding) timeColumn() int {
	if b.Sem.TimeColumn >= 0 {
		return b.Sem.TimeColumn
	}
	for j, c := range b.In.Schema().Columns {
		if c.TimeAttr {
			return j
		}
	}
	return -1
}

func (n *Node) Schema() types.Schema           { return n.Sch }
func (n *Node) Changelog() types.ChangelogMode { return n.Mode }
func (n *Node) Children() []exec.Node {
	var c []exec.Node
	for _, t := range n.Tables {
		c = append(c, t.In)
	}
	return c
}

func (n *Node) Explain() string {
	uid := "null"
	if n.UID != "" {
		uid = n.UID
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
		v, err := tx.Get(exec.MetaNamespace, exec.FinishedKey(uid))
		if err != nil || v == nil {
			return err
		}
		if err := exec.DropUID(tx, uid); err != nil {
			return err
		}
		return tx.Delete(exec.MetaNamespace, exec.FinishedKey(uid))
	})
}

// markFinished records whether the statement that used uid ended its input.
func markFinished(tx state.Tx, uid string, finished bool) error {
	if finished {
		return tx.Put(exec.MetaNamespace, exec.FinishedKey(uid), []byte{1})
	}
	return tx.Delete(exec.MetaNamespace, exec.FinishedKey(uid))
}

// Open starts the call as an [Operator]: a new instance of the function,
// its state checked against the stored state of its uid (evolution), and
// its table arguments opened.
func (n *Node) Open(ex *exec.Execution) (exec.Stream, error) {
	spec := ptf.CallSpec{Ctx: ex.Ctx, UID: n.UID, Args: n.Args, Tables: make([]types.Schema, len(n.Def.Args)), Output: n.FnOut}
	for _, t := range n.Tables {
		spec.Tables[t.Decl] = t.In.Schema()
	}
	inst, err := n.Def.New(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.Fn, err)
	}
	ttl := stateTTLs(n, ex)
	op := &Operator{node: n, inst: inst, ex: ex, keyedState: newKeyedState(n, ex), views: newViewState(n, ex, ttl), ttl: ttl}
	op.ctx = ptf.NewContext(host{op})
	if n.UID != "" {
		if err := startFresh(ex.Store, n.UID); err != nil {
			return nil, types.At(n.Pos, fmt.Errorf("%s: %w", n.Fn, err))
		}
		if err := clearSpill(ex.Store, n.UID); err != nil {
			return nil, types.At(n.Pos, fmt.Errorf("%s: %w", n.Fn, err))
		}
		if len(n.Def.State) > 0 {
			if err := checkEvolution(ex.Store, n.Fn, n.UID, n.Def.State, ex.Opts.DiscardIncompatible); err != nil {
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
		if op.stored, err = op.openValues(); err != nil {
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
		op.ins = append(op.ins, st)
	}
	op.ended = make([]bool, len(op.ins))
	op.obs = newObserver(op)
	op.inWM, op.inHas = make([]int64, len(op.ins)), make([]bool, len(op.ins))
	op.buffers = make([]*sortBuffer, len(op.ins))
	for i, t := range n.Tables {
		if len(t.Sem.OrderBy) > 0 {
			op.buffers[i] = newSortBuffer(t.Sem.OrderBy[0], n.OrderBy[i])
			if n.UID != "" {
				b := op.buffers[i]
				if err := ex.Store.View(func(tx state.Tx) error { return b.load(tx, exec.SortBufferNamespace(n.UID, t.Name)) }); err != nil {
					op.Close()
					return nil, types.At(n.Pos, err)
				}
			}
		}
	}
	if n.UID != "" && HasSetSemantics(n.Tables) {
		if err := op.loadTimers(); err != nil {
			op.Close()
			return nil, err
		}
	}
	if n.UID != "" {
		if err := op.loadWatermarks(); err != nil {
			op.Close()
			return nil, types.At(n.Pos, err)
		}
	}
	if ex.Opts.Parallelism > 1 {
		why := parallelReason(n, ex)
		if why == "" {
			par, err := newParallel(op, spec, ex.Opts.Parallelism)
			if err != nil {
				return nil, types.At(n.Pos, err)
			}
			ex.Notes = append(ex.Notes, fmt.Sprintf("note: %s ran on %d workers (parallelism %d)", n.Fn, ex.Opts.Parallelism, ex.Opts.Parallelism))
			ex.Ptfs = append(ex.Ptfs, par)
			return par, nil
		}
		ex.Notes = append(ex.Notes, fmt.Sprintf("note: %s ran on 1 worker (parallelism %d): %s", n.Fn, ex.Opts.Parallelism, why))
	}
	ex.Ptfs = append(ex.Ptfs, op)
	return op, nil
}

// stateTTLs returns the time to live of each state entry of call n, in
// milliseconds of processing time (0: none).
func stateTTLs(n *Node, ex *exec.Execution) []int64 {
	ttl := make([]int64, len(n.Def.State))
	for i, sd := range n.Def.State {
		switch {
		case sd.TTLSet:
			ttl[i] = sd.TTL.Milliseconds()
		default:
			ttl[i] = ex.Opts.StateTTL.Milliseconds()
		}
	}
	return ttl
}

// UpsertKey is the key of upsert output: the first table's PARTITION BY
// columns, which lead the output row.
func (n *Node) UpsertKey() []int {
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
