package sqlop

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// RetractRankNode is ROW_NUMBER's Top-N over an updating input (a GROUP
// BY's result), as Flink's RetractableTopNFunction (RetractStrategy):
// each partition keeps every live row in order (ties in arrival order); a
// -U or -D takes its row out, a +I or +U puts one in, and after each the
// ranks Start to End are compared with what they were. With Number a rank
// whose row changed is -U (old row) and +U (new row), a rank that appears
// is +I and one that empties -D; without it a row that leaves the top is
// -D and one that enters +I. With Fast (Flink's UpdateFastStrategy, for
// a sort key that only moves one way as the input updates, such as
// COUNT(*) DESC) a -U is skipped and its +U replaces the row of its
// upsert key in place, so that a row that stays in the top is updated.
type RetractRankNode struct {
	In        exec.Node
	Partition []expr.Expr
	PartText  []string
	Keys      []OrderKey
	Start     int64
	End       int64
	Number    bool
	Key       []int // the input's upsert key (nil: none)
	Fast      bool
	Sch       types.Schema
}

var _ exec.Node = (*RetractRankNode)(nil)

func (n *RetractRankNode) Schema() types.Schema { return n.Sch }
func (n *RetractRankNode) Changelog() types.ChangelogMode {
	return types.RetractAll
}
func (n *RetractRankNode) Children() []exec.Node { return []exec.Node{n.In} }
func (n *RetractRankNode) Explain() string {
	strategy := "RetractStrategy"
	if n.Fast {
		strategy = "UpdateFastStrategy"
	}
	s := "Rank(strategy=[" + strategy + "], rankType=[ROW_NUMBER], rankRange=[rankStart=" + strconv.FormatInt(n.Start, 10) +
		", rankEnd=" + strconv.FormatInt(n.End, 10) + "], partitionBy=[" + strings.Join(n.PartText, ", ") + "], orderBy=[" + sortKeyTexts(n.Keys) + "], select=[" +
		strings.Join(n.In.Schema().Names(), ", ")
	if n.Number {
		s += ", w0$o0"
	}
	return s + "])"
}

func (n *RetractRankNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("retractrank")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &retractRankStream{n: n, in: in}
	if s.parts, err = openTable[*liveRows](ex, ns, "partitions", liveRowsCodec{}); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

type retractRankStream struct {
	n     *RetractRankNode
	in    exec.Stream
	parts *opstate.Table[*liveRows] // every live row of a partition, in order
	out   exec.Queue
}

var (
	_ exec.Stream   = (*retractRankStream)(nil)
	_ exec.Stateful = (*retractRankStream)(nil)
)

func (s *retractRankStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	return tableSet{s.parts}.checkpoint(tx, finished)
}

func (s *retractRankStream) Quiescent() bool { return s.out.Len() == 0 }

func (s *retractRankStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

// top is the rows of ranks Start to End.
func (s *retractRankStream) top(rows []*liveSorted) []*liveSorted {
	lo, hi := min(int(s.n.Start-1), len(rows)), min(int(s.n.End), len(rows))
	return append([]*liveSorted(nil), rows[lo:hi]...)
}

func (s *retractRankStream) Row(r types.Row) error {
	n := s.n
	if n.Fast && r.Kind == types.UpdateBefore {
		return nil // its +U replaces the row in place
	}
	k, err := partitionKey(n.Partition, r)
	if err != nil {
		return err
	}
	part, _, err := s.parts.Get([]byte(k))
	if err != nil {
		return err
	}
	var rows []*liveSorted
	if part != nil {
		rows = part.rows
	}
	before := s.top(rows)
	var replaced, added *liveSorted
	same := func(a, b types.Row, byKey bool) bool {
		if byKey && n.Key != nil {
			for _, i := range n.Key {
				if !sameValue(a.Fields[i], b.Fields[i]) {
					return false
				}
			}
			return true
		}
		for i := range a.Fields {
			if !sameValue(a.Fields[i], b.Fields[i]) {
				return false
			}
		}
		return true
	}
	remove := func(byKey bool) *liveSorted {
		for i, l := range rows {
			if same(l.row, r, byKey) {
				rows = append(rows[:i:i], rows[i+1:]...)
				return l
			}
		}
		return nil
	}
	switch r.Kind {
	case types.UpdateBefore, types.Delete:
		remove(false)
	default:
		if n.Fast && r.Kind == types.UpdateAfter {
			replaced = remove(true)
		}
		key, err := sortKeyValues(n.Keys, r)
		if err != nil {
			return err
		}
		row := r.Copy()
		row.Kind = types.Insert
		added = &liveSorted{key: key, row: row}
		at := sort.Search(len(rows), func(i int) bool { return compareSortKeys(n.Keys, rows[i].key, key) > 0 })
		rows = append(rows, nil)
		copy(rows[at+1:], rows[at:])
		rows[at] = added
	}
	if len(rows) == 0 {
		err = s.parts.Delete([]byte(k))
	} else {
		err = s.parts.Put([]byte(k), &liveRows{rows: rows})
	}
	if err != nil {
		return err
	}
	after := s.top(rows)
	if n.Number {
		for i := 0; i < max(len(before), len(after)); i++ {
			rank := n.Start + int64(i)
			switch {
			case i >= len(after):
				s.emit(types.Delete, before[i].row, rank)
			case i >= len(before):
				s.emit(types.Insert, after[i].row, rank)
			case before[i] != after[i]:
				s.emit(types.UpdateBefore, before[i].row, rank)
				s.emit(types.UpdateAfter, after[i].row, rank)
			}
		}
		return nil
	}
	in := func(l *liveSorted, set []*liveSorted) bool {
		for _, x := range set {
			if x == l {
				return true
			}
		}
		return false
	}
	if replaced != nil && in(replaced, before) && in(added, after) {
		s.emit(types.UpdateBefore, replaced.row, 0)
		s.emit(types.UpdateAfter, added.row, 0)
		before = removeLive(before, replaced)
		after = removeLive(after, added)
	}
	for _, l := range before {
		if !in(l, after) {
			s.emit(types.Delete, l.row, 0)
		}
	}
	for _, l := range after {
		if !in(l, before) {
			s.emit(types.Insert, l.row, 0)
		}
	}
	return nil
}

func removeLive(set []*liveSorted, l *liveSorted) []*liveSorted {
	for i, x := range set {
		if x == l {
			return append(set[:i:i], set[i+1:]...)
		}
	}
	return set
}

// emit sends a row with its rank number (rank 0: the query does not read
// it, and Start stands in).
func (s *retractRankStream) emit(kind types.RowKind, r types.Row, rank int64) {
	num := rank
	if rank == 0 {
		num = s.n.Start
	}
	fields := append(append(make([]any, 0, len(r.Fields)+1), r.Fields...), num)
	s.out.PushRow(kind, fields)
}

func (s *retractRankStream) Close() error { return s.in.Close() }
