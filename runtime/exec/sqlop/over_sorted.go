package sqlop

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// OverSortedNode is an OVER window ordered by columns that are not a time
// attribute, as Flink 2.3's NonTime...UnboundedPrecedingFunctions: the
// frame is RANGE (or ROWS) BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW of
// an insert-only input, and the result updates. A new row goes after its
// peers (rows of equal keys); then, in sort order from its peers on, each
// row whose values the new row changed is updated (-U old, +U new) and
// the new row goes out (+I), its calls over every row that sorts at or
// before it (RANGE: its peers included; ROWS: those before it). It keeps
// every row, a partition's rows as one value of its table in the state
// store, and recomputes a partition's calls for each row.
type OverSortedNode struct {
	In        exec.Node
	Partition []expr.Expr
	PartText  []string
	Keys      []OrderKey
	Calls     []*OverCall // aggregates, or ROW_NUMBER (alone, with Rows)
	Rows      bool        // ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW: peers one by one
	Sch       types.Schema
}

var _ exec.Node = (*OverSortedNode)(nil)

func (n *OverSortedNode) Schema() types.Schema { return n.Sch }
func (n *OverSortedNode) Changelog() types.ChangelogMode {
	return types.NewChangelogMode(types.Insert, types.UpdateBefore, types.UpdateAfter)
}
func (n *OverSortedNode) Children() []exec.Node { return []exec.Node{n.In} }
func (n *OverSortedNode) Explain() string {
	var b strings.Builder
	b.WriteString("OverAggregate(")
	if len(n.PartText) > 0 {
		b.WriteString("partitionBy=[" + strings.Join(n.PartText, ", ") + "], ")
	}
	unit := "RANGE"
	if n.Rows {
		unit = "ROWS"
	}
	b.WriteString("orderBy=[" + sortKeyTexts(n.Keys) + "], window=[" + unit + " BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW], select=[")
	b.WriteString(strings.Join(n.In.Schema().Names(), ", "))
	for i, c := range n.Calls {
		b.WriteString(fmt.Sprintf(", %s AS w0$o%d", c.Text, i))
	}
	b.WriteString("])")
	return b.String()
}

func (n *OverSortedNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("oversorted")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &overSortedStream{n: n, in: in}
	if s.parts, err = openTable[*sortedOverRows](ex, ns, "partitions", sortedOverRowsCodec{}); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

type sortedOverRow struct {
	key  []any
	args []any
	out  []any // the row last emitted
}

// sortedOverRows are a partition's rows in order.
type sortedOverRows struct{ rows []*sortedOverRow }

// sortedOverRowsCodec encodes a partition's rows: their count, then each
// one's sort key, arguments and the row last emitted.
type sortedOverRowsCodec struct{}

func (sortedOverRowsCodec) Append(b []byte, p *sortedOverRows) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(p.rows)))
	for _, r := range p.rows {
		for _, vs := range [][]any{r.key, r.args, r.out} {
			var err error
			if b, err = appendValues(b, vs); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

func (sortedOverRowsCodec) Decode(b []byte) (*sortedOverRows, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return nil, errAccTruncated
	}
	b = b[w:]
	p := &sortedOverRows{rows: make([]*sortedOverRow, n)}
	for i := range p.rows {
		r := &sortedOverRow{}
		for _, vs := range []*[]any{&r.key, &r.args, &r.out} {
			var err error
			if *vs, b, err = readValues(b); err != nil {
				return nil, err
			}
		}
		if len(r.args) == 0 {
			r.args = nil
		}
		p.rows[i] = r
	}
	if len(b) != 0 {
		return nil, errAccTruncated
	}
	return p, nil
}

type overSortedStream struct {
	n     *OverSortedNode
	in    exec.Stream
	parts *opstate.Table[*sortedOverRows]
	out   exec.Queue
}

var (
	_ exec.Stream   = (*overSortedStream)(nil)
	_ exec.Stateful = (*overSortedStream)(nil)
)

func (s *overSortedStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	return tableSet{s.parts}.checkpoint(tx, finished)
}

func (s *overSortedStream) Quiescent() bool { return s.out.Len() == 0 }

func (s *overSortedStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *overSortedStream) Row(r types.Row) error {
	n := s.n
	if r.Kind != types.Insert {
		return fmt.Errorf("an OVER window takes insert-only input, not a %s row", r.Kind)
	}
	k, err := partitionKey(n.Partition, r)
	if err != nil {
		return err
	}
	key, err := sortKeyValues(n.Keys, r)
	if err != nil {
		return err
	}
	args := make([]any, len(n.Calls))
	for j, c := range n.Calls {
		if c.Arg != nil {
			if args[j], err = c.Arg.Eval(r.Fields); err != nil {
				return err
			}
		}
	}
	part, _, err := s.parts.Get([]byte(k))
	if err != nil {
		return err
	}
	if part == nil {
		part = &sortedOverRows{}
	}
	rows := part.rows
	at := sort.Search(len(rows), func(i int) bool { return compareSortKeys(n.Keys, rows[i].key, key) > 0 })
	fresh := &sortedOverRow{key: key, args: args, out: append([]any(nil), r.Fields...)}
	rows = append(rows, nil)
	copy(rows[at+1:], rows[at:])
	rows[at] = fresh
	part.rows = rows

	accs := make([]Accumulator, len(n.Calls))
	for j, c := range n.Calls {
		switch {
		case c.Agg != nil:
			accs[j] = NewAccumulator(c.Agg)
		case c.Fn == "ROW_NUMBER":
			accs[j] = &countStar{} // in a ROWS frame
		default:
			accs[j] = &valueAcc{last: c.Fn == "LAST_VALUE", keep: true}
		}
	}
	// Flink updates a row whose window the new row entered when the
	// state of an aggregate changed, even if its value did not: COUNT and
	// SUM (planned as COUNT and $SUM0) and AVG count the values that are
	// not NULL; FIRST_VALUE, LAST_VALUE and ROW_NUMBER change with every
	// row; MIN and MAX only with their value.
	touched := false
	for j, c := range n.Calls {
		switch c.Fn {
		case "ROW_NUMBER", "FIRST_VALUE", "LAST_VALUE":
			touched = true
		case "COUNT", "SUM", "AVG":
			touched = touched || c.Arg == nil || args[j] != nil
		}
	}
	width := len(r.Fields)
	for i := 0; i < len(rows); {
		end := i + 1 // the peers of row i, rows[i:end], or row i alone in a ROWS frame
		for !n.Rows && end < len(rows) && compareSortKeys(n.Keys, rows[end].key, rows[i].key) == 0 {
			end++
		}
		for _, row := range rows[i:end] {
			for j, a := range accs {
				a.Add(row.args[j])
			}
		}
		if end <= at {
			i = end
			continue // before the new row: unchanged
		}
		vals := make([]any, len(accs))
		for j, a := range accs {
			vals[j] = a.Value()
		}
		for _, row := range rows[i:end] {
			out := append(append(make([]any, 0, width+len(vals)), row.out[:width]...), vals...)
			switch {
			case row == fresh:
				s.out.PushRow(types.Insert, out)
			case touched || !sameValues(row.out[width:], vals):
				s.out.PushRow(types.UpdateBefore, row.out)
				s.out.PushRow(types.UpdateAfter, out)
			default:
				continue
			}
			row.out = out
		}
		i = end
	}
	return s.parts.Put([]byte(k), part)
}

func (s *overSortedStream) Close() error { return s.in.Close() }
