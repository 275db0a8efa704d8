package sqlop

import (
	"encoding/binary"
	"fmt"
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
	// Hash makes it the hash join of batch mode, over insert-only inputs
	// (join_batch.go).
	Hash bool
}

var _ exec.Node = (*JoinNode)(nil)

func (n *JoinNode) Schema() types.Schema { return n.Sch }

// Changelog is the union of the inputs' kinds; an outer join adds INSERT
// and DELETE (its padded rows come and go).
func (n *JoinNode) Changelog() types.ChangelogMode {
	if n.Hash {
		return types.InsertOnly
	}
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
	if n.Hash {
		return n.openHash(ex) // join_batch.go
	}
	ns := ex.OperatorNamespace("join")
	ins, err := exec.OpenAll(ex, []exec.Node{n.Left, n.Right})
	if err != nil {
		return nil, err
	}
	s := &joinStream{n: n, keyedSides: newKeyedSides(ins, ex, n.LeftKeys, n.RightKeys, false)}
	s.width = [2]int{n.Left.Schema().Len(), n.Right.Schema().Len()}
	if err := s.open(ex, ns); err != nil {
		exec.CloseAll(ins)
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

// joinRec is one row kept by a side of a join; assoc counts the rows of
// the other side it is joined with (for an outer side: 0 means its padded
// row is out).
type joinRec struct {
	fields []any
	enc    string // keycodec.Encode(fields), made when first needed
	assoc  int
}

// joinBucket holds a side's rows of one key, in arrival order.
type joinBucket struct{ recs []*joinRec }

// joinBucketCodec encodes a bucket: its number of rows, then each row's
// fields and its count of joined rows.
type joinBucketCodec struct{}

func (joinBucketCodec) Append(b []byte, k *joinBucket) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(k.recs)))
	for _, r := range k.recs {
		var err error
		if b, err = appendValues(b, r.fields); err != nil {
			return nil, err
		}
		b = appendVarint(b, int64(r.assoc))
	}
	return b, nil
}

func (joinBucketCodec) Decode(b []byte) (*joinBucket, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return nil, errAccTruncated
	}
	b = b[w:]
	k := &joinBucket{recs: make([]*joinRec, n)}
	for i := range k.recs {
		r := &joinRec{}
		var err error
		var assoc int64
		if r.fields, b, err = readValues(b); err != nil {
			return nil, err
		}
		if assoc, b, err = readVarint(b); err != nil {
			return nil, err
		}
		r.assoc = int(assoc)
		k.recs[i] = r
	}
	if len(b) != 0 {
		return nil, errAccTruncated
	}
	return k, nil
}

// The state of a regular join: each side's rows by join key (a bucket per
// key, in the state store behind the cache), and what its inputs' turns
// and watermarks were (twoInputs, in meta).
type joinStream struct {
	keyedSides
	n     *JoinNode
	width [2]int
}

var (
	_ exec.Stream   = (*joinStream)(nil)
	_ exec.Stateful = (*joinStream)(nil)
)

func (s *joinStream) Next() (exec.Event, error) { return s.next(s.row) }

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
	b, _, err := s.sides[1-side].Get([]byte(key))
	if err != nil || b == nil {
		return nil, err
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
		if otherOuter && len(ms) > 0 {
			s.sides[1-side].Touch([]byte(key)) // the matches' counts changed
		}
		if !ok || s.otherEnded(side) {
			// A NULL in the key: nothing will match it, and nothing is
			// kept (its padded row, if any, is out for good). Nor once
			// the other input has ended for good: no row will come to
			// join this one.
			return nil
		}
		return s.add(side, key, r.Fields, len(ms))
	}
	if ok {
		if err := s.remove(side, key, r.Fields); err != nil {
			return err
		}
	}
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
	if otherOuter {
		s.sides[1-side].Touch([]byte(key))
	}
	return nil
}

// otherEnded reports whether the input other than side has ended in a
// statement that no later run goes on with (its inputs end, its state
// store is a scratch one, no timeline steps it): then the rows of side
// need not be kept, as none of the other's will come to join them. The
// joined rows are the same; only the state of a bounded join, which
// nothing reads after the statement, is smaller. A retraction of a row
// not kept finds nothing to forget, and its joined rows are retracted
// from the other side's rows all the same.
func (s *joinStream) otherEnded(side int) bool {
	o := s.two.ex.Opts
	return s.two.ended[1-side] && o.EndOfInput && o.Scratch && s.two.ex.Timeline == nil
}

