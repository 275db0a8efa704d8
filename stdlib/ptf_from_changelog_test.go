package stdlib_test

import (
	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/stdlib"
	"strings"
	"testing"
)

// idOpName is the CDC stream of most FROM_CHANGELOG programs.
var idOpName = schema("id INT", "op STRING", "name STRING")

func TestFromChangelogInfer(t *testing.T) {
	tests := []struct {
		name   string
		call   call
		output string // the call's output type
		traits string // the input's traits
		mode   string // the output changelog mode
		err    string // or Flink's message
	}{
		{name: "defaults", call: call{in: idOpName},
			output: "ROW<`id` INT, `name` STRING>", traits: "{TABLE, ROW SEMANTIC TABLE}", mode: "[INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]"},
		{name: "partitioned", call: call{in: schema("name STRING", "id INT", "op STRING"), partitionBy: []string{"id"}},
			output: "ROW<`name` STRING>", traits: "{TABLE, SET SEMANTIC TABLE}", mode: "[INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]"},
		{name: "custom op column", call: call{in: schema("id INT", "operation STRING", "name STRING"), args: map[string]any{"op": types.Descriptor{"operation"}}},
			output: "ROW<`id` INT, `name` STRING>", traits: "{TABLE, ROW SEMANTIC TABLE}", mode: "[INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]"},
		{name: "upsert mapping with PARTITION BY", call: call{in: schema("name STRING", "id INT", "op STRING"), partitionBy: []string{"id"},
			args: map[string]any{"op_mapping": mapping("INSERT", "INSERT", "UPDATE_AFTER", "UPDATE_AFTER", "DELETE", "DELETE")}},
			output: "ROW<`name` STRING>", traits: "{TABLE, SET SEMANTIC TABLE}", mode: "[INSERT, UPDATE_AFTER, DELETE]"},
		{name: "deletion flag", call: call{in: schema("id INT", "deleted STRING", "name STRING"), partitionBy: []string{"id"},
			args: map[string]any{"op": types.Descriptor{"deleted"}, "op_mapping": mapping("false", "INSERT", "true", "DELETE")}},
			output: "ROW<`name` STRING>", traits: "{TABLE, SET SEMANTIC TABLE}", mode: "[INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]"},
		{name: "error handling SKIP", call: call{in: idOpName, args: map[string]any{"error_handling": "SKIP"}},
			output: "ROW<`id` INT, `name` STRING>", traits: "{TABLE, ROW SEMANTIC TABLE}", mode: "[INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]"},

		{name: "descriptor of two columns", call: call{in: idOpName, args: map[string]any{"op": types.Descriptor{"a", "b"}}},
			err: "The descriptor for argument 'op' must contain exactly one column name."},
		{name: "missing op column", call: call{in: idOpName, args: map[string]any{"op": types.Descriptor{"kind"}}},
			err: "The op column 'kind' does not exist in the input schema."},
		{name: "op column not a string", call: call{in: idOpName, args: map[string]any{"op": types.Descriptor{"id"}}},
			err: "The op column 'id' must be of STRING type, but was 'INT'."},
		{name: "unknown change operation", call: call{in: idOpName, args: map[string]any{"op_mapping": mapping("c", "CREATE")}},
			err: "Invalid target mapping for argument 'op_mapping'. Unknown change operation: 'CREATE'. Valid values are: [INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]."},
		{name: "duplicate change operation", call: call{in: idOpName, args: map[string]any{"op_mapping": mapping("c", "INSERT", "r", "INSERT")}},
			err: "Invalid target mapping for argument 'op_mapping'. Duplicate change operation: 'INSERT'. Use comma-separated keys to map multiple codes to the same operation (e.g., MAP['c, r', 'INSERT'])."},
		{name: "upsert mapping without PARTITION BY", call: call{in: idOpName, args: map[string]any{"op_mapping": mapping("c", "INSERT", "u", "UPDATE_AFTER")}},
			err: "An 'op_mapping' that produces UPDATE_AFTER without UPDATE_BEFORE describes an upsert changelog and requires a key. Add PARTITION BY to the input table to define the upsert key, or include UPDATE_BEFORE in the mapping for retract semantics."},
		{name: "error handling is case-sensitive", call: call{in: idOpName, args: map[string]any{"error_handling": "skip"}},
			err: "Invalid value for argument 'error_handling': 'skip'. Valid values are: FAIL, SKIP."},
		{name: "unknown error handling", call: call{in: idOpName, args: map[string]any{"error_handling": "Fail"}},
			err: "Invalid value for argument 'error_handling': 'Fail'. Valid values are: FAIL, SKIP."},
	}
	def := stdlib.FromChangelog()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := def.Infer(tt.call.info(def))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := plan.Output.String(); got != tt.output {
				t.Errorf("output %s, want %s", got, tt.output)
			}
			if got := plan.Traits[0].String(); got != tt.traits {
				t.Errorf("traits %s, want %s", got, tt.traits)
			}
			// The planner asks for the output mode right after Infer.
			m, err := def.ChangelogMode([]types.ChangelogMode{types.InsertOnly}, types.RetractAll)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.String(); got != tt.mode {
				t.Errorf("changelog mode %s, want %s", got, tt.mode)
			}
		})
	}
}

