package sqlop

import (
	"sort"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// WindowAggregateNode is Flink's window aggregation: a GROUP BY of
// window_start and window_end (and more keys) over a window table
// function. Each group is one window of one key; it emits one final +I
// row when the watermark reaches window_end - 1, and nothing before. Its
// input carries the window columns (a WindowTVFNode, which drops the late
// rows, under filters); the output row is computed from the group row
// [group values..., aggregate results...] by Outs, as AggregateNode's.
type WindowAggregateNode struct {
	In     exec.Node
	End    int         // the window_end column of the input
	Groups []expr.Expr // GROUP BY expressions over the input row
	Calls  []*AggCall
	Outs   []expr.Expr // output columns over the group row
	Sch    types.Schema
	Text   string
}

var _ exec.Node = (*WindowAggregateNode)(nil)

func (n *WindowAggregateNode) Schema() types.Schema           { return n.Sch }
func (n *WindowAggregateNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *WindowAggregateNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *WindowAggregateNode) Explain() string                { return n.Text }

func (n *WindowAggregateNode) Open(ex *exec.Execution) (exec.Stream, error) {
	if err := ex.InMemory("a window aggregation keeps its open windows"); err != nil {
		return nil, err
	}
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &windowAggStream{n: n, in: in, ex: ex, wm: minWatermark, groups: map[string]*windowGroup{}, minEnd: exec.MaxWatermark}, nil
}

// windowGroup is one window of one key: its end, the order it appeared
// in, and its accumulators.
type windowGroup struct {
	windowSlot
	keys []any
	accs []Accumulator
}

type windowAggStream struct {
	n      *WindowAggregateNode
	in     exec.Stream
	ex     *exec.Execution
	wm     int64
	groups map[string]*windowGroup
	seq    int64
	out    exec.Queue
	// minEnd is at most the smallest end of the open windows, so that a
	// watermark before it fires nothing without a look at every window.
	minEnd int64
}

var (
	_ exec.Stream       = (*windowAggStream)(nil)
	_ exec.TimeOperator = (*windowAggStream)(nil)
)

func (s *windowAggStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

// Time fires the windows the watermark (or the end) passed.
func (s *windowAggStream) Time(ev *exec.Event) error {
	switch ev.Kind {
	case exec.EvWatermark:
		s.wm = ev.Wm
		return s.fire(ev.Wm)
	case exec.EvEnd:
		return s.fire(exec.MaxWatermark)
	}
	return nil
}

func (s *windowAggStream) Row(r types.Row) error {
	n := s.n
	end, ok := types.TimeMillis(r.Fields[n.End])
	if !ok || end-1 <= s.wm {
		return nil // late for this window: its result is out already
	}
	keys := make([]any, len(n.Groups))
	for i, g := range n.Groups {
		v, err := g.Eval(r.Fields)
		if err != nil {
			return err
		}
		keys[i] = v
	}
	k := string(keycodec.Encode(keys))
	g := s.groups[k]
	if g == nil {
		s.seq++
		g = &windowGroup{windowSlot: windowSlot{key: k, end: end, seq: s.seq}, keys: keys, accs: make([]Accumulator, len(n.Calls))}
		for i, c := range n.Calls {
			g.accs[i] = NewAccumulator(c)
		}
		s.groups[k] = g
		s.minEnd = min(s.minEnd, end)
	}
	for i, c := range n.Calls {
		var v any
		if c.Arg != nil {
			var err error
			if v, err = c.Arg.Eval(r.Fields); err != nil {
				return err
			}
		}
		g.accs[i].Add(v)
	}
	return nil
}

// fire emits the windows that end at or before wm + 1, by end, then in
// the order they appeared. (Flink orders the windows of one firing by its
// timer queue, which no query can rely on.)
func (s *windowAggStream) fire(wm int64) error {
	if s.minEnd-1 > wm {
		return nil
	}
	for _, g := range dueWindows(s.groups, wm, &s.minEnd) {
		grow := append([]any{}, g.keys...)
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

func (s *windowAggStream) Close() error { return s.in.Close() }

// windowSlot is what every group of a window operator has: its key, its
// window's end and the order it appeared in.
type windowSlot struct {
	key string
	end int64
	seq int64
}

func (w *windowSlot) slot() *windowSlot { return w }

// dueWindows takes out of groups those whose window the watermark wm has
// passed (end - 1 <= wm), ordered by window end and then by when they
// appeared, and sets *minEnd to the earliest end of those left.
func dueWindows[G interface{ slot() *windowSlot }](groups map[string]G, wm int64, minEnd *int64) []G {
	var done []G
	*minEnd = exec.MaxWatermark
	for _, g := range groups {
		if w := g.slot(); w.end-1 <= wm {
			done = append(done, g)
		} else {
			*minEnd = min(*minEnd, w.end)
		}
	}
	sort.Slice(done, func(i, j int) bool {
		a, b := done[i].slot(), done[j].slot()
		if a.end != b.end {
			return a.end < b.end
		}
		return a.seq < b.seq
	})
	for _, g := range done {
		delete(groups, g.slot().key)
	}
	return done
}
