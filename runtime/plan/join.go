package plan

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Joins, as Flink's streaming planner plans them. A FROM clause with joins
// is planned left to right: each join takes the tables before it as its
// left input. Its condition's equalities between a column (or expression)
// of each side are the join key; the rest filters the pairs. Time bounds
// between the time attributes of both sides make an interval join
// (join_interval.go), FOR SYSTEM_TIME AS OF a temporal join
// (join_temporal.go); any other join is a regular join ([sqlop.JoinNode]).
// The tables after commas (FROM a, b) take their condition from WHERE:
// each conjunct of WHERE goes to the first join whose tables it reads.

// joinScope is what the FROM clause has planned so far: the node and the
// tables whose columns it carries.
type joinScope struct {
	node   exec.Node
	tables []expr.ScopeTable
	// merged and star are the USING columns and what * selects (nil:
	// every column), see [expr.Scope].
	merged []expr.MergedColumn
	star   []int
}

func (p *Planner) scope(sch types.Schema, tables []expr.ScopeTable) *expr.Scope {
	return &expr.Scope{Schema: sch, Tables: tables, Now: p.now(), Zone: p.env.Zone, Seed: p.seed(), UserFunction: p.userFunction}
}

// joinedScope is the scope of what js has planned.
func (p *Planner) joinedScope(js *joinScope) *expr.Scope {
	sc := p.scope(js.node.Schema(), js.tables)
	sc.Merged, sc.Star = js.merged, js.star
	return sc
}

// joined makes node (js's columns then width.. those of a right input of
// n columns) what js has planned.
func (js *joinScope) joined(node exec.Node, tables []expr.ScopeTable, width, n int) {
	if js.star != nil {
		for i := 0; i < n; i++ {
			js.star = append(js.star, width+i)
		}
	}
	js.node, js.tables = node, tables
}

// planJoins plans a FROM clause with joins. It returns the joined node, the
// scope its columns resolve in, and what is left of WHERE (the conjuncts
// that no comma join took), nil when nothing is.
func (p *Planner) planJoins(sel *sqlmini.Select) (exec.Node, *expr.Scope, *sqlmini.Expr, error) {
	left, alias, err := p.planFrom(sel.From)
	if err != nil {
		return nil, nil, nil, err
	}
	js := joinScope{node: left, tables: []expr.ScopeTable{{Name: alias, Cols: left.Schema().Names()}}}
	var pending []*sqlmini.NotExpr // WHERE's conjuncts for the comma joins
	split := false
	for _, j := range sel.Joins {
		if j.Comma && sel.Where != nil && !split {
			pending, split = conjuncts(sel.Where), true
		}
	}
	for _, j := range sel.Joins {
		if pending, err = p.planJoin(&js, j, pending); err != nil {
			return nil, nil, nil, err
		}
	}
	where := sel.Where
	if split {
		where = andOf(pending) // nil when the joins took every conjunct
	}
	return js.node, p.joinedScope(&js), where, nil
}

