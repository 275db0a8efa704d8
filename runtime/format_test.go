package runtime_test

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/ptfsh/ptfsh/runtime"
)

func fmtDec(unscaled int64, scale int) runtime.Decimal {
	return runtime.Decimal{Unscaled: big.NewInt(unscaled), Scale: scale}
}

func fmtLTZ(p int) runtime.Type  { return runtime.Type{Kind: runtime.KindTimestampLTZ, Length: p} }
func fmtTS(p int) runtime.Type   { return runtime.Type{Kind: runtime.KindTimestamp, Length: p} }
func fmtTime(p int) runtime.Type { return runtime.Type{Kind: runtime.KindTime, Length: p} }

var (
	fmtFloat     = runtime.Type{Kind: runtime.KindFloat}
	fmtDate      = runtime.Type{Kind: runtime.KindDate}
	fmtDayTime   = runtime.Type{Kind: runtime.KindIntervalDayTime}
	fmtYearMonth = runtime.Type{Kind: runtime.KindIntervalYearMonth}
)

const (
	fmtHour = int64(3_600_000_000_000) // nanoseconds
	fmtDay  = 86_400_000               // milliseconds
)

// fmtCases hold a value, its type, Row.toString (java) and the tableau
// cell (table). Expected strings are Flink's (flink-cases.md §3) or Java's.
var fmtCases = []struct {
	name  string
	v     any
	t     runtime.Type
	java  string
	table string
}{
	{"null", nil, runtime.TypeString, "null", "<NULL>"},
	{"string", "Bob", runtime.TypeString, "Bob", "Bob"},
	{"empty string", "", runtime.TypeString, "", ""},
	{"int", int64(42), runtime.TypeInt, "42", "42"},
	{"negative int", int64(-7), runtime.TypeInt, "-7", "-7"},
	{"bigint max", int64(math.MaxInt64), runtime.TypeBigInt, "9223372036854775807", "9223372036854775807"},
	{"true", true, runtime.TypeBoolean, "true", "TRUE"},
	{"false", false, runtime.TypeBoolean, "false", "FALSE"},

	{"double 1", 1.0, runtime.TypeDouble, "1.0", "1.0"},
	{"double 0.1", 0.1, runtime.TypeDouble, "0.1", "0.1"},
	{"double 100", 100.0, runtime.TypeDouble, "100.0", "100.0"},
	{"double 123.456", 123.456, runtime.TypeDouble, "123.456", "123.456"},
	{"double -2.5", -2.5, runtime.TypeDouble, "-2.5", "-2.5"},
	{"double 1e10", 1e10, runtime.TypeDouble, "1.0E10", "1.0E10"},
	{"double 1e7", 1e7, runtime.TypeDouble, "1.0E7", "1.0E7"},
	{"double below 1e7", 9999999.0, runtime.TypeDouble, "9999999.0", "9999999.0"},
	{"double 1.23456789e7", 12345678.9, runtime.TypeDouble, "1.23456789E7", "1.23456789E7"},
	{"double 0.001", 0.001, runtime.TypeDouble, "0.001", "0.001"},
	{"double 1e-4", 0.0001, runtime.TypeDouble, "1.0E-4", "1.0E-4"},
	{"double 1.5e-5", -0.000015, runtime.TypeDouble, "-1.5E-5", "-1.5E-5"},
	{"double third", 1.0 / 3, runtime.TypeDouble, "0.3333333333333333", "0.3333333333333333"},
	{"double min", math.SmallestNonzeroFloat64, runtime.TypeDouble, "4.9E-324", "4.9E-324"},
	{"double max", math.MaxFloat64, runtime.TypeDouble, "1.7976931348623157E308", "1.7976931348623157E308"},
	{"double 1e23", 1e23, runtime.TypeDouble, "1.0E23", "1.0E23"},
	{"double NaN", math.NaN(), runtime.TypeDouble, "NaN", "NaN"},
	{"double inf", math.Inf(1), runtime.TypeDouble, "Infinity", "Infinity"},
	{"double -inf", math.Inf(-1), runtime.TypeDouble, "-Infinity", "-Infinity"},
	{"double 0", 0.0, runtime.TypeDouble, "0.0", "0.0"},
	{"double -0", math.Copysign(0, -1), runtime.TypeDouble, "-0.0", "-0.0"},
	{"float 0.1", float64(float32(0.1)), fmtFloat, "0.1", "0.1"},
	{"float third", float64(float32(1.0 / 3)), fmtFloat, "0.33333334", "0.33333334"},
	{"float min", float64(math.SmallestNonzeroFloat32), fmtFloat, "1.4E-45", "1.4E-45"},
	{"float 1e10", 1e10, fmtFloat, "1.0E10", "1.0E10"},

	{"decimal", fmtDec(1234, 2), runtime.Type{Kind: runtime.KindDecimal, Length: 10, Scale: 2}, "12.34", "12.34"},
	{"decimal trailing zero", fmtDec(-1250, 2), runtime.Type{Kind: runtime.KindDecimal, Length: 10, Scale: 2}, "-12.50", "-12.50"},
	{"decimal small", fmtDec(5, 3), runtime.Type{Kind: runtime.KindDecimal, Length: 5, Scale: 3}, "0.005", "0.005"},
	{"decimal tiny", fmtDec(1, 7), runtime.Type{Kind: runtime.KindDecimal, Length: 8, Scale: 7}, "1E-7", "0.0000001"},
	{"decimal tiny digits", fmtDec(123, 9), runtime.Type{Kind: runtime.KindDecimal, Length: 10, Scale: 9}, "1.23E-7", "0.000000123"},
	{"decimal zero scale 10", fmtDec(0, 10), runtime.Type{Kind: runtime.KindDecimal, Length: 12, Scale: 10}, "0E-10", "0.0000000000"},
	{"decimal zero", fmtDec(0, 2), runtime.Type{Kind: runtime.KindDecimal, Length: 10, Scale: 2}, "0.00", "0.00"},
	{"decimal integer", fmtDec(42, 0), runtime.Type{Kind: runtime.KindDecimal, Length: 10}, "42", "42"},

	{"instant epoch", runtime.Instant{}, fmtLTZ(3), "1970-01-01T00:00:00Z", "1970-01-01 00:00:00.000"},
	{"instant 1ms", runtime.Instant{Millis: 1}, fmtLTZ(3), "1970-01-01T00:00:00.001Z", "1970-01-01 00:00:00.001"},
	{"instant -1ms", runtime.Instant{Millis: -1}, fmtLTZ(3), "1969-12-31T23:59:59.999Z", "1969-12-31 23:59:59.999"},
	{"instant 99999ms", runtime.Instant{Millis: 99999}, fmtLTZ(3), "1970-01-01T00:01:39.999Z", "1970-01-01 00:01:39.999"},
	{"instant 2025", runtime.Instant{Millis: 1735693200000}, fmtLTZ(3), "2025-01-01T01:00:00Z", "2025-01-01 01:00:00.000"},
	{"instant precision 0", runtime.Instant{Millis: 1735693200000}, fmtLTZ(0), "2025-01-01T01:00:00Z", "2025-01-01 01:00:00"},
	{"instant micros", runtime.Instant{Millis: 1, NanoOfMilli: 1000}, fmtLTZ(6), "1970-01-01T00:00:00.001001Z", "1970-01-01 00:00:00.001001"},
	{"instant nanos", runtime.Instant{NanoOfMilli: 500}, fmtLTZ(9), "1970-01-01T00:00:00.000000500Z", "1970-01-01 00:00:00.000000500"},

	{"timestamp epoch", runtime.LocalDateTime{}, fmtTS(3), "1970-01-01T00:00", "1970-01-01 00:00:00.000"},
	{"timestamp 1ms", runtime.LocalDateTime{Millis: 1}, fmtTS(3), "1970-01-01T00:00:00.001", "1970-01-01 00:00:00.001"},
	{"timestamp seconds", runtime.LocalDateTime{Millis: 1577880732000}, fmtTS(3), "2020-01-01T12:12:12", "2020-01-01 12:12:12.000"},
	{"timestamp 2025", runtime.LocalDateTime{Millis: 1735693200000}, fmtTS(3), "2025-01-01T01:00", "2025-01-01 01:00:00.000"},
	{"timestamp precision 6", runtime.LocalDateTime{Millis: 1}, fmtTS(6), "1970-01-01T00:00:00.001", "1970-01-01 00:00:00.001000"},
	{"timestamp precision 0", runtime.LocalDateTime{Millis: 1577880732000}, fmtTS(0), "2020-01-01T12:12:12", "2020-01-01 12:12:12"},
	{"timestamp before epoch", runtime.LocalDateTime{Millis: -1000}, fmtTS(3), "1969-12-31T23:59:59", "1969-12-31 23:59:59.000"},

	{"date", runtime.Date(20174), fmtDate, "2025-03-27", "2025-03-27"},
	{"date epoch", runtime.Date(0), fmtDate, "1970-01-01", "1970-01-01"},
	{"date before epoch", runtime.Date(-1), fmtDate, "1969-12-31", "1969-12-31"},
	{"date year 10000", runtime.Date(2932897), fmtDate, "+10000-01-01", "10000-01-01"},

	{"time noon", runtime.TimeOfDay(12 * fmtHour), fmtTime(0), "12:00", "12:00:00"},
	{"time seconds", runtime.TimeOfDay(12*fmtHour + 1e9), fmtTime(0), "12:00:01", "12:00:01"},
	{"time millis p3", runtime.TimeOfDay(12*fmtHour + 123e6), fmtTime(3), "12:00:00.123", "12:00:00.123"},
	{"time half p3", runtime.TimeOfDay(12*fmtHour + 500e6), fmtTime(3), "12:00:00.500", "12:00:00.5"},
	{"time zero fraction p3", runtime.TimeOfDay(12 * fmtHour), fmtTime(3), "12:00", "12:00:00.0"},
	{"time nanos", runtime.TimeOfDay(1), fmtTime(9), "00:00:00.000000001", "00:00:00.0"},

	{"duration zero", runtime.Duration(0), fmtDayTime, "PT0S", "+0 00:00:00.000"},
	{"duration 1s", runtime.Duration(1000), fmtDayTime, "PT1S", "+0 00:00:01.000"},
	{"duration 1ms", runtime.Duration(1), fmtDayTime, "PT0.001S", "+0 00:00:00.001"},
	{"duration 90s", runtime.Duration(90_000), fmtDayTime, "PT1M30S", "+0 00:01:30.000"},
	{"duration 1h", runtime.Duration(3_600_000), fmtDayTime, "PT1H", "+0 01:00:00.000"},
	{"duration 2 days", runtime.Duration(2 * fmtDay), fmtDayTime, "PT48H", "+2 00:00:00.000"},
	{"duration mixed", runtime.Duration(fmtDay + 3_661_001), fmtDayTime, "PT25H1M1.001S", "+1 01:01:01.001"},
	{"duration -1ms", runtime.Duration(-1), fmtDayTime, "PT-0.001S", "-0 00:00:00.001"},
	{"duration -1.5s", runtime.Duration(-1500), fmtDayTime, "PT-1.5S", "-0 00:00:01.500"},
	{"duration -61s", runtime.Duration(-61_000), fmtDayTime, "PT-1M-1S", "-0 00:01:01.000"},

	{"period zero", runtime.Period(0), fmtYearMonth, "P0D", "+0-00"},
	{"period 1y", runtime.Period(12), fmtYearMonth, "P1Y", "+1-00"},
	{"period 2m", runtime.Period(2), fmtYearMonth, "P2M", "+0-02"},
	{"period 1y2m", runtime.Period(14), fmtYearMonth, "P1Y2M", "+1-02"},
	{"period negative", runtime.Period(-14), fmtYearMonth, "P-1Y-2M", "-1-02"},

	{"bytes", []byte{1, 2, 255}, runtime.TypeBytes, "[1, 2, -1]", "x'0102ff'"},
	{"bytes empty", []byte{}, runtime.TypeBytes, "[]", "x''"},

	{"array", []any{int64(1), nil, int64(3)}, runtime.ArrayOf(runtime.TypeInt), "[1, null, 3]", "[1, NULL, 3]"},
	{"array empty", []any{}, runtime.ArrayOf(runtime.TypeInt), "[]", "[]"},
	{"array of strings", []any{"a", "b"}, runtime.ArrayOf(runtime.TypeString), "[a, b]", "[a, b]"},
	{"array of timestamps", []any{runtime.Instant{Millis: 1735693200000}}, runtime.ArrayOf(fmtLTZ(3)),
		"[2025-01-01T01:00:00Z]", "[2025-01-01 01:00:00.000]"},
	{"array of booleans", []any{true, false}, runtime.ArrayOf(runtime.TypeBoolean), "[true, false]", "[TRUE, FALSE]"},
	{"map", &runtime.Map{Keys: []any{"A", "B"}, Values: []any{int64(1), int64(2)}},
		runtime.MapOf(runtime.TypeString, runtime.TypeInt), "{A=1, B=2}", "{A=1, B=2}"},
	{"map null value", &runtime.Map{Keys: []any{"A"}, Values: []any{nil}},
		runtime.MapOf(runtime.TypeString, runtime.TypeInt), "{A=null}", "{A=NULL}"},
	{"map bigint keys", &runtime.Map{Keys: []any{int64(2), int64(5)}, Values: []any{int64(1), int64(1)}},
		runtime.MapOf(runtime.TypeBigInt, runtime.TypeInt), "{2=1, 5=1}", "{2=1, 5=1}"},
	{"map empty", &runtime.Map{}, runtime.MapOf(runtime.TypeString, runtime.TypeInt), "{}", "{}"},
	{"row", runtime.NewRow("Bob", int64(12)), runtime.NewRowType(
		runtime.Field{Name: "name", Type: runtime.TypeString}, runtime.Field{Name: "score", Type: runtime.TypeInt}),
		"+I[Bob, 12]", "(Bob, 12)"},
	{"row with null", runtime.NewRow("Bob", nil, true), runtime.Type{}, "+I[Bob, null, true]", "(Bob, NULL, TRUE)"},
	{"row nested", runtime.NewRow(runtime.NewRow("London")), runtime.Type{}, "+I[+I[London]]", "((London))"},
	{"descriptor", runtime.Descriptor{"a", "b", "c"}, runtime.TypeDescriptor, "(`a`, `b`, `c`)", "(`a`, `b`, `c`)"},
	{"descriptor backquote", runtime.Descriptor{"x`y"}, runtime.TypeDescriptor, "(`x``y`)", "(`x``y`)"},
	{"descriptor empty", runtime.Descriptor{}, runtime.TypeDescriptor, "()", "()"},
}

