package stdlib

import (
	"errors"
	"fmt"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// TO_CHANGELOG's arguments, by declaration index.
const (
	toInput = iota
	toOp
	toOpMapping
	toProducesFullDeletes
)

// ToChangelog returns the built-in TO_CHANGELOG: it turns an updating
// table into an append-only one, each change becoming an INSERT row that
// names its kind in an op column (flink-cases.md §9.1, Flink master):
//
//	TO_CHANGELOG(input => TABLE t [PARTITION BY k],
//	             op => DESCRIPTOR(op),                      -- the op column's name
//	             op_mapping => MAP['INSERT, UPDATE_AFTER', 'U', 'DELETE', 'D'],
//	             produces_full_deletes => true)             -- false: DELETE rows keep only the key
//
// The output is [PARTITION BY columns] + op + the other input columns.
// Kinds the mapping leaves out are dropped.
func ToChangelog() *ptf.FuncDef {
	return &ptf.FuncDef{
		Name:     "TO_CHANGELOG",
		Language: "GO",
		Args: []ptf.ArgDecl{
			{Name: "input", Traits: ptf.RowSemanticTable | ptf.SupportUpdates},
			{Name: "op", Type: &types.TypeDescriptor, Optional: true},
			{Name: "op_mapping", Type: ptrTo(types.MapOf(types.TypeString, types.TypeString)), Optional: true},
			{Name: "produces_full_deletes", Type: &types.TypeBoolean, Optional: true},
		},
		Output: toDeclaredOutput(),
		Infer:  inferToChangelog,
		New:    newToChangelog,
	}
}

// toDeclaredOutput is the output TO_CHANGELOG declares before a call
// completes it with the input's columns.
func toDeclaredOutput() types.Type {
	return types.NewRowType(types.Field{Name: defaultOpColumn, Type: types.TypeString})
}

func ptrTo[T any](v T) *T { return &v }

// toMapping is a parsed op_mapping of TO_CHANGELOG: the op code of each
// row kind (nil: rows of the kind are dropped) and the kinds it names.
type toMapping struct {
	codes  [4]*string
	mapped [4]bool
}

// defaultToMapping names each kind by itself.
func defaultToMapping() toMapping {
	var m toMapping
	for k := range kindNames {
		m.codes[k], m.mapped[k] = &kindNames[k], true
	}
	return m
}

// parseToMapping checks an op_mapping literal as Flink's type strategy
// does: comma-separated kind names as keys, each kind at most once.
func parseToMapping(entries []mapEntry) (toMapping, error) {
	var m toMapping
	for _, e := range entries {
		names := []string{"null"}
		if e.key != nil {
			names = splitNames(*e.key)
		}
		for _, name := range names {
			k, ok := parseKind(name)
			if !ok || e.key == nil {
				return m, fmt.Errorf("Invalid target mapping for argument 'op_mapping'. Unknown change operation: '%s'. Operations are case-sensitive. Valid values are: %s.", name, validKinds)
			}
			if m.mapped[k] {
				return m, fmt.Errorf("Invalid target mapping for argument 'op_mapping'. Duplicate change operation: '%s'.", name)
			}
			m.codes[k], m.mapped[k] = e.value, true
		}
	}
	return m, nil
}

// toCall is what TO_CHANGELOG reads from the constant arguments of a call.
type toCall struct {
	opName  string
	mapping toMapping
	custom  bool // op_mapping given
	// fullDeletes is produces_full_deletes (default true); explicit tells
	// whether the call gives it.
	fullDeletes, explicit bool
}

// readToCall reads and checks the scalar arguments (by declaration index).
func readToCall(args []any) (toCall, error) {
	c := toCall{mapping: defaultToMapping(), fullDeletes: true}
	var err error
	if c.opName, err = opColumn(args[toOp]); err != nil {
		return c, err
	}
	if entries, ok := opMapping(args[toOpMapping]); ok {
		if c.mapping, err = parseToMapping(entries); err != nil {
			return c, err
		}
		c.custom = true
	}
	if b, ok := args[toProducesFullDeletes].(bool); ok {
		c.fullDeletes, c.explicit = b, true
	}
	if c.explicit && c.fullDeletes && !c.mapping.mapped[types.Delete] {
		return c, errors.New("Invalid 'produces_full_deletes' for TO_CHANGELOG: the active 'op_mapping' does not map DELETE rows, so no DELETE rows are emitted. Remove the 'produces_full_deletes' argument or add a DELETE entry to 'op_mapping'.")
	}
	return c, nil
}

// inferToChangelog completes TO_CHANGELOG's declaration for a call: the
// conditional traits of its table argument, Flink's checks against the
// input's changelog, and the output type.
func inferToChangelog(call ptf.CallInfo) (ptf.CallPlan, error) {
	t, ok := tableArgOf(call, toInput)
	if !ok {
		return ptf.CallPlan{Output: toDeclaredOutput()}, nil
	}
	c, err := readToCall(call.Args)
	if err != nil {
		return ptf.CallPlan{}, err
	}

	// Conditional traits: the input arrives with -U rows only when the
	// mapping names UPDATE_BEFORE, with full deletes only when DELETE rows
	// are mapped and must be full.
	in, partition := t.sch, t.partition
	traits := t.traits() | ptf.SupportUpdates
	if c.mapping.mapped[types.UpdateBefore] {
		traits |= ptf.RequireUpdateBefore
	}
	if c.fullDeletes && c.mapping.mapped[types.Delete] {
		traits |= ptf.RequireFullDelete
	}

	// Checks against the changelog the function receives (Flink makes
	// them when it specializes the function).
	var mode types.ChangelogMode
	if toInput < len(call.Changelogs) {
		mode = call.Changelogs[toInput]
	}
	var upsertKey []int
	if toInput < len(call.UpsertKeys) {
		upsertKey = call.UpsertKeys[toInput]
	}
	received := receivedKinds(mode, upsertKey, partition, traits)
	if c.custom {
		var missing []types.RowKind
		for k := types.Insert; k <= types.Delete; k++ {
			if c.mapping.mapped[k] && !contains(received, k) {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return ptf.CallPlan{}, fmt.Errorf("Invalid 'op_mapping' for TO_CHANGELOG: the input table only produces %s and does not produce %s. Remove those entries from the mapping.", kindList(received), kindList(missing))
		}
	}
	if c.explicit && c.fullDeletes && !contains(received, types.Delete) {
		return ptf.CallPlan{}, fmt.Errorf("Invalid 'produces_full_deletes' for TO_CHANGELOG: the input table only produces %s and never emits DELETE rows. Remove the 'produces_full_deletes' argument.", kindList(received))
	}
	if c.explicit && !c.fullDeletes && len(partition) == 0 && len(upsertKey) == 0 {
		return ptf.CallPlan{}, errors.New("Invalid 'produces_full_deletes=false' for TO_CHANGELOG: the input has no upsert key and the call has no PARTITION BY, so the function has no identifying columns to preserve on DELETE rows. Remove the argument (the default emits full DELETE rows) or add a PARTITION BY.")
	}

	// Output: op, then the input columns but the partition keys. Without
	// full deletes a DELETE row keeps only its upsert key, so the other
	// columns become nullable.
	key := map[int]bool{}
	for _, k := range upsertKey {
		key[k] = true
	}
	fields := []types.Field{{Name: c.opName, Type: types.TypeString}}
	var timeAttrs []string
	for _, i := range outputColumns(in.Len(), partition, -1) {
		col := in.Columns[i]
		t := col.Type
		switch {
		case c.fullDeletes:
		case !key[i]:
			t = t.Nullable()
		case !t.NotNull:
			// The instance tells the key columns by their NOT NULL type
			// (see toChangelog.bind), so it cannot keep this one.
			return ptf.CallPlan{}, fmt.Errorf("TO_CHANGELOG with produces_full_deletes => false cannot keep the nullable upsert key column '%s' on DELETE rows yet: PARTITION BY the upsert key, or give the input a NOT NULL key", col.Name)
		}
		fields = append(fields, types.Field{Name: col.Name, Type: t})
		if col.TimeAttr {
			timeAttrs = append(timeAttrs, col.Name) // Flink forwards the rowtime
		}
	}
	traitsByArg := make([]ptf.Trait, len(call.Args))
	traitsByArg[toInput] = traits
	return ptf.CallPlan{Output: types.NewRowType(fields...), Traits: traitsByArg, TimeAttributes: timeAttrs}, nil
}

// receivedKinds are the kinds a table argument with traits receives from
// an input with the given mode, upsert key and partitioning: the planner
// drops -U when the call is partitioned by the upsert key and does not
// require -U, and adds it to updates otherwise (flink-cases.md §10.11).
func receivedKinds(mode types.ChangelogMode, upsertKey, partition []int, traits ptf.Trait) []types.RowKind {
	kinds := mode.Kinds()
	if len(kinds) == 0 {
		return []types.RowKind{types.Insert}
	}
	if mode.IsInsertOnly() {
		return kinds
	}
	upsertForm := len(upsertKey) > 0 && sameSet(upsertKey, partition) && !traits.Has(ptf.RequireUpdateBefore)
	var out []types.RowKind
	for k := types.Insert; k <= types.Delete; k++ {
		switch {
		case k == types.UpdateBefore && upsertForm:
		case k == types.UpdateBefore && mode.Contains(types.UpdateAfter):
			out = append(out, k)
		case mode.Contains(k):
			out = append(out, k)
		}
	}
	return out
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	in := map[int]bool{}
	for _, x := range a {
		in[x] = true
	}
	for _, y := range b {
		if !in[y] {
			return false
		}
	}
	return true
}

func contains(kinds []types.RowKind, k types.RowKind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// toChangelog is one call of TO_CHANGELOG.
type toChangelog struct {
	call   toCall
	output types.Schema
	width  int // input columns
	// cols are the input columns of the output after op, and keep tells
	// which of them a DELETE row keeps without full deletes; both are
	// set at the first row (bound), when the partitioning is known.
	bound bool
	cols  []int
	keep  []bool
	buf   []any
}

func newToChangelog(spec ptf.CallSpec) (ptf.PTF, error) {
	c, err := readToCall(spec.Args)
	if err != nil {
		return nil, err
	}
	return &toChangelog{call: c, output: spec.Output, width: spec.Tables[toInput].Len()}, nil
}

// Eval appends the row as an INSERT carrying its kind's op code.
func (f *toChangelog) Eval(ctx *ptf.Context, row types.Row) error {
	if !f.bound {
		if err := f.bind(ctx); err != nil {
			return err
		}
	}
	if int(row.Kind) >= len(f.call.mapping.codes) {
		return fmt.Errorf("TO_CHANGELOG: unknown row kind %d", row.Kind)
	}
	code := f.call.mapping.codes[row.Kind]
	if code == nil {
		return nil // unmapped kinds are dropped
	}
	partial := row.Kind == types.Delete && !f.call.fullDeletes
	f.buf[0] = *code
	for i, c := range f.cols {
		if partial && !f.keep[i] {
			f.buf[1+i] = nil
		} else {
			f.buf[1+i] = row.Fields[c]
		}
	}
	return ctx.Collect(types.Row{Kind: types.Insert, Fields: f.buf})
}

// bind works out the output columns once the runtime tells the
// partitioning.
func (f *toChangelog) bind(ctx *ptf.Context) error {
	f.cols = outputColumns(f.width, partitionOf(ctx, toInput), -1)
	if len(f.cols)+1 != f.output.Len() {
		return fmt.Errorf("TO_CHANGELOG: the call's output %v does not fit its input: was it planned without its Infer?", f.output.Names())
	}
	// The upsert key columns are the ones Infer left NOT NULL: the runtime
	// does not hand the upsert key to an instance (CallSpec and
	// TableSemantics lack it), so its output type carries the mark; Infer
	// rejects partial deletes that would have to keep a nullable key column.
	f.keep = make([]bool, len(f.cols))
	for i := range f.cols {
		f.keep[i] = f.output.Columns[1+i].Type.NotNull
	}
	f.buf = make([]any, 1+len(f.cols))
	f.bound = true
	return nil
}

// OnTimer is never called: TO_CHANGELOG registers no timers.
func (f *toChangelog) OnTimer(*ptf.Context) error { return nil }
