package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// LATERAL subqueries: FROM t, LATERAL (SELECT ... FROM s WHERE s.k = t.k
// ORDER BY ... LIMIT n), as Flink's planner decorrelates them: the
// equalities of the subquery's WHERE that read the tables before it
// become the keys of a regular join of those tables with the subquery
// run once for every key (its other conditions, its GROUP BY extended by
// the key), and an ORDER BY ... LIMIT n becomes a Top-N partitioned by
// the key. The join is INNER (a comma, CROSS JOIN, or JOIN ... ON) or
// LEFT (LEFT JOIN LATERAL (...) ON cond); its columns are the left's then
// the subquery's, the keys kept out of sight. Flink 2.3 decorrelates an
// ORDER BY ... LIMIT only in some shapes (the cookbook's, over a GROUP BY
// view) and fails others with "unexpected correlate variable"; ptfsh
// plans them all so.

// lateralHidden starts the names of the columns the rewrite adds to the
// subquery; no SELECT list can name them, and * leaves them out.
const lateralHidden = "$lateral$"

// planLateral joins js with the LATERAL subquery of j.
func (p *Planner) planLateral(js *joinScope, j *sqlmini.Join, pending []*sqlmini.NotExpr) ([]*sqlmini.NotExpr, error) {
	item := j.Item
	if item.Subquery == nil {
		if isUnnest(item) {
			lj := *j
			it := *item
			it.Lateral = false
			lj.Item = &it
			return p.planUnnest(js, &lj, pending)
		}
		what := "a table"
		if item.Call != nil || item.Call2 != nil {
			what = "a table function call"
		}
		return nil, sqlmini.Errorf(item.Pos, "LATERAL takes a subquery here, not %s: ptfsh has no table functions (UDTFs); expand an array with CROSS JOIN UNNEST(t.col), or call a PTF", what)
	}
	kind := strings.ToUpper(j.Kind)
	switch {
	case j.Natural || len(j.Using) > 0:
		return nil, sqlmini.Errorf(j.Pos, "a LATERAL subquery joins ON a condition (or with a comma or CROSS JOIN), not NATURAL or USING")
	case kind == "RIGHT" || kind == "FULL":
		return nil, sqlmini.Errorf(j.Pos, "%s JOIN LATERAL is not supported, as in Flink: join with a comma, CROSS JOIN, JOIN ... ON or LEFT JOIN ... ON", kind)
	case item.AsOf != nil || item.Match != nil:
		return nil, sqlmini.Errorf(item.Pos, "a LATERAL subquery is read as it is: no FOR SYSTEM_TIME AS OF or MATCH_RECOGNIZE")
	}
	q := item.Subquery
	if len(q.With) > 0 || len(q.Ops) > 0 || q.Body.Select == nil {
		return nil, sqlmini.Errorf(q.Pos, "a LATERAL subquery is one SELECT here: no WITH, UNION, INTERSECT, EXCEPT or VALUES")
	}
	sel := q.Body.Select
	if sel.From == nil || len(sel.Joins) > 0 || sel.From.Lateral {
		return nil, sqlmini.Errorf(sel.Pos, "a LATERAL subquery reads one table here (FROM t WHERE t.k = outer.k ...), not a join")
	}
	if sel.Offset != nil {
		return nil, sqlmini.Errorf(sel.Pos, "OFFSET in a LATERAL subquery is not supported: use ORDER BY ... LIMIT n")
	}
	inner, ialias, err := p.planFrom(sel.From)
	if err != nil {
		return nil, err
	}
	isc := p.scope(inner.Schema(), []expr.ScopeTable{{Name: ialias, Cols: inner.Schema().Names()}})
	lsc := p.joinedScope(js)

	// The WHERE: conditions of the subquery's own table stay; equalities
	// with the tables before it become the join's keys.
	s1 := *sel
	s1.Where, s1.OrderBy, s1.Limit, s1.Fetch = nil, nil, nil, nil
	s1.Items = append([]*sqlmini.SelectItem(nil), sel.Items...)
	var local []*sqlmini.NotExpr
	var on []*sqlmini.NotExpr
	if j.On != nil {
		on = conjuncts(j.On)
	}
	if sel.Where != nil {
		for _, c := range conjuncts(sel.Where) {
			if _, err := expr.Compile(andOf([]*sqlmini.NotExpr{c}), isc); err == nil {
				local = append(local, c)
				continue
			}
			in, outSide, ok := correlatedKey(c, isc, lsc)
			if !ok {
				return nil, sqlmini.Errorf(c.Pos, "a LATERAL subquery may read the tables before it only in equalities of its WHERE (inner column = outer column), not in %s", ExprText(andOf([]*sqlmini.NotExpr{c})))
			}
			name := lateralHidden + "key" + strconv.Itoa(len(on))
			s1.Items = append(s1.Items, &sqlmini.SelectItem{Pos: c.Pos, Expr: in, Alias: &sqlmini.Name{Pos: c.Pos, Value: sqlmini.Ident(name)}})
			if len(s1.GroupBy) > 0 || hasAggregate(sel) {
				s1.GroupBy = append(s1.GroupBy, in)
			}
			on = append(on, &sqlmini.NotExpr{Pos: c.Pos, Pred: &sqlmini.Predicate{Pos: c.Pos, Left: outSide, Op: "=",
				Right: columnExpr(c.Pos, name).Left.Left.Pred.Left}})
		}
	}
	s1.Where = andOf(local)
	if len(item.AliasCols) > 0 {
		if len(item.AliasCols) != len(sel.Items) {
			return nil, sqlmini.Errorf(item.AliasCols[0].Pos, "List of column aliases must have same degree as table; the subquery has %d columns, the list %d", len(sel.Items), len(item.AliasCols))
		}
		for i, it := range sel.Items {
			if it.Star || it.StarOf != nil {
				return nil, sqlmini.Errorf(it.Pos, "a LATERAL subquery with a column list (AS t(a, b)) selects its columns by name, not *")
			}
			c := *it
			c.Alias = item.AliasCols[i]
			s1.Items[i] = &c
		}
	}
	body := &sqlmini.Query{Pos: q.Pos, Body: &sqlmini.SetExpr{Pos: q.Pos, Select: &s1}}
	limit := sel.Limit
	if limit == nil {
		limit = sel.Fetch
	}
	if limit != nil {
		if len(sel.OrderBy) == 0 {
			return nil, sqlmini.Errorf(sel.Pos, "LIMIT in a LATERAL subquery needs ORDER BY: the rows it keeps for each key are the first in that order")
		}
		if body, err = p.lateralTopN(sel, &s1, body, *limit); err != nil {
			return nil, err
		}
	}
	alias := item.Alias
	if alias == nil {
		alias = &sqlmini.Name{Pos: item.Pos, Value: sqlmini.Ident(lateralHidden + "t" + strconv.Itoa(len(js.tables)))}
	}
	jk := "INNER"
	if kind == "LEFT" {
		jk = "LEFT"
	}
	lj := &sqlmini.Join{Pos: j.Pos, Kind: jk, Item: &sqlmini.FromItem{Pos: item.Pos, Subquery: body, Alias: alias}, On: andOf(on)}
	if lj.On == nil && jk == "INNER" {
		lj.Kind = "CROSS"
	}
	width := js.node.Schema().Len()
	star := js.star
	if star == nil {
		for i := 0; i < width; i++ {
			star = append(star, i)
		}
	}
	if pending, err = p.planJoin(js, lj, pending); err != nil {
		return nil, err
	}
	// * shows the subquery's own columns, not the keys or the row number.
	cols := js.node.Schema().Columns
	for i := width; i < len(cols); i++ {
		if !strings.HasPrefix(cols[i].Name, lateralHidden) {
			star = append(star, i)
		}
	}
	js.star = star
	return pending, nil
}