// planJoin joins js with one more table. pending are WHERE's conjuncts
// not yet taken; a comma join takes those it can read. It returns the ones
// left.
func (p *Planner) planJoin(js *joinScope, j *sqlmini.Join, pending []*sqlmini.NotExpr) ([]*sqlmini.NotExpr, error) {
	if j.Item.Lateral {
		return p.planLateral(js, j, pending) // lateral.go
	}
	if isUnnest(j.Item) {
		return p.planUnnest(js, j, pending)
	}
	if len(j.Using) > 0 && j.Item.AsOf != nil {
		return nil, sqlmini.Errorf(j.Using[0].Pos, "a temporal join takes ON, not USING: write ON %s", usingText(js, j))
	}
	right, ralias, err := p.planFrom(j.Item)
	if err != nil {
		return nil, err
	}
	natural := j.Natural
	if natural {
		if j, err = p.natural(js, j, right); err != nil {
			return nil, err
		}
	}
	for _, t := range js.tables {
		if ralias != "" && strings.EqualFold(t.Name, ralias) {
			return nil, sqlmini.Errorf(j.Item.Pos, "Duplicate relation name '%s' in FROM clause; give one of them an alias: %s AS %s2", ralias, ralias, ralias)
		}
	}
	kind := sqlop.InnerJoin
	switch strings.ToUpper(j.Kind) {
	case "LEFT":
		kind = sqlop.LeftJoin
	case "RIGHT":
		kind = sqlop.RightJoin
	case "FULL":
		kind = sqlop.FullJoin
	}
	if !j.Comma && j.On == nil && len(j.Using) == 0 && strings.ToUpper(j.Kind) != "CROSS" {
		return nil, sqlmini.Errorf(j.Pos, "%sJOIN needs a condition: add ON <condition> (or write CROSS JOIN)", kindWord(j.Kind))
	}
	if strings.ToUpper(j.Kind) == "CROSS" && j.On != nil {
		return nil, sqlmini.Errorf(j.On.Pos, "CROSS JOIN takes no ON condition: write JOIN ... ON")
	}
	width := js.node.Schema().Len()
	tables := append(append([]expr.ScopeTable(nil), js.tables...), expr.ScopeTable{Name: ralias, Cols: right.Schema().Names(), Start: width})
	cols := append(append([]types.Column(nil), js.node.Schema().Columns...), right.Schema().Columns...)
	for i, u := range uniqueNames(names2(cols)) {
		cols[i].Name = u
	}
	sch := types.Schema{Columns: cols}
	full := p.scope(sch, tables)
	full.Merged = js.merged

	var conds []*sqlmini.NotExpr
	switch {
	case j.On != nil:
		conds = conjuncts(j.On)
	case j.Comma:
		var rest []*sqlmini.NotExpr
		for _, c := range pending {
			if _, err := expr.Compile(andOf([]*sqlmini.NotExpr{c}), full); err == nil {
				conds = append(conds, c)
			} else {
				rest = append(rest, c)
			}
		}
		pending = rest
	}
	left := js.node
	if left, err = retracting(left, j.Pos); err != nil {
		return nil, err
	}
	if j.Item.AsOf == nil {
		if right, err = retracting(right, j.Item.Pos); err != nil {
			return nil, err
		}
	}
	lsc := p.joinedScope(js)
	if natural {
		// The join's own keys read the columns an earlier NATURAL JOIN
		// merged, as its * shows them.
		lsc.Merged = unmasked(lsc.Merged)
	}
	rsc := p.scope(right.Schema(), []expr.ScopeTable{{Name: ralias, Cols: right.Schema().Names()}})
	n := &sqlop.JoinNode{Left: left, Right: right, Kind: kind}
	var rest []*sqlmini.NotExpr
	var keyTexts []string
	var keyConds []*sqlmini.NotExpr
	for _, c := range conds {
		lk, rk, ok, err := equiKey(c, lsc, rsc)
		if err != nil {
			return nil, err
		}
		if ok && j.Item.AsOf == nil && isTimeEquality(c, lsc, rsc) {
			ok = false // a bound of an interval join (or a plain predicate)
		}
		x, err := expr.Compile(andOf([]*sqlmini.NotExpr{c}), full)
		if err != nil {
			return nil, err
		}
		if k := x.Type().Kind; k != types.KindBoolean && k != types.KindNull {
			return nil, sqlmini.Errorf(c.Pos, "the join condition must be BOOLEAN, not %s", x.Type())
		}
		if !ok {
			rest = append(rest, c)
			continue
		}
		n.LeftKeys = append(n.LeftKeys, lk)
		n.RightKeys = append(n.RightKeys, rk)
		keyTexts = append(keyTexts, c.String())
		keyConds = append(keyConds, c)
	}
	using, err := usingKeys(j, n, lsc, rsc, sch, width)
	if err != nil {
		return nil, err
	}
	for _, u := range using {
		keyTexts = append(keyTexts, sch.Columns[u.li].Name+" = "+sch.Columns[width+u.ri].Name)
	}
	where := keyTexts
	if len(rest) > 0 {
		n.Cond, err = expr.Compile(andOf(rest), full)
		if err != nil {
			return nil, err
		}
		for _, c := range rest {
			where = append(where, c.String())
		}
	}
	if j.Item.AsOf != nil {
		if lj, err := p.lookupJoin(j, kind, n, lsc, rsc, full, conds, sch); lj != nil || err != nil {
			if err != nil {
				return nil, err
			}
			js.joined(lj, tables, width, right.Schema().Len())
			return pending, nil
		}
		t, err := p.temporalJoin(j, kind, n, lsc, rsc, keyConds, sch, where)
		if err != nil {
			return nil, err
		}
		js.joined(t, tables, width, right.Schema().Len())
		return pending, nil
	}
	if windowJoin(left, right, n) {
		return nil, sqlmini.Errorf(j.Pos, "a window join (the windows of two window table functions joined on window_start and window_end) is not supported by ptfsh; join the rows with an interval join (ON ... AND l.ts BETWEEN r.ts - INTERVAL ... AND r.ts + INTERVAL ...), or join on window_start alone for a regular join (which joins late rows too)")
	}
	// Over an updating input the time bounds are plain predicates of a
	// regular join, as in Flink.
	insertOnly := left.Changelog().IsInsertOnly() && right.Changelog().IsInsertOnly()
	if b, ok := intervalBounds(rest, lsc, rsc); ok && insertOnly {
		in := &sqlop.IntervalJoinNode{Left: left, Right: right, Kind: kind, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, Cond: n.Cond,
			LeftTime: b.leftCol, RightTime: b.rightCol, Lower: b.lower, Upper: b.upper, Sch: sch}
		in.Text = "IntervalJoin(joinType=[" + kind.String() + "], windowBounds=[isRowTime=true, leftLowerBound=" + itoa64(b.lower) +
			", leftUpperBound=" + itoa64(b.upper) + ", leftTimeIndex=" + itoa(b.leftCol) + ", rightTimeIndex=" + itoa(b.rightCol) +
			"], where=[" + strings.Join(where, " AND ") + "], select=[" + strings.Join(sch.Names(), ", ") + "])"
		js.joined(in, tables, width, right.Schema().Len())
		return pending, nil
	}
	// A regular join's output has no time attribute: Flink materializes
	// them (its rows leave in no time order).
	out := make([]types.Column, len(sch.Columns))
	for i, c := range sch.Columns {
		c.TimeAttr = false
		out[i] = c
	}
	n.Sch = types.Schema{Columns: out}
	n.Text = sqlop.JoinText(kind.String(), strings.Join(where, " AND "), n.Sch)
	if p.env.Batch && insertOnly {
		// Flink's batch HashJoin: final rows, no state (batch.go).
		n.Hash = true
		build := "right"
		if kind == sqlop.RightJoin {
			build = "left"
		}
		n.Text = "HashJoin(joinType=[" + kind.String() + "], where=[" + strings.Join(where, " AND ") + "], select=[" + strings.Join(n.Sch.Names(), ", ") + "], build=[" + build + "])"
	}
	if len(using) > 0 {
		mergeUsing(js, n, tables, using, natural, width, right.Schema().Len())
		return pending, nil
	}
	js.joined(n, tables, width, right.Schema().Len())
	return pending, nil
}

