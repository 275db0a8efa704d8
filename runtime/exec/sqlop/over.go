package sqlop

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
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
	// is planned as: a row is late when it is behind the watermark when
	// it arrives, as in Flink's rowtime keep-first deduplication.
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

// drawName names the operator's section of a timeline: OverAggregate
// with its partition, order and frame, as EXPLAIN shows them; on
// processing time, says so.
func (n *OverNode) drawName() string {
	var b strings.Builder
	b.WriteString("OverAggregate(")
	if len(n.PartText) > 0 {
		b.WriteString("partitionBy=[" + strings.Join(n.PartText, ", ") + "], ")
	}
	b.WriteString("orderBy=[" + n.In.Schema().Columns[n.Time].Name + " ASC], window=[" + n.Frame.String() + "])")
	if n.ProcTime {
		b.WriteString(" on processing time")
	}
	return b.String()
}

func (n *OverNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("over")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &overStream{n: n, in: in, ex: ex, wm: minWatermark}
	s.obs = ex.OperatorObserver(n, n.drawName(), exec.OpSection{ProcTime: n.ProcTime})
	if s.obs != nil {
		s.drawKeys = map[string]string{}
	}
	if err := s.open(ns); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

func (s *overStream) open(ns string) error {
	var err error
	if s.parts, err = openTable[*overPartition](s.ex, ns, "partitions", overPartitionCodec{s}); err != nil {
		return err
	}
	if s.waiting, err = openTable[*overWaiting](s.ex, ns, "waiting", overWaitingCodec{}); err != nil {
		return err
	}
	if s.timers, err = openQueue[[]byte](s.ex, ns, "timers", rawCodec{}); err != nil {
		return err
	}
	if s.meta, err = openMeta(s.ex, ns); err != nil {
		return err
	}
	if s.seq, err = s.meta.getInt("seq"); err != nil {
		return err
	}
	if b, _ := s.meta.get("wm"); b != nil {
		s.wm, err = s.meta.getInt("wm")
	}
	return err
}

// overPartition is the state of one partition: the times it has timers
// at, the time it last fired, and its window (its rows waiting for the
// watermark are in the operator's waiting table).
type overPartition struct {
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

// overPartitionCodec encodes a partition: its timers' times, the time it
// fired, whether it never did, its cleanup time, its row count, the state
// of each call's accumulator, the rows of its frame (time and arguments)
// and each call's LAG values.
type overPartitionCodec struct{ s *overStream }

func (overPartitionCodec) Append(b []byte, p *overPartition) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(p.timers)))
	for _, t := range slices.Sorted(maps.Keys(p.timers)) {
		b = appendVarint(b, t)
	}
	b = appendVarint(b, p.fired)
	b = append(b, boolByte(p.fresh))
	b = appendVarint(b, p.cleanup)
	b = appendVarint(b, p.rows)
	var err error
	for _, a := range p.accs {
		if a == nil {
			continue
		}
		if b, err = a.AppendState(b); err != nil {
			return nil, err
		}
	}
	b = binary.AppendUvarint(b, uint64(len(p.window)))
	for _, r := range p.window {
		b = appendVarint(b, r.ts)
		if b, err = appendValues(b, r.args); err != nil {
			return nil, err
		}
	}
	for _, l := range p.lag {
		if b, err = appendValues(b, l); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (c overPartitionCodec) Decode(b []byte) (*overPartition, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return nil, errAccTruncated
	}
	b = b[w:]
	p := c.s.newPartition(make(map[int64]bool, n))
	var err error
	for range n {
		var t int64
		if t, b, err = readVarint(b); err != nil {
			return nil, err
		}
		p.timers[t] = true
	}
	if p.fired, b, err = readVarint(b); err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, errAccTruncated
	}
	p.fresh, b = b[0] != 0, b[1:]
	if p.cleanup, b, err = readVarint(b); err != nil {
		return nil, err
	}
	if p.rows, b, err = readVarint(b); err != nil {
		return nil, err
	}
	for _, a := range p.accs {
		if a == nil {
			continue
		}
		if b, err = a.ReadState(b); err != nil {
			return nil, err
		}
	}
	n, w = binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return nil, errAccTruncated
	}
	b = b[w:]
	if n > 0 {
		p.window = make([]overRow, n)
	}
	for i := range p.window {
		if p.window[i].ts, b, err = readVarint(b); err != nil {
			return nil, err
		}
		if p.window[i].args, b, err = readValues(b); err != nil {
			return nil, err
		}
	}
	for j := range p.lag {
		if p.lag[j], b, err = readValues(b); err != nil {
			return nil, err
		}
	}
	if len(b) != 0 {
		return nil, errAccTruncated
	}
	return p, nil
}

