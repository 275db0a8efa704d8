package sqlop

import (
	"container/heap"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// OVER aggregations, as Flink's OverAggregate in streaming mode: the rows
// of each partition are ordered by an ascending time attribute; a row
// waits until the watermark reaches its time, then goes out with the
// values of its window's calls appended. The output is insert-only and in
// time order. Late rows are dropped (counted in a note) by the rule of the
// Flink function that runs the frame:
//   - UNBOUNDED PRECEDING (ROWS or RANGE), Flink's
//     AbstractRowTimeUnboundedPrecedingOver: a row at or before the
//     watermark when it arrives;
//   - ROWS n PRECEDING, RowTimeRowsBoundedPrecedingFunction: a row not
//     after the last time its partition fired;
//   - RANGE n PRECEDING, RowTimeRangeBoundedPrecedingFunction: a row at or
//     before the last time its partition fired (the epoch before the
//     first), and each row also sets a cleanup time 1.5 n + 1 ms after it
//     (unless one n + 1 ms after it is set): when the watermark passes it,
//     the partition's state is cleared, so that a row that comes after is
//     taken however old it is, in a window of the rows after it only. A
//     partition's timers last through the clearing: one that fires later
//     sets its last time to the timer's.

// Over a processing-time attribute (ProcTime) the rows are in the order
// they arrive, as in Flink's ProcTime...PrecedingFunction: with an
// unbounded frame (ROWS or RANGE alike) or a ROWS frame each row goes out
// at once with its window's values; with a bounded RANGE frame the rows of
// one millisecond go out together once the processing-time clock passed
// it, and those still waiting at the end of input are dropped, as Flink
// drops them.

// OverFrame is an OVER window's frame: ROWS or RANGE, from UNBOUNDED
// PRECEDING or n PRECEDING (a row count for ROWS, milliseconds for RANGE)
// to the current row.
type OverFrame struct {
	Rows      bool
	Unbounded bool
	Preceding int64
}

// String prints the frame as Flink's EXPLAIN does.
func (f OverFrame) String() string {
	unit := "RANGE"
	if f.Rows {
		unit = "ROWS"
	}
	if f.Unbounded {
		return unit + " BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
	}
	return unit + " BETWEEN " + strconv.FormatInt(f.Preceding, 10) + " PRECEDING AND CURRENT ROW"
}

// OverCall is one call over the window: an aggregate (Agg), ROW_NUMBER,
// or LAG (the value of Arg Offset rows before, else Default; in a RANGE
// frame, as in Flink, Offset rows before the last row of the same time).
type OverCall struct {
	Fn      string   // COUNT, SUM, AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE, ROW_NUMBER, LAG
	Agg     *AggCall // for an aggregate
	Arg     expr.Expr
	Offset  int64
	Default expr.Expr // LAG's default: nil for NULL
	Typ     types.Type
	Text    string
}

// OverNode computes its calls over each row's window and appends their
// values to the row.
type OverNode struct {
	In        exec.Node
	Partition []expr.Expr
	PartText  []string
	Time      int  // the ORDER BY time attribute's column
	ProcTime  bool // Time is a processing-time attribute
	Frame     OverFrame
	Calls     []*OverCall
	Sch       types.Schema // the input's columns, then one per call
	// FirstRow marks the OVER ROW_NUMBER that a keep-first deduplication
	// is planned as: a row is late when it is not after the last time
	// its partition fired.
	FirstRow bool
}

var _ exec.Node = (*OverNode)(nil)

func (n *OverNode) Schema() types.Schema           { return n.Sch }
func (n *OverNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *OverNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *OverNode) Explain() string {
	var b strings.Builder
	b.WriteString("OverAggregate(")
	if len(n.PartText) > 0 {
		b.WriteString("partitionBy=[" + strings.Join(n.PartText, ", ") + "], ")
	}
	b.WriteString("orderBy=[" + n.In.Schema().Columns[n.Time].Name + " ASC], window=[" + n.Frame.String() + "], select=[")
	for i, c := range n.In.Schema().Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name)
	}
	for i, c := range n.Calls {
		b.WriteString(", " + c.Text + " AS w0$o" + strconv.Itoa(i))
	}
	b.WriteString("])")
	return b.String()
}

