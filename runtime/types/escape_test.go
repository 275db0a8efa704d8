package types_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/types"
)

func TestEscapeControls(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{"x\x1b[2J\x1b]0;PWNED\a", `x\x1b[2J\x1b]0;PWNED\a`},
		{"a\tb\nc\rd\x00e\x7f", `a\tb\nc\rd\x00e\x7f`},
		{"csi \u009b2J and \u0085", `csi \u009b2J and \u0085`},
		{"héllo 世界 🙂 \u00a0", "héllo 世界 🙂 \u00a0"},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{`C:\dir\n`, `C:\dir\n`}, // a backslash stays as it is
	} {
		if got := types.EscapeControls(tt.in); got != tt.want {
			t.Errorf("EscapeControls(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := types.HasControl(tt.in); got != (tt.in != tt.want) {
			t.Errorf("HasControl(%q) = %v", tt.in, got)
		}
	}
	if got := types.EscapeControlsKeep("a\nb\tc\x1bd", "\n\t"); got != "a\nb\tc\\x1bd" {
		t.Errorf("EscapeControlsKeep = %q", got)
	}
}

// FuzzEscapeControls: whatever the text, its escape holds no control
// character (C0, DEL, C1) and no byte that is not UTF-8, and text without
// one is left as it is.
func FuzzEscapeControls(f *testing.F) {
	for _, s := range []string{"", "x\x1b[2J\x1b]0;PWNED\a", "\u009b31m", "\xff", "a\nb", "héllo", "\x00\x7f\u0080\u009f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := types.EscapeControls(s)
		if !utf8.ValidString(e) {
			t.Fatalf("%q escapes to invalid UTF-8 %q", s, e)
		}
		for _, r := range e {
			if r < 0x20 || r >= 0x7f && r <= 0x9f {
				t.Fatalf("%q escapes to %q, which holds %U", s, e, r)
			}
		}
		if !types.HasControl(s) && e != s {
			t.Fatalf("%q has no control character but escapes to %q", s, e)
		}
		if b := types.AppendEscapedBytes(nil, []byte(s)); string(b) != e {
			t.Fatalf("AppendEscapedBytes(%q) = %q, EscapeControls %q", s, b, e)
		}
		if k := types.EscapeControlsKeep(s, "\n"); strings.ContainsAny(strings.ReplaceAll(k, "\n", ""), "\x1b\x07\r") {
			t.Fatalf("EscapeControlsKeep(%q) = %q", s, k)
		}
	})
}
