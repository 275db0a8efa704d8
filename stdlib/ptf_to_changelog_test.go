package stdlib_test

import (
	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/stdlib"
	"strings"
	"testing"
)

var (
	// idName is Flink's SIMPLE_SOURCE: id INT, name STRING.
	idName = schema("id INT", "name STRING")
	// nameScore is the updating source of most TO_CHANGELOG programs:
	// name STRING PRIMARY KEY NOT ENFORCED, score BIGINT.
	nameScore = schema("name STRING NOT NULL", "score BIGINT")
	// nameIDScore partitions by its middle column.
	nameIDScore = schema("name STRING NOT NULL", "id STRING", "score BIGINT")

	retract = types.RetractAll
	upsert  = types.UpsertAll
	// upsertByKey is an upsert source whose deletes carry only the key.
	upsertByKey = func() types.ChangelogMode { m := types.UpsertAll; m.KeyOnlyDeletes = true; return m }()
)

func TestToChangelogInfer(t *testing.T) {
	tests := []struct {
		name   string
		call   call
		output string // the call's output type
		traits string // the input's traits
		err    string // or Flink's message
	}{
		{name: "insert-only input, defaults", call: call{in: idName},
			output: "ROW<`op` STRING, `id` INT, `name` STRING>",
			traits: "{TABLE, ROW SEMANTIC TABLE, SUPPORT UPDATES, REQUIRE UPDATE BEFORE, REQUIRE FULL DELETE}"},
		{name: "partition by a middle column", call: call{in: nameIDScore, partitionBy: []string{"id"}, mode: retract, upsertKey: []int{0}},
			output: "ROW<`op` STRING, `name` STRING NOT NULL, `score` BIGINT>",
			traits: "{TABLE, SET SEMANTIC TABLE, SUPPORT UPDATES, REQUIRE UPDATE BEFORE, REQUIRE FULL DELETE}"},
		{name: "mapping without UPDATE_BEFORE and DELETE needs neither", call: call{in: nameScore, partitionBy: []string{"name"}, mode: upsertByKey, upsertKey: []int{0},
			args: map[string]any{"op": types.Descriptor{"op"}, "op_mapping": mapping("INSERT,UPDATE_AFTER", "U")}},
			output: "ROW<`op` STRING, `score` BIGINT>",
			traits: "{TABLE, SET SEMANTIC TABLE, SUPPORT UPDATES}"},
		{name: "custom op column", call: call{in: nameScore, mode: retract, upsertKey: []int{0},
			args: map[string]any{"op": types.Descriptor{"op_code"}, "op_mapping": mapping("INSERT", "I", "UPDATE_AFTER", "U")}},
			output: "ROW<`op_code` STRING, `name` STRING NOT NULL, `score` BIGINT>",
			traits: "{TABLE, ROW SEMANTIC TABLE, SUPPORT UPDATES}"},
		{name: "partial deletes keep the upsert key and widen the rest", call: call{in: schema("name STRING NOT NULL", "score BIGINT NOT NULL"), mode: retract, upsertKey: []int{0},
			args: map[string]any{"produces_full_deletes": false}},
			output: "ROW<`op` STRING, `name` STRING NOT NULL, `score` BIGINT>",
			traits: "{TABLE, ROW SEMANTIC TABLE, SUPPORT UPDATES, REQUIRE UPDATE BEFORE}"},
		{name: "partial deletes with PARTITION BY need no upsert key", call: call{in: nameScore, partitionBy: []string{"name"}, mode: retract,
			args: map[string]any{"produces_full_deletes": false}},
			output: "ROW<`op` STRING, `score` BIGINT>",
			traits: "{TABLE, SET SEMANTIC TABLE, SUPPORT UPDATES, REQUIRE UPDATE BEFORE}"},
		{name: "UPDATE_BEFORE of an upsert input partitioned by its key", call: call{in: nameScore, partitionBy: []string{"name"}, mode: upsert, upsertKey: []int{0},
			args: map[string]any{"op_mapping": mapping("UPDATE_BEFORE, UPDATE_AFTER", "U")}},
			output: "ROW<`op` STRING, `score` BIGINT>",
			traits: "{TABLE, SET SEMANTIC TABLE, SUPPORT UPDATES, REQUIRE UPDATE BEFORE}"},
		{name: "explicit full deletes", call: call{in: nameScore, mode: upsertByKey, upsertKey: []int{0},
			args: map[string]any{"produces_full_deletes": true}},
			output: "ROW<`op` STRING, `name` STRING NOT NULL, `score` BIGINT>",
			traits: "{TABLE, ROW SEMANTIC TABLE, SUPPORT UPDATES, REQUIRE UPDATE BEFORE, REQUIRE FULL DELETE}"},

		{name: "descriptor of two columns", call: call{in: idName, args: map[string]any{"op": types.Descriptor{"a", "b"}}},
			err: "The descriptor for argument 'op' must contain exactly one column name."},
		{name: "unknown change operation", call: call{in: idName, args: map[string]any{"op_mapping": mapping("INVALID_KIND", "X")}},
			err: "Invalid target mapping for argument 'op_mapping'. Unknown change operation: 'INVALID_KIND'. Operations are case-sensitive. Valid values are: [INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]."},
		{name: "change operations are case-sensitive", call: call{in: idName, args: map[string]any{"op_mapping": mapping("insert", "I")}},
			err: "Unknown change operation: 'insert'"},
		{name: "duplicate change operation", call: call{in: idName, args: map[string]any{"op_mapping": mapping("INSERT, DELETE", "A", "DELETE", "B")}},
			err: "Invalid target mapping for argument 'op_mapping'. Duplicate change operation: 'DELETE'."},
		{name: "mapping a kind the input lacks", call: call{in: idName, args: map[string]any{"op_mapping": mapping("INSERT", "I", "DELETE", "D")}},
			err: "Invalid 'op_mapping' for TO_CHANGELOG: the input table only produces [INSERT] and does not produce [DELETE]. Remove those entries from the mapping."},
		{name: "full deletes of an input without deletes", call: call{in: idName, args: map[string]any{"produces_full_deletes": true}},
			err: "Invalid 'produces_full_deletes' for TO_CHANGELOG: the input table only produces [INSERT] and never emits DELETE rows. Remove the 'produces_full_deletes' argument."},
		{name: "full deletes when DELETE is not mapped", call: call{in: nameScore, mode: retract, upsertKey: []int{0},
			args: map[string]any{"op_mapping": mapping("INSERT, UPDATE_AFTER", "X"), "produces_full_deletes": true}},
			err: "Invalid 'produces_full_deletes' for TO_CHANGELOG: the active 'op_mapping' does not map DELETE rows"},
		{name: "partial deletes without any key", call: call{in: idName, mode: retract, args: map[string]any{"produces_full_deletes": false}},
			err: "Invalid 'produces_full_deletes=false' for TO_CHANGELOG: the input has no upsert key and the call has no PARTITION BY, so the function has no identifying columns to preserve on DELETE rows. Remove the argument (the default emits full DELETE rows) or add a PARTITION BY."},
		{name: "partial deletes cannot tell a nullable upsert key yet", call: call{in: schema("id INT", "name STRING"), mode: upsert, upsertKey: []int{0},
			args: map[string]any{"produces_full_deletes": false}},
			err: "TO_CHANGELOG with produces_full_deletes => false cannot keep the nullable upsert key column 'id' on DELETE rows yet"},
	}
	def := stdlib.ToChangelog()
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
		})
	}
}

