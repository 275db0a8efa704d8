package expr_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Every function of the catalogue, called with every combination of up to
// three arguments of assorted types (NULL among them), either evaluates or
// is an error at the call's position that names the function: bad input
// never panics, and a NULL argument gives NULL or a value, never a crash.
func TestFunctions_anyArguments(t *testing.T) {
	values := []string{"NULL", "CAST(NULL AS INT)", "-7", "2.5", "1.5E0", "'a_b c'", "''", "TRUE",
		"DATE '2024-02-29'", "TIMESTAMP '2024-03-15 10:20:30.123'", "TIME '10:20:30'", "INTERVAL '1' DAY", "ARRAY[1]"}
	var arglists [][]string
	arglists = append(arglists, nil)
	for _, a := range values {
		arglists = append(arglists, []string{a})
		for _, b := range values {
			arglists = append(arglists, []string{a, b})
		}
	}
	for _, a := range []string{"'x'", "NULL", "3"} {
		for _, b := range values {
			for _, c := range []string{"2", "'y'", "NULL"} {
				arglists = append(arglists, []string{a, b, c})
			}
		}
	}
	for _, f := range expr.Functions() {
		for _, args := range arglists {
			if f.TakesUnit() && len(args) > 0 {
				args = append([]string{"DAY"}, args...)
			}
			src := f.Name + "(" + strings.Join(args, ", ") + ")"
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s panics: %v", src, r)
					}
				}()
				x, err := sqlmini.ParseExpr(src)
				if err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				c, err := expr.Compile(x, nil)
				if err != nil {
					var pe *types.Error
					if !errors.As(err, &pe) || pe.Pos.Line != 1 {
						t.Fatalf("%s: error %q has no position", src, err)
					}
					return
				}
				v, err := c.Eval(nil)
				if err == nil && v == nil && c.Type().NotNull {
					t.Errorf("%s is NULL, but its type is %s", src, c.Type())
				}
			}()
		}
	}
}

// Three-valued logic, column by column: AND, OR, NOT, BETWEEN, IN and
// LIKE over NULL give Flink's answers (its truth tables).
func TestThreeValuedLogic(t *testing.T) {
	sc := &expr.Scope{Schema: types.Schema{Columns: []types.Column{
		{Name: "t", Type: types.TypeBoolean}, {Name: "f", Type: types.TypeBoolean}, {Name: "u", Type: types.TypeBoolean},
		{Name: "n", Type: types.TypeInt}, {Name: "s", Type: types.TypeString}}}}
	row := []any{true, false, nil, nil, nil}
	for src, want := range map[string]any{
		"t AND u": nil, "f AND u": false, "t OR u": true, "f OR u": nil, "NOT u": nil,
		"u IS UNKNOWN": true, "u IS NOT TRUE": true, "u IS FALSE": false,
		"n BETWEEN 1 AND 2": nil, "1 BETWEEN n AND 0": false, "1 BETWEEN 0 AND n": nil,
		"1 IN (2, n)": nil, "1 IN (1, n)": true, "n IN (1, 2)": nil, "1 NOT IN (2, n)": nil,
		"s LIKE 'a%'": nil, "'a' LIKE s": nil, "COALESCE(n, 7) = 7": true, "NULLIF(n, 1) IS NULL": true,
		"CASE WHEN u THEN 1 ELSE 2 END = 2": true, "IF(u, 1, 2) = 2": true, "n + 1 IS NULL": true,
		"s || 'x' IS NULL": true, "CONCAT_WS('-', s, 'a') = 'a'": true,
	} {
		got, err := compileIn(t, sc, src).Eval(row)
		if err != nil || got != want {
			t.Errorf("%s = %v (%v), want %v", src, got, err, want)
		}
	}
}