// overWaiting is a partition's rows of one time, waiting for the
// watermark.
type overWaiting struct{ rows [][]any }

type overWaitingCodec struct{}

func (overWaitingCodec) Append(b []byte, w *overWaiting) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(w.rows)))
	for _, r := range w.rows {
		var err error
		if b, err = appendValues(b, r); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (overWaitingCodec) Decode(b []byte) (*overWaiting, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errAccTruncated
	}
	b = b[k:]
	w := &overWaiting{rows: make([][]any, n)}
	for i := range w.rows {
		var err error
		if w.rows[i], b, err = readValues(b); err != nil {
			return nil, err
		}
	}
	if len(b) != 0 {
		return nil, errAccTruncated
	}
	return w, nil
}

// appendWaitingKey appends to b the key of a partition's rows of time ts:
// the partition's key, its length first, then the time.
func appendWaitingKey(b, part []byte, ts int64) []byte {
	b = binary.AppendUvarint(b, uint64(len(part)))
	return appendTime(append(b, part...), ts)
}

// The state of an OVER window: each partition's window (partitions), its
// rows waiting for the watermark by time (waiting), and the partitions'
// timers, as Flink's event-time timers (timers: the time, then the order
// of registration, whose value is the partition's key), with in meta the
// count of registrations and the watermark (but in a statement's final
// checkpoint: the next run starts without one).
type overStream struct {
	n       *OverNode
	in      exec.Stream
	ex      *exec.Execution
	wm      int64 // the watermark so far
	parts   *opstate.Table[*overPartition]
	waiting *opstate.Table[*overWaiting]
	timers  *dueQueue[[]byte]
	meta    opMeta
	seq     int64
	late    int64
	// procWaiting counts the rows that wait for the processing-time
	// clock (a bounded RANGE frame over a processing-time attribute).
	procWaiting int64
	out         exec.Queue
	// Buffers of the keys of the row or timer being processed: a
	// partition's, its waiting rows', a timer's.
	kbuf, wbuf, tbuf []byte
	// obs draws the operator in the statement's timeline (nil: none), and
	// drawKeys prints its partitions' encoded keys for it.
	obs      exec.OpObserver
	drawKeys map[string]string
}

var (
	_ exec.Stream       = (*overStream)(nil)
	_ exec.TimeOperator = (*overStream)(nil)
	_ exec.Stateful     = (*overStream)(nil)
	_ exec.IdleOperator = (*overStream)(nil)
)

func (s *overStream) Checkpoint(tx state.Tx, finished, final bool) error {
	if err := s.meta.putInt("seq", s.seq); err != nil {
		return err
	}
	if final {
		delete(s.meta.vals, "wm")
	} else if err := s.meta.putInt("wm", s.wm); err != nil {
		return err
	}
	return tableSet{s.parts, s.waiting, s.timers.t, s.meta}.checkpoint(tx, finished)
}

func (s *overStream) Quiescent() bool { return s.out.Len() == 0 }

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
	next, ok, err := s.timers.Next()
	if err != nil {
		return err
	}
	if ok && !s.ex.Opts.FixedClock {
		s.ex.Live().WakeAt(time.UnixMilli(next + 1))
	}
	return nil
}

// Idle fires, on processing time, what the clock passed while the input
// was quiet.
func (s *overStream) Idle() error {
	if s.obs != nil && s.n.ProcTime {
		s.obs.Clock(s.ex.Now())
	}
	if s.waitsForClock() {
		return s.procFire()
	}
	return nil
}

