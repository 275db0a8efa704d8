package plan

import (
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Set operations, as Flink's streaming planner plans them: UNION ALL is a
// Union of the branches; UNION is a Union then a GROUP BY of every column
// (one row for each distinct row); INTERSECT is a semi join of the left
// rows to the right ones on every column (IS NOT DISTINCT FROM: NULLs
// match) then the same GROUP BY, EXCEPT an anti join then the GROUP BY.
// INTERSECT binds tighter than UNION and EXCEPT, which go left to right.
// The columns take the least restrictive type of the branches and the
// names of the first.

// setOperand is a planned operand of a query's set operations and the
// operation that brings it in (nil for the first).
type setOperand struct {
	op *sqlmini.SetOp
	n  exec.Node
}

// planSetOps plans the set operations of q, whose first operand is first.
func (p *Planner) planSetOps(q *sqlmini.Query, first exec.Node) (exec.Node, error) {
	// INTERSECT first: each run of INTERSECTs becomes one operand.
	terms := []setOperand{{n: first}}
	for _, op := range q.Ops {
		n, err := p.planSetExpr(op.Right)
		if err != nil {
			return nil, err
		}
		if op.Name() != "INTERSECT" {
			terms = append(terms, setOperand{op: op, n: n})
			continue
		}
		last := &terms[len(terms)-1]
		if last.n, err = p.setOp(op, []exec.Node{last.n, n}); err != nil {
			return nil, err
		}
	}
	acc := terms[0].n
	for i := 1; i < len(terms); i++ {
		op := terms[i].op
		ins := []exec.Node{acc, terms[i].n}
		// A run of UNIONs of one kind is one Union of every branch.
		for i+1 < len(terms) && terms[i+1].op.Name() == "UNION" && op.Name() == "UNION" && terms[i+1].op.All == op.All {
			i++
			ins = append(ins, terms[i].n)
		}
		var err error
		if acc, err = p.setOp(op, ins); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// setOp plans one set operation over its operands (two, or more for a
// run of UNIONs).
func (p *Planner) setOp(op *sqlmini.SetOp, ins []exec.Node) (exec.Node, error) {
	name := op.Name()
	if op.All && name != "UNION" {
		return nil, sqlmini.Errorf(op.Pos, "%s ALL is not supported yet: %s (DISTINCT) is", name, name)
	}
	what := name
	if op.All {
		what += " ALL"
	}
	for _, in := range ins[1:] {
		if in.Schema().Len() != ins[0].Schema().Len() {
			return nil, sqlmini.Errorf(op.Right.Pos, "%s branches have %d and %d columns", what, ins[0].Schema().Len(), in.Schema().Len())
		}
	}
	ins, err := commonColumns(op.Right.Pos, what, ins)
	if err != nil {
		return nil, err
	}
	var n exec.Node
	switch name {
	case "UNION":
		n = &exec.UnionNode{Ins: ins}
		if op.All {
			return n, nil
		}
	default:
		left, right := ins[0], ins[1]
		if left, err = retracting(left, op.Pos); err != nil {
			return nil, err
		}
		if right, err = retracting(right, op.Pos); err != nil {
			return nil, err
		}
		sj := &sqlop.SemiJoinNode{Left: left, Right: right, Anti: name == "EXCEPT", NullSafe: true}
		var conds []string
		for c, col := range left.Schema().Columns {
			sj.LeftKeys = append(sj.LeftKeys, &expr.Column{Index: c, T: col.Type})
			sj.RightKeys = append(sj.RightKeys, &expr.Column{Index: c, T: right.Schema().Columns[c].Type})
			conds = append(conds, "IS NOT DISTINCT FROM("+col.Name+", "+right.Schema().Columns[c].Name+"0)")
		}
		kind := "LeftSemiJoin"
		if sj.Anti {
			kind = "LeftAntiJoin"
		}
		sj.Text = sqlop.JoinText(kind, strings.Join(conds, " AND "), left.Schema())
		n = sj
	}
	return p.distinct(op.Pos, n)
}

// commonColumns casts each operand's columns to the least restrictive
// type of the operands', as Flink types UNION ALL columns.
func commonColumns(pos sqlmini.Pos, what string, ins []exec.Node) ([]exec.Node, error) {
	first := ins[0].Schema()
	cols := make([]types.Column, first.Len())
	copy(cols, first.Columns)
	for c := range cols {
		var ts []types.Type
		for _, in := range ins {
			t := in.Schema().Columns[c].Type
			if len(ts) > 0 && t.Kind != types.KindNull && ts[0].Kind != types.KindNull && !expr.Comparable(ts[0], t) {
				return nil, sqlmini.Errorf(pos, "Type mismatch in column %d of %s: %s and %s", c+1, what, ts[0], t)
			}
			ts = append(ts, t)
		}
		cols[c].Type = expr.LeastRestrictive(ts)
	}
	out := make([]exec.Node, len(ins))
	for i, in := range ins {
		var exprs []expr.Expr
		cast := false
		for c, col := range in.Schema().Columns {
			exprs = append(exprs, expr.CastTo(&expr.Column{Index: c, T: col.Type}, cols[c].Type))
			if !col.Type.Equal(cols[c].Type) {
				cast = true
			}
		}
		out[i] = in
		if cast {
			out[i] = &exec.ProjectNode{In: in, Exprs: exprs, Sch: types.Schema{Columns: cols}, Texts: names2(cols)}
		}
	}
	return out, nil
}

// distinct plans SELECT DISTINCT * over n: a GROUP BY of every column.
func (p *Planner) distinct(pos sqlmini.Pos, n exec.Node) (exec.Node, error) {
	const name = "$distinct"
	saved, had := p.ctes[name]
	p.ctes[name] = n
	defer func() {
		if had {
			p.ctes[name] = saved
		} else {
			delete(p.ctes, name)
		}
	}()
	st, err := sqlmini.ParseStatement(pos.Filename, "SELECT DISTINCT * FROM `"+name+"`")
	if err != nil {
		return nil, err
	}
	return p.Query(st.Query)
}