// The clock of CURRENT_TIMESTAMP is the scope's, read for each row.
func TestCurrentTimestamp_scopeClock(t *testing.T) {
	now := int64(1743077130123) // 2025-03-27 12:05:30.123 UTC
	sc := &expr.Scope{Now: func() int64 { return now }}
	for src, want := range map[string]string{
		"CURRENT_TIMESTAMP": "2025-03-27T12:05:30.123Z", "LOCALTIMESTAMP": "2025-03-27T12:05:30.123",
		"CURRENT_DATE": "2025-03-27", "CURRENT_TIME": "12:05:30", "UNIX_TIMESTAMP()": "1743077130",
		"EXTRACT(HOUR FROM NOW())": "12",
	} {
		c := compileIn(t, sc, src)
		if c.IsConstant() {
			t.Errorf("%s is folded as a constant; the clock moves", src)
		}
		v, err := c.Eval(nil)
		if got := types.FormatValue(v, c.Type()); err != nil || got != want {
			t.Errorf("%s = %s (%v), want %s", src, got, err, want)
		}
	}
	now += 86_400_000
	x, _ := sqlmini.ParseExpr("CURRENT_DATE")
	c, _ := expr.Compile(x, sc)
	if v, _ := c.Eval(nil); types.FormatValue(v, c.Type()) != "2025-03-28" {
		t.Errorf("CURRENT_DATE did not follow the clock: %v", v)
	}
}

// The keyword forms of calls, well and badly formed, parse, compile and
// evaluate or give a positioned error; none panics.
func TestFunctions_keywordForms(t *testing.T) {
	for _, src := range []string{
		"EXTRACT(YEAR FROM DATE '2024-01-01')", "EXTRACT(FROM DATE '2024-01-01')", "EXTRACT(YEAR, DATE '2024-01-01')",
		"EXTRACT(YEAR FROM 1)", "EXTRACT(HOUR FROM DATE '2024-01-01')", "EXTRACT(YEAR FROM TIME '10:00:00')", "EXTRACT(1 FROM 2)",
		"SUBSTRING(FROM 1)", "SUBSTRING('abc' FROM 2 FOR 1)", "SUBSTRING('abc', 'x')", "SUBSTRING('abc' FOR 1)",
		"TRIM(FROM 'x')", "TRIM(BOTH FROM 'x')", "TRIM(TRAILING 'a', 'b' FROM 'x')", "TRIM('a' FROM 1)", "LTRIM(LEADING 'x')",
		"POSITION(IN 'x')", "POSITION('a' IN 'abc')", "POSITION('a', 'b' IN 'c')", "LOCATE('a' IN 'b')",
		"FLOOR(TO DAY)", "FLOOR(1 TO DAY)", "CEIL(TIMESTAMP '2024-01-01 00:00:00' TO FORTNIGHT)", "CEIL(TIME '10:00:00' TO DAY)",
		"TIMESTAMPADD()", "TIMESTAMPADD(DAY)", "TIMESTAMPADD(1, 2, 3)", "TIMESTAMPDIFF(DAY, 1, 2)", "TIMESTAMPADD(HOUR, 1, TIME '10:00:00')",
		"COUNT(*)", "UPPER(*)", "UPPER(DISTINCT 'a')", "ABS(LEADING 1)", "NOW(1)", "PI(1)", "ROUND(1.5, 'x')", "ROUND(1.5, 1 + 1)",
		"CURRENT_TIMESTAMP()", "TO_TIMESTAMP_LTZ(1, 2)", "TO_TIMESTAMP_LTZ('x')", "DATE_FORMAT(1, 'x')", "FROM_UNIXTIME('x')",
		"CASE WHEN 1 THEN 2 END", "CASE 1 WHEN 'a' THEN 2 END", "CASE WHEN TRUE THEN 1 ELSE DATE '2024-01-01' END",
		"1 BETWEEN 'a' AND 2", "'a' LIKE 1", "'a' LIKE 'a' ESCAPE 'xy'", "'a' LIKE 'a!' ESCAPE '!'", "1 IS TRUE",
		"TRY_CAST('x' AS INT)", "CAST(DATE '2024-01-01' AS INT)", "CAST(TIME '10:00:00' AS STRING)",
		"DATE '2024-01-01' + INTERVAL '1' MONTH", "INTERVAL '1' DAY + DATE '2024-01-01'", "DATE '2024-01-01' - 1",
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s panics: %v", src, r)
				}
			}()
			x, err := sqlmini.ParseExpr(src)
			if err == nil {
				var c expr.Expr
				if c, err = expr.Compile(x, nil); err == nil {
					_, err = c.Eval(nil)
				}
			}
			var pe *types.Error
			if err != nil && (!errors.As(err, &pe) || pe.Pos.Line != 1) {
				t.Errorf("%s: error %q has no position", src, err)
			}
		}()
	}
}