// natural returns NATURAL JOIN j as the join USING the columns of right
// whose names the tables joined so far have, in their order there (as
// Calcite orders them); with none it is a cross join, or an outer join ON
// TRUE (as in Flink).
func (p *Planner) natural(js *joinScope, j *sqlmini.Join, right exec.Node) (*sqlmini.Join, error) {
	switch {
	case strings.EqualFold(j.Kind, "CROSS"):
		return nil, sqlmini.Errorf(j.Pos, "Cannot specify condition (NATURAL keyword, or ON or USING clause) following CROSS JOIN")
	case j.On != nil || len(j.Using) > 0:
		return nil, sqlmini.Errorf(j.Pos, "Cannot specify NATURAL keyword with ON or USING clause: write NATURAL JOIN t, or JOIN t ON/USING")
	}
	lsc := p.joinedScope(js)
	lsc.Merged = unmasked(lsc.Merged)
	type common struct {
		name string
		at   int
	}
	var both []common
	for _, name := range right.Schema().Names() {
		ref := &sqlmini.ColumnRef{Pos: j.Pos, Parts: []*sqlmini.Name{{Pos: j.Pos, Value: sqlmini.Ident(name)}}}
		if !lsc.Has(name) {
			continue
		}
		at, err := lsc.Lookup(ref)
		if err != nil {
			return nil, err // a name of several left tables: ambiguous
		}
		both = append(both, common{name, at})
	}
	slices.SortFunc(both, func(a, b common) int { return a.at - b.at })
	n := *j
	n.Natural = false
	if len(both) == 0 {
		if k := strings.ToUpper(j.Kind); k != "" && k != "INNER" {
			// An outer join of every pair: ON TRUE.
			on, err := sqlmini.ParseExpr("TRUE")
			if err != nil {
				return nil, err
			}
			n.On = on
			return &n, nil
		}
		n.Kind = "CROSS"
	}
	for _, c := range both {
		n.Using = append(n.Using, &sqlmini.Name{Pos: j.Pos, Value: sqlmini.Ident(c.name)})
	}
	return &n, nil
}

