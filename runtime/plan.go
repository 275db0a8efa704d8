package runtime

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/sqlmini"
)

// planner turns a query's AST into a tree of plan nodes, resolving names
// against the catalog and the query's WITH clauses.
type planner struct {
	s    *Session
	ctes map[string]node
	// uids collects the uids of the PTF calls of one statement.
	uids map[string]*sqlmini.Call
}

func newPlanner(s *Session) *planner {
	return &planner{s: s, ctes: map[string]node{}, uids: map[string]*sqlmini.Call{}}
}

func (p *planner) planQuery(q *sqlmini.Query) (node, error) {
	if len(q.With) > 0 {
		saved := p.ctes
		p.ctes = make(map[string]node, len(saved)+len(q.With))
		for k, v := range saved {
			p.ctes[k] = v
		}
		defer func() { p.ctes = saved }()
		for _, cte := range q.With {
			n, err := p.planQuery(cte.Query)
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
	if err != nil || len(q.Union) == 0 {
		return first, err
	}
	ins := []node{first}
	for _, u := range q.Union {
		n, err := p.planSetExpr(u)
		if err != nil {
			return nil, err
		}
		if n.schema().Len() != first.schema().Len() {
			return nil, sqlmini.Errorf(u.Pos, "UNION ALL branches have %d and %d columns", first.schema().Len(), n.schema().Len())
		}
		ins = append(ins, n)
	}
	return &unionNode{ins: ins}, nil
}

func (p *planner) planSetExpr(se *sqlmini.SetExpr) (node, error) {
	switch {
	case se.Select != nil:
		return p.planSelect(se.Select)
	case se.Values != nil:
		return p.planValues(se.Values)
	}
	return p.planQuery(se.Paren)
}

// planValues types VALUES columns as Flink does (see leastRestrictive) and
// names them EXPR$0, EXPR$1, ...
func (p *planner) planValues(v *sqlmini.Values) (node, error) {
	width := len(v.Rows[0].Values)
	exprs := make([][]expr, len(v.Rows))
	for i, r := range v.Rows {
		if len(r.Values) != width {
			return nil, sqlmini.Errorf(r.Pos, "VALUES rows must have the same number of values: row 1 has %d, row %d has %d", width, i+1, len(r.Values))
		}
		for _, e := range r.Values {
			x, err := compileExpr(e, nil)
			if err != nil {
				return nil, err
			}
			exprs[i] = append(exprs[i], x)
		}
	}
	cols := make([]Column, width)
	for c := 0; c < width; c++ {
		var ts []Type
		for i := range exprs {
			ts = append(ts, exprs[i][c].typ())
		}
		cols[c] = Column{Name: "EXPR$" + strconv.Itoa(c), Type: leastRestrictive(ts)}
	}
	rows := make([]Row, len(exprs))
	for i, es := range exprs {
		f := make([]any, width)
		for c, x := range es {
			val, err := x.eval(nil)
			if err != nil {
				return nil, sqlmini.Errorf(v.Rows[i].Values[c].Pos, "%v", err)
			}
			if f[c], err = castValue(val, cols[c].Type); err != nil {
				return nil, sqlmini.Errorf(v.Rows[i].Values[c].Pos, "%v", err)
			}
		}
		rows[i] = Row{Kind: Insert, Fields: f}
	}
	return &valuesNode{sch: Schema{Columns: cols}, rows: rows}, nil
}

// renameColumns gives a node new column names (a view's or alias's list).
func renameColumns(n node, names []*sqlmini.Name, pos sqlmini.Pos) (node, error) {
	s := n.schema()
	if len(names) != s.Len() {
		return nil, sqlmini.Errorf(pos, "%d column names given for %d columns %s", len(names), s.Len(), namesOf(s))
	}
	cols := make([]Column, s.Len())
	copy(cols, s.Columns)
	for i, nm := range names {
		cols[i].Name = string(nm.Value)
	}
	return &renameNode{in: n, sch: Schema{Columns: cols}}, nil
}

func namesOf(s Schema) string { return "[" + strings.Join(s.Names(), ", ") + "]" }

// renameNode is its input with other column names.
type renameNode struct {
	in  node
	sch Schema
}

func (n *renameNode) schema() Schema                     { return n.sch }
func (n *renameNode) changelog() ChangelogMode           { return n.in.changelog() }
func (n *renameNode) children() []node                   { return n.in.children() }
func (n *renameNode) explain() string                    { return n.in.explain() }
func (n *renameNode) open(ex *execution) (stream, error) { return n.in.open(ex) }

func (p *planner) planSelect(sel *sqlmini.Select) (node, error) {
	if len(sel.GroupBy) > 0 {
		return nil, sqlmini.Errorf(sel.GroupBy[0].Pos, "GROUP BY is not supported yet")
	}
	if sel.Distinct {
		return nil, sqlmini.Errorf(sel.Pos, "SELECT DISTINCT is not supported yet")
	}
	in, alias, err := p.planFrom(sel.From)
	if err != nil {
		return nil, err
	}
	sc := &scope{schema: in.schema(), alias: alias}
	if sel.Where != nil {
		pred, err := compileExpr(sel.Where, sc)
		if err != nil {
			return nil, err
		}
		if k := pred.typ().Kind; k != KindBoolean && k != KindNull {
			return nil, sqlmini.Errorf(sel.Where.Pos, "WHERE needs a BOOLEAN condition, not %s", pred.typ())
		}
		in = &filterNode{in: in, pred: pred, text: exprText(sel.Where)}
	}
	if !(len(sel.Items) == 1 && sel.Items[0].Star) {
		var exprs []expr
		var cols []Column
		var texts []string
		for _, it := range sel.Items {
			if it.Star {
				for i, c := range sc.schema.Columns {
					exprs = append(exprs, &colExpr{i: i, t: c.Type})
					cols = append(cols, c)
					texts = append(texts, c.Name)
				}
				continue
			}
			x, err := compileExpr(it.Expr, sc)
			if err != nil {
				return nil, err
			}
			name := "EXPR$" + strconv.Itoa(len(cols))
			col := Column{Type: x.typ()}
			if ce, ok := x.(*colExpr); ok {
				name = sc.schema.Columns[ce.i].Name
				col.TimeAttr = sc.schema.Columns[ce.i].TimeAttr
			}
			if it.Alias != nil {
				name = string(it.Alias.Value)
			}
			col.Name = name
			exprs = append(exprs, x)
			cols = append(cols, col)
			texts = append(texts, exprText(it.Expr))
		}
		in = &projectNode{in: in, exprs: exprs, sch: Schema{Columns: cols}, texts: texts}
	}
	if sel.Limit != nil {
		n, err := strconv.ParseInt(*sel.Limit, 10, 64)
		if err != nil || n < 0 {
			return nil, sqlmini.Errorf(sel.Pos, "LIMIT needs a whole number, not %s", *sel.Limit)
		}
		in = &limitNode{in: in, n: n}
	}
	return in, nil
}

// exprText prints an expression for EXPLAIN and messages.
func exprText(e *sqlmini.Expr) string {
	if s, ok := any(e).(fmt.Stringer); ok {
		return s.String()
	}
	return "expr"
}

func (p *planner) planFrom(f *sqlmini.FromItem) (node, string, error) {
	if f == nil { // SELECT without FROM: one row of no columns
		return &valuesNode{rows: []Row{{Kind: Insert}}}, "", nil
	}
	var n node
	var err error
	alias := ""
	switch {
	case f.Call != nil:
		n, err = p.planCall(f.Call)
	case f.Call2 != nil:
		n, err = p.planCall(f.Call2)
	case f.Subquery != nil:
		n, err = p.planQuery(f.Subquery)
	default:
		alias = string(f.Table.Value)
		n, err = p.planTableRef(f.Table)
	}
	if err != nil {
		return nil, "", err
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
func (p *planner) planTableRef(name *sqlmini.Name) (node, error) {
	nm := string(name.Value)
	if n, ok := p.ctes[nm]; ok {
		return n, nil
	}
	t, ok := p.s.cat.Table(nm)
	if !ok {
		return nil, sqlmini.Errorf(name.Pos, "Object '%s' not found%s", nm, p.s.suggestTable(nm))
	}
	return p.planTable(t)
}

func (p *planner) planTable(t *Table) (node, error) {
	switch t.Kind {
	case TableView:
		vp := newPlanner(p.s)
		vp.uids = p.uids
		n, err := vp.planQuery(t.Query)
		if err != nil {
			return nil, fmt.Errorf("view %s: %w", t.Name, err)
		}
		if len(t.ColumnNames) > 0 {
			cols := make([]Column, n.schema().Len())
			copy(cols, n.schema().Columns)
			for i := range cols {
				cols[i].Name = t.ColumnNames[i]
			}
			n = &renameNode{in: n, sch: Schema{Columns: cols}}
		}
		return n, nil
	case TableFile:
		return p.planFileTable(t)
	}
	return nil, fmt.Errorf("table %s cannot be read", t.Name)
}