// Time arithmetic whose result is out of its type's range is an error
// that says so, never a time that wrapped around (an int64 of
// milliseconds, an int32 of days), and an exact result within the range
// is exact.
func TestFunctions_timeOverflow(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"TIMESTAMPADD(DAY, 2147483647, DATE '2000-01-01')", "!TIMESTAMPADD: 2147483647 DAY from 2000-01-01: the result is out of the range of DATE"},
		{"TIMESTAMPADD(DAY, 9223372036854775807, TIMESTAMP '2000-01-01 00:00:00')", "!the result is out of the range of TIMESTAMP"},
		{"TIMESTAMPADD(WEEK, 9223372036854775807, TIMESTAMP '2000-01-01 00:00:00')", "!the result is out of the range of TIMESTAMP"},
		{"TIMESTAMPADD(SECOND, 9223372036854775807, TIMESTAMP '2000-01-01 00:00:00')", "!the result is out of the range of TIMESTAMP"},
		{"TIMESTAMPADD(MONTH, 9223372036854775807, TIMESTAMP '2000-01-01 00:00:00')", "!the result is out of the range of TIMESTAMP"},
		{"TIMESTAMPADD(YEAR, -300000000, TO_TIMESTAMP_LTZ(0, 3))", "!the result is out of the range of TIMESTAMP_LTZ"},
		{"TIMESTAMPADD(HOUR, 2147483647, TIMESTAMP '2000-01-01 00:00:00')", "+246983-10-09T07:00"},
		{"TIMESTAMPADD(HOUR, -2147483648, TIMESTAMP '2000-01-01 00:00:00')", "-242984-03-24T16:00"},
		{"TIMESTAMPADD(SECOND, 2147483647, TIMESTAMP '2000-01-01 00:00:00')", "2068-01-19T03:14:07"},
		{"CAST(TIMESTAMPADD(YEAR, 290000000, TIMESTAMP '2000-01-01 00:00:00') AS DATE)", "!cannot cast +290002000-01-01T00:00 to DATE: the result is out of the range of DATE"},
		{"TIMESTAMPADD(YEAR, 292276994, TIMESTAMP '2000-08-01 00:00:00') + INTERVAL '99' DAY", "!the result is out of the range of TIMESTAMP"},
		{"TIMESTAMPADD(YEAR, -292277055, TIMESTAMP '2000-06-01 00:00:00') - INTERVAL '99' DAY", "!the result is out of the range of TIMESTAMP"},
		{"CAST(9223372036854775807 AS TIMESTAMP_LTZ(3))", "!epoch milliseconds out of the range of a timestamp"},
		{"FROM_UNIXTIME(9223372036854775807)", "null"},
		{"FROM_UNIXTIME(-9223372036854775808)", "null"},
		{"TIMESTAMPDIFF(HOUR, TIMESTAMP '0001-01-01 00:00:00', TIMESTAMP '9999-12-31 23:59:59')", "87649415"},
		{"TIMESTAMPDIFF(SECOND, TO_TIMESTAMP_LTZ(0, 3), TO_TIMESTAMP_LTZ(253402300799999, 3))", "-769665"},
		{"TO_TIMESTAMP_LTZ(CAST(1e10 AS DOUBLE), 0)", "2286-11-20T17:46:40Z"},
		{"TO_TIMESTAMP_LTZ(CAST('-1.5' AS DECIMAL(10, 1)), 0)", "1969-12-31T23:59:58Z"},
		{"TO_TIMESTAMP_LTZ(CAST('99999999999999999999' AS DECIMAL(38, 0)), 3)", "null"},
		{"TO_TIMESTAMP_LTZ(CAST('18446744073709551617' AS DECIMAL(38, 0)), 0)", "null"},
	} {
		x, err := sqlmini.ParseExpr(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		c, err := expr.Compile(x, nil)
		if err == nil {
			var v any
			if v, err = c.Eval(nil); err == nil {
				got = types.FormatValue(v, c.Type())
			}
		}
		if err != nil {
			got = "!" + err.Error()
		}
		if !strings.HasPrefix(tt.want, "!") && got != tt.want || strings.HasPrefix(tt.want, "!") && !strings.Contains(got, tt.want[1:]) {
			t.Errorf("%s = %s, want %s", tt.src, got, tt.want)
		}
	}
}

