package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Planner turns a query's AST into a tree of plan nodes, resolving names
// against the catalog and the query's WITH clauses.
type Planner struct {
	// groupWindows are the window table function calls that group windows
	// were rewritten into (legacy_window.go).
	groupWindows map[*sqlmini.Call]bool
	cat          *catalog.Catalog
	env          connector.Env // what sources take from the session
	ctes         map[string]exec.Node
	// cteQueries are the WITH queries planned where they are read (see
	// rankCandidate).
	cteQueries map[string]*sqlmini.Query
	// uids collects the uids of the PTF calls of one statement, and shared
	// their plans, so that an identical call with the same uid is the
	// same instance.
	uids   map[string]*sqlmini.Call
	shared map[string]*exec.TeeNode
	// Required is the changelog mode the statement's consumer accepts (the
	// printer: every kind, full deletes; a sink may accept key-only
	// deletes). ChangelogFunctions resolve their output against it.
	Required types.ChangelogMode
	// rank is the ROW_NUMBER call of a Top-N idiom while the subquery
	// that has it is planned (rank.go).
	rank *rankSpec
}

func New(cat *catalog.Catalog, env connector.Env) *Planner {
	return &Planner{cat: cat, env: env, ctes: map[string]exec.Node{}, uids: map[string]*sqlmini.Call{}, shared: map[string]*exec.TeeNode{}, Required: types.RetractAll}
}

func (p *Planner) Query(q *sqlmini.Query) (exec.Node, error) {
	if len(q.With) > 0 {
		saved, savedQ := p.ctes, p.cteQueries
		p.ctes = make(map[string]exec.Node, len(saved)+len(q.With))
		for k, v := range saved {
			p.ctes[k] = v
		}
		p.cteQueries = make(map[string]*sqlmini.Query, len(savedQ))
		for k, v := range savedQ {
			p.cteQueries[k] = v
		}
		defer func() { p.ctes, p.cteQueries = saved, savedQ }()
		for _, cte := range q.With {
			if len(cte.Columns) == 0 && rankCandidate(cte.Query) {
				// Planned where it is read: a SELECT around it may make its
				// ROW_NUMBER a Top-N (rank.go).
				delete(p.ctes, string(cte.Name.Value))
				p.cteQueries[string(cte.Name.Value)] = cte.Query
				continue
			}
			delete(p.cteQueries, string(cte.Name.Value))
			n, err := p.Query(cte.Query)
			if err != nil {
				return nil, err
			}
			if len(cte.Columns) > 0 {
				if n, err = renameColumns(n, cte.Columns, cte.Pos); err != nil {
					return nil, err
				}
			}
			p.ctes[string(cte.Name.Value)] = n
		}
	}
	first, err := p.planSetExpr(q.Body)
	if err != nil || len(q.Ops) == 0 {
		return first, err
	}
	return p.planSetOps(q, first) // setop.go
}

func (p *Planner) planSetExpr(se *sqlmini.SetExpr) (exec.Node, error) {
	switch {
	case se.Select != nil:
		return p.planSelect(se.Select)
	case se.Values != nil:
		return p.planValues(se.Values)
	}
	return p.Query(se.Paren)
}

// planValues types VALUES columns as Flink does (see leastRestrictive) and
// names them EXPR$0, EXPR$1, ...
func (p *Planner) planValues(v *sqlmini.Values) (exec.Node, error) {
	exprs, width, err := CompileValues(v)
	if err != nil {
		return nil, err
	}
	cols := make([]types.Column, width)
	for c := 0; c < width; c++ {
		var ts []types.Type
		for _, es := range exprs {
			if es != nil {
				ts = append(ts, es[c].Type())
			}
		}
		cols[c] = types.Column{Name: "EXPR$" + strconv.Itoa(c), Type: expr.LeastRestrictive(ts)}
	}
	sch := types.Schema{Columns: cols}
	events, err := ValuesEvents(v, exprs, sch)
	if err != nil {
		return nil, err
	}
	return &exec.ValuesNode{Sch: sch, Events: events}, nil
}

