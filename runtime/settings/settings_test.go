package settings

import (
	"sort"
	"strings"
	"testing"
	"time"
)

// TestTable checks the table itself: sorted and unique keys, a doc and an
// owner each, defaults and enumeration values that their parsers accept.
func TestTable(t *testing.T) {
	keys := Keys()
	if !sort.StringsAreSorted(keys) {
		t.Errorf("keys are not sorted: %v", keys)
	}
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			t.Errorf("key %s is listed twice (a setting and an ignored option?)", keys[i])
		}
	}
	for i, s := range All() {
		if i > 0 && table[i-1].Key >= s.Key {
			t.Errorf("table is not sorted at %s", s.Key)
		}
		if s.Doc == "" || s.Owner == "" {
			t.Errorf("%s: needs a doc and an owner", s.Key)
		}
		if strings.Contains(s.Doc, "|") {
			t.Errorf("%s: the doc must not contain '|' (a cell of the table of docs/settings.md)", s.Key)
		}
		if s.Default != "" {
			if _, err := s.Check(s.Default); err != nil {
				t.Errorf("%s: default: %v", s.Key, err)
			}
		}
		for _, v := range s.Values {
			if _, err := s.Check(v); err != nil {
				t.Errorf("%s: value %s: %v", s.Key, v, err)
			}
		}
		if got, ok := Lookup(s.Key); !ok || got.Key != s.Key {
			t.Errorf("Lookup(%s) = %v, %v", s.Key, got.Key, ok)
		}
	}
	for i, ig := range IgnoredKeys() {
		if i > 0 && ignored[i-1].Key >= ig.Key {
			t.Errorf("ignored keys are not sorted at %s", ig.Key)
		}
		if ig.Reason == "" || strings.Contains(ig.Reason, "|") {
			t.Errorf("%s: needs a reason without '|'", ig.Key)
		}
	}
}

func TestCheck(t *testing.T) {
	tests := []struct{ key, value, err string }{
		{"state.cache_sise", "10", "unknown setting 'state.cache_sise' (did you mean 'state.cache-size'?); SET; lists the settings"},
		{"nothing.like.it", "1", "unknown setting 'nothing.like.it'; SET; lists the settings"},
		{"ptfsh.trace", "loud", "SET 'ptfsh.trace' is 'on' or 'off', not 'loud'"},
		{"ptfsh.on-error", "maybe", "SET 'ptfsh.on-error' is 'stop' or 'continue', not 'maybe'"},
		{"ptfsh.seed", "x", "SET 'ptfsh.seed' needs a whole number (a 64-bit integer), not 'x'"},
		{"ptf.max-memory", "lots", `SET 'ptf.max-memory': invalid size "lots": want a number and a unit, such as "512 mb" or "2 gb", or 0 for no limit`},
		{"ptfsh.format", "XML", `SET 'ptfsh.format': unknown format "xml" (valid formats: tableau, changelog, table, rows, csv, json)`},
		{"state.cache-size", "0", "SET 'state.cache-size' needs a number of keys of at least 1, not '0'"},
		{"table.exec.sink.not-null-enforcer", "drop", ""},
		{"sql-client.display.max-column-width", "anything", "SET 'sql-client.display.max-column-width' needs a whole number of at least 1, not 'anything'"},
		{"sql-client.display.max-column-width", "50", ""},
		{"ptfsh.processing-time", "anything", "SET 'ptfsh.processing-time': want epoch milliseconds or a time such as '2025-03-27 12:00:00', not 'anything'"},
		{"ptfsh.processing-time", "2025-03-27 12:00:00", ""},
		{"ptfsh.processing-time", "1743076800000", ""},
	}
	for _, tt := range tests {
		_, err := Check(tt.key, tt.value)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.err {
			t.Errorf("Check(%q, %q) = %q, want %q", tt.key, tt.value, got, tt.err)
		}
	}
}

func TestSuggest(t *testing.T) {
	for name, want := range map[string]string{
		"state.cache_sise":               "state.cache-size",
		"PTFSH.FORMAT":                   "ptfsh.format",
		"ptfsh.eval-timeout":             "ptf.eval-timeout",
		"cache-size":                     "state.cache-size",
		"table.exec.source.idle-timeot":  "table.exec.source.idle-timeout",
		"sql-client.display.max-column":  "",
		"table.exec.state.time-to-live ": "",
		"x":                              "",
	} {
		if got := Suggest(name); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestGet(t *testing.T) {
	set := map[string]string{"state.cache-size": "7", "ptfsh.trace": "ON", "table.exec.state.ttl": "1 h"}
	if n, ok := Get[int](set, "state.cache-size"); !ok || n != 7 {
		t.Errorf("state.cache-size = %v, %v", n, ok)
	}
	if n, ok := Get[int64](set, "execution.checkpointing.interval-rows"); !ok || n != 100_000 {
		t.Errorf("the default of execution.checkpointing.interval-rows = %v, %v", n, ok)
	}
	if b, _ := Get[bool](set, "ptfsh.trace"); !b {
		t.Error("ptfsh.trace = 'ON' is not on")
	}
	if d, _ := Get[time.Duration](set, "table.exec.state.ttl"); d != time.Hour {
		t.Errorf("table.exec.state.ttl = %v", d)
	}
	if _, ok := Get[int64](set, "ptfsh.seed"); ok {
		t.Error("ptfsh.seed has no default")
	}
}

func TestFormat(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0", 10 * time.Second: "10 s", 90 * time.Second: "90 s", time.Minute: "1 min", 1500 * time.Microsecond: "1500 µs"} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
		if got, err := ParseEvalTimeout(FormatDuration(d)); err != nil || got != d {
			t.Errorf("ParseEvalTimeout(FormatDuration(%v)) = %v, %v", d, got, err)
		}
	}
	if got := FormatSize(1 << 30); got != "1 gb" {
		t.Errorf("FormatSize(1 gb) = %q", got)
	}
}

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
		got, err := ParseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		1 << 30: "1 gb", 64 << 20: "64 mb", 3 << 10: "3 kb", 1000: "1000 bytes", 1<<20 + 1: "1048577 bytes", 5 << 40: "5 tb",
	} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}
