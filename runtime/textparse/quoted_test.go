package textparse_test

import (
	"testing"

	"github.com/ptfsh/ptfsh/runtime/textparse"
)

func TestQuotedText(t *testing.T) {
	tests := []struct {
		name, pattern string
		i             int
		lit           string
		next          int
		closed        bool
	}{
		{name: "text", pattern: "yyyy'T'HH", i: 4, lit: "T", next: 7, closed: true},
		{name: "two quotes are a quote", pattern: "HH''mm", i: 2, lit: "'", next: 4, closed: true},
		{name: "a doubled quote inside", pattern: "'o''clock' h", i: 0, lit: "o'clock", next: 10, closed: true},
		{name: "empty text", pattern: "''", i: 0, lit: "'", next: 2, closed: true},
		{name: "unclosed", pattern: "HH'at", i: 2, lit: "at", next: 6},
		{name: "a lone quote at the end", pattern: "HH'", i: 2, lit: "", next: 4},
		{name: "three quotes", pattern: "'''", i: 0, lit: "'", next: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lit, next, closed := textparse.QuotedText(tt.pattern, tt.i)
			if lit != tt.lit || next != tt.next || closed != tt.closed {
				t.Errorf("QuotedText(%q, %d) = %q, %d, %v; want %q, %d, %v", tt.pattern, tt.i, lit, next, closed, tt.lit, tt.next, tt.closed)
			}
		})
	}
}
