package plan

import (
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// GROUP BY: Flink's GroupAggregate in streaming mode. Each input row
// updates its group at once and the group's result row changes with it:
// +I for a new group, -U(old) then +U(new) when its aggregates change,
// nothing when they do not, -D(old) when a retraction empties the group.
// The result is an updating table whose upsert key is the GROUP BY
// columns. Groups live in memory for the statement: they are not part of
// checkpoints, so a GROUP BY refuses SET 'ptfsh.end-of-input' = 'false'.

// aggregateFuncs are the aggregate functions GROUP BY knows.
var aggregateFuncs = map[string]bool{"COUNT": true, "SUM": true, "MIN": true, "MAX": true, "AVG": true,
	"STDDEV_POP": true, "STDDEV_SAMP": true, "STDDEV": true, "VAR_POP": true, "VAR_SAMP": true, "VARIANCE": true,
	"LISTAGG": true, "ARRAY_AGG": true, "COLLECT": true, "PERCENTILE": true, "JSON_OBJECTAGG": true, "JSON_ARRAYAGG": true}

// hasAggregate reports whether a SELECT's items call an aggregate
// function, which makes it an aggregation even without GROUP BY.
func hasAggregate(sel *sqlmini.Select) bool {
	for _, it := range sel.Items {
		if it.Expr != nil && findAggregate(it.Expr) != nil {
			return true
		}
	}
	return false
}

// findAggregate returns the first aggregate call inside an expression,
// outside any OVER aggregation (over.go), which is no group's.
func findAggregate(e *sqlmini.Expr) *sqlmini.FuncCall {
	var found *sqlmini.FuncCall
	sqlmini.Walk(e, func(n any) bool {
		if found != nil {
			return false
		}
		f, ok := n.(*sqlmini.FuncCall)
		switch {
		case ok && f.Over != nil:
			return false
		case ok && aggregateFuncs[strings.ToUpper(string(f.Name.Value))]:
			found = f
			return false
		}
		return true
	})
	return found
}

// planAggregate plans a SELECT with GROUP BY, or with aggregate calls and
// no GROUP BY (one group of all rows). in is the FROM input after WHERE;
// sc resolves its columns. LIMIT applies to the result.
func (p *Planner) planAggregate(sel *sqlmini.Select, in exec.Node, sc *expr.Scope) (exec.Node, error) {
	m := in.Changelog()
	if m.KeyOnlyDeletes || m.Contains(types.UpdateAfter) && !m.Contains(types.UpdateBefore) {
		// An upsert input: its -U rows and full deletes come from the last
		// row of each key, as Flink's ChangelogNormalize makes them.
		if len(exec.UpsertKeyOf(in)) == 0 {
			return nil, sqlmini.Errorf(sel.Pos, "GROUP BY over an upsert input (%s) needs its upsert key: declare a PRIMARY KEY on the table", m)
		}
		in = DeliverUpdates(in, ptf.RequireUpdateBefore|ptf.RequireFullDelete, nil)
	}
	a := &aggPlanner{sc: sc, ctext: map[string]int{}}
	for _, g := range sel.GroupBy {
		if f := findAggregate(g); f != nil {
			return nil, sqlmini.Errorf(f.Pos, "Aggregate expression is illegal in GROUP BY clause")
		}
		x, err := expr.Compile(g, sc)
		if err != nil {
			return nil, err
		}
		col := -1
		if ce, ok := x.(*expr.Column); ok {
			col = ce.Index
		}
		a.gtext = append(a.gtext, g.String())
		a.gx = append(a.gx, x)
		a.gcol = append(a.gcol, col)
	}
	global := len(sel.GroupBy) == 0
	var outs []expr.Expr
	var cols []types.Column
	var texts []string
	for _, it := range sel.Items {
		if it.StarOf != nil {
			return nil, sqlmini.Errorf(it.Pos, "%s.* in a SELECT with GROUP BY is not supported yet: list the grouped columns", it.StarOf.Value)
		}
		if it.Star {
			for _, i := range sc.StarColumns() {
				c := sc.Schema.Columns[i]
				g := a.groupOfColumn(i)
				if g < 0 {
					return nil, sqlmini.Errorf(it.Pos, "Expression '%s' is not being grouped", c.Name)
				}
				outs = append(outs, &expr.Column{Index: g, T: a.gx[g].Type()})
				cols = append(cols, types.Column{Name: c.Name, Type: c.Type})
				texts = append(texts, c.Name)
			}
			continue
		}
		e, err := a.expr(it.Expr)
		if err != nil {
			return nil, err
		}
		x, err := expr.Compile(e, &expr.Scope{Schema: a.inter(global), Now: sc.Now, Zone: sc.Zone, Seed: sc.Seed, UserFunction: sc.UserFunction})
		if err != nil {
			return nil, err
		}
		name := "EXPR$" + strconv.Itoa(len(cols))
		if ce, ok := x.(*expr.Column); ok && ce.Index < len(a.gcol) && a.gcol[ce.Index] >= 0 {
			name = sc.Schema.Columns[a.gcol[ce.Index]].Name
		}
		if it.Alias != nil {
			name = string(it.Alias.Value)
		}
		text := ExprText(it.Expr)
		if text != name {
			text += " AS " + name
		}
		outs = append(outs, x)
		cols = append(cols, types.Column{Name: name, Type: x.Type()})
		texts = append(texts, text)
	}
	visible := len(outs)
	var havingText string
	if sel.Having != nil {
		// HAVING is a filter on the aggregation's rows, as Flink plans it
		// (a Calc after the GroupAggregate): its value is a hidden last
		// column that the filter reads and a projection drops. An update
		// whose new row fails it leaves only the -U of the old one.
		e, err := a.expr(sel.Having)
		if err != nil {
			return nil, err
		}
		x, err := expr.Compile(e, &expr.Scope{Schema: a.inter(global), Now: sc.Now, Zone: sc.Zone, Seed: sc.Seed, UserFunction: sc.UserFunction})
		if err != nil {
			return nil, err
		}
		if k := x.Type().Kind; k != types.KindBoolean && k != types.KindNull {
			return nil, sqlmini.Errorf(sel.Having.Pos, "HAVING needs a BOOLEAN condition, not %s", x.Type())
		}
		if lim, err := limitOf(sel); err != nil {
			return nil, err // OFFSET without LIMIT too
		} else if lim.has {
			return nil, sqlmini.Errorf(sel.Pos, "LIMIT with HAVING is not supported yet")
		}
		havingText = ExprText(sel.Having)
		outs = append(outs, x)
		cols = append(cols, types.Column{Name: "$having", Type: x.Type()})
		texts = append(texts, havingText+" AS $having")
	}
	n := &sqlop.AggregateNode{In: in, Groups: a.gx, Calls: a.calls, Outs: outs, Sch: types.Schema{Columns: cols},
		Mode: types.NewChangelogMode(types.Insert, types.UpdateBefore, types.UpdateAfter)}
	if im := in.Changelog(); im.Contains(types.UpdateBefore) || im.Contains(types.Delete) {
		n.Mode = types.RetractAll // a retraction may empty a group
	}
	if !global {
		n.Key = aggregateKey(outs, len(a.gx))
	}
	if p.env.Batch {
		// Flink's batch HashAggregate: each group once, at the end.
		n.Final, n.Mode = true, types.InsertOnly
	}
	var gnames []string
	for i, t := range a.gtext {
		if c := a.gcol[i]; c >= 0 {
			t = sc.Schema.Columns[c].Name
		}
		gnames = append(gnames, t)
	}
	n.Text = "GroupAggregate("
	if n.Final {
		n.Text = "HashAggregate("
	}
	if !global {
		n.Text += "groupBy=[" + joinStrings(gnames) + "], "
	}
	n.Text += "select=[" + joinStrings(texts) + "])"
	var agg exec.Node = n
	win, err := windowAggregate(sel, n, a) // GROUP BY window_start, window_end: window.go
	if err != nil {
		return nil, err
	}
	if win != nil {
		agg = win
	}
	if sel.Having != nil {
		f := &exec.FilterNode{In: agg, Pred: &expr.Column{Index: visible, T: cols[visible].Type}, Text: havingText}
		var exprs []expr.Expr
		for i, c := range cols[:visible] {
			exprs = append(exprs, &expr.Column{Index: i, T: c.Type})
		}
		return &exec.ProjectNode{In: f, Exprs: exprs, Sch: types.Schema{Columns: cols[:visible]}, Texts: names(cols[:visible])}, nil
	}
	lim, err := limitOf(sel)
	if err != nil {
		return nil, err
	}
	if lim.has {
		if win != nil {
			return &exec.LimitNode{In: win, N: lim.n, Offset: lim.offset}, nil
		}
		if n.Final {
			return &exec.LimitNode{In: n, N: lim.n, Offset: lim.offset}, nil
		}
		if lim.offset > 0 {
			return nil, sqlmini.Errorf(sel.Pos, "OFFSET over a GROUP BY's updating result is not supported yet")
		}
		return &sqlop.GroupLimitNode{In: n, N: lim.n}, nil
	}
	return agg, nil
}

// aggregateKey is the upsert key of an aggregation's output: the columns
// that carry the group's values, if every group value is output.
func aggregateKey(outs []expr.Expr, groups int) []int {
	key := make([]int, groups)
	for g := range key {
		key[g] = -1
		for j, x := range outs {
			if ce, ok := x.(*expr.Column); ok && ce.Index == g {
				key[g] = j
				break
			}
		}
		if key[g] < 0 {
			return nil
		}
	}
	return key
}

// aggPlanner rewrites the SELECT items of an aggregation so that they read
// the row of a group rather than an input row: GROUP BY expressions and
// aggregate calls become references to the group row's columns, which are
// the group values then the aggregate results, under names no query can
// spell. The AST is copied along the rewritten paths, never changed: a
// view's query is planned again each time it is read.
type aggPlanner struct {
	sc    *expr.Scope // the input's columns
	gtext []string    // GROUP BY expressions as printed
	gx    []expr.Expr // and compiled over the input
	gcol  []int       // the input column of a GROUP BY column, else -1
	calls []*sqlop.AggCall
	ctext map[string]int // calls by text, to compute each once
}

func groupName(i int) string { return "\x00g" + strconv.Itoa(i) }
func aggName(i int) string   { return "\x00a" + strconv.Itoa(i) }

// inter is the schema of a group row: the group values, then the
// aggregate results.
func (a *aggPlanner) inter(global bool) types.Schema {
	var cols []types.Column
	for i, x := range a.gx {
		cols = append(cols, types.Column{Name: groupName(i), Type: x.Type()})
	}
	for i, c := range a.calls {
		t := c.Typ
		if global && c.Fn != "COUNT" && c.Fn != "COLLECT" {
			t.NotNull = false // no group: NULL over no rows
		}
		cols = append(cols, types.Column{Name: aggName(i), Type: t})
	}
	return types.Schema{Columns: cols}
}

// group returns the GROUP BY expression printed as text, or -1.
func (a *aggPlanner) group(text string) int {
	for i, t := range a.gtext {
		if t == text {
			return i
		}
	}
	return -1
}

// groupOfColumn returns the GROUP BY expression that is input column i.
func (a *aggPlanner) groupOfColumn(i int) int {
	for g, c := range a.gcol {
		if c == i {
			return g
		}
	}
	return -1
}

// ref is a column reference to a group row column.
func ref(pos sqlmini.Pos, name string) *sqlmini.Primary {
	return &sqlmini.Primary{Pos: pos, Column: &sqlmini.ColumnRef{Pos: pos, Parts: []*sqlmini.Name{{Pos: pos, Value: sqlmini.Ident(name)}}}}
}

// nilOrMake keeps an empty list of the AST nil, as the parser leaves it:
// the compiler tells some forms apart by a nil list (an IN list).
func names(cols []types.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

func nilOrMake[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, n)
}

func (a *aggPlanner) expr(e *sqlmini.Expr) (*sqlmini.Expr, error) {
	if e == nil {
		return nil, nil
	}
	if g := a.group(e.String()); g >= 0 {
		return &sqlmini.Expr{Pos: e.Pos, Left: &sqlmini.AndExpr{Pos: e.Pos, Left: &sqlmini.NotExpr{Pos: e.Pos,
			Pred: &sqlmini.Predicate{Pos: e.Pos, Left: &sqlmini.Additive{Pos: e.Pos, Left: &sqlmini.Multiplicative{Pos: e.Pos,
				Left: &sqlmini.Unary{Pos: e.Pos, Primary: ref(e.Pos, groupName(g))}}}}}}}, nil
	}
	c := *e
	var err error
	if c.Left, err = a.and(e.Left); err != nil {
		return nil, err
	}
	c.Right = nilOrMake[*sqlmini.AndExpr](len(e.Right))
	for i, r := range e.Right {
		if c.Right[i], err = a.and(r); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

func (a *aggPlanner) and(e *sqlmini.AndExpr) (*sqlmini.AndExpr, error) {
	c := *e
	var err error
	if c.Left, err = a.not(e.Left); err != nil {
		return nil, err
	}
	c.Right = nilOrMake[*sqlmini.NotExpr](len(e.Right))
	for i, r := range e.Right {
		if c.Right[i], err = a.not(r); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

func (a *aggPlanner) not(e *sqlmini.NotExpr) (*sqlmini.NotExpr, error) {
	c := *e
	var err error
	if e.Not != nil {
		c.Not, err = a.not(e.Not)
		return &c, err
	}
	c.Pred, err = a.pred(e.Pred)
	return &c, err
}

func (a *aggPlanner) pred(p *sqlmini.Predicate) (*sqlmini.Predicate, error) {
	c := *p
	var err error
	if c.Left, err = a.add(p.Left); err != nil {
		return nil, err
	}
	if p.Right != nil {
		if c.Right, err = a.add(p.Right); err != nil {
			return nil, err
		}
	}
	c.In = nilOrMake[*sqlmini.Additive](len(p.In))
	for i, x := range p.In {
		if c.In[i], err = a.add(x); err != nil {
			return nil, err
		}
	}
	if p.Between != nil {
		b := *p.Between
		if b.Low, err = a.add(p.Between.Low); err != nil {
			return nil, err
		}
		if b.High, err = a.add(p.Between.High); err != nil {
			return nil, err
		}
		c.Between = &b
	}
	if p.DistinctFrom != nil {
		if c.DistinctFrom, err = a.add(p.DistinctFrom); err != nil {
			return nil, err
		}
	}
	if p.Like != nil {
		l := *p.Like
		if l.Pattern, err = a.add(p.Like.Pattern); err != nil {
			return nil, err
		}
		if p.Like.Escape != nil {
			if l.Escape, err = a.add(p.Like.Escape); err != nil {
				return nil, err
			}
		}
		c.Like = &l
	}
	return &c, nil
}

func (a *aggPlanner) add(e *sqlmini.Additive) (*sqlmini.Additive, error) {
	c := *e
	var err error
	if c.Left, err = a.mul(e.Left); err != nil {
		return nil, err
	}
	c.Right = nilOrMake[*sqlmini.AddOp](len(e.Right))
	for i, op := range e.Right {
		o := *op
		if o.Right, err = a.mul(op.Right); err != nil {
			return nil, err
		}
		c.Right[i] = &o
	}
	return &c, nil
}

func (a *aggPlanner) mul(e *sqlmini.Multiplicative) (*sqlmini.Multiplicative, error) {
	c := *e
	var err error
	if c.Left, err = a.unary(e.Left); err != nil {
		return nil, err
	}
	c.Right = nilOrMake[*sqlmini.MulOp](len(e.Right))
	for i, op := range e.Right {
		o := *op
		if o.Right, err = a.unary(op.Right); err != nil {
			return nil, err
		}
		c.Right[i] = &o
	}
	return &c, nil
}

func (a *aggPlanner) unary(u *sqlmini.Unary) (*sqlmini.Unary, error) {
	if g := a.group(u.String()); g >= 0 {
		return &sqlmini.Unary{Pos: u.Pos, Primary: ref(u.Pos, groupName(g))}, nil
	}
	c := *u
	var err error
	c.Primary, err = a.primary(u.Primary)
	return &c, err
}

func (a *aggPlanner) exprs(es []*sqlmini.Expr) ([]*sqlmini.Expr, error) {
	out := nilOrMake[*sqlmini.Expr](len(es))
	for i, e := range es {
		var err error
		if out[i], err = a.expr(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (a *aggPlanner) constructor(k *sqlmini.Constructor) (*sqlmini.Constructor, error) {
	c := *k
	var err error
	c.Elems, err = a.exprs(k.Elems)
	return &c, err
}

func (a *aggPlanner) primary(p *sqlmini.Primary) (*sqlmini.Primary, error) {
	c := *p
	var err error
	switch {
	case p.Func != nil && aggregateFuncs[strings.ToUpper(string(p.Func.Name.Value))]:
		i, err := a.call(p.Func)
		if err != nil {
			return nil, err
		}
		return ref(p.Pos, aggName(i)), nil
	case p.Func != nil:
		if err := expr.CheckCall(p.Func, a.sc); err != nil {
			return nil, err // an unknown function: named before its arguments
		}
		f := *p.Func
		if fn, ok := expr.LookupFunction(string(f.Name.Value)); ok && fn.TakesUnit() && len(f.Args) > 0 {
			// The unit word (TIMESTAMPADD(DAY, ...)) is not a column.
			var rest []*sqlmini.Expr
			if rest, err = a.exprs(p.Func.Args[1:]); err != nil {
				return nil, err
			}
			f.Args = append([]*sqlmini.Expr{p.Func.Args[0]}, rest...)
		} else if f.Args, err = a.exprs(p.Func.Args); err != nil {
			return nil, err
		}
		for _, e := range []**sqlmini.Expr{&f.Placing, &f.From, &f.For, &f.In} {
			if *e != nil {
				if *e, err = a.expr(*e); err != nil {
					return nil, err
				}
			}
		}
		c.Func = &f
	case p.Case != nil:
		k := *p.Case
		if p.Case.Operand != nil {
			if k.Operand, err = a.expr(p.Case.Operand); err != nil {
				return nil, err
			}
		}
		k.Whens = make([]*sqlmini.When, len(p.Case.Whens))
		for i, w := range p.Case.Whens {
			ww := *w
			if ww.Cond, err = a.expr(w.Cond); err != nil {
				return nil, err
			}
			if ww.More, err = a.exprs(w.More); err != nil {
				return nil, err
			}
			if ww.Then, err = a.expr(w.Then); err != nil {
				return nil, err
			}
			k.Whens[i] = &ww
		}
		if p.Case.Else != nil {
			if k.Else, err = a.expr(p.Case.Else); err != nil {
				return nil, err
			}
		}
		c.Case = &k
	case p.Column != nil && len(p.Column.Parts) == 1 && a.sc.Schema.Index(string(p.Column.Parts[0].Value)) < 0 && expr.IsNiladic(string(p.Column.Parts[0].Value)):
		// CURRENT_TIMESTAMP and the like: a function, not a column.
	case p.Column != nil:
		i, err := a.sc.Lookup(p.Column)
		if err != nil {
			return nil, err
		}
		g := a.groupOfColumn(i)
		if g < 0 {
			return nil, sqlmini.Errorf(p.Pos, "Expression '%s' is not being grouped", expr.JoinNames(p.Column.Parts))
		}
		return ref(p.Pos, groupName(g)), nil
	case p.Cast != nil:
		k := *p.Cast
		k.Expr, err = a.expr(p.Cast.Expr)
		c.Cast = &k
	case p.Row != nil:
		c.Row, err = a.constructor(p.Row)
	case p.Array != nil:
		c.Array, err = a.constructor(p.Array)
	case p.Map != nil:
		c.Map, err = a.constructor(p.Map)
	case p.Paren != nil:
		if c.Paren, err = a.expr(p.Paren); err != nil {
			return nil, err
		}
		c.RowTail, err = a.exprs(p.RowTail)
	}
	return &c, err
}

// call compiles an aggregate call over the input and returns its index
// among the group row's aggregates. Result types are Flink's: COUNT is
// BIGINT NOT NULL; SUM and AVG keep an integer or approximate type (AVG
// of INT is INT), SUM of DECIMAL(p, s) is DECIMAL(38, s) and AVG
// DECIMAL(38, max(6, s)); MIN and MAX keep the type. With GROUP BY the
// result is nullable when the argument is.
func (a *aggPlanner) call(f *sqlmini.FuncCall) (int, error) {
	name := strings.ToUpper(string(f.Name.Value))
	for _, arg := range f.Args {
		if inner := findAggregate(arg); inner != nil {
			return 0, sqlmini.Errorf(inner.Pos, "Aggregate expressions cannot be nested")
		}
	}
	if f.Filter != nil {
		if inner := findAggregate(f.Filter); inner != nil {
			return 0, sqlmini.Errorf(inner.Pos, "Aggregate expressions cannot be nested")
		}
	}
	c := &sqlop.AggCall{Fn: name, Star: f.Star, Distinct: f.Distinct}
	switch {
	case f.Star && name != "COUNT":
		return 0, sqlmini.Errorf(f.Pos, "%s(*) is not allowed: only COUNT takes *", name)
	case f.Star:
		c.Typ = types.TypeBigInt.AsNotNull()
		c.Text = "COUNT(*)"
	case name == "JSON_OBJECTAGG" || name == "JSON_ARRAYAGG":
		x, null, err := expr.CompileJSONAggArg(f, a.sc)
		if err != nil {
			return 0, err
		}
		c.Arg, c.ArgType, c.Typ, c.NullOnNull = x, x.Type(), types.TypeString.AsNotNull(), null
		text := *f
		text.Filter, text.Over = nil, nil
		c.Text = text.String()
	case f.JSON != nil:
		return 0, sqlmini.Errorf(f.JSON.Pos, "%s takes no RETURNING, WRAPPER or ON EMPTY | ERROR | NULL clause: only the JSON functions do", name)
	case len(f.Args) != 1 && name != "LISTAGG" && name != "PERCENTILE":
		return 0, sqlmini.Errorf(f.Pos, "Invalid number of arguments to function '%s'. Was expecting 1 arguments", name)
	default:
		if len(f.Args) == 0 {
			return 0, sqlmini.Errorf(f.Pos, "Invalid number of arguments to function '%s'. Was expecting 1 arguments", name)
		}
		x, err := expr.Compile(f.Args[0], a.sc)
		if err != nil {
			return 0, err
		}
		c.Arg, c.ArgType = x, x.Type()
		if c.Typ, err = AggregateType(name, c.ArgType); err != nil {
			return 0, sqlmini.Errorf(f.Pos, "%w", err)
		}
		switch name {
		case "LISTAGG":
			if err := a.listAgg(c, f); err != nil {
				return 0, err
			}
		case "PERCENTILE":
			if err := a.percentile(c, f); err != nil {
				return 0, err
			}
		}
		c.Text = name + "("
		if f.Distinct {
			c.Text += "DISTINCT "
		}
		for i, arg := range f.Args {
			if i > 0 {
				c.Text += ", "
			}
			c.Text += ExprText(arg)
		}
		c.Text += ")"
	}
	if f.Filter != nil {
		if err := a.filter(c, f.Filter); err != nil {
			return 0, err
		}
	}
	if i, ok := a.ctext[c.Text]; ok {
		return i, nil
	}
	a.calls = append(a.calls, c)
	a.ctext[c.Text] = len(a.calls) - 1
	return len(a.calls) - 1, nil
}

// filter makes c aggregate only the rows for which cond (FILTER (WHERE
// cond)) is TRUE: its argument is NULL for the others, which every
// aggregate ignores (COUNT(*) FILTER counts a constant).
func (a *aggPlanner) filter(c *sqlop.AggCall, cond *sqlmini.Expr) error {
	x, err := expr.Compile(cond, a.sc)
	if err != nil {
		return err
	}
	if k := x.Type().Kind; k != types.KindBoolean && k != types.KindNull {
		return sqlmini.Errorf(cond.Pos, "FILTER needs a BOOLEAN condition, not %s", x.Type())
	}
	arg := c.Arg
	if c.Star {
		c.Star = false
		arg = &filterConst{}
	}
	c.Arg, c.Filtered = &sqlop.FilteredArg{Cond: x, Arg: arg}, true
	if c.Fn != "COUNT" && c.Fn != "COLLECT" {
		c.Typ = c.Typ.Nullable() // NULL when no row passes
	}
	c.Text += " FILTER (WHERE " + ExprText(cond) + ")"
	return nil
}

// listAgg reads LISTAGG's separator: a string literal, ',' by default.
func (a *aggPlanner) listAgg(c *sqlop.AggCall, f *sqlmini.FuncCall) error {
	c.Sep = ","
	if len(f.Args) > 2 {
		return sqlmini.Errorf(f.Pos, "Invalid number of arguments to function 'LISTAGG'. Was expecting 1 or 2 arguments")
	}
	if len(f.Args) == 2 {
		x, err := expr.Compile(f.Args[1], a.sc)
		if err != nil {
			return err
		}
		v, verr := x.Eval(nil)
		sep, ok := v.(string)
		if !x.IsConstant() || verr != nil || !ok {
			return sqlmini.Errorf(f.Pos, "Cannot apply 'LISTAGG' to arguments of type 'LISTAGG(<%s>, <%s>)'. Supported form(s): 'LISTAGG(<CHARACTER>)' 'LISTAGG(<CHARACTER>, <CHARACTER_LITERAL>)'", c.ArgType.Nullable(), flinkTypeName(x.Type().Nullable()))
		}
		c.Sep = sep
	}
	return nil
}

// percentile reads PERCENTILE's percentage (a constant from 0 to 1, or an
// ARRAY of them) and its frequency, whose argument becomes ROW(x,
// frequency).
func (a *aggPlanner) percentile(c *sqlop.AggCall, f *sqlmini.FuncCall) error {
	if len(f.Args) < 2 || len(f.Args) > 3 {
		return sqlmini.Errorf(f.Pos, "Invalid number of arguments to function 'PERCENTILE'. Was expecting 2 or 3 arguments")
	}
	p, err := expr.Compile(f.Args[1], a.sc)
	if err != nil {
		return err
	}
	v, verr := p.Eval(nil)
	bad := sqlmini.Errorf(f.Args[1].Pos, "PERCENTILE's percentage must be a constant from 0 to 1, or an ARRAY of them, not %s", ExprText(f.Args[1]))
	if !p.IsConstant() || verr != nil || v == nil {
		return bad
	}
	vals, isArray := v.([]any)
	if !isArray {
		vals = []any{v}
	}
	for _, e := range vals {
		x, ok := percentValue(e)
		if !ok || x < 0 || x > 1 {
			return bad
		}
		c.Percents = append(c.Percents, x)
	}
	c.Typ = types.TypeDouble
	if isArray {
		c.Typ = types.ArrayOf(types.TypeDouble)
	}
	if len(f.Args) == 3 {
		freq, err := expr.Compile(f.Args[2], a.sc)
		if err != nil {
			return err
		}
		if !freq.Type().IsInteger() {
			return sqlmini.Errorf(f.Args[2].Pos, "PERCENTILE's frequency must be an integer, not %s", freq.Type())
		}
		c.Arg = &valueWithCount{x: c.Arg, n: freq}
	}
	return nil
}

// percentValue reads a percentage.
func percentValue(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case types.Decimal:
		f, _ := x.Rat().Float64()
		return f, true
	}
	return 0, false
}

// valueWithCount is PERCENTILE's argument with a frequency: ROW(x, n).
type valueWithCount struct{ x, n expr.Expr }

func (v *valueWithCount) Eval(row []any) (any, error) {
	x, err := v.x.Eval(row)
	if err != nil {
		return nil, err
	}
	n, err := v.n.Eval(row)
	if err != nil {
		return nil, err
	}
	return types.Row{Kind: types.Insert, Fields: []any{x, n}}, nil
}
func (v *valueWithCount) Type() types.Type { return v.x.Type() }
func (v *valueWithCount) IsConstant() bool { return false }

// filterConst is COUNT(*)'s argument under FILTER: a value for each row.
type filterConst struct{}

func (filterConst) Eval([]any) (any, error) { return int64(1), nil }
func (filterConst) Type() types.Type        { return types.TypeInt.AsNotNull() }
func (filterConst) IsConstant() bool        { return true }

// AggregateType is the result type of fn over arg, or Calcite's message.
func AggregateType(fn string, arg types.Type) (types.Type, error) {
	bad := func(form string) (types.Type, error) {
		return types.Type{}, &aggTypeError{fn: fn, arg: arg, form: form}
	}
	switch fn {
	case "COUNT":
		return types.TypeBigInt.AsNotNull(), nil
	case "STDDEV_POP", "STDDEV_SAMP", "STDDEV", "VAR_POP", "VAR_SAMP", "VARIANCE":
		// Flink casts the result back to the argument's type.
		if !arg.IsNumeric() {
			return bad("NUMERIC")
		}
		if arg.Kind == types.KindDecimal {
			return types.Type{Kind: types.KindDecimal, Length: 38, Scale: max(6, arg.Scale), NotNull: arg.NotNull}, nil
		}
		return arg, nil
	case "LISTAGG":
		if !arg.IsString() {
			return types.Type{}, &aggTypeError{fn: fn, arg: arg, form: "CHARACTER>)' 'LISTAGG(<CHARACTER>, <CHARACTER_LITERAL"}
		}
		return types.TypeString, nil
	case "ARRAY_AGG":
		t := types.ArrayOf(arg)
		t.NotNull = arg.NotNull
		return t, nil
	case "COLLECT":
		return types.MultisetOf(arg).AsNotNull(), nil
	case "PERCENTILE":
		if !arg.IsNumeric() {
			return bad("NUMERIC")
		}
		return types.TypeDouble, nil
	case "SUM", "AVG":
		if !arg.IsNumeric() {
			return bad("NUMERIC")
		}
		if arg.Kind == types.KindDecimal {
			scale := arg.Scale
			if fn == "AVG" {
				scale = max(6, scale)
			}
			return types.Type{Kind: types.KindDecimal, Length: 38, Scale: scale, NotNull: arg.NotNull}, nil
		}
		return arg, nil
	}
	switch arg.Kind { // MIN, MAX
	case types.KindNull, types.KindArray, types.KindMap, types.KindRow, types.KindDescriptor, types.KindBinary, types.KindVarBinary:
		return bad("COMPARABLE_TYPE")
	}
	return arg, nil
}

// aggTypeError is Calcite's message for an aggregate over a wrong type.
type aggTypeError struct {
	fn, form string
	arg      types.Type
}

func (e *aggTypeError) Error() string {
	return "Cannot apply '" + e.fn + "' to arguments of type '" + e.fn + "(<" + e.arg.Nullable().String() +
		">)'. Supported form(s): '" + e.fn + "(<" + e.form + ">)'"
}
