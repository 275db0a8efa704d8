package sqlop

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/cep"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// MatchNode is MATCH_RECOGNIZE ... ONE ROW PER MATCH over an insert-only
// input ordered by a rowtime attribute, as Flink 2.3's Match operator (a
// CEP operator per partition): rows wait until the watermark passes their
// time, then go to their partition's NFA in time order (rows of the same
// time in the order of the other ORDER BY keys, then of arrival); each
// match gives one row of the PARTITION BY columns and the measures. A row
// at or before the watermark when it arrives is late and dropped.
//
// With a timeline (EXPLAIN TIMELINE), the operator records what Flink's
// CEP operator does in event time: a row in sets its partition's timer at
// the row's time; the watermark passing it fires the timer, which runs
// the rows of that time through the pattern; each match is a row out.
//
// Ordered by a processing-time attribute (ProcTime), a row goes to its
// partition's NFA when it arrives, at the time its attribute holds, as
// Flink's CEP operator does in processing time without further sort
// keys: nothing waits and nothing is late.
type MatchNode struct {
	In        exec.Node
	Partition []int // the PARTITION BY columns
	Time      int   // the rowtime or processing-time column ORDER BY starts with
	ProcTime  bool  // Time is a processing-time attribute
	Keys      []OrderKey
	NFA       *cep.NFA
	// Defines are the DEFINE conditions by variable (nil: TRUE), Measures
	// the MEASURES in order.
	Defines  []*MatchExpr
	Measures []*MatchExpr
	Sch      types.Schema
	// Text is the clause as EXPLAIN shows it.
	Text string
}

var _ exec.Node = (*MatchNode)(nil)

// MatchExpr is an expression of DEFINE or MEASURES: Expr reads one value a
// slot, which the operator fills from the rows of the match before each
// evaluation.
type MatchExpr struct {
	Expr  expr.Expr
	Slots []MatchSlot
}

// MatchSlot is one value an expression of a match reads: a column of one
// row of a variable (Var -1: of any variable), counted from the first row
// (First) or the last, or an aggregate over the rows of a variable, or
// the time of the match (MATCH_ROWTIME).
type MatchSlot struct {
	Var     int
	First   bool
	Offset  int
	Col     int
	Agg     *AggCall
	Rowtime bool
	// RowtimeLTZ: MATCH_ROWTIME gives a TIMESTAMP_LTZ.
	RowtimeLTZ bool
	// Proctime: MATCH_PROCTIME(), the processing time of the match.
	Proctime bool
}

func (n *MatchNode) Schema() types.Schema           { return n.Sch }
func (n *MatchNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *MatchNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *MatchNode) Explain() string                { return "Match(" + n.Text + ")" }

