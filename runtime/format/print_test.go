package format_test

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

func prCol(name string, t types.Type) types.Column { return types.Column{Name: name, Type: t} }

func prSchema(cols ...types.Column) types.Schema { return types.Schema{Columns: cols} }

func prRow(k types.RowKind, fields ...any) types.Row { return types.Row{Kind: k, Fields: fields} }

// prAll runs a printer over one result and returns what it wrote.
func prAll(t *testing.T, newPrinter func(w *bytes.Buffer) format.Printer, s types.Schema, rows ...types.Row) string {
	t.Helper()
	var buf bytes.Buffer
	p := newPrinter(&buf)
	if err := p.Begin(s); err != nil {
		t.Fatalf("Begin: %v", err)
	}
	for _, r := range rows {
		if err := p.Row(r); err != nil {
			t.Fatalf("Row: %v", err)
		}
	}
	if err := p.End(); err != nil {
		t.Fatalf("End: %v", err)
	}
	return buf.String()
}

func prTableau(w *bytes.Buffer) format.Printer { return format.NewTableauPrinter(w) }

// prLines joins its arguments with newlines and ends with one.
func prLines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func prCheck(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("output mismatch\n--- got ---\n%s--- want ---\n%s", got, want)
	}
}

// The tables of conformance/doc-examples.md, byte for byte; Flink's
// TableauStyle adds the "N rows in set" footer the documentation omits.
func TestTableauPrinter_docExamples(t *testing.T) {
	str := types.TypeString
	for _, tc := range []struct {
		name  string
		s     types.Schema
		rows  []types.Row
		table []string
	}{
		{
			name: "Greeting",
			s:    prSchema(prCol("EXPR$0", str)),
			rows: []types.Row{
				prRow(types.Insert, "Hello Bob!"), prRow(types.Insert, "Hello Alice!"), prRow(types.Insert, "Hello Bob!"),
			},
			table: []string{
				"+----+--------------------------------+",
				"| op |                         EXPR$0 |",
				"+----+--------------------------------+",
				"| +I |                     Hello Bob! |",
				"| +I |                   Hello Alice! |",
				"| +I |                     Hello Bob! |",
				"+----+--------------------------------+",
			},
		},
		{
			name: "GreetingWithMemory",
			s:    prSchema(prCol("name", str), prCol("EXPR$0", str)),
			rows: []types.Row{
				prRow(types.Insert, "Bob", "Hello Bob, your 1 time?"),
				prRow(types.Insert, "Alice", "Hello Alice, your 1 time?"),
				prRow(types.Insert, "Bob", "Hello Bob, your 2 time?"),
			},
			table: []string{
				"+----+--------------------------------+--------------------------------+",
				"| op |                           name |                         EXPR$0 |",
				"+----+--------------------------------+--------------------------------+",
				"| +I |                            Bob |        Hello Bob, your 1 time? |",
				"| +I |                          Alice |      Hello Alice, your 1 time? |",
				"| +I |                            Bob |        Hello Bob, your 2 time? |",
				"+----+--------------------------------+--------------------------------+",
			},
		},
		{
			name: "GreetingWithLastPurchase (truncation)",
			s:    prSchema(prCol("name", str), prCol("customer", str), prCol("EXPR$0", str)),
			rows: []types.Row{
				prRow(types.Insert, "Bob", "Bob", "Hello Bob, let me know if I can help!"),
				prRow(types.Insert, "Alice", "Alice", "Hello Alice, here to buy milk again?"),
				prRow(types.Insert, "Bob", "Bob", "Hello Bob, let me know if I can help!"),
			},
			table: []string{
				"+----+--------------------------------+--------------------------------+--------------------------------+",
				"| op |                           name |                       customer |                         EXPR$0 |",
				"+----+--------------------------------+--------------------------------+--------------------------------+",
				"| +I |                            Bob |                            Bob | Hello Bob, let me know if I... |",
				"| +I |                          Alice |                          Alice | Hello Alice, here to buy mi... |",
				"| +I |                            Bob |                            Bob | Hello Bob, let me know if I... |",
				"+----+--------------------------------+--------------------------------+--------------------------------+",
			},
		},
		{
			name: "ToChangelogFunction",
			s:    prSchema(prCol("name", str), prCol("flag", str), prCol("sum", types.TypeInt)),
			rows: []types.Row{
				prRow(types.Insert, "Bob", "INSERT", int64(23)),
				prRow(types.Insert, "Alice", "INSERT", int64(42)),
				prRow(types.Insert, "Alice", "UPDATE_AFTER", int64(44)),
			},
			table: []string{
				"+----+--------------------------------+--------------------------------+-------------+",
				"| op |                           name |                           flag |         sum |",
				"+----+--------------------------------+--------------------------------+-------------+",
				"| +I |                            Bob |                         INSERT |          23 |",
				"| +I |                          Alice |                         INSERT |          42 |",
				"| +I |                          Alice |                   UPDATE_AFTER |          44 |",
				"+----+--------------------------------+--------------------------------+-------------+",
			},
		},
		{
			name: "CustomAggregation",
			s:    prSchema(prCol("name", str), prCol("sum", types.TypeInt)),
			rows: []types.Row{
				prRow(types.Insert, "Bob", int64(23)),
				prRow(types.Insert, "Alice", int64(42)),
				prRow(types.UpdateBefore, "Alice", int64(42)),
				prRow(types.UpdateAfter, "Alice", int64(44)),
				prRow(types.Delete, "Bob", int64(23)),
			},
			table: []string{
				"+----+--------------------------------+-------------+",
				"| op |                           name |         sum |",
				"+----+--------------------------------+-------------+",
				"| +I |                            Bob |          23 |",
				"| +I |                          Alice |          42 |",
				"| -U |                          Alice |          42 |",
				"| +U |                          Alice |          44 |",
				"| -D |                            Bob |          23 |",
				"+----+--------------------------------+-------------+",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := prAll(t, prTableau, tc.s, tc.rows...)
			want := prLines(tc.table...) + strconv.Itoa(len(tc.rows)) + " rows in set\n"
			prCheck(t, got, want)
		})
	}
}

