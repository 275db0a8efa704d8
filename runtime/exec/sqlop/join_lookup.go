package sqlop

import (
	"fmt"
	"reflect"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// LookupJoinNode is Flink's lookup join, a JOIN d FOR SYSTEM_TIME AS OF
// o.proc_time ON o.k = d.k where proc_time is a PROCTIME() column: each
// row of the left side (the probe) is joined with the rows of the
// dimension table d whose key columns hold its key, as d is when the row
// arrives, and goes out at once; nothing is kept, so a later change of d
// retracts nothing. A dimension that answers lookups itself
// ([exec.Lookuper]: a faker table) is asked for each probe row's key; any
// other (a file, VALUES, a view over them) is read whole when the join
// starts and must end. Kind is InnerJoin or LeftJoin (a probe row without
// a match, or whose matches all fail Cond, padded with NULLs). Each output
// row has the kind of its probe row; the output changelog is the left's.
type LookupJoinNode struct {
	Left, Right exec.Node
	Kind        JoinKind
	// LeftKeys are the probe's key expressions; RightCols the dimension's
	// columns they equal, in the same order.
	LeftKeys  []expr.Expr
	RightCols []int
	Cond      expr.Expr
	// Table names the dimension in messages.
	Table string
	Sch   types.Schema
	Text  string
}

var _ exec.Node = (*LookupJoinNode)(nil)

func (n *LookupJoinNode) Schema() types.Schema           { return n.Sch }
func (n *LookupJoinNode) Changelog() types.ChangelogMode { return n.Left.Changelog() }
func (n *LookupJoinNode) Children() []exec.Node          { return []exec.Node{n.Left, n.Right} }
func (n *LookupJoinNode) Explain() string                { return n.Text }

func (n *LookupJoinNode) Open(ex *exec.Execution) (exec.Stream, error) {
	s := &lookupStream{n: n, width: n.Right.Schema().Len()}
	if l, ok := n.Right.(exec.Lookuper); ok {
		fn, ok, err := l.OpenLookup(ex, n.RightCols)
		if err != nil {
			return nil, err
		}
		s.lookup = fn
		if !ok {
			s.lookup = nil
		}
	}
	if s.lookup == nil {
		if err := s.readWhole(ex); err != nil {
			return nil, err
		}
	}
	in, err := n.Left.Open(ex)
	if err != nil {
		return nil, err
	}
	s.in = in
	return s, nil
}

// readWhole reads the dimension to its end into a map by key.
func (s *lookupStream) readWhole(ex *exec.Execution) error {
	live := ex.Live().Sources()
	in, err := s.n.Right.Open(ex)
	if err != nil {
		return err
	}
	defer in.Close()
	if ex.Live().Sources() > live {
		return fmt.Errorf("lookup join: table %s has no end (an unbounded source), and a lookup join reads a dimension table that cannot look rows up itself whole when it starts: bound it ('number-of-rows', a file, VALUES), look rows up in the faker table itself rather than a view over it, or join FOR SYSTEM_TIME AS OF an event-time attribute (a temporal join)", s.n.Table)
	}
	s.dim = map[string][][]any{}
	for n := 0; ; n++ {
		if n&1023 == 1023 {
			if err := ex.CheckCancelled(); err != nil {
				return err
			}
		}
		ev, err := in.Next()
		if err != nil {
			return err
		}
		switch ev.Kind {
		case exec.EvEnd:
			return nil
		case exec.EvIdle:
			return fmt.Errorf("lookup join: table %s has no end (a live source), and a lookup join reads a dimension table that cannot look rows up itself whole when it starts: bound it ('number-of-rows', a file, VALUES)", s.n.Table)
		case exec.EvRow:
		default:
			continue
		}
		vals := make([]any, len(s.n.RightCols))
		null := false
		for i, c := range s.n.RightCols {
			vals[i] = ev.Row.Fields[c]
			null = null || vals[i] == nil
		}
		if null {
			continue // NULL equals no key
		}
		k, err := s.keyOf(vals)
		if err != nil {
			return err
		}
		rows := s.dim[k]
		switch ev.Row.Kind {
		case types.Insert, types.UpdateAfter:
			s.dim[k] = append(rows, ev.Row.Fields)
		default: // -U, -D: the row goes
			for i, r := range rows {
				if reflect.DeepEqual(r, ev.Row.Fields) {
					s.dim[k] = append(rows[:i:i], rows[i+1:]...)
					break
				}
			}
		}
	}
}

type lookupStream struct {
	n      *LookupJoinNode
	in     exec.Stream
	width  int
	lookup exec.LookupFunc    // nil: dim holds the dimension
	dim    map[string][][]any // the dimension's rows by key
	out    exec.Queue
}

// keyOf encodes a key's values (the planner casts the probe's to the
// dimension columns' types).
func (s *lookupStream) keyOf(vals []any) (string, error) {
	return string(keycodec.Encode(vals)), nil
}

func (s *lookupStream) Next() (exec.Event, error) {
	for {
		if ev, ok := s.out.Pop(); ok {
			return ev, nil
		}
		ev, err := s.in.Next()
		if err != nil || ev.Kind != exec.EvRow {
			return ev, err
		}
		if err := s.probe(ev.Row); err != nil {
			return exec.Event{}, err
		}
	}
}

// probe joins one row of the left side.
func (s *lookupStream) probe(r types.Row) error {
	key := make([]any, len(s.n.LeftKeys))
	null := false
	for i, k := range s.n.LeftKeys {
		v, err := k.Eval(r.Fields)
		if err != nil {
			return err
		}
		key[i] = v
		null = null || v == nil
	}
	var rows [][]any
	if !null {
		var err error
		if s.lookup != nil {
			if rows, err = s.lookup(key); err != nil {
				return err
			}
		} else {
			k, err := s.keyOf(key)
			if err != nil {
				return err
			}
			rows = s.dim[k]
		}
	}
	matched := false
	for _, d := range rows {
		out := make([]any, 0, len(r.Fields)+s.width)
		out = append(append(out, r.Fields...), d...)
		if s.n.Cond != nil {
			v, err := s.n.Cond.Eval(out)
			if err != nil {
				return err
			}
			if v != true {
				continue
			}
		}
		matched = true
		s.out.PushRow(r.Kind, out)
	}
	if !matched && s.n.Kind == LeftJoin {
		out := make([]any, len(r.Fields)+s.width)
		copy(out, r.Fields)
		s.out.PushRow(r.Kind, out)
	}
	return nil
}

func (s *lookupStream) Close() error { return s.in.Close() }
