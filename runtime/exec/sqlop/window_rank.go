package sqlop

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// WindowDedup is what a WindowRankNode keeps of each window.
type WindowDedup uint8

const (
	// KeepTopN keeps the ranks RankStart to RankEnd by Keys (Flink's WindowRank).
	KeepTopN WindowDedup = iota
	// KeepFirst keeps the row of the smallest time, the first to arrive
	// among equals (Flink's WindowDeduplicate, keep=[FirstRow]).
	KeepFirst
	// KeepLast keeps the row of the largest time, the last to arrive
	// among equals (keep=[LastRow]).
	KeepLast
)

// WindowRankNode is Flink's window Top-N and window deduplication: a
// ROW_NUMBER partitioned by window_start and window_end (and more keys)
// over a window table function or a window aggregation, filtered by its
// rank. Each window of each key keeps its top rows until the watermark
// reaches window_end - 1, then emits them once, insert-only, in rank
// order, with the row number appended (1 for a deduplication). A row
// whose window has fired when it arrives is late and dropped.
type WindowRankNode struct {
	In         exec.Node
	Start, End int         // the window_start and window_end columns of the input
	Partition  []expr.Expr // the other PARTITION BY keys
	Keys       []OrderKey  // KeepTopN's order
	Dedup      WindowDedup
	Time       int // the time attribute of KeepFirst and KeepLast
	RankStart  int64
	RankEnd    int64
	Sch        types.Schema // the input's columns, then the row number
	Text       string
	// ProcTime: the windows are on a processing-time attribute and fire
	// when the processing-time clock passes their end.
	ProcTime bool
	// Draw, over a window table function, draws the windows in the
	// statement's timeline with it (window_draw.go); AggKeys index
	// Partition.
	Draw *WindowDraw
}

var _ exec.Node = (*WindowRankNode)(nil)

func (n *WindowRankNode) Schema() types.Schema           { return n.Sch }
func (n *WindowRankNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *WindowRankNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *WindowRankNode) Explain() string                { return n.Text }

