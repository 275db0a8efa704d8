package script

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
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

// TestKeepEmptyArrays: which assignments S.f = [] may leave an empty
// array in place (compile_keep.go): none where eval or onTimer lets the
// field's value out.
func TestKeepEmptyArrays(t *testing.T) {
	fn := func(eval, timer string) string {
		src := `export default {
  output: "ROW<a STRING, b BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { n: 0, l: [], m: [] } } },
  eval(ctx, { s }, { input }) {
` + eval + `
  },`
		if timer != "" {
			src += `
  onTimer(ctx, { s }) {
` + timer + `
  },`
		}
		return src + "\n};"
	}
	const reset = `s.l = []; s.m = [];`
	for _, c := range []struct {
		name, src string
		want      []bool // the sites of eval's S.f = [], in order
	}{
		{"pushes and lengths", fn(`if (s.l.length > 2) { `+reset+` } s.l.push(s.n); s.m.push(s.l.length + 1); ctx.collect({ a: input.url, b: s.l.length });`, ""), []bool{true, true}},
		{"collected", fn(reset+` ctx.collect({ a: input.url, b: s.n, c: s.l });`, ""), []bool{true, true}},
		{"a local takes it", fn(`const x = s.l; `+reset+` x.push(1);`, ""), []bool{false, true}},
		{"another field takes it", fn(reset+` s.m = s.l;`, ""), []bool{false, false}},
		{"compared", fn(`if (s.l === s.m) s.n++; `+reset, ""), []bool{false, false}},
		{"in a template", fn(reset+" s.n = `${s.m}`.length;", ""), []bool{true, false}},
		{"the assignment's value used", fn(`s.n = (s.l = []).length; s.m = [];`, ""), []bool{false, true}},
		{"the state object used", fn(reset+` const t = s;`, ""), []bool{false, false}},
		{"length written", fn(reset+` s.l.length = 3;`, ""), []bool{false, true}},
		{"a local put in", fn(`const x = []; `+reset+` s.m = x;`, ""), []bool{true, false}},
		{"DelayStreak", delayStreak(t), []bool{true}},
		{"onTimer lets it out", fn(reset, `const y = s.m; y.push(1);`), []bool{true, false}},
	} {
		e := NewEngine(Options{ParseType: ParseTypeForTest})
		def, err := e.Load("f", "f.js", c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		d := e.decls[def]
		if d.cEval == nil {
			e.Close()
			if c.want == nil {
				continue
			}
			t.Errorf("%s: eval does not compile: %s", c.name, d.cEvalWhy)
			continue
		}
		var got []bool
		for _, s := range d.cEval.keep {
			got = append(got, s.ok)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: sites %v, want %v", c.name, got, c.want)
		}
		e.Close()
	}
}

// TestKeptFields_shadow: a name that shadows a state entry or ctx ends
// the analysis (the loader renames most such names before, so this is
// the analysis alone).
func TestKeptFields_shadow(t *testing.T) {
	for _, c := range []struct {
		body string
		all  bool
	}{
		{"s.l = []; s.l.push(1);", false},
		{"s.l = []; { let s = { l: [] }; s.l.push(1); }", true},
		{"s.l = []; for (let s = 0; s < 2; s++) {}", true},
		{"s.l = []; var ctx = 1;", true},
		{"s.l = []; const t = s;", true},
	} {
		lit, _, _, err := parseFunction("eval(ctx, { s }, { input }) {\n" + c.body + "\n}")
		if err != nil {
			t.Fatal(err)
		}
		if got := keptFields(lit, map[string]int{"s": 0}, "ctx").all; got != c.all {
			t.Errorf("%s: all = %v, want %v", c.body, got, c.all)
		}
	}
}

func delayStreak(t *testing.T) string {
	b, err := os.ReadFile("../examples/delay_streak.js")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHasRuneError(t *testing.T) {
	for _, s := range []string{"", "Hello user1, visit 2: https://shop.example/p/3 (your first page)", "héllo 😀",
		"\uFFFD", "a\uFFFDb", "\xff", "ok\xe2\x82", "\xed\xa0\x80", "\xc0\xaf", strings.Repeat("x", 40) + "\x80"} {
		if got, want := hasRuneError(s), strings.ContainsRune(s, utf8.RuneError); got != want {
			t.Errorf("hasRuneError(%q) = %v, want %v", s, got, want)
		}
	}
}
