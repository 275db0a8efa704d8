package tests

import (
	"testing"
	"time"
)

// TestHostileJS_hugeValues: an array with a huge length (a sparse array
// costs goja nothing), a huge string or typed array, collected or kept in
// state, fails the statement with a limit error before Go allocates for
// it, instead of ending the process with Go's out-of-memory error.
//
// Which limit stops a call does not depend on the machine's load. The
// eval timeout is a minute, a bound for a hang only (at 300 ms, making a
// value of tens of megabytes on a loaded machine raced the limit under
// test). A value kept in state is charged two bytes a character or byte
// (the estimate of the state snapshot) while the call allocates less than
// the memory limit in all: the memory guard lets a call be while the
// process has allocated no more than its limit since the call began, so
// only the state snapshot's charge can stop these calls.
func TestHostileJS_hugeValues(t *testing.T) {
	collect := func(output, expr, other string) string {
		return `export default {
  output: "` + output + `",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  eval(ctx, s, { input }) { ctx.collect(input.name === "Eve" ? ` + expr + ` : ` + other + `); },
};
`
	}
	tests := []hostileCase{
		{name: "collect_sparse_array", files: map[string]string{"f.js": collect("ARRAY<INT>", `(() => { const a = []; a.length = 2 ** 32 - 1; return a; })()`, "null")},
			set: createF, stmt: selectBad, want: []string{"4294967295 elements", "ptf.max-memory"}, limit: true},
		{name: "collect_sparse_row_array", files: map[string]string{"f.js": collect("ROW<a ARRAY<STRING>>", `(() => { const a = []; a.length = 2 ** 31; return { a }; })()`, "{ a: [] }")},
			set: createF, stmt: selectBad, want: []string{"2147483648 elements", "ptf.max-memory"}, limit: true},
		{name: "state_sparse_array", files: map[string]string{"f.js": stateFunction(`c.a = []; c.a.length = 2 ** 32 - 1;`)},
			set: createF, stmt: selectBad, want: []string{`state "c"`, "4294967295 elements", "ptf.max-memory"}, limit: true},
		// A string of 64 Mi characters: 96 MiB allocated (its two halves
		// and itself) under the 126 MiB limit, charged 128 MiB in state.
		// (String.prototype.repeat is charged as the snapshot charges, so
		// the string is made by a concatenation, which is not.)
		{name: "state_huge_string", files: map[string]string{"f.js": stateFunction(`const s = "x".repeat(32 << 20); c.s = s + s;`)},
			set: createF + "SET 'ptf.max-memory' = '126 mb';", stmt: selectBad, want: []string{`state "c"`, "a string of 67108864 characters", "ptf.max-memory"}, limit: true},
		{name: "repeat", files: map[string]string{"f.js": stateFunction(`const s = "x".repeat(2 ** 30); ctx.collect(s.length);`)},
			set: createF, stmt: selectBad, want: []string{"f.js:8:", "cannot make a string of 1073741824 characters", "ptf.max-memory"}, limit: true},
		{name: "pad_caught", files: map[string]string{"f.js": stateFunction(`try { ctx.collect("".padStart(2 ** 30).length); } catch (e) { ctx.collect(-1); }`)},
			set: createF, stmt: selectBad, want: []string{"f.js:8:", "cannot make a string of 1073741824 characters"}, limit: true},
		{name: "fill", files: map[string]string{"f.js": stateFunction(`ctx.collect(new Array(1e9).fill(0).length);`)},
			set: createF, stmt: selectBad, want: []string{"f.js:8:", "cannot make an array of 1000000000 elements"}, limit: true},
		// 34 MiB allocated under the session's 64 MiB limit, charged 68 MiB.
		{name: "state_huge_bytes", files: map[string]string{"f.js": stateFunction(`c.b = new Uint8Array(34 << 20);`)},
			set: createF, stmt: selectBad, want: []string{`state "c"`, "a Uint8Array of 35651584 bytes", "ptf.max-memory"}, limit: true},
	}
	for _, tc := range tests {
		tc.set += " SET 'ptf.eval-timeout' = '1 min';"
		tc.maxTime = 10 * time.Second
		t.Run(tc.name, func(t *testing.T) { runHostileCase(t, tc) })
	}
}

// TestHostileJS_deepState: state nested deeper than the encoding allows
// is a short error naming the limit and where it was passed.
func TestHostileJS_deepState(t *testing.T) {
	runHostileCase(t, hostileCase{
		files:  map[string]string{"f.js": stateFunction(`let o = {}, p = o; for (let i = 0; i < 2000; i++) { p.o = {}; p = p.o; } c.deep = o;`)},
		set:    createF,
		stmt:   selectBad,
		want:   []string{`state "c"`, "deep.o.o.o.o.o.o.o...: cannot keep a value nested deeper than 1000 levels in state"},
		maxLen: 300,
	})
}
