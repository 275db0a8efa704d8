package types

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// This file prints values the two ways Flink does.
//
// FormatValue is Java's toString of the external (conversion) class, as
// Flink's Row.toString prints it: RowUtils.deepToStringRow writes the kind
// short string and deep-prints Object[], Map and List fields; everything
// else goes through StringUtils.arrayAwareToString, which is
// Arrays.deepToString of the single value (so byte[] prints as "[1, -1]").
// The external classes are Flink's defaults: Instant, LocalDateTime,
// LocalDate, LocalTime, Duration, Period, BigDecimal, Row, Map, ColumnList.
//
// FormatTableValue is what Flink's tableau (TableResult.print() and the SQL
// client) shows in a cell. RowDataToStringConverterImpl ("RowData to String
// converter using CastRule") turns every field into a STRING with the SQL
// CAST rules of the planner, in printing mode (CastRule.Context.create(true,
// legacyBehaviour, ...)) and with legacy behaviour off; a NULL field becomes
// PrintStyle.NULL_VALUE "<NULL>". Per type (flink-table-planner
// functions/casting/*ToStringCastRule.java, DateTimeUtils):
//
//	BOOLEAN        BinaryStringDataUtil.TRUE_STRING "TRUE" / FALSE_STRING "FALSE" (FLINK-25158)
//	numbers        NumericToStringCastRule: "" + value (Java int/long/float/double toString)
//	DECIMAL        DecimalData.toString(): "toBigDecimal().toPlainString()"
//	DATE           DateTimeUtils.formatDate: yyyy-MM-dd
//	TIME(p)        DateTimeUtils.formatTimestampMillis(int, p): HH:mm:ss, then for p > 0 a
//	               point and digits until the rest is zero ("keep consistent with Timestamp.toString()")
//	TIMESTAMP(p)   DateTimeUtils.formatTimestamp(ts, UTC, p): yyyy-MM-dd HH:mm:ss, fraction of
//	               nine digits with trailing zeros removed while longer than p (so .000 for p = 3)
//	TIMESTAMP_LTZ  the same in the session time zone (ptfsh: always UTC)
//	INTERVAL Y-M   DateTimeUtils.formatIntervalYearMonth: +1-02
//	INTERVAL D-S   DateTimeUtils.formatIntervalDayTime: +1 02:03:04.005
//	BYTES          BinaryToStringCastRule when printing: "x'" + EncodingUtils.hex(bytes) + "'" (lower case)
//	ARRAY          ArrayToStringCastRule: [a, b], a null element as NULL
//	MAP            MapToStringCastRule: {k=v, k2=v2}, nulls as NULL
//	ROW            RowToStringCastRule: (a, b), delimiter ", " unless legacy, nulls as NULL
//	DESCRIPTOR     no cast rule exists; printed as ColumnList.toString
//
// Nested NULLs print as "NULL": CastRuleUtils has nullLiteral(legacy) =
// legacy ? "null" : "NULL" (FLINK-25158 changed NULL, TRUE and FALSE to
// upper case).

// TableNull is PrintStyle.NULL_VALUE, the tableau's top-level NULL.
const TableNull = "<NULL>"

// FormatValue renders v, a value of SQL type t, as Flink's Row.toString
// prints it (conformance/flink-cases.md §3): null, raw strings, 1.0E10,
// 1970-01-01T00:00:00.001Z, 2025-01-01T01:00, PT1S, P1Y, [1, -1] for bytes,
// [a, b], {k=v}, +I[a, b] for a nested row and (`a`, `b`) for a descriptor.
//
// The Go type of v decides the form (see value.go); t refines it: FLOAT
// prints a float64 with float32 precision, and ARRAY, MAP and ROW give the
// types of their elements. A zero Type is fine for any value.
//
// Two choices where Java itself varies: DOUBLE and FLOAT follow the JDK 19+
// Double.toString (shortest digits; JDK 11 and 17 print more digits for some
// integral values of 2^53 and more, and for floats of 2^24 and more), and a
// MAP prints in its insertion order where Flink's HashMap uses hash order.
func FormatValue(v any, t Type) string {
	return string(appendJava(nil, v, t))
}

