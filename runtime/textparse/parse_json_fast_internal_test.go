package textparse

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestJSON_Str_agreesWithEncodingJSON: the word-at-a-time scan finds a
// quote, a backslash or a control byte at every place in a word, beside
// multi-byte UTF-8, as encoding/json reads the same string.
func TestJSON_Str_agreesWithEncodingJSON(t *testing.T) {
	specials := []string{`\"`, `\\`, `\n`, `\u00e9`, "\x01", "\x1f", "é", "\u20ac", "\x7f", " ", "!", "#", "[", "]", "\xff"}
	check := func(body string) {
		text := `"` + body + `"`
		var p JSON
		p.Reset([]byte(text+","), 0)
		got, err := p.Str()
		var want string
		werr := json.Unmarshal([]byte(text), &want)
		// encoding/json makes invalid UTF-8 U+FFFD; Str keeps the bytes
		// and leaves the check to its callers.
		gotText := strings.ReplaceAll(string(got), "\xff", "\ufffd")
		switch {
		case (err == nil) != (werr == nil):
			t.Fatalf("Str(%q): %q, %v; encoding/json: %q, %v", text, got, err, want, werr)
		case err == nil && (gotText != want || p.Pos() != len(text)):
			t.Fatalf("Str(%q) = %q ending at %d; want %q ending at %d", text, got, p.Pos(), want, len(text))
		}
	}
	for n := range 20 {
		for _, s := range specials {
			for at := 0; at <= n; at++ {
				check(strings.Repeat("a", at) + s + strings.Repeat("b", n-at))
			}
		}
	}
	// A quote ends the string wherever it falls in a word.
	for n := range 20 {
		for at := 0; at <= n; at++ {
			body := strings.Repeat("a", at) + `"` + strings.Repeat("b", n-at)
			var p JSON
			p.Reset([]byte(`"`+body+`"`), 0)
			if got, err := p.Str(); err != nil || string(got) != body[:at] || p.Pos() != at+2 {
				t.Fatalf("Str(%q) = %q, %v ending at %d; want %q ending at %d", `"`+body+`"`, got, err, p.Pos(), body[:at], at+2)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(40) {
			if r.IntN(6) == 0 {
				b.WriteString(specials[r.IntN(len(specials))])
			} else {
				b.WriteByte(byte('a' + r.IntN(26)))
			}
		}
		check(b.String())
	}
}

func TestJSON_KeyIs(t *testing.T) {
	tests := []struct {
		name, data, key string
		want            bool
		pos             int // where the reader is after
	}{
		{"plain", `"user_id":1`, "user_id", true, 10},
		{"white space", " \"user_id\" \t:1", "user_id", true, 13},
		{"another key", `"url":1`, "user_id", false, 0},
		{"a longer key", `"user_ids":1`, "user_id", false, 0},
		{"escaped: KeyBytes reads it", `"user\u005fid":1`, "user_id", false, 0},
		{"no colon", `"user_id",`, "user_id", false, 0},
		{"at the end", `"user_id"`, "user_id", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p JSON
			p.Reset([]byte(tt.data), 0)
			got := p.KeyIs(QuoteKey(tt.key))
			if got != tt.want || got && p.Pos() != tt.pos {
				t.Fatalf("KeyIs = %v at %d, want %v at %d", got, p.Pos(), tt.want, tt.pos)
			}
		})
	}
	for _, name := range []string{`a"b`, `a\b`, "a\nb", "\xff"} {
		if QuoteKey(name) != nil {
			t.Errorf("QuoteKey(%q) = %q, want nil (the key needs escapes)", name, QuoteKey(name))
		}
	}
}

func TestJSON_IntNumber(t *testing.T) {
	tiny, big := types.Type{Kind: types.KindTinyInt}, types.TypeBigInt
	tests := []struct {
		data string
		typ  types.Type
		want int64
		ok   bool
	}{
		{"12,", types.TypeInt, 12, true},
		{" -7}", types.TypeInt, -7, true},
		{"127", tiny, 127, true},
		{"128", tiny, 0, false},
		{"-129", tiny, 0, false},
		{"1.5", types.TypeInt, 0, false},
		{"1e3", types.TypeInt, 0, false},
		{"123456789012345678", big, 123456789012345678, true},
		{"9223372036854775807", big, 0, false}, // 19 digits: Value reads it
		{"-", types.TypeInt, 0, false},
		{`"12"`, types.TypeInt, 0, false},
	}
	for _, tt := range tests {
		var p JSON
		p.Reset([]byte(tt.data), 0)
		n, ok := p.IntNumber(&tt.typ)
		if ok != tt.ok || n != tt.want {
			t.Errorf("IntNumber(%q, %s) = %d, %v; want %d, %v", tt.data, tt.typ, n, ok, tt.want, tt.ok)
		}
		if !ok && p.Pos() != 0 {
			t.Errorf("IntNumber(%q, %s) failed and moved to %d", tt.data, tt.typ, p.Pos())
		}
		if ok {
			// The same value as Value's.
			var q JSON
			q.Reset([]byte(tt.data), 0)
			v, err := q.Value(&tt.typ)
			if err != nil || v != any(n) || q.Pos() != p.Pos() {
				t.Errorf("IntNumber(%q) = %d at %d; Value = %v, %v at %d", tt.data, n, p.Pos(), v, err, q.Pos())
			}
		}
	}
}

// TestQuickTimestamp_agreesWithParseTimestamp: where the quick way reads
// a text, ParseTimestamp reads the same value from it, in every format.
func TestQuickTimestamp_agreesWithParseTimestamp(t *testing.T) {
	texts := []string{"2026-12-01 00:00:00.016", "2026-12-01 00:00:00", "2026-12-01T00:00:00.5", "2026-12-01 00:00:00.5Z",
		"2026-12-01T00:00:00Z", "2026-12-01 00:00:00+02:00", "2026-12-01", "1700000000000", " 2026-12-01 00:00:00",
		"2026-02-30 00:00:00", "2026-12-01 00:00:00.123456789", "2026-12-01 00:00"}
	typs := []types.Type{types.TypeTimestamp3, types.TypeTimestampLTZ, {Kind: types.KindTimestamp, Length: 9}, {Kind: types.KindTimestamp}}
	for _, o := range []Options{{}, {TimestampFormat: TimestampFormatSQL}, {TimestampFormat: TimestampFormatISO8601}, {TimestampPattern: "yyyy-MM-dd HH:mm"}} {
		vp, err := Compile(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			for _, typ := range typs {
				v, ok := vp.quickTimestamp(s, &typ)
				if !ok {
					continue
				}
				want, err := vp.ParseTimestamp(s, strings.TrimSpace(s), &typ)
				if err != nil || want != v {
					t.Errorf("%+v %s %q: quick %v, ParseTimestamp %v, %v", o, typ, s, v, want, err)
				}
			}
		}
	}
}