// unmasked is merged with every column readable by its name: a NATURAL
// JOIN's too.
func unmasked(merged []expr.MergedColumn) []expr.MergedColumn {
	out := slices.Clone(merged)
	for i := range out {
		out[i].Natural = false
	}
	return out
}

// usingCol is a column of a USING list: its index on each side and the
// type both are compared as.
type usingCol struct {
	name   string
	li, ri int
	t      types.Type
}

// usingKeys adds the keys of j's USING list to n: each column, found once
// on each side, equals its namesake.
func usingKeys(j *sqlmini.Join, n *sqlop.JoinNode, lsc, rsc *expr.Scope, sch types.Schema, width int) ([]usingCol, error) {
	var out []usingCol
	for _, u := range j.Using {
		ref := &sqlmini.ColumnRef{Pos: u.Pos, Parts: []*sqlmini.Name{u}}
		li, err := lsc.Lookup(ref)
		if err != nil {
			return nil, err
		}
		ri, err := rsc.Lookup(ref)
		if err != nil {
			return nil, err
		}
		lt, rt := sch.Columns[li].Type, sch.Columns[width+ri].Type
		if !expr.Comparable(lt, rt) {
			return nil, sqlmini.Errorf(u.Pos, "implicit type conversion between %s and %s is not supported on join's condition now; CAST one side to the other's type", flinkTypeName(lt), flinkTypeName(rt))
		}
		t := expr.LeastRestrictive([]types.Type{lt, rt})
		n.LeftKeys = append(n.LeftKeys, expr.CastTo(&expr.Column{Index: li, T: lt}, t))
		n.RightKeys = append(n.RightKeys, expr.CastTo(&expr.Column{Index: ri, T: rt}, t))
		out = append(out, usingCol{name: string(u.Value), li: li, ri: ri, t: t})
	}
	return out, nil
}

// mergeUsing puts the USING columns in front of the join's row, as Calcite
// does: * shows each once (COALESCE of both sides in an outer join), then
// the other columns of the left and of the right; an unqualified name of
// one reads the merged column, a qualified one its side's.
func mergeUsing(js *joinScope, n *sqlop.JoinNode, tables []expr.ScopeTable, using []usingCol, natural bool, width, rn int) {
	m := len(using)
	var exprs []expr.Expr
	var cols []types.Column
	var texts []string
	hiddenL, hiddenR := map[int]bool{}, map[int]bool{}
	for _, u := range using {
		l := expr.CastTo(&expr.Column{Index: u.li, T: n.Sch.Columns[u.li].Type}, u.t)
		x, text := l, n.Sch.Columns[u.li].Name
		if n.Kind != sqlop.InnerJoin {
			r := expr.CastTo(&expr.Column{Index: width + u.ri, T: n.Sch.Columns[width+u.ri].Type}, u.t)
			t := u.t
			t.NotNull = l.Type().NotNull || r.Type().NotNull
			x = &coalesceExpr{a: l, b: r, t: t}
			text = "COALESCE(" + text + ", " + n.Sch.Columns[width+u.ri].Name + ")"
		}
		exprs = append(exprs, x)
		cols = append(cols, types.Column{Name: u.name, Type: x.Type()})
		texts = append(texts, text+" AS "+u.name)
		hiddenL[u.li], hiddenR[u.ri] = true, true
	}
	for i, c := range n.Sch.Columns {
		exprs = append(exprs, &expr.Column{Index: i, T: c.Type})
		cols = append(cols, c)
		texts = append(texts, c.Name)
	}
	for i, u := range uniqueNames(names2(cols)) {
		cols[i].Name = u
	}
	star := make([]int, 0, len(cols))
	for i := 0; i < m; i++ {
		star = append(star, i)
	}
	left := js.star
	if left == nil {
		for i := 0; i < width; i++ {
			left = append(left, i)
		}
	}
	for _, i := range left {
		if !hiddenL[i] {
			star = append(star, m+i)
		}
	}
	for i := 0; i < rn; i++ {
		if !hiddenR[i] {
			star = append(star, m+width+i)
		}
	}
	merged := make([]expr.MergedColumn, 0, m+len(js.merged))
	for i, u := range using {
		merged = append(merged, expr.MergedColumn{Name: u.name, Index: i, Natural: natural})
	}
	for _, mc := range js.merged {
		merged = append(merged, expr.MergedColumn{Name: mc.Name, Index: mc.Index + m, Natural: mc.Natural})
	}
	for i := range tables {
		tables[i].Start += m
	}
	js.node = &exec.ProjectNode{In: n, Exprs: exprs, Sch: types.Schema{Columns: cols}, Texts: texts}
	js.tables, js.merged, js.star = tables, merged, star
}