func TestToChangelogEval(t *testing.T) {
	changes := []types.Row{
		row(types.Insert, "Alice", int64(10)),
		row(types.Insert, "Bob", int64(20)),
		row(types.UpdateBefore, "Alice", int64(10)),
		row(types.UpdateAfter, "Alice", int64(30)),
		row(types.Delete, "Bob", int64(20)),
	}
	tests := []struct {
		name string
		call call
		rows []types.Row
		want string
	}{
		{name: "insert-only input", call: call{in: idName},
			rows: []types.Row{row(types.Insert, int64(1), "Alice"), row(types.Insert, int64(2), "Bob")},
			want: "+I[INSERT, 1, Alice]\n+I[INSERT, 2, Bob]"},
		{name: "every kind by its name", call: call{in: nameScore, mode: retract, upsertKey: []int{0}}, rows: changes,
			want: "+I[INSERT, Alice, 10]\n+I[INSERT, Bob, 20]\n+I[UPDATE_BEFORE, Alice, 10]\n+I[UPDATE_AFTER, Alice, 30]\n+I[DELETE, Bob, 20]"},
		{name: "unmapped kinds are dropped", call: call{in: nameScore, mode: retract, upsertKey: []int{0},
			args: map[string]any{"op": types.Descriptor{"op_code"}, "op_mapping": mapping("INSERT", "I", "UPDATE_AFTER", "U")}}, rows: changes,
			want: "+I[I, Alice, 10]\n+I[I, Bob, 20]\n+I[U, Alice, 30]"},
		{name: "comma-separated kinds share a code", call: call{in: nameScore, mode: retract, upsertKey: []int{0},
			args: map[string]any{"op": types.Descriptor{"deleted"}, "op_mapping": mapping("INSERT, UPDATE_AFTER", "false", "DELETE", "true")}}, rows: changes,
			want: "+I[false, Alice, 10]\n+I[false, Bob, 20]\n+I[false, Alice, 30]\n+I[true, Bob, 20]"},
		{name: "partition keys lead, the other columns keep their order", call: call{in: nameIDScore, partitionBy: []string{"id"}, mode: retract, upsertKey: []int{0}},
			rows: []types.Row{row(types.Insert, "Alice", "EU", int64(10)), row(types.UpdateBefore, "Alice", "EU", int64(10)), row(types.UpdateAfter, "Alice", "EU", int64(30))},
			want: "+I[EU, INSERT, Alice, 10]\n+I[EU, UPDATE_BEFORE, Alice, 10]\n+I[EU, UPDATE_AFTER, Alice, 30]"},
		{name: "partial deletes keep the upsert key", call: call{in: nameScore, mode: retract, upsertKey: []int{0},
			args: map[string]any{"produces_full_deletes": false}}, rows: changes,
			want: "+I[INSERT, Alice, 10]\n+I[INSERT, Bob, 20]\n+I[UPDATE_BEFORE, Alice, 10]\n+I[UPDATE_AFTER, Alice, 30]\n+I[DELETE, Bob, null]"},
		{name: "partial deletes with PARTITION BY null the other columns", call: call{in: nameScore, partitionBy: []string{"name"}, mode: retract, upsertKey: []int{0},
			args: map[string]any{"produces_full_deletes": false}},
			rows: []types.Row{row(types.Insert, "Alice", int64(10)), row(types.Delete, "Alice", int64(10))},
			want: "+I[Alice, INSERT, 10]\n+I[Alice, DELETE, null]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := harness(t, stdlib.ToChangelog(), tt.call)
			out, err := h.Process(tt.rows...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, format(out, h.Schema())); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToChangelogOutputColumns(t *testing.T) {
	h := harness(t, stdlib.ToChangelog(), call{in: nameIDScore, partitionBy: []string{"id"}, mode: retract, upsertKey: []int{0}})
	if diff := cmp.Diff([]string{"id", "op", "name", "score"}, h.Schema().Names()); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
}
