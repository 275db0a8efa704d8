package session

import "testing"

func TestLikeMatch(t *testing.T) {
	for _, tt := range []struct {
		pattern, s string
		fold, want bool
	}{
		{"", "", false, true},
		{"", "a", false, false},
		{"%", "", false, true},
		{"%", "anything", false, true},
		{"gr%", "greet", false, true},
		{"gr%", "Greet", false, false},
		{"gr%", "Greet", true, true},
		{"%et", "greet", false, true},
		{"%e%e%", "greet", false, true},
		{"%e%e%e%", "greet", false, false},
		{"g_eet", "greet", false, true},
		{"g_eet", "geet", false, false},
		{"a\\%", "a%", false, true},
		{"a\\%", "ab", false, false},
		{"a\\_b", "a_b", false, true},
		{"a\\_b", "axb", false, false},
		{"a\\\\b", "a\\b", false, true},
		{"%_%", "", false, false},
		{"%_%", "x", false, true},
		{"ü_", "üx", false, true},
		{"TO\\_%", "TO_CHANGELOG", false, true},
	} {
		if got := likeMatch(tt.pattern, tt.s, tt.fold); got != tt.want {
			t.Errorf("likeMatch(%q, %q, %v) = %v, want %v", tt.pattern, tt.s, tt.fold, got, tt.want)
		}
	}
}
