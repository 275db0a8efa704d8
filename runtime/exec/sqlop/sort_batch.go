package sqlop

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// The sorts of batch mode: they keep their insert-only input's rows in
// memory until the end of the input (or the watermark of the end, which
// they go before), then hand them on sorted. Ties keep the input's order
// (a stable sort).

// SortNode is ORDER BY in batch mode, Flink's batch Sort, or SortLimit
// with Limit: the rows sorted by Keys on any columns; with Limit, only
// the first N after Offset (it keeps no more than those while it reads).
type SortNode struct {
	In     exec.Node
	Keys   []OrderKey
	Limit  bool
	N      int64
	Offset int64
}

var _ exec.Node = (*SortNode)(nil)

func (n *SortNode) Schema() types.Schema           { return n.In.Schema() }
func (n *SortNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *SortNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *SortNode) Explain() string {
	if !n.Limit {
		return "Sort(orderBy=[" + sortKeyTexts(n.Keys) + "])"
	}
	return "SortLimit(orderBy=[" + sortKeyTexts(n.Keys) + "], offset=[" + strconv.FormatInt(n.Offset, 10) + "], fetch=[" + strconv.FormatInt(n.N, 10) + "], global=[true])"
}

func (n *SortNode) Open(ex *exec.Execution) (exec.Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	ex.HoldsInMemory("a batch sort keeps its rows")
	return &batchSortStream{n: n, in: in}, nil
}

type batchSortStream struct {
	n    *SortNode
	in   exec.Stream
	rows []sortedRow
	out  exec.Queue
	done bool
}

func (s *batchSortStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *batchSortStream) Row(r types.Row) error {
	key, err := sortKeyValues(s.n.Keys, r)
	if err != nil {
		return err
	}
	s.rows = append(s.rows, sortedRow{key: key, row: r.Copy()})
	if keep := s.n.Offset + s.n.N; s.n.Limit && int64(len(s.rows)) >= 2*keep+1024 {
		// A top-k: the rows past the first keep can no longer be among
		// them (a later tie sorts after them).
		s.sort()
		clear(s.rows[keep:])
		s.rows = s.rows[:keep]
	}
	return nil
}

func (s *batchSortStream) sort() {
	slices.SortStableFunc(s.rows, func(a, b sortedRow) int { return compareSortKeys(s.n.Keys, a.key, b.key) })
}

func (s *batchSortStream) Time(ev *exec.Event) error {
	if s.done || ev.Kind == exec.EvWatermark && ev.Wm != exec.MaxWatermark {
		return nil
	}
	s.done = true
	s.sort()
	rows := s.rows
	if s.n.Limit {
		rows = rows[min(int64(len(rows)), s.n.Offset):min(int64(len(rows)), s.n.Offset+s.n.N)]
	}
	for _, r := range rows {
		s.out.PushRow(types.Insert, r.row.Fields)
	}
	s.rows = nil
	return nil
}

func (s *batchSortStream) Close() error { return s.in.Close() }

// BatchRankNode is a ROW_NUMBER Top-N or deduplication in batch mode,
// Flink's batch Rank over its input sorted by the partition and then by
// Keys: the rows whose number within their partition is from Start to
// End, with the number appended, by partition (ascending, as keycodec
// sorts the values), then number.
type BatchRankNode struct {
	In        exec.Node
	Partition []expr.Expr
	PartText  []string
	Keys      []OrderKey
	Start     int64
	End       int64
	Sch       types.Schema // the input's columns, then the row number
}

var _ exec.Node = (*BatchRankNode)(nil)

func (n *BatchRankNode) Schema() types.Schema           { return n.Sch }
func (n *BatchRankNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *BatchRankNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *BatchRankNode) Explain() string {
	return "Rank(rankType=[ROW_NUMBER], rankRange=[rankStart=" + strconv.FormatInt(n.Start, 10) + ", rankEnd=" + strconv.FormatInt(n.End, 10) +
		"], partitionBy=[" + strings.Join(n.PartText, ", ") + "], orderBy=[" + sortKeyTexts(n.Keys) + "], global=[true])"
}

func (n *BatchRankNode) Open(ex *exec.Execution) (exec.Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	ex.HoldsInMemory("a batch Top-N keeps its rows")
	return &batchRankStream{n: n, in: in}, nil
}

type rankedRow struct {
	part []byte
	sortedRow
}

type batchRankStream struct {
	n    *BatchRankNode
	in   exec.Stream
	rows []rankedRow
	out  exec.Queue
	done bool
}

func (s *batchRankStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *batchRankStream) Row(r types.Row) error {
	var part []byte
	for _, x := range s.n.Partition {
		v, err := x.Eval(r.Fields)
		if err != nil {
			return err
		}
		part = keycodec.AppendValue(part, v)
	}
	key, err := sortKeyValues(s.n.Keys, r)
	if err != nil {
		return err
	}
	s.rows = append(s.rows, rankedRow{part: part, sortedRow: sortedRow{key: key, row: r.Copy()}})
	return nil
}

func (s *batchRankStream) Time(ev *exec.Event) error {
	if s.done || ev.Kind == exec.EvWatermark && ev.Wm != exec.MaxWatermark {
		return nil
	}
	s.done = true
	slices.SortStableFunc(s.rows, func(a, b rankedRow) int {
		if c := bytes.Compare(a.part, b.part); c != 0 {
			return c
		}
		return compareSortKeys(s.n.Keys, a.key, b.key)
	})
	var num int64
	for i, r := range s.rows {
		if i == 0 || !bytes.Equal(r.part, s.rows[i-1].part) {
			num = 0
		}
		num++
		if num < s.n.Start || num > s.n.End {
			continue
		}
		fields := append(append(make([]any, 0, len(r.row.Fields)+1), r.row.Fields...), num)
		s.out.PushRow(types.Insert, fields)
	}
	s.rows = nil
	return nil
}

func (s *batchRankStream) Close() error { return s.in.Close() }