func (n *OverNode) Open(ex *exec.Execution) (exec.Stream, error) {
	if err := ex.InMemory("an OVER window keeps its rows"); err != nil {
		return nil, err
	}
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &overStream{n: n, in: in, ex: ex, wm: minWatermark, parts: map[string]*overPartition{}}, nil
}

// overPartition is the state of one partition: rows waiting for the
// watermark by time, the time it last fired, and its window.
type overPartition struct {
	waiting map[int64][]types.Row
	timers  map[int64]bool // the times it has a timer at (Flink keeps one per time)
	fired   int64
	fresh   bool          // never fired
	cleanup int64         // RANGE n PRECEDING: the time its state is cleared at, 0 for none
	rows    int64         // rows emitted: ROW_NUMBER
	accs    []Accumulator // one per aggregate call (nil for ROW_NUMBER, LAG)
	window  []overRow     // rows in the frame (bounded frames), oldest first
	lag     [][]any       // per LAG call: its last Offset values, oldest first
}

type overRow struct {
	ts   int64
	args []any // each call's argument
}

// overTimer is a partition's time to fire, as Flink's event-time timers.
type overTimer struct {
	ts  int64
	seq int64 // registration order breaks ties
	key string
}

type overTimers []overTimer

func (h overTimers) Len() int { return len(h) }
func (h overTimers) Less(i, j int) bool {
	if h[i].ts != h[j].ts {
		return h[i].ts < h[j].ts
	}
	return h[i].seq < h[j].seq
}
func (h overTimers) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *overTimers) Push(x any)   { *h = append(*h, x.(overTimer)) }
func (h *overTimers) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}

type overStream struct {
	n      *OverNode
	in     exec.Stream
	ex     *exec.Execution
	wm     int64 // the watermark so far
	parts  map[string]*overPartition
	timers overTimers
	seq    int64
	late   int64
	out    exec.Queue
}

var (
	_ exec.Stream       = (*overStream)(nil)
	_ exec.TimeOperator = (*overStream)(nil)
	_ exec.IdleOperator = (*overStream)(nil)
)

