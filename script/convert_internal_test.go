package script

import (
	"math"
	"math/big"
	"reflect"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// testEngine returns a realm of a new Engine, where conversions run.
func testEngine(t testing.TB) *realm {
	t.Helper()
	e := NewEngine(Options{ParseType: ParseTypeForTest})
	t.Cleanup(func() { e.Close() })
	return e.newRealm()
}

func mustType(t testing.TB, s string) types.Type {
	t.Helper()
	typ, err := ParseTypeForTest(s)
	if err != nil {
		t.Fatalf("type %q: %v", s, err)
	}
	return typ
}

func dec(unscaled int64, scale int) types.Decimal {
	return types.Decimal{Unscaled: big.NewInt(unscaled), Scale: scale}
}

// TestConvert_roundTrip converts Go values to JS, checks what JS sees, and
// converts them back by the same type.
func TestConvert_roundTrip(t *testing.T) {
	tests := []struct {
		name  string
		typ   string
		value any
		check string // a JS expression over v that must be true
	}{
		{"null", "INT", nil, "v === null"},
		{"boolean", "BOOLEAN", true, "v === true"},
		{"tinyint", "TINYINT", int64(-128), "v === -128"},
		{"int", "INT", int64(42), "v === 42 && typeof v === 'number'"},
		{"bigint_safe", "BIGINT", int64(1) << 53, "typeof v === 'bigint' && v === 9007199254740992n"},
		{"bigint_max_safe", "BIGINT", int64(maxSafeInt), "v === Number.MAX_SAFE_INTEGER"},
		{"bigint_max", "BIGINT", int64(math.MaxInt64), "v === 9223372036854775807n"},
		{"bigint_min", "BIGINT", int64(math.MinInt64), "v === -9223372036854775808n"},
		{"double", "DOUBLE", 1.5, "v === 1.5"},
		{"float", "FLOAT", 0.25, "v === 0.25"},
		{"decimal", "DECIMAL(10, 2)", dec(1234, 2), "v === 12.34"},
		{"string", "STRING", "Bob", "v === 'Bob'"},
		{"unicode", "STRING", "Zoë 🎉", "v === 'Zoë 🎉' && v.length === 6"},
		{"varchar", "VARCHAR(5)", "", "v === ''"},
		{"bytes", "BYTES", []byte{1, 255}, "v instanceof Uint8Array && v.length === 2 && v[1] === 255"},
		{"date", "DATE", types.Date(20174), "v instanceof Date && v.toISOString() === '2025-03-27T00:00:00.000Z'"},
		{"date_before_epoch", "DATE", types.Date(-1), "v.toISOString() === '1969-12-31T00:00:00.000Z'"},
		{"time", "TIME(3)", types.TimeOfDay(3723004000000), "v === 3723004"},
		{"timestamp", "TIMESTAMP(3)", types.LocalDateTime{Millis: 1735693200000}, "v instanceof Date && v.getTime() === 1735693200000"},
		{"timestamp_ltz", "TIMESTAMP_LTZ(3)", types.Instant{Millis: -1}, "v.toISOString() === '1969-12-31T23:59:59.999Z'"},
		{"interval_day", "INTERVAL DAY TO SECOND", types.Duration(1000), "v === 1000"},
		{"interval_year", "INTERVAL YEAR TO MONTH", types.Period(14), "v === 14"},
		{"array", "ARRAY<INT>", []any{int64(1), nil, int64(3)}, "Array.isArray(v) && v.length === 3 && v[1] === null"},
		{"array_of_strings", "ARRAY<STRING>", []any{"a", "b"}, "v.join() === 'a,b'"},
		{"map", "MAP<STRING, INT>", &types.Map{Keys: []any{"A", "B"}, Values: []any{int64(1), nil}},
			"v instanceof Map && v.get('A') === 1 && v.get('B') === null && [...v.keys()].join() === 'A,B'"},
		{"map_int_keys", "MAP<BIGINT, INT>", &types.Map{Keys: []any{int64(7)}, Values: []any{int64(1)}}, "v.get(7) === 1"},
		{"row", "ROW<name STRING, score INT>", types.Row{Fields: []any{"Bob", int64(12)}},
			"v.name === 'Bob' && v.score === 12 && v.getField(1) === 12 && v.getArity() === 2 && String(v) === '+I[Bob, 12]'"},
		{"nested_row", "ROW<r ROW<b BOOLEAN, s STRING>, a ARRAY<ROW<x INT>>>",
			types.Row{Fields: []any{types.Row{Fields: []any{true, "s"}}, []any{types.Row{Fields: []any{int64(1)}}}}},
			"v.r.b === true && v.a[0].x === 1 && v.r === v.r"},
		{"descriptor", "DESCRIPTOR", types.Descriptor{"a", "b"}, "Array.isArray(v) && v.join() === 'a,b'"},
	}
	e := testEngine(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			typ := mustType(t, tc.typ)
			v := e.toJS(tc.value, &typ)
			if err := e.vm.Set("v", v); err != nil {
				t.Fatal(err)
			}
			ok, err := e.vm.RunString(tc.check)
			if err != nil {
				t.Fatal(err)
			}
			if !ok.ToBoolean() {
				t.Errorf("%s is false for v = %s", tc.check, e.formatJS(v))
			}
			back, cerr := e.fromJS(v, &typ)
			if cerr != nil {
				t.Fatalf("back: %v", cerr)
			}
			if !reflect.DeepEqual(back, tc.value) {
				t.Errorf("round trip: got %#v, want %#v", back, tc.value)
			}
		})
	}
}

