package format

import (
	"testing"
	"unicode/utf8"
)

// FuzzValidUTF8: the CSV reader's UTF-8 check answers as utf8.Valid.
func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{"", "a", "user12345", "https://shop.example/p/30", "héllo wörld, longer", "12345678\xff", "\xff2345678", "1234567\xc3", "abcdefgh\xc3\xa9", "\xed\xa0\x80abcdefgh"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validUTF8(b), utf8.Valid(b); got != want {
			t.Fatalf("validUTF8(%q) = %v, utf8.Valid says %v", b, got, want)
		}
	})
}