// CompileValues compiles the rows of VALUES; watermark steps get nil.
func CompileValues(v *sqlmini.Values) ([][]expr.Expr, int, error) {
	width := -1
	exprs := make([][]expr.Expr, len(v.Rows))
	for i, r := range v.Rows {
		if r.Watermark != nil {
			continue
		}
		if width < 0 {
			width = len(r.Values)
		}
		if len(r.Values) != width {
			return nil, 0, sqlmini.Errorf(r.Pos, "VALUES rows must have the same number of values: the first row has %d, this one %d", width, len(r.Values))
		}
		for _, e := range r.Values {
			x, err := expr.Compile(e, nil)
			if err != nil {
				return nil, 0, err
			}
			exprs[i] = append(exprs[i], x)
		}
	}
	if width < 0 {
		return nil, 0, sqlmini.Errorf(v.Pos, "VALUES needs at least one row")
	}
	return exprs, width, nil
}

// ValuesEvents evaluates VALUES rows into rows of schema sch (casting each
// value to its column's type) and watermark steps into watermarks.
func ValuesEvents(v *sqlmini.Values, exprs [][]expr.Expr, sch types.Schema) ([]exec.Event, error) {
	events := make([]exec.Event, 0, len(exprs))
	for i, es := range exprs {
		r := v.Rows[i]
		if r.Watermark != nil {
			ts, err := watermarkStep(r.Watermark)
			if err != nil {
				return nil, err
			}
			events = append(events, exec.Event{Kind: exec.EvWatermark, Wm: ts})
			continue
		}
		f := make([]any, len(es))
		for c, x := range es {
			val, err := x.Eval(nil)
			if err != nil {
				return nil, sqlmini.Errorf(r.Values[c].Pos, "%w", err)
			}
			col := sch.Columns[c]
			if val == nil && col.Type.NotNull {
				return nil, sqlmini.Errorf(r.Values[c].Pos, "column '%s' is %s, but the value is NULL", col.Name, col.Type)
			}
			if f[c], err = expr.CastValue(val, col.Type); err != nil {
				return nil, sqlmini.Errorf(r.Values[c].Pos, "column '%s': %w", col.Name, err)
			}
		}
		events = append(events, exec.Event{Kind: exec.EvRow, Row: types.Row{Kind: types.Insert, Fields: f}})
	}
	return events, nil
}

// WatermarkStep evaluates the time of a watermark step (WATERMARK <time>
// in VALUES, ADVANCE WATERMARK s TO <time>): a TIMESTAMP literal or epoch
// milliseconds.
func WatermarkStep(e *sqlmini.Expr) (int64, error) { return watermarkStep(e) }

// watermarkStep evaluates WATERMARK <time> in VALUES: a TIMESTAMP literal
// or epoch milliseconds.
func watermarkStep(e *sqlmini.Expr) (int64, error) {
	x, err := expr.Compile(e, nil)
	if err != nil {
		return 0, err
	}
	v, err := x.Eval(nil)
	if err != nil {
		return 0, sqlmini.Errorf(e.Pos, "%w", err)
	}
	switch t := v.(type) {
	case int64:
		return t, nil
	case types.Instant, types.LocalDateTime:
		ms, _ := types.TimeMillis(t)
		return ms, nil
	case string:
		if iv, err := textparse.Value(t, types.TypeTimestampLTZ, textparse.Options{}); err == nil {
			ms, _ := types.TimeMillis(iv)
			return ms, nil
		}
	}
	return 0, sqlmini.Errorf(e.Pos, "a WATERMARK step needs a time: TIMESTAMP '2025-03-27 12:00:00' or epoch milliseconds, not %s", x.Type())
}

func names2(cols []types.Column) []string {
	n := make([]string, len(cols))
	for i, c := range cols {
		n[i] = c.Name
	}
	return n
}

