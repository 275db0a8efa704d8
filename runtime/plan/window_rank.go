package plan

import (
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Window Top-N and window deduplication, as Flink 2.3 plans them: the
// ROW_NUMBER idiom of rank.go whose PARTITION BY holds window_start and
// window_end of a window table function, a window aggregation or a window
// Top-N is a
// WindowRank, or, for rn = 1 ordered by a time attribute, a
// WindowDeduplicate ([sqlop.WindowRankNode]): insert-only rows, once per
// window when the watermark passes window_end - 1. Any other PARTITION BY
// of such rows is the ordinary, updating Top-N.

// windowBounds are where window_start and window_end of a window table
// function or a window aggregation are among a node's columns.
type windowBounds struct {
	start, end int
	spec       sqlop.WindowSpec
	partition  []string // SESSION's PARTITION BY columns
	// rebuild copies the node with its window table function replaced
	// (nil over a window aggregation).
	tvf     *sqlop.WindowTVFNode
	rebuild func(*sqlop.WindowTVFNode) exec.Node
	// from is where each column of n comes from in the function's output
	// (-1: computed), when tvf is set.
	from []int
}

// findWindowBounds looks for window_start and window_end among n's
// columns, read through filters, renames and projections from a window
// table function, a window aggregation that groups by them or a window
// Top-N of either.
func findWindowBounds(n exec.Node) (windowBounds, bool) {
	b := windowBounds{start: -1, end: -1}
	locate := func(from []int, role func(int) int) bool {
		for i, src := range from {
			if src < 0 {
				continue
			}
			switch role(src) {
			case 0:
				if b.start < 0 {
					b.start = i
				}
			case 1:
				if b.end < 0 {
					b.end = i
				}
			}
		}
		return b.start >= 0 && b.end >= 0
	}
	tvfRole := func(w *sqlop.WindowTVFNode) func(int) int {
		width := w.Sch.Len()
		return func(c int) int {
			switch c {
			case width - 3:
				return 0
			case width - 2:
				return 1
			}
			return -1
		}
	}
	partition := func(w *sqlop.WindowTVFNode) []string {
		var ks []string
		for _, k := range w.Partition {
			ks = append(ks, w.In.Schema().Columns[k].Name)
		}
		return ks
	}
	if w, rebuild, from := windowInput(n); w != nil {
		b.spec, b.partition, b.tvf, b.rebuild, b.from = w.Spec, partition(w), w, rebuild, from
		return b, locate(from, tvfRole(w))
	}
	src, from := windowSource(n)
	switch t := src.(type) {
	case *sqlop.WindowRankNode:
		// A window Top-N keeps its input's columns in place.
		inner, ok := findWindowBounds(t.In)
		if !ok {
			return b, false
		}
		b.spec, b.partition = inner.spec, inner.partition
		return b, locate(from, func(c int) int {
			switch c {
			case inner.start:
				return 0
			case inner.end:
				return 1
			}
			return -1
		})
	case *sqlop.WindowAggregateNode:
		w, _, aggFrom := windowInput(t.In)
		if w == nil {
			return b, false
		}
		b.spec, b.partition = w.Spec, partition(w)
		inner := tvfRole(w)
		return b, locate(from, func(out int) int {
			c, ok := t.Outs[out].(*expr.Column)
			if !ok || c.Index >= len(t.Groups) {
				return -1
			}
			g, ok := t.Groups[c.Index].(*expr.Column)
			if !ok || aggFrom[g.Index] < 0 {
				return -1
			}
			return inner(aggFrom[g.Index])
		})
	}
	return b, false
}

// windowSource finds a window aggregation or a window Top-N under
// filters, renames and projections, and where each column of n comes
// from among its output columns (-1: computed).
func windowSource(n exec.Node) (exec.Node, []int) {
	identity := func(w int) []int {
		m := make([]int, w)
		for i := range m {
			m[i] = i
		}
		return m
	}
	switch t := n.(type) {
	case *sqlop.WindowAggregateNode, *sqlop.WindowRankNode:
		return t, identity(t.Schema().Len())
	case *exec.FilterNode:
		return windowSource(t.In)
	case *exec.RenameNode:
		return windowSource(t.In)
	case *exec.ProjectNode:
		if src, m := windowSource(t.In); src != nil {
			out := make([]int, len(t.Exprs))
			for i, x := range t.Exprs {
				out[i] = -1
				if ce, ok := x.(*expr.Column); ok {
					out[i] = m[ce.Index]
				}
			}
			return src, out
		}
	}
	return nil, nil
}

// rankDraw is how a window Top-N or deduplication straight over a window
// table function draws in a timeline: a lane per key of its PARTITION BY
// besides the window columns, when they are columns of the function's
// input (else one lane).
func rankDraw(tvf *sqlop.WindowTVFNode, rest []expr.Expr, from []int) *sqlop.WindowDraw {
	d := &sqlop.WindowDraw{Name: strings.TrimSuffix(strings.TrimPrefix(tvf.Text, "WindowTableFunction(window=["), "])")}
	width := tvf.Sch.Len() - 3 // the function's input columns
	for i, x := range rest {
		c, ok := x.(*expr.Column)
		if !ok || c.Index >= len(from) || from[c.Index] < 0 || from[c.Index] >= width {
			return &sqlop.WindowDraw{Name: d.Name}
		}
		d.TVFKeys = append(d.TVFKeys, from[c.Index])
		d.AggKeys = append(d.AggKeys, i)
	}
	return d
}

// windowRankNode builds the window Top-N or deduplication of a rank whose
// PARTITION BY holds window_start and window_end of o.in, or returns nil
// when it is an ordinary one.
func (o *overPlanner) windowRankNode(part []expr.Expr, partText []string, keys []sqlop.OrderKey, cols []types.Column) exec.Node {
	b, ok := findWindowBounds(o.in)
	if !ok {
		return nil
	}
	var rest []expr.Expr
	var restText []string
	hasStart, hasEnd := false, false
	for i, x := range part {
		if c, ok := x.(*expr.Column); ok && (c.Index == b.start || c.Index == b.end) {
			hasStart = hasStart || c.Index == b.start
			hasEnd = hasEnd || c.Index == b.end
			continue
		}
		rest = append(rest, x)
		restText = append(restText, partText[i])
	}
	if !hasStart || !hasEnd {
		return nil
	}
	in := o.in
	var draw *sqlop.WindowDraw
	if b.rebuild != nil {
		// Late rows are dropped (with a note) as the window aggregation's.
		tvf := *b.tvf
		tvf.DropLate = true
		draw = rankDraw(&tvf, rest, b.from)
		tvf.Draw = draw
		in = b.rebuild(&tvf)
	}
	sch := in.Schema()
	win := b.spec.Text()
	at := strings.IndexByte(win, '(') + 1
	win = win[:at] + "win_start=[" + sch.Columns[b.start].Name + "], win_end=[" + sch.Columns[b.end].Name + "], " + win[at:]
	if len(b.partition) > 0 {
		win = win[:len(win)-1] + ", partition keys=[" + joinStrings(b.partition) + "])"
	}
	r := o.rank
	n := &sqlop.WindowRankNode{In: in, Start: b.start, End: b.end, Partition: rest, Keys: keys,
		RankStart: r.start, RankEnd: r.end, Sch: types.Schema{Columns: cols}, ProcTime: b.tvf != nil && b.tvf.ProcTime, Draw: draw}
	if c, ok := keys[0].Expr.(*expr.Column); ok && len(keys) == 1 && (sch.Columns[c.Index].TimeAttr || sch.Columns[c.Index].ProcTime) && r.start == 1 && r.end == 1 {
		n.Dedup, n.Time = sqlop.KeepFirst, c.Index
		keep := "FirstRow"
		if keys[0].Desc {
			n.Dedup, keep = sqlop.KeepLast, "LastRow"
		}
		n.Text = "WindowDeduplicate(window=[" + win + "], keep=[" + keep + "], partitionKeys=[" + strings.Join(restText, ", ") +
			"], orderKey=[" + sch.Columns[c.Index].Name + "], order=[ROWTIME])"
		if draw != nil {
			draw.Name = "WindowDeduplicate " + draw.Name
		}
		return n
	}
	if draw != nil {
		draw.Name = "WindowRank " + draw.Name
	}
	s := "WindowRank(window=[" + win + "], rankType=[ROW_NUMBER], rankRange=[rankStart=" + strconv.FormatInt(r.start, 10) +
		", rankEnd=" + strconv.FormatInt(r.end, 10) + "], partitionBy=[" + strings.Join(restText, ", ") + "], orderBy=[" + sortKeyTexts(keys) + "], select=["
	for i, c := range sch.Columns {
		if i > 0 {
			s += ", "
		}
		s += c.Name
	}
	if r.number {
		s += ", w0$o0"
	}
	n.Text = s + "])"
	return n
}

// sortKeyTexts prints order keys as Flink's plans do: price DESC.
func sortKeyTexts(keys []sqlop.OrderKey) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = k.Text
	}
	return strings.Join(s, ", ")
}

// windowRanked reports whether a rank call's window is partitioned by
// window_start and window_end of o.in's windows: a window Top-N.
func (o *overPlanner) windowRanked(f *sqlmini.FuncCall) bool {
	spec, err := o.window(f)
	if err != nil {
		return false
	}
	b, ok := findWindowBounds(o.in)
	if !ok {
		return false
	}
	hasStart, hasEnd := false, false
	for _, e := range spec.PartitionBy {
		if x, err := expr.Compile(e, o.sc); err == nil {
			if c, ok := x.(*expr.Column); ok {
				hasStart = hasStart || c.Index == b.start
				hasEnd = hasEnd || c.Index == b.end
			}
		}
	}
	return hasStart && hasEnd
}