// lateralTopN wraps body (the subquery without its ORDER BY and LIMIT,
// and with its key columns) into the Top-N of each key: the rows whose
// ROW_NUMBER, partitioned by the keys and ordered by sel's ORDER BY, is
// at most limit. An ORDER BY expression that is not a column of body is
// added to it.
func (p *Planner) lateralTopN(sel, s1 *sqlmini.Select, body *sqlmini.Query, limit string) (*sqlmini.Query, error) {
	var part []string
	for _, it := range s1.Items {
		if it.Alias != nil && strings.HasPrefix(string(it.Alias.Value), lateralHidden+"key") {
			part = append(part, "`"+string(it.Alias.Value)+"`")
		}
	}
	var keys []string
	for i, o := range sel.OrderBy {
		name := ""
		for _, it := range sel.Items {
			if it.Expr == nil {
				continue
			}
			if it.Alias != nil && ExprText(o.Expr) == string(it.Alias.Value) || it.Alias == nil && ExprText(o.Expr) == ExprText(it.Expr) {
				name = ExprText(o.Expr)
				if i := strings.LastIndexByte(name, '.'); i >= 0 {
					name = name[i+1:]
				}
			}
		}
		if name == "" {
			name = lateralHidden + "order" + strconv.Itoa(i)
			s1.Items = append(s1.Items, &sqlmini.SelectItem{Pos: o.Pos, Expr: o.Expr, Alias: &sqlmini.Name{Pos: o.Pos, Value: sqlmini.Ident(name)}})
		}
		k := "`" + strings.ReplaceAll(name, "`", "``") + "`"
		if o.Direction != "" {
			k += " " + o.Direction
		}
		if o.Nulls != "" {
			k += " NULLS " + o.Nulls
		}
		keys = append(keys, k)
	}
	over := "ORDER BY " + strings.Join(keys, ", ")
	if len(part) > 0 {
		over = "PARTITION BY " + strings.Join(part, ", ") + " " + over
	}
	// The Top-N selects the columns without the row number, so that it
	// does not emit a row whose rank moved (as Flink's, which does not
	// output the number).
	n, err := p.Query(body)
	if err != nil {
		return nil, err
	}
	var cols []string
	for _, c := range n.Schema().Names() {
		cols = append(cols, "`"+strings.ReplaceAll(c, "`", "``")+"`")
	}
	rn := "`" + lateralHidden + "rn`"
	src := fmt.Sprintf("SELECT %s FROM (SELECT *, ROW_NUMBER() OVER (%s) AS %s FROM (VALUES (1))) WHERE %s <= %s", strings.Join(cols, ", "), over, rn, rn, limit)
	st, err := sqlmini.ParseStatement("", src)
	if err != nil {
		return nil, fmt.Errorf("LATERAL: rewriting the subquery's ORDER BY ... LIMIT: %w", err)
	}
	q := st.Query
	if q == nil {
		return nil, fmt.Errorf("LATERAL: rewriting the subquery's ORDER BY ... LIMIT: not a query")
	}
	q.Body.Select.From.Subquery.Body.Select.From.Subquery = body
	return q, nil
}

// correlatedKey reads c, a condition of a LATERAL subquery's WHERE that
// reads a table before it, as a key: an equality of an expression of the
// subquery's table (in) and one of the tables before it (out, the side
// as written).
func correlatedKey(c *sqlmini.NotExpr, isc, lsc *expr.Scope) (in *sqlmini.Expr, out *sqlmini.Additive, ok bool) {
	if c.Not != nil || c.Pred == nil || c.Pred.Op != "=" || c.Pred.Right == nil {
		return nil, nil, false
	}
	for _, pair := range [][2]*sqlmini.Additive{{c.Pred.Left, c.Pred.Right}, {c.Pred.Right, c.Pred.Left}} {
		a, b := additiveExpr(pair[0]), additiveExpr(pair[1])
		if _, err := expr.Compile(a, isc); err != nil {
			continue
		}
		if _, err := expr.Compile(b, lsc); err != nil {
			continue
		}
		return a, pair[1], true
	}
	return nil, nil, false
}