// TestIntegerCastOperand: CAST(x AS BIGINT) of an integer x gives x, whose
// value it is, to an operator that reads x instead; no other cast does.
func TestIntegerCastOperand(t *testing.T) {
	sc := &expr.Scope{Schema: types.Schema{Columns: []types.Column{
		{Name: "i", Type: types.TypeInt}, {Name: "b", Type: types.TypeBigInt},
		{Name: "d", Type: types.TypeDouble}, {Name: "s", Type: types.TypeString}}}}
	for src, want := range map[string]int{ // the column read, -1 none
		"CAST(i AS BIGINT)": 0, "TRY_CAST(i AS BIGINT)": 0, "CAST(b AS BIGINT)": 1,
		"CAST(d AS BIGINT)": -1, "CAST(s AS BIGINT)": -1, "CAST(i AS INT)": -1, "CAST(b AS INT)": -1,
		"CAST(i AS DOUBLE)": -1, "i": -1, "CAST(i + 1 AS BIGINT)": -2, // -2: an operand, not a column
	} {
		c := compileIn(t, sc, src)
		got := -1
		if op, ok := expr.IntegerCastOperand(c); ok {
			got = -2
			if col, ok := op.(*expr.Column); ok {
				got = col.Index
			}
			for _, row := range [][]any{{int64(7), int64(1) << 40, 2.5, "3"}, {nil, nil, nil, nil}} {
				v1, err1 := c.Eval(row)
				v2, err2 := op.Eval(row)
				if v1 != v2 || err1 != nil || err2 != nil {
					t.Errorf("%s over %v: %v (%v), its operand %v (%v)", src, row, v1, err1, v2, err2)
				}
			}
		}
		if got != want {
			t.Errorf("%s: operand %d, want %d", src, got, want)
		}
	}
}

// TestCompare_intColumn: an integer column compared with an integer
// constant gives what the general comparison gives, NULL included.
func TestCompare_intColumn(t *testing.T) {
	sc := &expr.Scope{Schema: types.Schema{Columns: []types.Column{
		{Name: "i", Type: types.TypeInt}, {Name: "b", Type: types.TypeBigInt}}}}
	for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
		for _, k := range []string{"15", "-3", "CAST(NULL AS INT)"} {
			src := "i " + op + " " + k
			c := compileIn(t, sc, src)
			// The same comparison the general way: i + 0 is no column.
			g := compileIn(t, sc, "i + 0 "+op+" "+k)
			for _, v := range []any{int64(-4), int64(-3), int64(0), int64(15), int64(16), nil} {
				row := []any{v, nil}
				got, err1 := c.Eval(row)
				want, err2 := g.Eval(row)
				if got != want || err1 != nil || err2 != nil {
					t.Errorf("%s with i = %v: %v (%v), want %v (%v)", src, v, got, err1, want, err2)
				}
			}
		}
	}
}

// compileIn compiles the expression src over sc's columns.
func compileIn(t *testing.T, sc *expr.Scope, src string) expr.Expr {
	t.Helper()
	x, err := sqlmini.ParseExpr(src)
	if err != nil {
		t.Fatal(err)
	}
	c, err := expr.Compile(x, sc)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return c
}
