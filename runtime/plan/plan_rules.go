package plan

import (
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Flink's rules on PTF calls that need more than binding the arguments:
// table shapes, time attributes, ORDER BY, changelogs, error wording.

// checkShape applies the rules on a signature's table arguments that need
// no table: at most 20, all with set semantics when there are several, and
// then none passing columns through.
func checkShape(c *sqlmini.Call, def *ptf.FuncDef) error {
	var tables []ptf.ArgDecl
	for _, a := range def.Args {
		if a.IsTable() {
			tables = append(tables, a)
		}
	}
	if len(tables) > maxTableArgs {
		return sqlmini.Errorf(c.Pos, "Unsupported table argument count. Currently, the number of input tables is limited to %d.", maxTableArgs)
	}
	if len(tables) < 2 {
		return nil
	}
	for _, a := range tables {
		if !a.Traits.Has(ptf.SetSemanticTable) {
			return sqlmini.Errorf(c.Pos, "All table arguments must use set semantics if multiple table arguments are declared.")
		}
	}
	for _, a := range tables {
		if a.Traits.Has(ptf.PassColumnsThrough) {
			return sqlmini.Errorf(c.Pos, "Pass-through columns are not supported if multiple table arguments are declared.")
		}
	}
	return nil
}

// checkSignature applies Flink's checks of a PTF's declaration that do
// not depend on the call (SystemTypeInference's checkMultipleTableArgs and
// checkPassThroughColumns), in Flink's order, before the call's own: an
// invalid declaration fails whatever the input is.
func checkSignature(c *sqlmini.Call, def *ptf.FuncDef) error {
	var tables []ptf.ArgDecl
	pass, updates := "", false
	for _, a := range def.Args {
		if a.IsTable() {
			tables = append(tables, a)
		}
		if a.Traits.Has(ptf.PassColumnsThrough) && pass == "" {
			pass = a.Name
		}
		if a.Traits.Has(ptf.SupportUpdates) {
			updates = true
		}
	}
	if len(tables) > 1 {
		for _, a := range tables {
			if !a.Traits.Has(ptf.SetSemanticTable) {
				return sqlmini.Errorf(c.Pos, "All table arguments must use set semantics if multiple table arguments are declared.")
			}
		}
	}
	if pass == "" {
		return nil
	}
	if updates {
		return sqlmini.Errorf(c.Pos, "Signatures with updating inputs must not pass columns through. Table argument '%s' passes its columns through; drop PASS_COLUMNS_THROUGH or SUPPORT_UPDATES.", pass)
	}
	if len(tables) > 1 {
		return sqlmini.Errorf(c.Pos, "Pass-through columns are not supported if multiple table arguments are declared. Table argument '%s' passes its columns through.", pass)
	}
	return nil
}

// checkTables applies Flink's rules for several table arguments.
func (p *Planner) checkTables(c *sqlmini.Call, def *ptf.FuncDef, ts []ptfop.TableBinding) error {
	var tables []ptf.ArgDecl
	for _, a := range def.Args {
		if a.IsTable() {
			tables = append(tables, a)
		}
	}
	if len(tables) > maxTableArgs {
		return sqlmini.Errorf(c.Pos, "Unsupported table argument count. Currently, the number of input tables is limited to %d.", maxTableArgs)
	}
	if len(tables) > 1 {
		// Keys must have the same number of columns of the same types; the
		// length of a string and nullability do not matter.
		var sets []string
		var ref []types.Type
		mismatch := false
		for i, t := range ts {
			var typeNames []string
			var kt []types.Type
			for _, k := range t.Partition {
				ct := t.In.Schema().Columns[k].Type
				typeNames = append(typeNames, ct.String())
				kt = append(kt, ct)
			}
			sets = append(sets, "["+strings.Join(typeNames, ", ")+"]")
			if i == 0 {
				ref = kt
				continue
			}
			if len(kt) != len(ref) {
				mismatch = true
				continue
			}
			for j := range kt {
				if !kt[j].SameRoot(ref[j]) {
					mismatch = true
				}
			}
		}
		if mismatch {
			return sqlmini.Errorf(c.Pos, "Invalid PARTITION BY columns. The number of columns and their data types must match across all involved table arguments. Given partition key sets: %s", strings.Join(sets, ", "))
		}
	}
	return nil
}

// orderBy checks ORDER BY of a table argument as Flink does: the first
// column an ascending time attribute, no column twice.
func orderBy(arg string, sch types.Schema, items []*sqlmini.OrderItem) ([]int, []bool, error) {
	var keys []int
	var dirs []bool
	seen := map[string]bool{}
	for i, it := range items {
		name := string(it.Column.Value)
		k := sch.Index(name)
		if k < 0 {
			return nil, nil, sqlmini.Errorf(it.Pos, "Invalid column '%s' for ORDER BY clause. Available columns are: %s", name, sch.ColumnList())
		}
		if seen[name] {
			return nil, nil, sqlmini.Errorf(it.Pos, "Invalid ORDER BY clause for table argument '%s'. Column '%s' appears more than once in ORDER BY.", arg, name)
		}
		seen[name] = true
		desc := strings.EqualFold(it.Direction, "DESC")
		col := sch.Columns[k]
		if i == 0 {
			if !col.Type.IsTime() || col.Type.Length > 3 {
				return nil, nil, sqlmini.Errorf(it.Pos, "Invalid ORDER BY clause for table argument '%s'. The first ORDER BY column must be a TIMESTAMP or TIMESTAMP_LTZ column (up to precision 3). However, column '%s' has data type '%s'.", arg, name, col.Type)
			}
			if desc {
				return nil, nil, sqlmini.Errorf(it.Pos, "Invalid ORDER BY clause for table argument '%s'. The first ORDER BY column on a timestamp column must be in ascending order.", arg)
			}
			if !col.TimeAttr {
				return nil, nil, sqlmini.Errorf(it.Pos, "Invalid ORDER BY clause for table argument '%s'. The first ORDER BY column '%s' is not a valid time attribute. Only columns with a watermark declaration qualify for ORDER BY. Also, make sure that the watermarked column is forwarded without any modification.", arg, name)
			}
		}
		keys = append(keys, k)
		dirs = append(dirs, desc)
	}
	return keys, dirs, nil
}

// sortKeys turns a table argument's ORDER BY after its time column into
// sort keys (ASC sorts NULLS LAST and DESC NULLS FIRST unless told).
func sortKeys(t ptfop.TableBinding) []ptfop.SortKey {
	var keys []ptfop.SortKey
	for i := 1; i < len(t.Sem.OrderBy); i++ {
		k := ptfop.SortKey{Col: t.Sem.OrderBy[i], Desc: t.Sem.Descending[i], NullsFirst: t.Sem.Descending[i]}
		switch strings.ToUpper(t.OrderNulls[i]) {
		case "FIRST":
			k.NullsFirst = true
		case "LAST":
			k.NullsFirst = false
		}
		keys = append(keys, k)
	}
	return keys
}

// bindOnTime validates on_time and returns the rowtime output column.
func (p *Planner) bindOnTime(c *sqlmini.Call, def *ptf.FuncDef, n *ptfop.Node, onTime types.Descriptor) (*types.Column, error) {
	if onTime == nil {
		for _, a := range def.Args {
			if a.Traits.Has(ptf.RequireOnTime) {
				return nil, sqlmini.Errorf(c.Pos, "Table argument '%s' requires a time attribute. Please provide one using the implicit `on_time` argument. For example: myFunction(..., on_time => DESCRIPTOR(`my_timestamp`))", a.Name)
			}
		}
		return nil, nil
	}
	var unknown []string
	var col *types.Column
	for _, name := range onTime {
		found := false
		for i := range n.Tables {
			t := &n.Tables[i]
			k := t.In.Schema().Index(name)
			if k < 0 {
				continue
			}
			found = true
			tc := t.In.Schema().Columns[k]
			if !tc.Type.IsTime() || tc.Type.Length > 3 {
				return nil, sqlmini.Errorf(c.Pos, "Unsupported data type for time attribute '%s' in table argument '%s'. Only TIMESTAMP(3) or TIMESTAMP_LTZ(3) are supported, but found %s.", name, t.Name, tc.Type)
			}
			if !tc.TimeAttr {
				return nil, sqlmini.Errorf(c.Pos, "Invalid time attribute '%s' in table argument '%s': the `on_time` column must be a time attribute. Only columns with a watermark declaration qualify (WATERMARK FOR %s AS %s - INTERVAL ...), and the rowtime column of a PTF's output.", name, t.Name, name, name)
			}
			if len(t.Sem.OrderBy) > 0 && t.Sem.OrderBy[0] != k {
				return nil, sqlmini.Errorf(c.Pos, "Invalid ORDER BY clause for table argument '%s'. The first ORDER BY column '%s' must be the time attribute given in `on_time` ('%s').", t.Name, t.In.Schema().Columns[t.Sem.OrderBy[0]].Name, name)
			}
			if t.Sem.TimeColumn >= 0 {
				return nil, sqlmini.Errorf(c.Pos, "Ambiguous time attribute found. The `on_time` argument must reference at most one column in a table argument. Currently, the columns in `on_time` point to both '%s' and '%s' in table argument '%s'.", t.In.Schema().Columns[t.Sem.TimeColumn].Name, name, t.Name)
			}
			t.Sem.TimeColumn = k
			rt := types.Column{Name: "rowtime", Type: tc.Type.Nullable(), TimeAttr: true}
			rt.Type.NotNull = tc.Type.NotNull
			col = &rt
		}
		if !found {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return nil, sqlmini.Errorf(c.Pos, "Invalid time attribute declaration. Each column in the `on_time` argument must reference at least one column in one of the table arguments. Unknown references: [%s]", strings.Join(unknown, ", "))
	}
	if col == nil {
		return nil, sqlmini.Errorf(c.Pos, "the `on_time` argument needs a table argument to take its time from")
	}
	if len(n.Tables) > 1 {
		var missing []string
		for _, t := range n.Tables {
			if t.Sem.TimeColumn < 0 {
				missing = append(missing, t.Name)
			}
		}
		if len(missing) > 0 {
			return nil, sqlmini.Errorf(c.Pos, "Invalid time attribute declaration. If multiple tables are declared, the `on_time` argument must reference a time column for each table argument or none. Missing time attributes for: [%s]", strings.Join(missing, ", "))
		}
	}
	return col, nil
}

// bindChangelog resolves the output changelog mode of a ChangelogFunction
// and applies Flink's rules on updates.
func (p *Planner) bindChangelog(c *sqlmini.Call, def *ptf.FuncDef, n *ptfop.Node, onTime bool) error {
	fname := string(c.Name.Value)
	updatingIn := false
	var modes []types.ChangelogMode
	for _, t := range n.Tables {
		modes = append(modes, t.Sem.Changelog)
		updatingIn = updatingIn || !t.Sem.Changelog.IsInsertOnly()
	}
	if def.ChangelogMode != nil {
		m, err := def.ChangelogMode(modes, p.Required)
		if err != nil {
			return types.At(c.Pos, err)
		}
		if m.IsEmpty() || !m.Contains(types.Insert) {
			return sqlmini.Errorf(c.Pos, "function '%s' declares the changelog mode %s, which has no INSERT", fname, m)
		}
		n.Mode = m
	}
	if (updatingIn || !n.Mode.IsInsertOnly()) && onTime {
		return sqlmini.Errorf(c.Pos, "Time operations using the `on_time` argument are currently not supported for PTFs that consume or produce updates.")
	}
	if n.Mode.Contains(types.UpdateAfter) && !n.Mode.Contains(types.UpdateBefore) || n.Mode.Contains(types.Delete) && !n.Mode.Contains(types.UpdateBefore) && n.Mode.Contains(types.UpdateAfter) {
		// upsert output: keyed by the PARTITION BY columns
		for _, t := range n.Tables {
			if !t.Set {
				return sqlmini.Errorf(c.Pos, "PTFs that take table arguments with row semantics don't support upsert output. Table argument '%s' of function '%s' must use set semantics.", t.Name, fname)
			}
		}
		if len(n.Tables) == 0 || len(n.Tables[0].Partition) == 0 {
			return sqlmini.Errorf(c.Pos, "function '%s' produces upsert output (%s), whose key is the PARTITION BY columns: call it with PARTITION BY", fname, n.Mode)
		}
	}
	return nil
}

// DeliverUpdates puts an updating input into the form table argument
// traits ask for (flink-cases.md §10.11): partitioned by its upsert key, the
// function gets the upsert form (no -U); otherwise, or with
// REQUIRE_UPDATE_BEFORE, the retract form; REQUIRE_FULL_DELETE fills
// deletes that carry only the key.
func DeliverUpdates(in exec.Node, traits ptf.Trait, partition []int) exec.Node {
	m := in.Changelog()
	key := exec.UpsertKeyOf(in)
	upsertForm := len(key) > 0 && sameColumns(key, partition) && !traits.Has(ptf.RequireUpdateBefore)
	out := m
	if upsertForm {
		out = out.Without(types.UpdateBefore)
	} else if m.Contains(types.UpdateAfter) {
		out = out.With(types.UpdateBefore)
	}
	fill := traits.Has(ptf.RequireFullDelete) && m.KeyOnlyDeletes
	if !upsertForm && m.Contains(types.UpdateAfter) && !m.Contains(types.UpdateBefore) {
		fill = fill || m.KeyOnlyDeletes // a retract stream knows its rows
	}
	if fill {
		out.KeyOnlyDeletes = false
	}
	if out == m {
		return in
	}
	return &exec.NormalizeNode{In: in, Key: key, Retract: !upsertForm, FullDeletes: fill, Mode: out}
}

func sameColumns(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[int]bool{}
	for _, x := range a {
		seen[x] = true
	}
	for _, y := range b {
		if !seen[y] {
			return false
		}
	}
	return true
}

// noSignature is Flink's (Calcite's) message for a call no signature fits:
// No match found for function signature f(<RecordType(CHAR(3) name, BOOLEAN isValid)>, <NUMERIC>, <COLUMN_LIST>, <CHARACTER>).
func (p *Planner) noSignature(c *sqlmini.Call, def *ptf.FuncDef, bound []*sqlmini.Arg) error {
	var ops []string
	for i, a := range bound {
		switch {
		case a != nil && !a.Default && a.Table != nil:
			var in exec.Node
			var err error
			if a.Table.Name != nil {
				in, err = p.planTableRef(a.Table.Name)
			} else {
				in, err = p.Query(a.Table.Query)
			}
			if err != nil {
				return err
			}
			var fields []string
			for _, col := range in.Schema().Columns {
				fields = append(fields, calciteType(col.Type)+" "+col.Name)
			}
			ops = append(ops, "<RecordType("+strings.Join(fields, ", ")+")>")
		case a != nil && !a.Default && a.Expr != nil:
			fam := "ANY"
			if x, err := expr.Compile(a.Expr, nil); err == nil {
				fam = typeFamily(x.Type())
			}
			ops = append(ops, "<"+fam+">")
		case i == len(def.Args):
			ops = append(ops, "<COLUMN_LIST>")
		case i == len(def.Args)+1:
			ops = append(ops, "<CHARACTER>")
		case def.Args[i].Type != nil:
			ops = append(ops, "<"+typeFamily(*def.Args[i].Type)+">")
		default:
			ops = append(ops, "<ANY>")
		}
	}
	return sqlmini.Errorf(c.Pos, "No match found for function signature %s(%s)", string(c.Name.Value), strings.Join(ops, ", "))
}

// calciteType spells a type as Calcite prints it in RecordType(...).
func calciteType(t types.Type) string {
	t = t.Nullable()
	switch t.Kind {
	case types.KindInt:
		return "INTEGER"
	case types.KindVarChar:
		return "VARCHAR(" + itoa(t.Length) + ")"
	case types.KindVarBinary:
		return "VARBINARY(" + itoa(t.Length) + ")"
	case types.KindTimestampLTZ:
		return "TIMESTAMP_WITH_LOCAL_TIME_ZONE(" + itoa(t.Length) + ")"
	}
	return t.String()
}

// typeFamily is Calcite's type family name of t.
func typeFamily(t types.Type) string {
	switch {
	case t.IsNumeric():
		return "NUMERIC"
	case t.IsString():
		return "CHARACTER"
	}
	switch t.Kind {
	case types.KindBoolean:
		return "BOOLEAN"
	case types.KindDescriptor:
		return "COLUMN_LIST"
	case types.KindTimestamp, types.KindTimestampLTZ, types.KindDate, types.KindTime:
		return "DATETIME"
	case types.KindIntervalDayTime:
		return "INTERVAL_DAY_TIME"
	case types.KindIntervalYearMonth:
		return "INTERVAL_YEAR_MONTH"
	case types.KindBinary, types.KindVarBinary:
		return "BINARY"
	}
	return "ANY"
}

// UpdatingNode returns the node that first produces updates: the deepest
// updating node whose inputs are insert-only.
func UpdatingNode(n exec.Node) exec.Node {
	for _, c := range n.Children() {
		if !c.Changelog().IsInsertOnly() {
			return UpdatingNode(c)
		}
	}
	return n
}

// Printed plans a query whose rows go to the printer (the SQL client's
// collect sink, which takes every kind of row but no upsert form): an
// upsert changelog that reaches it through filters, projections,
// renames and a LIMIT from a source (a table with a PRIMARY KEY and an upsert
// changelog) becomes retractions with full deletes right after the
// source, as Flink puts a ChangelogNormalize there. A
// projection that drops the upsert key leaves nothing to normalize by:
// such rows print as they come.
func (p *Planner) Printed(q *sqlmini.Query) (exec.Node, error) {
	n, err := p.Statement(q) // batch.go
	if err != nil {
		return nil, err
	}
	return normalizeBelowCalc(n), nil
}

// normalizeBelowCalc is Printed's rewrite of n: through filters,
// projections and renames, copied, to the source that makes the rows.
func normalizeBelowCalc(n exec.Node) exec.Node {
	m := n.Changelog()
	if !m.KeyOnlyDeletes && !(m.Contains(types.UpdateAfter) && !m.Contains(types.UpdateBefore)) {
		return n
	}
	if len(exec.UpsertKeyOf(n)) == 0 {
		return n
	}
	switch t := n.(type) {
	case *exec.FilterNode:
		c := *t
		c.In = normalizeBelowCalc(t.In)
		return &c
	case *exec.ProjectNode:
		c := *t
		c.In = normalizeBelowCalc(t.In)
		return &c
	case *exec.RenameNode:
		c := *t
		c.In = normalizeBelowCalc(t.In)
		return &c
	case *exec.LimitNode:
		// A quick look at an upsert topic (LIMIT 10): its first rows as
		// the normalized changelog, not as the raw records.
		c := *t
		c.In = normalizeBelowCalc(t.In)
		return &c
	}
	if len(n.Children()) > 0 {
		return n // an operator's updates (a function's upsert output) print as it makes them
	}
	return DeliverUpdates(n, ptf.RequireUpdateBefore|ptf.RequireFullDelete, nil)
}
