package format_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// escaping returns a constructor of the printer of a format with its
// control characters escaped (as for a terminal) or not.
func escaping(name string, on bool) func(w *bytes.Buffer) format.Printer {
	return func(w *bytes.Buffer) format.Printer {
		p, err := format.NewPrinter(name, w)
		if err != nil {
			panic(err)
		}
		if name == "csv" || name == "json" {
			p = map[string]format.Printer{"csv": format.NewCSVPrinter(w, format.CSVOptions{}), "json": format.NewJSONPrinter(w, format.JSONOptions{})}[name]
		}
		format.SetEscapeControls(p, on)
		return p
	}
}

// With SetEscapeControls, every format writes a value's control
// characters (the terminal escape sequences of a hostile CSV value, a
// C1 CSI, a line break) as escapes, keeps the layout (the tableau's
// columns line up), and writes nothing else differently; without it, the
// bytes go out as they are, as Flink's print() writes them.
func TestPrinters_escapeControls(t *testing.T) {
	s := prSchema(prCol("name", types.TypeString), prCol("n", types.TypeInt))
	rows := []types.Row{prRow(types.Insert, "x\x1b[2J\x1b]0;PWNED\a", int64(1)), prRow(types.Insert, "a\nb\u009b", int64(2)), prRow(types.Insert, "plain", int64(3))}
	want := map[string]string{
		"tableau": prLines(
			"+----+--------------------------------+-------------+",
			"| op |                           name |           n |",
			"+----+--------------------------------+-------------+",
			`| +I |         x\x1b[2J\x1b]0;PWNED\a |           1 |`,
			`| +I |                     a\nb\u009b |           2 |`,
			"| +I |                          plain |           3 |",
			"+----+--------------------------------+-------------+",
			"3 rows in set"),
		"changelog": prLines(
			" op                           name           n",
			` +I         x\x1b[2J\x1b]0;PWNED\a           1`,
			` +I                     a\nb\u009b           2`,
			" +I                          plain           3"),
		"table": prLines(
			"+--------------------------------+-------------+",
			"|                           name |           n |",
			"+--------------------------------+-------------+",
			`|         x\x1b[2J\x1b]0;PWNED\a |           1 |`,
			`|                     a\nb\u009b |           2 |`,
			"|                          plain |           3 |",
			"+--------------------------------+-------------+",
			"3 rows in set"),
		"rows": prLines(`+I[x\x1b[2J\x1b]0;PWNED\a, 1]`, `+I[a\nb\u009b, 2]`, "+I[plain, 3]"),
		"csv":  prLines("name,n", `x\x1b[2J\x1b]0;PWNED\a,1`, `a\nb\u009b,2`, "plain,3"),
		"json": prLines(`{"name":"x\u001b[2J\u001b]0;PWNED\u0007","n":1}`, `{"name":"a\nb\u009b","n":2}`, `{"name":"plain","n":3}`),
	}
	for _, name := range format.FormatNames {
		t.Run(name, func(t *testing.T) {
			prCheck(t, prAll(t, escaping(name, true), s, rows...), want[name])
			raw := prAll(t, escaping(name, false), s, rows...)
			if name != "json" && !strings.Contains(raw, "\x1b[2J") {
				t.Errorf("without escaping, the bytes are not as they were:\n%q", raw)
			}
		})
	}
}

// FuzzPrintControls prints a row of a fuzzed string (and a column of a
// fuzzed name) in every format with control characters escaped: whatever
// the text, the output is valid UTF-8 and holds no control character but
// the line breaks that end its lines.
func FuzzPrintControls(f *testing.F) {
	for _, s := range []string{"x\x1b[2J\x1b]0;PWNED\a", "a\nb", "\u009b31m", "\r\x00\x7f", "\xff\xfe", "héllo 世界", ""} {
		f.Add(s, "name")
	}
	f.Add("v", "col\x1b[31m")
	f.Fuzz(func(t *testing.T, value, column string) {
		if column == "" {
			column = "c"
		}
		s := prSchema(prCol(column, types.TypeString), prCol("arr", types.ArrayOf(types.TypeString)))
		row := prRow(types.Insert, value, []any{value})
		for _, name := range format.FormatNames {
			var buf bytes.Buffer
			p := escaping(name, true)(&buf)
			if err := p.Begin(s); err != nil {
				t.Fatal(err)
			}
			if err := p.Row(row); err != nil {
				t.Fatal(err)
			}
			if err := p.End(); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !utf8.ValidString(out) {
				t.Fatalf("%s: invalid UTF-8 for %q: %q", name, value, out)
			}
			for _, line := range strings.SplitAfter(out, "\n") {
				for _, r := range strings.TrimSuffix(line, "\n") {
					if r < 0x20 || r >= 0x7f && r <= 0x9f {
						t.Fatalf("%s: %U in the output for %q: %q", name, r, value, out)
					}
				}
			}
		}
	})
}