// add keeps a row of side under its key.
func (s *joinStream) add(side int, key string, fields []any, assoc int) error {
	t := s.sides[side]
	b, _, err := t.Get([]byte(key))
	if err != nil {
		return err
	}
	if b == nil {
		b = &joinBucket{}
	}
	b.recs = append(b.recs, &joinRec{fields: fields, assoc: assoc})
	return t.Put([]byte(key), b)
}

// remove forgets the first row of side equal to fields (a retraction of a
// row never seen changes nothing).
func (s *joinStream) remove(side int, key string, fields []any) error {
	t := s.sides[side]
	b, _, err := t.Get([]byte(key))
	if err != nil || b == nil {
		return err
	}
	enc := string(keycodec.Encode(fields))
	for i, r := range b.recs {
		if r.enc == "" {
			r.enc = string(keycodec.Encode(r.fields))
		}
		if r.enc == enc {
			b.recs = append(b.recs[:i], b.recs[i+1:]...)
			if len(b.recs) == 0 {
				return t.Delete([]byte(key))
			}
			return t.Put([]byte(key), b)
		}
	}
	return nil
}

func (s *joinStream) emit(k types.RowKind, fields []any) {
	s.out.PushRow(k, fields)
}

func (s *joinStream) Close() error { return exec.CloseAll(s.two.ins) }

// twoInputs pulls the events of a two-input operator: rows take turns, left
// first; a watermark, a tick or a -U (whose +U follows) keeps its input's
// turn. It hands on rows and the operator's watermark (the inputs'
// combined by an [exec.Valve]: the smaller of the two, unless one is idle),
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
	// restored: the valve's watermark went on again, as Restored, after a
	// restart (next).
	restored bool
}

func newTwoInputs(ins []exec.Stream, ex *exec.Execution) *twoInputs {
	return &twoInputs{ins: ins, ex: ex, valve: exec.NewValve(2)}
}

// quiescent reports whether the inputs hold nothing a checkpoint would
// lose: no status change waits to be handed on (the rows waiting at the
// heads of the inputs go into the checkpoint).
func (t *twoInputs) quiescent() bool { return len(t.pending) == 0 }

// twoInputsKey is the name of the inputs' state in an operator's meta.
const twoInputsKey = "inputs"

// save records in meta whose turn it is, the rows waiting at the heads of
// the inputs and, but in a statement's final checkpoint, the valve's
// watermarks: a killed statement run again takes its rows in the same
// order and hands on the same watermarks as an uninterrupted run.
func (t *twoInputs) save(meta opMeta, final bool) error {
	b := []byte{byte(t.turn & 1)}
	for _, h := range t.heads {
		if h == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1, byte(h.Row.Kind))
		var err error
		if b, err = appendValues(b, h.Row.Fields); err != nil {
			return err
		}
	}
	if !final {
		b = append(b, boolByte(t.idle))
		b = t.valve.AppendState(b)
	}
	return meta.put(twoInputsKey, b)
}

// restore takes the inputs back to what save recorded.
func (t *twoInputs) restore(meta opMeta) error {
	b, err := meta.get(twoInputsKey)
	if err != nil || b == nil {
		return err
	}
	bad := fmt.Errorf("the state %q holds damaged inputs", meta.ns)
	if len(b) < 1 {
		return bad
	}
	t.turn, b = int(b[0]), b[1:]
	for i := range t.heads {
		if len(b) < 1 {
			return bad
		}
		has := b[0] != 0
		b = b[1:]
		if !has {
			continue
		}
		if len(b) < 1 {
			return bad
		}
		kind := types.RowKind(b[0])
		fields, rest, err := readValues(b[1:])
		if err != nil {
			return bad
		}
		t.heads[i] = &exec.Event{Kind: exec.EvRow, Row: types.Row{Kind: kind, Fields: fields}}
		b = rest
	}
	if len(b) == 0 {
		return nil // a final checkpoint's: no watermarks
	}
	t.idle = b[0] != 0
	_, err = t.valve.ReadState(b[1:])
	return err
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
			w, moved = t.valve.SetIdle(i, ev.Idle())
		case exec.EvWatermark:
			w, moved = t.valve.Watermark(i, ev.Wm)
			if ev.Restored() && !moved && !t.restored && t.valve.Current() != exec.MinWatermark {
				// A restarted run: the valve, restored, holds the
				// watermark it had handed on; it goes on again, once,
				// for the operators after this one that keep none.
				t.restored = true
				return i, exec.WatermarkEvent(t.valve.Current(), true), nil
			}
		}
		if idle := t.valve.Idle(); idle != t.idle {
			t.idle = idle
			t.pending = append(t.pending, exec.StatusEvent(idle))
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
