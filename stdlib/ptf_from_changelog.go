package stdlib

import (
	"errors"
	"fmt"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"strings"
)

// FROM_CHANGELOG's arguments, by declaration index.
const (
	fromInput = iota
	fromOp
	fromOpMapping
	fromErrorHandling
)

// FromChangelog returns the built-in FROM_CHANGELOG: it turns an
// append-only table whose op column names each row's change into an
// updating table (flink-cases.md §9.2, Flink master):
//
//	FROM_CHANGELOG(input => TABLE cdc [PARTITION BY k],
//	               op => DESCRIPTOR(op),                       -- the op column
//	               op_mapping => MAP['c, r', 'INSERT', 'd', 'DELETE'],
//	               error_handling => 'FAIL')                   -- or 'SKIP' rows with an unknown op
//
// The output is [PARTITION BY columns] + the other input columns but the op
// column, as a retract changelog; partitioned, with a mapping that has
// UPDATE_AFTER but not UPDATE_BEFORE, as an upsert changelog keyed by the
// PARTITION BY columns.
func FromChangelog() *ptf.FuncDef {
	f := &fromChangelogDef{mode: types.RetractAll}
	return &ptf.FuncDef{
		Name:     "FROM_CHANGELOG",
		Language: "GO",
		Args: []ptf.ArgDecl{
			{Name: "input", Traits: ptf.RowSemanticTable},
			{Name: "op", Type: &types.TypeDescriptor, Optional: true},
			{Name: "op_mapping", Type: ptrTo(types.MapOf(types.TypeString, types.TypeString)), Optional: true},
			{Name: "error_handling", Type: &types.TypeString, Optional: true},
		},
		Output:        types.NewRowType(),
		Infer:         f.infer,
		ChangelogMode: f.changelogMode,
		New:           newFromChangelog,
	}
}

// fromChangelogDef holds what FROM_CHANGELOG's Infer decided for the call
// being planned.
//
// The output changelog mode depends on the call (PARTITION BY and the
// mapping), but FuncDef.ChangelogMode sees only the tables' modes. The
// planner calls Infer and then ChangelogMode for one call before it plans
// the next (a call's tables are planned before its Infer), and a session
// plans one statement at a time, so Infer leaves the mode here for the
// ChangelogMode that follows. Each Register makes its own FuncDef, so
// sessions do not share it.
type fromChangelogDef struct {
	mode types.ChangelogMode
}

func (d *fromChangelogDef) changelogMode([]types.ChangelogMode, types.ChangelogMode) (types.ChangelogMode, error) {
	return d.mode, nil
}

// fromMapping is a parsed op_mapping of FROM_CHANGELOG: the kind of each op
// code, and the codes in the order the mapping gives them.
type fromMapping struct {
	kinds map[string]types.RowKind
	codes []string
	// has tells which kinds the mapping produces.
	has [4]bool
}

func defaultFromMapping() fromMapping {
	m := fromMapping{kinds: map[string]types.RowKind{}}
	for k, name := range kindNames {
		m.kinds[name] = types.RowKind(k)
		m.codes = append(m.codes, name)
		m.has[k] = true
	}
	return m
}

// parseFromMapping checks an op_mapping literal as Flink's type strategy
// does: kind names as values, each at most once; comma-separated op codes
// as keys.
func parseFromMapping(entries []mapEntry) (fromMapping, error) {
	m := fromMapping{kinds: map[string]types.RowKind{}}
	for _, e := range entries {
		name := strings.TrimSpace(nullable(e.value))
		k, ok := parseKind(name)
		if !ok || e.value == nil {
			return m, fmt.Errorf("Invalid target mapping for argument 'op_mapping'. Unknown change operation: '%s'. Valid values are: %s.", name, validKinds)
		}
		if m.has[k] {
			return m, fmt.Errorf("Invalid target mapping for argument 'op_mapping'. Duplicate change operation: '%s'. Use comma-separated keys to map multiple codes to the same operation (e.g., MAP['c, r', 'INSERT']).", name)
		}
		m.has[k] = true
	}
	for _, e := range entries {
		if e.key == nil {
			return m, errors.New("Invalid op code NULL for argument 'op_mapping': op codes are strings.")
		}
		k, _ := parseKind(strings.TrimSpace(*e.value))
		for _, code := range splitNames(*e.key) {
			if prev, dup := m.kinds[code]; dup {
				return m, fmt.Errorf("Duplicate key %s (attempted merging values %s and %s)", code, prev, k)
			}
			m.kinds[code] = k
			m.codes = append(m.codes, code)
		}
	}
	return m, nil
}

// upsert tells whether the mapping describes an upsert changelog: updates
// without their before-images.
func (m fromMapping) upsert() bool {
	return m.has[types.UpdateAfter] && !m.has[types.UpdateBefore]
}

// fromCall is what FROM_CHANGELOG reads from the constant arguments of a call.
type fromCall struct {
	opName  string
	mapping fromMapping
	skip    bool // error_handling => 'SKIP'
}