// FormatRow renders r as Flink's Row.toString does, e.g. +I[Bob, 12], using
// the column types of s.
func FormatRow(r Row, s Schema) string {
	return string(AppendJavaRow(nil, r, s.Columns, nil))
}

// FormatTableValue renders v, a value of SQL type t, as a cell of Flink's
// tableau: the CAST-to-STRING form, <NULL> for a top-level NULL, e.g. TRUE,
// 2025-03-27 12:00:00.000, +0 00:00:01.000, x'0102', [1, NULL], (a, 1).
// See the comment at the top of format.go for the rule of each type.
func FormatTableValue(v any, t Type) string {
	return string(AppendTableValue(nil, v, t))
}

// AppendTableValue appends a tableau cell: <NULL> or the CAST form.
func AppendTableValue(b []byte, v any, t Type) []byte {
	if v == nil {
		return append(b, TableNull...)
	}
	return appendCast(b, v, t)
}

// TypeOrZero returns *p or the zero Type.
func TypeOrZero(p *Type) Type {
	if p == nil {
		return Type{}
	}
	return *p
}

// rowFieldType returns the type of field i of a ROW type, or the zero Type.
func rowFieldType(t Type, i int) Type {
	if i < len(t.Fields) {
		return t.Fields[i].Type
	}
	return Type{}
}

// AppendJavaRow appends Row.toString of r: the kind, then the fields in
// brackets. Column types come from cols, else from fields.
func AppendJavaRow(b []byte, r Row, cols []Column, fields []Field) []byte {
	b = append(b, r.Kind.ShortString()...)
	b = append(b, '[')
	for i, f := range r.Fields {
		if i > 0 {
			b = append(b, ", "...)
		}
		var t Type
		switch {
		case i < len(cols):
			t = cols[i].Type
		case i < len(fields):
			t = fields[i].Type
		}
		b = appendJava(b, f, t)
	}
	return append(b, ']')
}

// appendJava appends Java's toString of the external form of v.
func appendJava(b []byte, v any, t Type) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return append(b, x...)
	case bool:
		return strconv.AppendBool(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		if t.Kind == KindFloat {
			return appendJavaFloat(b, float64(float32(x)), 32)
		}
		return appendJavaFloat(b, x, 64)
	case Decimal:
		return appendBigDecimal(b, x, false)
	case []byte:
		// Arrays.toString(byte[]): signed decimal bytes.
		b = append(b, '[')
		for i, c := range x {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendInt(b, int64(int8(c)), 10)
		}
		return append(b, ']')
	case Date:
		return appendLocalDate(b, int64(x))
	case TimeOfDay:
		return appendLocalTime(b, int64(x))
	case LocalDateTime:
		days, nanos := splitEpoch(x.Millis, x.NanoOfMilli)
		b = appendLocalDate(b, days)
		b = append(b, 'T')
		return appendLocalTime(b, nanos)
	case Instant:
		return appendInstant(b, x)
	case Duration:
		return appendJavaDuration(b, int64(x))
	case Period:
		return appendJavaPeriod(b, int32(x))
	case Descriptor:
		return appendColumnList(b, x)
	case []any:
		return appendArray(b, x, t, appendJava)
	case *Map:
		if x == nil {
			return append(b, "null"...)
		}
		return appendMap(b, x, t, appendJava)
	case Row:
		return AppendJavaRow(b, x, nil, t.Fields)
	}
	return fmt.Append(b, v)
}

// appendArray appends [e1, e2] with each element printed by elem.
func appendArray(b []byte, x []any, t Type, elem func([]byte, any, Type) []byte) []byte {
	et := TypeOrZero(t.Elem)
	b = append(b, '[')
	for i, e := range x {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = elem(b, e, et)
	}
	return append(b, ']')
}

// appendMap appends {k1=v1, k2=v2} (Java's AbstractMap.toString) with keys
// and values printed by elem.
func appendMap(b []byte, x *Map, t Type, elem func([]byte, any, Type) []byte) []byte {
	kt, vt := TypeOrZero(t.Key), TypeOrZero(t.Elem)
	b = append(b, '{')
	for i, k := range x.Keys {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = elem(b, k, kt)
		b = append(b, '=')
		b = elem(b, mapValueAt(x, i), vt)
	}
	return append(b, '}')
}