func TestTableauPrinter_empty(t *testing.T) {
	got := prAll(t, prTableau, prSchema(prCol("name", types.TypeString)))
	prCheck(t, got, "Empty set\n")
}

func TestTableauPrinter_oneRow(t *testing.T) {
	got := prAll(t, prTableau, prSchema(prCol("n", types.TypeInt)), prRow(types.Insert, int64(1)))
	prCheck(t, got, prLines(
		"+----+-------------+",
		"| op |           n |",
		"+----+-------------+",
		"| +I |           1 |",
		"+----+-------------+",
		"1 row in set",
	))
}

// Widths by type (TableauStyle.columnWidthsByType), <NULL>, and the cast
// forms of TRUE, timestamps and nested values.
func TestTableauPrinter_typesAndNulls(t *testing.T) {
	s := prSchema(
		prCol("b", types.TypeBoolean),
		prCol("t", types.Type{Kind: types.KindTinyInt}),
		prCol("l", types.TypeBigInt),
		prCol("d", types.Type{Kind: types.KindDecimal, Length: 5, Scale: 2}),
		prCol("ts", types.TypeTimestampLTZ),
		prCol("dt", types.Type{Kind: types.KindDate}),
		prCol("tm", types.Type{Kind: types.KindTime}),
		prCol("a", types.ArrayOf(types.TypeInt)),
	)
	got := prAll(t, prTableau, s,
		prRow(types.Insert, true, int64(-128), int64(math.MinInt64), fmtDec(-99999, 2),
			types.Instant{Millis: 1743076800000}, types.Date(20174), types.TimeOfDay(12*fmtHour),
			[]any{int64(1), nil}),
		prRow(types.Delete, nil, nil, nil, nil, nil, nil, nil, nil),
	)
	prCheck(t, got, prLines(
		"+----+--------+--------+----------------------+---------+-------------------------+------------+----------+--------------------------------+",
		"| op |      b |      t |                    l |       d |                      ts |         dt |       tm |                              a |",
		"+----+--------+--------+----------------------+---------+-------------------------+------------+----------+--------------------------------+",
		"| +I |   TRUE |   -128 | -9223372036854775808 | -999.99 | 2025-03-27 12:00:00.000 | 2025-03-27 | 12:00:00 |                      [1, NULL] |",
		"| -D | <NULL> | <NULL> |               <NULL> |  <NULL> |                  <NULL> |     <NULL> |   <NULL> |                         <NULL> |",
		"+----+--------+--------+----------------------+---------+-------------------------+------------+----------+--------------------------------+",
		"2 rows in set",
	))
}