// coalesceExpr is COALESCE(a, b): a unless it is NULL.
type coalesceExpr struct {
	a, b expr.Expr
	t    types.Type
}

func (c *coalesceExpr) Eval(row []any) (any, error) {
	v, err := c.a.Eval(row)
	if err != nil || v != nil {
		return v, err
	}
	return c.b.Eval(row)
}

func (c *coalesceExpr) Type() types.Type { return c.t }

func (c *coalesceExpr) IsConstant() bool { return false }

// retracting turns an upsert input into retractions with full deletes (as
// Flink's ChangelogNormalize does), which the join needs to retract the
// rows it joined.
func retracting(in exec.Node, pos sqlmini.Pos) (exec.Node, error) {
	m := in.Changelog()
	if !m.KeyOnlyDeletes && !(m.Contains(types.UpdateAfter) && !m.Contains(types.UpdateBefore)) {
		return in, nil
	}
	if len(exec.UpsertKeyOf(in)) == 0 {
		return nil, sqlmini.Errorf(pos, "a join over an upsert input (%s) needs its upsert key: declare a PRIMARY KEY on the table", m)
	}
	return DeliverUpdates(in, ptf.RequireUpdateBefore|ptf.RequireFullDelete, nil), nil
}

// equiKey reports whether a conjunct is an equality between an expression
// of the left side and one of the right (either way round), and compiles
// both, cast to a common type.
func equiKey(c *sqlmini.NotExpr, lsc, rsc *expr.Scope) (expr.Expr, expr.Expr, bool, error) {
	if c.Not != nil || c.Pred == nil || c.Pred.Op != "=" || c.Pred.Right == nil {
		return nil, nil, false, nil
	}
	a, b := additiveExpr(c.Pred.Left), additiveExpr(c.Pred.Right)
	side := func(e *sqlmini.Expr, sc *expr.Scope) expr.Expr {
		x, err := expr.Compile(e, sc)
		if err != nil || x.IsConstant() {
			return nil
		}
		return x
	}
	l, r := side(a, lsc), side(b, rsc)
	if l == nil || r == nil {
		l, r = side(b, lsc), side(a, rsc)
	}
	if l == nil || r == nil {
		return nil, nil, false, nil
	}
	if !expr.Comparable(l.Type(), r.Type()) {
		return nil, nil, false, sqlmini.Errorf(c.Pos, "implicit type conversion between %s and %s is not supported on join's condition now; CAST one side to the other's type", flinkTypeName(l.Type()), flinkTypeName(r.Type()))
	}
	t := expr.LeastRestrictive([]types.Type{l.Type(), r.Type()})
	return expr.CastTo(l, t), expr.CastTo(r, t), true, nil
}

// conjuncts splits a condition at its top-level ANDs. A condition with OR
// at its top is one conjunct.
func conjuncts(e *sqlmini.Expr) []*sqlmini.NotExpr {
	if len(e.Right) == 0 {
		return append([]*sqlmini.NotExpr{e.Left.Left}, e.Left.Right...)
	}
	return []*sqlmini.NotExpr{{Pos: e.Pos, Pred: &sqlmini.Predicate{Pos: e.Pos, Left: &sqlmini.Additive{Pos: e.Pos,
		Left: &sqlmini.Multiplicative{Pos: e.Pos, Left: &sqlmini.Unary{Pos: e.Pos, Primary: &sqlmini.Primary{Pos: e.Pos, Paren: e}}}}}}}
}

