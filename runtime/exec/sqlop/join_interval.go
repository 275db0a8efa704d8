package sqlop

import (
	"sort"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
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
	if err := ex.InMemory("an interval join keeps its rows"); err != nil {
		return nil, err
	}
	ins, err := exec.OpenAll(ex, []exec.Node{n.Left, n.Right})
	if err != nil {
		return nil, err
	}
	two := newTwoInputs(ins, ex)
	two.byTime, two.timeCol = true, [2]int{n.LeftTime, n.RightTime}
	js := &joinStream{n: &JoinNode{LeftKeys: n.LeftKeys, RightKeys: n.RightKeys}, width: [2]int{n.Left.Schema().Len(), n.Right.Schema().Len()}}
	return &intervalStream{n: n, two: two, js: js, keys: map[string]*intervalKey{}}, nil
}

// intervalRow is a row waiting in an interval join; joined: it met a row
// of the other side.
type intervalRow struct {
	fields []any
	ts     int64
	joined bool
}

// intervalKey holds the waiting rows of one key, per side in time order.
type intervalKey struct {
	rows [2][]*intervalRow
}

type intervalStream struct {
	n     *IntervalJoinNode
	two   *twoInputs
	js    *joinStream // keys and row building
	keys  map[string]*intervalKey
	order []string // keys in order of first arrival
	wm    int64    // the operator's watermark (0 before the first, as in Flink)
	out   exec.Queue
}

var _ exec.Stream = (*intervalStream)(nil)

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
			s.wm = max(ev.Wm, 0)
			s.expire()
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
	joined := false
	var k *intervalKey
	if kok {
		k = s.keys[key]
		if k == nil {
			k = &intervalKey{}
			s.keys[key] = k
			s.order = append(s.order, key)
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
		return nil
	}
	if !joined && s.n.Kind.outer(side) {
		s.emit(s.js.padded(side, r.Fields))
	}
	return nil
}

// expire drops the rows that no row to come can meet, the padded row of
// an outer side's row that met none going out.
func (s *intervalStream) expire() {
	keep := s.order[:0]
	for _, key := range s.order {
		k := s.keys[key]
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
		if len(k.rows[0]) == 0 && len(k.rows[1]) == 0 {
			delete(s.keys, key)
			continue
		}
		keep = append(keep, key)
	}
	s.order = keep
}

func (s *intervalStream) emit(fields []any) {
	s.out.PushRow(types.Insert, fields)
}

func (s *intervalStream) Close() error { return exec.CloseAll(s.two.ins) }
