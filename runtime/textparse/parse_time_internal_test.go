package textparse

import (
	"fmt"
	"math/rand/v2"
	"testing"

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

// BenchmarkParseTimestamp reads TIMESTAMP(3) text as a CSV file's
// column: the common shape, with and without a fraction.
func BenchmarkParseTimestamp(b *testing.B) {
	vp, err := Compile(Options{TimestampFormat: TimestampFormatSQL})
	if err != nil {
		b.Fatal(err)
	}
	typ := types.Type{Kind: types.KindTimestamp, Length: 3}
	for _, s := range []string{"2001-01-01 00:00:32", "2001-01-01 00:00:32.125"} {
		b.Run(fmt.Sprintf("len=%d", len(s)), func(b *testing.B) {
			for b.Loop() {
				if _, err := vp.ParseScalar(s, &typ); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
