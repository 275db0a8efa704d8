package script

import "testing"

func TestNthLine(t *testing.T) {
	text := "a\r\nb\rc\nd\u2028e\u2029f"
	for i, want := range []string{"a", "b", "c", "d", "e", "f", ""} {
		if got := nthLine(text, i+1); got != want {
			t.Errorf("nthLine(%d) = %q, want %q", i+1, got, want)
		}
	}
}