// renameColumns gives a node new column names (a view's or alias's list).
func renameColumns(n exec.Node, names []*sqlmini.Name, pos sqlmini.Pos) (exec.Node, error) {
	s := n.Schema()
	if len(names) != s.Len() {
		return nil, sqlmini.Errorf(pos, "%d column names given for %d columns %s", len(names), s.Len(), s.ColumnList())
	}
	cols := make([]types.Column, s.Len())
	copy(cols, s.Columns)
	for i, nm := range names {
		cols[i].Name = string(nm.Value)
	}
	return &exec.RenameNode{In: n, Sch: types.Schema{Columns: cols}}, nil
}

func (p *Planner) planSelect(sel *sqlmini.Select) (exec.Node, error) {
	var in exec.Node
	var sc *expr.Scope
	sel, gw, err := rewriteGroupWindow(sel) // GROUP BY TUMBLE(...): legacy_window.go
	if err != nil {
		return nil, err
	}
	if gw != nil {
		if p.groupWindows == nil {
			p.groupWindows = map[*sqlmini.Call]bool{}
		}
		p.groupWindows[gw] = true
	}
	if sel.From != nil && sel.From.Lateral {
		// The first table has none before it to read: LATERAL changes
		// nothing.
		if sel.From.Subquery == nil {
			return nil, sqlmini.Errorf(sel.From.Pos, "LATERAL takes a subquery here: ptfsh has no table functions (UDTFs); expand an array with CROSS JOIN UNNEST(t.col), or call a PTF")
		}
		s, f := *sel, *sel.From
		f.Lateral = false
		s.From = &f
		sel = &s
	}
	if sel.From != nil && sel.From.AsOf != nil {
		return nil, sqlmini.Errorf(sel.From.AsOf.Pos, "FOR SYSTEM_TIME AS OF is for the table on the right of a JOIN (a temporal join), not the first table of FROM")
	}
	if len(sel.Joins) > 0 {
		n, jsc, where, err := p.planJoins(sel) // join.go
		if err != nil {
			return nil, err
		}
		in, sc = n, jsc
		if where != sel.Where {
			s := *sel
			s.Where = where
			sel = &s
		}
	} else {
		var rank *rankSpec
		if r, rest, ok := rankPattern(p.inlineRankSource(sel)); ok {
			// A Top-N or deduplication: the subquery's ROW_NUMBER is planned
			// as the rank, and the condition on it is no filter (rank.go).
			rank, sel = r, rest
		}
		saved := p.rank
		p.rank = rank
		n, alias, err := p.planFrom(sel.From)
		p.rank = saved
		if err != nil {
			return nil, err
		}
		in = n
		sc = &expr.Scope{Schema: in.Schema(), Alias: alias, Now: p.now(), Zone: p.env.Zone, Seed: p.seed(), UserFunction: p.userFunction}
	}
	if readsWatermark(sel) {
		// CURRENT_WATERMARK reads the watermark that passed the input.
		cell := &expr.WatermarkCell{}
		in = &exec.WatermarkTapNode{In: in, Cell: cell}
		c := *sc
		c.Watermark = cell
		sc = &c
	}
	for _, it := range sel.Items {
		if it.StarOf != nil {
			if _, err := starColumns(it, sc); err != nil {
				return nil, err
			}
		}
	}
	if sel.Distinct {
		// SELECT DISTINCT items is a GROUP BY of the items (Flink plans it
		// so): one row for each distinct row, retracted when its last
		// input row is.
		if len(sel.GroupBy) > 0 || hasAggregate(sel) || sel.Having != nil {
			return nil, sqlmini.Errorf(sel.Pos, "SELECT DISTINCT with GROUP BY, HAVING or aggregates is not supported yet")
		}
		d := *sel
		d.Distinct = false
		for _, it := range sel.Items {
			if it.StarOf != nil {
				return nil, sqlmini.Errorf(it.Pos, "SELECT DISTINCT %s.* is not supported yet: list the columns", it.StarOf.Value)
			}
			if !it.Star {
				d.GroupBy = append(d.GroupBy, it.Expr)
				continue
			}
			for _, i := range sc.StarColumns() {
				d.GroupBy = append(d.GroupBy, columnRefExpr(it.Pos, sc, i))
			}
		}
		sel = &d
	}
	if sel.Where != nil && hasSubquery(sel.Where) {
		// IN and EXISTS subqueries: semi and anti joins (subquery.go).
		n, where, err := p.planSubqueries(in, sc, sel.Where)
		if err != nil {
			return nil, err
		}
		in = n
		s := *sel
		s.Where = where
		sel = &s
	}
	if sel.Where != nil {
		pred, err := expr.Compile(sel.Where, sc)
		if err != nil {
			return nil, err
		}
		if k := pred.Type().Kind; k != types.KindBoolean && k != types.KindNull {
			return nil, sqlmini.Errorf(sel.Where.Pos, "WHERE needs a BOOLEAN condition, not %s", pred.Type())
		}
		in = &exec.FilterNode{In: in, Pred: pred, Text: ExprText(sel.Where)}
	}
	if len(sel.GroupBy) > 0 || hasAggregate(sel) || sel.Having != nil {
		if f := findOverOf(sel); f != nil {
			return nil, sqlmini.Errorf(f.Over.Pos, "an OVER window with GROUP BY, HAVING or aggregates is not supported yet")
		}
		if len(sel.OrderBy) > 0 {
			// ORDER BY ... LIMIT over the groups: a Top-N of an updating
			// input, over the aggregation's columns.
			agg := *sel
			agg.OrderBy, agg.Limit, agg.Offset, agg.Fetch = nil, nil, nil, nil
			n, err := p.planAggregate(&agg, in, sc) // GROUP BY: aggregate.go
			if err != nil {
				return nil, err
			}
			// A key written as a SELECT item is (ORDER BY SUM(v) with SUM(v)
			// AS s in the list) reads that item's column.
			ord := *sel
			ord.OrderBy = make([]*sqlmini.SortItem, len(sel.OrderBy))
			for i, it := range sel.OrderBy {
				k := *it
				for j, item := range sel.Items {
					if item.Expr != nil && j < n.Schema().Len() && item.Expr.String() == it.Expr.String() {
						k.Expr = columnExpr(it.Pos, n.Schema().Columns[j].Name)
						break
					}
				}
				ord.OrderBy[i] = &k
			}
			for _, it := range ord.OrderBy {
				if f := findAggregate(it.Expr); f != nil {
					return nil, sqlmini.Errorf(f.Pos, "ORDER BY %s: an aggregate in ORDER BY must be an item of the SELECT list too; add it there", ExprText(it.Expr))
				}
			}
			keys, err := p.orderKeys(&ord, n.Schema())
			if err != nil {
				return nil, err
			}
			return p.sortNode(sel, n, keys)
		}
		return p.planAggregate(sel, in, sc) // GROUP BY: aggregate.go
	}
	pre := in // the rows before the SELECT list: ORDER BY may read them
	var over *overPlanner
	if hasOver(sel) {
		// The OVER calls read columns that an OverNode appends: over.go.
		over = &overPlanner{p: p, sel: sel, in: in, sc: sc, calls: map[string]int{}, rank: p.rank}
		osc := *sc
		osc.Over = over.call
		sc = &osc
	}
	if !(len(sel.Items) == 1 && sel.Items[0].Star && sc.Star == nil) {
		var exprs []expr.Expr
		var cols []types.Column
		var texts []string
		for _, it := range sel.Items {
			if it.Star || it.StarOf != nil {
				idx := sc.StarColumns()
				if it.StarOf != nil {
					idx, _ = starColumns(it, sc) // checked above
				}
				for _, i := range idx {
					c := sc.Schema.Columns[i]
					exprs = append(exprs, &expr.Column{Index: i, T: c.Type})
					cols = append(cols, c)
					texts = append(texts, c.Name)
				}
				continue
			}
			x, err := expr.Compile(it.Expr, sc)
			if err != nil {
				return nil, err
			}
			name := "EXPR$" + strconv.Itoa(len(cols))
			col := types.Column{Type: x.Type()}
			if ce, ok := x.(*expr.Column); ok && ce.Index < sc.Schema.Len() {
				name = sc.Schema.Columns[ce.Index].Name
				col.TimeAttr = sc.Schema.Columns[ce.Index].TimeAttr
			}
			if it.Alias != nil {
				name = string(it.Alias.Value)
			}
			col.Name = name
			exprs = append(exprs, x)
			cols = append(cols, col)
			texts = append(texts, ExprText(it.Expr))
		}
		if over != nil {
			var err error
			if in, err = over.finish(); err != nil {
				return nil, err
			}
		}
		in = &exec.ProjectNode{In: in, Exprs: exprs, Sch: types.Schema{Columns: cols}, Texts: texts}
	}
	if len(sel.OrderBy) > 0 {
		return p.planOrderBy(sel, pre, in)
	}
	lim, err := limitOf(sel)
	if err != nil {
		return nil, err
	}
	if lim.has {
		if lim.offset > 0 && !in.Changelog().IsInsertOnly() {
			return nil, sqlmini.Errorf(sel.Pos, "OFFSET over an updating input (%s) is not supported yet", in.Changelog())
		}
		in = &exec.LimitNode{In: in, N: lim.n, Offset: lim.offset}
	}
	return in, nil
}

