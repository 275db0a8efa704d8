package sqlop

import (
	"fmt"
	"strconv"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// GroupLimitNode is LIMIT n over an aggregation: the changes of the first
// n groups, in the order they first appear (the rows of the first n rows
// of the result table). A group that is deleted frees its place for a
// group that appears later. (Flink's streaming LIMIT is a rank without
// order, which may also bring back a group seen before; ptfsh does not.)
type GroupLimitNode struct {
	In *AggregateNode
	N  int64
}

var _ exec.Node = (*GroupLimitNode)(nil)

var (
	_ exec.Node        = (*GroupLimitNode)(nil)
	_ exec.UpsertKeyed = (*GroupLimitNode)(nil)
)

func (n *GroupLimitNode) Schema() types.Schema { return n.In.Schema() }

func (n *GroupLimitNode) Changelog() types.ChangelogMode { return n.In.Changelog() }

func (n *GroupLimitNode) Children() []exec.Node { return []exec.Node{n.In} }

func (n *GroupLimitNode) UpsertKey() []int { return n.In.UpsertKey() }

func (n *GroupLimitNode) Explain() string { return "Limit(fetch=[" + strconv.Itoa(int(n.N)) + "])" }

func (n *GroupLimitNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("limit")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &groupLimitStream{n: n, in: in}
	if s.admitted, err = openTable[int64](ex, ns, "admitted", int64Codec{}); err != nil {
		in.Close()
		return nil, err
	}
	if s.meta, err = openTable[int64](ex, ns, "total", int64Codec{}); err != nil {
		in.Close()
		return nil, err
	}
	if s.total, _, err = s.meta.Get(totalKey); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

// totalKey holds the number of admitted groups.
var totalKey = []byte("total")

type groupLimitStream struct {
	n  *GroupLimitNode
	in exec.Stream
	// admitted counts the admitted groups by upsert key (or, without one,
	// by output row); total is their number, kept in meta.
	admitted  *opstate.Table[int64]
	meta      *opstate.Table[int64]
	total     int64
	replacing bool // a -U of an admitted group passed: its +U follows
}

var (
	_ exec.Stream   = (*groupLimitStream)(nil)
	_ exec.Stateful = (*groupLimitStream)(nil)
)

func (s *groupLimitStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	if err := s.meta.Put(totalKey, s.total); err != nil {
		return err
	}
	return tableSet{s.admitted, s.meta}.checkpoint(tx, finished)
}

// Quiescent: the stream holds no rows (a -U and its +U are handed on
// together by the GROUP BY below, which is not quiescent between them).
func (s *groupLimitStream) Quiescent() bool { return !s.replacing }

func (s *groupLimitStream) Next() (exec.Event, error) {
	for {
		ev, err := s.in.Next()
		if err != nil || ev.Kind != exec.EvRow {
			return ev, err
		}
		// Without an upsert key (the GROUP BY values are not all selected,
		// or there is no GROUP BY) a group is known by its output row.
		var k []byte
		if key := s.n.UpsertKey(); key != nil {
			k = keycodec.Encode(keycodec.Pick(ev.Row, key))
		} else {
			k = keycodec.Encode(ev.Row.Fields)
		}
		kind := ev.Row.Kind
		n, _, err := s.admitted.Get(k)
		if err != nil {
			return exec.Event{}, err
		}
		if n > 0 {
			if kind == types.Delete || kind == types.UpdateBefore {
				if err := s.put(k, n-1); err != nil {
					return exec.Event{}, err
				}
				s.total--
				s.replacing = kind == types.UpdateBefore
			}
			return ev, nil
		}
		switch {
		case kind == types.UpdateAfter && s.replacing, kind == types.Insert && s.total < s.n.N:
			s.replacing = false
			if err := s.put(k, n+1); err != nil {
				return exec.Event{}, err
			}
			s.total++
			return ev, nil
		}
	}
}

// put sets the count of group k, which goes at 0.
func (s *groupLimitStream) put(k []byte, n int64) error {
	if n <= 0 {
		return s.admitted.Delete(k)
	}
	return s.admitted.Put(k, n)
}

func (s *groupLimitStream) Close() error { return s.in.Close() }

// AggregateNode is a GROUP BY (or a SELECT of aggregates alone). Its
// output row is computed from the group row [group values..., aggregate
// results...] by outs.
type AggregateNode struct {
	In     exec.Node
	Groups []expr.Expr // GROUP BY expressions over the input row
	Calls  []*AggCall
	Outs   []expr.Expr // output columns over the group row
	Sch    types.Schema
	Key    []int
	Mode   types.ChangelogMode
	Text   string
	// Final makes it the hash aggregation of batch mode: each group's
	// row once, at the end of the input (aggregate_batch.go).
	Final bool
}

var _ exec.Node = (*AggregateNode)(nil)

var (
	_ exec.Node        = (*AggregateNode)(nil)
	_ exec.UpsertKeyed = (*AggregateNode)(nil)
)

func (n *AggregateNode) Schema() types.Schema { return n.Sch }

func (n *AggregateNode) Changelog() types.ChangelogMode { return n.Mode }

func (n *AggregateNode) Children() []exec.Node { return []exec.Node{n.In} }

func (n *AggregateNode) Explain() string { return n.Text }

// UpsertKey is the output columns of the GROUP BY values, when all are
// selected.
func (n *AggregateNode) UpsertKey() []int { return n.Key }

func (n *AggregateNode) Open(ex *exec.Execution) (exec.Stream, error) {
	if n.Final {
		return n.openFinal(ex) // aggregate_batch.go
	}
	ns := ex.OperatorNamespace("groupby")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &aggregateStream{n: n, in: in}
	if s.groups, err = openTable[*aggGroup](ex, ns, "groups", aggCodec{n}); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

// aggCodec encodes a group: its row count, GROUP BY values, accumulators,
// and the results and row it last emitted.
type aggCodec struct{ n *AggregateNode }

func (c aggCodec) Append(b []byte, g *aggGroup) ([]byte, error) {
	b = appendVarint(b, g.rows)
	var err error
	if b, err = appendValues(b, g.keys); err != nil {
		return nil, err
	}
	if b, err = appendAccs(b, g.accs); err != nil {
		return nil, err
	}
	if b, err = appendValues(b, g.vals); err != nil {
		return nil, err
	}
	return appendValues(b, g.out)
}

func (c aggCodec) Decode(b []byte) (*aggGroup, error) {
	g := &aggGroup{}
	var err error
	if g.rows, b, err = readVarint(b); err != nil {
		return nil, err
	}
	if g.keys, b, err = readValues(b); err != nil {
		return nil, err
	}
	if g.keys == nil {
		g.keys = make([]any, len(c.n.Groups))
	}
	if g.accs, b, err = readAccs(b, c.n.Calls); err != nil {
		return nil, err
	}
	if g.vals, b, err = readValues(b); err != nil {
		return nil, err
	}
	if g.out, b, err = readValues(b); err != nil {
		return nil, err
	}
	if len(b) != 0 || len(g.keys) != len(c.n.Groups) {
		return nil, fmt.Errorf("a group of %s does not match the query (%d bytes left)", c.n.Text, len(b))
	}
	return g, nil
}

// aggGroup is the state of one group.
type aggGroup struct {
	keys []any
	accs []Accumulator
	rows int64 // rows in the group: it ends when a retraction empties it
	vals []any // the aggregate results last emitted
	out  []any // the row last emitted, nil before the first
}

type aggregateStream struct {
	n      *AggregateNode
	in     exec.Stream
	groups *opstate.Table[*aggGroup]
	out    exec.Queue
}

var (
	_ exec.Stream   = (*aggregateStream)(nil)
	_ exec.Stateful = (*aggregateStream)(nil)
)

func (s *aggregateStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	return tableSet{s.groups}.checkpoint(tx, finished)
}

func (s *aggregateStream) Quiescent() bool { return s.out.Len() == 0 }

// Next hands on the changes of the groups; watermarks pass, as Flink
// forwards them.
func (s *aggregateStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *aggregateStream) Row(r types.Row) (err error) {
	n := s.n
	keys := make([]any, len(n.Groups))
	for i, g := range n.Groups {
		v, err := g.Eval(r.Fields)
		if err != nil {
			return err
		}
		keys[i] = v
	}
	k := keycodec.Encode(keys)
	retract := r.Kind == types.UpdateBefore || r.Kind == types.Delete
	g, _, err := s.groups.Get(k)
	if err != nil {
		return err
	}
	if g == nil {
		if retract {
			return nil // the retraction of a group never seen: ignored, as in Flink
		}
		g = &aggGroup{keys: keys, accs: make([]Accumulator, len(n.Calls))}
		for i, c := range n.Calls {
			g.accs[i] = NewAccumulator(c)
		}
	}
	if err := accumulate(n.Calls, g.accs, r, retract); err != nil {
		return err
	}
	if retract {
		g.rows--
	} else {
		g.rows++
	}
	if g.rows <= 0 {
		s.emit(types.Delete, g.out)
		return s.groups.Delete(k)
	}
	// The group goes back to the table once changed: Put may write it out
	// of memory at once.
	defer func() {
		if err == nil {
			err = s.groups.Put(k, g)
		}
	}()
	vals := make([]any, len(n.Calls))
	for i, acc := range g.accs {
		vals[i] = acc.Value()
	}
	if g.out != nil && sameValues(vals, g.vals) {
		return nil // unchanged: Flink emits nothing
	}
	grow := append(append(make([]any, 0, len(keys)+len(vals)), keys...), vals...)
	out := make([]any, len(n.Outs))
	for i, x := range n.Outs {
		v, err := x.Eval(grow)
		if err != nil {
			return err
		}
		out[i] = v
	}
	if g.out == nil {
		s.emit(types.Insert, out)
	} else {
		s.emit(types.UpdateBefore, g.out)
		s.emit(types.UpdateAfter, out)
	}
	g.vals, g.out = vals, out
	return nil
}

func (s *aggregateStream) emit(k types.RowKind, fields []any) {
	s.out.PushRow(k, fields)
}

func (s *aggregateStream) Close() error { return s.in.Close() }

// sameValues reports whether two aggregate results are equal.
func sameValues(a, b []any) bool {
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) || a[i] != nil && expr.CompareValues(a[i], b[i]) != 0 {
			return false
		}
	}
	return true
}

// accumulate adds row r's arguments to the accumulators of calls, or takes
// them back (retract).
func accumulate(calls []*AggCall, accs []Accumulator, r types.Row, retract bool) error {
	for i, c := range calls {
		var v any
		if c.Arg != nil {
			var err error
			if v, err = c.Arg.Eval(r.Fields); err != nil {
				return err
			}
		}
		if retract {
			accs[i].Retract(v)
		} else {
			accs[i].Add(v)
		}
	}
	return nil
}