func TestFormatValue(t *testing.T) {
	for _, tc := range fmtCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := runtime.FormatValue(tc.v, tc.t); got != tc.java {
				t.Errorf("FormatValue(%#v, %s) = %q, want %q", tc.v, tc.t, got, tc.java)
			}
		})
	}
}

func TestFormatTableValue(t *testing.T) {
	for _, tc := range fmtCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := runtime.FormatTableValue(tc.v, tc.t); got != tc.table {
				t.Errorf("FormatTableValue(%#v, %s) = %q, want %q", tc.v, tc.t, got, tc.table)
			}
		})
	}
}

func TestFormatValue_zeroType(t *testing.T) {
	// Without a type the Go type decides; a float64 is a DOUBLE.
	for _, tc := range []struct {
		v    any
		want string
	}{
		{int64(5), "5"},
		{2.5, "2.5"},
		{runtime.Instant{Millis: 1}, "1970-01-01T00:00:00.001Z"},
		{runtime.Descriptor{"ts"}, "(`ts`)"},
	} {
		if got := runtime.FormatValue(tc.v, runtime.Type{}); got != tc.want {
			t.Errorf("FormatValue(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestFormatRow(t *testing.T) {
	nameScore := runtime.Schema{Columns: []runtime.Column{
		{Name: "name", Type: runtime.TypeString},
		{Name: "score", Type: runtime.TypeInt},
	}}
	checkout := runtime.Schema{Columns: []runtime.Column{
		{Name: "user", Type: runtime.TypeString},
		{Name: "checkout_type", Type: runtime.TypeString},
		{Name: "items", Type: runtime.MapOf(runtime.TypeBigInt, runtime.TypeInt)},
		{Name: "rowtime", Type: runtime.TypeTimestampLTZ, TimeAttr: true},
	}}
	for _, tc := range []struct {
		name string
		r    runtime.Row
		s    runtime.Schema
		want string
	}{
		{"insert", runtime.NewRow("Bob", int64(12)), nameScore, "+I[Bob, 12]"},
		{"update before", runtime.Row{Kind: runtime.UpdateBefore, Fields: []any{"Bob", int64(1)}}, nameScore, "-U[Bob, 1]"},
		{"update after", runtime.Row{Kind: runtime.UpdateAfter, Fields: []any{"Bob", int64(2)}}, nameScore, "+U[Bob, 2]"},
		{"delete with null", runtime.Row{Kind: runtime.Delete, Fields: []any{"Bob", nil}}, nameScore, "-D[Bob, null]"},
		{"no fields", runtime.NewRow(), runtime.Schema{}, "+I[]"},
		{"checkout", runtime.NewRow("Bob", "CHECKOUT",
			&runtime.Map{Keys: []any{int64(2), int64(5)}, Values: []any{int64(1), int64(1)}},
			runtime.Instant{Millis: 1743076910000}), checkout,
			"+I[Bob, CHECKOUT, {2=1, 5=1}, 2025-03-27T12:01:50Z]"},
		{"list of rows", runtime.NewRow([]any{runtime.NewRow("Bob", int64(1), runtime.Instant{})}), runtime.Schema{},
			"+I[[+I[Bob, 1, 1970-01-01T00:00:00Z]]]"},
		{"float column", runtime.NewRow(float64(float32(0.1))),
			runtime.Schema{Columns: []runtime.Column{{Name: "f", Type: fmtFloat}}}, "+I[0.1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runtime.FormatRow(tc.r, tc.s); got != tc.want {
				t.Errorf("FormatRow = %q, want %q", got, tc.want)
			}
		})
	}
}

func ExampleFormatRow() {
	s := runtime.Schema{Columns: []runtime.Column{
		{Name: "name", Type: runtime.TypeString},
		{Name: "ts", Type: runtime.TypeTimestampLTZ},
	}}
	fmt.Println(runtime.FormatRow(runtime.NewRow("Bob", runtime.Instant{Millis: 1}), s))
	fmt.Println(runtime.FormatTableValue(runtime.Instant{Millis: 1}, runtime.TypeTimestampLTZ))
	// Output:
	// +I[Bob, 1970-01-01T00:00:00.001Z]
	// 1970-01-01 00:00:00.001
}