func (s *overStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

// waitsForClock says the rows wait for the processing-time clock: a
// bounded RANGE frame over a processing-time attribute.
func (s *overStream) waitsForClock() bool {
	return s.n.ProcTime && !s.n.Frame.Rows && !s.n.Frame.Unbounded
}

// procFire fires the milliseconds the processing-time clock passed and
// asks the driver to pull again when the next one is due.
func (s *overStream) procFire() error {
	if err := s.fire(s.ex.Now() - 1); err != nil {
		return err
	}
	if len(s.timers) > 0 && !s.ex.Opts.FixedClock {
		s.ex.Live().WakeAt(time.UnixMilli(s.timers[0].ts + 1))
	}
	return nil
}

// Idle fires, on processing time, what the clock passed while the input
// was quiet.
func (s *overStream) Idle() error {
	if s.waitsForClock() {
		return s.procFire()
	}
	return nil
}

// Time fires the partitions the watermark (or the end) passed.
func (s *overStream) Time(ev *exec.Event) error {
	if s.n.ProcTime {
		if !s.waitsForClock() {
			return nil
		}
		if ev.Kind != exec.EvEnd {
			return s.procFire()
		}
		if err := s.procFire(); err != nil {
			return err
		}
		var waiting int64
		for _, p := range s.parts {
			for _, rows := range p.waiting {
				waiting += int64(len(rows))
			}
		}
		if waiting > 0 && s.ex.Opts.EndOfInput {
			s.ex.Notes = append(s.ex.Notes, "note: the OVER window dropped "+exec.Plural(waiting, "row")+" that waited for the processing-time clock to pass their millisecond when the input ended, as Flink's ProcTimeRangeBoundedPrecedingFunction does")
		}
		return nil
	}
	switch ev.Kind {
	case exec.EvWatermark:
		s.wm = max(s.wm, ev.Wm)
		return s.fire(ev.Wm)
	case exec.EvEnd:
		if err := s.fire(1<<63 - 1); err != nil {
			return err
		}
		if s.late > 0 {
			s.ex.Notes = append(s.ex.Notes, "note: the OVER window dropped "+exec.Plural(s.late, "late row")+" ("+s.lateRule()+"), as Flink's OverAggregate does")
		}
	}
	return nil
}

func (s *overStream) Row(r types.Row) error {
	if r.Kind != types.Insert {
		return fmt.Errorf("an OVER window takes insert-only input, not a %s row", r.Kind)
	}
	ts, ok := types.TimeMillis(r.Fields[s.n.Time])
	if !ok {
		s.late++ // a NULL time: Flink cannot order it either
		return nil
	}
	keys := make([]any, len(s.n.Partition))
	for i, x := range s.n.Partition {
		v, err := x.Eval(r.Fields)
		if err != nil {
			return err
		}
		keys[i] = v
	}
	k := string(keycodec.Encode(keys))
	p := s.parts[k]
	if p == nil {
		p = s.newPartition(map[int64]bool{})
		s.parts[k] = p
	}
	if s.n.ProcTime && !s.waitsForClock() {
		// In arrival order, at once.
		p.fresh = false
		return s.emit(p, ts, []types.Row{r.Copy()})
	}
	if s.n.ProcTime {
		// The rows of a millisecond wait for the clock to pass it; none is
		// late (a clock set back counts as the last time fired).
		if err := s.procFire(); err != nil {
			return err
		}
		ts = max(ts, p.fired+1)
		p.waiting[ts] = append(p.waiting[ts], r.Copy())
		s.setTimer(p, k, ts)
		if !s.ex.Opts.FixedClock {
			s.ex.Live().WakeAt(time.UnixMilli(ts + 1))
		}
		return nil
	}
	if s.isLate(p, ts) {
		s.late++
		return nil
	}
	p.waiting[ts] = append(p.waiting[ts], r.Copy())
	s.setTimer(p, k, ts)
	if f := s.n.Frame; !f.Rows && !f.Unbounded && (p.cleanup == 0 || p.cleanup < ts+f.Preceding+1) {
		p.cleanup = ts + f.Preceding*3/2 + 1
		s.setTimer(p, k, p.cleanup)
	}
	return nil
}

// newPartition is a partition with no rows and fresh accumulators.
func (s *overStream) newPartition(timers map[int64]bool) *overPartition {
	p := &overPartition{waiting: map[int64][]types.Row{}, timers: timers, fresh: true}
	for _, c := range s.n.Calls {
		var acc Accumulator
		switch {
		case c.Agg != nil:
			acc = NewAccumulator(c.Agg)
		case c.Fn == "FIRST_VALUE" || c.Fn == "LAST_VALUE":
			acc = &valueAcc{last: c.Fn == "LAST_VALUE", keep: !s.n.Frame.Unbounded}
		}
		p.accs = append(p.accs, acc)
	}
	p.lag = make([][]any, len(s.n.Calls))
	return p
}

// isLate says whether a row of partition p at time ts is late, by the rule
// of the frame's Flink function.
func (s *overStream) isLate(p *overPartition, ts int64) bool {
	switch f := s.n.Frame; {
	case f.Rows && s.n.FirstRow:
		return !p.fresh && ts <= p.fired
	case f.Unbounded:
		return ts <= s.wm
	case f.Rows:
		return !p.fresh && ts <= p.fired
	default:
		return ts <= p.fired // 0 before the first firing, as Flink's
	}
}

// lateRule says in words which rows isLate returns true for.
func (s *overStream) lateRule() string {
	switch f := s.n.Frame; {
	case f.Unbounded && !s.n.FirstRow:
		return "at or before the watermark when they arrived"
	case f.Rows:
		return "not after the last time their partition fired"
	default:
		return "at or before the last time their partition fired"
	}
}

// setTimer registers partition p's timer at ts, once.
func (s *overStream) setTimer(p *overPartition, k string, ts int64) {
	if p.timers[ts] {
		return
	}
	p.timers[ts] = true
	s.seq++
	heap.Push(&s.timers, overTimer{ts: ts, seq: s.seq, key: k})
}

// fire emits, in time order, the rows of every partition whose time is
// at or before wm.
func (s *overStream) fire(wm int64) error {
	for len(s.timers) > 0 && s.timers[0].ts <= wm {
		t := heap.Pop(&s.timers).(overTimer)
		p := s.parts[t.key]
		delete(p.timers, t.ts)
		if p.cleanup != 0 && p.cleanup <= t.ts {
			s.parts[t.key] = s.newPartition(p.timers)
			continue
		}
		rows := p.waiting[t.ts]
		delete(p.waiting, t.ts)
		p.fired, p.fresh = t.ts, false
		if len(rows) == 0 {
			continue
		}
		if err := s.emit(p, t.ts, rows); err != nil {
			return err
		}
	}
	return nil
}

// emit computes the calls for the rows of one partition at one time:
// ROWS frames row by row, RANGE frames with every row of that time (its
// peers) in the window of each.
func (s *overStream) emit(p *overPartition, ts int64, rows []types.Row) error {
	n := s.n
	args := make([][]any, len(rows))
	for i, r := range rows {
		a := make([]any, len(n.Calls))
		for j, c := range n.Calls {
			if c.Arg == nil {
				continue
			}
			v, err := c.Arg.Eval(r.Fields)
			if err != nil {
				return err
			}
			a[j] = v
		}
		args[i] = a
	}
	if !n.Frame.Rows {
		for _, a := range args {
			s.enter(p, ts, a)
		}
		s.expire(p, ts)
	}
	for i, r := range rows {
		if n.Frame.Rows {
			s.enter(p, ts, args[i])
			s.expire(p, ts)
		}
		p.rows++
		out := make([]any, 0, len(r.Fields)+len(n.Calls))
		out = append(out, r.Fields...)
		for j, c := range n.Calls {
			if p.accs[j] != nil {
				out = append(out, p.accs[j].Value())
				continue
			}
			if c.Fn == "ROW_NUMBER" {
				out = append(out, p.rows) // row by row, also in a RANGE frame
				continue
			}
			v, err := s.lagValue(p, j, c, r)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		s.out.PushRow(types.Insert, out)
	}
	return nil
}

// enter adds a row's arguments to the window.
func (s *overStream) enter(p *overPartition, ts int64, args []any) {
	for j, c := range s.n.Calls {
		if p.accs[j] != nil {
			p.accs[j].Add(args[j])
			continue
		}
		if c.Fn != "LAG" {
			continue
		}
		// LAG keeps the last Offset+1 values: the row's own and those before.
		h := append(p.lag[j], args[j])
		if int64(len(h)) > c.Offset+1 {
			h = h[1:]
		}
		p.lag[j] = h
	}
	if !s.n.Frame.Unbounded {
		p.window = append(p.window, overRow{ts: ts, args: args})
	}
}

// expire takes out of a bounded window the rows before its frame.
func (s *overStream) expire(p *overPartition, ts int64) {
	f := s.n.Frame
	if f.Unbounded {
		return
	}
	drop := 0
	for drop < len(p.window) {
		if f.Rows && int64(len(p.window)-drop) <= f.Preceding+1 {
			break
		}
		if !f.Rows && p.window[drop].ts >= ts-f.Preceding {
			break
		}
		for j := range s.n.Calls {
			if p.accs[j] != nil {
				p.accs[j].Retract(p.window[drop].args[j])
			}
		}
		drop++
	}
	p.window = p.window[drop:]
}

// lagValue is LAG's value for the row: Offset rows back, else the default.
func (s *overStream) lagValue(p *overPartition, j int, c *OverCall, r types.Row) (any, error) {
	h := p.lag[j]
	if int64(len(h)) > c.Offset {
		return h[int64(len(h))-1-c.Offset], nil
	}
	if c.Default == nil {
		return nil, nil
	}
	return c.Default.Eval(r.Fields)
}

func (s *overStream) Close() error { return s.in.Close() }

// valueAcc is FIRST_VALUE or LAST_VALUE over a window: the first or last
// value that is not NULL among the window's rows, as Flink's. A bounded
// frame keeps its values (rows leave it oldest first); an unbounded one
// only the first and the last.
type valueAcc struct {
	last bool
	keep bool
	vals []any
}

func (a *valueAcc) Add(v any) {
	switch {
	case v == nil:
	case a.keep || len(a.vals) < 2:
		a.vals = append(a.vals, v)
	default:
		a.vals[1] = v
	}
}

// Retract takes out the oldest value: a frame's rows leave in order.
func (a *valueAcc) Retract(v any) {
	if v != nil && len(a.vals) > 0 {
		a.vals = a.vals[1:]
	}
}

func (a *valueAcc) Value() any {
	if len(a.vals) == 0 {
		return nil
	}
	if a.last {
		return a.vals[len(a.vals)-1]
	}
	return a.vals[0]
}
