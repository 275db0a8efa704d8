package orderedcode_test

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/internal/orderedcode"
)

// A tuple's elements are nil (null), bool, int64, uint64, float64, string
// or []byte.
type tuple []any

func encode(t testing.TB, tup tuple) []byte {
	var b []byte
	for _, v := range tup {
		switch v := v.(type) {
		case nil:
			b = orderedcode.AppendNull(b)
		case bool:
			b = orderedcode.AppendBool(b, v)
		case int64:
			b = orderedcode.AppendInt64(b, v)
		case uint64:
			b = orderedcode.AppendUint64(b, v)
		case float64:
			b = orderedcode.AppendFloat64(b, v)
		case string:
			b = orderedcode.AppendString(b, v)
		case []byte:
			b = orderedcode.AppendBytes(b, v)
		default:
			t.Fatalf("cannot encode %T", v)
		}
	}
	return b
}

// decode reads a whole key back, using Peek to find each element's kind.
func decode(b []byte) (tuple, error) {
	var tup tuple
	d := orderedcode.NewDecoder(b)
	for !d.Done() {
		var v any
		var err error
		switch k := d.Peek(); k {
		case orderedcode.KindNull:
			d.Null()
		case orderedcode.KindBool:
			v, err = d.Bool()
		case orderedcode.KindInt64:
			v, err = d.Int64()
		case orderedcode.KindUint64:
			v, err = d.Uint64()
		case orderedcode.KindFloat64:
			v, err = d.Float64()
		case orderedcode.KindString:
			v, err = d.String()
		case orderedcode.KindBytes:
			v, err = d.Bytes()
		default:
			err = d.Skip()
			if err == nil {
				return nil, fmt.Errorf("Skip accepted an element of kind %v", k)
			}
		}
		if err != nil {
			return tup, err
		}
		tup = append(tup, v)
	}
	return tup, nil
}

// compareValues orders two elements of the same kind naturally; a null sorts
// first.
func compareValues(a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	switch a := a.(type) {
	case bool:
		b := b.(bool)
		if a == b {
			return 0
		} else if !a {
			return -1
		}
		return 1
	case int64:
		return cmp.Compare(a, b.(int64))
	case uint64:
		return cmp.Compare(a, b.(uint64))
	case float64:
		b := b.(float64)
		if c := cmp.Compare(a, b); c != 0 || a != 0 {
			return c // cmp.Compare puts NaN first; callers avoid mixing NaN in
		}
		switch sa, sb := math.Signbit(a), math.Signbit(b); {
		case sa == sb:
			return 0
		case sa:
			return -1 // -0 < +0
		}
		return 1
	case string:
		return strings.Compare(a, b.(string))
	case []byte:
		return bytes.Compare(a, b.([]byte))
	}
	panic(fmt.Sprintf("compareValues: %T", a))
}