// A column name longer than its type's width widens the column.
func TestTableauPrinter_longName(t *testing.T) {
	got := prAll(t, prTableau, prSchema(prCol("a_rather_long_column_name", types.TypeBoolean)),
		prRow(types.Insert, false))
	prCheck(t, got, prLines(
		"+----+---------------------------+",
		"| op | a_rather_long_column_name |",
		"+----+---------------------------+",
		"| +I |                     FALSE |",
		"+----+---------------------------+",
		"1 row in set",
	))
}

// East Asian wide characters count two columns (TableauStyle.isFullWidth);
// a code point outside the BMP counts its two UTF-16 units, plus one when
// wide; a cut inside a surrogate pair leaves '?' as Java's encoder does.
func TestTableauPrinter_wideCharacters(t *testing.T) {
	s := prSchema(prCol("名字", types.TypeString))
	got := prAll(t, prTableau, s,
		prRow(types.Insert, "你好"),
		prRow(types.Insert, strings.Repeat("你好世界", 4)),
		prRow(types.Insert, "😀"),
		prRow(types.Insert, strings.Repeat("a", 25)+"😀aaaaa"),
		prRow(types.Insert, strings.Repeat("a", 26)+"你"+"aaa"),
		prRow(types.Insert, "ｶﾀｶﾅ"),
	)
	prCheck(t, got, prLines(
		"+----+--------------------------------+",
		"| op |                           名字 |",
		"+----+--------------------------------+",
		"| +I |                           你好 |",
		"| +I |  你好世界你好世界你好世界你... |",
		"| +I |                            😀 |",
		"| +I |  aaaaaaaaaaaaaaaaaaaaaaaaa?... |",
		"| +I |  aaaaaaaaaaaaaaaaaaaaaaaaaa... |",
		"| +I |                           ｶﾀｶﾅ |",
		"+----+--------------------------------+",
		"6 rows in set",
	))
}

func TestTableauPrinter_truncation(t *testing.T) {
	s := prSchema(prCol("s", types.TypeString))
	got := prAll(t, prTableau, s,
		prRow(types.Insert, strings.Repeat("x", 30)),
		prRow(types.Insert, strings.Repeat("y", 31)),
	)
	prCheck(t, got, prLines(
		"+----+--------------------------------+",
		"| op |                              s |",
		"+----+--------------------------------+",
		"| +I | xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx |",
		"| +I | yyyyyyyyyyyyyyyyyyyyyyyyyyy... |",
		"+----+--------------------------------+",
		"2 rows in set",
	))
}

// A printer can print several results in turn.
func TestTableauPrinter_reuse(t *testing.T) {
	var buf bytes.Buffer
	p := format.NewTableauPrinter(&buf)
	for range 2 {
		if err := p.Begin(prSchema(prCol("n", types.TypeInt))); err != nil {
			t.Fatal(err)
		}
		if err := p.End(); err != nil {
			t.Fatal(err)
		}
	}
	prCheck(t, buf.String(), "Empty set\nEmpty set\n")
}