// Time fires the partitions the watermark (or the end) passed.
func (s *overStream) Time(ev *exec.Event) error {
	if s.n.ProcTime {
		if s.obs != nil {
			s.obs.Clock(s.ex.Now())
		}
		if !s.waitsForClock() {
			return nil
		}
		if err := s.procFire(); err != nil {
			return err
		}
		if ev.Kind == exec.EvEnd && s.ex.Opts.EndOfInput && s.procWaiting > 0 {
			s.ex.Notes = append(s.ex.Notes, "note: the OVER window dropped "+exec.Plural(s.procWaiting, "row")+" that waited for the processing-time clock to pass their millisecond when the input ended, as Flink's ProcTimeRangeBoundedPrecedingFunction does")
		}
		return nil
	}
	switch ev.Kind {
	case exec.EvWatermark:
		s.wm = max(s.wm, ev.Wm)
		if ev.Restored() {
			return nil
		}
		if s.obs != nil {
			s.obs.Watermark(ev.Wm)
		}
		return s.fire(ev.Wm)
	case exec.EvEnd:
		// Stopped without its end of input, the rows that wait stay in
		// the state for the next run.
		if s.ex.Opts.EndOfInput {
			if s.obs != nil {
				s.obs.Watermark(exec.MaxWatermark)
			}
			if err := s.fire(1<<63 - 1); err != nil {
				return err
			}
		}
		if s.late > 0 {
			what, flink := "the OVER window", "OverAggregate"
			if s.n.FirstRow {
				what, flink = "the deduplication", "rowtime Deduplicate"
			}
			s.ex.Notes = append(s.ex.Notes, "note: "+what+" dropped "+exec.Plural(s.late, "late row")+" ("+s.lateRule()+"), as Flink's "+flink+" does")
		}
	}
	return nil
}

func (s *overStream) Row(r types.Row) error {
	if r.Kind != types.Insert {
		return fmt.Errorf("an OVER window takes insert-only input, not a %s row", r.Kind)
	}
	ts, ok := types.TimeMillis(r.Fields[s.n.Time])
	if s.obs != nil && s.n.ProcTime {
		s.obs.Clock(s.ex.Now())
	}
	if !ok {
		s.late++ // a NULL time: Flink cannot order it either
		if s.obs != nil {
			s.obs.Dropped("", 0, false, types.FormatRow(r, s.n.In.Schema())) // drawn without a time

		}
		return nil
	}
	// The keys are built in the stream's buffers: the tables copy what
	// they keep.
	k, err := appendPartitionKey(s.kbuf[:0], s.n.Partition, r)
	s.kbuf = k
	if err != nil {
		return err
	}
	if s.obs != nil {
		s.drawKeys[string(k)] = s.drawKey(r)
	}
	p, _, err := s.parts.Get(k)
	if err != nil {
		return err
	}
	if p == nil {
		p = s.newPartition(map[int64]bool{})
	}
	if s.obs != nil {
		s.drawRow(r, k, ts, !s.n.ProcTime && s.isLate(p, ts))
	}
	if s.n.ProcTime && !s.waitsForClock() {
		// In arrival order, at once.
		p.fresh = false
		if err := s.emit(p, k, ts, [][]any{r.Copy().Fields}); err != nil {
			return err
		}
		return s.parts.Put(k, p)
	}
	if s.n.ProcTime {
		// The rows of a millisecond wait for the clock to pass it; none is
		// late (a clock set back counts as the last time fired).
		if err := s.procFire(); err != nil {
			return err
		}
		if p, _, err = s.parts.Get(k); err != nil {
			return err
		}
		if p == nil {
			p = s.newPartition(map[int64]bool{})
		}
		ts = max(ts, p.fired+1)
		s.procWaiting++
		if !s.ex.Opts.FixedClock {
			s.ex.Live().WakeAt(time.UnixMilli(ts + 1))
		}
	} else if s.isLate(p, ts) {
		s.late++
		return nil // a new partition is as good as none
	}
	wk := appendWaitingKey(s.wbuf[:0], k, ts)
	s.wbuf = wk
	w, _, err := s.waiting.Get(wk)
	if err != nil {
		return err
	}
	if w == nil {
		w = &overWaiting{}
	}
	w.rows = append(w.rows, r.Copy().Fields)
	if err := s.waiting.Put(wk, w); err != nil {
		return err
	}
	if err := s.setTimer(p, k, ts); err != nil {
		return err
	}
	if f := s.n.Frame; !s.n.ProcTime && !f.Rows && !f.Unbounded && (p.cleanup == 0 || p.cleanup < ts+f.Preceding+1) {
		p.cleanup = ts + f.Preceding*3/2 + 1
		if err := s.setTimer(p, k, p.cleanup); err != nil {
			return err
		}
	}
	return s.parts.Put(k, p)
}

// newPartition is a partition with no rows and fresh accumulators.
func (s *overStream) newPartition(timers map[int64]bool) *overPartition {
	p := &overPartition{timers: timers, fresh: true}
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
	case s.n.FirstRow:
		// Flink's RowTimeDeduplicateKeepFirstRowFunction drops a row
		// behind the operator's watermark (a row at it is kept).
		return ts < s.wm
	case f.Unbounded:
		return ts <= s.wm
	case f.Rows:
		return !p.fresh && ts <= p.fired
	default:
		return ts <= p.fired // 0 before the first firing, as Flink's
	}
}

