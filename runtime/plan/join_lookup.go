package plan

import (
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Lookup joins: JOIN d FOR SYSTEM_TIME AS OF o.proc_time ON o.k = d.k,
// where proc_time is a PROCTIME() column, as Flink plans one over a
// lookup source: each probe row is joined with d as it is when the row
// arrives ([sqlop.LookupJoinNode]). Flink takes the time from either side
// (FOR SYSTEM_TIME AS OF proctime may name the dimension's own PROCTIME()
// column) and asks only that it be a processing time. Where Flink needs
// a connector that can look rows up (jdbc, hbase, flink-faker), ptfsh
// takes any table: faker tables answer each key as flink-faker does, and
// the others (files, VALUES, views) are read whole when the join starts.

// lookupJoin plans j as a lookup join when its FOR SYSTEM_TIME AS OF
// names a processing-time attribute; it returns nil (and no error) when
// it names something else, which temporalJoin then plans or refuses.
func (p *Planner) lookupJoin(j *sqlmini.Join, kind sqlop.JoinKind, n *sqlop.JoinNode, lsc, rsc, full *expr.Scope, conds []*sqlmini.NotExpr, sch types.Schema) (exec.Node, error) {
	proc := false
	if at, err := expr.Compile(j.Item.AsOf, lsc); err == nil {
		c, ok := at.(*expr.Column)
		proc = ok && lsc.Schema.Columns[c.Index].ProcTime
	} else if at, rerr := expr.Compile(j.Item.AsOf, rsc); rerr == nil {
		c, ok := at.(*expr.Column)
		proc = ok && rsc.Schema.Columns[c.Index].ProcTime
	}
	if !proc {
		return nil, nil
	}
	if kind == sqlop.RightJoin || kind == sqlop.FullJoin {
		return nil, sqlmini.Errorf(j.Pos, "Correlate has invalid join type %s: a lookup join is INNER or LEFT", strings.ToUpper(j.Kind))
	}
	name := "a subquery"
	if j.Item.Table != nil {
		name = string(j.Item.Table.Value)
	}
	// The keys: equalities between an expression of the probe and a
	// column of the dimension. The rest of the condition filters the
	// joined rows.
	t := &sqlop.LookupJoinNode{Left: n.Left, Right: n.Right, Kind: kind, Table: name}
	var rest, lookup []string
	var restConds []*sqlmini.NotExpr
	for _, c := range conds {
		l, r, ltext, ok := lookupKey(c, lsc, rsc)
		if !ok {
			restConds = append(restConds, c)
			rest = append(rest, c.String())
			continue
		}
		rt := rsc.Schema.Columns[r].Type
		rt.NotNull = false
		t.LeftKeys = append(t.LeftKeys, expr.CastTo(l, rt))
		t.RightCols = append(t.RightCols, r)
		lookup = append(lookup, rsc.Schema.Columns[r].Name+"="+ltext)
	}
	if len(t.RightCols) == 0 {
		return nil, sqlmini.Errorf(j.Pos, "Temporal table join requires an equality condition on fields of table [%s]: add ON %s.<column> = <a column of the left side>", name, name)
	}
	if len(restConds) > 0 {
		cond, err := expr.Compile(andOf(restConds), full)
		if err != nil {
			return nil, err
		}
		t.Cond = cond
	}
	width := lsc.Schema.Len()
	out := make([]types.Column, len(sch.Columns))
	copy(out, sch.Columns)
	for i := width; i < len(out); i++ {
		out[i].TimeAttr, out[i].ProcTime = false, false
	}
	t.Sch = types.Schema{Columns: out}
	t.Text = "LookupJoin(table=[" + name + "], joinType=[" + kind.String() + "], lookup=[" + strings.Join(lookup, ", ") + "]"
	if len(rest) > 0 {
		t.Text += ", where=[" + strings.Join(rest, " AND ") + "]"
	}
	t.Text += ", select=[" + strings.Join(t.Sch.Names(), ", ") + "])"
	return t, nil
}

// lookupKey reads c as a key of a lookup join: an equality between an
// expression of the probe (l) and a column of the dimension (its index
// r); ltext is the probe's side as written.
func lookupKey(c *sqlmini.NotExpr, lsc, rsc *expr.Scope) (l expr.Expr, r int, ltext string, ok bool) {
	if c.Not != nil || c.Pred == nil || c.Pred.Op != "=" || c.Pred.Right == nil {
		return nil, 0, "", false
	}
	a, b := additiveExpr(c.Pred.Left), additiveExpr(c.Pred.Right)
	for _, pair := range [][2]*sqlmini.Expr{{a, b}, {b, a}} {
		lx, err := expr.Compile(pair[0], lsc)
		if err != nil || lx.IsConstant() {
			continue
		}
		rx, err := expr.Compile(pair[1], rsc)
		if err != nil {
			continue
		}
		col, isCol := rx.(*expr.Column)
		if !isCol || !expr.Comparable(lx.Type(), rx.Type()) {
			continue
		}
		return lx, col.Index, ExprText(pair[0]), true
	}
	return nil, 0, "", false
}
