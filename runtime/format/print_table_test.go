package format_test

import (
	"bytes"
	"strings"
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

// TestTablePrinter_refresh: on a terminal the table so far is redrawn in
// place (the cursor goes up over the last drawing, which is cleared), only
// when it changed; after Leave the next drawing goes below; End draws the
// final table over the last drawing.
func TestTablePrinter_refresh(t *testing.T) {
	var b strings.Builder
	p := format.NewTablePrinter(&b)
	format.SetLiveRefresh(p, true)
	r, ok := p.(format.Refresher)
	if !ok {
		t.Fatal("the table printer is no Refresher")
	}
	sch := types.Schema{Columns: []types.Column{{Name: "c", Type: types.Type{Kind: types.KindBigInt}}}}
	if err := p.Begin(sch); err != nil {
		t.Fatal(err)
	}
	step := func(what string, rows ...types.Row) string {
		t.Helper()
		b.Reset()
		for _, row := range rows {
			if err := p.Row(row); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Refresh(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	row := func(k types.RowKind, c int64) types.Row { return types.Row{Kind: k, Fields: []any{c}} }
	first := step("first", row(types.Insert, 1))
	if strings.Contains(first, "\x1b[") || !strings.Contains(first, "|                    1 |") {
		t.Errorf("the first drawing:\n%q", first)
	}
	if got := step("unchanged"); got != "" {
		t.Errorf("a refresh without a change drew %q", got)
	}
	second := step("second", row(types.UpdateBefore, 1), row(types.UpdateAfter, 2))
	if !strings.HasPrefix(second, "\x1b[6A\x1b[J") || !strings.Contains(second, "|                    2 |") {
		t.Errorf("the second drawing does not replace the first (6 lines):\n%q", second)
	}
	r.Leave()
	third := step("after leave")
	if strings.Contains(third, "\x1b[") || !strings.Contains(third, "|                    2 |") {
		t.Errorf("after Leave the drawing goes below, without erasing:\n%q", third)
	}
	b.Reset()
	if err := p.End(); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); !strings.HasPrefix(got, "\x1b[6A\x1b[J") || !strings.HasSuffix(got, "1 row in set\n") {
		t.Errorf("End does not draw the final table over the last drawing:\n%q", got)
	}
}
