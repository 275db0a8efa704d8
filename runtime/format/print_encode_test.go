package format_test

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestRowEncoder_sameAsRow encodes rows on several goroutines at once and
// writes the bytes with WriteEncoded: the output is the printer's own,
// row for row, in CSV and JSON, with and without the op column and with
// control characters escaped or not.
func TestRowEncoder_sameAsRow(t *testing.T) {
	s := prSchema(prCol("name", types.TypeString), prCol("n", types.TypeBigInt), prCol("x", types.TypeDouble),
		prCol("ts", types.TypeTimestampLTZ), prCol("tags", types.ArrayOf(types.TypeString)))
	rows := []types.Row{
		prRow(types.Insert, "Bob", int64(12), 1.5, types.Instant{Millis: 1743076800500}, []any{"a", "b"}),
		prRow(types.UpdateBefore, "with, comma \"q\"", int64(-1), nil, nil, nil),
		prRow(types.UpdateAfter, "", nil, 1e10, nil, []any{}),
		prRow(types.Delete, "bell\a\x7f\u0085 line\nbreak", int64(0), math.Inf(-1), nil, []any{nil}),
	}
	printers := map[string]func(w *bytes.Buffer) format.Printer{
		"csv": func(w *bytes.Buffer) format.Printer { return format.NewCSVPrinter(w, format.CSVOptions{}) },
		"csv op": func(w *bytes.Buffer) format.Printer {
			return format.NewCSVPrinter(w, format.CSVOptions{OpColumn: true})
		},
		"json": func(w *bytes.Buffer) format.Printer { return format.NewJSONPrinter(w, format.JSONOptions{}) },
		"json op": func(w *bytes.Buffer) format.Printer {
			return format.NewJSONPrinter(w, format.JSONOptions{OpColumn: true})
		},
	}
	for name, newPrinter := range printers {
		for _, escape := range []bool{false, true} {
			mk := func(w *bytes.Buffer) format.Printer {
				p := newPrinter(w)
				format.SetEscapeControls(p, escape)
				return p
			}
			want := prAll(t, mk, s, rows...)
			var buf bytes.Buffer
			p := mk(&buf)
			if format.NewRowEncoder(p) != nil {
				t.Fatalf("%s: an encoder before Begin", name)
			}
			if err := p.Begin(s); err != nil {
				t.Fatal(err)
			}
			// Each goroutine encodes every other row; the lines go out in order.
			parts := make([][]byte, len(rows))
			var wg sync.WaitGroup
			for g := range 2 {
				enc := format.NewRowEncoder(p)
				if enc == nil {
					t.Fatalf("%s: no encoder", name)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := g; i < len(rows); i += 2 {
						parts[i], _ = enc.AppendRow(nil, rows[i])
					}
				}()
			}
			wg.Wait()
			if err := format.WriteEncoded(p, bytes.Join(parts, nil)); err != nil {
				t.Fatal(err)
			}
			if err := p.End(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, buf.String()); diff != "" {
				t.Errorf("%s, escape %v: encoded rows differ from Row's (-want +got):\n%s", name, escape, diff)
			}
		}
	}
}

// TestRowEncoder_errors: printers that do not encode apart give no
// encoder, and an encoder's error is Row's.
func TestRowEncoder_errors(t *testing.T) {
	var buf bytes.Buffer
	for _, name := range []string{"tableau", "changelog", "table", "rows"} {
		p, err := format.NewPrinter(name, &buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Begin(prSchema(prCol("a", types.TypeInt))); err != nil {
			t.Fatal(err)
		}
		if format.NewRowEncoder(p) != nil {
			t.Errorf("%s: an encoder", name)
		}
		if err := format.WriteEncoded(p, []byte("x\n")); err == nil {
			t.Errorf("%s: WriteEncoded took bytes it cannot have encoded", name)
		}
	}
	p := format.NewCSVPrinter(&buf, format.CSVOptions{})
	if err := p.Begin(prSchema(prCol("a", types.TypeInt))); err != nil {
		t.Fatal(err)
	}
	enc := format.NewRowEncoder(p)
	_, err := enc.AppendRow(nil, prRow(types.Insert, int32(1), int32(2)))
	want := p.Row(prRow(types.Insert, int32(1), int32(2)))
	if err == nil || want == nil || err.Error() != want.Error() || !strings.Contains(err.Error(), "2 fields") {
		t.Errorf("AppendRow: %v, want Row's %v", err, want)
	}
}
