package types_test

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/types"
)

func fmtDec(unscaled int64, scale int) types.Decimal {
	return types.Decimal{Unscaled: big.NewInt(unscaled), Scale: scale}
}

func fmtLTZ(p int) types.Type  { return types.Type{Kind: types.KindTimestampLTZ, Length: p} }
func fmtTS(p int) types.Type   { return types.Type{Kind: types.KindTimestamp, Length: p} }
func fmtTime(p int) types.Type { return types.Type{Kind: types.KindTime, Length: p} }

var (
	fmtFloat     = types.Type{Kind: types.KindFloat}
	fmtDate      = types.Type{Kind: types.KindDate}
	fmtDayTime   = types.Type{Kind: types.KindIntervalDayTime}
	fmtYearMonth = types.Type{Kind: types.KindIntervalYearMonth}
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
	t     types.Type
	java  string
	table string
}{
	{"null", nil, types.TypeString, "null", "<NULL>"},
	{"string", "Bob", types.TypeString, "Bob", "Bob"},
	{"empty string", "", types.TypeString, "", ""},
	{"int", int64(42), types.TypeInt, "42", "42"},
	{"negative int", int64(-7), types.TypeInt, "-7", "-7"},
	{"bigint max", int64(math.MaxInt64), types.TypeBigInt, "9223372036854775807", "9223372036854775807"},
	{"true", true, types.TypeBoolean, "true", "TRUE"},
	{"false", false, types.TypeBoolean, "false", "FALSE"},

	{"double 1", 1.0, types.TypeDouble, "1.0", "1.0"},
	{"double 0.1", 0.1, types.TypeDouble, "0.1", "0.1"},
	{"double 100", 100.0, types.TypeDouble, "100.0", "100.0"},
	{"double 123.456", 123.456, types.TypeDouble, "123.456", "123.456"},
	{"double -2.5", -2.5, types.TypeDouble, "-2.5", "-2.5"},
	{"double 1e10", 1e10, types.TypeDouble, "1.0E10", "1.0E10"},
	{"double 1e7", 1e7, types.TypeDouble, "1.0E7", "1.0E7"},
	{"double below 1e7", 9999999.0, types.TypeDouble, "9999999.0", "9999999.0"},
	{"double 1.23456789e7", 12345678.9, types.TypeDouble, "1.23456789E7", "1.23456789E7"},
	{"double 0.001", 0.001, types.TypeDouble, "0.001", "0.001"},
	{"double 1e-4", 0.0001, types.TypeDouble, "1.0E-4", "1.0E-4"},
	{"double 1.5e-5", -0.000015, types.TypeDouble, "-1.5E-5", "-1.5E-5"},
	{"double third", 1.0 / 3, types.TypeDouble, "0.3333333333333333", "0.3333333333333333"},
	{"double min", math.SmallestNonzeroFloat64, types.TypeDouble, "4.9E-324", "4.9E-324"},
	{"double max", math.MaxFloat64, types.TypeDouble, "1.7976931348623157E308", "1.7976931348623157E308"},
	{"double 1e23", 1e23, types.TypeDouble, "1.0E23", "1.0E23"},
	{"double NaN", math.NaN(), types.TypeDouble, "NaN", "NaN"},
	{"double inf", math.Inf(1), types.TypeDouble, "Infinity", "Infinity"},
	{"double -inf", math.Inf(-1), types.TypeDouble, "-Infinity", "-Infinity"},
	{"double 0", 0.0, types.TypeDouble, "0.0", "0.0"},
	{"double -0", math.Copysign(0, -1), types.TypeDouble, "-0.0", "-0.0"},
	{"float 0.1", float64(float32(0.1)), fmtFloat, "0.1", "0.1"},
	{"float third", float64(float32(1.0 / 3)), fmtFloat, "0.33333334", "0.33333334"},
	{"float min", float64(math.SmallestNonzeroFloat32), fmtFloat, "1.4E-45", "1.4E-45"},
	{"float 1e10", 1e10, fmtFloat, "1.0E10", "1.0E10"},

	{"decimal", fmtDec(1234, 2), types.Type{Kind: types.KindDecimal, Length: 10, Scale: 2}, "12.34", "12.34"},
	{"decimal trailing zero", fmtDec(-1250, 2), types.Type{Kind: types.KindDecimal, Length: 10, Scale: 2}, "-12.50", "-12.50"},
	{"decimal small", fmtDec(5, 3), types.Type{Kind: types.KindDecimal, Length: 5, Scale: 3}, "0.005", "0.005"},
	{"decimal tiny", fmtDec(1, 7), types.Type{Kind: types.KindDecimal, Length: 8, Scale: 7}, "1E-7", "0.0000001"},
	{"decimal tiny digits", fmtDec(123, 9), types.Type{Kind: types.KindDecimal, Length: 10, Scale: 9}, "1.23E-7", "0.000000123"},
	{"decimal zero scale 10", fmtDec(0, 10), types.Type{Kind: types.KindDecimal, Length: 12, Scale: 10}, "0E-10", "0.0000000000"},
	{"decimal zero", fmtDec(0, 2), types.Type{Kind: types.KindDecimal, Length: 10, Scale: 2}, "0.00", "0.00"},
	{"decimal integer", fmtDec(42, 0), types.Type{Kind: types.KindDecimal, Length: 10}, "42", "42"},

	{"instant epoch", types.Instant{}, fmtLTZ(3), "1970-01-01T00:00:00Z", "1970-01-01 00:00:00.000"},
	{"instant 1ms", types.Instant{Millis: 1}, fmtLTZ(3), "1970-01-01T00:00:00.001Z", "1970-01-01 00:00:00.001"},
	{"instant -1ms", types.Instant{Millis: -1}, fmtLTZ(3), "1969-12-31T23:59:59.999Z", "1969-12-31 23:59:59.999"},
	{"instant 99999ms", types.Instant{Millis: 99999}, fmtLTZ(3), "1970-01-01T00:01:39.999Z", "1970-01-01 00:01:39.999"},
	{"instant 2025", types.Instant{Millis: 1735693200000}, fmtLTZ(3), "2025-01-01T01:00:00Z", "2025-01-01 01:00:00.000"},
	{"instant precision 0", types.Instant{Millis: 1735693200000}, fmtLTZ(0), "2025-01-01T01:00:00Z", "2025-01-01 01:00:00"},
	{"instant micros", types.Instant{Millis: 1, NanoOfMilli: 1000}, fmtLTZ(6), "1970-01-01T00:00:00.001001Z", "1970-01-01 00:00:00.001001"},
	{"instant nanos", types.Instant{NanoOfMilli: 500}, fmtLTZ(9), "1970-01-01T00:00:00.000000500Z", "1970-01-01 00:00:00.000000500"},

	{"timestamp epoch", types.LocalDateTime{}, fmtTS(3), "1970-01-01T00:00", "1970-01-01 00:00:00.000"},
	{"timestamp 1ms", types.LocalDateTime{Millis: 1}, fmtTS(3), "1970-01-01T00:00:00.001", "1970-01-01 00:00:00.001"},
	{"timestamp seconds", types.LocalDateTime{Millis: 1577880732000}, fmtTS(3), "2020-01-01T12:12:12", "2020-01-01 12:12:12.000"},
	{"timestamp 2025", types.LocalDateTime{Millis: 1735693200000}, fmtTS(3), "2025-01-01T01:00", "2025-01-01 01:00:00.000"},
	{"timestamp precision 6", types.LocalDateTime{Millis: 1}, fmtTS(6), "1970-01-01T00:00:00.001", "1970-01-01 00:00:00.001000"},
	{"timestamp precision 0", types.LocalDateTime{Millis: 1577880732000}, fmtTS(0), "2020-01-01T12:12:12", "2020-01-01 12:12:12"},
	{"timestamp before epoch", types.LocalDateTime{Millis: -1000}, fmtTS(3), "1969-12-31T23:59:59", "1969-12-31 23:59:59.000"},

	{"date", types.Date(20174), fmtDate, "2025-03-27", "2025-03-27"},
	{"date epoch", types.Date(0), fmtDate, "1970-01-01", "1970-01-01"},
	{"date before epoch", types.Date(-1), fmtDate, "1969-12-31", "1969-12-31"},
	{"date year 10000", types.Date(2932897), fmtDate, "+10000-01-01", "10000-01-01"},

	{"time noon", types.TimeOfDay(12 * fmtHour), fmtTime(0), "12:00", "12:00:00"},
	{"time seconds", types.TimeOfDay(12*fmtHour + 1e9), fmtTime(0), "12:00:01", "12:00:01"},
	{"time millis p3", types.TimeOfDay(12*fmtHour + 123e6), fmtTime(3), "12:00:00.123", "12:00:00.123"},
	{"time half p3", types.TimeOfDay(12*fmtHour + 500e6), fmtTime(3), "12:00:00.500", "12:00:00.5"},
	{"time zero fraction p3", types.TimeOfDay(12 * fmtHour), fmtTime(3), "12:00", "12:00:00.0"},
	{"time nanos", types.TimeOfDay(1), fmtTime(9), "00:00:00.000000001", "00:00:00.0"},

	{"duration zero", types.Duration(0), fmtDayTime, "PT0S", "+0 00:00:00.000"},
	{"duration 1s", types.Duration(1000), fmtDayTime, "PT1S", "+0 00:00:01.000"},
	{"duration 1ms", types.Duration(1), fmtDayTime, "PT0.001S", "+0 00:00:00.001"},
	{"duration 90s", types.Duration(90_000), fmtDayTime, "PT1M30S", "+0 00:01:30.000"},
	{"duration 1h", types.Duration(3_600_000), fmtDayTime, "PT1H", "+0 01:00:00.000"},
	{"duration 2 days", types.Duration(2 * fmtDay), fmtDayTime, "PT48H", "+2 00:00:00.000"},
	{"duration mixed", types.Duration(fmtDay + 3_661_001), fmtDayTime, "PT25H1M1.001S", "+1 01:01:01.001"},
	{"duration -1ms", types.Duration(-1), fmtDayTime, "PT-0.001S", "-0 00:00:00.001"},
	{"duration -1.5s", types.Duration(-1500), fmtDayTime, "PT-1.5S", "-0 00:00:01.500"},
	{"duration -61s", types.Duration(-61_000), fmtDayTime, "PT-1M-1S", "-0 00:01:01.000"},

	{"period zero", types.Period(0), fmtYearMonth, "P0D", "+0-00"},
	{"period 1y", types.Period(12), fmtYearMonth, "P1Y", "+1-00"},
	{"period 2m", types.Period(2), fmtYearMonth, "P2M", "+0-02"},
	{"period 1y2m", types.Period(14), fmtYearMonth, "P1Y2M", "+1-02"},
	{"period negative", types.Period(-14), fmtYearMonth, "P-1Y-2M", "-1-02"},

	{"bytes", []byte{1, 2, 255}, types.TypeBytes, "[1, 2, -1]", "x'0102ff'"},
	{"bytes empty", []byte{}, types.TypeBytes, "[]", "x''"},

	{"array", []any{int64(1), nil, int64(3)}, types.ArrayOf(types.TypeInt), "[1, null, 3]", "[1, NULL, 3]"},
	{"array empty", []any{}, types.ArrayOf(types.TypeInt), "[]", "[]"},
	{"array of strings", []any{"a", "b"}, types.ArrayOf(types.TypeString), "[a, b]", "[a, b]"},
	{"array of timestamps", []any{types.Instant{Millis: 1735693200000}}, types.ArrayOf(fmtLTZ(3)),
		"[2025-01-01T01:00:00Z]", "[2025-01-01 01:00:00.000]"},
	{"array of booleans", []any{true, false}, types.ArrayOf(types.TypeBoolean), "[true, false]", "[TRUE, FALSE]"},
	{"map", &types.Map{Keys: []any{"A", "B"}, Values: []any{int64(1), int64(2)}},
		types.MapOf(types.TypeString, types.TypeInt), "{A=1, B=2}", "{A=1, B=2}"},
	{"map null value", &types.Map{Keys: []any{"A"}, Values: []any{nil}},
		types.MapOf(types.TypeString, types.TypeInt), "{A=null}", "{A=NULL}"},
	{"map bigint keys", &types.Map{Keys: []any{int64(2), int64(5)}, Values: []any{int64(1), int64(1)}},
		types.MapOf(types.TypeBigInt, types.TypeInt), "{2=1, 5=1}", "{2=1, 5=1}"},
	{"map empty", &types.Map{}, types.MapOf(types.TypeString, types.TypeInt), "{}", "{}"},
	{"row", types.NewRow("Bob", int64(12)), types.NewRowType(
		types.Field{Name: "name", Type: types.TypeString}, types.Field{Name: "score", Type: types.TypeInt}),
		"+I[Bob, 12]", "(Bob, 12)"},
	{"row with null", types.NewRow("Bob", nil, true), types.Type{}, "+I[Bob, null, true]", "(Bob, NULL, TRUE)"},
	{"row nested", types.NewRow(types.NewRow("London")), types.Type{}, "+I[+I[London]]", "((London))"},
	{"descriptor", types.Descriptor{"a", "b", "c"}, types.TypeDescriptor, "(`a`, `b`, `c`)", "(`a`, `b`, `c`)"},
	{"descriptor backquote", types.Descriptor{"x`y"}, types.TypeDescriptor, "(`x``y`)", "(`x``y`)"},
	{"descriptor empty", types.Descriptor{}, types.TypeDescriptor, "()", "()"},
}

