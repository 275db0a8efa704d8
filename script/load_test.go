package script_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/script"
)

func newEngine(t *testing.T, dir string) *script.Engine {
	t.Helper()
	seed := int64(1)
	e := script.NewEngine(script.Options{
		ParseType: script.ParseTypeForTest,
		Seed:      &seed,
		BaseDir:   dir,
		Stdlib: fstest.MapFS{
			"fmt.js":        {Data: []byte("export function bang(s) { return s + '!'; }\nexport function boom() {\n  throw new Error('stdlib boom');\n}\n")},
			"util/index.ts": {Data: []byte("export const twice = (n: number): number => n * 2;\n")},
		},
	})
	t.Cleanup(func() { e.Close() })
	return e
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const countClicks = `// count_clicks.js — keeps a click count per key (set semantics)
export default {
  output: "ROW<url STRING, click_count BIGINT>",
  args: [
    { name: "input", traits: ["SET_SEMANTIC_TABLE"] },
    { name: "min_view_time", type: "INT", optional: true },
  ],
  state: {
    clicks: { default: { count: 0 }, ttl: "1 hour" },
    last: { type: "ROW<url STRING>", ttl: "0" },
    seen: { kind: "map", type: "MAP<STRING, INT>" },
    log: { kind: "list", type: "ARRAY<STRING>" },
  },
  eval(ctx, { clicks }, { input, min_view_time }) {
    clicks.count++;
    ctx.collect({ url: input.url, click_count: clicks.count });
  },
  onTimer(ctx, { clicks }) {},
  changelog: "upsert",
};
`

func TestEngine_Load_declaration(t *testing.T) {
	e := newEngine(t, t.TempDir())
	def, err := e.Load("count_clicks", "count_clicks.js", countClicks)
	if err != nil {
		t.Fatal(err)
	}
	if def.Name != "count_clicks" || def.File != "count_clicks.js" || def.Language != "JAVASCRIPT" || !def.HasOnTimer {
		t.Errorf("def = %+v", def)
	}
	if got, want := def.Output.String(), "ROW<`url` STRING, `click_count` BIGINT>"; got != want {
		t.Errorf("output = %s, want %s", got, want)
	}
	if len(def.Args) != 2 {
		t.Fatalf("args = %+v", def.Args)
	}
	if a := def.Args[0]; a.Name != "input" || a.Traits != ptf.SetSemanticTable || a.Type != nil || !a.IsTable() {
		t.Errorf("arg 0 = %+v", a)
	}
	if a := def.Args[1]; a.Name != "min_view_time" || a.Traits != 0 || a.Type == nil || a.Type.String() != "INT" || !a.Optional {
		t.Errorf("arg 1 = %+v", a)
	}
	want := []struct {
		name   string
		kind   ptf.StateKind
		typ    string
		ttl    time.Duration
		ttlSet bool
	}{
		{"clicks", ptf.ValueState, "", time.Hour, true},
		{"last", ptf.ValueState, "ROW<`url` STRING>", 0, true},
		{"seen", ptf.MapState, "MAP<STRING, INT>", 0, false},
		{"log", ptf.ListState, "ARRAY<STRING>", 0, false},
	}
	if len(def.State) != len(want) {
		t.Fatalf("state = %+v", def.State)
	}
	for i, w := range want {
		s := def.State[i]
		typ := ""
		if s.Type != nil {
			typ = s.Type.String()
		}
		if s.Name != w.name || s.Kind != w.kind || typ != w.typ || s.TTL != w.ttl || s.TTLSet != w.ttlSet {
			t.Errorf("state %d = %+v (type %s), want %+v", i, s, typ, w)
		}
	}
	cl, ok := e.Changelog(def)
	if !ok || cl.Mode != "upsert" || cl.Func {
		t.Errorf("changelog = %+v %v", cl, ok)
	}
	mode, err := e.ChangelogMode(def, []types.ChangelogMode{types.InsertOnly}, types.ChangelogMode{KeyOnlyDeletes: true})
	if err != nil || mode.String() != "[INSERT, UPDATE_AFTER, ~DELETE]" {
		t.Errorf("changelog mode = %v, %v", mode, err)
	}
}

func TestEngine_Load_forms(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"lib/helper.ts": "export function hello(n: string): string { return `Hello ${n}`; }\n",
		"cjs.js":        "module.exports = { output: 'STRING', eval() {} };\n",
	})
	tests := []struct {
		name, file, src, lang string
	}{
		{"plain_inline", "", `({ output: "STRING", eval(ctx, s, a) {} })`, "JAVASCRIPT"},
		{"plain_with_helpers", "", "const greet = (n) => 'Hi ' + n;\nclass C { #x = 1; get x() { return this.#x; } }\n({ output: 'STRING', eval() { return greet(new C().x); } })", "JAVASCRIPT"},
		{"esm", "f.js", `export default { output: "STRING", eval() {} };`, "JAVASCRIPT"},
		{"cjs", "cjs.js", "module.exports = { output: 'STRING', eval() {} };\n", "JAVASCRIPT"},
		{"ts_import", "g.ts", `import { hello } from "./lib/helper";
interface Args { input: { name: string } }
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx: any, _s: unknown, { input }: Args) { ctx.collect(hello(input.name)); },
};`, "TYPESCRIPT"},
		{"stdlib", "s.js", `import { bang } from "ptfsh/fmt";
import { twice } from "ptfsh/util";
export default { output: "STRING", eval(ctx) { ctx.collect(bang("x") + twice(2)); } };`, "JAVASCRIPT"},
		{"ts_plain", "p.ts", `type N = number; ({ output: "INT", eval(): N { return 1 } })`, "TYPESCRIPT"},
	}
	e := newEngine(t, dir)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def, err := e.Load(tc.name, tc.file, tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if def.Language != tc.lang {
				t.Errorf("language = %s", def.Language)
			}
		})
	}
	// A plain script with top-level declarations loads twice into the same runtime.
	if _, err := e.Load("plain_with_helpers", "", tests[1].src); err != nil {
		t.Errorf("second load: %v", err)
	}
}

