package sqlop

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
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
	// ProcTime: the windows are on a processing-time attribute, and fire
	// when the processing-time clock passes their end (not the watermark);
	// those open when the input ends are not emitted, as in Flink.
	ProcTime bool
	// Draw draws the windows in the statement's timeline, with the window
	// table function under it (window_draw.go).
	Draw *WindowDraw
}

var _ exec.Node = (*WindowAggregateNode)(nil)

func (n *WindowAggregateNode) Schema() types.Schema           { return n.Sch }
func (n *WindowAggregateNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *WindowAggregateNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *WindowAggregateNode) Explain() string                { return n.Text }

func (n *WindowAggregateNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("window-agg")
	var in exec.Stream
	var err error
	if tvf, ok := memWindowAggOK(n); ok && ex.Opts.EndOfInput && ex.Opts.Scratch && ex.Timeline == nil {
		// A bounded statement without a state file or a timeline: the
		// windows may live in memory (window_agg_mem.go), unless a
		// source of the input turns out to be live.
		if in, err = tvf.In.Open(ex); err != nil {
			return nil, err
		}
		if !ex.Live().HasSources() {
			ex.HoldsInMemory("a window aggregation keeps its open windows")
			return openMemWindowAgg(n, tvf, in, ex), nil
		}
		in = tvf.stream(in, ex)
	} else if in, err = n.In.Open(ex); err != nil {
		return nil, err
	}
	s := &windowAggStream{n: n, in: in, ex: ex, wm: exec.MinWatermark, obs: n.Draw.observer(ex, n.ProcTime)}
	if s.w, err = openWindowTable[*windowGroup](ex, ns, windowGroupCodec{n}); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

// windowGroupCodec encodes a window of a window aggregation: its slot,
// its keys and its accumulators.
type windowGroupCodec struct{ n *WindowAggregateNode }

func (c windowGroupCodec) Append(b []byte, g *windowGroup) ([]byte, error) {
	b = appendSlot(b, &g.windowSlot)
	b, err := appendValues(b, g.keys)
	if err != nil {
		return nil, err
	}
	return appendAccs(b, g.accs)
}

func (c windowGroupCodec) Decode(b []byte) (*windowGroup, error) {
	g := &windowGroup{}
	b, err := readSlot(b, &g.windowSlot)
	if err != nil {
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
	if len(b) != 0 || len(g.keys) != len(c.n.Groups) {
		return nil, fmt.Errorf("a window of %s does not match the query", c.n.Text)
	}
	return g, nil
}

// windowGroup is one window of one key: its end, the order it appeared
// in, and its accumulators.
type windowGroup struct {
	windowSlot
	keys []any
	accs []Accumulator
}

type windowAggStream struct {
	n   *WindowAggregateNode
	in  exec.Stream
	ex  *exec.Execution
	wm  int64
	w   *windowTable[*windowGroup]
	out exec.Queue
	// obs draws the windows in the timeline (nil: none).
	obs exec.OpObserver
	// keys and kbuf are the group values and key of the row at hand.
	keys []any
	kbuf []byte
}

var (
	_ exec.Stream       = (*windowAggStream)(nil)
	_ exec.TimeOperator = (*windowAggStream)(nil)
	_ exec.IdleOperator = (*windowAggStream)(nil)
	_ exec.Stateful     = (*windowAggStream)(nil)
)

func (s *windowAggStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *windowAggStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	return s.w.checkpoint(tx, finished)
}

func (s *windowAggStream) Quiescent() bool { return s.out.Len() == 0 }

// Time fires the windows the watermark (or the end of input) passed; on
// processing time, those the clock passed.
func (s *windowAggStream) Time(ev *exec.Event) error {
	if s.n.ProcTime {
		return procFire(s.ex, s.w, s.emit)
	}
	switch ev.Kind {
	case exec.EvWatermark:
		s.wm = max(s.wm, ev.Wm)
		if ev.Restored() {
			return nil
		}
		return s.w.fire(ev.Wm, s.emit)
	case exec.EvEnd:
		if s.ex.Opts.EndOfInput {
			return s.w.fire(exec.MaxWatermark, s.emit)
		}
	}
	return nil
}

// Idle fires, on processing time, the windows the clock passed while the
// input was quiet.
func (s *windowAggStream) Idle() error {
	if s.n.ProcTime {
		return procFire(s.ex, s.w, s.emit)
	}
	return nil
}

func (s *windowAggStream) Row(r types.Row) error {
	n := s.n
	end, ok := types.TimeMillis(r.Fields[n.End])
	now := s.wm
	if n.ProcTime {
		now = s.ex.Now()
		if err := procFire(s.ex, s.w, s.emit); err != nil {
			return err
		}
	}
	if !ok || end-1 <= now {
		return nil // late for this window: its result is out already
	}
	// The group's key is encoded into a buffer reused row after row; the
	// values are kept only for a new group.
	s.keys = s.keys[:0]
	k := s.kbuf[:0]
	for _, g := range n.Groups {
		v, err := g.Eval(r.Fields)
		if err != nil {
			return err
		}
		s.keys = append(s.keys, v)
		k = keycodec.AppendValue(k, v)
	}
	if len(n.Groups) == 0 {
		k = append(k, keycodec.Empty...)
	}
	s.kbuf = k
	g, found, err := s.w.get(k, end)
	if err != nil {
		return err
	}
	if !found {
		g = &windowGroup{keys: slices.Clone(s.keys), accs: make([]Accumulator, len(n.Calls))}
		for i, c := range n.Calls {
			g.accs[i] = NewAccumulator(c)
		}
		if err := s.w.add(k, end, g); err != nil {
			return err
		}
		if s.obs != nil {
			s.obs.TimerSet(drawKey(g.keys, n.Draw.AggKeys), end-1)
		}
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
	return s.w.put(g)
}

// emit hands on the result of a window that fired. The windows of one
// firing go by end, then in the order they appeared. (Flink orders the
// windows of one firing by its timer queue, which no query can rely on.)
func (s *windowAggStream) emit(g *windowGroup) error {
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
	if s.obs != nil {
		key := drawKey(g.keys, s.n.Draw.AggKeys)
		s.obs.TimerFired(key, g.end-1)
		s.obs.RowOut(key, g.end-1, rowText(out, s.n.Sch))
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

// appendSlot appends a slot: its key, end and seq.
func appendSlot(b []byte, w *windowSlot) []byte {
	b = binary.AppendUvarint(b, uint64(len(w.key)))
	b = append(b, w.key...)
	return appendVarint(appendVarint(b, w.end), w.seq)
}

// readSlot reads a slot appendSlot wrote.
func readSlot(b []byte, w *windowSlot) ([]byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, errAccTruncated
	}
	w.key = string(b[k : k+int(n)])
	b = b[k+int(n):]
	var err error
	if w.end, b, err = readVarint(b); err != nil {
		return nil, err
	}
	w.seq, b, err = readVarint(b)
	return b, err
}
