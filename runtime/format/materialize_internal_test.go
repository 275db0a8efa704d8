package format

import (
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// An updating aggregate over many input rows: the materialised table
// holds its final rows only, whatever the number of changes (memory
// bounded by the final table, not by the changelog).
func TestMaterializer_memoryIsTheFinalTable(t *testing.T) {
	for _, tt := range []struct {
		name string
		key  []int
	}{{"by upsert key", []int{0}}, {"by whole row", nil}} {
		t.Run(tt.name, func(t *testing.T) {
			var m materializer
			m.key = tt.key
			m.reset()
			keys := []string{"a", "b", "c"}
			counts := map[string]int64{}
			for i := range 100_000 {
				k := keys[i%len(keys)]
				if n := counts[k]; n > 0 {
					m.row(types.Row{Kind: types.UpdateBefore, Fields: []any{k, n}})
					m.row(types.Row{Kind: types.UpdateAfter, Fields: []any{k, n + 1}})
				} else {
					m.row(types.Row{Kind: types.Insert, Fields: []any{k, int64(1)}})
				}
				counts[k]++
				if m.live > len(keys) || len(m.index) > len(keys) {
					t.Fatalf("after %d changes the materializer holds %d rows (%d keys), want at most %d", i+1, m.live, len(m.index), len(keys))
				}
			}
			if got := m.held(); got != 3 || m.live != 3 {
				t.Fatalf("held %d rows, live %d, want 3", got, m.live)
			}
			var got []string
			for e := m.head; e != nil; e = e.next {
				got = append(got, types.FormatRow(types.Row{Kind: types.Insert, Fields: e.fields}, types.Schema{Columns: []types.Column{{Name: "k", Type: types.TypeString}, {Name: "n", Type: types.TypeBigInt}}}))
			}
			// Each update moves its row to the end: the last updated last.
			if want := "+I[b, 33333] +I[c, 33333] +I[a, 33334]"; strings.Join(got, " ") != want {
				t.Fatalf("final rows %s, want %s", strings.Join(got, " "), want)
			}
		})
	}
}

// Deletes empty the table: nothing is held for rows that are gone.
func TestMaterializer_deletesFreeRows(t *testing.T) {
	var m materializer
	m.reset()
	for i := range 10_000 {
		m.row(types.Row{Kind: types.Insert, Fields: []any{int64(i)}})
		m.row(types.Row{Kind: types.Delete, Fields: []any{int64(i)}})
	}
	m.row(types.Row{Kind: types.Delete, Fields: []any{int64(-1)}}) // matches nothing: ignored
	if m.held() != 0 || m.live != 0 || len(m.index) != 0 || m.head != nil || m.tail != nil {
		t.Fatalf("held %d rows, live %d, %d keys; want none", m.held(), m.live, len(m.index))
	}
}

// The table mode in CSV: the final rows, no op column.
func TestNewMaterializing_csv(t *testing.T) {
	var b strings.Builder
	p := NewMaterializing(NewCSVPrinter(&b, CSVOptions{}), []int{0})
	s := types.Schema{Columns: []types.Column{{Name: "name", Type: types.TypeString}, {Name: "n", Type: types.TypeBigInt}}}
	rows := []types.Row{
		{Kind: types.Insert, Fields: []any{"Bob", int64(1)}},
		{Kind: types.Insert, Fields: []any{"Alice", int64(1)}},
		{Kind: types.UpdateBefore, Fields: []any{"Bob", int64(1)}},
		{Kind: types.UpdateAfter, Fields: []any{"Bob", int64(2)}},
		{Kind: types.Insert, Fields: []any{"Carol", int64(5)}},
		{Kind: types.Delete, Fields: []any{"Carol", nil}}, // a delete by key
	}
	if err := p.Begin(s); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := p.Row(r); err != nil {
			t.Fatal(err)
		}
	}
	if b.Len() != 0 {
		t.Fatalf("printed before the end: %q", b.String())
	}
	if err := p.End(); err != nil {
		t.Fatal(err)
	}
	if want := "name,n\nAlice,1\nBob,2\n"; b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}