func (n *MatchNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("match")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	obs := ex.OperatorObserver(n, matchCall, exec.OpSection{ProcTime: n.ProcTime})
	s := &matchStream{n: n, in: in, ex: ex, wm: minWatermark, obs: obs}
	if err := s.open(ns); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

// open opens the partitions' table and restores the operator's counters
// and watermark.
func (s *matchStream) open(ns string) error {
	var err error
	if s.parts, err = openTable[*matchKey](s.ex, ns, "partitions", matchKeyCodec{s.n}); err != nil {
		return err
	}
	if s.meta, err = openMeta(s.ex, ns); err != nil {
		return err
	}
	if s.seq, err = s.meta.getInt("seq"); err != nil {
		return err
	}
	if s.arrived, err = s.meta.getInt("arrived"); err != nil {
		return err
	}
	if b, _ := s.meta.get("wm"); b != nil {
		s.wm, err = s.meta.getInt("wm")
	}
	return err
}

// The state of MATCH_RECOGNIZE: each partition's matcher, rows waiting
// and rows held (partitions, in the state store behind the cache), and in
// meta the count of rows and of partitions that arrived and the
// watermark (but in a statement's final checkpoint: the next run starts
// without one).
func (s *matchStream) Checkpoint(tx state.Tx, finished, final bool) error {
	if err := s.meta.putInt("seq", s.seq); err != nil {
		return err
	}
	if err := s.meta.putInt("arrived", s.arrived); err != nil {
		return err
	}
	if final {
		delete(s.meta.vals, "wm")
	} else if err := s.meta.putInt("wm", s.wm); err != nil {
		return err
	}
	return tableSet{s.parts, s.meta}.checkpoint(tx, finished)
}

// Quiescent: no match waits to go out.
func (s *matchStream) Quiescent() bool { return s.out.Len() == 0 }

// matchKey is one partition's state: its NFA state, the rows waiting for
// the watermark, and the rows its matches hold, by event id.
type matchKey struct {
	key    []any
	nfa    *cep.State
	wait   []matchRow
	held   map[int64]types.Row
	arrive int64 // the order in which partitions first had a row
}

type matchRow struct {
	ts   int64
	sort []any
	seq  int64
	row  types.Row
}

// matchKeyCodec encodes a partition's state: its PARTITION BY values,
// its matcher's state, its waiting rows (time, sort keys, event id, row),
// the rows its matches hold by event id, in id order, and when it
// arrived.
type matchKeyCodec struct{ n *MatchNode }

func (matchKeyCodec) Append(b []byte, k *matchKey) ([]byte, error) {
	b, err := appendValues(b, k.key)
	if err != nil {
		return nil, err
	}
	b = k.nfa.AppendState(b)
	b = binary.AppendUvarint(b, uint64(len(k.wait)))
	for _, w := range k.wait {
		b = appendVarint(b, w.ts)
		if b, err = appendValues(b, w.sort); err != nil {
			return nil, err
		}
		b = appendVarint(b, w.seq)
		if b, err = appendValues(b, w.row.Fields); err != nil {
			return nil, err
		}
	}
	b = binary.AppendUvarint(b, uint64(len(k.held)))
	for _, id := range slices.Sorted(maps.Keys(k.held)) {
		b = appendVarint(b, id)
		if b, err = appendValues(b, k.held[id].Fields); err != nil {
			return nil, err
		}
	}
	return appendVarint(b, k.arrive), nil
}

func (c matchKeyCodec) Decode(b []byte) (*matchKey, error) {
	k := &matchKey{held: map[int64]types.Row{}}
	var err error
	if k.key, b, err = readValues(b); err != nil {
		return nil, err
	}
	if k.nfa, b, err = c.n.NFA.ReadState(b); err != nil {
		return nil, err
	}
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return nil, errAccTruncated
	}
	b = b[w:]
	k.wait = make([]matchRow, n)
	for i := range k.wait {
		r := &k.wait[i]
		if r.ts, b, err = readVarint(b); err != nil {
			return nil, err
		}
		if r.sort, b, err = readValues(b); err != nil {
			return nil, err
		}
		if r.seq, b, err = readVarint(b); err != nil {
			return nil, err
		}
		r.row.Kind = types.Insert
		if r.row.Fields, b, err = readValues(b); err != nil {
			return nil, err
		}
	}
	n, w = binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return nil, errAccTruncated
	}
	b = b[w:]
	for range n {
		var id int64
		var fields []any
		if id, b, err = readVarint(b); err != nil {
			return nil, err
		}
		if fields, b, err = readValues(b); err != nil {
			return nil, err
		}
		k.held[id] = types.Row{Kind: types.Insert, Fields: fields}
	}
	if k.arrive, b, err = readVarint(b); err != nil {
		return nil, err
	}
	if len(b) != 0 {
		return nil, errAccTruncated
	}
	missing := false
	k.nfa.Held(func(e cep.Event) { _, ok := k.held[e.ID]; missing = missing || !ok })
	if missing {
		return nil, errors.New("a match holds a row the state lacks")
	}
	return k, nil
}

type matchStream struct {
	n       *MatchNode
	in      exec.Stream
	ex      *exec.Execution
	wm      int64
	parts   *opstate.Table[*matchKey]
	meta    opMeta
	seq     int64 // event ids: the order rows reach an NFA
	arrived int64
	late    int64
	out     exec.Queue
	// obs draws the operator in the statement's timeline (nil: none).
	obs exec.OpObserver
}

var (
	_ exec.Stream       = (*matchStream)(nil)
	_ exec.TimeOperator = (*matchStream)(nil)
)

