package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scalarFunction is a scalar function of one INT argument with output
// type out whose eval runs body and returns what it makes.
func scalarFunction(out, body string) string {
	return `export default {
  kind: "scalar",
  args: [{ name: "x", type: "INT" }],
  output: "` + out + `",
  eval(x) {
    ` + body + `
  },
};`
}

// TestHostileJS_scalarResults: a scalar function's result is converted
// inside its call, under its limits: a getter or a Proxy trap of the
// result that throws is the function's error at its own file, line and
// column, one that loops stops at the eval timeout, never an internal
// error; a promise job the function queues through names the source
// cannot show stops it with an error, as a PTF's does, instead of
// running after the call.
func TestHostileJS_scalarResults(t *testing.T) {
	loop := "for (;;) {}"
	const query = "SELECT f(n) FROM (VALUES (1), (2)) AS T(n);"
	tests := []hostileCase{
		{name: "getter_throws", files: map[string]string{"f.js": scalarFunction("ROW<a INT>", `return { get a() { throw new RangeError("no a"); } };`)},
			set: createF, stmt: query, want: []string{"f.js:6:30: f: RangeError: no a"}},
		{name: "getter_loops", files: map[string]string{"f.js": scalarFunction("ROW<a INT>", `return { get a() { `+loop+` } };`)},
			set: createF, stmt: query, want: []string{"f.js:6:", timeoutMsg}, limit: true},
		{name: "proxy_trap_throws", files: map[string]string{"f.js": scalarFunction("ROW<a INT>", `return new Proxy({}, { get(t, k) { throw new TypeError("trap " + String(k)); } });`)},
			set: createF, stmt: query, want: []string{"f.js:6:46: f: TypeError: trap a"}},
		{name: "proxy_trap_loops", files: map[string]string{"f.js": scalarFunction("ROW<a INT>", `return new Proxy({}, { get() { `+loop+` } });`)},
			set: createF, stmt: query, want: []string{"f.js:6:", timeoutMsg}, limit: true},
		{name: "array_getter_throws", files: map[string]string{"f.js": scalarFunction("ARRAY<INT>", `const a = [1, 2]; Object.defineProperty(a, 1, { get() { throw new Error("no 1"); } }); return a;`)},
			set: createF, stmt: query, want: []string{"f.js:6:", "f: Error: no 1"}},
		{name: "map_proxy_loops", files: map[string]string{"f.js": scalarFunction("MAP<STRING, INT>", `return new Proxy({ a: 1 }, { ownKeys() { `+loop+` } });`)},
			set: createF, stmt: query, want: []string{"f.js:6:", timeoutMsg}, limit: true},
		{name: "hidden_promise_job", files: map[string]string{"f.js": scalarFunction("INT", `const P = globalThis[["Pro", "mise"].join("")];
    P.resolve(1)[["th", "en"].join("")](() => { globalThis.late = true; });
    return x;`)},
			set: createF, stmt: query, want: []string{"f.js:7:", "f: limit exceeded: the function queued a promise job through code that names no Promise, async, await or then, so the job could only run after its call"}, limit: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits for a limit on a session of its own
			runHostileCase(t, tc)
		})
	}
}

// TestHostileJS_scalarPromiseNamed: a scalar function whose source names
// Promise runs its jobs as its call returns, inside the call, as before.
func TestHostileJS_scalarPromiseNamed(t *testing.T) {
	h := newHostileSession(t)
	src := scalarFunction("INT", `Promise.resolve(1).then(() => { globalThis.ran = true; }); return x;`)
	if err := os.WriteFile(filepath.Join(h.dir, "f.js"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := h.mustExec(createF + "SELECT f(n) FROM (VALUES (1), (2)) AS T(n);")
	if got != "+I[1]\n+I[2]\n" || strings.Contains(got, "limit") {
		t.Errorf("got %q", got)
	}
}
