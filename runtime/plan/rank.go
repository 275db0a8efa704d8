package plan

import (
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Flink's Top-N and deduplication idioms:
//
//	SELECT ... FROM (SELECT ..., ROW_NUMBER() OVER (PARTITION BY k ORDER BY x) AS rn FROM t) WHERE rn <= N
//
// The condition on rn (rn <= N, rn < N, rn = N, rn BETWEEN M AND N, or
// one of them ANDed with other conditions) makes the ROW_NUMBER a rank rather than an OVER
// aggregation: a Top-N ([sqlop.RankNode]; [sqlop.RetractRankNode] over an
// updating input), or, for rn = 1 ordered by a time
// attribute, a deduplication: ascending keeps the first row (an OVER
// ROW_NUMBER filtered, insert-only, as Flink's), descending the last
// ([sqlop.DedupLastNode], updating).

// rankCandidate reports whether a query is a SELECT with a ROW_NUMBER()
// OVER item, which a SELECT around may filter by rank.
func rankCandidate(q *sqlmini.Query) bool {
	if q == nil || len(q.With) > 0 || len(q.Ops) > 0 || q.Body.Select == nil {
		return false
	}
	for _, it := range q.Body.Select.Items {
		if f := bareCall(it.Expr); !it.Star && f != nil && f.Over != nil && strings.EqualFold(string(f.Name.Value), "ROW_NUMBER") {
			return true
		}
	}
	return false
}

// inlineRankSource returns sel reading a view or WITH query whose SELECT
// has a ROW_NUMBER item as a subquery, as Flink's planner inlines it, so
// that rankPattern sees the idiom; else sel.
func (p *Planner) inlineRankSource(sel *sqlmini.Select) *sqlmini.Select {
	if sel.From == nil || sel.From.Table == nil || len(sel.From.AliasCols) > 0 {
		return sel
	}
	nm := string(sel.From.Table.Value)
	q, ok := p.cteQueries[nm]
	if _, shadowed := p.ctes[nm]; !ok && !shadowed && len(p.ctes) == 0 && len(p.cteQueries) == 0 {
		// A view is planned with no WITH queries in scope, as planTable
		// plans it: only inline it where none are.
		if t, found := p.cat.Table(nm); found && t.Kind == catalog.TableView && len(t.ColumnNames) == 0 {
			q, ok = t.Query, true
		}
	}
	if !ok || !rankCandidate(q) {
		return sel
	}
	out := *sel
	from := *sel.From
	from.Table, from.Subquery = nil, q
	if from.Alias == nil {
		from.Alias = sel.From.Table
	}
	out.From = &from
	return &out
}

// rankSpec is a ROW_NUMBER call that the SELECT around filters by rank.
type rankSpec struct {
	call       *sqlmini.FuncCall
	start, end int64
	number     bool  // the query reads the row number
	err        error // a condition on rn that gives no end (rn > 2)
}

// rankPattern finds the idiom in sel. It returns the rank and sel with
// the rank condition taken out of its WHERE.
func rankPattern(sel *sqlmini.Select) (*rankSpec, *sqlmini.Select, bool) {
	if sel.From == nil || sel.From.Subquery == nil || sel.Where == nil || len(sel.Where.Right) > 0 {
		return nil, nil, false
	}
	q := sel.From.Subquery
	if len(q.With) > 0 || len(q.Ops) > 0 || q.Body.Select == nil {
		return nil, nil, false
	}
	inner := q.Body.Select
	var call *sqlmini.FuncCall
	var name string
	for j, it := range inner.Items {
		if it.Star {
			continue
		}
		f := bareCall(it.Expr)
		if f == nil || f.Over == nil || !isRankFunction(string(f.Name.Value)) {
			continue
		}
		call, name = f, "EXPR$"+strconv.Itoa(j)
		if it.Alias != nil {
			name = string(it.Alias.Value)
		}
		break
	}
	if call == nil {
		return nil, nil, false
	}
	conj := append([]*sqlmini.NotExpr{sel.Where.Left.Left}, sel.Where.Left.Right...)
	for i, c := range conj {
		start, end, ok := rankBound(c, name)
		if !ok {
			continue
		}
		out := *sel
		rest := append(append([]*sqlmini.NotExpr(nil), conj[:i]...), conj[i+1:]...)
		out.Where = nil
		if len(rest) > 0 {
			out.Where = &sqlmini.Expr{Pos: sel.Where.Pos, Left: &sqlmini.AndExpr{Pos: sel.Where.Left.Pos, Left: rest[0], Right: nilIfEmpty(rest[1:])}}
		}
		r := &rankSpec{call: call, start: start, end: end, number: readsColumn(&out, name)}
		if end == 0 {
			r.err = sqlmini.Errorf(c.Pos, "Rank end is not specified. Currently rank only support TopN, which means the rank end must be specified.")
		}
		return r, &out, true
	}
	return nil, nil, false
}

// isRankFunction reports whether name is ROW_NUMBER, or RANK or
// DENSE_RANK, which the idiom takes to refuse them in Flink's words.
func isRankFunction(name string) bool {
	return strings.EqualFold(name, "ROW_NUMBER") || strings.EqualFold(name, "RANK") || strings.EqualFold(name, "DENSE_RANK")
}

func nilIfEmpty[T any](xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	return xs
}

// bareCall is the call an expression is, when it is nothing else.
func bareCall(e *sqlmini.Expr) *sqlmini.FuncCall {
	if e == nil || len(e.Right) > 0 || len(e.Left.Right) > 0 || e.Left.Left.Pred == nil {
		return nil
	}
	p := e.Left.Left.Pred
	if p.Op != "" || p.In != nil || p.Between != nil || p.Like != nil || p.IsNull || p.NotNull || p.Truth != "" ||
		len(p.Left.Right) > 0 || len(p.Left.Left.Right) > 0 || p.Left.Left.Left.Minus {
		return nil
	}
	return p.Left.Left.Left.Primary.Func
}

// rankBound reads rn <= N, rn < N or rn = N (or N >= rn, ...).
func rankBound(c *sqlmini.NotExpr, name string) (int64, int64, bool) {
	p := c.Pred
	if p == nil {
		return 0, 0, false
	}
	col := func(a *sqlmini.Additive) bool {
		if len(a.Right) > 0 || len(a.Left.Right) > 0 || a.Left.Left.Minus || a.Left.Left.Primary.Column == nil {
			return false
		}
		parts := a.Left.Left.Primary.Column.Parts
		return strings.EqualFold(string(parts[len(parts)-1].Value), name)
	}
	num := func(a *sqlmini.Additive) (int64, bool) {
		if len(a.Right) > 0 || len(a.Left.Right) > 0 || a.Left.Left.Minus || a.Left.Left.Primary.Number == nil {
			return 0, false
		}
		n, err := strconv.ParseInt(*a.Left.Left.Primary.Number, 10, 64)
		return n, err == nil
	}
	if p.Between != nil && !p.Negated && p.Between.Symmetric == "" && col(p.Left) {
		lo, ok1 := num(p.Between.Low)
		hi, ok2 := num(p.Between.High)
		return max(lo, 1), hi, ok1 && ok2 && hi >= max(lo, 1)
	}
	if p.Op == "" {
		return 0, 0, false
	}
	op := p.Op
	var n int64
	var ok bool
	switch {
	case col(p.Left):
		n, ok = num(p.Right)
	case col(p.Right):
		n, ok = num(p.Left)
		op = map[string]string{"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "="}[op]
	}
	if !ok {
		return 0, 0, false
	}
	switch op {
	case "<=":
		return 1, n, n >= 1
	case "<":
		return 1, n - 1, n >= 2
	case "=":
		return n, n, n >= 1
	case ">":
		return n + 1, 0, true // no end: an error
	case ">=":
		return n, 0, true
	}
	return 0, 0, false
}

// readsColumn reports whether the SELECT reads a column of that name
// outside its FROM (or selects *).
func readsColumn(sel *sqlmini.Select, name string) bool {
	for _, it := range sel.Items {
		if it.Star {
			return true
		}
	}
	found := false
	sqlmini.Walk(sel, func(n any) bool {
		switch x := n.(type) {
		case *sqlmini.ColumnRef:
			found = found || strings.EqualFold(string(x.Parts[len(x.Parts)-1].Value), name)
			return false
		case *sqlmini.FromItem:
			return false
		}
		return !found
	})
	return found
}

// rankNode builds the Top-N or deduplication of the ROW_NUMBER call.
func (o *overPlanner) rankNode(f *sqlmini.FuncCall, spec *sqlmini.WindowSpec) error {
	r := o.rank
	if r.err != nil {
		return r.err
	}
	if len(f.Args) > 0 || f.Star || f.Distinct {
		return sqlmini.Errorf(f.Pos, "Invalid number of arguments to function 'ROW_NUMBER'. Was expecting 0 arguments")
	}
	if spec.Frame != nil {
		return sqlmini.Errorf(spec.Frame.Pos, "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions")
	}
	if len(spec.OrderBy) == 0 {
		return sqlmini.Errorf(f.Over.Pos, "Over Agg: The window rank function requires order by clause with non-constant fields. please re-check the over window statement. (ROW_NUMBER needs ORDER BY in its window: the order that ranks the rows.)")
	}
	var part []expr.Expr
	var partText []string
	for _, e := range spec.PartitionBy {
		x, err := expr.Compile(e, o.sc)
		if err != nil {
			return err
		}
		part = append(part, x)
		partText = append(partText, ExprText(e))
	}
	keys, err := o.p.orderKeys(&sqlmini.Select{OrderBy: spec.OrderBy}, o.in.Schema())
	if err != nil {
		return err
	}
	sch := o.in.Schema()
	cols := append(append([]types.Column(nil), sch.Columns...), types.Column{Name: "w0$o0", Type: types.TypeBigInt.AsNotNull()})
	if w := o.windowRankNode(part, partText, keys, cols); w != nil {
		// PARTITION BY window_start, window_end of a window table function
		// or window aggregation: Flink's window Top-N (window_rank.go).
		o.built = w
		return nil
	}
	if o.p.env.Batch {
		// Flink's batch Rank: by partition, then rank (batch.go).
		o.built = &sqlop.BatchRankNode{In: finalRows(o.in), Partition: part, PartText: partText, Keys: keys, Start: r.start, End: r.end, Sch: types.Schema{Columns: cols}}
		return nil
	}
	if m := o.in.Changelog(); !m.IsInsertOnly() {
		in := o.in
		if m.KeyOnlyDeletes || m.Contains(types.UpdateAfter) && !m.Contains(types.UpdateBefore) {
			// An upsert input: its -U rows and full deletes come from the
			// last row of each key (Flink's ChangelogNormalize).
			if len(exec.UpsertKeyOf(in)) == 0 {
				return sqlmini.Errorf(f.Over.Pos, "a Top-N over an upsert input (%s) needs its upsert key: declare a PRIMARY KEY on the table", m)
			}
			in = DeliverUpdates(in, ptf.RequireUpdateBefore|ptf.RequireFullDelete, nil)
		}
		o.built = &sqlop.RetractRankNode{In: in, Partition: part, PartText: partText, Keys: keys, Start: r.start, End: r.end,
			Number: r.number, Key: exec.UpsertKeyOf(o.in), Fast: updateFast(o.in, keys), Sch: types.Schema{Columns: cols}}
		return nil
	}
	if c, ok := keys[0].Expr.(*expr.Column); ok && len(keys) == 1 && sch.Columns[c.Index].ProcTime && r.start == 1 && r.end == 1 {
		// Ordered by arrival: the first or the last row of each key.
		o.built = &sqlop.ProcDedupNode{In: o.in, Partition: part, PartText: partText, Last: keys[0].Desc, Sch: types.Schema{Columns: cols}}
		return nil
	}
	if c, ok := keys[0].Expr.(*expr.Column); ok && len(keys) == 1 && sch.Columns[c.Index].TimeAttr && r.start == 1 && r.end == 1 {
		if !keys[0].Desc {
			// Keep the first row: the first in time order once the
			// watermark passes it, as an OVER ROW_NUMBER filtered to 1
			// (insert-only; late rows are dropped).
			n := &sqlop.OverNode{In: o.in, Partition: part, PartText: partText, Time: c.Index, Frame: sqlop.OverFrame{Rows: true, Unbounded: true},
				Calls: []*sqlop.OverCall{{Fn: "ROW_NUMBER", Typ: types.TypeBigInt.AsNotNull(), Text: "ROW_NUMBER()"}}, FirstRow: true}
			n.Sch = types.Schema{Columns: cols}
			cond, err := sqlmini.ParseExpr("w0$o0 = 1")
			if err != nil {
				return err
			}
			pred, err := expr.Compile(cond, &expr.Scope{Schema: n.Sch})
			if err != nil {
				return err
			}
			o.built = &exec.FilterNode{In: n, Pred: pred, Text: "w0$o0 = 1"}
			return nil
		}
		o.built = &sqlop.DedupLastNode{In: o.in, Partition: part, PartText: partText, Time: c.Index, Sch: types.Schema{Columns: cols}}
		return nil
	}
	if !r.number && r.start != 1 {
		return sqlmini.Errorf(f.Pos, "a Top-N whose ranks start after 1 must select its row number: select the ROW_NUMBER column too")
	}
	o.built = &sqlop.RankNode{In: o.in, Partition: part, PartText: partText, Keys: keys, Start: r.start, End: r.end, Number: r.number, Sch: types.Schema{Columns: cols}}
	return nil
}

// View plans a view's query to check it and learn its columns. A query
// with a ROW_NUMBER item is planned as the Top-1 a SELECT around may make
// of it (Flink validates a view without planning its ROW_NUMBER, which
// it plans with the query that reads the view).
func (p *Planner) View(q *sqlmini.Query) (exec.Node, error) {
	if !rankCandidate(q) {
		return p.Query(q)
	}
	for _, it := range q.Body.Select.Items {
		if f := bareCall(it.Expr); !it.Star && f != nil && f.Over != nil && strings.EqualFold(string(f.Name.Value), "ROW_NUMBER") {
			saved := p.rank
			p.rank = &rankSpec{call: f, start: 1, end: 1, number: true}
			n, err := p.Query(q)
			p.rank = saved
			if err == nil {
				return n, nil
			}
			break
		}
	}
	return p.Query(q)
}

// updateFast reports whether Flink would rank in with its
// UpdateFastStrategy: in is a GROUP BY of an insert-only input, with an
// upsert key, and every sort key is an aggregate that only moves toward
// the top as rows arrive (COUNT or MAX descending, MIN ascending).
func updateFast(in exec.Node, keys []sqlop.OrderKey) bool {
	for {
		r, ok := in.(*exec.RenameNode)
		if !ok {
			break
		}
		in = r.In
	}
	agg, ok := in.(*sqlop.AggregateNode)
	if !ok || agg.Key == nil || !agg.In.Changelog().IsInsertOnly() {
		return false
	}
	for _, k := range keys {
		c, ok := k.Expr.(*expr.Column)
		if !ok || c.Index >= len(agg.Outs) {
			return false
		}
		g, ok := agg.Outs[c.Index].(*expr.Column)
		if !ok || g.Index < len(agg.Groups) {
			return false
		}
		call := agg.Calls[g.Index-len(agg.Groups)]
		switch {
		case call.Fn == "COUNT" && !call.Distinct && k.Desc, call.Fn == "MAX" && k.Desc, call.Fn == "MIN" && !k.Desc:
		default:
			return false
		}
	}
	return true
}
