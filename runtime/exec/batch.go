package exec

import (
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// BatchScanNode reads a bounded table in batch mode: its rows and its end
// pass, its watermarks do not, but the last one (MaxWatermark, the end of
// the input). As in Flink's batch mode, no row is late: every operator
// above sees all rows before the end, and fires its windows and timers
// then.
type BatchScanNode struct {
	In Node
}

var (
	_ Node        = (*BatchScanNode)(nil)
	_ UpsertKeyed = (*BatchScanNode)(nil)
)

func (n *BatchScanNode) Schema() types.Schema           { return n.In.Schema() }
func (n *BatchScanNode) Changelog() types.ChangelogMode { return n.In.Changelog() }
func (n *BatchScanNode) Children() []Node               { return []Node{n.In} }
func (n *BatchScanNode) Explain() string                { return "BatchScan(watermarks=[end of input])" }

// UpsertKey is the input's.
func (n *BatchScanNode) UpsertKey() []int { return UpsertKeyOf(n.In) }

func (n *BatchScanNode) Open(ex *Execution) (Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &batchScanStream{in: in}, nil
}

type batchScanStream struct{ in Stream }

func (s *batchScanStream) Next() (Event, error) {
	for {
		ev, err := s.in.Next()
		if err != nil || ev.Kind != EvWatermark || ev.Wm == MaxWatermark {
			return ev, err
		}
	}
}

func (s *batchScanStream) Close() error { return s.in.Close() }

// FinalNode turns a changelog into its final rows, as a batch job gives
// them: it keeps the rows its input inserts (+I, +U), takes out those it
// retracts (-U, -D: the same row, all fields; the last one kept of equal
// rows), and at the end of the input hands on what is left as inserts, in
// the order they came. Watermarks do not pass.
type FinalNode struct {
	In Node
}

var _ Node = (*FinalNode)(nil)

func (n *FinalNode) Schema() types.Schema           { return n.In.Schema() }
func (n *FinalNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *FinalNode) Children() []Node               { return []Node{n.In} }
func (n *FinalNode) Explain() string                { return "FinalRows()" }

func (n *FinalNode) Open(ex *Execution) (Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	ex.HoldsInMemory("batch mode keeps the final rows")
	return &finalStream{in: in, at: map[string][]int{}}, nil
}

type finalStream struct {
	in    Stream
	rows  []types.Row
	alive []bool
	at    map[string][]int // a row's encoding: where it is in rows, oldest first
	key   []byte
	out   int // the next row to hand on after the end
	ended bool
}

func (s *finalStream) Next() (Event, error) {
	for !s.ended {
		ev, err := s.in.Next()
		if err != nil {
			return ev, err
		}
		switch ev.Kind {
		case EvRow:
			s.row(ev.Row)
		case EvEnd:
			s.ended = true
		case EvWatermark:
		default:
			return ev, nil
		}
	}
	for s.out < len(s.rows) {
		i := s.out
		s.out++
		if s.alive[i] {
			r := s.rows[i]
			s.rows[i] = types.Row{}
			r.Kind = types.Insert
			return Event{Kind: EvRow, Row: r}, nil
		}
	}
	return Event{Kind: EvEnd}, nil
}

func (s *finalStream) row(r types.Row) {
	s.key = s.key[:0]
	for _, v := range r.Fields {
		s.key = keycodec.AppendValue(s.key, v)
	}
	switch r.Kind {
	case types.Insert, types.UpdateAfter:
		k := string(s.key)
		s.at[k] = append(s.at[k], len(s.rows))
		s.rows = append(s.rows, r.Copy())
		s.alive = append(s.alive, true)
	default:
		at := s.at[string(s.key)]
		if len(at) == 0 {
			return // a retraction of no row kept
		}
		s.alive[at[len(at)-1]] = false
		if len(at) == 1 {
			delete(s.at, string(s.key))
		} else {
			s.at[string(s.key)] = at[:len(at)-1]
		}
	}
}

func (s *finalStream) Close() error { return s.in.Close() }
