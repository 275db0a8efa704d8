package sqlop

import (
	"fmt"
	"sort"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
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
}

var _ exec.Node = (*WindowRankNode)(nil)

func (n *WindowRankNode) Schema() types.Schema           { return n.Sch }
func (n *WindowRankNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *WindowRankNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *WindowRankNode) Explain() string                { return n.Text }

func (n *WindowRankNode) Open(ex *exec.Execution) (exec.Stream, error) {
	what := "a window Top-N"
	if n.Dedup != KeepTopN {
		what = "a window deduplication"
	}
	if err := ex.InMemory(what + " keeps its open windows"); err != nil {
		return nil, err
	}
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &windowRankStream{n: n, in: in, wm: minWatermark, groups: map[string]*windowRankGroup{}, minEnd: exec.MaxWatermark}, nil
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
	n      *WindowRankNode
	in     exec.Stream
	wm     int64
	groups map[string]*windowRankGroup
	seq    int64
	out    exec.Queue
	minEnd int64 // at most the smallest end of the open windows
}

var (
	_ exec.Stream       = (*windowRankStream)(nil)
	_ exec.TimeOperator = (*windowRankStream)(nil)
)

func (s *windowRankStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

// Time fires the windows the watermark (or the end) passed.
func (s *windowRankStream) Time(ev *exec.Event) error {
	switch ev.Kind {
	case exec.EvWatermark:
		s.wm = ev.Wm
		s.fire(ev.Wm)
	case exec.EvEnd:
		s.fire(exec.MaxWatermark)
	}
	return nil
}

func (s *windowRankStream) Row(r types.Row) error {
	n := s.n
	if r.Kind != types.Insert {
		return fmt.Errorf("a window Top-N takes insert-only input, not a %s row", r.Kind)
	}
	end, ok := types.TimeMillis(r.Fields[n.End])
	if !ok || end-1 <= s.wm {
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
	k := string(keycodec.Encode(keys))
	g := s.groups[k]
	if g == nil {
		s.seq++
		g = &windowRankGroup{windowSlot: windowSlot{key: k, end: end, seq: s.seq}}
		s.groups[k] = g
		s.minEnd = min(s.minEnd, end)
	}
	if n.Dedup != KeepTopN {
		ts, ok := types.TimeMillis(r.Fields[n.Time])
		if !ok {
			return nil
		}
		if len(g.rows) == 0 || n.Dedup == KeepFirst && ts < g.ts || n.Dedup == KeepLast && ts >= g.ts {
			g.rows, g.ts = []sortedRow{{row: r.Copy()}}, ts
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
	return nil
}

// fire emits the windows that end at or before wm + 1, by end, then in
// the order they appeared, as WindowAggregateNode does.
func (s *windowRankStream) fire(wm int64) {
	if s.minEnd-1 > wm {
		return
	}
	for _, g := range dueWindows(s.groups, wm, &s.minEnd) {
		for i, sr := range g.rows {
			rank := int64(i + 1)
			if rank < s.n.RankStart {
				continue
			}
			fields := append(append(make([]any, 0, len(sr.row.Fields)+1), sr.row.Fields...), rank)
			s.out.PushRow(types.Insert, fields)
		}
	}
}

func (s *windowRankStream) Close() error { return s.in.Close() }