func TestEngine_Load_errors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"bad_helper.js": "export function f() {\n  return 1 +;\n}\n",
		"latin1.js":     "// r\xe9sum\xe9\nexport const f = 1;\n",
		"sub/inner.js":  "export const g = 2;\n",
	})
	tests := []struct {
		name, file, src string
		want            string
	}{
		{"syntax_js", "greeting.js", "export default {\n  output: \"STRING\",\n  eval(ctx) {\n    let x = ;\n  },\n};\n",
			`greeting.js:4:13: syntax_js: SyntaxError: Unexpected ";"`},
		{"syntax_inline", "", "({\n  output: 'STRING',\n  eval() { ) }\n})",
			`<inline syntax_inline>:3:12: syntax_inline: SyntaxError: Unexpected ")"`},
		{"syntax_ts", "t.ts", "export default {\n  output: \"STRING\",\n  eval(ctx: any) { let x: = 1; },\n};\n",
			`t.ts:3:27: syntax_ts: SyntaxError: Unexpected "="`},
		{"syntax_import", "i.js", "import { f } from './bad_helper.js';\nexport default { output: 'STRING', eval() { f() } };\n",
			`bad_helper.js:2:13: syntax_import: SyntaxError: Unexpected ";"`},
		{"bare_import", "b.js", "import _ from \"lodash\";\nexport default { output: 'STRING', eval() {} };\n",
			`b.js:1:15: bare_import: cannot import "lodash": a function may import only files in its folder ("./x.js") and the stdlib ("ptfsh/...")`},
		{"absolute_import", "b.js", "import x from \"/etc/passwd\";\nexport default { output: 'STRING', eval() {} };\n",
			`b.js:1:15: absolute_import: cannot import "/etc/passwd"`},
		{"node_import", "b.js", "import fs from \"node:fs\";\nexport default { output: 'STRING', eval() {} };\n",
			`b.js:1:16: node_import: cannot import "node:fs"`},
		{"require", "r.js", "const fs = require('fs');\nmodule.exports = { output: 'STRING', eval() {} };\n",
			`r.js:1:20: require: require("fs") is not supported: a function may import only files in its folder`},
		{"unknown_stdlib", "u.js", "import { x } from 'ptfsh/nope';\nexport default { output: 'STRING', eval() {} };\n",
			`u.js:1:19: unknown_stdlib: unknown stdlib module "ptfsh/nope"`},
		{"missing_file", "m.js", "import { x } from './nope.js';\nexport default { output: 'STRING', eval() {} };\n",
			`m.js:1:19: missing_file: Could not resolve "./nope.js"`},
		{"no_default", "n.js", "export const decl = { output: 'STRING', eval() {} };\n",
			`n.js:1:1: no_default: the module has no default export`},
		{"iterator_replaced", "i.js", "Array.prototype[Symbol.iterator] = function* () { yield 1; };\nexport default { output: 'STRING', eval() {} };\n",
			`i.js:1:1: iterator_replaced: the module's default export could not be read: the module replaced how arrays iterate`},
		{"iterator_next_replaced", "i.js", "Object.getPrototypeOf([][Symbol.iterator]()).next = () => ({ done: true });\nexport default { output: 'STRING', eval() {} };\n",
			`i.js:1:1: iterator_next_replaced: the module's default export could not be read: the module replaced how arrays iterate`},
		{"not_object", "", "42", `<inline not_object>:1:1: not_object: the function's source must end in a declaration object`},
		{"missing_eval", "e.js", "export default {\n  output: 'STRING',\n};\n",
			`e.js:1:1: missing_eval: the declaration has no eval function`},
		{"eval_not_function", "e.js", "export default { output: 'STRING', eval: 3 };\n",
			`e.js:1:36: eval_not_function: eval must be a function, not number`},
		{"missing_output", "o.js", "export default { eval() {} };\n",
			`o.js:1:1: missing_output: the declaration has no output type`},
		{"bad_output", "o.js", "export default {\n  output: 'ROW<a STRNG>',\n  eval() {},\n};\n",
			`o.js:2:11: bad_output: output: invalid type "ROW<a STRNG>": unknown type "STRNG"`},
		{"reserved_on_time", "r.js", "export default {\n  output: 'STRING',\n  args: [{ name: 'on_time', type: 'DESCRIPTOR' }],\n  eval() {},\n};\n",
			`r.js:3:18: reserved_on_time: Function signature must not declare system arguments. Reserved argument names are: [on_time, uid]`},
		{"reserved_uid", "", "({ output: 'STRING', args: [{ name: 'uid', type: 'STRING' }], eval() {} })",
			`<inline reserved_uid>:1:37: reserved_uid: Function signature must not declare system arguments. Reserved argument names are: [on_time, uid]`},
		{"unknown_trait", "t.js", "export default {\n  output: 'STRING',\n  args: [{ name: 'input', traits: ['SET_SEMANTIC'] }],\n  eval() {},\n};\n",
			`t.js:3:36: unknown_trait: argument "input": unknown trait "SET_SEMANTIC"; valid traits are ROW_SEMANTIC_TABLE, SET_SEMANTIC_TABLE, OPTIONAL_PARTITION_BY, PASS_COLUMNS_THROUGH, REQUIRE_ON_TIME, SUPPORT_UPDATES, REQUIRE_UPDATE_BEFORE, REQUIRE_FULL_DELETE`},
		{"both_semantics", "", "({ output: 'STRING', args: [{ name: 't', traits: ['ROW_SEMANTIC_TABLE', 'SET_SEMANTIC_TABLE'] }], eval() {} })",
			`both_semantics: argument "t": ROW_SEMANTIC_TABLE and SET_SEMANTIC_TABLE exclude each other`},
		{"table_trait_on_scalar", "", "({ output: 'STRING', args: [{ name: 'x', type: 'INT', traits: ['PASS_COLUMNS_THROUGH'] }], eval() {} })",
			`argument "x": trait PASS_COLUMNS_THROUGH needs a table argument`},
		{"update_before_without_updates", "", "({ output: 'STRING', args: [{ name: 't', traits: ['SET_SEMANTIC_TABLE', 'REQUIRE_UPDATE_BEFORE'] }], eval() {} })",
			`argument "t": trait REQUIRE_UPDATE_BEFORE needs SUPPORT_UPDATES`},
		{"scalar_without_type", "", "({ output: 'STRING', args: [{ name: 'threshold' }], eval() {} })",
			`scalar argument "threshold" needs a type`},
		{"bad_arg_type", "a.js", "export default {\n  output: 'STRING',\n  args: [{ name: 'threshold', type: 'INTT' }],\n  eval() {},\n};\n",
			`a.js:3:37: bad_arg_type: argument "threshold": invalid type "INTT": unknown type "INTT"`},
		{"table_type_not_row", "", "({ output: 'STRING', args: [{ name: 't', traits: ['ROW_SEMANTIC_TABLE'], type: 'INT' }], eval() {} })",
			`table argument "t": type must be a ROW<...> type, not INT`},
		{"duplicate_arg", "", "({ output: 'STRING', args: [{ name: 'a', type: 'INT' }, { name: 'a', type: 'INT' }], eval() {} })",
			`duplicate argument name "a"`},
		{"arg_without_name", "", "({ output: 'STRING', args: [{ type: 'INT' }], eval() {} })",
			`args[0] needs a name`},
		{"args_not_array", "", "({ output: 'STRING', args: { a: 1 }, eval() {} })",
			`args must be an array`},
		{"bad_state_type", "s.js", "export default {\n  output: 'STRING',\n  state: { s: { type: 'ROW<i INTEGR>' } },\n  eval() {},\n};\n",
			`s.js:3:23: bad_state_type: state entry "s": invalid type "ROW<i INTEGR>": unknown type "INTEGR"`},
		{"state_type_kind", "", "({ output: 'STRING', state: { s: { kind: 'list', type: 'MAP<INT, INT>' } }, eval() {} })",
			`state entry "s": a list entry needs a ARRAY<T> type, not MAP<INT, INT>`},
		{"value_state_not_row", "", "({ output: 'STRING', state: { s: { type: 'INT' } }, eval() {} })",
			`state entry "s": a value entry needs a ROW<...> type, not INT`},
		{"bad_kind", "", "({ output: 'STRING', state: { s: { kind: 'bag' } }, eval() {} })",
			`state entry "s": unknown kind "bag"; valid kinds are value, list, map`},
		{"bad_ttl", "d.js", "export default {\n  output: 'STRING',\n  state: { s: { ttl: '1 hourz' } },\n  eval() {},\n};\n",
			`d.js:3:22: bad_ttl: state entry "s": ttl: invalid duration "1 hourz": unknown unit "hourz"`},
		{"bad_default", "", "({ output: 'STRING', state: { s: { default: { f() {} } } }, eval() {} })",
			`state entry "s": default: f: cannot keep a function in state`},
		{"state_entry_not_object", "", "({ output: 'STRING', state: { s: 5 }, eval() {} })",
			`state entry "s" must be an object`},
		{"bad_changelog", "", "({ output: 'STRING', changelog: 'sometimes', eval() {} })",
			`changelog must be one of "insert-only", "retract", "upsert", "all" or a function (cctx) => mode, not "sometimes" (string)`},
		{"on_timer_not_function", "", "({ output: 'STRING', onTimer: 'x', eval() {} })",
			`onTimer must be a function, not string`},
		{"unicode_column", "", "const s = \"🎉🎉\"; throw new Error(s)",
			`<inline unicode_column>:1:23: unicode_column: Error: 🎉🎉`},
		{"syntax_unicode", "", "const é = 1 +;",
			`<inline syntax_unicode>:1:14: syntax_unicode: SyntaxError: Unexpected ";"`},
		{"throw_string", "", "throw 'plain'", `<inline throw_string>:1:1: throw_string: plain`},
		// esbuild loops forever on a source that ends inside a UTF-8
		// sequence (found by FuzzLoad): invalid UTF-8 is a load error.
		{"invalid_utf8_end", "", "// count_clicks.js \xe2",
			`<inline invalid_utf8_end>:1:20: invalid_utf8_end: invalid UTF-8 (byte 0xe2): a function's source must be UTF-8 text`},
		{"invalid_utf8", "u.js", "export default {\n  output: 'STRING', // caf\xe9\n  eval() {},\n};\n",
			`u.js:2:27: invalid_utf8: invalid UTF-8 (byte 0xe9)`},
		{"invalid_utf8_import", "i.js", "import { f } from './latin1.js';\nexport default { output: 'STRING', eval() { f } };\n",
			`latin1.js:1:5: invalid_utf8_import: invalid UTF-8 (byte 0xe9): a function's source must be UTF-8 text`},
		{"import_parent", "sub/p.js", "import { f } from '../bad_helper.js';\nexport default { output: 'STRING', eval() { f } };\n",
			`sub/p.js:1:19: import_parent: cannot import "../bad_helper.js": it is outside the function's folder`},
		{"throw_at_load", "x.js", "function check() {\n  throw new TypeError('not ready');\n}\ncheck();\nexport default { output: 'STRING', eval() {} };\n",
			`x.js:2:9: throw_at_load: TypeError: not ready`},
		{"throw_in_stdlib", "y.js", "import { boom } from 'ptfsh/fmt';\nboom();\nexport default { output: 'STRING', eval() {} };\n",
			`ptfsh/fmt.js:3:9: throw_in_stdlib: Error: stdlib boom`},
	}
	e := newEngine(t, dir)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Load(tc.name, tc.file, tc.src)
			if err == nil {
				t.Fatalf("no error, want %s", tc.want)
			}
			var se *script.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v is not a *script.Error", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n got %s\nwant %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has several lines: %q", err)
			}
		})
	}
}

