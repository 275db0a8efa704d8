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

// TemporalJoinNode is Flink's event-time temporal join, a JOIN v FOR
// SYSTEM_TIME AS OF a.ts ON a.k = v.k: each row of the left side joins
// the version of the versioned table (the right side: a primary key and a
// time attribute) that was current at the left row's time, that is, the
// last row of its key whose time is at or before it, unless that row is a
// delete. Left rows wait until the watermark (the smaller of both
// inputs') reaches their time, and then go out in time order (ties in
// arrival order); versions older than the last one at or before the
// watermark are dropped. Kind is InnerJoin or LeftJoin (a left row
// without a version, or whose version fails Cond, padded with NULLs). The
// output is insert-only and keeps the left time attribute only.
type TemporalJoinNode struct {
	Left, Right         exec.Node
	Kind                JoinKind
	LeftKeys, RightKeys []expr.Expr
	Cond                expr.Expr
	LeftTime, RightTime int
	Sch                 types.Schema
	Text                string
}

var _ exec.Node = (*TemporalJoinNode)(nil)

func (n *TemporalJoinNode) Schema() types.Schema { return n.Sch }

func (n *TemporalJoinNode) Changelog() types.ChangelogMode { return types.InsertOnly }

func (n *TemporalJoinNode) Children() []exec.Node { return []exec.Node{n.Left, n.Right} }

func (n *TemporalJoinNode) Explain() string { return n.Text }

func (n *TemporalJoinNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("temporaljoin")
	ins, err := exec.OpenAll(ex, []exec.Node{n.Left, n.Right})
	if err != nil {
		return nil, err
	}
	two := newTwoInputs(ins, ex)
	two.byTime, two.timeCol = true, [2]int{n.LeftTime, n.RightTime}
	js := &joinStream{n: &JoinNode{LeftKeys: n.LeftKeys, RightKeys: n.RightKeys}, keyedSides: keyedSides{keys: [2][]expr.Expr{n.LeftKeys, n.RightKeys}}, width: [2]int{n.Left.Schema().Len(), n.Right.Schema().Len()}}
	s := &temporalStream{n: n, two: two, js: js}
	if err := s.open(ex, ns); err != nil {
		exec.CloseAll(ins)
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

func (s *temporalStream) open(ex *exec.Execution, ns string) error {
	var err error
	if s.versions, err = openTable[*versions](ex, ns, "versions", versionsCodec{}); err != nil {
		return err
	}
	if s.left, err = openQueue[*waiting](ex, ns, "left", waitingCodec{}); err != nil {
		return err
	}
	if s.prune, err = openQueue[noValue](ex, ns, "prune", noValueCodec{}); err != nil {
		return err
	}
	if s.meta, err = openMeta(ex, ns); err != nil {
		return err
	}
	if s.seq, err = s.meta.getInt("seq"); err != nil {
		return err
	}
	return s.two.restore(s.meta)
}

// version is one row of the versioned table: from ts on, its key's row is
// fields, or no row (deleted).
type version struct {
	ts      int64
	fields  []any
	deleted bool
}

// versions are a key's versions in time order.
type versions struct{ vs []version }

// versionsCodec encodes a key's versions: their number, then each one's
// time, whether it is a delete, and its fields.
type versionsCodec struct{}

func (versionsCodec) Append(b []byte, v *versions) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(v.vs)))
	for _, x := range v.vs {
		b = append(appendVarint(b, x.ts), boolByte(x.deleted))
		var err error
		if b, err = appendValues(b, x.fields); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (versionsCodec) Decode(b []byte) (*versions, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return nil, errAccTruncated
	}
	b = b[w:]
	v := &versions{vs: make([]version, n)}
	for i := range v.vs {
		var err error
		if v.vs[i].ts, b, err = readVarint(b); err != nil {
			return nil, err
		}
		if len(b) == 0 {
			return nil, errAccTruncated
		}
		v.vs[i].deleted, b = b[0] != 0, b[1:]
		if v.vs[i].fields, b, err = readValues(b); err != nil {
			return nil, err
		}
	}
	if len(b) != 0 {
		return nil, errAccTruncated
	}
	return v, nil
}

// waiting is a left row waiting for the watermark.
type waiting struct {
	fields []any
	key    string
	hasKey bool
}

// waitingCodec encodes a waiting row: whether it has a key, the key, and
// its fields (its time and arrival are in its queue key).
type waitingCodec struct{}

func (waitingCodec) Append(b []byte, w *waiting) ([]byte, error) {
	b = append(b, boolByte(w.hasKey))
	b = binary.AppendUvarint(b, uint64(len(w.key)))
	b = append(b, w.key...)
	return appendValues(b, w.fields)
}

func (waitingCodec) Decode(b []byte) (*waiting, error) {
	if len(b) == 0 {
		return nil, errAccTruncated
	}
	w := &waiting{hasKey: b[0] != 0}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || n > uint64(len(b)-1-k) {
		return nil, errAccTruncated
	}
	b = b[1+k:]
	w.key, b = string(b[:n]), b[n:]
	var err error
	if w.fields, b, err = readValues(b); err != nil {
		return nil, err
	}
	if len(b) != 0 {
		return nil, errAccTruncated
	}
	return w, nil
}

