package sqlop

import (
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// ProcDedupNode is ROW_NUMBER() OVER (PARTITION BY ... ORDER BY p) = 1
// with p a processing-time attribute, as Flink's processing-time
// Deduplicate: rows are ordered by their arrival. Keeping the first row
// (p ascending), the first row of each key goes out at once as +I and
// the later ones are dropped; keeping the last (p descending), the first
// is +I and each later one replaces it at once (-U, +U). The row number
// (1) is appended. The kept rows are in the state store.
type ProcDedupNode struct {
	In        exec.Node
	Partition []expr.Expr
	PartText  []string
	Last      bool
	Sch       types.Schema
}

var _ exec.Node = (*ProcDedupNode)(nil)

func (n *ProcDedupNode) Schema() types.Schema { return n.Sch }
func (n *ProcDedupNode) Changelog() types.ChangelogMode {
	if n.Last {
		return types.NewChangelogMode(types.Insert, types.UpdateBefore, types.UpdateAfter)
	}
	return types.InsertOnly
}
func (n *ProcDedupNode) Children() []exec.Node { return []exec.Node{n.In} }
func (n *ProcDedupNode) Explain() string {
	keep := "FirstRow"
	if n.Last {
		keep = "LastRow"
	}
	return "Deduplicate(keep=[" + keep + "], key=[" + strings.Join(n.PartText, ", ") + "], order=[PROCTIME])"
}

func (n *ProcDedupNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("dedup")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &procDedupStream{n: n, in: in}
	if s.kept, err = openTable[[]any](ex, ns, "kept", valuesCodec{}); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

type procDedupStream struct {
	n  *ProcDedupNode
	in exec.Stream
	// kept is each key's kept output row; keeping the first row, an
	// empty row marks a key seen.
	kept *opstate.Table[[]any]
	out  exec.Queue
}

var (
	_ exec.Stream   = (*procDedupStream)(nil)
	_ exec.Stateful = (*procDedupStream)(nil)
)

func (s *procDedupStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *procDedupStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	return tableSet{s.kept}.checkpoint(tx, finished)
}

// Quiescent: every row goes out as it comes.
func (s *procDedupStream) Quiescent() bool { return true }

func (s *procDedupStream) Row(r types.Row) error {
	if r.Kind != types.Insert {
		return fmt.Errorf("a deduplication takes insert-only input, not a %s row", r.Kind)
	}
	k, err := partitionKey(s.n.Partition, r)
	if err != nil {
		return err
	}
	prev, seen, err := s.kept.Get([]byte(k))
	if err != nil {
		return err
	}
	if seen && !s.n.Last {
		return nil
	}
	out := append(append(make([]any, 0, len(r.Fields)+1), r.Fields...), int64(1))
	if seen {
		s.out.PushRow(types.UpdateBefore, prev)
		s.out.PushRow(types.UpdateAfter, out)
	} else {
		s.out.PushRow(types.Insert, out)
	}
	if !s.n.Last {
		out = []any{}
	}
	return s.kept.Put([]byte(k), out)
}

func (s *procDedupStream) Close() error { return s.in.Close() }