// TestEngine_Load_importSubfolder imports a file from a folder under the
// function's own: allowed, as files beside it are.
func TestEngine_Load_importSubfolder(t *testing.T) {
	dir := writeFiles(t, map[string]string{"lib/inner.js": "export const g = 2;\n"})
	e := newEngine(t, dir)
	if _, err := e.Load("p", "p.js", "import { g } from './lib/inner.js';\nexport default { output: 'INT', eval(ctx) { ctx.collect(g); } };\n"); err != nil {
		t.Fatal(err)
	}
}

func TestEngine_Load_sandbox(t *testing.T) {
	e := newEngine(t, t.TempDir())
	src := `const g = globalThis;
const kinds = [g.require, g.process, g.fetch, g.setTimeout, g.setInterval, g.console, g.module,
  g.exports, g.XMLHttpRequest, g.Deno, g.Bun, g.print, g.load, g.readFile].map(x => typeof x);
if (kinds.some(k => k !== "undefined")) throw new Error("sandbox leaks: " + kinds.join(","));
({ output: "STRING", eval() {} })`
	if _, err := e.Load("sandbox", "", src); err != nil {
		t.Fatal(err)
	}
}

func TestEngine_Load_seed(t *testing.T) {
	// Read Math.random through an error message: the same seed gives the same numbers.
	draw := func() string {
		e := newEngine(t, t.TempDir())
		_, err := e.Load("r", "", "throw [Math.random(), Math.random()].join()")
		return strings.TrimPrefix(err.Error(), "<inline r>:1:1: r: ")
	}
	a, b := draw(), draw()
	if a != b || !strings.Contains(a, ",0.") {
		t.Errorf("seeded Math.random: %q vs %q", a, b)
	}
}

