package plan

import (
	"regexp"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// The implicit system arguments every PTF has, after its declared ones.
const (
	ArgOnTime = "on_time"
	ArgUID    = "uid"
)

// maxTableArgs is Flink's limit on table arguments.
const maxTableArgs = 20

var uidPattern = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z\-_0-9]*$`)

// Signature renders a function's effective call signature as Flink's
// documentation does, system arguments included:
// f(input => {TABLE, ROW SEMANTIC TABLE}, threshold => INT NOT NULL, on_time => DESCRIPTOR, uid => STRING).
func Signature(def *ptf.FuncDef) string {
	var parts []string
	for _, a := range def.Args {
		var t string
		switch {
		case a.IsTable():
			t = a.Traits.String()
			if a.Type != nil {
				t += " " + a.Type.String()
			}
		case a.Type != nil:
			t = a.Type.String()
		}
		if a.Optional {
			t = "[" + t + "]"
		}
		parts = append(parts, a.Name+" => "+t)
	}
	if def.Scalar != nil { // a scalar function has no implicit arguments
		return def.Name + "(" + strings.Join(parts, ", ") + ") RETURNS " + def.Output.String()
	}
	parts = append(parts, ArgOnTime+" => DESCRIPTOR", ArgUID+" => STRING")
	return def.Name + "(" + strings.Join(parts, ", ") + ")"
}

// planCall binds a PTF call: arguments, table semantics, uid and the output.
// userFunction finds a function of the catalog for an expression (a
// scalar function; a PTF there is an error that says where it goes).
func (p *Planner) userFunction(name string) (*ptf.FuncDef, bool) {
	fn, ok := p.cat.Function(name)
	if !ok {
		return nil, false
	}
	return fn.Def, true
}

func (p *Planner) planCall(c *sqlmini.Call) (exec.Node, error) {
	fname := string(c.Name.Value)
	fn, ok := p.cat.Function(fname)
	if !ok {
		if kind, ok := windowKind(fname); ok {
			return p.planWindow(c, kind) // window.go
		}
		if _, scalar := expr.LookupFunction(fname); scalar {
			return nil, sqlmini.Errorf(c.Name.Pos, "%s is a scalar function: it goes in a SELECT list or WHERE, not in FROM", strings.ToUpper(fname))
		}
		return nil, sqlmini.Errorf(c.Name.Pos, "No match found for function '%s'%s", fname, p.cat.SuggestFunction(fname))
	}
	def := fn.Def
	if def.Scalar != nil {
		return nil, sqlmini.Errorf(c.Name.Pos, "%s is a scalar function: it goes in a SELECT list or WHERE (SELECT %s(...) FROM t), not in FROM", fname, fname)
	}
	if p.env.Batch {
		return nil, batchPTF(c.Name.Pos, fname) // batch.go
	}
	if err := checkSignature(c, def); err != nil {
		return nil, err
	}
	bound, err := matchArgs(c, def)
	if err != nil {
		return nil, err
	}
	if err := checkShape(c, def); err != nil {
		return nil, err
	}
	preplanned := make([]exec.Node, len(def.Args))
	if def.Infer != nil {
		if def, err = p.infer(c, def, bound, preplanned); err != nil {
			return nil, err
		}
	}
	n := &ptfop.Node{Def: def, Fn: fname, Args: make([]any, len(def.Args)), Mode: types.InsertOnly, Pos: c.Pos}
	texts, err := p.bindDeclared(c, n, bound, preplanned)
	if err != nil {
		return nil, err
	}
	if err := p.checkTables(c, def, n.Tables); err != nil {
		return nil, err
	}
	onTime, text, err := onTimeArg(bound[len(def.Args)])
	if err != nil {
		return nil, err
	}
	texts = append(texts, text)
	rowtime, err := p.bindOnTime(c, def, n, onTime)
	if err != nil {
		return nil, err
	}
	if err := p.bindChangelog(c, def, n, onTime != nil); err != nil {
		return nil, err
	}
	text, err = bindUID(c, n, bound[len(def.Args)+1])
	if err != nil {
		return nil, err
	}
	texts = append(texts, text)
	if n.UID != "" {
		if prev, dup := p.uids[n.UID]; dup && prev.String() != c.String() {
			return nil, sqlmini.Errorf(c.Pos, "Duplicate unique identifier '%s' detected among process table functions. Make sure that all PTF calls have an identifier defined that is globally unique.", n.UID)
		}
		if t, ok := p.shared[n.UID]; ok {
			return t, nil // an identical call: the same instance (fan-out)
		}
		p.uids[n.UID] = c
	}
	if n.UID == "" && len(def.State) > 0 {
		n.UID = fname // table-less or row-semantic calls keep state under the function's name
	}
	for _, t := range n.Tables {
		if nz, ok := t.In.(*exec.NormalizeNode); ok {
			id := n.UID
			if id == "" {
				id = fname
			}
			nz.ID = id + "/" + t.Name
		}
	}
	outputColumns(n, rowtime)
	n.Text = fname + "(" + strings.Join(texts, ", ") + ")"
	if n.UID != "" && ptfop.HasSetSemantics(n.Tables) {
		t := &exec.TeeNode{In: n, Text: c.String()}
		p.shared[n.UID] = t
		return t, nil
	}
	return n, nil
}

// matchArgs matches the arguments of a call to the declarations, by name or
// by position: bound[i] is the argument of declaration i, then on_time and
// uid (nil when not given).
func matchArgs(c *sqlmini.Call, def *ptf.FuncDef) ([]*sqlmini.Arg, error) {
	fname := string(c.Name.Value)
	nDecl := len(def.Args)
	onTimeIdx, uidIdx := nDecl, nDecl+1
	bound := make([]*sqlmini.Arg, nDecl+2)
	sawNamed := false
	for i, a := range c.Args {
		if a.Name != nil {
			sawNamed = true
			name := string(a.Name.Value)
			idx := -1
			for j, d := range def.Args {
				if d.Name == name {
					idx = j
				}
			}
			switch name {
			case ArgOnTime:
				idx = onTimeIdx
			case ArgUID:
				idx = uidIdx
			}
			if idx < 0 {
				continue // Flink ignores unknown named arguments
			}
			if bound[idx] != nil {
				return nil, sqlmini.Errorf(a.Pos, "argument '%s' is given twice in the call of '%s'", name, fname)
			}
			bound[idx] = a
			continue
		}
		if sawNamed {
			return nil, sqlmini.Errorf(a.Pos, "Cannot mix positional and named arguments when calling function '%s': a positional argument follows a named one", fname)
		}
		if i >= len(bound) {
			return nil, sqlmini.Errorf(a.Pos, "too many arguments in the call of '%s': it takes %d. Signature: %s", fname, len(bound), Signature(def))
		}
		bound[i] = a
	}
	return bound, nil
}

// bindDeclared binds the declared arguments of call n: tables into
// n.Tables, scalars into n.Args. It returns each argument as EXPLAIN
// shows it.
func (p *Planner) bindDeclared(c *sqlmini.Call, n *ptfop.Node, bound []*sqlmini.Arg, preplanned []exec.Node) ([]string, error) {
	def, fname := n.Def, n.Fn
	var texts []string
	for i, d := range def.Args {
		a := bound[i]
		if a != nil && a.Default {
			a = nil
		}
		if d.IsTable() {
			if a == nil {
				if d.Optional {
					return nil, sqlmini.Errorf(c.Pos, "Table arguments must not be optional.")
				}
				return nil, missingArg(c, def, d)
			}
			if a.Table == nil {
				return nil, sqlmini.Errorf(a.Pos, "Invalid argument value. Argument '%s' expects a table to be passed.", d.Name)
			}
			tb, text, err := p.bindTable(c, def, i, a.Table, preplanned[i])
			if err != nil {
				if _, ok := err.(errNoSignature); ok {
					return nil, p.noSignature(c, def, bound)
				}
				return nil, err
			}
			n.Tables = append(n.Tables, tb)
			texts = append(texts, text)
			continue
		}
		if a == nil {
			if !d.Optional {
				if bound[i] != nil {
					return nil, sqlmini.Errorf(bound[i].Pos, "DEFAULT is only allowed for optional parameters: argument '%s' of function '%s' is not optional (declare it with optional: true). Signature: %s", d.Name, fname, Signature(def))
				}
				return nil, missingArg(c, def, d)
			}
			texts = append(texts, "DEFAULT()")
			continue
		}
		if a.Table != nil {
			return nil, sqlmini.Errorf(a.Pos, "Invalid argument value. Argument '%s' expects a scalar value, but a table was passed.", d.Name)
		}
		v, text, err := bindScalar(a, i, d)
		if err != nil {
			return nil, err
		}
		n.Args[i] = v
		texts = append(texts, text)
	}
	return texts, nil
}

// onTimeArg reads the on_time argument: a DESCRIPTOR of columns, or nil.
func onTimeArg(a *sqlmini.Arg) (types.Descriptor, string, error) {
	if a == nil || a.Default {
		return nil, "DEFAULT()", nil
	}
	if a.Table != nil {
		return nil, "", sqlmini.Errorf(a.Pos, "Invalid argument value. Argument '%s' expects a scalar value, but a table was passed.", ArgOnTime)
	}
	if a.Expr == nil {
		return nil, "", sqlmini.Errorf(a.Pos, "the on_time argument needs a DESCRIPTOR(column)")
	}
	x, err := expr.Compile(a.Expr, nil)
	if err != nil || a.Expr == nil {
		return nil, "", sqlmini.Errorf(a.Pos, "the on_time argument needs a DESCRIPTOR(column)")
	}
	v, _ := x.Eval(nil)
	d, ok := v.(types.Descriptor)
	if !ok {
		return nil, "", sqlmini.Errorf(a.Pos, "the on_time argument needs a DESCRIPTOR(column), not %s", x.Type())
	}
	return d, "DESCRIPTOR(" + strings.Join(d, ", ") + ")", nil
}

// bindUID sets n.UID from the uid argument a, or derives it from the
// function's name for set semantics, as Flink does.
func bindUID(c *sqlmini.Call, n *ptfop.Node, a *sqlmini.Arg) (string, error) {
	if a == nil || a.Default {
		if ptfop.HasSetSemantics(n.Tables) {
			if !uidPattern.MatchString(n.Fn) {
				return "", sqlmini.Errorf(c.Pos, "Could not derive a unique identifier for process table function '%s'. The function's name does not qualify for a UID. Please provide a custom identifier using the implicit `uid` argument. For example: myFunction(..., uid => 'my-id')", n.Fn)
			}
			n.UID = n.Fn
		}
		return "DEFAULT()", nil
	}
	var uid any
	if a.Expr != nil {
		if x, err := expr.Compile(a.Expr, nil); err == nil && x.IsConstant() {
			uid, _ = x.Eval(nil)
		}
	}
	s, isStr := uid.(string)
	if !isStr || !uidPattern.MatchString(s) {
		found := "a non-literal"
		if isStr {
			found = s
		}
		return "", sqlmini.Errorf(a.Pos, "Invalid unique identifier for process table function. The `uid` argument must be a string literal that follows the pattern [a-zA-Z_][a-zA-Z-_0-9]*. But found: %s", found)
	}
	n.UID = s
	return "'" + s + "'", nil
}

// outputColumns sets the output of call n: the key prefix (or the columns
// passed through), the function's own columns, and rowtime; and the ORDER
// BY sort keys of each table argument.
func outputColumns(n *ptfop.Node, rowtime *types.Column) {
	n.FnOut = ptfop.OutputSchema(n.Def.Output)
	var cols []types.Column
	for _, t := range n.Tables {
		in := t.In.Schema()
		if tn, ok := t.In.(*typedNode); ok {
			in = tn.orig // the key columns keep the table's names and types
		}
		if t.Pass {
			cols = append(cols, in.Columns...)
			continue
		}
		for _, k := range t.Partition {
			c := in.Columns[k]
			c.TimeAttr = false
			cols = append(cols, c)
		}
	}
	for _, c := range n.FnOut.Columns {
		for _, name := range n.Def.TimeAttributes {
			if c.Name == name {
				c.TimeAttr = true
			}
		}
		cols = append(cols, c)
	}
	if rowtime != nil {
		cols = append(cols, *rowtime)
		n.Rowtime, n.RowtimeType = true, rowtime.Type
	}
	for _, t := range n.Tables {
		var keys []ptfop.SortKey
		if len(t.Sem.OrderBy) > 0 {
			keys = sortKeys(t)
		}
		n.OrderBy = append(n.OrderBy, keys)
	}
	nm := make([]string, len(cols))
	for i, c := range cols {
		nm[i] = c.Name
	}
	for i, u := range uniqueNames(nm) {
		cols[i].Name = u
	}
	n.Sch = types.Schema{Columns: cols}
}

func missingArg(c *sqlmini.Call, def *ptf.FuncDef, d ptf.ArgDecl) error {
	return sqlmini.Errorf(c.Pos, "Missing required argument '%s' in the call of function '%s'. Signature: %s", d.Name, string(c.Name.Value), Signature(def))
}

// bindScalar evaluates a constant scalar argument and converts it to the
// declared type, with Flink's implicit casts.
func bindScalar(a *sqlmini.Arg, pos int, d ptf.ArgDecl) (any, string, error) {
	x, err := expr.Compile(a.Expr, nil)
	if err != nil {
		return nil, "", err
	}
	if !x.IsConstant() {
		return nil, "", sqlmini.Errorf(a.Pos, "argument '%s' must be a constant", d.Name)
	}
	v, err := x.Eval(nil)
	if err != nil {
		return nil, "", sqlmini.Errorf(a.Pos, "argument '%s': %w", d.Name, err)
	}
	text := types.FormatValue(v, x.Type())
	if s, ok := v.(string); ok {
		text = "'" + s + "'"
	}
	if d.Type == nil {
		return v, text, nil
	}
	if x.Type().Kind == types.KindNull {
		if d.Type.NotNull {
			return nil, "", sqlmini.Errorf(a.Pos, "Invalid argument type at position %d. Data type %s expected but NULL passed.", pos, d.Type)
		}
		return nil, text, nil
	}
	want := *d.Type
	if !expr.CanImplicitCast(x.Type(), want.Nullable()) {
		return nil, "", sqlmini.Errorf(a.Pos, "Invalid argument type at position %d. Data type %s expected but %s passed.", pos, want, x.Type())
	}
	out, err := expr.CastValue(v, want)
	if err != nil {
		return nil, "", sqlmini.Errorf(a.Pos, "argument '%s': %w", d.Name, err)
	}
	return out, text, nil
}

// bindTable binds TABLE t [PARTITION BY ...] to table argument decl.
func (p *Planner) bindTable(c *sqlmini.Call, def *ptf.FuncDef, decl int, ta *sqlmini.TableArg, in exec.Node) (ptfop.TableBinding, string, error) {
	d := def.Args[decl]
	var err error
	name := "subquery"
	if ta.Name != nil {
		name = string(ta.Name.Value)
	}
	if in == nil {
		if in, err = p.planTable2(ta); err != nil {
			return ptfop.TableBinding{}, "", err
		}
	}
	tb := ptfop.TableBinding{Decl: decl, Name: d.Name, Source: name, In: in,
		Set:  d.Traits.Has(ptf.SetSemanticTable),
		Pass: d.Traits.Has(ptf.PassColumnsThrough)}
	sch := in.Schema()
	text := "TABLE(" + name + ")"
	if len(ta.PartitionBy) > 0 {
		if !tb.Set {
			return ptfop.TableBinding{}, "", sqlmini.Errorf(ta.PartitionBy[0].Pos, "Only tables with set semantics may be partitioned. Invalid PARTITION BY clause in the %d-th operand of table function '%s'", decl, string(c.Name.Value))
		}
		var refs []string
		for _, col := range ta.PartitionBy {
			k := sch.Index(string(col.Value))
			if k < 0 {
				return ptfop.TableBinding{}, "", sqlmini.Errorf(col.Pos, "Invalid column '%s' for PARTITION BY clause. Available columns are: %s", col.Value, sch.ColumnList())
			}
			tb.Partition = append(tb.Partition, k)
			refs = append(refs, "$"+itoa(k))
		}
		text += " PARTITION BY(" + strings.Join(refs, ", ") + ")"
	} else if tb.Set && !d.Traits.Has(ptf.OptionalPartitionBy) {
		return ptfop.TableBinding{}, "", sqlmini.Errorf(ta.Pos, "Table argument '%s' requires a PARTITION BY clause for parallel processing.", d.Name)
	}
	if len(ta.OrderBy) > 0 {
		if !tb.Set {
			return ptfop.TableBinding{}, "", sqlmini.Errorf(ta.OrderBy[0].Pos, "PARTITION BY or ORDER BY are not supported for table arguments with row semantics.")
		}
		keys, dirs, err := orderBy(d.Name, sch, ta.OrderBy)
		if err != nil {
			return ptfop.TableBinding{}, "", err
		}
		tb.Sem.OrderBy, tb.Sem.Descending = keys, dirs
		for _, o := range ta.OrderBy {
			tb.OrderNulls = append(tb.OrderNulls, o.Nulls)
		}
		var refs []string
		for i, k := range keys {
			dir := "ASC_NULLS_LAST"
			if dirs[i] {
				dir = "DESC_NULLS_FIRST"
			}
			refs = append(refs, "$"+itoa(k)+" "+dir)
		}
		text += " ORDER BY(" + strings.Join(refs, ", ") + ")"
	}
	if !in.Changelog().IsInsertOnly() {
		if !d.Traits.Has(ptf.SupportUpdates) {
			return ptfop.TableBinding{}, "", sqlmini.Errorf(ta.Pos, "StreamPhysicalProcessTableFunction doesn't support consuming update changes which is produced by node %s. Table argument '%s' receives an updating table (%s): declare the SUPPORT_UPDATES trait to accept it.", UpdatingNode(in).Explain(), d.Name, in.Changelog())
		}
		if tb.Pass {
			return ptfop.TableBinding{}, "", sqlmini.Errorf(ta.Pos, "Signatures with updating inputs must not pass columns through. Table argument '%s' passes its columns through.", d.Name)
		}
		in = DeliverUpdates(in, d.Traits, tb.Partition)
		tb.In = in
	}
	// A typed table argument maps columns by position onto its declared row type.
	if d.Type != nil && d.Type.Kind == types.KindRow {
		if len(d.Type.Fields) != sch.Len() || !columnsCast(sch, *d.Type) {
			return ptfop.TableBinding{}, "", errNoSignature{}
		}
		typed := make([]types.Column, sch.Len())
		exprs := make([]expr.Expr, sch.Len())
		for i, f := range d.Type.Fields {
			typed[i] = types.Column{Name: f.Name, Type: f.Type}
			exprs[i] = expr.CastTo(&expr.Column{Index: i, T: sch.Columns[i].Type}, f.Type)
		}
		tb.In = &typedNode{exec.ProjectNode{In: in, Exprs: exprs, Sch: types.Schema{Columns: typed}}, sch}
	}
	tb.Sem = ptf.TableSemantics{DataType: sch.RowType(), PartitionBy: tb.Partition, OrderBy: tb.Sem.OrderBy,
		Descending: tb.Sem.Descending, TimeColumn: -1, Changelog: tb.In.Changelog()}
	if d.Type != nil && d.Type.Kind == types.KindRow {
		tb.Sem.DataType = *d.Type // the declared type, as Flink's TableSemantics gives it
	}
	tb.Sem.DataType.NotNull = false
	return tb, text, nil
}

func columnsCast(s types.Schema, t types.Type) bool {
	for i, col := range s.Columns {
		if !expr.CanImplicitCast(col.Type, t.Fields[i].Type.Nullable()) {
			return false
		}
	}
	return true
}

// planTable2 plans the table of TABLE t or TABLE (query).
func (p *Planner) planTable2(ta *sqlmini.TableArg) (exec.Node, error) {
	if ta.Name != nil {
		return p.planTableRef(ta.Name)
	}
	return p.Query(ta.Query)
}

// infer runs a function's Infer on the call's tables and constants and
// returns the declaration completed for this call. The tables it plans are
// kept in preplanned, so that each is planned once.
func (p *Planner) infer(c *sqlmini.Call, def *ptf.FuncDef, bound []*sqlmini.Arg, preplanned []exec.Node) (*ptf.FuncDef, error) {
	n := len(def.Args)
	info := ptf.CallInfo{Args: make([]any, n), Tables: make([]types.Schema, n), PartitionBy: make([][]string, n),
		Changelogs: make([]types.ChangelogMode, n), UpsertKeys: make([][]int, n)}
	for i := range def.Args {
		a := bound[i]
		switch {
		case a == nil || a.Default:
		case a.Table != nil:
			in, err := p.planTable2(a.Table)
			if err != nil {
				return nil, err
			}
			preplanned[i] = in
			info.Tables[i], info.Changelogs[i], info.UpsertKeys[i] = in.Schema(), in.Changelog(), exec.UpsertKeyOf(in)
			for _, col := range a.Table.PartitionBy {
				info.PartitionBy[i] = append(info.PartitionBy[i], string(col.Value))
			}
		case a.Expr != nil:
			if x, err := expr.Compile(a.Expr, nil); err == nil && x.IsConstant() {
				info.Args[i], _ = x.Eval(nil)
			}
		}
	}
	plan, err := def.Infer(info)
	if err != nil {
		return nil, types.At(c.Pos, err)
	}
	d := *def
	d.Args = append([]ptf.ArgDecl(nil), def.Args...)
	for i, t := range plan.Traits {
		if i < len(d.Args) && t != 0 {
			d.Args[i].Traits = t
		}
	}
	d.Output = plan.Output
	d.TimeAttributes = plan.TimeAttributes
	return &d, nil
}

// errNoSignature reports a table that does not fit a typed table argument;
// planCall words it as Flink does, with every argument's type.
type errNoSignature struct{}

func (errNoSignature) Error() string { return "no match found for function signature" }

// typedNode is a typed table argument: the rows converted to the declared
// row type, while the key prefix keeps the original columns.
type typedNode struct {
	exec.ProjectNode
	orig types.Schema
}
