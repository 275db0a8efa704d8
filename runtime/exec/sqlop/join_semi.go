package sqlop

import (
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// SemiJoinNode is a semi join (Anti false) or an anti join (Anti true), as
// Flink's StreamingSemiAntiJoinOperator runs one: the rows of Left that
// have a row of Right with the same key (LeftKeys = RightKeys) for which
// Cond holds (semi), or that have none (anti). It is what IN and EXISTS
// subqueries, INTERSECT and EXCEPT become. Its rows are Left's, with
// Left's schema.
//
// A row of Left goes out, with its own kind, when it arrives with a match
// (semi) or without one (anti). A row of Right that gives a left row its
// first match sends that row again: with the right row's kind (+I or +U)
// in a semi join, as -D in an anti join; a retraction that takes its last
// match away sends it with the retraction's kind (-U or -D) in a semi
// join, as +I in an anti join. Inputs take turns row by row, left first.
type SemiJoinNode struct {
	Left, Right exec.Node
	Anti        bool
	// LeftKeys and RightKeys compute the equi-join key of each side's
	// rows, of the same types; a NULL in a key matches nothing, unless
	// NullSafe, where keys compare as IS NOT DISTINCT FROM does (NULL
	// matches NULL: INTERSECT and EXCEPT).
	LeftKeys, RightKeys []expr.Expr
	NullSafe            bool
	// Cond is the rest of the condition, over the left row followed by
	// the right row (nil: TRUE).
	Cond expr.Expr
	Text string
}

var _ exec.Node = (*SemiJoinNode)(nil)

func (n *SemiJoinNode) Schema() types.Schema { return n.Left.Schema() }

// Changelog is Flink's: a semi join forwards the kinds of both inputs, an
// anti join may produce every kind.
func (n *SemiJoinNode) Changelog() types.ChangelogMode {
	if n.Anti {
		return types.RetractAll
	}
	m := n.Left.Changelog().Union(n.Right.Changelog())
	m.KeyOnlyDeletes = false
	return m
}

func (n *SemiJoinNode) Children() []exec.Node { return []exec.Node{n.Left, n.Right} }

func (n *SemiJoinNode) Explain() string { return n.Text }

func (n *SemiJoinNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("semi-join")
	ins, err := exec.OpenAll(ex, []exec.Node{n.Left, n.Right})
	if err != nil {
		return nil, err
	}
	s := &semiJoinStream{n: n, keyedSides: newKeyedSides(ins, ex, n.LeftKeys, n.RightKeys, n.NullSafe), width: n.Left.Schema().Len()}
	if err := s.open(ex, ns); err != nil {
		exec.CloseAll(ins)
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

// The state of a semi or anti join: each side's rows by join key, in the
// state store behind the cache (a left row counts its matches in assoc),
// and what its inputs' turns and watermarks were (twoInputs, in meta).
type semiJoinStream struct {
	keyedSides
	n     *SemiJoinNode
	width int // of a left row
}

var (
	_ exec.Stream   = (*semiJoinStream)(nil)
	_ exec.Stateful = (*semiJoinStream)(nil)
)

func (s *semiJoinStream) Next() (exec.Event, error) { return s.next(s.row) }

// matches returns the rows of the other side that a row of side joins.
func (s *semiJoinStream) matches(side int, key string, fields []any) ([]*joinRec, error) {
	b, _, err := s.sides[1-side].Get([]byte(key))
	if err != nil || b == nil {
		return nil, err
	}
	var out []*joinRec
	for _, r := range b.recs {
		if s.n.Cond != nil {
			left, right := fields, r.fields
			if side == 1 {
				left, right = r.fields, fields
			}
			v, err := s.n.Cond.Eval(append(append(make([]any, 0, len(left)+len(right)), left...), right...))
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

// row processes a row of side as Flink's StreamingSemiAntiJoinOperator does.
func (s *semiJoinStream) row(side int, r types.Row) error {
	key, ok, err := s.key(side, r)
	if err != nil {
		return err
	}
	var ms []*joinRec
	if ok {
		if ms, err = s.matches(side, key, r.Fields); err != nil {
			return err
		}
	}
	adds := r.Kind == types.Insert || r.Kind == types.UpdateAfter
	if side == 0 {
		if (len(ms) > 0) != s.n.Anti {
			s.emit(r.Kind, r.Fields)
		}
		// A left row whose key has a NULL matches nothing, ever: it is
		// not kept.
		if ok && adds {
			return s.add(0, key, r.Fields, len(ms))
		} else if ok {
			return s.remove(0, key, r.Fields)
		}
		return nil
	}
	if !ok {
		return nil
	}
	if adds {
		if err := s.add(1, key, r.Fields, 0); err != nil {
			return err
		}
		for _, m := range ms {
			if m.assoc == 0 {
				if s.n.Anti {
					s.emit(types.Delete, m.fields)
				} else {
					s.emit(r.Kind, m.fields)
				}
			}
			m.assoc++
		}
	} else {
		if err := s.remove(1, key, r.Fields); err != nil {
			return err
		}
		for _, m := range ms {
			if m.assoc == 1 {
				if s.n.Anti {
					s.emit(types.Insert, m.fields)
				} else {
					s.emit(r.Kind, m.fields)
				}
			}
			m.assoc--
		}
	}
	if len(ms) > 0 {
		s.sides[0].Touch([]byte(key)) // the left rows' counts changed
	}
	return nil
}

// add keeps a row of side under its key.
func (s *semiJoinStream) add(side int, key string, fields []any, assoc int) error {
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
func (s *semiJoinStream) remove(side int, key string, fields []any) error {
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

func (s *semiJoinStream) emit(k types.RowKind, fields []any) { s.out.PushRow(k, fields) }

func (s *semiJoinStream) Close() error { return exec.CloseAll(s.two.ins) }