func TestEngine_Load_timeout(t *testing.T) {
	e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest, EvalTimeout: 50 * time.Millisecond})
	defer e.Close()
	_, err := e.Load("loop", "loop.js", "while (true) {}\nexport default { output: 'STRING', eval() {} };\n")
	if !errors.Is(err, ptf.ErrLimit) {
		t.Fatalf("err = %v, want ErrLimit", err)
	}
	if !strings.HasPrefix(err.Error(), "loop.js:1:") || !strings.Contains(err.Error(), "eval timeout of 50ms") {
		t.Errorf("err = %v", err)
	}
}

func TestEngine_ChangelogMode_function(t *testing.T) {
	e := newEngine(t, t.TempDir())
	def, err := e.Load("cl", "cl.js", `export default {
  output: "ROW<name STRING, count BIGINT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE", "SUPPORT_UPDATES"] }],
  changelog(cctx) {
    const req = cctx.getRequiredChangelogMode();
    if (String(cctx.getTableChangelogMode(0)) === "[INSERT]") return "insert-only";
    return { kinds: ["INSERT", "UPDATE_AFTER", "DELETE"], keyOnlyDeletes: req.keyOnlyDeletes };
  },
  eval() {},
};`)
	if err != nil {
		t.Fatal(err)
	}
	if cl, _ := e.Changelog(def); !cl.Func {
		t.Errorf("changelog = %+v", cl)
	}
	for _, tc := range []struct {
		table, required types.ChangelogMode
		want            string
	}{
		{types.InsertOnly, types.RetractAll, "[INSERT]"},
		{types.RetractAll, types.ChangelogMode{KeyOnlyDeletes: true}, "[INSERT, UPDATE_AFTER, ~DELETE]"},
		{types.RetractAll, types.RetractAll, "[INSERT, UPDATE_AFTER, DELETE]"},
	} {
		m, err := e.ChangelogMode(def, []types.ChangelogMode{tc.table}, tc.required)
		if err != nil || m.String() != tc.want {
			t.Errorf("ChangelogMode(%v, %v) = %v, %v; want %s", tc.table, tc.required, m, err, tc.want)
		}
	}
	bad, err := e.Load("bad", "bad.js", "export default {\n  output: 'STRING',\n  changelog() {\n    return null.x;\n  },\n  eval() {},\n};\n")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.ChangelogMode(bad, nil, types.InsertOnly)
	if err == nil || !strings.HasPrefix(err.Error(), "bad.js:4:") {
		t.Errorf("err = %v", err)
	}
}

func TestTypeDefinitions(t *testing.T) {
	if !strings.Contains(script.TypeDefinitions, "interface PTF<") {
		t.Fatal("ptf.d.ts is not embedded")
	}
	// A TypeScript function that uses the declarations compiles.
	dir := writeFiles(t, map[string]string{"ptf.d.ts": script.TypeDefinitions})
	e := newEngine(t, dir)
	src := `/// <reference path="ptf.d.ts" />
export default {
  output: "ROW<url STRING, click_count BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { clicks: { default: { count: 0 } } },
  eval(ctx, { clicks }, { input }) {
    clicks.count++;
    ctx.collect({ url: input.url, click_count: clicks.count }, RowKind.INSERT);
  },
} satisfies PTF<{ clicks: { count: number } }, { input: Row }>;
`
	if _, err := e.Load("typed", "typed.ts", src); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Load("dts", "ptf.d.ts", script.TypeDefinitions+"\n({ output: 'STRING', eval() {} })"); err != nil {
		t.Fatalf("ptf.d.ts does not parse: %v", err)
	}
}