// mapValueAt returns the value of entry i of m, nil if m.Values is short.
func mapValueAt(m *Map, i int) any {
	if i < len(m.Values) {
		return m.Values[i]
	}
	return nil
}

// appendCast appends CAST(v AS STRING) in printing mode; a nil v (nested
// NULL) is NULL.
func appendCast(b []byte, v any, t Type) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "NULL"...)
	case bool:
		if x {
			return append(b, "TRUE"...)
		}
		return append(b, "FALSE"...)
	case Decimal:
		return appendBigDecimal(b, x, true)
	case []byte:
		b = append(b, "x'"...)
		for _, c := range x {
			b = append(b, lowerHexDigits[c>>4], lowerHexDigits[c&0x0f])
		}
		return append(b, '\'')
	case Date:
		y, m, d := dateFromEpochDay(int64(x))
		return appendYMD(b, y, m, d)
	case TimeOfDay:
		p := 0
		if t.Kind == KindTime {
			p = t.Length
		}
		return appendCastTime(b, int64(x)/1e6, p)
	case LocalDateTime:
		return appendCastTimestamp(b, x.Millis, x.NanoOfMilli, timestampPrecision(t))
	case Instant:
		// The session time zone of ptfsh is UTC.
		return appendCastTimestamp(b, x.Millis, x.NanoOfMilli, timestampPrecision(t))
	case Duration:
		return appendCastDayTime(b, int64(x))
	case Period:
		return appendCastYearMonth(b, int64(x))
	case []any:
		return appendArray(b, x, t, appendCast)
	case *Map:
		if x == nil {
			return append(b, "NULL"...)
		}
		return appendMap(b, x, t, appendCast)
	case Row:
		return appendCastRow(b, x, t)
	}
	// Strings, numbers and descriptors print as Java's toString.
	return appendJava(b, v, t)
}

func appendCastRow(b []byte, r Row, t Type) []byte {
	b = append(b, '(')
	for i, f := range r.Fields {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendCast(b, f, rowFieldType(t, i))
	}
	return append(b, ')')
}

const lowerHexDigits = "0123456789abcdef"

// timestampPrecision returns the precision of a TIMESTAMP or TIMESTAMP_LTZ type,
// and 3 (ptfsh's usual precision) for any other type.
func timestampPrecision(t Type) int {
	if t.IsTime() {
		return t.Length
	}
	return 3
}

// ---- Java number formatting ----------------------------------------------

// appendJavaFloat appends Double.toString(f) (bits 64) or Float.toString(f)
// (bits 32) by the JDK 19+ rules: the shortest decimal that rounds to f,
// where a one-digit result competes with two-digit ones (so 4.9E-324, not
// 5.0E-324); plain notation for 10^-3 <= |f| < 10^7, else d.dddE±n; at
// least one digit after the point.
func appendJavaFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	var buf [32]byte
	digits, exp := floatDigits(buf[:0], f, -1, bits)
	if len(digits) == 1 {
		var buf2 [32]byte
		d2, e2 := floatDigits(buf2[:0], f, 1, bits)
		if roundTrips(d2, e2, f, bits) {
			digits, exp = d2, e2
			for len(digits) > 1 && digits[len(digits)-1] == '0' {
				digits = digits[:len(digits)-1]
			}
		}
	}
	if f >= 1e-3 && f < 1e7 {
		if exp < 0 {
			b = append(b, "0."...)
			for i := -1; i > exp; i-- {
				b = append(b, '0')
			}
			return append(b, digits...)
		}
		for i := 0; i <= exp; i++ {
			if i < len(digits) {
				b = append(b, digits[i])
			} else {
				b = append(b, '0')
			}
		}
		b = append(b, '.')
		if exp+1 < len(digits) {
			return append(b, digits[exp+1:]...)
		}
		return append(b, '0')
	}
	b = append(b, digits[0], '.')
	if len(digits) > 1 {
		b = append(b, digits[1:]...)
	} else {
		b = append(b, '0')
	}
	b = append(b, 'E')
	return strconv.AppendInt(b, int64(exp), 10)
}

