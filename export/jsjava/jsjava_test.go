package jsjava_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/export/jsjava"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// bundle wraps a declaration (and top-level code) as esbuild bundles a
// function file for ptfsh export.
func bundle(top, decl string) string {
	return `var __ptfsh_module = (() => {
  var __defProp = Object.defineProperty;
  var __export = (target, all) => {
    for (var name in all)
      __defProp(target, name, { get: all[name], enumerable: true });
  };
  var __toCommonJS = (mod) => mod;

  // f.js
  var f_exports = {};
  __export(f_exports, {
    default: () => f_default
  });
` + top + `
  var f_default = ` + decl + `;
  return __toCommonJS(f_exports);
})();

__ptfsh_module.default;
`
}

// fn is the function the table's code runs as: state s (value), a table
// argument input and a scalar argument n.
var fn = jsjava.Func{States: []string{"s"}, Args: []jsjava.Arg{{Name: "input", Table: true}, {Name: "n"}}, OnTimer: true}

func evalDecl(body string) string {
	return `{ output: "ROW<x INT>", args: [], state: { s: { default: { c: 0, l: [] } } },
    eval(ctx, state, { input, n }) {
` + body + `
    },
    onTimer(ctx, { s }) { ctx.collect({ x: s.c }); } }`
}

func TestTranslate_constructs(t *testing.T) {
	for _, tc := range []struct {
		name, top, body string
		want            string // in the Java (translated), or in the error (refused)
		refused         bool
	}{
		{name: "let and arithmetic", body: `let a = 1; a = a * 2 + 3 - 1 / 2 % 5; state.s.c = a;`,
			want: `v_a = (Object) Double.valueOf((((JsRt.num(v_a) * 2.0) + 3.0) - ((1.0 / 2.0) % 5.0)));`},
		{name: "compound on a variable", body: `let a = "x"; a += n; a -= 1; state.s.c = a;`, want: `v_a = JsRt.add(v_a, v_n);`},
		{name: "const number", body: `const k = 2; ctx.collect({ x: k });`, want: `Object v_k = (Object) Double.valueOf(2.0);`},
		{name: "state entry write", body: `state.s = { c: 1 };`, want: `st_0 = JsRt.obj("c", (Object) Double.valueOf(1.0));`},
		{name: "state field update", body: `state.s.c++;`, want: `JsRt.update(st_0, "c", 1, false)`},
		{name: "compound on a property", body: `state.s.c += input.v;`, want: `JsRt.setOp(st_0, "c", JsRt.ADD, JsRt.field(cx, row_0, fields_0, 0))`},
		{name: "row column", body: `if (input.v > 3) ctx.collect({ x: input.v });`, want: `(JsRt.num(JsRt.field(cx, row_0, fields_0, 0)) > 3.0)`},
		{name: "scalar argument", body: `ctx.collect({ x: n });`, want: `Object v_n = arg_1;`},
		{name: "strings", body: "const m = `a${input.name}b`.toUpperCase(); if (m.startsWith(\"A\")) ctx.collect(m.length);",
			want: `JsRt.call(("" + "a" + JsRt.str(JsRt.field(cx, row_0, fields_0, 0)) + "b"), "toUpperCase")`},
		{name: "for loop", body: `for (let i = 0; i < 3; i++) { if (i === 1) continue; state.s.l.push(i); }`,
			want: `for (Object v_i = (Object) Double.valueOf(0.0); (JsRt.num(v_i) < 3.0); v_i = JsRt.inc(v_i, 1)) {`},
		{name: "for-of", body: `for (const v of state.s.l) { if (v > 2) break; }`, want: `java.util.List<Object> v__u0023list = JsRt.iter(JsRt.get(st_0, "l"));`},
		{name: "while and do", body: `let i = 0; while (i < 2) { i++; } do { i--; } while (i > 0);`, want: `do {`},
		{name: "shadowing", body: `let a = 1; { let a = 2; state.s.c = a; }`, want: `Object v_a_2 = (Object) Double.valueOf(2.0);`},
		{name: "var hoisted", body: `if (true) { var h = 1; } state.s.c = h;`, want: `Object v_h = JsRt.UNDEF;`},
		{name: "logical value", body: `const v = input.v || 5; ctx.collect({ x: v ?? 1 });`, want: `(!JsRt.nullish(v_v) ? v_v : (Object) Double.valueOf(1.0))`},
		{name: "null checks", body: `if (input.v === null || input.v == undefined || input.v !== undefined) return;`,
			want: `(JsRt.field(cx, row_0, fields_0, 0) == null) || JsRt.nullish(`},
		{name: "Math", body: `ctx.collect({ x: Math.max(1, Math.floor(input.v / 2), Math.PI) });`, want: `JsRt.max(1.0, Math.floor(`},
		{name: "timers", body: `const tc = ctx.timeContext(); tc.registerOnTime("t", tc.time() + 10); ctx.timeContext().clearTimer("t");`,
			want: `JsRt.timer(cx.timeContext(Long.class), JsRt.str("t"), JsRt.add(JsRt.time(cx.timeContext(Long.class).time()), (Object) Double.valueOf(10.0)))`},
		{name: "new Date", body: `ctx.collect({ x: new Date(input.t.getTime() + 1) });`, want: `JsRt.newDate(`},
		{name: "throw", body: `if (n < 0) throw new Error("negative");`, want: `throw new JsRt.Thrown(JsRt.error("Error", "negative"));`},
		{name: "top-level function and constant", top: `var LIMIT = 10;
  function clamp(x) { return x > LIMIT ? LIMIT : x; }`, body: `ctx.collect({ x: clamp(input.v) });`,
			want: `private Object f_clamp(Object v_x) {`},
		{name: "typeof and ternary", body: `ctx.collect({ x: typeof n === "number" ? n : 0 });`, want: `JsRt.seq(JsRt.typeOf(v_n), "number")`},
		{name: "array index", body: `const a = [1, 2]; a[2] = 3; ctx.collect({ x: a[0] + a.length });`, want: `JsRt.set(v_a, (Object) Double.valueOf(2.0), (Object) Double.valueOf(3.0))`},
		{name: "onTimer", body: `state.s.c = 1;`, want: `out(JsRt.obj("x", JsRt.get(v_s, "c")));`},

		{name: "closure", body: `const f = (x) => ctx.collect(x);`, want: "a function expression (closures)", refused: true},
		{name: "try", body: `try { n.x(); } catch (e) {}`, want: "try/catch", refused: true},
		{name: "switch", body: `switch (n) { case 1: break; }`, want: "switch", refused: true},
		{name: "regexp", body: `const r = /a/;`, want: "a regular expression", refused: true},
		{name: "console", body: `console.log(n);`, want: "console.log", refused: true},
		{name: "JSON", body: `ctx.collect(JSON.stringify(state.s));`, want: "JSON.stringify", refused: true},
		{name: "Math.random", body: `ctx.collect(Math.random());`, want: "Math.random()", refused: true},
		{name: "unknown method", body: `state.s.l.sort();`, want: "the method .sort()", refused: true},
		{name: "row as a value", body: `ctx.collect(input);`, want: "ctx, the state or the arguments as a value", refused: true},
		{name: "row method", body: `ctx.collect(input.getField(0));`, want: "the method .getField()", refused: true},
		{name: "collect with a kind", body: `ctx.collect({ x: 1 }, "-D");`, want: "collect with a RowKind", refused: true},
		{name: "clearState", body: `ctx.clearState("s");`, want: "ctx.clearState()", refused: true},
		{name: "in", body: `if ("v" in input) return;`, want: "the in operator", refused: true},
		{name: "labelled break", body: `a: for (;;) { break a; }`, want: "a label", refused: true},
		{name: "destructuring", body: `const { c } = state.s;`, want: "a destructuring declaration", refused: true},
		{name: "assignment in an expression", body: `let a; if ((a = n)) return;`, want: "an assignment to a variable inside an expression", refused: true},
		{name: "spread", body: `ctx.collect({ ...state.s });`, want: "a spread in an object literal", refused: true},
		{name: "bigint", body: `ctx.collect(1n);`, want: "a BigInt", refused: true},
		{name: "this", body: `ctx.collect(this.output);`, want: "this", refused: true},
		{name: "optional chaining", body: `ctx.collect(state.s?.c);`, want: "optional chaining", refused: true},
		{name: "top-level side effect", top: `console.log("loaded");`, body: ``, want: "a top-level statement that runs when the module loads", refused: true},
		{name: "undeclared state", body: `state.t = 1;`, want: `a state entry "t" that is not a value state entry`, refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := jsjava.Translate(bundle(tc.top, evalDecl(tc.body)), fn)
			if tc.refused {
				var u *jsjava.Unsupported
				if !errors.As(err, &u) {
					t.Fatalf("translated, want refused with %q:\n%s", tc.want, j.Eval)
				}
				if !strings.Contains(u.Error(), tc.want) {
					t.Errorf("refused with %q, want %q", u.Error(), tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			all := j.Fields + j.Init + j.Methods + j.Eval + j.OnTimer
			if !strings.Contains(all, tc.want) {
				t.Errorf("the Java lacks %q:\n%s", tc.want, all)
			}
		})
	}
}

// TestTranslate_golden translates functions as ptfsh export bundles them
// (testdata/*.bundle.js, written by ptfsh export flink from examples/)
// and compares the Java with testdata/*.java; -update rewrites those.
func TestTranslate_golden(t *testing.T) {
	for name, f := range map[string]jsjava.Func{
		"delay_streak":       {States: []string{"streak"}, Args: []jsjava.Arg{{Name: "flights", Table: true}}},
		"no_departure_alert": {States: []string{"silence"}, Args: []jsjava.Arg{{Name: "flights", Table: true}}, OnTimer: true},
	} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", name+".bundle.js"))
			if err != nil {
				t.Fatal(err)
			}
			j, err := jsjava.Translate(string(src), f)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("// fields\n%s// init\n%s// methods\n%s// defaults\n%s\n// eval\n%s// onTimer\n%s",
				j.Fields, j.Init, j.Methods, strings.Join(j.Defaults, "\n"), j.Eval, j.OnTimer)
			golden := filepath.Join("testdata", name+".java")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("%s (-want +got):\n%s", golden, d)
			}
		})
	}
}

// FuzzTranslate: any text (a function's body, or a whole script) either
// translates or is refused with an *Unsupported; it never panics.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{`state.s.c++;`, `for (const x of [1, 2]) ctx.collect({ x });`, "ctx.collect(`${n}`);",
		`let a = input.v ?? 0; while (a > 0) a--;`, `if (n) { var q = 1; } else return q;`, `ctx.timeContext().registerOnTime(n);`} {
		f.Add(s, false)
	}
	f.Add(bundle("", evalDecl(`state.s.c = 1;`)), true)
	f.Fuzz(func(t *testing.T, src string, whole bool) {
		if !whole {
			src = bundle("", evalDecl(src))
		}
		j, err := jsjava.Translate(src, fn)
		if err != nil {
			var u *jsjava.Unsupported
			if !errors.As(err, &u) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if j.Eval == "" && !strings.Contains(src, "eval") {
			t.Fatalf("translated a script without eval")
		}
	})
}
