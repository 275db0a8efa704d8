package tests

import (
	"testing"
	"time"
)

// TestHostileJS_outsideEval: JavaScript that ptfsh runs on a function's
// behalf outside eval and onTimer (reading the declaration at load,
// encoding state at a checkpoint, formatting a thrown value, the changelog
// function, state defaults) runs under the eval timeout and Ctrl-C too,
// and what it throws is an error, not a panic.
func TestHostileJS_outsideEval(t *testing.T) {
	loop := "for (;;) {}"
	tests := []hostileCase{
		{name: "state_getter", files: map[string]string{"f.js": stateFunction(`c.o = {}; Object.defineProperty(c.o, "g", { get() { ` + loop + ` }, enumerable: true });`)},
			set: createF, stmt: selectBad, want: []string{`state "c"`, timeoutMsg}, limit: true},
		{name: "state_getter_cancel", files: map[string]string{"f.js": stateFunction(`c.o = {}; Object.defineProperty(c.o, "g", { get() { ` + loop + ` }, enumerable: true });`)},
			set: createF + "SET 'ptf.eval-timeout' = '0';", stmt: selectBad, cancelAfter: 200 * time.Millisecond,
			want: []string{`state "c"`, "interrupted: the statement was cancelled"}},
		{name: "state_proxy", files: map[string]string{"f.js": stateFunction(`c.p = new Proxy({}, { ownKeys() { ` + loop + ` } });`)},
			set: createF, stmt: selectBad, want: []string{`state "c"`, timeoutMsg}, limit: true},
		{name: "state_getter_throws", files: map[string]string{"f.js": stateFunction(`c.o = {}; Object.defineProperty(c.o, "g", { get() { throw new RangeError("no g") }, enumerable: true });`)},
			set: createF, stmt: selectBad, want: []string{`state "c"`, "RangeError: no g"}},
		{name: "thrown_tostring_loops", files: map[string]string{"f.js": stateFunction(`throw { toString() { ` + loop + ` } };`)},
			set: createF, stmt: selectBad, want: []string{timeoutMsg, "(at key (Eve), input row +I[Eve])"}, limit: true},
		{name: "error_message_getter_loops", files: map[string]string{"f.js": stateFunction(`const e = new Error("x"); Object.defineProperty(e, "message", { get() { ` + loop + ` } }); throw e;`)},
			set: createF, stmt: selectBad, want: []string{timeoutMsg, "(at key (Eve), input row +I[Eve])"}, limit: true},
		{name: "declaration_getter", files: map[string]string{"f.js": `export default { get output() { ` + loop + ` }, eval() {} };`},
			stmt: createF, want: []string{"f.js:1:", timeoutMsg}, limit: true},
		{name: "declaration_getter_throws", files: map[string]string{"f.js": `export default { get output() { throw new TypeError("no output") }, eval() {} };`},
			stmt: createF, want: []string{"f.js:1:", "TypeError: no output"}},
		{name: "declaration_proxy", files: map[string]string{"f.js": `export default new Proxy({}, { get() { ` + loop + ` } });`},
			stmt: createF, want: []string{"f.js:1:", timeoutMsg}, limit: true},
		{name: "state_default_getter", files: map[string]string{"f.js": `export default {
  output: "BIGINT",
  state: { c: { default: { get n() { ` + loop + ` } } } },
  eval(ctx) { ctx.collect(1); },
};`}, stmt: createF, want: []string{"f.js:3:", timeoutMsg}, limit: true},
		{name: "state_default_proxy", files: map[string]string{"f.js": `export default {
  output: "BIGINT",
  state: { c: { default: new Proxy({}, { ownKeys() { ` + loop + ` } }) } },
  eval(ctx) { ctx.collect(1); },
};`}, stmt: createF, want: []string{"f.js:3:", timeoutMsg}, limit: true},
		{name: "changelog_result_getter", files: map[string]string{"f.js": `export default {
  output: "BIGINT",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  changelog() { return { get kinds() { ` + loop + ` } }; },
  eval(ctx) { ctx.collect(1); },
};`}, set: createF, stmt: selectBad, want: []string{"f.js:4:", timeoutMsg}, limit: true},
		{name: "changelog_loops", files: map[string]string{"f.js": `export default {
  output: "BIGINT",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  changelog() { ` + loop + ` },
  eval(ctx) { ctx.collect(1); },
};`}, set: createF, stmt: selectBad, want: []string{"f.js:4:", timeoutMsg}, limit: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits for a limit on a session of its own
			runHostileCase(t, tc)
		})
	}
}
