package textparse_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// show renders a row value with its Go type, so that tables of expected
// values stay short and exact: int64(5), "text", 2025-03-27T12:00:00.000.
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return fmt.Sprintf("%q", x)
	case int64, float64, bool:
		return fmt.Sprintf("%T(%v)", x, x)
	case types.Decimal:
		return fmt.Sprintf("%sE-%d", x.Unscaled, x.Scale)
	case []byte:
		return fmt.Sprintf("bytes(%q)", x)
	case types.Date:
		return time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02")
	case types.TimeOfDay:
		return time.Unix(0, int64(x)).UTC().Format("15:04:05.000000000")
	case types.LocalDateTime:
		return showTime(x.Millis, x.NanoOfMilli, "")
	case types.Instant:
		return showTime(x.Millis, x.NanoOfMilli, "Z")
	case types.Duration:
		return fmt.Sprintf("%dms", int64(x))
	case types.Period:
		return fmt.Sprintf("%dmonths", int32(x))
	case types.Descriptor:
		return fmt.Sprintf("descriptor%q", []string(x))
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = show(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *types.Map:
		parts := make([]string, x.Len())
		for i := range x.Keys {
			parts[i] = show(x.Keys[i]) + "=" + show(x.Values[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case types.Row:
		return showRow(x)
	}
	return fmt.Sprintf("?%T(%v)", v, v)
}

func showTime(ms int64, nano int32, zone string) string {
	t := time.UnixMilli(ms).UTC().Add(time.Duration(nano))
	s := t.Format("2006-01-02T15:04:05.000")
	if nano != 0 {
		s = t.Format("2006-01-02T15:04:05.000000000")
	}
	return s + zone
}

func showRow(r types.Row) string {
	parts := make([]string, len(r.Fields))
	for i, f := range r.Fields {
		parts[i] = show(f)
	}
	return r.Kind.ShortString() + "(" + strings.Join(parts, ", ") + ")"
}

var (
	tTinyInt  = types.Type{Kind: types.KindTinyInt}
	tSmallInt = types.Type{Kind: types.KindSmallInt}
	tFloat    = types.Type{Kind: types.KindFloat}
	tDate     = types.Type{Kind: types.KindDate}
	tTS6      = types.Type{Kind: types.KindTimestamp, Length: 6}
	tTS0      = types.Type{Kind: types.KindTimestamp, Length: 0}
	tLTZ3     = types.TypeTimestampLTZ
	tTS3      = types.TypeTimestamp3
)

func tDecimal(p, s int) types.Type {
	return types.Type{Kind: types.KindDecimal, Length: p, Scale: s}
}
func tTime(p int) types.Type { return types.Type{Kind: types.KindTime, Length: p} }

func TestParseValue(t *testing.T) {
	sql := textparse.Options{TimestampFormat: textparse.TimestampFormatSQL}
	iso := textparse.Options{TimestampFormat: textparse.TimestampFormatISO8601}
	pat := func(p string) textparse.Options { return textparse.Options{TimestampPattern: p} }
	row := types.NewRowType(types.Field{Name: "a", Type: types.TypeInt}, types.Field{Name: "b", Type: types.TypeString})
	tests := []struct {
		name string
		text string
		typ  types.Type
		opts textparse.Options
		want string // show(value), or the error message
	}{
		{"bool true", "true", types.TypeBoolean, textparse.Options{}, "bool(true)"},
		{"bool any case", " FaLsE ", types.TypeBoolean, textparse.Options{}, "bool(false)"},
		{"bool yes", "yes", types.TypeBoolean, textparse.Options{}, `cannot parse "yes" as BOOLEAN`},
		{"tinyint max", "127", tTinyInt, textparse.Options{}, "int64(127)"},
		{"tinyint min", "-128", tTinyInt, textparse.Options{}, "int64(-128)"},
		{"tinyint over", "128", tTinyInt, textparse.Options{}, `cannot parse "128" as TINYINT: out of range [-128, 127]`},
		{"smallint over", "-32769", tSmallInt, textparse.Options{}, `cannot parse "-32769" as SMALLINT: out of range [-32768, 32767]`},
		{"int", " 42 ", types.TypeInt, textparse.Options{}, "int64(42)"},
		{"int plus", "+7", types.TypeInt, textparse.Options{}, "int64(7)"},
		{"int over", "2147483648", types.TypeInt, textparse.Options{}, `cannot parse "2147483648" as INT: out of range [-2147483648, 2147483647]`},
		{"int abc", "abc", types.TypeInt, textparse.Options{}, `cannot parse "abc" as INT`},
		{"int fraction", "1.0", types.TypeInt, textparse.Options{}, `cannot parse "1.0" as INT`},
		{"int empty", "", types.TypeInt, textparse.Options{}, `cannot parse "" as INT`},
		{"int not null", "3", types.TypeInt.AsNotNull(), textparse.Options{}, "int64(3)"},
		{"bigint max", "9223372036854775807", types.TypeBigInt, textparse.Options{}, "int64(9223372036854775807)"},
		{"bigint exact", "9007199254740993", types.TypeBigInt, textparse.Options{}, "int64(9007199254740993)"},
		{"bigint over", "9223372036854775808", types.TypeBigInt, textparse.Options{}, `cannot parse "9223372036854775808" as BIGINT: out of range [-9223372036854775808, 9223372036854775807]`},
		{"float", "0.1", tFloat, textparse.Options{}, "float64(0.10000000149011612)"},
		{"float over", "3.5e38", tFloat, textparse.Options{}, `cannot parse "3.5e38" as FLOAT: out of range`},
		{"double", "1.5e3", types.TypeDouble, textparse.Options{}, "float64(1500)"},
		{"double nan", "NaN", types.TypeDouble, textparse.Options{}, "float64(NaN)"},
		{"double -inf", "-Infinity", types.TypeDouble, textparse.Options{}, "float64(-Inf)"},
		{"double over", "1e309", types.TypeDouble, textparse.Options{}, `cannot parse "1e309" as DOUBLE: out of range`},
		{"double bad", "1,5", types.TypeDouble, textparse.Options{}, `cannot parse "1,5" as DOUBLE`},
		{"decimal round down", "123.454", tDecimal(5, 2), textparse.Options{}, "12345E-2"},
		{"decimal half up", "123.455", tDecimal(5, 2), textparse.Options{}, "12346E-2"},
		{"decimal negative half up", "-1.005", tDecimal(5, 2), textparse.Options{}, "-101E-2"},
		{"decimal pad", "7", tDecimal(5, 2), textparse.Options{}, "700E-2"},
		{"decimal leading dot", ".5", tDecimal(5, 2), textparse.Options{}, "50E-2"},
		{"decimal exponent", "1.5e2", tDecimal(5, 2), textparse.Options{}, "15000E-2"},
		{"decimal negative exponent", "15E-3", tDecimal(5, 2), textparse.Options{}, "2E-2"},
		{"decimal to zero", "0.001", tDecimal(5, 2), textparse.Options{}, "0E-2"},
		{"decimal rounds over", "999.995", tDecimal(5, 2), textparse.Options{}, `cannot parse "999.995" as DECIMAL(5, 2): out of range [-999.99, 999.99]`},
		{"decimal over", "1000", tDecimal(5, 2), textparse.Options{}, `cannot parse "1000" as DECIMAL(5, 2): out of range [-999.99, 999.99]`},
		{"decimal all scale", "-0.0005", tDecimal(3, 3), textparse.Options{}, "-1E-3"},
		{"decimal all scale over", "0.9995", tDecimal(3, 3), textparse.Options{}, `cannot parse "0.9995" as DECIMAL(3, 3): out of range [-0.999, 0.999]`},
		{"decimal 38", "12345678901234567890123456789012345678", tDecimal(38, 0), textparse.Options{}, "12345678901234567890123456789012345678E-0"},
		{"decimal default", "12.5", types.Type{Kind: types.KindDecimal}, textparse.Options{}, "13E-0"},
		{"decimal bad", "1.2.3", tDecimal(5, 2), textparse.Options{}, `cannot parse "1.2.3" as DECIMAL(5, 2)`},
		{"decimal huge exponent", "1e999999", tDecimal(5, 2), textparse.Options{}, `cannot parse "1e999999" as DECIMAL(5, 2): out of range [-999.99, 999.99]`},
		{"string kept", " a b ", types.TypeString, textparse.Options{}, `" a b "`},
		{"varchar not truncated", "abcd", types.Type{Kind: types.KindVarChar, Length: 2}, textparse.Options{}, `"abcd"`},
		{"char", "ab", types.Type{Kind: types.KindChar, Length: 3}, textparse.Options{}, `"ab"`},
		{"bytes", "aGVsbG8=", types.TypeBytes, textparse.Options{}, `bytes("hello")`},
		{"bytes unpadded", "aGVsbG8", types.TypeBytes, textparse.Options{}, `bytes("hello")`},
		{"bytes bad", "!!", types.TypeBytes, textparse.Options{}, `cannot parse "!!" as BYTES: expected base64`},
		{"date", "2025-03-27", tDate, textparse.Options{}, "2025-03-27"},
		{"date short fields", "2025-3-7", tDate, textparse.Options{}, "2025-03-07"},
		{"date leap", "2024-02-29", tDate, textparse.Options{}, "2024-02-29"},
		{"date not leap", "2025-02-29", tDate, textparse.Options{}, `cannot parse "2025-02-29" as DATE: expected yyyy-MM-dd`},
		{"date with time", "2025-03-27 12:00:00", tDate, textparse.Options{}, "2025-03-27"},
		{"date before 1970", "1969-12-31", tDate, textparse.Options{}, "1969-12-31"},
		{"date other form", "27/03/2025", tDate, textparse.Options{}, `cannot parse "27/03/2025" as DATE: expected yyyy-MM-dd`},
		{"date pattern", "Jan 1 2000", tDate, pat("MMM d yyyy"), "2000-01-01"},
		{"date pattern iso still", "2000-01-02", tDate, pat("MMM d yyyy"), "2000-01-02"},
		{"date pattern bad", "Foo 1 2000", tDate, pat("MMM d yyyy"), `cannot parse "Foo 1 2000" as DATE: expected yyyy-MM-dd or pattern "MMM d yyyy"`},
		{"time", "12:34:56", tTime(0), textparse.Options{}, "12:34:56.000000000"},
		{"time truncated", "12:34:56.789123", tTime(3), textparse.Options{}, "12:34:56.789000000"},
		{"time no seconds", "7:05", tTime(0), textparse.Options{}, "07:05:00.000000000"},
		{"time bad", "25:00:00", tTime(0), textparse.Options{}, `cannot parse "25:00:00" as TIME(0): expected HH:mm:ss`},
		{"ts iso zulu", "2025-03-27T12:00:00Z", tTS3, textparse.Options{}, "2025-03-27T12:00:00.000"},
		{"ts sql", "2025-03-27 12:00:00", tTS3, textparse.Options{}, "2025-03-27T12:00:00.000"},
		{"ts millis", "2025-03-27T12:00:00.123", tTS3, textparse.Options{}, "2025-03-27T12:00:00.123"},
		{"ts truncated", "2025-03-27T12:00:00.123999", tTS3, textparse.Options{}, "2025-03-27T12:00:00.123"},
		{"ts micros", "2025-03-27 12:00:00.123456", tTS6, textparse.Options{}, "2025-03-27T12:00:00.123456000"},
		{"ts precision 0", "2025-03-27 12:00:00.9", tTS0, textparse.Options{}, "2025-03-27T12:00:00.000"},
		{"ts offset", "2025-03-27T14:00:00+02:00", tTS3, textparse.Options{}, "2025-03-27T12:00:00.000"},
		{"ts offset compact", "2025-03-27T14:00:00+0200", tTS3, textparse.Options{}, "2025-03-27T12:00:00.000"},
		{"ts no seconds", "2025-03-27T12:00", tTS3, textparse.Options{}, "2025-03-27T12:00:00.000"},
		{"ts date only", "2025-03-27", tTS3, textparse.Options{}, "2025-03-27T00:00:00.000"},
		{"ts epoch millis", "1743076800000", tTS3, textparse.Options{}, "2025-03-27T12:00:00.000"},
		{"ts negative millis", "-1", tTS3, textparse.Options{}, "1969-12-31T23:59:59.999"},
		{"ts bad", "yesterday", tTS3, textparse.Options{}, `cannot parse "yesterday" as TIMESTAMP(3): expected yyyy-MM-dd HH:mm:ss, ISO-8601 or epoch milliseconds`},
		{"ts bad hour", "2025-03-27 24:00:00", tTS3, textparse.Options{}, `cannot parse "2025-03-27 24:00:00" as TIMESTAMP(3): expected yyyy-MM-dd HH:mm:ss, ISO-8601 or epoch milliseconds`},
		{"ltz zulu", "2025-03-27T12:00:00Z", tLTZ3, textparse.Options{}, "2025-03-27T12:00:00.000Z"},
		{"ltz no zone is utc", "2025-03-27 12:00:00", tLTZ3, textparse.Options{}, "2025-03-27T12:00:00.000Z"},
		{"ltz offset", "2025-03-27T12:00:00-05:00", tLTZ3, textparse.Options{}, "2025-03-27T17:00:00.000Z"},
		{"ltz millis", "0", tLTZ3, textparse.Options{}, "1970-01-01T00:00:00.000Z"},
		{"sql ts", "2025-03-27 12:00:00.5", tTS3, sql, "2025-03-27T12:00:00.500"},
		{"sql ts with T", "2025-03-27T12:00:00", tTS3, sql, `cannot parse "2025-03-27T12:00:00" as TIMESTAMP(3): expected yyyy-MM-dd HH:mm:ss[.SSS]`},
		{"sql ts no seconds", "2025-03-27 12:00", tTS3, sql, `cannot parse "2025-03-27 12:00" as TIMESTAMP(3): expected yyyy-MM-dd HH:mm:ss[.SSS]`},
		{"sql ts millis", "1743076800000", tTS3, sql, `cannot parse "1743076800000" as TIMESTAMP(3): expected yyyy-MM-dd HH:mm:ss[.SSS]`},
		{"sql ltz", "2025-03-27 12:00:00Z", tLTZ3, sql, "2025-03-27T12:00:00.000Z"},
		{"sql ltz without Z", "2025-03-27 12:00:00", tLTZ3, sql, `cannot parse "2025-03-27 12:00:00" as TIMESTAMP_LTZ(3): expected yyyy-MM-dd HH:mm:ss[.SSS]Z`},
		{"iso ts", "2025-03-27T12:00:00.123", tTS3, iso, "2025-03-27T12:00:00.123"},
		{"iso ts space", "2025-03-27 12:00:00", tTS3, iso, `cannot parse "2025-03-27 12:00:00" as TIMESTAMP(3): expected yyyy-MM-ddTHH:mm:ss[.SSS]`},
		{"iso ts zone", "2025-03-27T12:00:00Z", tTS3, iso, `cannot parse "2025-03-27T12:00:00Z" as TIMESTAMP(3): expected yyyy-MM-ddTHH:mm:ss[.SSS]`},
		{"iso ltz", "2025-03-27T12:00:00Z", tLTZ3, iso, "2025-03-27T12:00:00.000Z"},
		{"pattern flights", "2001/01/01 00:47", tTS3, pat("yyyy/MM/dd HH:mm"), "2001-01-01T00:47:00.000"},
		{"pattern flights ltz", "2001/01/01 00:47", tLTZ3, pat("yyyy/MM/dd HH:mm"), "2001-01-01T00:47:00.000Z"},
		{"pattern mismatch", "2001-01-01 00:47", tTS3, pat("yyyy/MM/dd HH:mm"), `cannot parse "2001-01-01 00:47" as TIMESTAMP(3): expected pattern "yyyy/MM/dd HH:mm"`},
		{"pattern trailing text", "2001/01/01 00:47:00", tTS3, pat("yyyy/MM/dd HH:mm"), `cannot parse "2001/01/01 00:47:00" as TIMESTAMP(3): expected pattern "yyyy/MM/dd HH:mm"`},
		{"pattern date only", "1990-01-08", tTS3, pat("yyyy-MM-dd"), "1990-01-08T00:00:00.000"},
		{"pattern github", "2015/01/01 01:00:00", tTS3, pat("yyyy/MM/dd HH:mm:ss"), "2015-01-01T01:00:00.000"},
		{"pattern month name", "january 31 2000", tTS3, pat("MMMM d yyyy"), "2000-01-31T00:00:00.000"},
		{"pattern fraction and zone", "27.03.2025T12:00:00.123+01:00", tTS3, pat("dd.MM.yyyy'T'HH:mm:ss.SSSXXX"), "2025-03-27T11:00:00.123"},
		{"pattern zulu", "20250327120000Z", tLTZ3, pat("yyyyMMddHHmmssX"), "2025-03-27T12:00:00.000Z"},
		{"pattern quote", "2025'03'27", tTS3, pat("yyyy''MM''dd"), "2025-03-27T00:00:00.000"},
		{"pattern two digit year", "27/03/25", tTS3, pat("dd/MM/yy"), "2025-03-27T00:00:00.000"},
		{"pattern invalid day", "2001/02/30 00:47", tTS3, pat("yyyy/MM/dd HH:mm"), `cannot parse "2001/02/30 00:47" as TIMESTAMP(3): expected pattern "yyyy/MM/dd HH:mm"`},
		{"interval millis", "1500", types.Type{Kind: types.KindIntervalDayTime}, textparse.Options{}, "1500ms"},
		{"interval iso", "PT1H30M", types.Type{Kind: types.KindIntervalDayTime}, textparse.Options{}, "5400000ms"},
		{"interval iso days", "P1DT0.5S", types.Type{Kind: types.KindIntervalDayTime}, textparse.Options{}, "86400500ms"},
		{"interval flink", "-1 02:03:04.500", types.Type{Kind: types.KindIntervalDayTime}, textparse.Options{}, "-93784500ms"},
		{"interval bad", "soon", types.Type{Kind: types.KindIntervalDayTime}, textparse.Options{}, `cannot parse "soon" as INTERVAL DAY TO SECOND: expected milliseconds, +D HH:mm:ss.SSS or an ISO-8601 duration`},
		{"period months", "14", types.Type{Kind: types.KindIntervalYearMonth}, textparse.Options{}, "14months"},
		{"period iso", "P1Y2M", types.Type{Kind: types.KindIntervalYearMonth}, textparse.Options{}, "14months"},
		{"period flink", "-0-06", types.Type{Kind: types.KindIntervalYearMonth}, textparse.Options{}, "-6months"},
		{"array", "[1, 2, null]", types.ArrayOf(types.TypeInt), textparse.Options{}, "[int64(1), int64(2), NULL]"},
		{"array empty", " [] ", types.ArrayOf(types.TypeInt), textparse.Options{}, "[]"},
		{"array null", "null", types.ArrayOf(types.TypeInt), textparse.Options{}, "NULL"},
		{"array nested", `[["a"], [], ["b\u00e9", "\ud83d\ude00"]]`, types.ArrayOf(types.ArrayOf(types.TypeString)), textparse.Options{}, `[["a"], [], ["bé", "😀"]]`},
		{"array of timestamps", `["2025-03-27 12:00:00", 0]`, types.ArrayOf(tTS3), textparse.Options{}, "[2025-03-27T12:00:00.000, 1970-01-01T00:00:00.000]"},
		{"array bad element", `[1,"x"]`, types.ArrayOf(types.TypeInt), textparse.Options{}, `cannot parse "[1,\"x\"]" as ARRAY<INT>: cannot parse "x" as INT (at byte 4)`},
		{"array not closed", `[1,2`, types.ArrayOf(types.TypeInt), textparse.Options{}, `cannot parse "[1,2" as ARRAY<INT>: invalid JSON: unexpected end of input, expected ',' or ']' (at byte 5)`},
		{"array trailing", `[1] x`, types.ArrayOf(types.TypeInt), textparse.Options{}, `cannot parse "[1] x" as ARRAY<INT>: invalid JSON: unexpected 'x', expected the end of the value (at byte 5)`},
		{"array not null element", `[1,null]`, types.ArrayOf(types.TypeInt.AsNotNull()), textparse.Options{}, `cannot parse "[1,null]" as ARRAY<INT NOT NULL>: null value for INT NOT NULL (at byte 4)`},
		{"map", `{"a": 1, "b": 2, "a": 3}`, types.MapOf(types.TypeString, types.TypeInt), textparse.Options{}, `{"a"=int64(3), "b"=int64(2)}`},
		{"map int keys", `{"1": "x", "20": "y"}`, types.MapOf(types.TypeInt, types.TypeString), textparse.Options{}, `{int64(1)="x", int64(20)="y"}`},
		{"map pairs", `[[1, "x"], [2, null]]`, types.MapOf(types.TypeInt, types.TypeString), textparse.Options{}, `{int64(1)="x", int64(2)=NULL}`},
		{"map bad key", `{"one": 1}`, types.MapOf(types.TypeInt, types.TypeInt), textparse.Options{}, `cannot parse "{\"one\": 1}" as MAP<INT, INT>: map key: cannot parse "one" as INT (at byte 2)`},
		{"row object", `{"b": "x", "c": [1, {"d": null}], "a": 1}`, row, textparse.Options{}, `+I(int64(1), "x")`},
		{"row missing field", `{"a": 1}`, row, textparse.Options{}, `+I(int64(1), NULL)`},
		{"row array", `[1, "x"]`, row, textparse.Options{}, `+I(int64(1), "x")`},
		{"row array short", `[1]`, row, textparse.Options{}, "cannot parse \"[1]\" as ROW<`a` INT, `b` STRING>: expected 2 fields for ROW<`a` INT, `b` STRING>, found 1 (at byte 1)"},
		{"row string field takes json", `{"b": {"x": [1, 2]}}`, row, textparse.Options{}, `+I(NULL, "{\"x\":[1,2]}")`},
		{"descriptor", `["a", "b"]`, types.TypeDescriptor, textparse.Options{}, `descriptor["a" "b"]`},
		{"json invalid utf8", "[\"\xff\"]", types.ArrayOf(types.TypeString), textparse.Options{}, `cannot parse "[\"\xff\"]" as ARRAY<STRING>: invalid UTF-8`},
		{"long text shortened", strings.Repeat("9", 80), types.TypeInt, textparse.Options{}, `cannot parse "` + strings.Repeat("9", 64) + `"... as INT: out of range [-2147483648, 2147483647]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := textparse.Value(tt.text, tt.typ, tt.opts)
			got := show(v)
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Value(%q, %s)\n got: %s\nwant: %s", tt.text, tt.typ, got, tt.want)
			}
		})
	}
}

func TestParseValue_exactTypes(t *testing.T) {
	// The Go type of each SQL type, as value.go documents it.
	tests := []struct {
		text string
		typ  types.Type
		want any
	}{
		{"1", tTinyInt, int64(1)},
		{"1.5", tFloat, float64(1.5)},
		{"2025-03-27", tDate, types.Date(20174)},
		{"00:00:01", tTime(0), types.TimeOfDay(1e9)},
		{"2025-03-27T12:00:00.123456Z", tTS6, types.LocalDateTime{Millis: 1743076800123, NanoOfMilli: 456000}},
		{"2025-03-27T12:00:00.123456Z", types.Type{Kind: types.KindTimestampLTZ, Length: 9}, types.Instant{Millis: 1743076800123, NanoOfMilli: 456000}},
	}
	for _, tt := range tests {
		v, err := textparse.Value(tt.text, tt.typ, textparse.Options{})
		if err != nil || v != tt.want {
			t.Errorf("Value(%q, %s) = %#v, %v; want %#v", tt.text, tt.typ, v, err, tt.want)
		}
	}
	d, err := textparse.Value("-12.30", tDecimal(10, 2), textparse.Options{})
	if err != nil || d.(types.Decimal).Unscaled.Cmp(big.NewInt(-1230)) != 0 || d.(types.Decimal).Scale != 2 {
		t.Errorf("DECIMAL: got %#v, %v", d, err)
	}
}

func TestParseOptions_Validate(t *testing.T) {
	tests := []struct {
		opts textparse.Options
		want string
	}{
		{textparse.Options{}, ""},
		{textparse.Options{TimestampFormat: "SQL"}, ""},
		{textparse.Options{TimestampFormat: "RFC"}, `unknown timestamp format "RFC": want "SQL" or "ISO-8601"`},
		{textparse.Options{TimestampPattern: "yyyy/MM/dd HH:mm"}, ""},
		{textparse.Options{TimestampPattern: "yyyy-MM-ddTHH"}, `timestamp pattern "yyyy-MM-ddTHH": unsupported letters "T" (quote literal text: 'T')`},
		{textparse.Options{TimestampPattern: "yyyy-MM-dd'T"}, `timestamp pattern "yyyy-MM-dd'T": unterminated quote`},
		{textparse.Options{TimestampPattern: "HH:mm"}, `timestamp pattern "HH:mm": needs a year (yyyy), a month (MM) and a day (dd)`},
		{textparse.Options{TimestampPattern: "yyyy-MM-dd yyyy"}, `timestamp pattern "yyyy-MM-dd yyyy": "yyyy" appears twice`},
		{textparse.Options{TimestampPattern: "yyyyy-MM-dd"}, `timestamp pattern "yyyyy-MM-dd": unsupported letters "yyyyy" (quote literal text: 'T')`},
	}
	for _, tt := range tests {
		err := tt.opts.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.opts, got, tt.want)
		}
		if _, perr := textparse.Value("1", types.TypeInt, tt.opts); (perr != nil) != (err != nil) {
			t.Errorf("%+v: Value error %v disagrees with Validate", tt.opts, perr)
		}
	}
}

// decodeJSON decodes text keeping numbers exact, as ConvertJSON expects.
func decodeJSON(t *testing.T, text string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestConvertJSON(t *testing.T) {
	row := types.NewRowType(types.Field{Name: "a", Type: types.TypeBigInt}, types.Field{Name: "b", Type: types.TypeString})
	tests := []struct {
		name string
		v    any
		typ  types.Type
		want string
	}{
		{"bigint exact", json.Number("9007199254740993"), types.TypeBigInt, "int64(9007199254740993)"},
		{"int range", json.Number("2147483648"), types.TypeInt, `cannot parse "2147483648" as INT: out of range [-2147483648, 2147483647]`},
		{"int from fraction", json.Number("1.5"), types.TypeInt, `cannot parse "1.5" as INT`},
		{"int from string", "42", types.TypeInt, "int64(42)"},
		{"int from float64", float64(3), types.TypeInt, "int64(3)"},
		{"int from Go int", 7, types.TypeInt, "int64(7)"},
		{"int from bool", true, types.TypeInt, "cannot parse true as INT"},
		{"decimal exact", json.Number("12345678901234567890.125"), tDecimal(25, 2), "1234567890123456789013E-2"},
		{"decimal from float64", 0.1, tDecimal(2, 1), "1E-1"},
		{"double", json.Number("1e2"), types.TypeDouble, "float64(100)"},
		{"float", json.Number("0.1"), tFloat, "float64(0.10000000149011612)"},
		{"string from number", json.Number("1.50"), types.TypeString, `"1.50"`},
		{"string from bool", false, types.TypeString, `"false"`},
		{"string from object", map[string]any{"b": json.Number("1"), "a": []any{"<x>"}}, types.TypeString, `"{\"a\":[\"<x>\"],\"b\":1}"`},
		{"bool", true, types.TypeBoolean, "bool(true)"},
		{"bool from string", "TRUE", types.TypeBoolean, "bool(true)"},
		{"bytes base64", "aGk=", types.TypeBytes, `bytes("hi")`},
		{"bytes raw", []byte("hi"), types.TypeBytes, `bytes("hi")`},
		{"timestamp text", "2025-03-27T12:00:00Z", tLTZ3, "2025-03-27T12:00:00.000Z"},
		{"timestamp millis", json.Number("1743076800000"), tTS3, "2025-03-27T12:00:00.000"},
		{"timestamp fraction", json.Number("1.5"), tTS3, `cannot parse "1.5" as TIMESTAMP(3): expected epoch milliseconds`},
		{"date", "2025-03-27", tDate, "2025-03-27"},
		{"null", nil, types.TypeInt, "NULL"},
		{"null not null", nil, types.TypeInt.AsNotNull(), "null value for INT NOT NULL"},
		{"array", []any{json.Number("1"), nil, "3"}, types.ArrayOf(types.TypeInt), "[int64(1), NULL, int64(3)]"},
		{"array bad", []any{json.Number("1"), "x"}, types.ArrayOf(types.TypeInt), `element 1: cannot parse "x" as INT`},
		{"array from object", map[string]any{}, types.ArrayOf(types.TypeInt), "cannot parse {} as ARRAY<INT>"},
		{"map sorted", map[string]any{"b": json.Number("1"), "a": json.Number("2")}, types.MapOf(types.TypeString, types.TypeInt), `{"a"=int64(2), "b"=int64(1)}`},
		{"map int keys", map[string]any{"10": "x", "9": "y"}, types.MapOf(types.TypeInt, types.TypeString), `{int64(10)="x", int64(9)="y"}`},
		{"map pairs", []any{[]any{json.Number("1"), "x"}}, types.MapOf(types.TypeInt, types.TypeString), `{int64(1)="x"}`},
		{"row object", map[string]any{"a": json.Number("9007199254740993"), "z": true}, row, `+I(int64(9007199254740993), NULL)`},
		{"row array", []any{json.Number("1"), "x"}, row, `+I(int64(1), "x")`},
		{"row bad field", map[string]any{"a": "x"}, row, `field "a": cannot parse "x" as BIGINT`},
		{"descriptor", []any{"a", "b"}, types.TypeDescriptor, `descriptor["a" "b"]`},
		{"go struct", struct{}{}, types.TypeInt, "cannot convert a Go struct {} to INT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := textparse.ConvertJSON(tt.v, tt.typ, textparse.Options{})
			got := show(v)
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("ConvertJSON(%#v, %s)\n got: %s\nwant: %s", tt.v, tt.typ, got, tt.want)
			}
		})
	}
}

// TestConvertJSON_agreesWithParseValue checks that the two ways into a
// composite value (decoded JSON and JSON text) give the same values.
func TestConvertJSON_agreesWithParseValue(t *testing.T) {
	rowType := types.NewRowType(
		types.Field{Name: "id", Type: types.TypeBigInt},
		types.Field{Name: "price", Type: tDecimal(10, 2)},
		types.Field{Name: "at", Type: tLTZ3},
		types.Field{Name: "tags", Type: types.ArrayOf(types.TypeString)},
		types.Field{Name: "attrs", Type: types.MapOf(types.TypeString, types.TypeDouble)},
		types.Field{Name: "raw", Type: types.TypeString},
	)
	texts := []string{
		`{"id": 9007199254740993, "price": "19.999", "at": "2025-03-27T12:00:00Z", "tags": ["a", "b"], "attrs": {"w": 1.5}, "raw": [1, {"x": null}]}`,
		`{"id": -1, "price": 0.005, "at": 1743076800000, "tags": [], "attrs": {}, "raw": "plain"}`,
		`{"id": null}`,
		`[1, 2, null, null, null, true]`,
	}
	for _, text := range texts {
		a, errA := textparse.Value(text, rowType, textparse.Options{})
		b, errB := textparse.ConvertJSON(decodeJSON(t, text), rowType, textparse.Options{})
		if errA != nil || errB != nil {
			t.Errorf("%s: errors %v, %v", text, errA, errB)
			continue
		}
		if show(a) != show(b) {
			t.Errorf("%s:\n Value:  %s\n ConvertJSON: %s", text, show(a), show(b))
		}
	}
}

func TestParseValue_jsonDepth(t *testing.T) {
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	typ := types.TypeString
	for range 600 {
		typ = types.ArrayOf(typ)
	}
	_, err := textparse.Value(deep, typ, textparse.Options{})
	if err == nil || !strings.Contains(err.Error(), "nesting deeper than 512") {
		t.Errorf("got %v, want a nesting error", err)
	}
	// Deep values skipped as unknown fields are bounded too.
	row := types.NewRowType(types.Field{Name: "a", Type: types.TypeInt})
	_, err = textparse.Value(`{"x":`+deep+`}`, row, textparse.Options{})
	if err == nil || !strings.Contains(err.Error(), "nesting deeper than 512") {
		t.Errorf("got %v, want a nesting error", err)
	}
}

func TestParseValue_bytesRoundTrip(t *testing.T) {
	v, err := textparse.Value("AAECAwQ=", types.TypeBytes, textparse.Options{})
	if err != nil || !bytes.Equal(v.([]byte), []byte{0, 1, 2, 3, 4}) {
		t.Errorf("got %v, %v", v, err)
	}
}
