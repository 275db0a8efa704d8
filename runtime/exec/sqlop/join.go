package sqlop

import (
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// JoinKind is the kind of a join: which sides keep their rows without a
// match, padded with NULLs.
type JoinKind uint8

// The join kinds.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
)

// String returns Flink's name of the kind, as its plans print it.
func (k JoinKind) String() string {
	return [...]string{"InnerJoin", "LeftOuterJoin", "RightOuterJoin", "FullOuterJoin"}[k]
}

// outer reports whether side (0 left, 1 right) keeps unmatched rows.
func (k JoinKind) outer(side int) bool {
	if side == 0 {
		return k == LeftJoin || k == FullJoin
	}
	return k == RightJoin || k == FullJoin
}

// JoinNode is a regular join (Flink's streaming Join): both inputs are kept
// whole, and each row that arrives joins the rows of the other side with
// the same key (LeftKeys = RightKeys) for which Cond holds. Its output is
// an updating table with Flink's changelog: a row of an outer side that
// has no match is emitted padded with NULLs, and retracted (-D) when its
// first match arrives; a retraction of either side retracts its joined
// rows. Inputs take turns row by row, left first (Flink leaves the order
// open); the rows a row matches come out in the order they arrived (Flink's
// follow its state's hash order).
type JoinNode struct {
	Left, Right exec.Node
	Kind        JoinKind
	// LeftKeys and RightKeys compute the equi-join key of each side's
	// rows, of the same types; a NULL in a key matches nothing.
	LeftKeys, RightKeys []expr.Expr
	// Cond is the rest of the condition, over the joined row (nil: TRUE).
	Cond expr.Expr
	Sch  types.Schema
	Text string
}

var _ exec.Node = (*JoinNode)(nil)

func (n *JoinNode) Schema() types.Schema { return n.Sch }

// Changelog is the union of the inputs' kinds; an outer join adds INSERT
// and DELETE (its padded rows come and go).
func (n *JoinNode) Changelog() types.ChangelogMode {
	m := n.Left.Changelog().Union(n.Right.Changelog())
	m.KeyOnlyDeletes = false
	if n.Kind != InnerJoin {
		m = m.With(types.Insert).With(types.Delete)
	}
	return m
}

func (n *JoinNode) Children() []exec.Node { return []exec.Node{n.Left, n.Right} }

func (n *JoinNode) Explain() string { return n.Text }

func (n *JoinNode) Open(ex *exec.Execution) (exec.Stream, error) {
	if err := ex.InMemory("a join keeps its rows"); err != nil {
		return nil, err
	}
	ins, err := exec.OpenAll(ex, []exec.Node{n.Left, n.Right})
	if err != nil {
		return nil, err
	}
	s := &joinStream{n: n, two: newTwoInputs(ins, ex)}
	s.sides[0].buckets = map[string]*joinBucket{}
	s.sides[1].buckets = map[string]*joinBucket{}
	s.width = [2]int{n.Left.Schema().Len(), n.Right.Schema().Len()}
	return s, nil
}

// joinRec is one row kept by a side of a join; assoc counts the rows of
// the other side it is joined with (for an outer side: 0 means its padded
// row is out).
type joinRec struct {
	fields []any
	enc    string
	assoc  int
}

// joinBucket holds a side's rows of one key, in arrival order.
type joinBucket struct{ recs []*joinRec }

type joinSide struct {
	buckets map[string]*joinBucket
}

type joinStream struct {
	n     *JoinNode
	two   *twoInputs
	sides [2]joinSide
	width [2]int
	out   exec.Queue
}

var _ exec.Stream = (*joinStream)(nil)

func (s *joinStream) Next() (exec.Event, error) {
	for {
		if ev, ok := s.out.Pop(); ok {
			return ev, nil
		}
		side, ev, err := s.two.next()
		if err != nil {
			return exec.Event{}, err
		}
		if ev.Kind != exec.EvRow {
			return ev, nil
		}
		if err := s.row(side, ev.Row); err != nil {
			return exec.Event{}, err
		}
	}
}

// key computes a row's join key; ok is false when a part of it is NULL.
func (s *joinStream) key(side int, r types.Row) (string, bool, error) {
	keys := s.n.LeftKeys
	if side == 1 {
		keys = s.n.RightKeys
	}
	vals := make([]any, len(keys))
	for i, k := range keys {
		v, err := k.Eval(r.Fields)
		if err != nil {
			return "", false, err
		}
		if v == nil {
			return "", false, nil
		}
		vals[i] = v
	}
	return string(keycodec.Encode(vals)), true, nil
}