// TestConvert_fromJS converts JS values to Go by a target type.
func TestConvert_fromJS(t *testing.T) {
	tests := []struct {
		name string
		typ  string
		js   string
		want any
		err  string
	}{
		{"undefined_is_null", "STRING", "undefined", nil, ""},
		{"int_from_integral_double", "BIGINT", "6 / 2", int64(3), ""},
		{"bigint_literal", "BIGINT", "123n", int64(123), ""},
		{"double_from_int", "DOUBLE", "3", 3.0, ""},
		{"decimal_round", "DECIMAL(6, 2)", "1.005 * 1000", dec(100500, 2), ""},
		{"decimal_string", "DECIMAL(20, 3)", "'12345678901234567.891'", types.Decimal{Unscaled: mustBig("12345678901234567891"), Scale: 3}, ""},
		{"decimal_half_up", "DECIMAL(4, 1)", "2.25", dec(23, 1), ""},
		{"date_from_number", "DATE", "86400000 * 2 + 5", types.Date(2), ""},
		{"timestamp_from_number", "TIMESTAMP_LTZ(3)", "1.5", types.Instant{Millis: 1, NanoOfMilli: 500000}, ""},
		{"timestamp_from_date", "TIMESTAMP(3)", "new Date(Date.UTC(2025, 0, 1, 1))", types.LocalDateTime{Millis: 1735693200000}, ""},
		{"row_from_array", "ROW<a INT, b STRING>", "[1, 'x']", types.Row{Fields: []any{int64(1), "x"}}, ""},
		{"row_from_object_missing", "ROW<a INT, b STRING>", "({ b: 'x' })", types.Row{Fields: []any{nil, "x"}}, ""},
		{"map_from_object", "MAP<STRING, INT>", "({ A: 1 })", &types.Map{Keys: []any{"A"}, Values: []any{int64(1)}}, ""},
		{"bytes_from_buffer", "BYTES", "new Uint8Array([1, 2]).buffer", []byte{1, 2}, ""},
		{"descriptor", "DESCRIPTOR", "['a']", types.Descriptor{"a"}, ""},

		{"string_as_bigint", "BIGINT", "'abc'", nil, `cannot use "abc" (string)`},
		{"fraction_as_int", "INT", "1.5", nil, `cannot use 1.5 (number)`},
		{"int_out_of_range", "INT", "2 ** 31", nil, `cannot use 2147483648 (number): out of range`},
		{"tinyint_out_of_range", "TINYINT", "200", nil, `cannot use 200 (number): out of range`},
		{"number_as_string", "STRING", "5", nil, `cannot use 5 (number)`},
		{"null_not_null", "INT NOT NULL", "null", nil, `cannot use null`},
		{"object_as_int", "INT", "({})", nil, `cannot use [object Object] (object)`},
		{"date_as_string", "STRING", "new Date(0)", nil, `cannot use [object Date] (object)`},
		{"nested_path", "ROW<r ROW<b BOOLEAN>>", "({ r: { b: 'yes' } })", nil, `field "r": field "b": cannot use "yes" (string) as BOOLEAN`},
		{"array_elem", "ARRAY<INT>", "[1, 'x']", nil, `[1]: cannot use "x" (string) as INT`},
		{"map_value", "MAP<STRING, INT>", "new Map([['k', true]])", nil, `[k]: cannot use true (boolean) as INT`},
		{"row_arity", "ROW<a INT>", "[1, 2]", nil, `cannot use [object Array] (object): 2 values for 1 fields`},
		{"decimal_overflow", "DECIMAL(3, 1)", "1000", nil, `cannot use 1000 (number)`},
		{"invalid_date", "TIMESTAMP(3)", "new Date(NaN)", nil, `cannot use [object Date] (object): invalid Date`},
		{"map_object_int_keys", "MAP<INT, INT>", "({ 1: 1 })", nil, `cannot use [object Object] (object)`},
	}
	e := testEngine(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			typ := mustType(t, tc.typ)
			v, err := e.vm.RunString(tc.js)
			if err != nil {
				t.Fatal(err)
			}
			got, cerr := e.fromJS(v, &typ)
			if tc.err != "" {
				if cerr == nil || cerr.Error() != tc.err {
					t.Errorf("error = %v, want %s", cerr, tc.err)
				}
				return
			}
			if cerr != nil {
				t.Fatal(cerr)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func mustBig(s string) *big.Int {
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return b
}

func TestEngine_str_interns(t *testing.T) {
	e := testEngine(t)
	a, b := e.str("Bob"), e.str(string([]byte("Bob")))
	if a != b {
		t.Error("the same string converted twice is not interned")
	}
	long := string(make([]byte, stringCacheMaxLen+1))
	if e.str(long) == e.str(long) {
		t.Error("long strings are interned")
	}
}

func TestTime_conversions(t *testing.T) {
	e := testEngine(t)
	in := &instance{e: e}
	for _, tc := range []struct {
		ms   int64
		want string
	}{
		{0, "0"}, {-1, "-1"}, {1735693200000, "1735693200000"},
		{math.MaxInt64, "9007199254740991"}, {math.MinInt64, "-9007199254740991"},
	} {
		if got := timeToJS(e.vm, tc.ms).String(); got != tc.want {
			t.Errorf("timeToJS(%d) = %s, want %s", tc.ms, got, tc.want)
		}
	}
	for _, tc := range []struct {
		js   string
		want int64
	}{
		{"5", 5}, {"5.9", 5}, {"-0.5", -1}, {"new Date(7)", 7}, {"7n", 7},
		{"Number.MAX_SAFE_INTEGER", math.MaxInt64}, {"Infinity", math.MaxInt64},
		{"-Number.MAX_SAFE_INTEGER", math.MinInt64}, {"2n ** 70n", math.MaxInt64},
	} {
		v, err := e.vm.RunString(tc.js)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.timeArg("t", v); got != tc.want {
			t.Errorf("timeArg(%s) = %d, want %d", tc.js, got, tc.want)
		}
	}
}

// TestConvert_intsWithoutAllocation: an integer of a row or of state goes
// to JavaScript and back to Go with no allocation when it is small (the
// shared tables of smallint.go), and keeps its value past them.
func TestConvert_intsWithoutAllocation(t *testing.T) {
	e := testEngine(t)
	bigint := mustType(t, "BIGINT")
	for _, i := range []int64{0, 255, 683, smallIntCount - 1, smallIntCount, -1, -5, smallIntMin, smallIntMin - 1, 1 << 40, -1 << 40} {
		back, cerr := e.fromJS(e.intToJS(i), &bigint)
		if cerr != nil || back != i {
			t.Errorf("%d came back as %v (%v)", i, back, cerr)
		}
	}
	for _, v := range []int64{683, -5, -700} {
		allocs := testing.AllocsPerRun(100, func() {
			if x, cerr := e.fromJS(e.intToJS(v), &bigint); cerr != nil || x != any(v) {
				t.Fatalf("%d came back as %v", v, x)
			}
		})
		if allocs != 0 {
			t.Errorf("%d to JavaScript and back: %v allocations, want 0", v, allocs)
		}
	}
	tinyint := mustType(t, "TINYINT")
	if _, cerr := e.fromJS(e.intToJS(683), &tinyint); cerr == nil {
		t.Error("683 as TINYINT: no out-of-range error")
	}
}

// TestConvert_rowStringsWithoutAllocation: a string that came from a row
// (realm.str) goes back to Go boxed once, not at every row; one made in
// JavaScript converts as any other string does.
func TestConvert_rowStringsWithoutAllocation(t *testing.T) {
	e := testEngine(t)
	varchar := mustType(t, "STRING")
	v := e.str("user42")
	allocs := testing.AllocsPerRun(100, func() {
		if x, cerr := e.fromJS(v, &varchar); cerr != nil || x != any("user42") {
			t.Fatalf("user42 came back as %v", x)
		}
	})
	if allocs != 0 {
		t.Errorf("a row's string back to Go: %v allocations, want 0", allocs)
	}
	made, err := e.vm.RunString(`"ü" + "ser" + 42`)
	if err != nil {
		t.Fatal(err)
	}
	if x, cerr := e.fromJS(made, &varchar); cerr != nil || x != any("üser42") {
		t.Errorf("a string made in JavaScript came back as %v (%v)", x, cerr)
	}
}
