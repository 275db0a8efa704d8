package format

import "testing"

// csvFieldByBytes is RFC 4180 quoting written out byte by byte, the
// reference appendCSVField must match.
func csvFieldByBytes(s string) string {
	quote := s == ""
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ',' || c == '"' || c == '\r' || c == '\n' {
			quote = true
		}
	}
	if !quote {
		return s
	}
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return string(append(b, '"'))
}

func FuzzAppendCSVField(f *testing.F) {
	for _, s := range []string{"", "plain", "a,b", `say "hi"`, `"`, `""`, "line1\nline2", "cr\r", `Hello user1, visit 2: https://shop.example/p/3 (last time "x")`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := csvFieldByBytes(s)
		if got := string(appendCSVField([]byte("x,"), s)); got != "x,"+want {
			t.Errorf("appendCSVField(%q) = %q, want %q", s, got, "x,"+want)
		}
		if got := string(appendCSVBytes(nil, []byte(s))); got != want {
			t.Errorf("appendCSVBytes(%q) = %q, want %q", s, got, want)
		}
	})
}
