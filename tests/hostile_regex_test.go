package tests

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestHostileJS_regex: a regular expression with catastrophic
// backtracking that needs goja's backtracking engine (a lookahead) stops
// within the eval timeout and a second, on Ctrl-C within a second, and
// without any limit set fails the call after about a second instead of
// running for minutes and then answering "no match".
func TestHostileJS_regex(t *testing.T) {
	slow := `const s = "a".repeat(40) + "b"; if (/^(?=(a+)+$)/.test(s)) ctx.collect(-1);`
	slow2 := `const s = "a".repeat(40); ctx.collect("aaaa".replace(/x/, "") && s.replace(/(?=(a+)+b)/g, "-").length);`
	regexMsg := "regular expression ran longer than"
	tests := []hostileCase{
		{name: "timeout", files: map[string]string{"f.js": stateFunction(slow)},
			set: createF, stmt: selectBad, want: []string{"f.js:8:", "(at key (Eve), input row +I[Eve])"}, limit: true},
		{name: "timeout_replace", files: map[string]string{"f.js": stateFunction(slow2)},
			set: createF, stmt: selectBad, want: []string{"f.js:8:", "(at key (Eve), input row +I[Eve])"}, limit: true},
		{name: "cancel", files: map[string]string{"f.js": stateFunction(slow)},
			set: createF + "SET 'ptf.eval-timeout' = '0';", stmt: selectBad, cancelAfter: 200 * time.Millisecond,
			want: []string{"f.js:8:", "interrupted: the statement was cancelled"}},
		{name: "no_timeout", files: map[string]string{"f.js": stateFunction(slow)},
			set: createF + "SET 'ptf.eval-timeout' = '0';", stmt: selectBad, maxTime: 5 * time.Second,
			want: []string{"f.js:8:", regexMsg, "(at key (Eve), input row +I[Eve])"}, limit: true},
		{name: "exec", files: map[string]string{"f.js": stateFunction(`const m = /^(?=(a+)+$)/.exec("a".repeat(40) + "b"); ctx.collect(m === null ? -3 : -4);`)},
			set: createF + "SET 'ptf.eval-timeout' = '0';", stmt: selectBad, maxTime: 5 * time.Second,
			want: []string{"f.js:8:", regexMsg}, limit: true},
		{name: "match_all", files: map[string]string{"f.js": stateFunction(`for (const m of ("a".repeat(40) + "b").matchAll(/(?=(a+)+$)/g)) ctx.collect(-5);`)},
			set: createF + "SET 'ptf.eval-timeout' = '0';", stmt: selectBad, maxTime: 5 * time.Second,
			want: []string{"f.js:8:", regexMsg}, limit: true},
		{name: "split", files: map[string]string{"f.js": stateFunction(`ctx.collect(("a".repeat(40) + "b").split(/(?=(a+)+$)/).length);`)},
			set: createF + "SET 'ptf.eval-timeout' = '0';", stmt: selectBad, maxTime: 5 * time.Second,
			want: []string{"f.js:8:", regexMsg}, limit: true},
		{name: "caught", files: map[string]string{"f.js": stateFunction(`try { ` + slow + ` } catch (e) { ctx.collect(-2); }`)},
			set: createF + "SET 'ptf.eval-timeout' = '0';", stmt: selectBad, maxTime: 5 * time.Second,
			want: []string{"f.js:8:", regexMsg}, limit: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits for a limit on a session of its own
			runHostileCase(t, tc)
		})
	}
	// A lookahead that does not backtrack badly works as before.
	t.Run("fine", func(t *testing.T) {
		h := newHostileSession(t)
		src := stateFunction(`ctx.collect(/^(?=(a+)+b)a+b$/.test("aaab") ? 100 : 0); ctx.collect("a-b-c".split(/(?=-)/).length); ctx.collect("xaay".replace(/(?<=x)a+/g, "b").length);`)
		if err := os.WriteFile(filepath.Join(h.dir, "f.js"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		got := h.mustExec(createF + "CREATE VIEW bad(name) AS VALUES ('Eve');" + selectBad)
		if want := "+I[Eve, 100]\n+I[Eve, 3]\n+I[Eve, 3]\n+I[Eve, 1]\n"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}