func TestPrinter_errors(t *testing.T) {
	for _, name := range format.FormatNames {
		t.Run(name, func(t *testing.T) {
			p, err := format.NewPrinter(name, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Row(prRow(types.Insert, "x")); err == nil || !strings.Contains(err.Error(), "row before begin") {
				t.Errorf("Row before Begin: err = %v", err)
			}
			if err := p.Begin(prSchema(prCol("a", types.TypeString))); err != nil {
				t.Fatal(err)
			}
			err = p.Row(prRow(types.Insert, "x", "y"))
			want := name + " printer: row has 2 fields, schema has 1 columns"
			if err == nil || err.Error() != want {
				t.Errorf("Row arity: err = %v, want %q", err, want)
			}
		})
	}
}

type prFailWriter struct{}

func (prFailWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestPrinter_writeError(t *testing.T) {
	p := format.NewRowsPrinter(prFailWriter{})
	if err := p.Begin(prSchema(prCol("a", types.TypeString))); err != nil {
		t.Fatal(err)
	}
	if err := p.Row(prRow(types.Insert, "x")); err == nil || err.Error() != "disk full" {
		t.Errorf("err = %v, want disk full", err)
	}
}

func TestNewPrinter(t *testing.T) {
	for _, name := range []string{"tableau", "changelog", "rows", "csv", "json"} {
		if p, err := format.NewPrinter(name, &bytes.Buffer{}); err != nil || p == nil {
			t.Errorf("NewPrinter(%q) = %v, %v", name, p, err)
		}
	}
	_, err := format.NewPrinter("xml", &bytes.Buffer{})
	want := `unknown format "xml" (valid formats: tableau, changelog, table, rows, csv, json)`
	if err == nil || err.Error() != want {
		t.Errorf("NewPrinter(xml) err = %v, want %q", err, want)
	}
}

func TestRowsPrinter(t *testing.T) {
	s := prSchema(prCol("name", types.TypeString), prCol("score", types.TypeInt), prCol("ts", types.TypeTimestampLTZ))
	got := prAll(t, func(w *bytes.Buffer) format.Printer { return format.NewRowsPrinter(w) }, s,
		prRow(types.Insert, "Bob", int64(12), types.Instant{Millis: 99999}),
		prRow(types.UpdateBefore, "Bob", int64(1), nil),
		prRow(types.Delete, "Bob", nil, types.Instant{Millis: -1}),
	)
	prCheck(t, got, prLines(
		"+I[Bob, 12, 1970-01-01T00:01:39.999Z]",
		"-U[Bob, 1, null]",
		"-D[Bob, null, 1969-12-31T23:59:59.999Z]",
	))
}

func TestChangelogPrinter(t *testing.T) {
	s := prSchema(prCol("name", types.TypeString), prCol("sum", types.TypeInt))
	got := prAll(t, func(w *bytes.Buffer) format.Printer { return format.NewChangelogPrinter(w) }, s,
		prRow(types.Insert, "Bob", int64(23)),
		prRow(types.UpdateBefore, strings.Repeat("z", 31), nil),
	)
	prCheck(t, got, prLines(
		" op                           name         sum",
		" +I                            Bob          23",
		" -U zzzzzzzzzzzzzzzzzzzzzzzzzzzzz~      <NULL>",
	))
}

func TestCSVPrinter(t *testing.T) {
	s := prSchema(
		prCol("name", types.TypeString),
		prCol("note", types.TypeString),
		prCol("n", types.TypeBigInt),
		prCol("ts", types.TypeTimestampLTZ),
		prCol("lt", types.TypeTimestamp3),
		prCol("raw", types.TypeBytes),
		prCol("d", types.Type{Kind: types.KindDecimal, Length: 10, Scale: 2}),
	)
	rows := []types.Row{
		prRow(types.Insert, "Bob", "a,b", int64(1), types.Instant{Millis: 1743076800000},
			types.LocalDateTime{Millis: 1743076800000}, []byte("hi"), fmtDec(1250, 2)),
		prRow(types.UpdateBefore, `say "hi"`, "line1\nline2", nil, types.Instant{Millis: 1},
			types.LocalDateTime{Millis: 1}, []byte{}, nil),
		prRow(types.UpdateAfter, "", nil, int64(-3), nil, nil, nil, fmtDec(-5, 2)),
		prRow(types.Delete, "cr\r", " spaced ", nil, nil, nil, nil, nil),
	}
	t.Run("op column", func(t *testing.T) {
		got := prAll(t, func(w *bytes.Buffer) format.Printer {
			return format.NewCSVPrinter(w, format.CSVOptions{OpColumn: true})
		}, s, rows...)
		prCheck(t, got, prLines(
			"op,name,note,n,ts,lt,raw,d",
			"+I,Bob,\"a,b\",1,2025-03-27 12:00:00Z,2025-03-27 12:00:00,aGk=,12.50",
			"-U,\"say \"\"hi\"\"\",\"line1\nline2\",,1970-01-01 00:00:00.001Z,1970-01-01 00:00:00.001,\"\",",
			"+U,\"\",,-3,,,,-0.05",
			"-D,\"cr\r\", spaced ,,,,,",
		))
	})
	t.Run("plain", func(t *testing.T) {
		got := prAll(t, func(w *bytes.Buffer) format.Printer {
			return format.NewCSVPrinter(w, format.CSVOptions{OmitHeader: true})
		}, s, rows[2])
		prCheck(t, got, "\"\",,-3,,,,-0.05\n")
	})
}

func TestCSVPrinter_nested(t *testing.T) {
	s := prSchema(
		prCol("items", types.MapOf(types.TypeBigInt, types.TypeInt)),
		prCol("tags", types.ArrayOf(types.TypeString)),
		prCol("on", types.TypeDescriptor),
		prCol("iv", types.Type{Kind: types.KindIntervalDayTime}),
		prCol("x", types.TypeDouble),
	)
	got := prAll(t, func(w *bytes.Buffer) format.Printer { return format.NewCSVPrinter(w, format.CSVOptions{}) }, s,
		prRow(types.Insert, &types.Map{Keys: []any{int64(2)}, Values: []any{int64(1)}}, []any{"a", nil},
			types.Descriptor{"ts"}, types.Duration(90_000), 1e10),
	)
	prCheck(t, got, prLines(
		"items,tags,on,iv,x",
		`"[[2,1]]","[""a"",null]","[""ts""]",PT1M30S,1.0E10`,
	))
}

func TestJSONPrinter(t *testing.T) {
	rt := types.NewRowType(
		types.Field{Name: "city", Type: types.TypeString},
		types.Field{Name: "zip", Type: types.TypeInt},
	)
	s := prSchema(
		prCol("name", types.TypeString),
		prCol("big", types.TypeBigInt),
		prCol("x", types.TypeDouble),
		prCol("d", types.Type{Kind: types.KindDecimal, Length: 10, Scale: 2}),
		prCol("ts", types.TypeTimestampLTZ),
		prCol("ok", types.TypeBoolean),
		prCol("raw", types.TypeBytes),
		prCol("m", types.MapOf(types.TypeString, types.TypeInt)),
		prCol("k", types.MapOf(types.TypeBigInt, types.TypeInt)),
		prCol("addr", rt),
		prCol("tags", types.ArrayOf(types.TypeString)),
	)
	got := prAll(t, func(w *bytes.Buffer) format.Printer {
		return format.NewJSONPrinter(w, format.JSONOptions{OpColumn: true})
	}, s,
		prRow(types.Insert, "Bob \"B\"\n\t\x01<&>\u2028", int64(1<<53+1), 0.5, fmtDec(1250, 2),
			types.Instant{Millis: 1743076800000}, true, []byte("hi"),
			&types.Map{Keys: []any{"a", "b"}, Values: []any{int64(1), nil}},
			&types.Map{Keys: []any{int64(2)}, Values: []any{int64(1)}},
			types.NewRow("London", nil), []any{"x", nil}),
		prRow(types.Delete, nil, nil, math.NaN(), nil, nil, nil, nil, nil, nil, nil, nil),
		prRow(types.Insert, "", int64(-1), math.Inf(-1), nil, nil, false, nil, &types.Map{}, nil, nil, []any{}),
	)
	prCheck(t, got, prLines(
		`{"op":"+I","name":"Bob \"B\"\n\t\u0001<&>\u2028","big":9007199254740993,"x":0.5,"d":12.50,`+
			`"ts":"2025-03-27T12:00:00Z","ok":true,"raw":"aGk=","m":{"a":1,"b":null},"k":[[2,1]],`+
			`"addr":{"city":"London","zip":null},"tags":["x",null]}`,
		`{"op":"-D","name":null,"big":null,"x":"NaN","d":null,"ts":null,"ok":null,"raw":null,"m":null,"k":null,"addr":null,"tags":null}`,
		`{"op":"+I","name":"","big":-1,"x":"-Infinity","d":null,"ts":null,"ok":false,"raw":null,"m":{},"k":null,"addr":null,"tags":[]}`,
	))
}

func TestJSONPrinter_noOp(t *testing.T) {
	s := prSchema(prCol("a", types.TypeInt), prCol("e", types.TypeDouble), prCol("r", types.Type{}))
	got := prAll(t, func(w *bytes.Buffer) format.Printer { return format.NewJSONPrinter(w, format.JSONOptions{}) }, s,
		prRow(types.UpdateAfter, int64(1), 1e21, types.NewRow(int64(1), "x")))
	prCheck(t, got, `{"a":1,"e":1.0E21,"r":{"f0":1,"f1":"x"}}`+"\n")
}

func ExampleNewTableauPrinter() {
	p := format.NewTableauPrinter(os.Stdout)
	_ = p.Begin(types.Schema{Columns: []types.Column{
		{Name: "name", Type: types.TypeString},
		{Name: "sum", Type: types.TypeInt},
	}})
	_ = p.Row(types.NewRow("Bob", int64(23)))
	_ = p.Row(types.Row{Kind: types.Delete, Fields: []any{"Bob", nil}})
	_ = p.End()
	// Output:
	// +----+--------------------------------+-------------+
	// | op |                           name |         sum |
	// +----+--------------------------------+-------------+
	// | +I |                            Bob |          23 |
	// | -D |                            Bob |      <NULL> |
	// +----+--------------------------------+-------------+
	// 2 rows in set
}

const fmtHour = int64(3_600_000_000_000) // nanoseconds

func fmtDec(unscaled int64, scale int) types.Decimal {
	return types.Decimal{Unscaled: big.NewInt(unscaled), Scale: scale}
}
