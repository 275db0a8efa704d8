package plan

import (
	"reflect"
	"strings"

	"github.com/ptfsh/ptfsh/sqlmini"
)

// Group windows, the form of windows before Flink 1.13 that Flink 2.3
// still accepts:
//
//	SELECT k, TUMBLE_START(ts, INTERVAL '1' MINUTE), TUMBLE_ROWTIME(ts, INTERVAL '1' MINUTE), COUNT(*)
//	FROM t GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE), k
//
// with HOP(ts, slide, size) and SESSION(ts, gap) beside TUMBLE. Flink
// plans them as the window table functions it plans today, and so does
// ptfsh: the query above is planned as
//
//	SELECT k, window_start, window_time, COUNT(*)
//	FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, window_time, k
//
// X_START is window_start, X_END window_end, X_ROWTIME window_time (the
// window's last millisecond, a time attribute); for SESSION the other
// GROUP BY columns are the table function's PARTITION BY. The rewrite
// works on a copy, so that a view's query stays as it was written. Where
// the grouped table has columns named window_start, window_end or
// window_time already (a second window over the first's), the function's
// own columns hide them, as the group window's input columns are read
// only through its time attribute.

// groupWindowKinds are the group window functions and their table
// functions' names.
var groupWindowKinds = map[string]bool{"TUMBLE": true, "HOP": true, "SESSION": true}

// groupWindowAuxiliary maps the suffix of X_START and its kin to the
// window table function's column.
var groupWindowAuxiliary = map[string]string{"_START": "window_start", "_END": "window_end", "_ROWTIME": "window_time", "_PROCTIME": "window_time"}

// primaryOf returns the Primary that an expression is, with nothing
// around it, or nil.
func primaryOf(e *sqlmini.Expr) *sqlmini.Primary {
	if e == nil || len(e.Right) > 0 || len(e.Left.Right) > 0 || e.Left.Left.Pred == nil {
		return nil
	}
	pr := e.Left.Left.Pred
	if pr.Op != "" || pr.In != nil || pr.Between != nil || pr.Like != nil || pr.IsNull || pr.NotNull || pr.Truth != "" || pr.IsNot {
		return nil
	}
	add := pr.Left
	if len(add.Right) > 0 || len(add.Left.Right) > 0 || add.Left.Left.Minus {
		return nil
	}
	return add.Left.Left.Primary
}

// groupWindowOf returns the group window function that a GROUP BY item
// is, if any.
func groupWindowOf(e *sqlmini.Expr) *sqlmini.FuncCall {
	p := primaryOf(e)
	if p == nil || p.Func == nil || p.Func.Over != nil {
		return nil
	}
	if groupWindowKinds[strings.ToUpper(string(p.Func.Name.Value))] {
		return p.Func
	}
	return nil
}

