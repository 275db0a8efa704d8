package plan

import (
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// OVER windows in a SELECT list, with Flink's streaming rules: every call
// of a SELECT is computed over the same window, ordered by one ascending
// time attribute, from UNBOUNDED or n PRECEDING to the current row
// ([sqlop.OverNode]), or by another column from UNBOUNDED PRECEDING, which
// updates ([sqlop.OverSortedNode]). ROW_NUMBER() filtered by rn <= N in the SELECT around
// is a Top-N or a deduplication instead (rank.go).

// errSameWindow is Flink's message for calls over different windows in
// one SELECT.
const errSameWindow = "Over Agg: Unsupported use of OVER windows. All aggregates must be computed on the same window. please re-check the over window statement."

// findOver returns the first call with an OVER window inside a node of
// the AST.
func findOver(node any) *sqlmini.FuncCall {
	var found *sqlmini.FuncCall
	sqlmini.Walk(node, func(n any) bool {
		if f, ok := n.(*sqlmini.FuncCall); ok && f.Over != nil && found == nil {
			found = f
		}
		return found == nil
	})
	return found
}

// findOverOf finds an OVER call of a SELECT's own clauses (its list,
// GROUP BY and HAVING), not of the subqueries it reads.
func findOverOf(sel *sqlmini.Select) *sqlmini.FuncCall {
	for _, it := range sel.Items {
		if it.Expr != nil {
			if f := findOver(it.Expr); f != nil {
				return f
			}
		}
	}
	for _, g := range sel.GroupBy {
		if f := findOver(g); f != nil {
			return f
		}
	}
	if sel.Having != nil {
		return findOver(sel.Having)
	}
	return nil
}

// hasOver reports whether a SELECT's items call a function OVER a window.
func hasOver(sel *sqlmini.Select) bool {
	for _, it := range sel.Items {
		if it.Expr != nil && findOver(it.Expr) != nil {
			return true
		}
	}
	return false
}

// overPlanner compiles the OVER calls of one SELECT list: each becomes a
// reference to a column that the OverNode appends after the input's.
type overPlanner struct {
	p     *Planner
	sel   *sqlmini.Select
	in    exec.Node
	sc    *expr.Scope // the input's columns, without the Over hook
	spec  *sqlmini.WindowSpec
	text  string // the window as printed: every call must have it
	node  *sqlop.OverNode
	calls map[string]int // calls by text, to compute each once
	// sortKeys order a window by columns that are not a time attribute
	// (an [sqlop.OverSortedNode]), else nil.
	sortKeys []sqlop.OrderKey
	sortPos  sqlmini.Pos // the ORDER BY of such a window
	// rank is the ROW_NUMBER call that the SELECT around filters by its
	// rank (rank.go); built is the node planned for it.
	rank  *rankSpec
	built exec.Node
}

// window resolves a call's window: written out, or named in WINDOW.
func (o *overPlanner) window(f *sqlmini.FuncCall) (*sqlmini.WindowSpec, error) {
	if f.Over.Window != nil {
		return f.Over.Window, nil
	}
	name := string(f.Over.Name.Value)
	for _, w := range o.sel.Windows {
		if strings.EqualFold(string(w.Name.Value), name) {
			return w.Window, nil
		}
	}
	return nil, sqlmini.Errorf(f.Over.Name.Pos, "Window '%s' not found", name)
}

// call compiles one OVER call (the Scope's Over hook).
func (o *overPlanner) call(f *sqlmini.FuncCall) (expr.Expr, error) {
	name := strings.ToUpper(string(f.Name.Value))
	switch name {
	case "LEAD":
		return nil, sqlmini.Errorf(f.Pos, "LEAD Function is not supported in stream mode.")
	case "RANK", "DENSE_RANK":
		if o.rank != nil && o.rank.call == f && o.windowRanked(f) {
			return nil, sqlmini.Errorf(f.Pos, "%s() function is not supported on Window TopN currently, only ROW_NUMBER() is supported.", name)
		}
		return nil, sqlmini.Errorf(f.Pos, "%s() on streaming table is not supported currently", name)
	}
	spec, err := o.window(f)
	if err != nil {
		return nil, err
	}
	if o.rank != nil && o.rank.call == f {
		if o.spec != nil || o.built != nil {
			return nil, sqlmini.Errorf(f.Over.Pos, "%s", errSameWindow)
		}
		if err := o.rankNode(f, spec); err != nil {
			return nil, err
		}
		return &expr.Column{Index: o.in.Schema().Len(), T: types.TypeBigInt.AsNotNull()}, nil
	}
	if o.built != nil {
		return nil, sqlmini.Errorf(f.Over.Pos, "%s", errSameWindow)
	}
	if o.spec == nil {
		if err := o.setWindow(f, spec); err != nil {
			return nil, err
		}
	} else if spec.String() != o.text {
		return nil, sqlmini.Errorf(f.Over.Pos, "%s", errSameWindow)
	}
	text := f.String()
	if i, ok := o.calls[text]; ok {
		c := o.node.Calls[i]
		return &expr.Column{Index: o.in.Schema().Len() + i, T: c.Typ}, nil
	}
	c := &sqlop.OverCall{Fn: name}
	switch {
	case aggregateFuncs[name]:
		a := &aggPlanner{sc: o.sc, ctext: map[string]int{}}
		bare := *f
		bare.Over = nil
		if _, err := a.call(&bare); err != nil {
			return nil, err
		}
		c.Agg = a.calls[0]
		c.Arg, c.Typ = c.Agg.Arg, c.Agg.Typ
		if name != "COUNT" && name != "COLLECT" {
			c.Typ = c.Typ.Nullable() // NULL over a window of NULLs
		}
		c.Text = c.Agg.Text
	case name == "FIRST_VALUE", name == "LAST_VALUE":
		if len(f.Args) != 1 || f.Star || f.Distinct {
			return nil, sqlmini.Errorf(f.Pos, "Invalid number of arguments to function '%s'. Was expecting 1 arguments", name)
		}
		x, err := expr.Compile(f.Args[0], o.sc)
		if err != nil {
			return nil, err
		}
		c.Arg, c.Typ, c.Text = x, x.Type().Nullable(), name+"("+ExprText(f.Args[0])+")"
	case name == "ROW_NUMBER":
		if len(f.Args) > 0 || f.Star || f.Distinct {
			return nil, sqlmini.Errorf(f.Pos, "Invalid number of arguments to function 'ROW_NUMBER'. Was expecting 0 arguments")
		}
		if spec.Frame != nil {
			return nil, sqlmini.Errorf(spec.Frame.Pos, "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions")
		}
		c.Typ, c.Text = types.TypeBigInt.AsNotNull(), "ROW_NUMBER()"
	case name == "LAG":
		if err := o.lag(f, spec, c); err != nil {
			return nil, err
		}
		if o.sortKeys != nil {
			return nil, sqlmini.Errorf(f.Pos, "LAG over a window ordered by a column that is not a time attribute is not supported (Flink 2.3 fails when it runs); order by a WATERMARK column")
		}
	default:
		return nil, sqlmini.Errorf(f.Pos, "%s OVER a window is not supported yet (the aggregate functions, FIRST_VALUE, LAST_VALUE, ROW_NUMBER and LAG are)", name)
	}
	for _, d := range o.node.Calls {
		if (d.Fn == "ROW_NUMBER") != (c.Fn == "ROW_NUMBER") {
			// ROW_NUMBER counts rows (a ROWS frame), the others a RANGE.
			return nil, sqlmini.Errorf(f.Over.Pos, "%s", errSameWindow)
		}
	}
	o.calls[text] = len(o.node.Calls)
	o.node.Calls = append(o.node.Calls, c)
	return &expr.Column{Index: o.in.Schema().Len() + len(o.node.Calls) - 1, T: c.Typ}, nil
}

// lag compiles LAG(x [, offset [, default]]).
func (o *overPlanner) lag(f *sqlmini.FuncCall, spec *sqlmini.WindowSpec, c *sqlop.OverCall) error {
	if len(f.Args) < 1 || len(f.Args) > 3 || f.Star || f.Distinct {
		return sqlmini.Errorf(f.Pos, "Invalid number of arguments to function 'LAG'. Was expecting 1 to 3 arguments")
	}
	if spec.Frame != nil {
		// Calcite's message, which names ROW_NUMBER's siblings.
		return sqlmini.Errorf(spec.Frame.Pos, "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions")
	}
	x, err := expr.Compile(f.Args[0], o.sc)
	if err != nil {
		return err
	}
	c.Arg, c.Offset, c.Typ = x, 1, x.Type()
	c.Text = "LAG(" + ExprText(f.Args[0])
	if len(f.Args) > 1 {
		n, err := constInt(f.Args[1], o.sc)
		if err != nil {
			return sqlmini.Errorf(f.Args[1].Pos, "LAG's offset must be a constant whole number, not %s", ExprText(f.Args[1]))
		}
		if n < 0 {
			return sqlmini.Errorf(f.Args[1].Pos, "Offset(%d) should be positive.", n)
		}
		c.Offset = n
		c.Text += ", " + ExprText(f.Args[1])
	}
	if len(f.Args) > 2 {
		d, err := expr.Compile(f.Args[2], o.sc)
		if err != nil {
			return err
		}
		// Flink types LAG with a default by the default's nullability
		// (a NULL value then fails its NOT NULL sink; ptfsh prints it).
		c.Typ = x.Type()
		c.Typ.NotNull = d.Type().NotNull
		if !expr.Comparable(d.Type(), x.Type()) {
			return sqlmini.Errorf(f.Args[2].Pos, "Please explicitly cast default value %s to %s.", d.Type(), c.Typ)
		}
		c.Default = expr.CastTo(d, x.Type().Nullable())
		c.Text += ", " + ExprText(f.Args[2])
	} else {
		c.Typ = c.Typ.Nullable()
	}
	c.Text += ")"
	return nil
}

// constInt evaluates a constant whole number.
func constInt(e *sqlmini.Expr, sc *expr.Scope) (int64, error) {
	x, err := expr.Compile(e, &expr.Scope{Now: sc.Now, Zone: sc.Zone})
	if err != nil {
		return 0, err
	}
	v, err := x.Eval(nil)
	if err != nil {
		return 0, err
	}
	if n, ok := toInt64(v); ok {
		return n, nil
	}
	return 0, strconv.ErrSyntax
}

// setWindow checks the SELECT's window against Flink's streaming rules
// and builds the OverNode from it.
func (o *overPlanner) setWindow(f *sqlmini.FuncCall, spec *sqlmini.WindowSpec) error {
	sch := o.in.Schema()
	if m := o.in.Changelog(); !m.IsInsertOnly() {
		return sqlmini.Errorf(f.Over.Pos, "an OVER window over an updating input (%s) is not supported yet: it takes insert-only rows", m)
	}
	n := &sqlop.OverNode{In: o.in, Frame: sqlop.OverFrame{Unbounded: true}}
	for _, e := range spec.PartitionBy {
		x, err := expr.Compile(e, o.sc)
		if err != nil {
			return err
		}
		n.Partition = append(n.Partition, x)
		n.PartText = append(n.PartText, ExprText(e))
	}
	if len(spec.OrderBy) != 1 {
		pos := f.Over.Pos
		if len(spec.OrderBy) > 1 {
			pos = spec.OrderBy[1].Pos
		}
		return sqlmini.Errorf(pos, "The window can only be ordered by a single time column.")
	}
	ord := spec.OrderBy[0]
	if strings.EqualFold(ord.Direction, "DESC") {
		return sqlmini.Errorf(ord.Pos, "The window can only be ordered in ASCENDING mode.")
	}
	x, err := expr.Compile(ord.Expr, o.sc)
	if err != nil {
		return err
	}
	col, ok := x.(*expr.Column)
	isTime := ok && (sch.Columns[col.Index].TimeAttr || sch.Columns[col.Index].ProcTime)
	n.ProcTime = ok && sch.Columns[col.Index].ProcTime
	if fr := spec.Frame; fr != nil {
		start := fr.Start
		if fr.Only != nil {
			start = fr.Only
		}
		if !isTime && !start.Unbounded {
			return sqlmini.Errorf(fr.Pos, "Non-time attribute sort is not supported for bounded OVER window.")
		}
		if err := o.frame(fr, &n.Frame); err != nil {
			return err
		}
	}
	if !isTime {
		// Flink 2.3 orders by other columns over an unbounded frame, and
		// updates the rows a new one changes ([sqlop.OverSortedNode]).
		keys, err := o.p.orderKeys(&sqlmini.Select{OrderBy: spec.OrderBy}, sch)
		if err != nil {
			return err
		}
		o.sortKeys, o.sortPos = keys, ord.Pos
		col = &expr.Column{Index: -1}
	}
	n.Time = col.Index
	o.spec, o.text, o.node = spec, spec.String(), n
	return nil
}

// frame reads ROWS | RANGE [BETWEEN] bound [AND CURRENT ROW].
func (o *overPlanner) frame(fr *sqlmini.Frame, out *sqlop.OverFrame) error {
	out.Rows = strings.EqualFold(fr.Unit, "ROWS")
	start, end := fr.Start, fr.End
	if fr.Only != nil {
		start, end = fr.Only, nil
	}
	for _, b := range []*sqlmini.FrameBound{start, end} {
		if b != nil && strings.EqualFold(b.Direction, "FOLLOWING") {
			return sqlmini.Errorf(b.Pos, "OVER RANGE FOLLOWING windows are not supported yet.")
		}
		if b != nil && !b.Current && b.Direction == "" {
			return sqlmini.Errorf(b.Pos, "a frame bound needs PRECEDING or FOLLOWING: %s PRECEDING", b.String())
		}
	}
	if end != nil && !end.Current {
		return sqlmini.Errorf(end.Pos, "an OVER window's frame must end at the CURRENT ROW, as in Flink's streaming mode")
	}
	switch {
	case start.Current:
		// Flink's planner takes a frame that starts at the current row
		// for one that reaches forward.
		return sqlmini.Errorf(start.Pos, "OVER RANGE FOLLOWING windows are not supported yet.")
	case start.Unbounded:
		out.Unbounded = true
	default:
		out.Unbounded = false
		x, err := expr.Compile(&sqlmini.Expr{Pos: start.Pos, Left: &sqlmini.AndExpr{Pos: start.Pos, Left: &sqlmini.NotExpr{Pos: start.Pos,
			Pred: &sqlmini.Predicate{Pos: start.Pos, Left: start.Offset}}}}, &expr.Scope{})
		if err != nil {
			return err
		}
		v, err := x.Eval(nil)
		if err != nil {
			return err
		}
		switch t := x.Type(); {
		case t.Kind == types.KindIntervalDayTime:
			// Milliseconds; ROWS takes them as a row count, as Flink does.
			out.Preceding = int64(v.(types.Duration))
			if out.Preceding < 0 {
				return sqlmini.Errorf(start.Pos, "a frame reaches back a positive interval, not %s", start.Offset.String())
			}
		case !out.Rows:
			return sqlmini.Errorf(start.Pos, "Data Type mismatch between ORDER BY and RANGE clause")
		default:
			n, ok := toInt64(v)
			if !ok || n < 0 {
				return sqlmini.Errorf(start.Pos, "ROWS needs a whole number of rows PRECEDING, not %s", start.Offset.String())
			}
			out.Preceding = n
		}
	}
	return nil
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// finish returns the node that computes the calls: the OverNode, whose
// columns are the input's then one per call, or the rank's node.
func (o *overPlanner) finish() (exec.Node, error) {
	if o.built != nil {
		return o.built, nil
	}
	n := o.node
	cols := append([]types.Column(nil), o.in.Schema().Columns...)
	for i, c := range n.Calls {
		cols = append(cols, types.Column{Name: "w0$o" + strconv.Itoa(i), Type: c.Typ})
	}
	n.Sch = types.Schema{Columns: cols}
	if o.sortKeys != nil {
		rows := n.Frame.Rows
		for _, c := range n.Calls {
			rows = rows || c.Fn == "ROW_NUMBER"
			if c.Fn == "FIRST_VALUE" || c.Fn == "LAST_VALUE" {
				// Which rows Flink updates for these is not settled.
				return nil, sqlmini.Errorf(o.sortPos, "%s over a window ordered by a column that is not a time attribute is not supported yet; order by a WATERMARK column", c.Fn)
			}
		}
		sorted := &sqlop.OverSortedNode{In: n.In, Partition: n.Partition, PartText: n.PartText, Keys: o.sortKeys,
			Calls: n.Calls, Rows: rows, Sch: n.Sch}
		if o.p.env.Batch {
			return batchOver(sorted, n.Partition, n.PartText, o.sortKeys), nil
		}
		return sorted, nil
	}
	if o.p.env.Batch {
		c := n.Sch.Columns[n.Time]
		return batchOver(n, n.Partition, n.PartText, []sqlop.OrderKey{{Expr: &expr.Column{Index: n.Time, T: c.Type}, NullsFirst: true, Text: c.Name + " ASC"}}), nil
	}
	return n, nil
}

// batchOver gives the rows of an OVER window by partition, then in its
// order, as Flink's batch OverAggregate, which reads its input so sorted
// (batch.go).
func batchOver(n exec.Node, part []expr.Expr, partText []string, keys []sqlop.OrderKey) exec.Node {
	var all []sqlop.OrderKey
	for i, x := range part {
		all = append(all, sqlop.OrderKey{Expr: x, NullsFirst: true, Text: partText[i] + " ASC"})
	}
	return &sqlop.SortNode{In: finalRows(n), Keys: append(all, keys...)}
}
