package sqlop

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) filtered by its rank
// (rn <= N, rn = 1) in the SELECT around it: Flink's Rank and Deduplicate.
// Both keep their rows per partition in the state store behind the cache
// (a partition's rows are one value of its table).

// RankNode is a Top-N per partition over an insert-only input, as Flink's
// AppendOnlyTopNFunction: each partition keeps its first End rows by
// Keys (ties in arrival order). With Number, the row number is appended
// and every row whose rank changes is updated (-U with its old row, +U
// with the row now at that rank); without it (the query does not read the
// number) a row that enters is +I after the -D of the row it pushes out,
// or, in a Top-1, -U of the row it replaces and +U.
// Only ranks from Start to End go out.
type RankNode struct {
	In        exec.Node
	Partition []expr.Expr
	PartText  []string
	Keys      []OrderKey
	Start     int64
	End       int64
	Number    bool
	Sch       types.Schema // the input's columns, then the row number
}

var _ exec.Node = (*RankNode)(nil)

func (n *RankNode) Schema() types.Schema { return n.Sch }
func (n *RankNode) Changelog() types.ChangelogMode {
	if n.Number || n.End == 1 {
		return types.NewChangelogMode(types.Insert, types.UpdateBefore, types.UpdateAfter)
	}
	return types.NewChangelogMode(types.Insert, types.Delete)
}
func (n *RankNode) Children() []exec.Node { return []exec.Node{n.In} }
func (n *RankNode) Explain() string {
	s := "Rank(strategy=[AppendFastStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=" + strconv.FormatInt(n.Start, 10) +
		", rankEnd=" + strconv.FormatInt(n.End, 10) + "], partitionBy=[" + strings.Join(n.PartText, ", ") + "], orderBy=[" + sortKeyTexts(n.Keys) + "], select=["
	for i, c := range n.In.Schema().Columns {
		if i > 0 {
			s += ", "
		}
		s += c.Name
	}
	if n.Number {
		s += ", w0$o0"
	}
	return s + "])"
}

func (n *RankNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("rank")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &rankStream{n: n, in: in}
	if s.parts, err = openTable[*sortedRows](ex, ns, "partitions", sortedRowsCodec{}); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

type rankStream struct {
	n     *RankNode
	in    exec.Stream
	parts *opstate.Table[*sortedRows] // each partition's first End rows, in order
	out   exec.Queue
	kbuf  []byte // the partition key of the row being processed
}

var (
	_ exec.Stream   = (*rankStream)(nil)
	_ exec.Stateful = (*rankStream)(nil)
)

func (s *rankStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	return tableSet{s.parts}.checkpoint(tx, finished)
}

func (s *rankStream) Quiescent() bool { return s.out.Len() == 0 }

// sortedRows are rows in sort order with their sort keys: a partition of
// a Top-N. Their kinds are all Insert.
type sortedRows struct{ rows []sortedRow }

// sortedRowsCodec encodes rows in order: their count, then each row's
// sort key and fields.
type sortedRowsCodec struct{}

func (sortedRowsCodec) Append(b []byte, rs *sortedRows) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(rs.rows)))
	for _, r := range rs.rows {
		var err error
		if b, err = appendValues(b, r.key); err != nil {
			return nil, err
		}
		if b, err = appendValues(b, r.row.Fields); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (sortedRowsCodec) Decode(b []byte) (*sortedRows, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return nil, errAccTruncated
	}
	b = b[w:]
	rs := &sortedRows{rows: make([]sortedRow, n)}
	for i := range rs.rows {
		var err error
		if rs.rows[i].key, b, err = readValues(b); err != nil {
			return nil, err
		}
		if rs.rows[i].row.Fields, b, err = readValues(b); err != nil {
			return nil, err
		}
	}
	if len(b) != 0 {
		return nil, errAccTruncated
	}
	return rs, nil
}