func compareTuples(a, b tuple) int {
	for i := range min(len(a), len(b)) {
		if c := compareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func TestEncode_roundTrip(t *testing.T) {
	tests := []struct {
		name string
		tup  tuple
	}{
		{"empty", tuple{}},
		{"null", tuple{nil}},
		{"bools", tuple{false, true}},
		{"int64 limits", tuple{int64(math.MinInt64), int64(-1), int64(0), int64(1), int64(math.MaxInt64)}},
		{"uint64 limits", tuple{uint64(0), uint64(1), uint64(math.MaxUint64)}},
		{"floats", tuple{-math.MaxFloat64, -1.5, math.Copysign(0, -1), 0.0, math.SmallestNonzeroFloat64, 3.25, math.Inf(1), math.Inf(-1)}},
		{"empty string and bytes", tuple{"", []byte{}}},
		{"strings with escapes", tuple{"\x00", "a\x00b", "\x00\x00", "\xff\x00\x01", "\x01", "日本"}},
		{"bytes with escapes", tuple{[]byte{0, 0xff, 0, 1}, []byte{0xff}, []byte{1, 0}}},
		{"mixed", tuple{"uid-1", nil, int64(-7), "timer", uint64(9), true, 2.5, []byte("k\x00")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := encode(t, tt.tup)
			got, err := decode(b)
			if err != nil {
				t.Fatalf("decode(%x): %v", b, err)
			}
			if len(tt.tup) == 0 {
				tt.tup = nil
			}
			if diff := gocmp.Diff(tt.tup, got, gocmp.Comparer(func(a, b float64) bool {
				return math.Float64bits(a) == math.Float64bits(b)
			})); diff != "" {
				t.Errorf("round trip of %x (-want +got):\n%s", b, diff)
			}
		})
	}
}

func TestEncode_NaN(t *testing.T) {
	for _, nan := range []float64{math.NaN(), -math.NaN(), math.Float64frombits(0x7ff0000000000001)} {
		b := orderedcode.AppendFloat64(nil, nan)
		if !bytes.Equal(b, orderedcode.AppendFloat64(nil, math.NaN())) {
			t.Errorf("NaN %x encodes as %x, not as the canonical NaN", math.Float64bits(nan), b)
		}
		if !(bytes.Compare(b, orderedcode.AppendFloat64(nil, math.Inf(1))) > 0) {
			t.Errorf("NaN does not sort after +Inf")
		}
		if got, err := orderedcode.NewDecoder(b).Float64(); err != nil || !math.IsNaN(got) {
			t.Errorf("decoding NaN = %v, %v", got, err)
		}
	}
}

func TestEncode_order(t *testing.T) {
	tests := []struct {
		name string
		a, b tuple // a < b
	}{
		{"null before int", tuple{nil}, tuple{int64(math.MinInt64)}},
		{"null before string", tuple{nil}, tuple{""}},
		{"false before true", tuple{false}, tuple{true}},
		{"negative before positive", tuple{int64(-1)}, tuple{int64(0)}},
		{"int64 min before -1", tuple{int64(math.MinInt64)}, tuple{int64(-1)}},
		{"int64 255 before 256", tuple{int64(255)}, tuple{int64(256)}},
		{"uint64 big", tuple{uint64(1 << 63)}, tuple{uint64(math.MaxUint64)}},
		{"-Inf before -1", tuple{math.Inf(-1)}, tuple{-1.0}},
		{"-2 before -1", tuple{-2.0}, tuple{-1.0}},
		{"-0 before +0", tuple{math.Copysign(0, -1)}, tuple{0.0}},
		{"tiny before 1", tuple{math.SmallestNonzeroFloat64}, tuple{1.0}},
		{"1 before +Inf", tuple{1.0}, tuple{math.Inf(1)}},
		{"empty string first", tuple{""}, tuple{"\x00"}},
		{"string prefix first", tuple{"ab"}, tuple{"abc"}},
		{"ab before ab\\x00", tuple{"ab"}, tuple{"ab\x00"}},
		{"ab\\x00 before ab\\x01", tuple{"ab\x00"}, tuple{"ab\x01"}},
		{"ab\\x00\\xff before ab\\x01", tuple{"ab\x00\xff"}, tuple{"ab\x01"}},
		{"\\xff\\xff last", tuple{"\xff"}, tuple{"\xff\xff"}},
		{"shorter string first whatever follows", tuple{"a", int64(math.MaxInt64)}, tuple{"a\x00", int64(math.MinInt64)}},
		{"shorter string before \\x00, then bytes", tuple{"a", "\xff"}, tuple{"a\x00", ""}},
		{"second element decides", tuple{"user", int64(5)}, tuple{"user", int64(6)}},
		{"tuple prefix first", tuple{"user"}, tuple{"user", nil}},
		{"bytes with zeros", tuple{[]byte{0, 0}}, tuple{[]byte{0, 1}}},
		{"null second element first", tuple{int64(1), nil}, tuple{int64(1), false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if compareTuples(tt.a, tt.b) >= 0 {
				t.Fatalf("bad test: %v is not below %v", tt.a, tt.b)
			}
			ea, eb := encode(t, tt.a), encode(t, tt.b)
			if bytes.Compare(ea, eb) >= 0 {
				t.Errorf("encode(%q) = %x is not below encode(%q) = %x", tt.a, ea, tt.b, eb)
			}
		})
	}
}

// TestEncode_orderRandom sorts random tuples of one shape both ways.
func TestEncode_orderRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 42))
	alphabet := []byte{0x00, 0x01, 'a', 'b', 0xfe, 0xff}
	randBytes := func() []byte {
		b := make([]byte, r.IntN(4))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return b
	}
	floats := []float64{math.Inf(-1), -1e300, -2, -1, -0.5, math.Copysign(0, -1), 0, 1e-300, 0.5, 1, 2, 1e300, math.Inf(1)}
	gen := func() tuple {
		tup := tuple{string(randBytes()), int64(r.IntN(7) - 3), randBytes(), floats[r.IntN(len(floats))], uint64(r.IntN(3)), r.IntN(2) == 0}
		if r.IntN(4) == 0 {
			tup[1] = nil
		}
		return tup[:1+r.IntN(len(tup))]
	}
	tuples := make([]tuple, 2000)
	for i := range tuples {
		tuples[i] = gen()
	}
	natural := slices.Clone(tuples)
	slices.SortStableFunc(natural, compareTuples)
	byKey := slices.Clone(tuples)
	slices.SortStableFunc(byKey, func(a, b tuple) int { return bytes.Compare(encode(t, a), encode(t, b)) })
	for i := range natural {
		if compareTuples(natural[i], byKey[i]) != 0 {
			t.Fatalf("position %d: natural order has %q, key order %q", i, natural[i], byKey[i])
		}
	}
	// Every tuple's encoding is a prefix of its extensions'.
	for _, tup := range tuples {
		for n := range len(tup) {
			if !bytes.HasPrefix(encode(t, tup), encode(t, tup[:n])) {
				t.Fatalf("encode(%q) does not start with encode(%q)", tup, tup[:n])
			}
		}
	}
}