// joined returns the joined row of a row of side and one of the other.
func (s *joinStream) joined(side int, mine, other []any) []any {
	out := make([]any, 0, s.width[0]+s.width[1])
	if side == 0 {
		return append(append(out, mine...), other...)
	}
	return append(append(out, other...), mine...)
}

// padded returns a row of side joined with NULLs.
func (s *joinStream) padded(side int, fields []any) []any {
	return s.joined(side, fields, make([]any, s.width[1-side]))
}

// matches returns the rows of the other side that the row joins.
func (s *joinStream) matches(side int, key string, ok bool, fields []any) ([]*joinRec, error) {
	if !ok {
		return nil, nil
	}
	b := s.sides[1-side].buckets[key]
	if b == nil {
		return nil, nil
	}
	var out []*joinRec
	for _, r := range b.recs {
		if s.n.Cond != nil {
			v, err := s.n.Cond.Eval(s.joined(side, fields, r.fields))
			if err != nil {
				return nil, err
			}
			if v != true {
				continue
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// row processes a row of side as Flink's StreamingJoinOperator does.
func (s *joinStream) row(side int, r types.Row) error {
	key, ok, err := s.key(side, r)
	if err != nil {
		return err
	}
	ms, err := s.matches(side, key, ok, r.Fields)
	if err != nil {
		return err
	}
	mineOuter, otherOuter := s.n.Kind.outer(side), s.n.Kind.outer(1-side)
	if r.Kind == types.Insert || r.Kind == types.UpdateAfter {
		kind := r.Kind
		if mineOuter || otherOuter {
			kind = types.Insert
		}
		if mineOuter && len(ms) == 0 {
			s.emit(types.Insert, s.padded(side, r.Fields))
		}
		// Flink 2.3 emits, match by match, the retraction of its padded
		// row (when it was out) and then the joined row.
		for _, m := range ms {
			if otherOuter {
				if m.assoc == 0 {
					s.emit(types.Delete, s.padded(1-side, m.fields))
				}
				m.assoc++
			}
			s.emit(kind, s.joined(side, r.Fields, m.fields))
		}
		s.add(side, key, r.Fields, len(ms))
		return nil
	}
	s.remove(side, key, r.Fields)
	if len(ms) == 0 {
		if mineOuter {
			s.emit(types.Delete, s.padded(side, r.Fields))
		}
		return nil
	}
	kind := r.Kind
	if mineOuter {
		kind = types.Delete
	}
	for _, m := range ms {
		s.emit(kind, s.joined(side, r.Fields, m.fields))
		if otherOuter {
			if m.assoc == 1 {
				s.emit(types.Insert, s.padded(1-side, m.fields))
			}
			m.assoc--
		}
	}
	return nil
}

// add keeps a row of side under its key.
func (s *joinStream) add(side int, key string, fields []any, assoc int) {
	bs := s.sides[side].buckets
	b := bs[key]
	if b == nil {
		b = &joinBucket{}
		bs[key] = b
	}
	b.recs = append(b.recs, &joinRec{fields: fields, enc: string(keycodec.Encode(fields)), assoc: assoc})
}

// remove forgets the first row of side equal to fields (a retraction of a
// row never seen changes nothing).
func (s *joinStream) remove(side int, key string, fields []any) {
	bs := s.sides[side].buckets
	b := bs[key]
	if b == nil {
		return
	}
	enc := string(keycodec.Encode(fields))
	for i, r := range b.recs {
		if r.enc == enc {
			b.recs = append(b.recs[:i], b.recs[i+1:]...)
			break
		}
	}
	if len(b.recs) == 0 {
		delete(bs, key)
	}
}

func (s *joinStream) emit(k types.RowKind, fields []any) {
	s.out.PushRow(k, fields)
}

func (s *joinStream) Close() error { return exec.CloseAll(s.two.ins) }

// twoInputs pulls the events of a two-input operator: rows take turns, left
// first; a watermark, a tick or a -U (whose +U follows) keeps its input's
// turn. It hands on rows and the operator's watermark (the inputs'
// combined by an exec.Valve: the smaller of the two, unless one is idle),
// and the end when both inputs ended. A live input that has no row now
// (EvIdle) gives its turn to the other; when neither has one the operator
// is idle too. An input's status (EvStatus) goes to the valve, and the
// operator's own status goes on when it changes.
type twoInputs struct {
	ins   []exec.Stream
	ex    *exec.Execution
	turn  int
	ended [2]bool
	valve *exec.Valve
	idle  bool // the status last handed on
	// byTime: of the rows waiting at the head of each input, the one of
	// the earlier time goes first (ties to the left), timeCol[i] being
	// input i's time attribute.
	byTime  bool
	timeCol [2]int
	heads   [2]*exec.Event
	pending []exec.Event // a status change after its watermark
}

func newTwoInputs(ins []exec.Stream, ex *exec.Execution) *twoInputs {
	return &twoInputs{ins: ins, ex: ex, valve: exec.NewValve(2)}
}

// next returns the next event and the input it came from; watermarks are
// the operator's.
func (t *twoInputs) next() (int, exec.Event, error) {
	for {
		if len(t.pending) > 0 {
			ev := t.pending[0]
			t.pending = t.pending[1:]
			return 0, ev, nil
		}
		if t.ended[0] && t.ended[1] && t.heads[0] == nil && t.heads[1] == nil {
			return 0, exec.Event{Kind: exec.EvEnd}, nil
		}
		i, ev, err := t.pull()
		if err != nil {
			return 0, exec.Event{}, err
		}
		var w int64
		var moved bool
		switch ev.Kind {
		case exec.EvRow, exec.EvTick, exec.EvIdle:
			return i, ev, nil
		case exec.EvEnd:
			t.ended[i] = true
			if !t.ex.Opts.EndOfInput {
				continue
			}
			w, moved = t.valve.Watermark(i, exec.MaxWatermark)
		case exec.EvStatus:
			w, moved = t.valve.SetIdle(i, ev.Idle)
		case exec.EvWatermark:
			w, moved = t.valve.Watermark(i, ev.Wm)
		}
		if idle := t.valve.Idle(); idle != t.idle {
			t.idle = idle
			t.pending = append(t.pending, exec.Event{Kind: exec.EvStatus, Idle: idle})
		}
		if moved {
			return i, exec.Event{Kind: exec.EvWatermark, Wm: w}, nil
		}
	}
}

// pull takes the next event of one input.
func (t *twoInputs) pull() (int, exec.Event, error) {
	if t.byTime {
		return t.pullByTime()
	}
	if t.ex.Shuffle != nil {
		t.turn = t.ex.Shuffle.IntN(2) // SET 'ptfsh.shuffle-seed': turns drawn at random
	}
	idle := -1
	for tries := 0; tries < 2; tries++ {
		i := t.turn % 2
		t.turn++
		if t.ended[i] {
			continue
		}
		ev, err := t.ins[i].Next()
		if err != nil {
			return i, ev, err
		}
		if ev.Kind == exec.EvIdle {
			idle = i // the other input may have a row
			continue
		}
		if ev.Kind != exec.EvRow || ev.Row.Kind == types.UpdateBefore {
			// Only rows take turns, and an update's -U keeps the turn for
			// its +U: Flink's upstream operator sends both together.
			t.turn--
		}
		return i, ev, nil
	}
	if idle >= 0 {
		return idle, exec.Event{Kind: exec.EvIdle}, nil
	}
	return 0, exec.Event{Kind: exec.EvEnd}, nil // not reached: next checks both ended
}

// pullByTime fills the heads and hands on the earlier row; other events
// go as they come. A live input that has no row now does not hold the
// other's rows back.
func (t *twoInputs) pullByTime() (int, exec.Event, error) {
	idle := -1
	for i := range t.ins {
		if t.ended[i] || t.heads[i] != nil {
			continue
		}
		ev, err := t.ins[i].Next()
		if err != nil {
			return i, ev, err
		}
		switch ev.Kind {
		case exec.EvRow:
			t.heads[i] = &ev
			continue
		case exec.EvIdle:
			idle = i
			continue
		}
		return i, ev, nil
	}
	best, bestTs := -1, int64(0)
	for i, h := range t.heads {
		if h == nil {
			continue
		}
		ts, _ := types.TimeMillis(h.Row.Fields[t.timeCol[i]])
		if best < 0 || ts < bestTs || ts == bestTs && t.ex.Shuffle != nil && t.ex.Shuffle.IntN(2) == 0 {
			best, bestTs = i, ts
		}
	}
	if best < 0 {
		if idle >= 0 {
			return idle, exec.Event{Kind: exec.EvIdle}, nil
		}
		return 0, exec.Event{Kind: exec.EvEnd}, nil // both ended: next returns the end
	}
	ev := *t.heads[best]
	t.heads[best] = nil
	return best, ev, nil
}

// JoinText is the EXPLAIN line of a join: Join(joinType=[LeftOuterJoin],
// where=[...], select=[...]).
func JoinText(kind string, where string, sch types.Schema) string {
	if where == "" {
		where = "true"
	}
	return "Join(joinType=[" + kind + "], where=[" + where + "], select=[" + strings.Join(sch.Names(), ", ") + "])"
}
