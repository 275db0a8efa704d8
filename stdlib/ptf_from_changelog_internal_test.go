package stdlib

import (
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestFromChangelogKinds checks the kind each op code names, which
// FROM_CHANGELOG's Eval gives the row (the Harness can only show INSERT
// rows, see TestFromChangelogEval).
func TestFromChangelogKinds(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name    string
		mapping []mapEntry // nil: the default mapping
		codes   map[string]types.RowKind
		err     string
	}{
		{name: "default", codes: map[string]types.RowKind{
			"INSERT": types.Insert, "UPDATE_BEFORE": types.UpdateBefore, "UPDATE_AFTER": types.UpdateAfter, "DELETE": types.Delete}},
		{name: "comma-separated codes, trimmed", mapping: []mapEntry{
			{key: str("c, r"), value: str("INSERT")}, {key: str(" u "), value: str(" UPDATE_AFTER")}, {key: str("d"), value: str("DELETE")}},
			codes: map[string]types.RowKind{"c": types.Insert, "r": types.Insert, "u": types.UpdateAfter, "d": types.Delete}},
		{name: "deletion flag", mapping: []mapEntry{{key: str("false"), value: str("INSERT")}, {key: str("true"), value: str("DELETE")}},
			codes: map[string]types.RowKind{"false": types.Insert, "true": types.Delete}},
		{name: "a code twice", mapping: []mapEntry{{key: str("a"), value: str("INSERT")}, {key: str("a, b"), value: str("DELETE")}},
			err: "Duplicate key a (attempted merging values INSERT and DELETE)"},
		{name: "NULL kind", mapping: []mapEntry{{key: str("a"), value: nil}},
			err: "Unknown change operation: 'null'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := defaultFromMapping()
			var err error
			if tt.mapping != nil {
				m, err = parseFromMapping(tt.mapping)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f := &fromChangelog{call: fromCall{mapping: m}}
			for code, want := range tt.codes {
				got, err := f.kind(code)
				if err != nil || got != want {
					t.Errorf("op code %q: got %v, %v; want %v", code, got, err, want)
				}
			}
		})
	}
}

func TestSplitNames(t *testing.T) {
	tests := []struct {
		key  string
		want []string
	}{
		{"INSERT", []string{"INSERT"}},
		{"INSERT, UPDATE_AFTER", []string{"INSERT", "UPDATE_AFTER"}},
		{"INSERT,UPDATE_AFTER,", []string{"INSERT", "UPDATE_AFTER"}}, // Java drops trailing empty parts
		{",INSERT", []string{"", "INSERT"}},
		{"", []string{""}},
	}
	for _, tt := range tests {
		got := splitNames(tt.key)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("splitNames(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestOpMappingLastEntryWins(t *testing.T) {
	m := &types.Map{Keys: []any{"INSERT", "DELETE", "INSERT"}, Values: []any{"a", "b", "c"}}
	entries, ok := opMapping(m)
	if !ok || len(entries) != 2 || *entries[0].key != "INSERT" || *entries[0].value != "c" || *entries[1].value != "b" {
		t.Fatalf("opMapping = %v, %v", entries, ok)
	}
	if _, ok := opMapping(&types.Map{Keys: []any{int64(1)}, Values: []any{"a"}}); ok {
		t.Error("a map of integers is no op_mapping")
	}
}