func TestFormatValue(t *testing.T) {
	for _, tc := range fmtCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := types.FormatValue(tc.v, tc.t); got != tc.java {
				t.Errorf("FormatValue(%#v, %s) = %q, want %q", tc.v, tc.t, got, tc.java)
			}
		})
	}
}

func TestFormatTableValue(t *testing.T) {
	for _, tc := range fmtCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := types.FormatTableValue(tc.v, tc.t); got != tc.table {
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
		{types.Instant{Millis: 1}, "1970-01-01T00:00:00.001Z"},
		{types.Descriptor{"ts"}, "(`ts`)"},
	} {
		if got := types.FormatValue(tc.v, types.Type{}); got != tc.want {
			t.Errorf("FormatValue(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestFormatRow(t *testing.T) {
	nameScore := types.Schema{Columns: []types.Column{
		{Name: "name", Type: types.TypeString},
		{Name: "score", Type: types.TypeInt},
	}}
	checkout := types.Schema{Columns: []types.Column{
		{Name: "user", Type: types.TypeString},
		{Name: "checkout_type", Type: types.TypeString},
		{Name: "items", Type: types.MapOf(types.TypeBigInt, types.TypeInt)},
		{Name: "rowtime", Type: types.TypeTimestampLTZ, TimeAttr: true},
	}}
	for _, tc := range []struct {
		name string
		r    types.Row
		s    types.Schema
		want string
	}{
		{"insert", types.NewRow("Bob", int64(12)), nameScore, "+I[Bob, 12]"},
		{"update before", types.Row{Kind: types.UpdateBefore, Fields: []any{"Bob", int64(1)}}, nameScore, "-U[Bob, 1]"},
		{"update after", types.Row{Kind: types.UpdateAfter, Fields: []any{"Bob", int64(2)}}, nameScore, "+U[Bob, 2]"},
		{"delete with null", types.Row{Kind: types.Delete, Fields: []any{"Bob", nil}}, nameScore, "-D[Bob, null]"},
		{"no fields", types.NewRow(), types.Schema{}, "+I[]"},
		{"checkout", types.NewRow("Bob", "CHECKOUT",
			&types.Map{Keys: []any{int64(2), int64(5)}, Values: []any{int64(1), int64(1)}},
			types.Instant{Millis: 1743076910000}), checkout,
			"+I[Bob, CHECKOUT, {2=1, 5=1}, 2025-03-27T12:01:50Z]"},
		{"list of rows", types.NewRow([]any{types.NewRow("Bob", int64(1), types.Instant{})}), types.Schema{},
			"+I[[+I[Bob, 1, 1970-01-01T00:00:00Z]]]"},
		{"float column", types.NewRow(float64(float32(0.1))),
			types.Schema{Columns: []types.Column{{Name: "f", Type: fmtFloat}}}, "+I[0.1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := types.FormatRow(tc.r, tc.s); got != tc.want {
				t.Errorf("FormatRow = %q, want %q", got, tc.want)
			}
		})
	}
}

func ExampleFormatRow() {
	s := types.Schema{Columns: []types.Column{
		{Name: "name", Type: types.TypeString},
		{Name: "ts", Type: types.TypeTimestampLTZ},
	}}
	fmt.Println(types.FormatRow(types.NewRow("Bob", types.Instant{Millis: 1}), s))
	fmt.Println(types.FormatTableValue(types.Instant{Millis: 1}, types.TypeTimestampLTZ))
	// Output:
	// +I[Bob, 1970-01-01T00:00:00.001Z]
	// 1970-01-01 00:00:00.001
}
