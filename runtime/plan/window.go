package plan

import (
	"slices"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Window table functions and window aggregation, as Flink 2.3 plans them:
//
//	TUMBLE(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), SIZE => i [, OFFSET => i])
//	HOP(DATA, TIMECOL, SLIDE, SIZE [, OFFSET])
//	CUMULATE(DATA, TIMECOL, STEP, SIZE [, OFFSET])
//	SESSION(DATA => TABLE t [PARTITION BY k], TIMECOL, GAP)
//
// A GROUP BY of window_start and window_end over one of them (through
// WHERE) is a window aggregation ([sqlop.WindowAggregateNode]): insert-only
// final rows when the watermark passes window_end. Any other GROUP BY of
// their rows is an ordinary, updating one, as in Flink.

// windowParams are the parameter names of each window function, in order;
// OFFSET is optional.
var windowParams = map[sqlop.WindowKind][]string{
	sqlop.Tumble:   {"DATA", "TIMECOL", "SIZE", "OFFSET"},
	sqlop.Hop:      {"DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"},
	sqlop.Cumulate: {"DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"},
	sqlop.Session:  {"DATA", "TIMECOL", "GAP"},
}

// windowSignatures are the forms Flink's messages print.
var windowSignatures = map[sqlop.WindowKind]string{
	sqlop.Tumble:   "TUMBLE(TABLE table_name, DESCRIPTOR(timecol), datetime interval[, datetime interval])",
	sqlop.Hop:      "HOP(TABLE table_name, DESCRIPTOR(timecol), datetime interval, datetime interval[, datetime interval])",
	sqlop.Cumulate: "CUMULATE(TABLE table_name, DESCRIPTOR(timecol), datetime interval, datetime interval[, datetime interval])",
	sqlop.Session:  "SESSION(TABLE table_name [PARTITION BY (keycols, ...)], DESCRIPTOR(timecol), datetime interval)",
}

// windowKind reports whether name is a window table function.
func windowKind(name string) (sqlop.WindowKind, bool) {
	switch strings.ToUpper(name) {
	case "TUMBLE":
		return sqlop.Tumble, true
	case "HOP":
		return sqlop.Hop, true
	case "CUMULATE":
		return sqlop.Cumulate, true
	case "SESSION":
		return sqlop.Session, true
	}
	return 0, false
}

// planWindow plans a call of a window table function.
func (p *Planner) planWindow(c *sqlmini.Call, kind sqlop.WindowKind) (exec.Node, error) {
	fname := kind.String()
	params := windowParams[kind]
	required := len(params)
	if kind != sqlop.Session {
		required-- // OFFSET
	}
	bound := make([]*sqlmini.Arg, len(params))
	sawNamed := false
	for i, a := range c.Args {
		if a.Name == nil {
			if sawNamed {
				return nil, sqlmini.Errorf(a.Pos, "Cannot mix positional and named arguments when calling function '%s': a positional argument follows a named one", fname)
			}
			if i >= len(params) {
				return nil, sqlmini.Errorf(c.Pos, "Invalid number of arguments to function '%s'. Was expecting %d arguments", fname, required)
			}
			bound[i] = a
			continue
		}
		sawNamed = true
		name := string(a.Name.Value)
		idx := -1
		hint := ""
		for j, pn := range params {
			if pn == name {
				idx = j
			} else if strings.EqualFold(pn, name) {
				hint = "; did you mean '" + pn + "'?"
			}
		}
		if idx < 0 {
			return nil, sqlmini.Errorf(a.Name.Pos, "Param '%s' not found in function '%s'%s", name, fname, hint)
		}
		if bound[idx] != nil {
			return nil, sqlmini.Errorf(a.Pos, "argument '%s' is given twice in the call of '%s'", name, fname)
		}
		if idx == 0 && i > 0 {
			return nil, sqlmini.Errorf(a.Pos, "the DATA argument of %s must come first, as Flink requires (it fails with 'Trying to access field ... in a type with no fields: COLUMN_LIST' otherwise)", fname)
		}
		bound[idx] = a
	}
	for i := 0; i < required; i++ {
		if bound[i] == nil || bound[i].Default {
			return nil, sqlmini.Errorf(c.Pos, "Invalid number of arguments to function '%s'. Was expecting %d arguments", fname, required)
		}
	}
	// DATA: the input table.
	data := bound[0].Table
	if data == nil {
		return nil, sqlmini.Errorf(bound[0].Pos, "Cannot apply '%s': its first argument (DATA) must be a table, TABLE t. Supported form(s): %s", fname, windowSignatures[kind])
	}
	var in exec.Node
	var err error
	if data.Name != nil {
		in, err = p.planTableRef(data.Name)
	} else {
		in, err = p.Query(data.Query)
	}
	if err != nil {
		return nil, err
	}
	if len(data.PartitionBy) > 0 && kind != sqlop.Session {
		return nil, sqlmini.Errorf(data.Pos, "Only tables with set semantics may be partitioned. Invalid PARTITION BY clause in the 0-th operand of table function '%s'", fname)
	}
	if len(data.OrderBy) > 0 {
		return nil, sqlmini.Errorf(data.Pos, "the table argument of %s takes no ORDER BY", fname)
	}
	sch := in.Schema()
	var partition []int
	for _, k := range data.PartitionBy {
		i := sch.Index(string(k.Value))
		if i < 0 {
			return nil, sqlmini.Errorf(k.Pos, "Column '%s' not found in the table argument of %s: %s", string(k.Value), fname, sch.ColumnList())
		}
		partition = append(partition, i)
	}
	// TIMECOL: a time attribute of the input.
	timeCol, err := windowTimeCol(bound[1], kind, sch)
	if err != nil {
		return nil, err
	}
	// The intervals.
	spec := sqlop.WindowSpec{Kind: kind}
	ms := func(i int) (int64, error) { return windowInterval(bound[i], kind) }
	switch kind {
	case sqlop.Tumble:
		spec.Size, err = ms(2)
	case sqlop.Hop, sqlop.Cumulate:
		if spec.Slide, err = ms(2); err == nil {
			spec.Size, err = ms(3)
		}
	case sqlop.Session:
		spec.Gap, err = ms(2)
	}
	if err != nil {
		return nil, err
	}
	if kind != sqlop.Session && bound[len(params)-1] != nil && !bound[len(params)-1].Default {
		if spec.Offset, err = ms(len(params) - 1); err != nil {
			return nil, err
		}
	}
	if err := checkWindowSizes(c.Pos, spec); err != nil {
		return nil, err
	}
	if m := in.Changelog(); !m.IsInsertOnly() {
		return nil, sqlmini.Errorf(data.Pos, "StreamPhysicalWindowTableFunction doesn't support consuming update and delete changes which is produced by node %s: a window table function takes an insert-only table", UpdatingNode(in).Explain())
	}
	cols := append([]types.Column{}, sch.Columns...)
	for _, name := range []string{"window_start", "window_end", "window_time"} {
		if i := sch.Index(name); i >= 0 {
			if !p.groupWindows[c] {
				return nil, sqlmini.Errorf(data.Pos, "Column '%s' is ambiguous: the table argument of %s has a column %s already, and the function adds its own; rename it first (SELECT %s AS w_start, ...), as in Flink", name, fname, name, name)
			}
			cols[i].Name = "$" + name // hidden by the group window's own (legacy_window.go)
		}
	}
	wt := types.Type{Kind: types.KindTimestamp, Length: 3, NotNull: true}
	wtime := wt
	if sch.Columns[timeCol].Type.Kind == types.KindTimestampLTZ {
		wtime.Kind = types.KindTimestampLTZ
	}
	procTime := sch.Columns[timeCol].ProcTime
	if p.env.Batch {
		if err := batchWindow(c.Pos, kind, procTime); err != nil {
			return nil, err
		}
	}
	cols = append(cols,
		types.Column{Name: "window_start", Type: wt},
		types.Column{Name: "window_end", Type: wt},
		types.Column{Name: "window_time", Type: wtime, TimeAttr: !procTime, ProcTime: procTime})
	text := spec.Text()
	at := strings.IndexByte(text, '(') + 1
	args := "time_col=[" + sch.Columns[timeCol].Name + "], "
	if len(partition) > 0 {
		var ks []string
		for _, k := range partition {
			ks = append(ks, sch.Columns[k].Name)
		}
		args = "partition keys=[" + joinStrings(ks) + "], " + args
	}
	text = text[:at] + args + text[at:]
	return &sqlop.WindowTVFNode{In: in, Spec: spec, Time: timeCol, Partition: partition, ProcTime: procTime,
		Sch: types.Schema{Columns: cols}, Text: "WindowTableFunction(window=[" + text + "])"}, nil
}

// windowTimeCol resolves TIMECOL: DESCRIPTOR(col), a TIMESTAMP or
// TIMESTAMP_LTZ time attribute of the input.
func windowTimeCol(a *sqlmini.Arg, kind sqlop.WindowKind, sch types.Schema) (int, error) {
	var d types.Descriptor
	if a.Expr != nil {
		if x, err := expr.Compile(a.Expr, nil); err == nil {
			v, _ := x.Eval(nil)
			d, _ = v.(types.Descriptor)
		}
	}
	if len(d) == 0 {
		return 0, sqlmini.Errorf(a.Pos, "Cannot apply '%s': its second argument (TIMECOL) must be DESCRIPTOR(timecol). Supported form(s): %s", kind, windowSignatures[kind])
	}
	i := sch.Index(d[0]) // Flink reads the first column of the descriptor
	if i < 0 {
		return 0, sqlmini.Errorf(a.Pos, "Unknown identifier '%s': the table argument has %s", d[0], sch.ColumnList())
	}
	col := sch.Columns[i]
	if k := col.Type.Kind; k != types.KindTimestamp && k != types.KindTimestampLTZ {
		return 0, sqlmini.Errorf(a.Pos, "The window function %s requires the timecol to be TIMESTAMP or TIMESTAMP_LTZ, but is %s.", windowSignatures[kind], calciteType(col.Type))
	}
	if !col.TimeAttr && !col.ProcTime {
		return 0, sqlmini.Errorf(a.Pos, "The window function requires the timecol is a time attribute type, but is %s. (A time attribute is a table's WATERMARK column, a PROCTIME() column, a window_time or a PTF's rowtime, selected as it is.)", col.Type.Nullable())
	}
	return i, nil
}

// windowInterval evaluates an interval argument to milliseconds.
func windowInterval(a *sqlmini.Arg, kind sqlop.WindowKind) (int64, error) {
	if a.Expr == nil {
		return 0, sqlmini.Errorf(a.Pos, "Cannot apply '%s': a table is not an interval. Supported form(s): %s", kind, windowSignatures[kind])
	}
	x, err := expr.Compile(a.Expr, nil)
	if err != nil {
		return 0, err
	}
	switch x.Type().Kind {
	case types.KindIntervalDayTime:
	case types.KindIntervalYearMonth:
		return 0, sqlmini.Errorf(a.Pos, "Window aggregate only support SECOND, MINUTE, HOUR, DAY as the time unit. MONTH and YEAR time unit are not supported yet.")
	default:
		return 0, sqlmini.Errorf(a.Pos, "Cannot apply '%s' to an argument of type %s: it takes a datetime interval such as INTERVAL '10' MINUTES. Supported form(s): %s", kind, calciteType(x.Type()), windowSignatures[kind])
	}
	if !x.IsConstant() {
		return 0, sqlmini.Errorf(a.Pos, "the intervals of %s must be constants", kind)
	}
	v, err := x.Eval(nil)
	if err != nil {
		return 0, sqlmini.Errorf(a.Pos, "%w", err)
	}
	d, ok := v.(types.Duration)
	if !ok {
		return 0, sqlmini.Errorf(a.Pos, "the intervals of %s must not be NULL", kind)
	}
	return int64(d), nil
}

// checkWindowSizes applies Flink's checks of a window's sizes.
func checkWindowSizes(pos sqlmini.Pos, w sqlop.WindowSpec) error {
	positive := func(what string, ms int64) error {
		if ms <= 0 {
			return sqlmini.Errorf(pos, "%s table function based aggregate requires %s to be positive, but got %d ms.", w.Kind, what, ms)
		}
		return nil
	}
	switch w.Kind {
	case sqlop.Tumble:
		return positive("size", w.Size)
	case sqlop.Session:
		return positive("gap", w.Gap)
	case sqlop.Hop:
		if err := positive("size", w.Size); err != nil {
			return err
		}
		if err := positive("slide", w.Slide); err != nil {
			return err
		}
	case sqlop.Cumulate:
		if err := positive("maxSize", w.Size); err != nil {
			return err
		}
		if err := positive("step", w.Slide); err != nil {
			return err
		}
		if w.Size%w.Slide != 0 {
			return sqlmini.Errorf(pos, "CUMULATE table function based aggregate requires maxSize must be an integral multiple of step, but got maxSize %d ms and step %d ms.", w.Size, w.Slide)
		}
	}
	if n := w.Size / w.Slide; n > maxWindowsPerRow {
		return sqlmini.Errorf(pos, "%s with size %d ms and %s %d ms puts each row in %d windows; ptfsh allows at most %d: make the %s larger",
			w.Kind, w.Size, slideName(w.Kind), w.Slide, n, maxWindowsPerRow, slideName(w.Kind))
	}
	return nil
}

// maxWindowsPerRow bounds the windows of one row of HOP and CUMULATE
// (size / slide), so that a slide of a millisecond over a day cannot
// exhaust memory one row at a time.
const maxWindowsPerRow = 100_000

func slideName(k sqlop.WindowKind) string {
	if k == sqlop.Cumulate {
		return "step"
	}
	return "slide"
}

// windowInput finds the window table function under a GROUP BY's input:
// the input itself, or under WHERE filters, renames and projections. It
// returns the function, a way to copy the path with the function
// replaced, and where each column of n comes from in the function's
// output (-1: computed).
func windowInput(n exec.Node) (*sqlop.WindowTVFNode, func(*sqlop.WindowTVFNode) exec.Node, []int) {
	identity := func(w int) []int {
		m := make([]int, w)
		for i := range m {
			m[i] = i
		}
		return m
	}
	switch t := n.(type) {
	case *sqlop.WindowTVFNode:
		return t, func(w *sqlop.WindowTVFNode) exec.Node { return w }, identity(t.Sch.Len())
	case *exec.FilterNode:
		if w, rebuild, m := windowInput(t.In); w != nil {
			return w, func(w2 *sqlop.WindowTVFNode) exec.Node { c := *t; c.In = rebuild(w2); return &c }, m
		}
	case *exec.RenameNode:
		if w, rebuild, m := windowInput(t.In); w != nil {
			return w, func(w2 *sqlop.WindowTVFNode) exec.Node { c := *t; c.In = rebuild(w2); return &c }, m
		}
	case *exec.ProjectNode:
		if w, rebuild, m := windowInput(t.In); w != nil {
			out := make([]int, len(t.Exprs))
			for i, x := range t.Exprs {
				out[i] = -1
				if ce, ok := x.(*expr.Column); ok {
					out[i] = m[ce.Index]
				}
			}
			return w, func(w2 *sqlop.WindowTVFNode) exec.Node { c := *t; c.In = rebuild(w2); return &c }, out
		}
	}
	return nil, nil, nil
}

// windowAggregate turns a planned GROUP BY into Flink's window aggregation
// when it groups by window_start and window_end of a window table
// function (and, for SESSION, by exactly its PARTITION BY columns besides;
// otherwise Flink plans an ordinary GROUP BY over the sessions' rows). It
// returns nil, nil when the GROUP BY is an ordinary one.
func windowAggregate(sel *sqlmini.Select, n *sqlop.AggregateNode, a *aggPlanner) (exec.Node, error) {
	w, rebuild, from := windowInput(n.In)
	if w == nil {
		return nil, nil
	}
	width := w.Sch.Len()
	start, end, wtime := width-3, width-2, width-1
	endCol := -1 // window_end among the aggregation's input columns
	hasStart := false
	var others []int
	draw := &sqlop.WindowDraw{Name: "WindowAggregate " + strings.TrimSuffix(strings.TrimPrefix(w.Text, "WindowTableFunction(window=["), "])")}
	for g, c := range a.gcol {
		src := -1
		if c >= 0 {
			src = from[c]
		}
		switch src {
		case start:
			hasStart = true
		case end:
			endCol = c
		case wtime:
		default:
			others = append(others, src)
			draw.AggKeys = append(draw.AggKeys, g)
			draw.TVFKeys = append(draw.TVFKeys, src)
		}
	}
	if slices.Contains(draw.TVFKeys, -1) { // a computed key: all in one lane
		draw.TVFKeys, draw.AggKeys = nil, nil
	}
	if !hasStart || endCol < 0 {
		return nil, nil
	}
	spec := w.Spec
	switch spec.Kind {
	case sqlop.Hop:
		if spec.Size%spec.Slide != 0 {
			return nil, sqlmini.Errorf(sel.GroupBy[0].Pos, "HOP table function based aggregate requires size must be an integral multiple of slide, but got size %d ms and slide %d ms", spec.Size, spec.Slide)
		}
	case sqlop.Session:
		if !sameSet(others, w.Partition) {
			return nil, nil
		}
	}
	tvf := *w
	tvf.DropLate = true
	tvf.Draw = draw
	cols := append([]types.Column{}, n.Sch.Columns...)
	for i, x := range n.Outs {
		if ce, ok := x.(*expr.Column); ok && ce.Index < len(a.gcol) && a.gcol[ce.Index] >= 0 && from[a.gcol[ce.Index]] == wtime && i < len(cols) {
			cols[i].TimeAttr, cols[i].ProcTime = !w.ProcTime, w.ProcTime
		}
	}
	text := strings.Replace(n.Text, "GroupAggregate(", "WindowAggregate(window=["+spec.Text()+"], ", 1)
	return &sqlop.WindowAggregateNode{In: rebuild(&tvf), End: endCol, Groups: n.Groups, Calls: n.Calls, Outs: n.Outs,
		Sch: types.Schema{Columns: cols}, Text: text, ProcTime: w.ProcTime, Draw: draw}, nil
}

// sameSet reports whether two lists of columns hold the same columns.
func sameSet(a, b []int) bool {
	in := func(x int, s []int) bool {
		for _, y := range s {
			if x == y {
				return true
			}
		}
		return false
	}
	for _, x := range a {
		if !in(x, b) {
			return false
		}
	}
	for _, x := range b {
		if !in(x, a) {
			return false
		}
	}
	return true
}