// floatDigits returns the significant digits of f > 0 (no point) and the
// exponent x with f ≈ d.ddd × 10^x, formatted with prec digits after the
// first (-1: shortest). The digits live in buf.
func floatDigits(buf []byte, f float64, prec, bits int) ([]byte, int) {
	s := strconv.AppendFloat(buf, f, 'e', prec, bits)
	e := len(s) - 1
	for s[e] != 'e' {
		e--
	}
	exp, _ := strconv.Atoi(string(s[e+1:]))
	digits := s[:e]
	if len(digits) > 1 { // drop the point
		copy(digits[1:], digits[2:])
		digits = digits[:len(digits)-1]
	}
	return digits, exp
}

// roundTrips reports whether digits × 10^(exp-len+1) parses back to f.
func roundTrips(digits []byte, exp int, f float64, bits int) bool {
	s := string(digits) + "e" + strconv.Itoa(exp-len(digits)+1)
	g, err := strconv.ParseFloat(s, bits)
	return err == nil && g == f
}

// appendBigDecimal appends BigDecimal.toString (plain false) or
// toPlainString (plain true) of d. toString switches to E notation when the
// scale is negative or the adjusted exponent is below -6 (1E-7, 0E-10).
func appendBigDecimal(b []byte, d Decimal, plain bool) []byte {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	var buf [40]byte
	var coeff []byte
	if u.IsInt64() { // big.Int.Append allocates
		coeff = strconv.AppendInt(buf[:0], u.Int64(), 10)
	} else {
		coeff = u.Append(buf[:0], 10)
	}
	if coeff[0] == '-' {
		b = append(b, '-')
		coeff = coeff[1:]
	}
	scale := d.Scale
	adjusted := len(coeff) - 1 - scale
	if plain || (scale >= 0 && adjusted >= -6) {
		switch {
		case scale <= 0:
			b = append(b, coeff...)
			if plain && u.Sign() != 0 {
				for i := 0; i < -scale; i++ {
					b = append(b, '0')
				}
			}
			return b
		case len(coeff) > scale:
			b = append(b, coeff[:len(coeff)-scale]...)
			b = append(b, '.')
			return append(b, coeff[len(coeff)-scale:]...)
		default:
			b = append(b, "0."...)
			for i := len(coeff); i < scale; i++ {
				b = append(b, '0')
			}
			return append(b, coeff...)
		}
	}
	b = append(b, coeff[0])
	if len(coeff) > 1 {
		b = append(b, '.')
		b = append(b, coeff[1:]...)
	}
	b = append(b, 'E')
	if adjusted > 0 {
		b = append(b, '+')
	}
	return strconv.AppendInt(b, int64(adjusted), 10)
}

// AppendText appends the text of a non-nil value in CSV and JSON: numbers
// as Java prints them, DECIMAL plain, times in ISO-8601 with seconds always
// (2025-03-27T12:00:00, 2025-03-27T12:00:00Z), intervals as Java's Duration
// and Period, BYTES in base64, nested values as JSON.
func AppendText(b []byte, v any, t Type) []byte {
	switch x := v.(type) {
	case string:
		return append(b, x...)
	case []byte:
		return base64.StdEncoding.AppendEncode(b, x)
	case Decimal:
		return appendBigDecimal(b, x, true)
	case TimeOfDay:
		return appendISOTime(b, int64(x))
	case LocalDateTime:
		days, nanos := splitEpoch(x.Millis, x.NanoOfMilli)
		b = appendLocalDate(b, days)
		return appendISOTime(append(b, 'T'), nanos)
	case Instant:
		return appendInstant(b, x)
	case []any, *Map, Row, Descriptor:
		return AppendJSON(b, v, t)
	}
	return appendJava(b, v, t)
}

// ---- java.time formatting ------------------------------------------------

// appendColumnList appends ColumnList.toString: backquoted names (inner
// backquotes doubled, EncodingUtils.escapeIdentifier) in parentheses.
func appendColumnList(b []byte, names []string) []byte {
	b = append(b, '(')
	for i, n := range names {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '`')
		b = append(b, strings.ReplaceAll(n, "`", "``")...)
		b = append(b, '`')
	}
	return append(b, ')')
}

// ---- CAST to STRING of time values ---------------------------------------
