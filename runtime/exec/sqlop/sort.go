package sqlop

import (
	"encoding/binary"
	"sort"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// ORDER BY in a SELECT, with Flink's streaming rules: ORDER BY ... LIMIT n
// is a Top-N (Flink's SortLimit), which emits -D for a row that leaves the
// first n and +I for one that enters them; ORDER BY an ascending time
// attribute without LIMIT is Flink's TemporalSort, which holds rows until
// the watermark passes them. Both take insert-only input and keep their
// rows in memory (no checkpoints).

// OrderKey is one key of an ORDER BY: an expression over the input's
// columns, its direction and where NULLs go.
type OrderKey struct {
	Expr       expr.Expr
	Desc       bool
	NullsFirst bool
	Text       string // as EXPLAIN shows it: score DESC
}

// compareSortKeys orders two rows' key values by keys.
func compareSortKeys(keys []OrderKey, a, b []any) int {
	for i, k := range keys {
		x, y := a[i], b[i]
		var c int
		switch {
		case x == nil && y == nil:
			continue
		case x == nil || y == nil:
			c = 1
			if (x == nil) == k.NullsFirst {
				c = -1
			}
			return c // NULLs go first or last whatever the direction
		default:
			c = expr.CompareValues(x, y)
		}
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func sortKeyValues(keys []OrderKey, r types.Row) ([]any, error) {
	vals := make([]any, len(keys))
	for i, k := range keys {
		v, err := k.Expr.Eval(r.Fields)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

func sortKeyTexts(keys []OrderKey) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = k.Text
	}
	return strings.Join(s, ", ")
}

// TopNNode is ORDER BY keys LIMIT n [OFFSET m] over an insert-only input,
// as Flink's AppendOnlyTopNFunction without a rank number. Without OFFSET
// and with more than one place, a row that sorts into the first n is
// emitted as +I, after a -D of the row it pushes out. With OFFSET m, or
// with LIMIT 1, the output is the places m+1 to m+n, each a row that an
// arrival may change: a place that changes gives -U of its old row and +U
// of its new one, a place filled for the first time +I, place by place
// (Flink 2.3.0 gives these rows). A row equal in its keys to the last one
// of a full top does not enter it.
type TopNNode struct {
	In     exec.Node
	Keys   []OrderKey
	N      int64
	Offset int64
}

var _ exec.Node = (*TopNNode)(nil)

func (n *TopNNode) Schema() types.Schema { return n.In.Schema() }
func (n *TopNNode) Changelog() types.ChangelogMode {
	if n.byPlace() {
		return types.NewChangelogMode(types.Insert, types.UpdateBefore, types.UpdateAfter)
	}
	return types.NewChangelogMode(types.Insert, types.Delete)
}
func (n *TopNNode) Children() []exec.Node { return []exec.Node{n.In} }

// byPlace reports whether the Top-N emits its changes place by place
// (-U/+U): with an OFFSET, or with a single place (LIMIT 1), as Flink
// 2.3.0 does; otherwise -D/+I.
func (n *TopNNode) byPlace() bool { return n.Offset > 0 || n.N == 1 }

func (n *TopNNode) Explain() string {
	return "SortLimit(orderBy=[" + sortKeyTexts(n.Keys) + "], offset=[" + strconv.FormatInt(n.Offset, 10) + "], fetch=[" + strconv.FormatInt(n.N, 10) + "], strategy=[AppendFastStrategy])"
}

func (n *TopNNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("topn")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &topNStream{n: n, in: in}
	if err := s.open(ex, ns); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

// wholeKey is the key of an operator's one value in a table: the rows of
// a Top-N without partitions.
var wholeKey = []byte("top")

func (s *topNStream) open(ex *exec.Execution, ns string) error {
	var err error
	if s.t, err = openTable[*sortedRows](ex, ns, "top", sortedRowsCodec{}); err != nil {
		return err
	}
	rs, _, err := s.t.Get(wholeKey)
	if rs != nil {
		s.buf = rs.rows
	}
	return err
}

func (s *topNStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	if err := s.t.Put(wholeKey, &sortedRows{rows: s.buf}); err != nil {
		return err
	}
	return tableSet{s.t}.checkpoint(tx, finished)
}

func (s *topNStream) Quiescent() bool { return s.out.Len() == 0 }

type sortedRow struct {
	key []any
	row types.Row
}

// The state of an ORDER BY ... LIMIT: its top rows, in memory (at most
// offset+n) and in the one value of its table at each checkpoint.
type topNStream struct {
	n   *TopNNode
	in  exec.Stream
	t   *opstate.Table[*sortedRows]
	buf []sortedRow // the top offset+n, in order
	out exec.Queue
}

var (
	_ exec.Stream   = (*topNStream)(nil)
	_ exec.Stateful = (*topNStream)(nil)
)

func (s *topNStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *topNStream) Row(r types.Row) error {
	if s.n.N <= 0 {
		return nil
	}
	key, err := sortKeyValues(s.n.Keys, r)
	if err != nil {
		return err
	}
	// After every row whose keys are equal: ties keep arrival order.
	at := sort.Search(len(s.buf), func(i int) bool { return compareSortKeys(s.n.Keys, s.buf[i].key, key) > 0 })
	top := s.n.Offset + s.n.N
	if int64(at) >= top {
		return nil
	}
	r = r.Copy()
	r.Kind = types.Insert
	before := len(s.buf)
	s.buf = append(s.buf, sortedRow{})
	copy(s.buf[at+1:], s.buf[at:])
	s.buf[at] = sortedRow{key: key, row: r}
	if s.n.byPlace() {
		// The places from the new row's (or the first shown) on moved
		// down by one: each shown place that held a row changes, the
		// first empty one fills.
		for p := max(int64(at), s.n.Offset); p < top && p < int64(len(s.buf)); p++ {
			now := s.buf[p].row
			if p < int64(before) {
				old := s.buf[p+1].row // the row that was at p, one place down now
				s.out.PushRow(types.UpdateBefore, old.Fields)
				s.out.PushRow(types.UpdateAfter, now.Fields)
			} else {
				s.out.PushRow(types.Insert, now.Fields)
			}
		}
		if int64(len(s.buf)) > top {
			s.buf = s.buf[:top]
		}
		return nil
	}
	if int64(len(s.buf)) > s.n.N {
		last := s.buf[len(s.buf)-1].row
		s.buf = s.buf[:len(s.buf)-1]
		last.Kind = types.Delete
		s.out.PushRow(last.Kind, last.Fields)
	}
	s.out.PushRow(r.Kind, r.Fields)
	return nil
}

func (s *topNStream) Close() error { return s.in.Close() }

// TemporalSortNode is ORDER BY an ascending time attribute [, more keys]
// without LIMIT, as Flink's TemporalSort: rows wait until the watermark
// reaches their time, then go out sorted by the keys. As in Flink's
// RowTimeSortOperator a row is late, and dropped (counted in a note), only
// when its time is at or before the time of the last rows released: a row
// behind the watermark but after those waits for the next watermark.
type TemporalSortNode struct {
	In   exec.Node
	Time int // the time attribute's column
	Keys []OrderKey
}

var _ exec.Node = (*TemporalSortNode)(nil)

func (n *TemporalSortNode) Schema() types.Schema           { return n.In.Schema() }
func (n *TemporalSortNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *TemporalSortNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *TemporalSortNode) Explain() string {
	return "TemporalSort(orderBy=[" + sortKeyTexts(n.Keys) + "])"
}

func (n *TemporalSortNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("temporalsort")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &temporalSortStream{n: n, in: in, ex: ex, released: minWatermark}
	if err := s.open(ns); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

func (s *temporalSortStream) open(ns string) error {
	var err error
	if s.rows, err = openQueue[[]any](s.ex, ns, "rows", valuesCodec{}); err != nil {
		return err
	}
	if s.meta, err = openMeta(s.ex, ns); err != nil {
		return err
	}
	if s.seq, err = s.meta.getInt("seq"); err != nil {
		return err
	}
	if b, _ := s.meta.get("released"); b != nil {
		s.released, err = s.meta.getInt("released")
	}
	return err
}

// minWatermark is the watermark before any.
const minWatermark = -1 << 63

// The state of a temporal sort: the rows waiting for the watermark, keyed
// by their time and arrival (rows), and in meta the count of arrivals and
// the time of the last rows released.
type temporalSortStream struct {
	n        *TemporalSortNode
	in       exec.Stream
	ex       *exec.Execution
	released int64 // the time of the last rows released (Flink's lastTriggeringTs)
	rows     *dueQueue[[]any]
	meta     opMeta
	seq      int64
	out      exec.Queue
	late     int64
}

var (
	_ exec.Stream       = (*temporalSortStream)(nil)
	_ exec.TimeOperator = (*temporalSortStream)(nil)
	_ exec.Stateful     = (*temporalSortStream)(nil)
)

func (s *temporalSortStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	if err := s.meta.putInt("seq", s.seq); err != nil {
		return err
	}
	if err := s.meta.putInt("released", s.released); err != nil {
		return err
	}
	return tableSet{s.rows.t, s.meta}.checkpoint(tx, finished)
}

func (s *temporalSortStream) Quiescent() bool { return s.out.Len() == 0 }

func (s *temporalSortStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

// Time releases the rows the watermark (or the end) passed.
func (s *temporalSortStream) Time(ev *exec.Event) error {
	switch ev.Kind {
	case exec.EvWatermark:
		if ev.Restored() {
			return nil
		}
		return s.release(ev.Wm)
	case exec.EvEnd:
		// Stopped without its end of input, the rows that wait stay in
		// the state for the next run.
		if s.ex.Opts.EndOfInput {
			if err := s.release(1<<63 - 1); err != nil {
				return err
			}
		}
		if s.late > 0 {
			s.ex.Notes = append(s.ex.Notes, "note: ORDER BY dropped "+exec.Plural(s.late, "late row")+" (at or before the time of rows already sorted out when they arrived), as Flink's TemporalSort does")
		}
	}
	return nil
}

func (s *temporalSortStream) Row(r types.Row) error {
	t, ok := types.TimeMillis(r.Fields[s.n.Time])
	if !ok || t <= s.released {
		s.late++
		return nil
	}
	s.seq++
	return s.rows.Add(binary.BigEndian.AppendUint64(appendTime(nil, t), uint64(s.seq)), r.Copy().Fields)
}

// release emits the rows whose time is at or before wm, in order: by
// time, then, among rows of one time, by the other keys and in arrival
// order.
func (s *temporalSortStream) release(wm int64) error {
	var same []sortedRow // the rows of one time
	flush := func() {
		sort.SliceStable(same, func(i, j int) bool { return compareSortKeys(s.n.Keys, same[i].key, same[j].key) < 0 })
		for _, r := range same {
			s.out.PushRow(types.Insert, r.row.Fields)
		}
		same = same[:0]
	}
	last := int64(0)
	for {
		k, fields, ok, err := s.rows.Pop(wm)
		if err != nil {
			return err
		}
		if !ok {
			flush()
			return nil
		}
		t := keyTime(k)
		if len(same) > 0 && t != last {
			flush()
		}
		last, s.released = t, t
		r := types.Row{Fields: fields}
		key, err := sortKeyValues(s.n.Keys, r)
		if err != nil {
			return err
		}
		same = append(same, sortedRow{key: key, row: r})
	}
}

func (s *temporalSortStream) Close() error { return s.in.Close() }

// RetractTopNNode is ORDER BY keys LIMIT n over an updating input (a GROUP
// BY's result), as Flink's RetractableTopNFunction without a rank number:
// it keeps every live row of the input (memory is the input table's) and
// after each change emits -D for the rows that left the first n, then +I
// for those that entered. Key is the input's upsert key (an update or
// delete replaces the row of its key), or nil: a retraction removes a row
// equal to it.
type RetractTopNNode struct {
	In   exec.Node
	Keys []OrderKey
	N    int64
	Key  []int
}

var _ exec.Node = (*RetractTopNNode)(nil)

func (n *RetractTopNNode) Schema() types.Schema { return n.In.Schema() }
func (n *RetractTopNNode) Changelog() types.ChangelogMode {
	return types.NewChangelogMode(types.Insert, types.Delete)
}
func (n *RetractTopNNode) Children() []exec.Node { return []exec.Node{n.In} }
func (n *RetractTopNNode) Explain() string {
	return "SortLimit(orderBy=[" + sortKeyTexts(n.Keys) + "], offset=[0], fetch=[" + strconv.FormatInt(n.N, 10) + "], strategy=[RetractStrategy])"
}

func (n *RetractTopNNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("retracttopn")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &retractTopNStream{n: n, in: in}
	if err := s.open(ex, ns); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

func (s *retractTopNStream) open(ex *exec.Execution, ns string) error {
	var err error
	if s.t, err = openTable[*liveRows](ex, ns, "live", liveRowsCodec{}); err != nil {
		return err
	}
	ls, _, err := s.t.Get(wholeKey)
	if ls != nil {
		s.live = ls.rows
	}
	return err
}

func (s *retractTopNStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	if err := s.t.Put(wholeKey, &liveRows{rows: s.live}); err != nil {
		return err
	}
	return tableSet{s.t}.checkpoint(tx, finished)
}

func (s *retractTopNStream) Quiescent() bool { return s.out.Len() == 0 }

type liveSorted struct {
	key []any
	row types.Row
}

// liveRows are the live rows of an updating input in sort order, with
// their sort keys (their kinds are all Insert).
type liveRows struct{ rows []*liveSorted }

// liveRowsCodec encodes live rows as sortedRowsCodec encodes rows.
type liveRowsCodec struct{}

func (liveRowsCodec) Append(b []byte, ls *liveRows) ([]byte, error) {
	rs := sortedRows{rows: make([]sortedRow, len(ls.rows))}
	for i, l := range ls.rows {
		rs.rows[i] = sortedRow(*l)
	}
	return sortedRowsCodec{}.Append(b, &rs)
}

func (liveRowsCodec) Decode(b []byte) (*liveRows, error) {
	rs, err := sortedRowsCodec{}.Decode(b)
	if err != nil {
		return nil, err
	}
	ls := &liveRows{rows: make([]*liveSorted, len(rs.rows))}
	for i := range rs.rows {
		l := liveSorted(rs.rows[i])
		ls.rows[i] = &l
	}
	return ls, nil
}

// The state of an ORDER BY ... LIMIT over an updating input: every live
// row, in memory and in the one value of its table at each checkpoint.
type retractTopNStream struct {
	n    *RetractTopNNode
	in   exec.Stream
	t    *opstate.Table[*liveRows]
	live []*liveSorted // every live row, in order (ties by arrival)
	out  exec.Queue
}

var (
	_ exec.Stream   = (*retractTopNStream)(nil)
	_ exec.Stateful = (*retractTopNStream)(nil)
)

func (s *retractTopNStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

// top is the first n live rows.
func (s *retractTopNStream) top() []*liveSorted {
	n := min(int64(len(s.live)), max(s.n.N, 0))
	return append([]*liveSorted(nil), s.live[:n]...)
}

func (s *retractTopNStream) Row(r types.Row) error {
	before := s.top()
	switch r.Kind {
	case types.Insert, types.UpdateAfter:
		if s.n.Key != nil {
			s.remove(r)
		}
		key, err := sortKeyValues(s.n.Keys, r)
		if err != nil {
			return err
		}
		r = r.Copy()
		r.Kind = types.Insert
		at := sort.Search(len(s.live), func(i int) bool { return compareSortKeys(s.n.Keys, s.live[i].key, key) > 0 })
		s.live = append(s.live, nil)
		copy(s.live[at+1:], s.live[at:])
		s.live[at] = &liveSorted{key: key, row: r}
	default:
		s.remove(r)
	}
	after := s.top()
	in := func(e *liveSorted, set []*liveSorted) bool {
		for _, x := range set {
			if x == e {
				return true
			}
		}
		return false
	}
	for _, e := range before {
		if !in(e, after) {
			d := e.row.Copy()
			d.Kind = types.Delete
			s.out.PushRow(d.Kind, d.Fields)
		}
	}
	for _, e := range after {
		if !in(e, before) {
			s.out.PushRow(e.row.Kind, e.row.Fields)
		}
	}
	return nil
}

// remove takes out the live row of r's upsert key, or the newest row equal
// to r.
func (s *retractTopNStream) remove(r types.Row) {
	for i := len(s.live) - 1; i >= 0; i-- {
		if s.matches(s.live[i].row, r) {
			s.live = append(s.live[:i], s.live[i+1:]...)
			return
		}
	}
}

func (s *retractTopNStream) matches(a, b types.Row) bool {
	if s.n.Key != nil {
		for _, k := range s.n.Key {
			if !sameValue(a.Fields[k], b.Fields[k]) {
				return false
			}
		}
		return true
	}
	for i := range a.Fields {
		if !sameValue(a.Fields[i], b.Fields[i]) {
			return false
		}
	}
	return true
}

func sameValue(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return expr.CompareValues(a, b) == 0
}

func (s *retractTopNStream) Close() error { return s.in.Close() }