// rewriteGroupWindow returns the SELECT planned in place of one with a
// group window in its GROUP BY, and the window table function's call in
// its FROM; or sel itself and nil when it has none.
func rewriteGroupWindow(sel *sqlmini.Select) (*sqlmini.Select, *sqlmini.Call, error) {
	at := -1
	for i, g := range sel.GroupBy {
		if groupWindowOf(g) != nil {
			if at >= 0 {
				return nil, nil, sqlmini.Errorf(g.Pos, "a GROUP BY has at most one group window function (TUMBLE, HOP or SESSION)")
			}
			at = i
		}
	}
	if at < 0 {
		return sel, nil, nil
	}
	sel = deepCopy(sel)
	gw := groupWindowOf(sel.GroupBy[at])
	kind := strings.ToUpper(string(gw.Name.Value))
	want := map[string]int{"TUMBLE": 2, "HOP": 3, "SESSION": 2}[kind]
	if len(gw.Args) != want {
		return nil, nil, sqlmini.Errorf(gw.Pos, "the group window function %s takes %d arguments (the time attribute, then %s), not %d", kind, want,
			map[string]string{"TUMBLE": "the size", "HOP": "the slide and the size", "SESSION": "the gap"}[kind], len(gw.Args))
	}
	tp := primaryOf(gw.Args[0])
	if tp == nil || tp.Column == nil {
		return nil, nil, sqlmini.Errorf(gw.Args[0].Pos, "the first argument of %s is the time attribute column that the rows are windowed by", kind)
	}
	timeCol := tp.Column.Parts[len(tp.Column.Parts)-1]
	f := sel.From
	if f == nil || len(sel.Joins) > 0 || (f.Table == nil && f.Subquery == nil) || f.Match != nil || f.AsOf != nil {
		return nil, nil, sqlmini.Errorf(gw.Pos, "a group window function (%s) groups the rows of one table, view or subquery in FROM; join first in a view or subquery", kind)
	}
	table := &sqlmini.TableArg{Pos: f.Pos, Name: f.Table, Query: f.Subquery}
	if kind == "SESSION" {
		for i, g := range sel.GroupBy {
			if i == at {
				continue
			}
			p := primaryOf(g)
			if p == nil || p.Column == nil {
				return nil, nil, sqlmini.Errorf(g.Pos, "a GROUP BY with SESSION(...) groups by columns besides it, which ptfsh plans as the session's PARTITION BY; this is an expression")
			}
			table.PartitionBy = append(table.PartitionBy, p.Column.Parts[len(p.Column.Parts)-1])
		}
	}
	args := []*sqlmini.Arg{{Pos: f.Pos, Table: table},
		{Pos: gw.Args[0].Pos, Expr: primaryExpr(gw.Args[0].Pos, &sqlmini.Primary{Pos: gw.Args[0].Pos, IsDesc: true, Descriptor: []*sqlmini.Name{timeCol}})}}
	for _, a := range gw.Args[1:] {
		args = append(args, &sqlmini.Arg{Pos: a.Pos, Expr: a})
	}
	sel.From = &sqlmini.FromItem{Pos: f.Pos, Call: &sqlmini.Call{Pos: gw.Pos, Name: gw.Name, Args: args}, Alias: f.Alias}
	groups := append([]*sqlmini.Expr{}, sel.GroupBy[:at]...)
	groups = append(groups, columnExpr(gw.Pos, "window_start"), columnExpr(gw.Pos, "window_end"), columnExpr(gw.Pos, "window_time"))
	sel.GroupBy = append(groups, sel.GroupBy[at+1:]...)
	// The auxiliary functions of the window read its columns.
	var err error
	call := gw.String()[len(kind):] // "(ts, INTERVAL '1' MINUTE)"
	replace := func(node any) {
		p, ok := node.(*sqlmini.Primary)
		if !ok || p.Func == nil || err != nil {
			return
		}
		name := strings.ToUpper(string(p.Func.Name.Value))
		suffix, isAux := strings.CutPrefix(name, kind)
		col, known := groupWindowAuxiliary[suffix]
		if !isAux || !known {
			for k := range groupWindowKinds {
				for s := range groupWindowAuxiliary {
					if name == k+s && k != kind {
						err = sqlmini.Errorf(p.Func.Pos, "%s belongs to a %s window, but the GROUP BY has %s", name, k, kind)
					}
				}
			}
			return
		}
		if got := p.Func.String()[len(name):]; !strings.EqualFold(got, call) {
			err = sqlmini.Errorf(p.Func.Pos, "%s%s must repeat the arguments of the GROUP BY's %s%s", name, got, kind, call)
			return
		}
		pos := p.Func.Pos
		p.Func = nil
		p.Column = &sqlmini.ColumnRef{Pos: pos, Parts: []*sqlmini.Name{{Pos: pos, Value: sqlmini.Ident(col)}}}
	}
	for _, it := range sel.Items {
		sqlmini.Inspect(it, replace)
	}
	sqlmini.Inspect(sel.Having, replace)
	for _, o := range sel.OrderBy {
		sqlmini.Inspect(o, replace)
	}
	if err != nil {
		return nil, nil, err
	}
	return sel, sel.From.Call, nil
}

// primaryExpr wraps a Primary into an expression.
func primaryExpr(pos sqlmini.Pos, p *sqlmini.Primary) *sqlmini.Expr {
	e := columnExpr(pos, "x")
	e.Left.Left.Pred.Left.Left.Left.Primary = p
	return e
}

// deepCopy copies an AST node and everything below it, so that a rewrite
// leaves the statement (a view's query in the catalog) as it was.
func deepCopy[T any](v T) T {
	return copyValue(reflect.ValueOf(v)).Interface().(T)
}

func copyValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Elem().Type())
		c.Elem().Set(copyValue(v.Elem()))
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v) // unexported fields and plain values
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				c.Field(i).Set(copyValue(v.Field(i)))
			}
		}
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(copyValue(v.Index(i)))
		}
		return c
	}
	return v
}
