package plan

import (
	"reflect"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Subqueries of WHERE, as Flink plans them: a conjunct x IN (SELECT y
// ...) is a semi join of the FROM's rows to the subquery's on x = y;
// EXISTS (SELECT ...) a semi join on the subquery's conditions that read
// the outer query's columns (none: every row, when the subquery has a
// row); NOT IN and NOT EXISTS are anti joins. NOT IN follows SQL's rule
// for NULLs, as Flink's anti join condition x = y OR (x = y) IS NULL
// does: a NULL on either side excludes the row (unless the subquery has
// no rows). The joins are [sqlop.SemiJoinNode]. A subquery elsewhere (in an
// OR, a SELECT list) is an error.

// subquery is an IN or EXISTS conjunct of WHERE.
type subquery struct {
	pos   sqlmini.Pos
	anti  bool
	value *sqlmini.Additive // x of x IN (...); nil for EXISTS
	query *sqlmini.Query
}

// hasSubquery reports whether e holds an IN or EXISTS subquery of its own
// (not one inside a subquery).
func hasSubquery(e *sqlmini.Expr) bool {
	found := false
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if found {
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				return
			}
			switch x := v.Interface().(type) {
			case *sqlmini.Query:
				return
			case *sqlmini.Predicate:
				if x.InQuery != nil {
					found = true
					return
				}
			case *sqlmini.Primary:
				if x.Exists != nil {
					found = true
					return
				}
			}
			walk(v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(e))
	return found
}

// subqueryOf reports whether a conjunct is [NOT] x [NOT] IN (query) or
// [NOT] EXISTS (query).
func subqueryOf(c *sqlmini.NotExpr) (subquery, bool) {
	sq := subquery{pos: c.Pos}
	for c.Not != nil {
		sq.anti = !sq.anti
		c = c.Not
	}
	pr := c.Pred
	if pr.InQuery != nil {
		sq.anti = sq.anti != pr.Negated
		sq.value, sq.query = pr.Left, pr.InQuery
		return sq, true
	}
	if pr.Op != "" || pr.Between != nil || pr.Like != nil || pr.In != nil || pr.IsNull || pr.NotNull || pr.DistinctFrom != nil || pr.Truth != "" {
		return sq, false
	}
	a := pr.Left
	if len(a.Right) > 0 || len(a.Left.Right) > 0 || a.Left.Left.Minus || a.Left.Left.Plus || a.Left.Left.Primary.Exists == nil {
		return sq, false
	}
	sq.query = a.Left.Left.Primary.Exists
	return sq, true
}

// planSubqueries plans the IN and EXISTS conjuncts of where as semi and
// anti joins of in (whose columns sc resolves), and returns the joined
// node and what is left of where (nil: nothing).
func (p *Planner) planSubqueries(in exec.Node, sc *expr.Scope, where *sqlmini.Expr) (exec.Node, *sqlmini.Expr, error) {
	var rest []*sqlmini.NotExpr
	for _, c := range conjuncts(where) {
		sq, ok := subqueryOf(c)
		if !ok {
			rest = append(rest, c)
			continue
		}
		n, err := p.semiJoin(in, sc, sq)
		if err != nil {
			return nil, nil, err
		}
		in = n
	}
	return in, andOf(rest), nil
}

// semiJoin plans one subquery conjunct as a semi or anti join of in.
func (p *Planner) semiJoin(in exec.Node, sc *expr.Scope, sq subquery) (exec.Node, error) {
	width := in.Schema().Len()
	right, rsc, corr, value, err := p.subqueryInput(sq)
	if err != nil {
		return nil, err
	}
	left, err := retracting(in, sq.pos)
	if err != nil {
		return nil, err
	}
	if right, err = retracting(right, sq.query.Pos); err != nil {
		return nil, err
	}
	n := &sqlop.SemiJoinNode{Left: left, Right: right, Anti: sq.anti}
	var where []string
	var conds []expr.Expr
	if sq.value != nil {
		x, err := expr.Compile(additiveExpr(sq.value), sc)
		if err != nil {
			return nil, err
		}
		if !expr.Comparable(x.Type(), value.Type()) {
			return nil, sqlmini.Errorf(sq.pos, "cannot compare %s with %s, the type of the subquery's column", x.Type(), value.Type())
		}
		t := expr.LeastRestrictive([]types.Type{x.Type(), value.Type()})
		lx, rx := expr.CastTo(x, t), expr.CastTo(value, t)
		text := sq.value.String() + " = " + right.Schema().Columns[0].Name
		if sq.anti {
			// NOT IN: x = y OR (x = y) IS NULL.
			conds = append(conds, &notInCond{l: lx, r: &shifted{x: rx, off: width}})
			text = "OR(=(" + sq.value.String() + ", " + right.Schema().Columns[0].Name + "), IS NULL(=(" + sq.value.String() + ", " + right.Schema().Columns[0].Name + ")))"
		} else {
			n.LeftKeys = append(n.LeftKeys, lx)
			n.RightKeys = append(n.RightKeys, rx)
		}
		where = append(where, text)
	}
	if len(corr) > 0 {
		// The conditions that read the outer query's columns: over the
		// outer row followed by the subquery's.
		tables := sc.Tables
		if len(tables) == 0 {
			tables = []expr.ScopeTable{{Name: sc.Alias, Cols: in.Schema().Names()}}
		}
		tables = append(append([]expr.ScopeTable(nil), tables...), expr.ScopeTable{Name: rsc.Alias, Cols: right.Schema().Names(), Start: width})
		cols := append(append([]types.Column(nil), in.Schema().Columns...), right.Schema().Columns...)
		full := p.scope(types.Schema{Columns: cols}, tables)
		full.Merged = sc.Merged
		for _, c := range corr {
			where = append(where, c.String())
			if lk, rk, ok, err := equiKey(c, sc, rsc); err != nil {
				return nil, err
			} else if ok {
				n.LeftKeys = append(n.LeftKeys, lk)
				n.RightKeys = append(n.RightKeys, rk)
				continue
			}
			x, err := expr.Compile(andOf([]*sqlmini.NotExpr{c}), full)
			if err != nil {
				return nil, err
			}
			if k := x.Type().Kind; k != types.KindBoolean && k != types.KindNull {
				return nil, sqlmini.Errorf(c.Pos, "the subquery's condition must be BOOLEAN, not %s", x.Type())
			}
			conds = append(conds, x)
		}
	}
	if len(conds) > 0 {
		n.Cond = &allTrue{xs: conds}
	}
	kind := "LeftSemiJoin"
	if sq.anti {
		kind = "LeftAntiJoin"
	}
	n.Text = sqlop.JoinText(kind, strings.Join(where, " AND "), left.Schema())
	return n, nil
}

// subqueryInput plans the subquery of sq. A subquery whose WHERE reads
// columns of the outer query (a correlated one) must be a plain SELECT
// ... FROM one table [WHERE ...]: its conjuncts that read only the
// table filter it, the others (corr) join it. For IN, value is the
// subquery's one column over right's rows.
func (p *Planner) subqueryInput(sq subquery) (right exec.Node, rsc *expr.Scope, corr []*sqlmini.NotExpr, value expr.Expr, err error) {
	q := sq.query
	if sel := q.Body.Select; sel != nil && len(q.With) == 0 && len(q.Ops) == 0 && sel.Where != nil && len(sel.Joins) == 0 && sel.From != nil {
		rn, alias, err := p.planFrom(sel.From)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		rsc = &expr.Scope{Schema: rn.Schema(), Alias: alias, Now: p.now(), Zone: p.env.Zone, Seed: p.seed(), UserFunction: p.userFunction}
		var local []*sqlmini.NotExpr
		for _, c := range conjuncts(sel.Where) {
			if _, err := expr.Compile(andOf([]*sqlmini.NotExpr{c}), rsc); err != nil {
				corr = append(corr, c)
			} else {
				local = append(local, c)
			}
		}
		if len(corr) > 0 {
			if len(sel.GroupBy) > 0 || sel.Having != nil || hasAggregate(sel) || sel.Distinct || len(sel.OrderBy) > 0 || sel.Limit != nil || sel.Fetch != nil {
				return nil, nil, nil, nil, sqlmini.Errorf(corr[0].Pos, "a subquery whose WHERE reads the outer query's columns must be a plain SELECT ... FROM one table WHERE ... (no GROUP BY, DISTINCT, ORDER BY or LIMIT) here")
			}
			if w := andOf(local); w != nil {
				pred, err := expr.Compile(w, rsc)
				if err != nil {
					return nil, nil, nil, nil, err
				}
				rn = &exec.FilterNode{In: rn, Pred: pred, Text: ExprText(w)}
			}
			if sq.value != nil {
				if len(sel.Items) != 1 || sel.Items[0].Expr == nil {
					return nil, nil, nil, nil, sqlmini.Errorf(q.Pos, "the subquery of IN must give one column")
				}
				if value, err = expr.Compile(sel.Items[0].Expr, rsc); err != nil {
					return nil, nil, nil, nil, err
				}
			}
			return rn, rsc, corr, value, nil
		}
	}
	right, err = p.Query(q)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	rsc = &expr.Scope{Schema: right.Schema()}
	if sq.value != nil {
		if right.Schema().Len() != 1 {
			return nil, nil, nil, nil, sqlmini.Errorf(q.Pos, "the subquery of IN must give one column, not %d: %s", right.Schema().Len(), right.Schema().ColumnList())
		}
		value = &expr.Column{Index: 0, T: right.Schema().Columns[0].Type}
	}
	return right, rsc, nil, value, nil
}

// notInCond is NOT IN's condition over the joined row: l = r OR (l = r)
// IS NULL, which a NULL on either side makes TRUE.
type notInCond struct{ l, r expr.Expr }

func (c *notInCond) Eval(row []any) (any, error) {
	a, err := c.l.Eval(row)
	if err != nil || a == nil {
		return true, err
	}
	b, err := c.r.Eval(row)
	if err != nil || b == nil {
		return true, err
	}
	return expr.CompareValues(a, b) == 0, nil
}
func (c *notInCond) Type() types.Type { return types.TypeBoolean.AsNotNull() }
func (c *notInCond) IsConstant() bool { return false }

// shifted evaluates x over the fields of a row from off on: an expression
// of the right row over the joined row.
type shifted struct {
	x   expr.Expr
	off int
}

func (s *shifted) Eval(row []any) (any, error) { return s.x.Eval(row[s.off:]) }
func (s *shifted) Type() types.Type            { return s.x.Type() }
func (s *shifted) IsConstant() bool            { return s.x.IsConstant() }

// allTrue is the conjunction of join conditions: TRUE when each is TRUE.
type allTrue struct{ xs []expr.Expr }

func (a *allTrue) Eval(row []any) (any, error) {
	for _, x := range a.xs {
		v, err := x.Eval(row)
		if err != nil || v != true {
			return false, err
		}
	}
	return true, nil
}
func (a *allTrue) Type() types.Type { return types.TypeBoolean.AsNotNull() }
func (a *allTrue) IsConstant() bool { return false }