func TestDecoder_errors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		read func(d *orderedcode.Decoder) error
		want string
	}{
		{"end", nil, func(d *orderedcode.Decoder) error { _, err := d.Int64(); return err }, "offset 0: want int64, found end of key"},
		{"wrong kind", orderedcode.AppendString(nil, "x"), func(d *orderedcode.Decoder) error { _, err := d.Int64(); return err }, "want int64, found string"},
		{"bad tag", []byte{0x7f}, func(d *orderedcode.Decoder) error { _, err := d.Bool(); return err }, "want bool, found invalid tag 0x7f"},
		{"short int", orderedcode.AppendInt64(nil, 1)[:5], func(d *orderedcode.Decoder) error { _, err := d.Int64(); return err }, "truncated int64: 4 of 8 bytes"},
		{"short float", orderedcode.AppendFloat64(nil, 1)[:1], func(d *orderedcode.Decoder) error { _, err := d.Float64(); return err }, "truncated float64: 0 of 8 bytes"},
		{"unterminated", []byte{0x21, 'a', 'b'}, func(d *orderedcode.Decoder) error { _, err := d.String(); return err }, "unterminated string"},
		{"lone zero at end", []byte{0x20, 'a', 0x00}, func(d *orderedcode.Decoder) error { _, err := d.Bytes(); return err }, "unterminated bytes"},
		{"bad escape", []byte{0x21, 'a', 0x00, 0x07, 0x00, 0x01}, func(d *orderedcode.Decoder) error { _, err := d.String(); return err }, "invalid escape 0x00 0x07 in string at offset 2"},
		{"skip bad tag", []byte{0x99}, func(d *orderedcode.Decoder) error { return d.Skip() }, "invalid tag 0x99"},
		{"skip end", nil, func(d *orderedcode.Decoder) error { return d.Skip() }, "found end of key"},
		{"second element", orderedcode.AppendBool(orderedcode.AppendNull(nil), true), func(d *orderedcode.Decoder) error {
			if !d.Null() {
				return fmt.Errorf("no null")
			}
			_, err := d.Uint64()
			return err
		}, "offset 1: want uint64, found bool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := orderedcode.NewDecoder(tt.in)
			err := tt.read(d)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v; want one containing %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "state: decode key at offset ") {
				t.Errorf("error %q lacks the usual prefix", err)
			}
			// A failed read does not move the decoder.
			if got := len(d.Rest()); got != len(tt.in) && tt.name != "second element" {
				t.Errorf("Rest has %d bytes after the error; want %d", got, len(tt.in))
			}
		})
	}
}

func TestDecoder_peekSkipRest(t *testing.T) {
	key := orderedcode.AppendUint64(orderedcode.AppendString(orderedcode.AppendNull(nil), "a\x00"), 7)
	d := orderedcode.NewDecoder(key)
	var kinds []orderedcode.Kind
	for !d.Done() {
		kinds = append(kinds, d.Peek())
		if err := d.Skip(); err != nil {
			t.Fatal(err)
		}
	}
	want := []orderedcode.Kind{orderedcode.KindNull, orderedcode.KindString, orderedcode.KindUint64}
	if diff := gocmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if d.Peek() != orderedcode.KindInvalid || len(d.Rest()) != 0 {
		t.Error("decoder not at the end")
	}
	d.Reset(key)
	if d.Null() != true || d.Null() != false {
		t.Error("Null did not consume exactly one null")
	}
	if s, err := d.String(); err != nil || s != "a\x00" {
		t.Errorf("String = %q, %v", s, err)
	}
	if got, want := d.Rest(), orderedcode.AppendUint64(nil, 7); !bytes.Equal(got, want) {
		t.Errorf("Rest = %x; want %x", got, want)
	}
	if got := orderedcode.KindString.String(); got != "string" {
		t.Errorf("KindString.String() = %q", got)
	}
}

// FuzzDecode checks that decoding arbitrary bytes never panics, and that
// whatever decodes encodes back to the same bytes: the encoding is canonical.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add(orderedcode.AppendString(orderedcode.AppendInt64(nil, -5), "a\x00b"))
	f.Add(orderedcode.AppendBytes(orderedcode.AppendFloat64(orderedcode.AppendNull(nil), 1.5), []byte{0xff, 0}))
	f.Add(orderedcode.AppendBool(orderedcode.AppendUint64(nil, 1<<40), true))
	f.Add([]byte{0x21, 0x00})
	f.Add([]byte{0x21, 0x00, 0x02})
	f.Fuzz(func(t *testing.T, b []byte) {
		tup, err := decode(b)
		consumed := len(b)
		if err != nil {
			// decode stops at the bad element: what came before is valid.
			consumed = len(b) - restAfter(b, len(tup))
		}
		for _, v := range tup {
			if f, ok := v.(float64); ok && math.IsNaN(f) {
				return // NaNs decode to many bit patterns but encode to one
			}
		}
		if re := encode(t, tup); !bytes.Equal(re, b[:consumed]) {
			t.Errorf("decode(%x) = %q, which encodes as %x", b[:consumed], tup, re)
		}
	})
}

// restAfter returns how many bytes of b remain after skipping n elements.
func restAfter(b []byte, n int) int {
	d := orderedcode.NewDecoder(b)
	for range n {
		if err := d.Skip(); err != nil {
			panic(err)
		}
	}
	return len(d.Rest())
}