func (n *WindowRankNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("window-rank")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &windowRankStream{n: n, in: in, ex: ex, wm: exec.MinWatermark, obs: n.Draw.observer(ex, n.ProcTime)}
	if s.w, err = openWindowTable[*windowRankGroup](ex, ns, windowRankCodec{}); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

// windowRankCodec encodes a window of a window Top-N or deduplication: its
// slot, the kept row's time, and its rows with their sort keys.
type windowRankCodec struct{}

func (windowRankCodec) Append(b []byte, g *windowRankGroup) ([]byte, error) {
	b = appendVarint(appendSlot(b, &g.windowSlot), g.ts)
	b = binary.AppendUvarint(b, uint64(len(g.rows)))
	for _, sr := range g.rows {
		var err error
		if b, err = appendValues(b, sr.key); err != nil {
			return nil, err
		}
		if b, err = exec.AppendValue(b, sr.row); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (windowRankCodec) Decode(b []byte) (*windowRankGroup, error) {
	g := &windowRankGroup{}
	b, err := readSlot(b, &g.windowSlot)
	if err != nil {
		return nil, err
	}
	if g.ts, b, err = readVarint(b); err != nil {
		return nil, err
	}
	n, b, err := readCount(b)
	if err != nil {
		return nil, err
	}
	for range n {
		var sr sortedRow
		if sr.key, b, err = readValues(b); err != nil {
			return nil, err
		}
		if sr.row, b, err = readRow(b, "a window's row"); err != nil {
			return nil, err
		}
		g.rows = append(g.rows, sr)
	}
	if len(b) != 0 {
		return nil, errAccTruncated
	}
	return g, nil
}

// windowRankGroup is one window of one key: its end, the order it
// appeared in, and its rows so far (sorted, at most RankEnd of them; one
// for a deduplication).
type windowRankGroup struct {
	windowSlot
	rows []sortedRow
	ts   int64 // the kept row's time, for a deduplication
}

type windowRankStream struct {
	n   *WindowRankNode
	in  exec.Stream
	ex  *exec.Execution
	wm  int64
	w   *windowTable[*windowRankGroup]
	out exec.Queue
	// obs draws the windows in the timeline (nil: none).
	obs exec.OpObserver
}

var (
	_ exec.Stream       = (*windowRankStream)(nil)
	_ exec.TimeOperator = (*windowRankStream)(nil)
	_ exec.IdleOperator = (*windowRankStream)(nil)
	_ exec.Stateful     = (*windowRankStream)(nil)
)

func (s *windowRankStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *windowRankStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	return s.w.checkpoint(tx, finished)
}

func (s *windowRankStream) Quiescent() bool { return s.out.Len() == 0 }

// Time fires the windows the watermark (or the end of input) passed; on
// processing time, those the clock passed.
func (s *windowRankStream) Time(ev *exec.Event) error {
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

// Idle fires, on processing time, the windows the clock passed.
func (s *windowRankStream) Idle() error {
	if s.n.ProcTime {
		return procFire(s.ex, s.w, s.emit)
	}
	return nil
}

func (s *windowRankStream) Row(r types.Row) error {
	n := s.n
	if r.Kind != types.Insert {
		return fmt.Errorf("a window Top-N takes insert-only input, not a %s row", r.Kind)
	}
	end, ok := types.TimeMillis(r.Fields[n.End])
	now := s.wm
	if n.ProcTime {
		now = s.ex.Now()
		if err := procFire(s.ex, s.w, s.emit); err != nil {
			return err
		}
	}
	if !ok || end-1 <= now {
		return nil // late: its window has fired
	}
	keys := make([]any, 0, len(n.Partition)+2)
	keys = append(keys, r.Fields[n.Start], r.Fields[n.End])
	for _, x := range n.Partition {
		v, err := x.Eval(r.Fields)
		if err != nil {
			return err
		}
		keys = append(keys, v)
	}
	k := keycodec.Encode(keys)
	g, found, err := s.w.get(k, end)
	if err != nil {
		return err
	}
	if !found {
		g = &windowRankGroup{}
		if err := s.w.add(k, end, g); err != nil {
			return err
		}
		if s.obs != nil {
			s.obs.TimerSet(drawKey(keys[2:], n.Draw.AggKeys), end-1)
		}
	}
	if n.Dedup != KeepTopN {
		ts, ok := types.TimeMillis(r.Fields[n.Time])
		if !ok {
			return nil
		}
		if len(g.rows) == 0 || n.Dedup == KeepFirst && ts < g.ts || n.Dedup == KeepLast && ts >= g.ts {
			g.rows, g.ts = []sortedRow{{row: r.Copy()}}, ts
			return s.w.put(g)
		}
		return nil
	}
	key, err := sortKeyValues(n.Keys, r)
	if err != nil {
		return err
	}
	buf := g.rows
	if int64(len(buf)) >= n.RankEnd && compareSortKeys(n.Keys, key, buf[len(buf)-1].key) >= 0 {
		return nil // it sorts after a full top RankEnd
	}
	at := sort.Search(len(buf), func(i int) bool { return compareSortKeys(n.Keys, buf[i].key, key) > 0 })
	buf = append(buf, sortedRow{})
	copy(buf[at+1:], buf[at:])
	buf[at] = sortedRow{key: key, row: r.Copy()}
	if int64(len(buf)) > n.RankEnd {
		buf = buf[:n.RankEnd]
	}
	g.rows = buf
	return s.w.put(g)
}

// emit hands on the rows of a window that fired, in rank order; the
// windows go by end, then in the order they appeared, as
// WindowAggregateNode's.
func (s *windowRankStream) emit(g *windowRankGroup) error {
	key := ""
	if s.obs != nil {
		if len(g.rows) > 0 && len(s.n.Draw.AggKeys) > 0 {
			vals := make([]any, len(s.n.Partition))
			for i, x := range s.n.Partition {
				vals[i], _ = x.Eval(g.rows[0].row.Fields) // evaluated once when the row came
			}
			key = drawKey(vals, s.n.Draw.AggKeys)
		}
		s.obs.TimerFired(key, g.end-1)
	}
	for i, sr := range g.rows {
		rank := int64(i + 1)
		if rank < s.n.RankStart {
			continue
		}
		fields := append(append(make([]any, 0, len(sr.row.Fields)+1), sr.row.Fields...), rank)
		s.out.PushRow(types.Insert, fields)
		if s.obs != nil {
			s.obs.RowOut(key, g.end-1, rowText(fields, s.n.Sch))
		}
	}
	return nil
}

func (s *windowRankStream) Close() error { return s.in.Close() }
