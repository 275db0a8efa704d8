package sqlop

import (
	"fmt"
	"strconv"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// groupLimitNode is LIMIT n over an aggregation: the changes of the first
// n groups, in the order they first appear (the rows of the first n rows
// of the result table). A group that is deleted frees its place for a
// group that appears later. (Flink's streaming LIMIT is a rank without
// order, which may also bring back a group seen before; ptfsh does not.)
type GroupLimitNode struct {
	In *AggregateNode
	N  int64
}

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
	ex.HoldsInMemory("GROUP BY keeps its groups")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &groupLimitStream{n: n, in: in, admitted: map[string]int{}}, nil
}

type groupLimitStream struct {
	n  *GroupLimitNode
	in exec.Stream
	// admitted counts the admitted groups by upsert key (or, without one,
	// by output row); total is their number.
	admitted  map[string]int
	total     int64
	replacing bool // a -U of an admitted group passed: its +U follows
}

var _ exec.Stream = (*groupLimitStream)(nil)

func (s *groupLimitStream) Next() (exec.Event, error) {
	for {
		ev, err := s.in.Next()
		if err != nil || ev.Kind != exec.EvRow {
			return ev, err
		}
		// Without an upsert key (the GROUP BY values are not all selected,
		// or there is no GROUP BY) a group is known by its output row.
		var k string
		if key := s.n.UpsertKey(); key != nil {
			k = string(keycodec.Encode(keycodec.Pick(ev.Row, key)))
		} else {
			k = string(keycodec.Encode(ev.Row.Fields))
		}
		kind := ev.Row.Kind
		if s.admitted[k] > 0 {
			if kind == types.Delete || kind == types.UpdateBefore {
				s.remove(k)
				s.replacing = kind == types.UpdateBefore
			}
			return ev, nil
		}
		switch {
		case kind == types.UpdateAfter && s.replacing, kind == types.Insert && s.total < s.n.N:
			s.replacing = false
			s.admitted[k]++
			s.total++
			return ev, nil
		}
	}
}

func (s *groupLimitStream) remove(k string) {
	if s.admitted[k]--; s.admitted[k] == 0 {
		delete(s.admitted, k)
	}
	s.total--
}

func (s *groupLimitStream) Close() error { return s.in.Close() }

// aggregateNode is a GROUP BY (or a SELECT of aggregates alone). Its
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
}

var (
	_ exec.Node        = (*AggregateNode)(nil)
	_ exec.UpsertKeyed = (*AggregateNode)(nil)
)

func (n *AggregateNode) Schema() types.Schema { return n.Sch }

func (n *AggregateNode) Changelog() types.ChangelogMode { return n.Mode }

func (n *AggregateNode) Children() []exec.Node { return []exec.Node{n.In} }

func (n *AggregateNode) Explain() string { return n.Text }

// upsertKey is the output columns of the GROUP BY values, when all are
// selected.
func (n *AggregateNode) UpsertKey() []int { return n.Key }

func (n *AggregateNode) Open(ex *exec.Execution) (exec.Stream, error) {
	if !ex.Opts.EndOfInput {
		// The groups are not part of checkpoints (yet): a statement that
		// goes on in the next would start them empty, and be wrong.
		return nil, fmt.Errorf("GROUP BY keeps its groups in memory for one statement, so it cannot stop with SET 'ptfsh.end-of-input' = 'false' and go on in the next")
	}
	ex.KeepsInMemory("GROUP BY keeps its groups")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &aggregateStream{n: n, in: in, groups: map[string]*aggGroup{}}, nil
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
	groups map[string]*aggGroup
	out    exec.Queue
}

var _ exec.Stream = (*aggregateStream)(nil)

// Next hands on the changes of the groups; watermarks pass, as Flink
// forwards them.
func (s *aggregateStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *aggregateStream) Row(r types.Row) error {
	n := s.n
	keys := make([]any, len(n.Groups))
	for i, g := range n.Groups {
		v, err := g.Eval(r.Fields)
		if err != nil {
			return err
		}
		keys[i] = v
	}
	k := string(keycodec.Encode(keys))
	retract := r.Kind == types.UpdateBefore || r.Kind == types.Delete
	g := s.groups[k]
	if g == nil {
		if retract {
			return nil // the retraction of a group never seen: ignored, as in Flink
		}
		g = &aggGroup{keys: keys, accs: make([]Accumulator, len(n.Calls))}
		for i, c := range n.Calls {
			g.accs[i] = NewAccumulator(c)
		}
		s.groups[k] = g
	}
	for i, c := range n.Calls {
		var v any
		if c.Arg != nil {
			var err error
			if v, err = c.Arg.Eval(r.Fields); err != nil {
				return err
			}
		}
		if retract {
			g.accs[i].Retract(v)
		} else {
			g.accs[i].Add(v)
		}
	}
	if retract {
		g.rows--
	} else {
		g.rows++
	}
	if g.rows <= 0 {
		delete(s.groups, k)
		s.emit(types.Delete, g.out)
		return nil
	}
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