func (s *rankStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func partitionKey(part []expr.Expr, r types.Row) (string, error) {
	b, err := appendPartitionKey(nil, part, r)
	return string(b), err
}

// appendPartitionKey appends the partition key of r to b:
// keycodec.Encode of the values of part, without a list of them.
func appendPartitionKey(b []byte, part []expr.Expr, r types.Row) ([]byte, error) {
	if len(part) == 0 {
		return append(b, keycodec.Empty[0]), nil
	}
	for _, x := range part {
		v, err := x.Eval(r.Fields)
		if err != nil {
			return b, err
		}
		b = keycodec.AppendValue(b, v)
	}
	return b, nil
}

func (s *rankStream) Row(r types.Row) error {
	n := s.n
	if r.Kind != types.Insert {
		return fmt.Errorf("ROW_NUMBER's Top-N takes insert-only input, not a %s row", r.Kind)
	}
	k, err := appendPartitionKey(s.kbuf[:0], n.Partition, r)
	s.kbuf = k
	if err != nil {
		return err
	}
	key, err := sortKeyValues(n.Keys, r)
	if err != nil {
		return err
	}
	part, _, err := s.parts.Get(k)
	if err != nil {
		return err
	}
	var buf []sortedRow
	if part != nil {
		buf = part.rows
	}
	if int64(len(buf)) >= n.End && compareSortKeys(n.Keys, key, buf[len(buf)-1].key) >= 0 {
		return nil // it sorts after a full top End
	}
	at := sort.Search(len(buf), func(i int) bool { return compareSortKeys(n.Keys, buf[i].key, key) > 0 })
	row := r.Copy()
	buf = append(buf, sortedRow{})
	copy(buf[at+1:], buf[at:])
	buf[at] = sortedRow{key: key, row: row}
	if n.Number {
		// The rows after the new one each move one rank down.
		rank, cur := int64(at+1), row
		for i := at + 1; i < len(buf) && rank <= n.End; i++ {
			prev := buf[i].row
			s.emit(types.UpdateBefore, prev, rank)
			s.emit(types.UpdateAfter, cur, rank)
			cur = prev
			rank++
		}
		if rank <= n.End {
			s.emit(types.Insert, cur, rank)
		}
	} else {
		switch {
		case n.End == 1 && len(buf) > 1:
			// A Top-1 replaces its row as an update, as Flink's does.
			s.emit(types.UpdateBefore, buf[1].row, 0)
			s.emit(types.UpdateAfter, row, 0)
		case int64(len(buf)) > n.End:
			s.emit(types.Delete, buf[len(buf)-1].row, 0)
			s.emit(types.Insert, row, 0)
		default:
			s.emit(types.Insert, row, 0)
		}
	}
	if int64(len(buf)) > n.End {
		clear(buf[n.End:])
		buf = buf[:n.End]
	}
	if part == nil {
		part = &sortedRows{}
	}
	part.rows = buf
	return s.parts.Put(k, part)
}

// emit sends a row with its rank, when the rank is in range (rank 0: a
// row without its number).
func (s *rankStream) emit(kind types.RowKind, r types.Row, rank int64) {
	if rank != 0 && rank < s.n.Start {
		return
	}
	num := rank
	if rank == 0 {
		num = s.n.Start // not read: the query does not select the number
	}
	fields := append(append(make([]any, 0, len(r.Fields)+1), r.Fields...), num)
	s.out.PushRow(kind, fields)
}

func (s *rankStream) Close() error { return s.in.Close() }

// DedupLastNode is ROW_NUMBER() OVER (PARTITION BY ... ORDER BY t DESC)
// = 1 with t a time attribute, as Flink's row-time Deduplicate keeping
// the last row: the first row of a partition is +I; a later one whose
// time is not before the kept row's replaces it (-U, +U) at once, without
// waiting for the watermark. The row number (1) is appended.
type DedupLastNode struct {
	In        exec.Node
	Partition []expr.Expr
	PartText  []string
	Time      int
	Sch       types.Schema
}

var _ exec.Node = (*DedupLastNode)(nil)

func (n *DedupLastNode) Schema() types.Schema { return n.Sch }
func (n *DedupLastNode) Changelog() types.ChangelogMode {
	return types.NewChangelogMode(types.Insert, types.UpdateBefore, types.UpdateAfter)
}
func (n *DedupLastNode) Children() []exec.Node { return []exec.Node{n.In} }
func (n *DedupLastNode) Explain() string {
	return "Deduplicate(keep=[LastRow], key=[" + strings.Join(n.PartText, ", ") + "], order=[ROWTIME])"
}

func (n *DedupLastNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ns := ex.OperatorNamespace("dedup")
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &dedupLastStream{n: n, in: in}
	if s.last, err = openTable[dedupRow](ex, ns, "last", dedupRowCodec{}); err != nil {
		in.Close()
		return nil, err
	}
	ex.Stateful = append(ex.Stateful, s)
	return s, nil
}

// dedupRow is the row a deduplication keeps for a partition: its time and
// the row as it went out.
type dedupRow struct {
	ts  int64
	out []any
}

type dedupRowCodec struct{}

func (dedupRowCodec) Append(b []byte, r dedupRow) ([]byte, error) {
	return appendValues(appendVarint(b, r.ts), r.out)
}

func (dedupRowCodec) Decode(b []byte) (dedupRow, error) {
	var r dedupRow
	var err error
	if r.ts, b, err = readVarint(b); err != nil {
		return r, err
	}
	if r.out, b, err = readValues(b); err != nil {
		return r, err
	}
	if len(b) != 0 {
		return r, errAccTruncated
	}
	return r, nil
}

type dedupLastStream struct {
	n    *DedupLastNode
	in   exec.Stream
	last *opstate.Table[dedupRow]
	out  exec.Queue
}

var (
	_ exec.Stream   = (*dedupLastStream)(nil)
	_ exec.Stateful = (*dedupLastStream)(nil)
)

func (s *dedupLastStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	return tableSet{s.last}.checkpoint(tx, finished)
}

func (s *dedupLastStream) Quiescent() bool { return s.out.Len() == 0 }

func (s *dedupLastStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *dedupLastStream) Row(r types.Row) error {
	if r.Kind != types.Insert {
		return fmt.Errorf("a deduplication takes insert-only input, not a %s row", r.Kind)
	}
	ts, ok := types.TimeMillis(r.Fields[s.n.Time])
	if !ok {
		return nil
	}
	k, err := partitionKey(s.n.Partition, r)
	if err != nil {
		return err
	}
	out := append(append(make([]any, 0, len(r.Fields)+1), r.Fields...), int64(1))
	prev, seen, err := s.last.Get([]byte(k))
	if err != nil {
		return err
	}
	switch {
	case !seen:
		s.out.PushRow(types.Insert, out)
	case ts >= prev.ts:
		s.out.PushRow(types.UpdateBefore, prev.out)
		s.out.PushRow(types.UpdateAfter, out)
	default:
		return nil // older than the row kept
	}
	return s.last.Put([]byte(k), dedupRow{ts: ts, out: out})
}

func (s *dedupLastStream) Close() error { return s.in.Close() }
