package plan

import (
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Temporal joins: JOIN v FOR SYSTEM_TIME AS OF a.ts ON a.k = v.k, with
// Flink's rules: the time is a time attribute of the left side (event
// time), v is a versioned table (a primary key and a time attribute), the
// condition has an equality on each primary key column, the join is INNER
// or LEFT, and the left side is insert-only.

// temporalJoin plans the temporal join j from the regular join n that
// planJoin built (inputs, keys and the rest of the condition). keyConds
// are the equalities that make the keys; sch is the joined row.
func (p *Planner) temporalJoin(j *sqlmini.Join, kind sqlop.JoinKind, n *sqlop.JoinNode, lsc, rsc *expr.Scope, keyConds []*sqlmini.NotExpr, sch types.Schema, where []string) (exec.Node, error) {
	if kind == sqlop.RightJoin || kind == sqlop.FullJoin {
		return nil, sqlmini.Errorf(j.Pos, "Correlate has invalid join type %s: a temporal join is INNER or LEFT", strings.ToUpper(j.Kind))
	}
	at, err := expr.Compile(j.Item.AsOf, lsc)
	if err != nil {
		return nil, err
	}
	c, ok := at.(*expr.Column)
	if !ok || !lsc.Schema.Columns[c.Index].TimeAttr {
		return nil, sqlmini.Errorf(j.Item.AsOf.Pos, "Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' left table's time attribute field: %s is not one (a time attribute is a column with a WATERMARK)", j.Item.AsOf)
	}
	if j.Item.Table == nil {
		return nil, sqlmini.Errorf(j.Item.Pos, "FOR SYSTEM_TIME AS OF needs a table (a versioned table: a PRIMARY KEY and a WATERMARK), not a subquery or a function call")
	}
	rs := n.Right.Schema()
	rtime := -1
	for i, col := range rs.Columns {
		if col.TimeAttr {
			rtime = i
			break
		}
	}
	pk := p.primaryKey(j.Item.Table, n.Right)
	if len(pk) == 0 {
		return nil, sqlmini.Errorf(j.Item.Pos, "Temporal Table Join requires primary key in versioned table, but no primary key can be found: declare PRIMARY KEY (...) NOT ENFORCED on '%s'", j.Item.Table.Value)
	}
	if rtime < 0 {
		return nil, sqlmini.Errorf(j.Item.Pos, "Event-Time Temporal Table Join requires both primary key and row time attribute in versioned table, but no row time attribute can be found: declare a WATERMARK on '%s'", j.Item.Table.Value)
	}
	if !n.Left.Changelog().IsInsertOnly() {
		return nil, sqlmini.Errorf(j.Pos, "a temporal join needs an insert-only left input, but it is updating %s", n.Left.Changelog())
	}
	// Each primary key column must be compared with the left side.
	keyCols := map[int]bool{}
	for _, kc := range keyConds {
		for _, a := range []*sqlmini.Additive{kc.Pred.Left, kc.Pred.Right} {
			if x, err := expr.Compile(additiveExpr(a), rsc); err == nil {
				if c, ok := x.(*expr.Column); ok {
					keyCols[c.Index] = true
				}
			}
		}
	}
	for _, k := range pk {
		found := keyCols[k]
		if !found {
			var conds []string
			for _, kc := range keyConds {
				conds = append(conds, kc.String())
			}
			return nil, sqlmini.Errorf(j.Pos, "Temporal table's primary key [%s] must be included in the equivalence condition of temporal join, but current temporal join condition is [%s]", rs.Columns[k].Name, strings.Join(conds, " AND "))
		}
	}
	// The versioned table's time is a plain TIMESTAMP in the output.
	out := make([]types.Column, len(sch.Columns))
	copy(out, sch.Columns)
	for i := lsc.Schema.Len(); i < len(out); i++ {
		out[i].TimeAttr = false
	}
	t := &sqlop.TemporalJoinNode{Left: n.Left, Right: n.Right, Kind: kind, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, Cond: n.Cond,
		LeftTime: c.Index, RightTime: rtime, Sch: types.Schema{Columns: out}}
	t.Text = "TemporalJoin(joinType=[" + kind.String() + "], where=[" + strings.Join(where, " AND ") + "], asOf=[" + j.Item.AsOf.String() +
		"], select=[" + strings.Join(t.Sch.Names(), ", ") + "])"
	return t, nil
}

// primaryKey is the primary key of a versioned table: the catalog table's
// PRIMARY KEY, or the upsert key of a view.
func (p *Planner) primaryKey(name *sqlmini.Name, n exec.Node) []int {
	if _, ok := p.ctes[string(name.Value)]; !ok {
		if t, ok := p.cat.Table(string(name.Value)); ok && len(t.PrimaryKey) > 0 {
			return t.PrimaryKey
		}
	}
	return exec.UpsertKeyOf(n)
}
