package script

import "testing"

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1024", 1024, true},
		{"512 mb", 512 << 20, true},
		{"2GB", 2 << 30, true},
		{"1 kib", 1 << 10, true},
		{"3 bytes", 3, true},
		{" 1 t ", 1 << 40, true},
		{"", 0, false},
		{"mb", 0, false},
		{"-1 mb", 0, false},
		{"1.5 gb", 0, false},
		{"1 pb", 0, false},
		{"9999999 tb", 0, false},
	}
	for _, tc := range tests {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		1 << 30: "1 gb", 64 << 20: "64 mb", 3 << 10: "3 kb", 1000: "1000 bytes", 1<<20 + 1: "1048577 bytes", 5 << 40: "5 tb",
	} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestNthLine(t *testing.T) {
	text := "a\r\nb\rc\nd\u2028e\u2029f"
	for i, want := range []string{"a", "b", "c", "d", "e", "f", ""} {
		if got := nthLine(text, i+1); got != want {
			t.Errorf("nthLine(%d) = %q, want %q", i+1, got, want)
		}
	}
}
