package sqlop

import (
	"encoding/binary"
	"sort"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// IntervalJoinNode is Flink's event-time interval join: the rows of each
// side with the same key whose times satisfy Lower <= leftTime - rightTime
// <= Upper (and Cond) are joined as soon as the second of them arrives. A
// row is kept only while a row of the other side could still match it: a
// row of the left side until the watermark passes its time + -Lower, of
// the right side until it passes its time + Upper; an outer side's row
// that never matched is then emitted padded with NULLs. The output is
// insert-only, keeps both time attributes, and its watermark is held back
// by the larger of -Lower and Upper, as Flink's is. Rows are taken from the
// inputs in time order (ties to the left).
//
// Flink removes the rows that expire at cleanup timers a little after
// they expire, so a late row may still meet a row there that ptfsh has
// dropped already; in time order the results are the same.
type IntervalJoinNode struct {
	Left, Right         exec.Node
	Kind                JoinKind
	LeftKeys, RightKeys []expr.Expr
	Cond                expr.Expr
	// LeftTime and RightTime are the time attributes, in each side's row.
	LeftTime, RightTime int
	Lower, Upper        int64
	Sch                 types.Schema
	Text                string
}

var _ exec.Node = (*IntervalJoinNode)(nil)

func (n *IntervalJoinNode) Schema() types.Schema { return n.Sch }

func (n *IntervalJoinNode) Changelog() types.ChangelogMode { return types.InsertOnly }

func (n *IntervalJoinNode) Children() []exec.Node { return []exec.Node{n.Left, n.Right} }

func (n *IntervalJoinNode) Explain() string { return n.Text }

func (n *IntervalJoinNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("intervaljoin")
	ins, err := exec.OpenAll(ex, []exec.Node{n.Left, n.Right})
	if err != nil {
		return nil, err
	}
	two := newTwoInputs(ins, ex)
	two.byTime, two.timeCol = true, [2]int{n.LeftTime, n.RightTime}
	js := &joinStream{n: &JoinNode{LeftKeys: n.LeftKeys, RightKeys: n.RightKeys}, keyedSides: keyedSides{keys: [2][]expr.Expr{n.LeftKeys, n.RightKeys}}, width: [2]int{n.Left.Schema().Len(), n.Right.Schema().Len()}}
	s := &intervalStream{n: n, two: two, js: js}
	if err := s.open(ex, ns); err != nil {
		exec.CloseAll(ins)
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

func (s *intervalStream) open(ex *exec.Execution, ns string) error {
	var err error
	if s.keys, err = openTable[*intervalKey](ex, ns, "rows", intervalKeyCodec{}); err != nil {
		return err
	}
	if s.expiry, err = openQueue[noValue](ex, ns, "expiry", noValueCodec{}); err != nil {
		return err
	}
	if s.meta, err = openMeta(ex, ns); err != nil {
		return err
	}
	if s.arrived, err = s.meta.getInt("arrived"); err != nil {
		return err
	}
	if s.wm, err = s.meta.getInt("wm"); err != nil {
		return err
	}
	return s.two.restore(s.meta)
}

// intervalRow is a row waiting in an interval join; joined: it met a row
// of the other side.
type intervalRow struct {
	fields []any
	ts     int64
	joined bool
}

// intervalKey holds the waiting rows of one key, per side in time order;
// arrive orders the keys by when their rows began to wait (the order in
// which their rows expire at one watermark).
type intervalKey struct {
	arrive int64
	rows   [2][]*intervalRow
}

// intervalKeyCodec encodes a key's rows: its arrival, then per side the
// number of rows and each row's time, whether it joined, and its fields.
type intervalKeyCodec struct{}

func (intervalKeyCodec) Append(b []byte, k *intervalKey) ([]byte, error) {
	b = appendVarint(b, k.arrive)
	for _, rows := range k.rows {
		b = binary.AppendUvarint(b, uint64(len(rows)))
		for _, r := range rows {
			b = append(appendVarint(b, r.ts), boolByte(r.joined))
			var err error
			if b, err = appendValues(b, r.fields); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

func (intervalKeyCodec) Decode(b []byte) (*intervalKey, error) {
	k := &intervalKey{}
	var err error
	if k.arrive, b, err = readVarint(b); err != nil {
		return nil, err
	}
	for side := range k.rows {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)) {
			return nil, errAccTruncated
		}
		b = b[w:]
		rows := make([]*intervalRow, n)
		for i := range rows {
			r := &intervalRow{}
			if r.ts, b, err = readVarint(b); err != nil {
				return nil, err
			}
			if len(b) == 0 {
				return nil, errAccTruncated
			}
			r.joined, b = b[0] != 0, b[1:]
			if r.fields, b, err = readValues(b); err != nil {
				return nil, err
			}
			rows[i] = r
		}
		k.rows[side] = rows
	}
	if len(b) != 0 {
		return nil, errAccTruncated
	}
	return k, nil
}

// The state of an interval join: the waiting rows by join key (keys), the
// times at which rows of a key expire (expiry: the time, then the key),
// and in meta the operator's watermark, the count of keys that began to
// wait, and its inputs' state.
type intervalStream struct {
	n       *IntervalJoinNode
	two     *twoInputs
	js      *joinStream // keys and row building
	keys    *opstate.Table[*intervalKey]
	expiry  *dueQueue[noValue]
	meta    opMeta
	arrived int64
	wm      int64 // the operator's watermark (0 before the first, as in Flink)
	out     exec.Queue
}

var (
	_ exec.Stream   = (*intervalStream)(nil)
	_ exec.Stateful = (*intervalStream)(nil)
)

func (s *intervalStream) Checkpoint(tx state.Tx, finished, final bool) error {
	if err := s.meta.putInt("arrived", s.arrived); err != nil {
		return err
	}
	wm := s.wm
	if final {
		wm = 0 // the next run starts without a watermark
	}
	if err := s.meta.putInt("wm", wm); err != nil {
		return err
	}
	if err := s.two.save(s.meta, final); err != nil {
		return err
	}
	return tableSet{s.keys, s.expiry.t, s.meta}.checkpoint(tx, finished)
}

func (s *intervalStream) Quiescent() bool { return s.out.Len() == 0 && s.two.quiescent() }

func (s *intervalStream) Next() (exec.Event, error) {
	for {
		if ev, ok := s.out.Pop(); ok {
			return ev, nil
		}
		side, ev, err := s.two.next()
		if err != nil {
			return exec.Event{}, err
		}
		switch ev.Kind {
		case exec.EvRow:
			if err := s.row(side, ev.Row); err != nil {
				return exec.Event{}, err
			}
			continue
		case exec.EvWatermark:
			s.wm = max(s.wm, ev.Wm, 0)
			if err := s.expire(); err != nil {
				return exec.Event{}, err
			}
			if ev.Wm != exec.MaxWatermark {
				ev.Wm -= max(-s.n.Lower, s.n.Upper, 0)
			}
			s.out.Push(ev)
			continue
		}
		return ev, nil
	}
}

// relative is how long after its own time a row of side may still meet a
// row of the other: -Lower for the left, Upper for the right.
func (s *intervalStream) relative(side int) int64 {
	if side == 0 {
		return -s.n.Lower
	}
	return s.n.Upper
}

// expiresAt is the watermark at which a row of side at ts expires: the
// first that passes ts + relative.
func (s *intervalStream) expiresAt(side int, ts int64) int64 {
	at := ts + s.relative(side) + 1
	if s.relative(side) >= 0 && at < ts { // overflow
		return exec.MaxWatermark
	}
	return at
}

func (s *intervalStream) row(side int, r types.Row) error {
	col := s.n.LeftTime
	if side == 1 {
		col = s.n.RightTime
	}
	ts, ok := types.TimeMillis(r.Fields[col])
	if !ok {
		return nil // no time: it can match nothing (Flink's rowtime is never NULL)
	}
	key, kok, err := s.js.key(side, r)
	if err != nil {
		return err
	}
	// The other side's rows that r may meet have times in [lo, hi].
	lo, hi := ts-s.n.Upper, ts-s.n.Lower
	if side == 1 {
		lo, hi = ts+s.n.Lower, ts+s.n.Upper
	}
	joined, fresh := false, false
	var k *intervalKey
	if kok {
		if k, _, err = s.keys.Get([]byte(key)); err != nil {
			return err
		}
		if k == nil {
			// The key's place in the order of expiry is taken now, and kept
			// until a watermark finds it without rows.
			s.arrived++
			k, fresh = &intervalKey{arrive: s.arrived}, true
		}
		for _, o := range k.rows[1-side] {
			if o.ts < lo || o.ts > hi {
				continue
			}
			out := s.js.joined(side, r.Fields, o.fields)
			if s.n.Cond != nil {
				v, err := s.n.Cond.Eval(out)
				if err != nil {
					return err
				}
				if v != true {
					continue
				}
			}
			joined, o.joined = true, true
			s.emit(out)
		}
	}
	if kok && s.wm < hi {
		// A row of the other side may still come: r waits.
		rows := k.rows[side]
		at := sort.Search(len(rows), func(i int) bool { return rows[i].ts > ts })
		rows = append(rows, nil)
		copy(rows[at+1:], rows[at:])
		rows[at] = &intervalRow{fields: r.Fields, ts: ts, joined: joined}
		k.rows[side] = rows
		if err := s.keys.Put([]byte(key), k); err != nil {
			return err
		}
		return s.expiry.Add(timeKey(s.expiresAt(side, ts), []byte(key)), noValue{})
	}
	switch {
	case fresh:
		// No row waits, but the key keeps its place until the next
		// watermark.
		if err := s.keys.Put([]byte(key), k); err != nil {
			return err
		}
		if err := s.expiry.Add(timeKey(s.wm, []byte(key)), noValue{}); err != nil {
			return err
		}
	case joined:
		s.keys.Touch([]byte(key)) // rows of the other side met it
	}
	if !joined && s.n.Kind.outer(side) {
		s.emit(s.js.padded(side, r.Fields))
	}
	return nil
}

// expire drops the rows that no row to come can meet, the padded row of
// an outer side's row that met none going out: the keys whose rows expire
// at this watermark, in the order their rows began to wait.
func (s *intervalStream) expire() error {
	through := s.wm
	var due []string
	seen := map[string]bool{}
	for {
		k, _, ok, err := s.expiry.Pop(through)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		key := string(k[8:])
		if !seen[key] {
			seen[key] = true
			due = append(due, key)
		}
	}
	if len(due) == 0 {
		return nil
	}
	type dueKey struct {
		key string
		k   *intervalKey
	}
	keys := make([]dueKey, 0, len(due))
	for _, key := range due {
		k, _, err := s.keys.Get([]byte(key))
		if err != nil {
			return err
		}
		if k != nil {
			keys = append(keys, dueKey{key, k})
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].k.arrive < keys[j].k.arrive })
	for _, d := range keys {
		k := d.k
		for side := range k.rows {
			limit := s.wm - s.relative(side) - 1 // rows at or before it expire
			if s.wm == exec.MaxWatermark {
				limit = exec.MaxWatermark
			}
			rows := k.rows[side]
			i := 0
			for ; i < len(rows) && rows[i].ts <= limit; i++ {
				if !rows[i].joined && s.n.Kind.outer(side) {
					s.emit(s.js.padded(side, rows[i].fields))
				}
			}
			k.rows[side] = rows[i:]
		}
		var err error
		if len(k.rows[0]) == 0 && len(k.rows[1]) == 0 {
			err = s.keys.Delete([]byte(d.key))
		} else {
			err = s.keys.Put([]byte(d.key), k)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *intervalStream) emit(fields []any) {
	s.out.PushRow(types.Insert, fields)
}

func (s *intervalStream) Close() error { return exec.CloseAll(s.two.ins) }