// drawRow draws row r of partition k at time ts in the timeline: in, or
// dropped as late.
func (s *overStream) drawRow(r types.Row, k []byte, ts int64, late bool) {
	text := types.FormatRow(r, s.n.In.Schema())
	if late {
		s.obs.Dropped(s.drawKeys[string(k)], ts, true, text)
		return
	}
	s.obs.RowIn(s.drawKeys[string(k)], ts, true, false, text)
}

// drawKey prints the partition key of r for the timeline.
func (s *overStream) drawKey(r types.Row) string {
	keys := make([]any, len(s.n.Partition))
	for i, x := range s.n.Partition {
		keys[i], _ = x.Eval(r.Fields) // evaluated without error for the key
	}
	return exec.FormatKey(keys)
}

// lateRule says in words which rows isLate returns true for.
func (s *overStream) lateRule() string {
	switch f := s.n.Frame; {
	case s.n.FirstRow:
		return "behind the watermark when they arrived"
	case f.Unbounded:
		return "at or before the watermark when they arrived"
	case f.Rows:
		return "not after the last time their partition fired"
	default:
		return "at or before the last time their partition fired"
	}
}

// setTimer registers partition p's timer at ts, once.
func (s *overStream) setTimer(p *overPartition, k []byte, ts int64) error {
	if p.timers[ts] {
		return nil
	}
	if s.obs != nil {
		s.obs.TimerSet(s.drawKeys[string(k)], ts)
	}
	p.timers[ts] = true
	s.seq++
	s.tbuf = binary.BigEndian.AppendUint64(appendTime(s.tbuf[:0], ts), uint64(s.seq))
	return s.timers.Add(s.tbuf, bytes.Clone(k))
}

// fire emits, in time order, the rows of every partition whose time is
// at or before wm.
func (s *overStream) fire(wm int64) error {
	for {
		tk, k, ok, err := s.timers.Pop(wm)
		if err != nil || !ok {
			return err
		}
		ts := keyTime(tk)
		p, _, err := s.parts.Get(k)
		if err != nil {
			return err
		}
		if p == nil {
			return fmt.Errorf("the state %q has a timer of a partition it does not hold", s.parts.Namespace())
		}
		delete(p.timers, ts)
		if s.obs != nil {
			s.obs.TimerFired(s.drawKeys[string(k)], ts)
		}
		wk := appendWaitingKey(s.wbuf[:0], k, ts)
		s.wbuf = wk
		w, _, err := s.waiting.Get(wk)
		if err != nil {
			return err
		}
		if w != nil {
			if err := s.waiting.Delete(wk); err != nil {
				return err
			}
		}
		if p.cleanup != 0 && p.cleanup <= ts {
			if err := s.parts.Put(k, s.newPartition(p.timers)); err != nil {
				return err
			}
			continue
		}
		p.fired, p.fresh = ts, false
		if w != nil && s.n.ProcTime {
			s.procWaiting -= int64(len(w.rows))
		}
		if w != nil && len(w.rows) > 0 {
			if err := s.emit(p, k, ts, w.rows); err != nil {
				return err
			}
		}
		if err := s.parts.Put(k, p); err != nil {
			return err
		}
	}
}

// emit computes the calls for the rows of one partition at one time:
// ROWS frames row by row, RANGE frames with every row of that time (its
// peers) in the window of each.
func (s *overStream) emit(p *overPartition, k []byte, ts int64, rows [][]any) error {
	n := s.n
	args := make([][]any, len(rows))
	for i, r := range rows {
		a := make([]any, len(n.Calls))
		for j, c := range n.Calls {
			if c.Arg == nil {
				continue
			}
			v, err := c.Arg.Eval(r)
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
		out := make([]any, 0, len(r)+len(n.Calls))
		out = append(out, r...)
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
		if s.obs != nil {
			s.obs.RowOut(s.drawKeys[string(k)], ts, types.FormatRow(types.Row{Kind: types.Insert, Fields: out}, s.n.Sch))
		}
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
func (s *overStream) lagValue(p *overPartition, j int, c *OverCall, r []any) (any, error) {
	h := p.lag[j]
	if int64(len(h)) > c.Offset {
		return h[int64(len(h))-1-c.Offset], nil
	}
	if c.Default == nil {
		return nil, nil
	}
	return c.Default.Eval(r)
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
