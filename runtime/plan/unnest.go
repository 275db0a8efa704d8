package plan

import (
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// isUnnest reports whether a FROM item is UNNEST(...).
func isUnnest(f *sqlmini.FromItem) bool {
	return f.Call2 != nil && strings.EqualFold(string(f.Call2.Name.Value), "UNNEST")
}

// planUnnest joins js with UNNEST(collection) over its columns, as Flink
// plans a Correlate: CROSS JOIN UNNEST(...), a comma, [INNER] JOIN
// UNNEST(...) ON condition, or LEFT JOIN UNNEST(...) ON TRUE. The
// element's columns are named by the alias's column list, else as
// Calcite names them (EXPR$0, a ROW's fields, a MAP's KEY and VALUE).
func (p *Planner) planUnnest(js *joinScope, j *sqlmini.Join, pending []*sqlmini.NotExpr) ([]*sqlmini.NotExpr, error) {
	c := j.Item.Call2
	kind := strings.ToUpper(j.Kind)
	switch {
	case j.Natural || len(j.Using) > 0:
		return nil, sqlmini.Errorf(j.Pos, "UNNEST joins with CROSS JOIN, a comma, or JOIN ... ON: not NATURAL or USING")
	case kind == "RIGHT" || kind == "FULL":
		return nil, sqlmini.Errorf(j.Pos, "%s JOIN UNNEST is not supported (as in Flink): use CROSS JOIN UNNEST or LEFT JOIN UNNEST(...) ON TRUE", kind)
	case j.Item.AsOf != nil || j.Item.Match != nil:
		return nil, sqlmini.Errorf(j.Item.Pos, "UNNEST(...) is read as it is: no FOR SYSTEM_TIME AS OF or MATCH_RECOGNIZE")
	case !j.Comma && j.On == nil && kind != "CROSS":
		return nil, sqlmini.Errorf(j.Pos, "%sJOIN needs a condition: add ON TRUE (or write CROSS JOIN)", kindWord(j.Kind))
	case kind == "CROSS" && j.On != nil:
		return nil, sqlmini.Errorf(j.On.Pos, "CROSS JOIN takes no ON condition: write JOIN ... ON")
	}
	if len(c.Args) != 1 || c.Args[0].Expr == nil || c.Args[0].Name != nil {
		return nil, sqlmini.Errorf(c.Pos, "UNNEST takes one ARRAY, MAP or MULTISET expression: UNNEST(t.tags)")
	}
	lsc := p.joinedScope(js)
	arg := c.Args[0].Expr
	x, err := expr.Compile(arg, lsc)
	if err != nil {
		return nil, err
	}
	n := &sqlop.UnnestNode{In: js.node, Expr: x, Left: kind == "LEFT"}
	t := x.Type()
	var elem []types.Column
	switch {
	case t.Kind == types.KindArray || t.Kind == types.KindMap && t.Multiset:
		et := *t.Elem
		if t.Multiset {
			et = *t.Key
		}
		if et.Kind == types.KindRow {
			n.RowElems = true
			for _, f := range et.Fields {
				elem = append(elem, types.Column{Name: f.Name, Type: f.Type})
			}
		} else {
			elem = []types.Column{{Name: "EXPR$0", Type: et}}
		}
		n.Multiset = t.Multiset
	case t.Kind == types.KindMap:
		n.Map = true
		elem = []types.Column{{Name: "KEY", Type: *t.Key}, {Name: "VALUE", Type: *t.Elem}}
	default:
		return nil, sqlmini.Errorf(arg.Pos, "UNNEST takes an ARRAY, a MAP or a MULTISET, not %s", t)
	}
	if n.Left {
		for i := range elem {
			elem[i].Type = elem[i].Type.Nullable()
		}
	}
	if cols := j.Item.AliasCols; len(cols) > 0 {
		if len(cols) != len(elem) {
			return nil, sqlmini.Errorf(cols[0].Pos, "List of column aliases must have same degree as table; table has %d columns (%s), whereas alias list has %d columns",
				len(elem), quotedNames(elem), len(cols))
		}
		for i, a := range cols {
			elem[i].Name = string(a.Value)
		}
	}
	ralias := ""
	if j.Item.Alias != nil {
		ralias = string(j.Item.Alias.Value)
		for _, t := range js.tables {
			if strings.EqualFold(t.Name, ralias) {
				return nil, sqlmini.Errorf(j.Item.Alias.Pos, "Duplicate relation name '%s' in FROM clause; give one of them an alias: %s AS %s2", ralias, ralias, ralias)
			}
		}
	}
	width := js.node.Schema().Len()
	n.Width = len(elem)
	cols := append(append([]types.Column(nil), js.node.Schema().Columns...), elem...)
	for i, u := range uniqueNames(names2(cols)) {
		cols[i].Name = u
	}
	n.Sch = types.Schema{Columns: cols}
	n.Text = "Correlate(invocation=[UNNEST(" + ExprText(arg) + ")], joinType=[" + map[bool]string{true: "LEFT", false: "INNER"}[n.Left] + "])"
	elemNames := make([]string, len(elem))
	for i, e := range elem {
		elemNames[i] = e.Name
	}
	tables := append(append([]expr.ScopeTable(nil), js.tables...), expr.ScopeTable{Name: ralias, Cols: elemNames, Start: width})
	var node exec.Node = n
	full := p.scope(n.Sch, tables)
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
	if len(conds) > 0 {
		cond, err := expr.Compile(andOf(conds), full)
		if err != nil {
			return nil, err
		}
		if k := cond.Type().Kind; k != types.KindBoolean && k != types.KindNull {
			return nil, sqlmini.Errorf(conds[0].Pos, "the join condition must be BOOLEAN, not %s", cond.Type())
		}
		isTrue := false
		if cond.IsConstant() {
			v, err := cond.Eval(nil)
			isTrue = err == nil && v == true
		}
		switch {
		case isTrue:
		case n.Left:
			return nil, sqlmini.Errorf(j.On.Pos, "LEFT JOIN UNNEST takes ON TRUE only (as in Flink): filter the elements in WHERE")
		default:
			node = &exec.FilterNode{In: n, Pred: cond, Text: andOf(conds).String()}
		}
	}
	js.joined(node, tables, width, len(elem))
	return pending, nil
}

// quotedNames lists columns as Calcite's messages do: 'a', 'b'.
func quotedNames(cols []types.Column) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = fmt.Sprintf("'%s'", c.Name)
	}
	return strings.Join(q, ", ")
}