func (s *matchStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

// Time runs the partitions' rows up to the watermark (or the end) through
// their NFAs.
func (s *matchStream) Time(ev *exec.Event) error {
	if s.n.ProcTime {
		return nil // rows went to their NFAs as they came
	}
	switch ev.Kind {
	case exec.EvWatermark:
		if ev.Restored() {
			// The watermark a restarted run had emitted before its crash:
			// the rows up to it went through their matchers then.
			s.wm = max(s.wm, ev.Wm)
			return nil
		}
		if ev.Wm > s.wm {
			if s.obs != nil {
				s.obs.Watermark(ev.Wm)
			}
			s.wm = ev.Wm
			return s.release(ev.Wm)
		}
	case exec.EvEnd:
		if s.ex.Opts.EndOfInput {
			if s.obs != nil {
				s.obs.Watermark(exec.MaxWatermark)
			}
			if err := s.release(exec.MaxWatermark); err != nil {
				return err
			}
		}
		if s.late > 0 {
			s.ex.Notes = append(s.ex.Notes, "note: MATCH_RECOGNIZE dropped "+exec.Plural(s.late, "late row")+" (at or before the watermark when they arrived), as Flink does")
		}
	}
	return nil
}

func (s *matchStream) Close() error { return s.in.Close() }

func (s *matchStream) Row(r types.Row) error {
	if r.Kind != types.Insert {
		return fmt.Errorf("MATCH_RECOGNIZE takes insert-only input, not a %s row", r.Kind)
	}
	t, ok := types.TimeMillis(r.Fields[s.n.Time])
	vals := make([]any, len(s.n.Partition))
	for i, c := range s.n.Partition {
		vals[i] = r.Fields[c]
	}
	if !s.n.ProcTime && (!ok || t <= s.wm) {
		s.late++
		if s.obs != nil {
			s.obs.Dropped(s.drawKey(vals), t, ok, types.FormatRow(r, s.n.In.Schema()))
		}
		return nil
	}
	if s.obs != nil {
		s.obs.RowIn(s.drawKey(vals), t, ok, false, types.FormatRow(r, s.n.In.Schema()))
	}
	key := keycodec.Encode(vals)
	k, _, err := s.parts.Get(key)
	if err != nil {
		return err
	}
	if k == nil {
		s.arrived++
		k = &matchKey{key: vals, nfa: s.n.NFA.NewState(), held: map[int64]types.Row{}, arrive: s.arrived}
	}
	sk, err := sortKeyValues(s.n.Keys, r)
	if err != nil {
		return err
	}
	s.seq++
	mr := matchRow{ts: t, sort: sk, seq: s.seq, row: r.Copy()}
	if s.n.ProcTime {
		return s.arrive(key, k, mr)
	}
	at := sort.Search(len(k.wait), func(i int) bool { return s.after(k.wait[i], mr) })
	if at == 0 || k.wait[at-1].ts != t {
		if s.obs != nil {
			s.obs.TimerSet(s.drawKey(vals), t) // Flink's timer at the row's time
		}
	}
	k.wait = append(k.wait, matchRow{})
	copy(k.wait[at+1:], k.wait[at:])
	k.wait[at] = mr
	return s.parts.Put(key, k)
}

// after reports whether a goes after b: by time, then the other ORDER BY
// keys, then arrival.
func (s *matchStream) after(a, b matchRow) bool {
	if a.ts != b.ts {
		return a.ts > b.ts
	}
	if c := compareSortKeys(s.n.Keys, a.sort, b.sort); c != 0 {
		return c > 0
	}
	return a.seq > b.seq
}

// release runs the rows at or before wm through their partitions' NFAs:
// partitions whose earliest waiting row is earliest first (as Flink's
// timers fire), then those that only advance their time.
func (s *matchStream) release(wm int64) error {
	type due struct {
		key    string
		first  int64
		arrive int64
	}
	var dues []due
	err := s.parts.Scan(nil, func(key []byte, k *matchKey) (bool, error) {
		first := int64(exec.MaxWatermark)
		if len(k.wait) > 0 && k.wait[0].ts <= wm {
			first = k.wait[0].ts
		} else if k.nfa.Idle() {
			return true, nil
		}
		dues = append(dues, due{string(key), first, k.arrive})
		return true, nil
	})
	if err != nil {
		return err
	}
	sort.Slice(dues, func(i, j int) bool {
		if dues[i].first != dues[j].first {
			return dues[i].first < dues[j].first
		}
		return dues[i].arrive < dues[j].arrive
	})
	for _, d := range dues {
		key := []byte(d.key)
		k, _, err := s.parts.Get(key)
		if err != nil {
			return err
		}
		if k == nil {
			continue
		}
		if err := s.runKey(k, wm); err != nil {
			return err
		}
		if len(k.wait) == 0 && k.nfa.Idle() {
			err = s.parts.Delete(key)
		} else {
			err = s.parts.Put(key, k)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// runKey is Flink's CepOperator.onEventTime for one partition.
func (s *matchStream) runKey(k *matchKey, wm int64) error {
	nfa := s.n.NFA
	i := 0
	for i < len(k.wait) && k.wait[i].ts <= wm {
		ts := k.wait[i].ts
		if s.obs != nil {
			s.obs.TimerFired(s.drawKey(k.key), ts)
		}
		ms, err := nfa.AdvanceTime(k.nfa, ts)
		if err != nil {
			return err
		}
		if err := s.emit(k, ms, ts); err != nil {
			return err
		}
		for ; i < len(k.wait) && k.wait[i].ts == ts; i++ {
			w := k.wait[i]
			ev := cep.Event{ID: w.seq, TS: w.ts}
			k.held[w.seq] = w.row
			c := &matchConds{s: s, k: k, row: w.row}
			ms, err := nfa.Process(k.nfa, ev, c)
			if err != nil {
				return s.rowError(err, w.row)
			}
			if err := s.emit(k, ms, ts); err != nil {
				return err
			}
		}
	}
	k.wait = append(k.wait[:0:0], k.wait[i:]...)
	ms, err := nfa.AdvanceTime(k.nfa, wm)
	if err != nil {
		return err
	}
	if err := s.emit(k, ms, wm); err != nil {
		return err
	}
	s.forget(k)
	return nil
}

// arrive runs a row that came in processing-time order through its
// partition's NFA at once: Flink's CepOperator.processElement in
// processing time, which advances the NFA's time to the row's and then
// processes it.
func (s *matchStream) arrive(key []byte, k *matchKey, w matchRow) error {
	nfa := s.n.NFA
	ms, err := nfa.AdvanceTime(k.nfa, w.ts)
	if err != nil {
		return err
	}
	if err := s.emit(k, ms, w.ts); err != nil {
		return err
	}
	k.held[w.seq] = w.row
	c := &matchConds{s: s, k: k, row: w.row}
	ms, err = nfa.Process(k.nfa, cep.Event{ID: w.seq, TS: w.ts}, c)
	if err != nil {
		return s.rowError(err, w.row)
	}
	if err := s.emit(k, ms, w.ts); err != nil {
		return err
	}
	s.forget(k)
	if k.nfa.Idle() {
		return s.parts.Delete(key)
	}
	return s.parts.Put(key, k)
}

func (s *matchStream) rowError(err error, r types.Row) error {
	return fmt.Errorf("MATCH_RECOGNIZE: %w (at row %s)", err, r)
}

// forget drops the rows no partial or completed match holds any more.
func (s *matchStream) forget(k *matchKey) {
	keep := map[int64]bool{}
	k.nfa.Held(func(e cep.Event) { keep[e.ID] = true })
	for id := range k.held {
		if !keep[id] {
			delete(k.held, id)
		}
	}
}

// emit hands on one row per match: the PARTITION BY columns and the
// measures. ts is the time of the match (MATCH_ROWTIME).
func (s *matchStream) emit(k *matchKey, ms []cep.Match, ts int64) error {
	for _, m := range ms {
		out := make([]any, 0, len(s.n.Sch.Columns))
		out = append(out, k.key...)
		rows := s.rowsOf(k, m)
		for _, x := range s.n.Measures {
			v, err := x.eval(s.n, rows, -1, nil, ts, s.ex.Now)
			if err != nil {
				return fmt.Errorf("MATCH_RECOGNIZE: MEASURES: %w", err)
			}
			out = append(out, v)
		}
		s.out.PushRow(types.Insert, out)
		if s.obs != nil {
			s.obs.RowOut(s.drawKey(k.key), ts, types.FormatRow(types.Row{Kind: types.Insert, Fields: out}, s.n.Sch))
		}
	}
	return nil
}

// matchCall is the name a timeline gives MATCH_RECOGNIZE.
const matchCall = "MATCH_RECOGNIZE"

// drawKey prints a partition's key for the timeline ("" without
// PARTITION BY).
func (s *matchStream) drawKey(key []any) string {
	if len(s.n.Partition) == 0 {
		return ""
	}
	return exec.FormatKey(key)
}

// matchRowOf is one row of a match with its variable.
type matchRowOf struct {
	v   int
	row types.Row
}

func (s *matchStream) rowsOf(k *matchKey, steps []cep.Step) []matchRowOf {
	rows := make([]matchRowOf, len(steps))
	for i, st := range steps {
		rows[i] = matchRowOf{v: st.Var, row: k.held[st.Event.ID]}
	}
	return rows
}

// matchConds evaluates DEFINE for the row being matched.
type matchConds struct {
	s   *matchStream
	k   *matchKey
	row types.Row
}

func (c *matchConds) Cond(v int, steps []cep.Step, _ cep.Event) (bool, error) {
	d := c.s.n.Defines[v]
	if d == nil {
		return true, nil
	}
	val, err := d.eval(c.s.n, c.s.rowsOf(c.k, steps), v, &c.row, 0, c.s.ex.Now)
	if err != nil {
		return false, fmt.Errorf("DEFINE %s: %w", c.s.n.NFA.Vars()[v].Name, err)
	}
	return val == true, nil
}

// eval evaluates x over the rows of a match. In DEFINE, cur is the row
// being matched as variable def: it counts as the last row of def and of
// every variable together.
func (x *MatchExpr) eval(n *MatchNode, rows []matchRowOf, def int, cur *types.Row, ts int64, now func() int64) (any, error) {
	vals := make([]any, len(x.Slots))
	for i, sl := range x.Slots {
		switch {
		case sl.Rowtime:
			if sl.RowtimeLTZ {
				vals[i] = types.Instant{Millis: ts}
			} else {
				vals[i] = types.LocalDateTime{Millis: ts}
			}
		case sl.Proctime:
			vals[i] = types.Instant{Millis: now()}
		case sl.Agg != nil:
			acc := NewAccumulator(sl.Agg)
			var err error
			each(rows, sl.Var, def, cur, func(r types.Row) {
				if err != nil {
					return
				}
				var v any
				if sl.Agg.Arg != nil {
					v, err = sl.Agg.Arg.Eval(r.Fields)
				}
				acc.Add(v)
			})
			if err != nil {
				return nil, err
			}
			vals[i] = acc.Value()
		default:
			var picked []types.Row
			each(rows, sl.Var, def, cur, func(r types.Row) { picked = append(picked, r) })
			if sl.Offset < len(picked) {
				r := picked[len(picked)-1-sl.Offset]
				if sl.First {
					r = picked[sl.Offset]
				}
				vals[i] = r.Fields[sl.Col]
			}
		}
	}
	return x.Expr.Eval(vals)
}

// each calls f for the rows of variable v (-1: of every variable) in
// order, and then for cur when it is being matched as v (or v is -1).
func each(rows []matchRowOf, v, def int, cur *types.Row, f func(types.Row)) {
	for _, r := range rows {
		if v < 0 || r.v == v {
			f(r.row)
		}
	}
	if cur != nil && (v < 0 || v == def) {
		f(*cur)
	}
}

// MatchText prints a MATCH_RECOGNIZE's plan line parts for EXPLAIN.
func MatchText(partition, order []string, measures []string, after, pattern string) string {
	var b strings.Builder
	if len(partition) > 0 {
		b.WriteString("partitionBy=[" + strings.Join(partition, ", ") + "], ")
	}
	b.WriteString("orderBy=[" + strings.Join(order, ", ") + "], measures=[" + strings.Join(measures, ", ") + "], rowsPerMatch=[ONE ROW PER MATCH], after=[" + after + "], pattern=[" + pattern + "]")
	return b.String()
}