// The Harness runs a call with an insert-only output mode (it does not ask
// ChangelogMode), so these cases emit INSERT rows only; the other kinds
// are covered by the internal test and tests/testdata/changelog.
func TestFromChangelogEval(t *testing.T) {
	tests := []struct {
		name string
		call call
		rows []types.Row
		want string
		err  string
	}{
		{name: "the op column is consumed", call: call{in: idOpName},
			rows: []types.Row{types.NewRow(int64(1), "INSERT", "Alice"), types.NewRow(int64(2), "INSERT", "Bob")},
			want: "+I[1, Alice]\n+I[2, Bob]"},
		{name: "partition keys lead", call: call{in: schema("name STRING", "id INT", "op STRING"), partitionBy: []string{"id"}},
			rows: []types.Row{types.NewRow("Alice", int64(1), "INSERT")},
			want: "+I[1, Alice]"},
		{name: "comma-separated codes", call: call{in: idOpName, args: map[string]any{"op_mapping": mapping("c, r", "INSERT", "d", "DELETE")}},
			rows: []types.Row{types.NewRow(int64(1), "c", "Alice"), types.NewRow(int64(2), "r", "Bob")},
			want: "+I[1, Alice]\n+I[2, Bob]"},
		{name: "NULL op code fails", call: call{in: idOpName},
			rows: []types.Row{types.NewRow(int64(1), nil, "Alice")},
			err:  "Received NULL op code. Every changelog row must carry an operation code."},
		{name: "unknown op code fails", call: call{in: idOpName},
			rows: []types.Row{types.NewRow(int64(1), "UNKNOWN", "Alice")},
			err:  "Received invalid op code 'UNKNOWN'. Defined op codes are: [INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]."},
		{name: "the message lists the mapping's codes", call: call{in: idOpName, args: map[string]any{"op_mapping": mapping("c, r", "INSERT", "d", "DELETE")}},
			rows: []types.Row{types.NewRow(int64(1), "u", "Alice")},
			err:  "Received invalid op code 'u'. Defined op codes are: [c, r, d]."},
		{name: "SKIP drops unknown and NULL op codes", call: call{in: idOpName, args: map[string]any{"error_handling": "SKIP"}},
			rows: []types.Row{types.NewRow(int64(1), "INSERT", "Alice"), types.NewRow(int64(2), nil, "Bob"),
				types.NewRow(int64(3), "UNKNOWN", "Carol"), types.NewRow(int64(4), "INSERT", "Dan")},
			want: "+I[1, Alice]\n+I[4, Dan]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := harness(t, stdlib.FromChangelog(), tt.call)
			out, err := h.Process(tt.rows...)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, format(out, h.Schema())); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}