// readFromCall reads and checks the scalar arguments (by declaration
// index) against the input's columns.
func readFromCall(args []any, in types.Schema, partitioned bool) (fromCall, error) {
	c := fromCall{mapping: defaultFromMapping()}
	var err error
	if c.opName, err = opColumn(args[fromOp]); err != nil {
		return c, err
	}
	i := in.Index(c.opName)
	if i < 0 {
		return c, fmt.Errorf("The op column '%s' does not exist in the input schema.", c.opName)
	}
	if t := in.Columns[i].Type; !t.IsString() {
		return c, fmt.Errorf("The op column '%s' must be of STRING type, but was '%s'.", c.opName, t)
	}
	if entries, ok := opMapping(args[fromOpMapping]); ok {
		if c.mapping, err = parseFromMapping(entries); err != nil {
			return c, err
		}
		if c.mapping.upsert() && !partitioned {
			return c, errors.New("An 'op_mapping' that produces UPDATE_AFTER without UPDATE_BEFORE describes an upsert changelog and requires a key. Add PARTITION BY to the input table to define the upsert key, or include UPDATE_BEFORE in the mapping for retract semantics.")
		}
	}
	if s, ok := args[fromErrorHandling].(string); ok {
		switch s {
		case "FAIL":
		case "SKIP":
			c.skip = true
		default:
			return c, fmt.Errorf("Invalid value for argument 'error_handling': '%s'. Valid values are: FAIL, SKIP.", s)
		}
	}
	return c, nil
}

// infer completes FROM_CHANGELOG's declaration for a call: set semantics
// with PARTITION BY, the output columns, and the output changelog mode.
func (d *fromChangelogDef) infer(call ptf.CallInfo) (ptf.CallPlan, error) {
	d.mode = types.RetractAll
	t, ok := tableArgOf(call, fromInput)
	if !ok {
		return ptf.CallPlan{Output: types.NewRowType()}, nil
	}
	in, partition := t.sch, t.partition
	c, err := readFromCall(call.Args, in, t.partitioned)
	if err != nil {
		return ptf.CallPlan{}, err
	}
	if t.partitioned && c.mapping.upsert() {
		d.mode = types.UpsertAll // full deletes: each row carries all its columns
	}
	var fields []types.Field
	for _, i := range outputColumns(in.Len(), partition, in.Index(c.opName)) {
		fields = append(fields, types.Field{Name: in.Columns[i].Name, Type: in.Columns[i].Type})
	}
	traits := make([]ptf.Trait, len(call.Args))
	traits[fromInput] = t.traits()
	return ptf.CallPlan{Output: types.NewRowType(fields...), Traits: traits}, nil
}

// fromChangelog is one call of FROM_CHANGELOG.
type fromChangelog struct {
	call  fromCall
	in    types.Schema
	op    int // the op column
	out   int // output columns
	bound bool
	cols  []int // the input columns of the output, set at the first row
	buf   []any
}

func newFromChangelog(spec ptf.CallSpec) (ptf.PTF, error) {
	in := spec.Tables[fromInput]
	c, err := readFromCall(spec.Args, in, true)
	if err != nil {
		return nil, err
	}
	return &fromChangelog{call: c, in: in, op: in.Index(c.opName), out: spec.Output.Len()}, nil
}

// Eval emits the row, without its op column, as the change its op code names.
func (f *fromChangelog) Eval(ctx *ptf.Context, row types.Row) error {
	if !f.bound {
		f.cols = outputColumns(f.in.Len(), partitionOf(ctx, fromInput), f.op)
		if len(f.cols) != f.out {
			return fmt.Errorf("FROM_CHANGELOG: the call's output has %d columns, its input %d besides the op column and the keys: was it planned without its Infer?", f.out, len(f.cols))
		}
		f.buf = make([]any, len(f.cols))
		f.bound = true
	}
	kind, err := f.kind(row.Fields[f.op])
	if err != nil {
		if f.call.skip {
			return nil
		}
		return err
	}
	for i, c := range f.cols {
		f.buf[i] = row.Fields[c]
	}
	return ctx.Collect(types.Row{Kind: kind, Fields: f.buf})
}

// kind returns the change kind an op code names, or Flink's runtime error.
func (f *fromChangelog) kind(op any) (types.RowKind, error) {
	if op == nil {
		return 0, errors.New("Received NULL op code. Every changelog row must carry an operation code.")
	}
	code, _ := op.(string)
	k, ok := f.call.mapping.kinds[code]
	if !ok {
		return 0, fmt.Errorf("Received invalid op code '%s'. Defined op codes are: [%s].", code, strings.Join(f.call.mapping.codes, ", "))
	}
	return k, nil
}

// OnTimer is never called: FROM_CHANGELOG registers no timers.
func (f *fromChangelog) OnTimer(*ptf.Context) error { return nil }