// limitClause is a SELECT's LIMIT n (or FETCH FIRST n ROWS ONLY) and
// OFFSET m.
type limitClause struct {
	has       bool // a LIMIT or a FETCH
	n, offset int64
}

// limitOf reads a SELECT's LIMIT, OFFSET and FETCH. As in Flink's
// streaming mode, OFFSET needs LIMIT or FETCH.
func limitOf(sel *sqlmini.Select) (limitClause, error) {
	var c limitClause
	count := func(s *string, what string) (int64, error) {
		n, err := strconv.ParseInt(*s, 10, 64)
		if err != nil || n < 0 {
			return 0, sqlmini.Errorf(sel.Pos, "%s needs a whole number, not %s", what, *s)
		}
		return n, nil
	}
	var err error
	switch {
	case sel.Limit != nil && sel.Fetch != nil:
		return c, sqlmini.Errorf(sel.Pos, "LIMIT and FETCH both limit the rows: write one of them")
	case sel.Limit != nil:
		c.has = true
		c.n, err = count(sel.Limit, "LIMIT")
	case sel.Fetch != nil:
		c.has = true
		c.n, err = count(sel.Fetch, "FETCH")
	}
	if err != nil {
		return c, err
	}
	if sel.Offset != nil {
		if !c.has {
			return c, sqlmini.Errorf(sel.Pos, "FETCH is missed, which on streaming table is not supported currently: OFFSET needs LIMIT n or FETCH NEXT n ROWS ONLY after it (Flink's streaming mode keeps no unbounded rest)")
		}
		c.offset, err = count(sel.Offset, "OFFSET")
	}
	return c, err
}

