package script

import (
	"strings"
	"testing"
)

// TestCompileWhat is what compiles and what stays on goja, with the
// construct named.
func TestCompileWhat(t *testing.T) {
	fn := func(body string) string {
		return `export default {
  output: "ROW<a STRING, b BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }, { name: "k", type: "INT" }],
  state: { s: { default: { n: 0 } }, l: { kind: "list", type: "ARRAY<INT>" } },
  eval(ctx, { s }, { input, k }) {
` + body + `
  },
};`
	}
	for _, c := range []struct{ src, want string }{
		{fn(`s.n++; ctx.collect({ a: input.url, b: s.n });`), "compiled"},
		{fn(`let x = k * 2; for (let i = 0; i < 3; i++) { if (i === 1) continue; x += i; } ctx.collect({ a: ` + "`${x}`" + `, b: x });`), "compiled"},
		{fn(`var y; y = s.n > 1 ? "a" : "b"; while (true) { break; } do { y += "!"; } while (false); ctx.collect(y);`), "compiled"},
		{fn(`ctx.collect({ a: Math.max(1, 2) });`), "goja (the name Math (not declared in the function or a module constant))"},
		{"const K = 3;\n" + fn(`ctx.collect({ a: input.url, b: K });`), "compiled"},
		{"let K = 3;\nexport function bump() { K++; }\n" + fn(`ctx.collect({ a: input.url, b: K });`), "goja (the name K (not declared in the function or a module constant))"},
		{"const K = 3;\nfunction f() { const K = 4; return K; }\n" + fn(`ctx.collect({ a: input.url, b: K + f() });`), "goja (a call of f)"},
		{fn(`const l = [k, 1]; l.push(2); ctx.collect({ a: "" + l.length, b: l.length });`), "compiled"},
		{fn(`ctx.collect([input.url, 1]);`), "goja (ctx.collect of an array)"},
		{fn(`ctx.collect({ a: input.url, ...s });`), "goja (a spread in collect's object)"},
		{fn(`ctx.collect({ a: input.url }, RowKind.INSERT);`), "goja (ctx.collect with a row kind)"},
		{fn(`ctx.timeContext().registerOnTime("t", 1);`), "goja (ctx.timeContext)"},
		{fn(`try { s.n++; } catch (e) {}`), "goja (try)"},
		{fn(`switch (k) { case 1: break; }`), "goja (switch)"},
		{fn(`const f = () => 1; f();`), "goja (an arrow function)"},
		{fn(`s.n = s.n ?? 0;`), "goja (the operator ??)"},
		{fn(`ctx.collect(input);`), "goja (input used as a value)"},
		{fn(`this.x = 1;`), "goja (this)"},
		{fn(`let v = k; v.x = 1;`), "compiled"},
		{fn(`x; let x = 1;`), "goja (x used before its declaration)"},
		{fn(`s.n = typeof k;`), "goja (the operator typeof)"},
		{strings.Replace(fn(`ctx.collect(1);`), "{ s }, { input, k }", "state, args", 1), "goja (args as a name (destructure the arguments: { input, ... }))"},
		{strings.Replace(fn(`ctx.collect(1);`), "{ s }", "{ l }", 1), "goja (a list view)"},
		{strings.Replace(fn(`s.n++;`), "default: { n: 0 } }", "type: \"ROW<n INT>\" }", 1), "goja (state entry s typed as a ROW)"},
	} {
		e := NewEngine(Options{ParseType: ParseTypeForTest})
		def, err := e.Load("f", "f.js", c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got, _ := e.Runs(def)
		if got != c.want {
			t.Errorf("%s\nruns: %s\nwant: %s", c.src, got, c.want)
		}
		e.SetCompile(false)
		if got, _ := e.Runs(def); got != "goja ('ptf.compile' is off)" {
			t.Errorf("off: %s", got)
		}
		e.Close()
	}
}
