package stdlib_test

import (
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// call describes a call of a built-in for its Infer: the input table, its
// PARTITION BY columns, changelog mode and upsert key, and the constant
// scalar arguments by name.
type call struct {
	in          types.Schema
	partitionBy []string
	mode        types.ChangelogMode // zero: insert-only
	upsertKey   []int
	args        map[string]any
}

// info builds the CallInfo the planner would give def's Infer for c.
func (c call) info(def *ptf.FuncDef) ptf.CallInfo {
	n := len(def.Args)
	ci := ptf.CallInfo{Args: make([]any, n), Tables: make([]types.Schema, n), PartitionBy: make([][]string, n),
		Changelogs: make([]types.ChangelogMode, n), UpsertKeys: make([][]int, n)}
	mode := c.mode
	if len(mode.Kinds()) == 0 {
		mode = types.InsertOnly
	}
	for i, a := range def.Args {
		if a.IsTable() {
			ci.Tables[i], ci.PartitionBy[i], ci.Changelogs[i], ci.UpsertKeys[i] = c.in, c.partitionBy, mode, c.upsertKey
			continue
		}
		ci.Args[i] = c.args[a.Name]
	}
	return ci
}

// specialize completes def for c as the planner does with Infer's plan,
// so that a Harness runs the call: the returned definition has the call's
// output type and traits.
func specialize(t *testing.T, def *ptf.FuncDef, c call) *ptf.FuncDef {
	t.Helper()
	plan, err := def.Infer(c.info(def))
	if err != nil {
		t.Fatalf("Infer: %v", err)
	}
	d := *def
	d.Args = append([]ptf.ArgDecl(nil), def.Args...)
	for i, tr := range plan.Traits {
		if tr != 0 {
			d.Args[i].Traits = tr
		}
	}
	d.Output = plan.Output
	return &d
}

// harness binds def, specialized for c, to rows of c.in.
func harness(t *testing.T, def *ptf.FuncDef, c call) *ptfop.Harness {
	t.Helper()
	h, err := ptfop.NewHarness(specialize(t, def, c), c.in, ptfop.HarnessOptions{PartitionBy: c.partitionBy, Args: c.args})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// format prints rows as Flink's Row.toString, one a line.
func format(rows []types.Row, s types.Schema) string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = types.FormatRow(r, s)
	}
	return strings.Join(out, "\n")
}

// row makes a row of the given kind.
func row(k types.RowKind, fields ...any) types.Row { return types.Row{Kind: k, Fields: fields} }

// schema makes a schema from "name TYPE" pairs of a few simple types.
func schema(cols ...string) types.Schema {
	byName := map[string]types.Type{
		"STRING": types.TypeString, "INT": types.TypeInt, "BIGINT": types.TypeBigInt,
		"STRING NOT NULL": types.TypeString.AsNotNull(), "BIGINT NOT NULL": types.TypeBigInt.AsNotNull(),
		"INT NOT NULL": types.TypeInt.AsNotNull(),
	}
	var s types.Schema
	for _, c := range cols {
		name, typ, _ := strings.Cut(c, " ")
		t, ok := byName[typ]
		if !ok {
			panic("schema: unknown type " + typ)
		}
		s.Columns = append(s.Columns, types.Column{Name: name, Type: t})
	}
	return s
}

// mapping makes an op_mapping MAP literal's value from key, value pairs.
func mapping(kv ...string) *types.Map {
	m := &types.Map{}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Keys = append(m.Keys, kv[i])
		m.Values = append(m.Values, kv[i+1])
	}
	return m
}