// planOrderBy plans a SELECT's ORDER BY over its result (out, the
// SELECT list over pre), with Flink's streaming rules: with LIMIT a Top-N
// ([sqlop.TopNNode], or [sqlop.RetractTopNNode] over an updating input);
// without, the first key must be an ascending time attribute of an
// insert-only input ([sqlop.TemporalSortNode]). The keys read the SELECT list's
// columns (aliases too), else the FROM's (the sort then goes below the
// SELECT list, which changes nothing for insert-only rows). NULLs sort
// low, as in Flink: first when ascending, last when descending, unless
// NULLS says.
func (p *Planner) planOrderBy(sel *sqlmini.Select, pre, out exec.Node) (exec.Node, error) {
	keys, err := p.orderKeys(sel, out.Schema())
	if err == nil {
		return p.sortNode(sel, out, keys)
	}
	proj, ok := out.(*exec.ProjectNode)
	if !ok {
		return nil, err
	}
	keys, err2 := p.orderKeys(sel, pre.Schema())
	if err2 != nil {
		return nil, err2 // it lists every column ORDER BY may read
	}
	sorted, err := p.sortNode(sel, pre, keys)
	if err != nil {
		return nil, err
	}
	c := *proj
	c.In = sorted
	return &c, nil
}

// orderKeys compiles the ORDER BY keys over a schema.
func (p *Planner) orderKeys(sel *sqlmini.Select, sch types.Schema) ([]sqlop.OrderKey, error) {
	sc := &expr.Scope{Schema: sch, Now: p.now(), Zone: p.env.Zone, Seed: p.seed(), UserFunction: p.userFunction}
	var keys []sqlop.OrderKey
	for _, it := range sel.OrderBy {
		x, err := expr.Compile(it.Expr, sc)
		if err != nil {
			return nil, err
		}
		desc := strings.EqualFold(it.Direction, "DESC")
		k := sqlop.OrderKey{Expr: x, Desc: desc, NullsFirst: !desc, Text: ExprText(it.Expr) + " ASC"}
		if desc {
			k.Text = ExprText(it.Expr) + " DESC"
		}
		if it.Nulls != "" {
			k.NullsFirst = strings.EqualFold(it.Nulls, "FIRST")
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// sortNode is the Top-N or the temporal sort of in by keys.
func (p *Planner) sortNode(sel *sqlmini.Select, in exec.Node, keys []sqlop.OrderKey) (exec.Node, error) {
	lim, err := limitOf(sel)
	if err != nil {
		return nil, err
	}
	if p.env.Batch {
		// Flink's batch Sort and SortLimit: on any columns (batch.go).
		return &sqlop.SortNode{In: finalRows(in), Keys: keys, Limit: lim.has, N: lim.n, Offset: lim.offset}, nil
	}
	if lim.has {
		if !in.Changelog().IsInsertOnly() {
			if lim.offset > 0 {
				return nil, sqlmini.Errorf(sel.Pos, "ORDER BY ... OFFSET over an updating input (%s) is not supported yet", in.Changelog())
			}
			return &sqlop.RetractTopNNode{In: in, Keys: keys, N: lim.n, Key: exec.UpsertKeyOf(in)}, nil
		}
		return &sqlop.TopNNode{In: in, Keys: keys, N: lim.n, Offset: lim.offset}, nil
	}
	if m := in.Changelog(); !m.IsInsertOnly() {
		return nil, sqlmini.Errorf(sel.OrderBy[0].Pos, "Sort on a non-time-attribute field is not supported: ORDER BY over an updating input (%s) needs LIMIT n (a Top-N)", m)
	}
	c, ok := keys[0].Expr.(*expr.Column)
	if ok && in.Schema().Columns[c.Index].ProcTime && !keys[0].Desc {
		// Rows come in the order of their processing time.
		if len(keys) > 1 {
			return nil, sqlmini.Errorf(sel.OrderBy[1].Pos, "ORDER BY a processing-time attribute and then other columns is not supported yet: order by the processing-time attribute alone (the rows' arrival order)")
		}
		return in, nil
	}
	if !ok || !in.Schema().Columns[c.Index].TimeAttr || keys[0].Desc {
		return nil, sqlmini.Errorf(sel.OrderBy[0].Pos, "Sort on a non-time-attribute field is not supported: without LIMIT, ORDER BY must start with a time attribute (a WATERMARK or PROCTIME() column) ascending, as in Flink's streaming mode; add LIMIT n for the first n rows")
	}
	return &sqlop.TemporalSortNode{In: in, Time: c.Index, Keys: keys}, nil
}

// readsWatermark reports whether a SELECT calls CURRENT_WATERMARK in its
// list or its WHERE clause.
func readsWatermark(sel *sqlmini.Select) bool {
	found := false
	check := func(node any) {
		if f, ok := node.(*sqlmini.FuncCall); ok && strings.EqualFold(string(f.Name.Value), "CURRENT_WATERMARK") {
			found = true
		}
	}
	for _, it := range sel.Items {
		sqlmini.Inspect(it, check)
	}
	sqlmini.Inspect(sel.Where, check)
	return found
}

// columnExpr is the expression that reads a column by name.
func columnExpr(pos sqlmini.Pos, name string) *sqlmini.Expr {
	return &sqlmini.Expr{Pos: pos, Left: &sqlmini.AndExpr{Pos: pos, Left: &sqlmini.NotExpr{Pos: pos,
		Pred: &sqlmini.Predicate{Pos: pos, Left: &sqlmini.Additive{Pos: pos, Left: &sqlmini.Multiplicative{Pos: pos,
			Left: &sqlmini.Unary{Pos: pos, Primary: &sqlmini.Primary{Pos: pos, Column: &sqlmini.ColumnRef{Pos: pos,
				Parts: []*sqlmini.Name{{Pos: pos, Value: sqlmini.Ident(name)}}}}}}}}}}}
}

// now is the clock of CURRENT_TIMESTAMP and its relatives: SET
// 'ptfsh.processing-time' when it is set, else the wall clock (nil).
func (p *Planner) now() func() int64 {
	if !p.env.HasProcessingTime {
		return nil
	}
	ms, err := textparse.TimeSetting(p.env.ProcessingTime)
	if err != nil {
		return nil // SET refused it already
	}
	return func() int64 { return ms }
}

// seed seeds RAND() ([expr.Scope.Seed]): SET 'ptfsh.seed', else --seed,
// else nil (the clock).
func (p *Planner) seed() *int64 { return p.env.FunctionSeed }

// ExprText prints an expression for EXPLAIN and messages.
func ExprText(e *sqlmini.Expr) string {
	if s, ok := any(e).(fmt.Stringer); ok {
		return s.String()
	}
	return "expr"
}

func (p *Planner) planFrom(f *sqlmini.FromItem) (exec.Node, string, error) {
	if f == nil { // SELECT without FROM: one row of no columns
		return &exec.ValuesNode{Events: []exec.Event{{Kind: exec.EvRow, Row: types.Row{Kind: types.Insert}}}}, "", nil
	}
	var n exec.Node
	var err error
	alias := ""
	switch {
	case f.Call != nil:
		n, err = p.planCall(f.Call)
	case f.Call2 != nil:
		n, err = p.planCall(f.Call2)
	case f.Subquery != nil:
		n, err = p.Query(f.Subquery)
	case len(f.Hints) > 0:
		alias = string(f.Table.Value)
		n, err = p.planHinted(f) // hints.go
	default:
		alias = string(f.Table.Value)
		n, err = p.planTableRef(f.Table)
	}
	if err != nil {
		return nil, "", err
	}
	if f.Match != nil {
		if n, err = p.planMatch(f.Match, n); err != nil {
			return nil, "", err
		}
		alias = "" // the table's name no longer qualifies the columns
	}
	if f.Alias != nil {
		alias = string(f.Alias.Value)
		if len(f.AliasCols) > 0 {
			if n, err = renameColumns(n, f.AliasCols, f.Alias.Pos); err != nil {
				return nil, "", err
			}
		}
	}
	return n, alias, nil
}

// planTableRef resolves a table name: a WITH query, a view or a table.
func (p *Planner) planTableRef(name *sqlmini.Name) (exec.Node, error) {
	nm := string(name.Value)
	if n, ok := p.ctes[nm]; ok {
		return n, nil
	}
	if q, ok := p.cteQueries[nm]; ok {
		return p.Query(q)
	}
	t, ok := p.cat.Table(nm)
	if !ok {
		return nil, sqlmini.Errorf(name.Pos, "Object '%s' not found%s", nm, p.cat.SuggestTable(nm))
	}
	return p.planTable(t, name.Pos)
}

// planTable plans a catalog table referenced at pos.
func (p *Planner) planTable(t *catalog.Table, pos sqlmini.Pos) (exec.Node, error) {
	switch t.Kind {
	case catalog.TableView:
		vp := New(p.cat, p.env)
		vp.uids, vp.shared, vp.Required = p.uids, p.shared, p.Required
		n, err := vp.Query(t.Query)
		if err != nil {
			return nil, fmt.Errorf("view %s: %w", t.Name, err)
		}
		if len(t.ColumnNames) > 0 {
			if len(t.ColumnNames) != n.Schema().Len() {
				// Its query changed under it: a function was replaced or
				// reloaded with another output.
				return nil, sqlmini.Errorf(pos, "view '%s' names %d columns but its query now has %d: %s", t.Name, len(t.ColumnNames), n.Schema().Len(), n.Schema().ColumnList())
			}
			cols := make([]types.Column, n.Schema().Len())
			copy(cols, n.Schema().Columns)
			for i := range cols {
				cols[i].Name = t.ColumnNames[i]
			}
			n = &exec.RenameNode{In: n, Sch: types.Schema{Columns: cols}}
		}
		return n, nil
	}
	c, err := connector.Of(t)
	if err != nil {
		return nil, err
	}
	var n exec.Node
	if len(t.Computed) > 0 {
		n, err = p.planComputed(t, c, pos)
	} else {
		n, err = c.Scan(t, p.env, pos)
	}
	if err != nil || !p.env.Batch {
		return n, err
	}
	return batchScan(t, n, pos) // batch.go
}

// planComputed reads a table with computed columns: its connector reads
// the other columns, and a ComputedNode computes the rest in the declared
// order, with the table's WATERMARK when it is on a computed column —
// unless the connector assigns it itself (connector.WatermarkPushDown),
// from the column's expression over the row it reads.
func (p *Planner) planComputed(t *catalog.Table, c connector.Factory, pos sqlmini.Pos) (exec.Node, error) {
	st := t.ScanTable()
	n := &exec.ComputedNode{Sch: t.Schema, Exprs: make([]expr.Expr, t.Schema.Len()), ProcTime: make([]bool, t.Schema.Len()),
		Texts: make([]string, t.Schema.Len()), Every: p.env.WatermarkEvery}
	computed := map[int]*sqlmini.Expr{}
	for _, cc := range t.Computed {
		computed[cc.Index] = cc.Expr
	}
	sc := p.scope(st.Schema, nil)
	k := 0
	for i, col := range t.Schema.Columns {
		e, ok := computed[i]
		switch {
		case !ok:
			n.Exprs[i] = &expr.Column{Index: k, T: col.Type}
			n.Texts[i] = col.Name
			k++
		case col.ProcTime:
			n.ProcTime[i], n.Texts[i] = true, "PROCTIME() AS "+col.Name
		default:
			x, err := expr.Compile(e, sc)
			if err != nil {
				return nil, err // positioned in the expression
			}
			n.Exprs[i], n.Texts[i] = x, ExprText(e)+" AS "+col.Name
		}
	}
	if w := t.Watermark; w != nil && st.Watermark == nil {
		if pd, ok := c.(connector.WatermarkPushDown); ok && pd.PushesWatermark() && !n.ProcTime[w.Column] {
			st.Watermark = &exec.WatermarkSpec{Column: -1, Delay: w.Delay, Expr: w.Expr, On: n.Exprs[w.Column]}
			n.Pushed = w
		} else {
			n.Wm = w
		}
	}
	in, err := c.Scan(st, p.env, pos)
	if err != nil {
		return nil, err
	}
	n.In = in
	return n, nil
}