// The state of a temporal join: the versions of each key, the left rows
// waiting for the watermark (left: their time and arrival, then the row),
// and the times from which a key's older versions can go (prune: the
// time, then the key); in meta the count of left rows and its inputs'
// state.
type temporalStream struct {
	n        *TemporalJoinNode
	two      *twoInputs
	js       *joinStream
	versions *opstate.Table[*versions]
	left     *dueQueue[*waiting]
	prune    *dueQueue[noValue]
	meta     opMeta
	seq      int64
	out      exec.Queue
}

var (
	_ exec.Stream   = (*temporalStream)(nil)
	_ exec.Stateful = (*temporalStream)(nil)
)

func (s *temporalStream) Checkpoint(tx state.Tx, finished, final bool) error {
	if err := s.meta.putInt("seq", s.seq); err != nil {
		return err
	}
	if err := s.two.save(s.meta, final); err != nil {
		return err
	}
	return tableSet{s.versions, s.left.t, s.prune.t, s.meta}.checkpoint(tx, finished)
}

func (s *temporalStream) Quiescent() bool { return s.out.Len() == 0 && s.two.quiescent() }

func (s *temporalStream) Next() (exec.Event, error) {
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
			if !ev.Restored() {
				if err := s.fire(ev.Wm); err != nil {
					return exec.Event{}, err
				}
			}
			s.out.Push(ev)
			continue
		}
		return ev, nil
	}
}

func (s *temporalStream) row(side int, r types.Row) error {
	key, ok, err := s.js.key(side, r)
	if err != nil {
		return err
	}
	if side == 0 {
		ts, tok := types.TimeMillis(r.Fields[s.n.LeftTime])
		if !tok {
			return nil // no time: Flink's rowtime is never NULL
		}
		s.seq++
		return s.left.Add(timeKey(ts, binary.BigEndian.AppendUint64(nil, uint64(s.seq))), &waiting{fields: r.Fields, key: key, hasKey: ok})
	}
	ts, tok := types.TimeMillis(r.Fields[s.n.RightTime])
	if !ok || !tok || r.Kind == types.UpdateBefore {
		return nil // -U: its +U is the next version
	}
	v := version{ts: ts, fields: r.Fields, deleted: r.Kind == types.Delete}
	cur, _, err := s.versions.Get([]byte(key))
	if err != nil {
		return err
	}
	if cur == nil {
		cur = &versions{}
	}
	vs := cur.vs
	at := sort.Search(len(vs), func(i int) bool { return vs[i].ts >= ts })
	if at < len(vs) && vs[at].ts == ts {
		vs[at] = v // one version per time: the last row wins
	} else {
		vs = append(vs, version{})
		copy(vs[at+1:], vs[at:])
		vs[at] = v
	}
	cur.vs = vs
	if err := s.versions.Put([]byte(key), cur); err != nil {
		return err
	}
	if len(vs) > 1 && at <= 1 {
		// The second version changed: older ones can go once the
		// watermark reaches it.
		return s.prune.Add(timeKey(vs[1].ts, []byte(key)), noValue{})
	}
	return nil
}

// fire joins the left rows the watermark w reached, in time order, then
// drops the versions no left row to come can need.
func (s *temporalStream) fire(w int64) error {
	for {
		_, l, ok, err := s.left.Pop(w)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		var match []any
		if l.hasKey {
			cur, _, err := s.versions.Get([]byte(l.key))
			if err != nil {
				return err
			}
			var vs []version
			if cur != nil {
				vs = cur.vs
			}
			ts, _ := types.TimeMillis(l.fields[s.n.LeftTime])
			at := sort.Search(len(vs), func(i int) bool { return vs[i].ts > ts }) - 1
			if at >= 0 && !vs[at].deleted {
				out := s.js.joined(0, l.fields, vs[at].fields)
				ok := true
				if s.n.Cond != nil {
					v, err := s.n.Cond.Eval(out)
					if err != nil {
						return err
					}
					ok = v == true
				}
				if ok {
					match = out
				}
			}
		}
		switch {
		case match != nil:
			s.emit(match)
		case s.n.Kind == LeftJoin:
			s.emit(s.js.padded(0, l.fields))
		}
	}
	for {
		k, _, ok, err := s.prune.Pop(w)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		key := k[8:]
		cur, _, err := s.versions.Get(key)
		if err != nil {
			return err
		}
		if cur == nil {
			continue
		}
		vs := cur.vs
		at := sort.Search(len(vs), func(i int) bool { return vs[i].ts > w }) - 1
		if at <= 0 {
			continue
		}
		cur.vs = append(vs[:0:0], vs[at:]...)
		if err := s.versions.Put(key, cur); err != nil {
			return err
		}
		if len(cur.vs) > 1 {
			if err := s.prune.Add(timeKey(cur.vs[1].ts, key), noValue{}); err != nil {
				return err
			}
		}
	}
}

func (s *temporalStream) emit(fields []any) {
	s.out.PushRow(types.Insert, fields)
}

func (s *temporalStream) Close() error { return exec.CloseAll(s.two.ins) }
