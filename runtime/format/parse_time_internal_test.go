package format

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/ptfsh/ptfsh/runtime/types"
)

var isoStyles = []isoStyle{
	lenientISOStyle,
	{sep: ' ', strict: true, zone: 'n'},
	{sep: ' ', strict: true, zone: 'Z'},
	{sep: 'T', strict: true, zone: 'n'},
	{sep: 'T', strict: true, zone: 'Z'},
}

// TestParseISO_fixedAgreesWithScan: the fixed-place reading of the common
// shape gives what the general scan gives, on that shape and on text
// near it (a character changed, cut, or added), in every style.
func TestParseISO_fixedAgreesWithScan(t *testing.T) {
	seeds := []string{
		"2001-01-01 00:00:32", "2024-02-29 23:59:59.123", "2023-02-29 10:00:00", "1999-12-31T23:59:59Z",
		"2020-06-15 12:30:45.123456789", "2020-06-15t12:30:45+02:00", "0000-01-01 00:00:00", "2020-13-01 00:00:00",
		"2020-06-15 24:00:00", "2020-06-15 12:60:00", "2020-06-15 12:00:60", "2020-06-15 12:00:00.", "2020-06-15 12:00:00.1234567890",
		"2020-06-15 12:00", "2020-6-15 12:00:00", "2020-06-15 1:00:00", "2020-06-15 12:00:00 ",
	}
	r := rand.New(rand.NewPCG(11, 12))
	const alphabet = "0123456789-: T.Z+tz"
	check := func(s string) {
		for _, st := range isoStyles {
			c1, ok1 := parseISO(s, st)
			c2, ok2 := scanISO(s, st)
			if ok1 != ok2 || ok1 && c1 != c2 {
				t.Fatalf("%q in %+v: parseISO %+v %v, scanISO %+v %v", s, st, c1, ok1, c2, ok2)
			}
		}
	}
	for _, s := range seeds {
		check(s)
		for range 2000 {
			b := []byte(s)
			switch r.IntN(3) {
			case 0:
				b[r.IntN(len(b))] = alphabet[r.IntN(len(alphabet))]
			case 1:
				b = b[:r.IntN(len(b))]
			default:
				b = append(b, alphabet[r.IntN(len(alphabet))])
			}
			check(string(b))
		}
	}
}

// TestInterner_get: the cache in front of the map gives back the string
// of the bytes asked for, shared while the column repeats.
func TestInterner_get(t *testing.T) {
	var in interner
	r := rand.New(rand.NewPCG(3, 4))
	values := []string{"", "A", "AB", "ABC", "ABCDEFGH", "ABCDEFGHI", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "x\x00y"}
	for i := range 3000 {
		values = append(values, fmt.Sprintf("K%d", i))
	}
	first := map[string]string{}
	for range 100_000 {
		v := values[r.IntN(len(values))]
		got := in.get([]byte(v))
		if got != v {
			t.Fatalf("get(%q) = %q", v, got)
		}
		if f, ok := first[v]; ok && len(v) > 0 && unsafe.StringData(f) != unsafe.StringData(got.(string)) {
			t.Fatalf("get(%q) gave another copy", v)
		}
		first[v] = got.(string)
	}
}

// TestBoxInt: integers come back as themselves, shared or not.
func TestBoxInt(t *testing.T) {
	for _, n := range []int64{smallIntMin - 1, smallIntMin, -1, 0, 255, 256, smallIntMax - 1, smallIntMax, 1 << 40} {
		if got := boxInt(n); got != any(n) {
			t.Errorf("boxInt(%d) = %v", n, got)
		}
	}
}

// BenchmarkParseTimestamp reads TIMESTAMP(3) text as a CSV file's
// column: the common shape, with and without a fraction.
func BenchmarkParseTimestamp(b *testing.B) {
	vp, err := compileParseOptions(ParseOptions{TimestampFormat: TimestampFormatSQL})
	if err != nil {
		b.Fatal(err)
	}
	typ := types.Type{Kind: types.KindTimestamp, Length: 3}
	for _, s := range []string{"2001-01-01 00:00:32", "2001-01-01 00:00:32.125"} {
		b.Run(fmt.Sprintf("len=%d", len(s)), func(b *testing.B) {
			for b.Loop() {
				if _, err := vp.parseScalar(s, &typ); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInterner looks up airport codes, 300 of them, as the flights
// workload's columns do.
func BenchmarkInterner(b *testing.B) {
	codes := make([][]byte, 300)
	for i := range codes {
		codes[i] = []byte(fmt.Sprintf("A%c%c", 'A'+i/26%26, 'A'+i%26))
	}
	var in interner
	i := 0
	for b.Loop() {
		in.get(codes[i])
		i = (i + 7) % len(codes)
	}
}