// andOf is the conjunction of conjuncts.
func andOf(cs []*sqlmini.NotExpr) *sqlmini.Expr {
	if len(cs) == 0 {
		return nil
	}
	return &sqlmini.Expr{Pos: cs[0].Pos, Left: &sqlmini.AndExpr{Pos: cs[0].Pos, Left: cs[0], Right: cs[1:]}}
}

// additiveExpr wraps an operand of a comparison as an expression.
func additiveExpr(a *sqlmini.Additive) *sqlmini.Expr {
	return &sqlmini.Expr{Pos: a.Pos, Left: &sqlmini.AndExpr{Pos: a.Pos, Left: &sqlmini.NotExpr{Pos: a.Pos, Pred: &sqlmini.Predicate{Pos: a.Pos, Left: a}}}}
}

func kindWord(k string) string {
	if k == "" {
		return ""
	}
	return strings.ToUpper(k) + " "
}

// usingText is the ON condition that a USING list stands for.
func usingText(js *joinScope, j *sqlmini.Join) string {
	l := js.tables[len(js.tables)-1].Name
	r := ""
	if j.Item.Alias != nil {
		r = string(j.Item.Alias.Value)
	} else if j.Item.Table != nil {
		r = string(j.Item.Table.Value)
	}
	var parts []string
	for _, u := range j.Using {
		parts = append(parts, l+"."+string(u.Value)+" = "+r+"."+string(u.Value))
	}
	return strings.Join(parts, " AND ")
}

// starColumns returns the columns of t.* in a join's scope.
func starColumns(it *sqlmini.SelectItem, sc *expr.Scope) ([]int, error) {
	t := sc.Table(string(it.StarOf.Value))
	if t == nil {
		if len(sc.Tables) == 0 && sc.Alias != "" && strings.EqualFold(sc.Alias, string(it.StarOf.Value)) {
			cols := make([]int, sc.Schema.Len())
			for i := range cols {
				cols[i] = i
			}
			return cols, nil
		}
		return nil, sqlmini.Errorf(it.StarOf.Pos, "Unknown identifier '%s'", it.StarOf.Value)
	}
	cols := make([]int, len(t.Cols))
	for i := range cols {
		cols[i] = t.Start + i
	}
	return cols, nil
}

// flinkTypeName is a type as Flink's join messages print it: STRING is
// VARCHAR(2147483647).
func flinkTypeName(t types.Type) string {
	switch s := t.String(); s {
	case "STRING":
		return "VARCHAR(2147483647)"
	case "INT":
		return "INTEGER"
	default:
		return s
	}
}

func itoa64(i int64) string { return strconv.FormatInt(i, 10) }

// columnRefExpr is the expression that reads column i of a scope: by its
// name, qualified by its table in a join's scope (k0 is no name there).
func columnRefExpr(pos sqlmini.Pos, sc *expr.Scope, i int) *sqlmini.Expr {
	e := columnExpr(pos, sc.Schema.Columns[i].Name)
	for _, m := range sc.Merged {
		if m.Index == i {
			return columnExpr(pos, m.Name)
		}
	}
	for _, t := range sc.Tables {
		if i >= t.Start && i < t.Start+len(t.Cols) && t.Name != "" {
			ref := e.Left.Left.Pred.Left.Left.Left.Primary.Column
			ref.Parts = []*sqlmini.Name{{Pos: pos, Value: sqlmini.Ident(t.Name)}, {Pos: pos, Value: sqlmini.Ident(t.Cols[i-t.Start])}}
		}
	}
	return e
}

// windowJoin says whether join n equates window_start and window_end of
// window table functions (or window aggregations) on both sides: Flink
// plans that as a window join, which joins each window's rows once the
// watermark passes its end and drops late rows. ptfsh refuses it rather
// than run it as a regular join, which would join late rows and update.
func windowJoin(left, right exec.Node, n *sqlop.JoinNode) bool {
	lb, lok := findWindowBounds(left)
	rb, rok := findWindowBounds(right)
	if !lok || !rok {
		return false
	}
	var start, end bool
	for i := range n.LeftKeys {
		l, lok := n.LeftKeys[i].(*expr.Column)
		r, rok := n.RightKeys[i].(*expr.Column)
		if !lok || !rok {
			continue
		}
		start = start || l.Index == lb.start && r.Index == rb.start
		end = end || l.Index == lb.end && r.Index == rb.end
	}
	return start && end
}
