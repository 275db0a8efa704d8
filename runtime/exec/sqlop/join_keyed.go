package sqlop

import (
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// keyedSides is what the regular join and the semi and anti joins keep
// alike: their two inputs taken in turn, each side's rows by join key (in
// the state store behind the cache), what the inputs' turns and
// watermarks were (twoInputs, in meta), and the output waiting.
type keyedSides struct {
	two   *twoInputs
	sides [2]*opstate.Table[*joinBucket]
	meta  opMeta
	out   exec.Queue
	// keys are the join keys of the left and the right row; with nullSafe
	// a NULL part matches a NULL (IS NOT DISTINCT FROM).
	keys     [2][]expr.Expr
	nullSafe bool
}

func newKeyedSides(ins []exec.Stream, ex *exec.Execution, left, right []expr.Expr, nullSafe bool) keyedSides {
	return keyedSides{two: newTwoInputs(ins, ex), keys: [2][]expr.Expr{left, right}, nullSafe: nullSafe}
}

// open opens the tables of both sides and restores the inputs' state.
func (s *keyedSides) open(ex *exec.Execution, ns string) error {
	var err error
	for i, name := range []string{"left", "right"} {
		if s.sides[i], err = openTable[*joinBucket](ex, ns, name, joinBucketCodec{}); err != nil {
			return err
		}
	}
	if s.meta, err = openMeta(ex, ns); err != nil {
		return err
	}
	return s.two.restore(s.meta)
}

func (s *keyedSides) Checkpoint(tx state.Tx, finished, final bool) error {
	if err := s.two.save(s.meta, final); err != nil {
		return err
	}
	return tableSet{s.sides[0], s.sides[1], s.meta}.checkpoint(tx, finished)
}

// Quiescent: no output waits, and the inputs hold nothing between turns.
func (s *keyedSides) Quiescent() bool { return s.out.Len() == 0 && s.two.quiescent() }

// next returns the next event out: what waits, else the inputs' next
// event that is not a row, handing the rows before it to row.
func (s *keyedSides) next(row func(side int, r types.Row) error) (exec.Event, error) {
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
		if err := row(side, ev.Row); err != nil {
			return exec.Event{}, err
		}
	}
}

// key computes the join key of a row of side; ok is false when a part of
// it is NULL and NULLs do not match.
func (s *keyedSides) key(side int, r types.Row) (string, bool, error) {
	keys := s.keys[side]
	vals := make([]any, len(keys))
	for i, k := range keys {
		v, err := k.Eval(r.Fields)
		if err != nil {
			return "", false, err
		}
		if v == nil && !s.nullSafe {
			return "", false, nil
		}
		vals[i] = v
	}
	return string(keycodec.Encode(vals)), true, nil
}
