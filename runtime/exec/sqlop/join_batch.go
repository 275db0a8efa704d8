package sqlop

import (
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// The hash join of batch mode (JoinNode.Hash), Flink's batch HashJoin: it
// reads its build input whole into a hash table by the equi-join key,
// then reads the probe input row by row and gives each probe row's
// matches in the build input's order (a probe row without one, padded
// with NULLs, for the outer side); at the end the build rows no probe row
// matched, padded, when the build side is outer too. The build input is
// the right one, but for a RIGHT JOIN, which builds the left one and
// probes with the right (its rows then come in the right input's order,
// as Flink's do). Watermarks do not pass: its output has no time
// attribute.

func (n *JoinNode) openHash(ex *exec.Execution) (exec.Stream, error) {
	ins, err := exec.OpenAll(ex, []exec.Node{n.Left, n.Right})
	if err != nil {
		return nil, err
	}
	ex.HoldsInMemory("a batch hash join keeps its build side's rows")
	s := &hashJoinStream{n: n, ins: ins, build: 1, table: map[string][]int{}}
	if n.Kind == RightJoin {
		s.build = 0
	}
	s.width = [2]int{n.Left.Schema().Len(), n.Right.Schema().Len()}
	return s, nil
}

type hashJoinStream struct {
	n       *JoinNode
	ins     []exec.Stream
	width   [2]int
	build   int              // the side read into the table: 1 (right), or 0 for a RIGHT JOIN
	rows    []types.Row      // the build rows, in their order
	matched []bool           // build rows a probe row matched
	table   map[string][]int // build rows by key, in their order
	built   bool
	key     []byte
	out     exec.Queue
	ended   bool
}

func (s *hashJoinStream) keys(side int, r types.Row) (bool, error) {
	xs := s.n.LeftKeys
	if side == 1 {
		xs = s.n.RightKeys
	}
	s.key = s.key[:0]
	for _, x := range xs {
		v, err := x.Eval(r.Fields)
		if err != nil {
			return false, err
		}
		if v == nil {
			return false, nil // a NULL key matches nothing
		}
		s.key = keycodec.AppendValue(s.key, v)
	}
	return true, nil
}

// joined is the output row of a left and a right row (nil: NULLs).
func (s *hashJoinStream) joined(l, r []any) []any {
	out := make([]any, s.width[0]+s.width[1])
	copy(out, l)
	copy(out[s.width[0]:], r)
	return out
}

func (s *hashJoinStream) readBuild() error {
	in := s.ins[s.build]
	for {
		ev, err := in.Next()
		if err != nil {
			return err
		}
		switch ev.Kind {
		case exec.EvEnd:
			s.built = true
			return nil
		case exec.EvRow:
			ok, err := s.keys(s.build, ev.Row)
			if err != nil {
				return err
			}
			if ok {
				k := string(s.key)
				s.table[k] = append(s.table[k], len(s.rows))
			}
			s.rows = append(s.rows, ev.Row.Copy())
			s.matched = append(s.matched, false)
		}
	}
}

func (s *hashJoinStream) Next() (exec.Event, error) {
	if !s.built {
		if err := s.readBuild(); err != nil {
			return exec.Event{}, err
		}
	}
	probe := 1 - s.build
	for {
		if ev, ok := s.out.Pop(); ok {
			return ev, nil
		}
		if s.ended {
			return exec.Event{Kind: exec.EvEnd}, nil
		}
		ev, err := s.ins[probe].Next()
		if err != nil {
			return exec.Event{}, err
		}
		switch ev.Kind {
		case exec.EvRow:
			if err := s.probe(probe, ev.Row); err != nil {
				return exec.Event{}, err
			}
		case exec.EvEnd:
			s.ended = true
			if s.n.Kind.outer(s.build) {
				for i, r := range s.rows {
					if !s.matched[i] {
						s.out.PushRow(types.Insert, s.pad(s.build, r.Fields))
					}
				}
			}
			s.rows, s.table = nil, nil
		case exec.EvWatermark:
		default:
			return ev, nil // a tick or a status
		}
	}
}

// pad is the output row of a row of side alone.
func (s *hashJoinStream) pad(side int, fields []any) []any {
	if side == 0 {
		return s.joined(fields, nil)
	}
	return s.joined(nil, fields)
}

func (s *hashJoinStream) probe(side int, r types.Row) error {
	ok, err := s.keys(side, r)
	if err != nil {
		return err
	}
	found := false
	if ok {
		for _, i := range s.table[string(s.key)] {
			b := s.rows[i].Fields
			var out []any
			if side == 0 {
				out = s.joined(r.Fields, b)
			} else {
				out = s.joined(b, r.Fields)
			}
			if s.n.Cond != nil {
				v, err := s.n.Cond.Eval(out)
				if err != nil {
					return err
				}
				if v != true {
					continue
				}
			}
			found = true
			s.matched[i] = true
			s.out.PushRow(types.Insert, out)
		}
	}
	if !found && s.n.Kind.outer(side) {
		s.out.PushRow(types.Insert, s.pad(side, r.Fields))
	}
	return nil
}

func (s *hashJoinStream) Close() error { return exec.CloseAll(s.ins) }
