package format_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

func TestTablePrinter_materialises(t *testing.T) {
	sch := types.Schema{Columns: []types.Column{
		{Name: "name", Type: types.TypeString},
		{Name: "n", Type: types.TypeBigInt},
	}}
	row := func(k types.RowKind, name string, n int64) types.Row {
		return types.Row{Kind: k, Fields: []any{name, n}}
	}
	const (
		I  = types.Insert
		UB = types.UpdateBefore
		UA = types.UpdateAfter
		D  = types.Delete
	)
	header := "+--------------------------------+----------------------+\n" +
		"|                           name |                    n |\n" +
		"+--------------------------------+----------------------+\n"
	footer := "+--------------------------------+----------------------+\n"
	tests := []struct {
		name string
		key  []int
		rows []types.Row
		want string
	}{
		{"empty", nil, nil, "Empty set\n"},
		{"everything retracted", nil, []types.Row{row(I, "Bob", 1), row(D, "Bob", 1)}, "Empty set\n"},
		{"retract stream: an update moves the row to the end", nil,
			[]types.Row{row(I, "Bob", 1), row(I, "Alice", 1), row(UB, "Bob", 1), row(UA, "Bob", 2)},
			header +
				"|                          Alice |                    1 |\n" +
				"|                            Bob |                    2 |\n" +
				footer + "2 rows in set\n"},
		{"duplicates: a retraction takes the newest copy", nil,
			[]types.Row{row(I, "Bob", 1), row(I, "Al", 2), row(I, "Bob", 1), row(D, "Bob", 1), row(D, "Nobody", 0)},
			header +
				"|                            Bob |                    1 |\n" +
				"|                             Al |                    2 |\n" +
				footer + "2 rows in set\n"},
		{"upsert stream by key: +U replaces, a key-only delete removes", []int{0},
			[]types.Row{row(I, "Alice", 1), row(I, "Bob", 2), row(UA, "Alice", 10), {Kind: D, Fields: []any{"Bob", nil}}},
			header +
				"|                          Alice |                   10 |\n" +
				footer + "1 row in set\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p, err := format.NewPrinter("table", &out)
			if err != nil {
				t.Fatal(err)
			}
			p.(interface{ SetUpsertKey([]int) }).SetUpsertKey(tt.key)
			if err := p.Begin(sch); err != nil {
				t.Fatal(err)
			}
			for _, r := range tt.rows {
				if err := p.Row(r); err != nil {
					t.Fatal(err)
				}
			}
			if out.Len() != 0 {
				t.Errorf("printed before End: %q", out.String())
			}
			if err := p.End(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}
