package sqlop

import (
	"slices"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// The hash aggregation of batch mode (AggregateNode.Final), Flink's
// HashAggregate: the groups live in a Go map by the encoding of their
// GROUP BY values, each row adds to its group's accumulators (a
// retraction, from an updating input below, takes from them), and at the
// end of the input (or at the watermark of the end, which it goes before)
// each group that has rows gives one +I row, in the order of the group
// values (keycodec's encoding sorts as the values do). A SELECT of
// aggregates alone gives its one row even over no rows, as Flink's batch
// mode does. Nothing goes to the state store: a batch statement has no
// checkpoint to resume from: the statement takes none before its end
// (exec.Execution.HoldsInMemory), and runs again whole after a kill.

func (n *AggregateNode) openFinal(ex *exec.Execution) (exec.Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	ex.HoldsInMemory("a batch hash aggregation keeps its groups")
	return &hashAggStream{n: n, in: in, groups: map[string]*aggGroup{}, vals: make([]any, len(n.Groups))}, nil
}

type hashAggStream struct {
	n      *AggregateNode
	in     exec.Stream
	groups map[string]*aggGroup
	key    []byte // the current row's group, encoded
	vals   []any  // the current row's group values
	out    exec.Queue
	done   bool
}

var _ exec.TimeOperator = (*hashAggStream)(nil)

func (s *hashAggStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *hashAggStream) Row(r types.Row) error {
	n := s.n
	s.key = s.key[:0]
	for i, g := range n.Groups {
		v, err := g.Eval(r.Fields)
		if err != nil {
			return err
		}
		s.vals[i] = v
		s.key = keycodec.AppendValue(s.key, v)
	}
	g := s.groups[string(s.key)]
	if g == nil {
		g = s.newGroup()
		g.keys = slices.Clone(s.vals)
		s.groups[string(s.key)] = g
	}
	retract := r.Kind == types.UpdateBefore || r.Kind == types.Delete
	if err := accumulate(n.Calls, g.accs, r, retract); err != nil {
		return err
	}
	if retract {
		g.rows--
	} else {
		g.rows++
	}
	return nil
}

func (s *hashAggStream) newGroup() *aggGroup {
	g := &aggGroup{accs: make([]Accumulator, len(s.n.Calls))}
	for i, c := range s.n.Calls {
		g.accs[i] = NewAccumulator(c)
	}
	return g
}

// Time gives the groups' rows before the end of the input, or before the
// watermark of the end, whichever comes first.
func (s *hashAggStream) Time(ev *exec.Event) error {
	if s.done || ev.Kind == exec.EvWatermark && ev.Wm != exec.MaxWatermark {
		return nil
	}
	s.done = true
	if len(s.n.Groups) == 0 && len(s.groups) == 0 {
		g := s.newGroup() // over no rows: COUNT(*) is 0, SUM is NULL
		g.rows = 1
		s.groups[""] = g
	}
	keys := make([]string, 0, len(s.groups))
	for k := range s.groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		g := s.groups[k]
		delete(s.groups, k)
		if g.rows <= 0 {
			continue
		}
		grow := make([]any, 0, len(g.keys)+len(g.accs))
		grow = append(grow, g.keys...)
		for _, acc := range g.accs {
			grow = append(grow, acc.Value())
		}
		out := make([]any, len(s.n.Outs))
		for i, x := range s.n.Outs {
			v, err := x.Eval(grow)
			if err != nil {
				return err
			}
			out[i] = v
		}
		s.out.PushRow(types.Insert, out)
	}
	return nil
}

func (s *hashAggStream) Close() error { return s.in.Close() }
