package script_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/script"
	"github.com/ptfsh/ptfsh/state"
)

var names = types.Schema{Columns: []types.Column{
	{Name: "name", Type: types.TypeString},
	{Name: "score", Type: types.TypeInt},
}}

func nameRows(vals ...any) []types.Row {
	var rows []types.Row
	for i := 0; i+1 < len(vals); i += 2 {
		rows = append(rows, types.NewRow(vals[i], vals[i+1]))
	}
	return rows
}

// harness loads src and binds it to rows of names (partitioned by name
// when the function has set semantics).
func harness(t *testing.T, e *script.Engine, file, src string, opts ptfop.HarnessOptions) *ptfop.Harness {
	t.Helper()
	name := strings.TrimSuffix(strings.TrimSuffix(file, ".js"), ".ts")
	if file == "" {
		name = "f"
	}
	def, err := e.Load(name, file, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range def.Args {
		if a.Traits.Has(ptf.SetSemanticTable) && opts.PartitionBy == nil {
			opts.PartitionBy = []string{"name"}
		}
	}
	h, err := ptfop.NewHarness(def, names, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func formatRows(rows []types.Row, s types.Schema) string {
	var out []string
	for _, r := range rows {
		out = append(out, types.FormatRow(r, s))
	}
	return strings.Join(out, "\n")
}

func process(t *testing.T, h *ptfop.Harness, rows ...types.Row) string {
	t.Helper()
	out, err := h.Process(rows...)
	if err != nil {
		t.Fatal(err)
	}
	return formatRows(out, h.Schema())
}

func newEvalEngine(t *testing.T) *script.Engine {
	t.Helper()
	e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest, FormatRow: types.FormatRow})
	t.Cleanup(func() { e.Close() })
	return e
}

const greetingWithMemory = `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { memory: { default: { counter: 0 } } },
  eval(ctx, { memory }, { input }) {
    memory.counter++;
    ctx.collect("Hello " + input.name + ", your " + memory.counter + " time?");
  },
};
`

func TestInstance_Eval_greetingWithMemory(t *testing.T) {
	e := newEvalEngine(t)
	store := state.NewMem()
	h := harness(t, e, "greeting.js", greetingWithMemory, ptfop.HarnessOptions{Store: store})
	got := process(t, h, nameRows("Bob", 1, "Alice", 2, "Bob", 3)...)
	want := "+I[Bob, Hello Bob, your 1 time?]\n+I[Alice, Hello Alice, your 1 time?]\n+I[Bob, Hello Bob, your 2 time?]"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// State survives a flush and a new instance (through Encode/DecodeState).
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	def, err := e.Load("greeting", "greeting.js", greetingWithMemory)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := ptfop.NewHarness(def, names, ptfop.HarnessOptions{Store: store, PartitionBy: []string{"name"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	if got := process(t, h2, nameRows("Bob", 4)...); got != "+I[Bob, Hello Bob, your 3 time?]" {
		t.Errorf("after restore: %s", got)
	}
}

func TestInstance_Eval_collect(t *testing.T) {
	tests := []struct {
		name, output, body string
		want               string
		err                string
	}{
		{"object", "ROW<url STRING, click_count BIGINT>", `ctx.collect({ url: input.name, click_count: input.score * 2 })`, "+I[Bob, 24]", ""},
		{"array", "ROW<url STRING, click_count BIGINT>", `ctx.collect([input.name, 7])`, "+I[Bob, 7]", ""},
		{"row_object", "ROW<score INT, name STRING>", `ctx.collect(input)`, "+I[12, Bob]", ""},
		{"missing_field_is_null", "ROW<url STRING, n INT>", `ctx.collect({ url: "u" })`, "+I[u, null]", ""},
		{"scalar", "BIGINT", `ctx.collect(input.score + 1)`, "+I[13]", ""},
		{"scalar_null", "STRING", `ctx.collect(null)`, "+I[null]", ""},
		{"single_column_row", "ROW<out STRING>", `ctx.collect("x")`, "+I[x]", ""},
		{"date", "TIMESTAMP_LTZ(3)", `ctx.collect(new Date(1))`, "+I[1970-01-01T00:00:00.001Z]", ""},
		{"map", "MAP<STRING, INT>", `ctx.collect(new Map([["A", 1], ["B", 2]]))`, "+I[{A=1, B=2}]", ""},
		{"twice", "INT", `ctx.collect(1); ctx.collect(2)`, "+I[1]\n+I[2]", ""},
		{"wrong_type", "ROW<url STRING, click_count BIGINT>", `ctx.collect({ url: "u", click_count: "abc" })`, "",
			`greeting.js:4:13: greeting: TypeError: collect: column "click_count" (BIGINT): cannot use "abc" (string)`},
		{"wrong_arity", "ROW<url STRING, click_count BIGINT>", `ctx.collect(["u"])`, "",
			`TypeError: collect: an array of 1 values for 2 columns (url, click_count)`},
		{"not_null", "INT NOT NULL", `ctx.collect(undefined)`, "",
			`TypeError: collect: column "EXPR$0" (INT NOT NULL): cannot use undefined`},
		{"primitive_for_row", "ROW<a INT, b INT>", `ctx.collect(5)`, "",
			`TypeError: collect: cannot use 5 (number): the output is ROW<` + "`a` INT, `b` INT>; pass an object by column name or an array of 2 values"},
		{"bad_kind", "INT", `ctx.collect(1, "sideways")`, "",
			`TypeError: collect: the second argument must be a RowKind (RowKind.INSERT, ...), not "sideways" (string)`},
		{"invalid_kind", "INT", `ctx.collect(1, RowKind.DELETE)`, "",
			`greeting.js:4:13: greeting: Invalid row kind received: DELETE. Expected produced changelog mode: [INSERT]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEvalEngine(t)
			// The body starts at line 4, column 9.
			src := "export default { output: '" + tc.output + "',\n" +
				"  args: [{ name: 'input', traits: ['ROW_SEMANTIC_TABLE'] }],\n" +
				"  eval(ctx, s, { input }) {\n" +
				"        " + tc.body + ";\n" +
				"  },\n};\n"
			h := harness(t, e, "greeting.js", src, ptfop.HarnessOptions{})
			out, err := h.Process(types.NewRow("Bob", int64(12)))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := formatRows(out, h.Schema()); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestInstance_Eval_state(t *testing.T) {
	tests := []struct {
		name  string
		state string
		body  string
		want  string
	}{
		// F-ClearStateFunction: the next call after clearState sees a fresh default.
		{"clear_state", `s: { default: { s: null, i: 99 } }`,
			`ctx.collect(JSON.stringify(s) + " " + String(input)); if (input.name === "Bob" && s.i === 100) ctx.clearState("s"); else s.i++;`,
			`+I[Bob, {"s":null,"i":99} +I[Bob, 1]]
+I[Bob, {"s":null,"i":100} +I[Bob, 2]]
+I[Bob, {"s":null,"i":99} +I[Bob, 3]]
+I[Bob, {"s":null,"i":100} +I[Bob, 4]]`},
		// Changes after clearState in the same call are discarded.
		{"clear_then_change", `s: { default: { n: 0 } }`,
			`ctx.collect(String(s.n)); ctx.clearState("s"); s.n = 42;`,
			"+I[Bob, 0]\n+I[Bob, 0]\n+I[Bob, 0]\n+I[Bob, 0]"},
		{"reassign", `s: {}`,
			`state.s = { n: (state.s.n ?? 0) + 1 }; ctx.collect(String(state.s.n));`,
			"+I[Bob, 1]\n+I[Bob, 2]\n+I[Bob, 3]\n+I[Bob, 4]"},
		// F-MultiStateFunction: ROW-typed entries start with null fields.
		{"row_state", `s1: { type: "ROW<i INT>" }, s2: { type: "ROW<s STRING>" }`,
			`ctx.collect(JSON.stringify([s1, s2])); const i = s1.i ?? 0; s1.i = i + 1; s2.s = String(i);`,
			`+I[Bob, [{"i":null},{"s":null}]]
+I[Bob, [{"i":1},{"s":"0"}]]
+I[Bob, [{"i":2},{"s":"1"}]]
+I[Bob, [{"i":3},{"s":"2"}]]`},
		// A row kept in state keeps its values (rows are not reused).
		{"keep_row", `last: { default: { row: null } }`,
			`ctx.collect(last.row === null ? "none" : String(last.row) + " " + last.row.score); last.row = input;`,
			"+I[Bob, none]\n+I[Bob, +I[Bob, 1] 1]\n+I[Bob, +I[Bob, 2] 2]\n+I[Bob, +I[Bob, 3] 3]"},
		{"clear_all", `a: { default: { n: 0 } }, b: { default: { n: 10 } }`,
			`ctx.collect(a.n + "/" + b.n); a.n++; b.n++; if (a.n === 2) ctx.clearAllState();`,
			"+I[Bob, 0/10]\n+I[Bob, 1/11]\n+I[Bob, 0/10]\n+I[Bob, 1/11]"},
		{"list_and_map", `l: { kind: "list", type: "ARRAY<STRING>" }, m: { kind: "map", type: "MAP<STRING, INT>" }`,
			`l.add(input.name); m.put(input.name, (m.get(input.name) ?? 0) + 1); ctx.collect(l.size() + " " + m.get("Bob"));`,
			"+I[Bob, 1 1]\n+I[Bob, 2 2]\n+I[Bob, 3 3]\n+I[Bob, 4 4]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEvalEngine(t)
			src := `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { ` + tc.state + ` },
  eval(ctx, state, { input }) {
    const { ` + stateNames(tc.state) + ` } = state;
    ` + tc.body + `
  },
};`
			h := harness(t, e, "f.js", src, ptfop.HarnessOptions{})
			got := process(t, h, nameRows("Bob", 1, "Bob", 2, "Bob", 3, "Bob", 4)...)
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// stateNames lists the entry names of a state declaration body like
// `a: {...}, b: {...}` (top-level keys only).
func stateNames(decl string) string {
	var names []string
	depth := 0
	start := 0
	for i, c := range decl {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case ':':
			if depth == 0 {
				names = append(names, strings.TrimSpace(strings.TrimLeft(decl[start:i], ", ")))
			}
		case ',':
			if depth == 0 {
				start = i + 1
			}
		}
	}
	return strings.Join(names, ", ")
}

func TestInstance_Eval_row(t *testing.T) {
	e := newEvalEngine(t)
	src := `export default {
  output: "STRING",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }, { name: "i", type: "INT" }],
  eval(ctx, s, { r, i }) {
    const sem = ctx.tableSemanticsFor("r");
    ctx.collect([
      r.getField(0), r.getField("score"), r.getFieldAs("name"), r.getArity(), String(r.getKind()),
      r.getKind().shortString(), r.getKind() === RowKind.UPDATE_AFTER, r.toString(), JSON.stringify(r),
      Object.keys(r).join("|"), JSON.stringify({ ...r }), "name" in r, i,
      String(sem.partitionByColumns()), String(sem.changelogMode()), String(sem.dataType()), sem.timeColumn(),
      String(ctx.getChangelogMode()), ctx.currentTimer(), ctx.timeContext().time(),
    ].join(" "));
  },
};`
	h := harness(t, e, "f.js", src, ptfop.HarnessOptions{Args: map[string]any{"i": int64(7)}})
	got := process(t, h, types.Row{Kind: types.UpdateAfter, Fields: []any{"Bob", int64(12)}})
	want := "+I[Bob, Bob 12 Bob 2 UPDATE_AFTER +U true +U[Bob, 12] {\"name\":\"Bob\",\"score\":12} name|score {\"name\":\"Bob\",\"score\":12} true 7 " +
		"[0] [INSERT] ROW<`name` STRING, `score` INT> -1 [INSERT]  ]"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestInstance_Eval_rowErrors(t *testing.T) {
	tests := []struct{ body, want string }{
		{`r.name = "x"`, `TypeError: cannot set "name": rows are read-only`},
		{`r.getField(5)`, `TypeError: getField: index 5 out of range for a row of arity 2`},
		{`r.getField("nope")`, `TypeError: getField: unknown field name "nope"; the row has name, score`},
		{`args.r = 1`, `TypeError: cannot set args.r: arguments are read-only`},
		{`state.nope = 1`, `TypeError: cannot set state.nope: no state entry "nope" is declared (declared: s)`},
		{`ctx.clearState("nope")`, `TypeError: clearState: no state entry "nope" is declared (declared: s)`},
		{`ctx.tableSemanticsFor("x")`, `TypeError: tableSemanticsFor: "x" is not a table argument of f`},
		{`ctx.timeContext().registerOnTime("t", "soon")`, `TypeError: registerOnTime: a time must be epoch milliseconds (a number) or a Date, not "soon" (string)`},
	}
	for _, tc := range tests {
		t.Run(tc.body, func(t *testing.T) {
			e := newEvalEngine(t)
			src := `export default {
  output: "STRING",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: {} },
  eval(ctx, state, args) {
    const { r } = args;
    ` + tc.body + `;
  },
};`
			h := harness(t, e, "f.js", src, ptfop.HarnessOptions{})
			_, err := h.Process(types.NewRow("Bob", int64(1)))
			if err == nil || !strings.Contains(err.Error(), "f.js:7:") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want f.js:7:...: %s", err, tc.want)
			}
		})
	}
}

func TestInstance_Eval_exception(t *testing.T) {
	src := `import { explode } from "./helper.ts";

interface Input { name: string }

export default {
  output: "STRING",
  args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx: any, _s: unknown, { input }: { input: Input }) {
    if (input.name === "Bob") {
      const missing: any = undefined;
      ctx.collect(missing.x);
    }
    explode(input.name);
  },
};
`
	dir := writeFiles(t, map[string]string{
		"greeting.ts": src,
		"helper.ts":   "// helper\nexport function explode(name: string): never {\n  throw new RangeError(`no ${name}`);\n}\n",
	})
	e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest, BaseDir: dir})
	defer e.Close()
	def, err := e.Load("greeting", "greeting.ts", src)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ptfop.NewHarness(def, names, ptfop.HarnessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, err = h.Process(types.NewRow("Bob", int64(1)))
	var se *script.Error
	if !errors.As(err, &se) {
		t.Fatalf("err %T %v is not a *script.Error", err, err)
	}
	if got, want := se.Error(), "greeting.ts:11:27: greeting: TypeError: Cannot read property 'x' of undefined"; got != want {
		t.Errorf("error\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(se.Stack, "at eval (greeting.ts:11:27)") || !strings.Contains(se.Detail(), "\n    at ") {
		t.Errorf("stack = %q", se.Stack)
	}
	_, err = h.Process(types.NewRow("Alice", int64(1)))
	if !errors.As(err, &se) {
		t.Fatalf("err %T %v", err, err)
	}
	if got, want := se.Error(), "helper.ts:3:9: greeting: RangeError: no Alice"; got != want {
		t.Errorf("error\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(se.Stack, "at explode (helper.ts:3:9)") || !strings.Contains(se.Stack, "at eval (greeting.ts:13:5)") {
		t.Errorf("stack = %q", se.Stack)
	}
}

func TestInstance_Eval_goErrors(t *testing.T) {
	e := newEvalEngine(t)
	src := `export default {
  output: "STRING",
  args: [{ name: "r", traits: ["ROW_SEMANTIC_TABLE"] }], // timers need set semantics
  eval(ctx, s, { r }) {
    try {
      ctx.timeContext().registerOnTime("t", 5);
    } catch (e) {
      ctx.collect("caught: " + e.message);
    }
    ctx.timeContext().registerOnTime(new Date(5));
  },
};`
	h := harness(t, e, "timers.js", src, ptfop.HarnessOptions{})
	out, err := h.Process(types.NewRow("Bob", int64(1)))
	if !errors.Is(err, ptf.ErrNoTimers) {
		t.Fatalf("err = %v, want ErrNoTimers", err)
	}
	if !strings.HasPrefix(err.Error(), "timers.js:10:23: timers: ") {
		t.Errorf("err = %v", err)
	}
	if len(out) != 1 || !strings.Contains(formatRows(out, h.Schema()), "caught: timers are not available") {
		t.Errorf("out = %v", formatRows(out, h.Schema()))
	}
}

func TestInstance_Eval_interrupt(t *testing.T) {
	src := `export default {
  output: "STRING",
  args: [{ name: "r", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, s, { r }) {
    if (r.name === "loop") for (;;) {}
    ctx.collect(r.name);
  },
};`
	t.Run("cancel", func(t *testing.T) {
		e := newEvalEngine(t)
		ctx, cancel := context.WithCancel(context.Background())
		h := harness(t, e, "loop.js", src, ptfop.HarnessOptions{Ctx: ctx})
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := h.Process(types.NewRow("loop", int64(1)))
		if !errors.Is(err, ptf.ErrInterrupted) || !strings.HasPrefix(err.Error(), "loop.js:5:") {
			t.Fatalf("err = %v", err)
		}
		// A cancelled statement does not run further calls.
		_, err = h.Process(types.NewRow("Bob", int64(1)))
		if !errors.Is(err, ptf.ErrInterrupted) {
			t.Fatalf("after cancel: %v", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest, EvalTimeout: time.Hour})
		defer e.Close()
		e.SetEvalTimeout(60 * time.Millisecond)
		h := harness(t, e, "loop.js", src, ptfop.HarnessOptions{})
		_, err := h.Process(types.NewRow("loop", int64(1)))
		if !errors.Is(err, ptf.ErrLimit) || errors.Is(err, ptf.ErrInterrupted) || !strings.Contains(err.Error(), "eval timeout of 60ms") {
			t.Fatalf("err = %v", err)
		}
		// The runtime is usable again.
		if got := process(t, h, types.NewRow("Bob", int64(1))); got != "+I[Bob]" {
			t.Errorf("after timeout: %s", got)
		}
	})
}

func TestInstance_Eval_tableless(t *testing.T) {
	e := newEvalEngine(t)
	src := `({
  output: "ROW<out STRING>",
  args: [{ name: "i", type: "INT" }, { name: "b", type: "BOOLEAN" }, { name: "d", type: "INTERVAL DAY TO SECOND" },
         { name: "c", type: "DESCRIPTOR", optional: true }, { name: "m", type: "MAP<STRING, STRING>" }],
  eval(ctx, s, { i, b, d, c, m }) {
    ctx.collect({ out: [i, b, d, c, m.get("A")].map(String).join(", ") });
  },
})`
	def, err := e.Load("scalars", "", src)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ptfop.NewHarness(def, types.Schema{}, ptfop.HarnessOptions{Args: map[string]any{
		"i": int64(42), "b": true, "d": types.Duration(1000),
		"m": &types.Map{Keys: []any{"A"}, Values: []any{"1"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if got := process(t, h); got != "+I[42, true, 1000, null, 1]" {
		t.Errorf("got %s", got)
	}
}

func TestInstance_Eval_typedTable(t *testing.T) {
	e := newEvalEngine(t)
	src := `export default {
  output: "STRING",
  args: [{ name: "u", traits: ["SET_SEMANTIC_TABLE"], type: "ROW<s STRING, i INT>" }],
  eval(ctx, state, { u }) { ctx.collect(u.s + "/" + u.i + "/" + ("name" in u) + " " + u); },
};`
	h := harness(t, e, "typed.js", src, ptfop.HarnessOptions{})
	if got := process(t, h, types.NewRow("Bob", int64(12))); got != "+I[Bob, Bob/12/false +I[Bob, 12]]" {
		t.Errorf("got %s", got)
	}
}

// TestEngine_Load_runtimeParseType loads a declaration with the parser the
// wiring passes.
func TestEngine_Load_runtimeParseType(t *testing.T) {
	e := script.NewEngine(script.Options{ParseType: ptf.ParseType})
	defer e.Close()
	def, err := e.Load("types", "types.js", `export default {
  output: "ROW<url STRING, click_count BIGINT>",
  args: [
    { name: "t", traits: ["SET_SEMANTIC_TABLE"], type: "ROW<name VARCHAR(5) NOT NULL, score INT NOT NULL>" },
    { name: "d", type: "INTERVAL DAY TO SECOND" },
    { name: "m", type: "MAP<BIGINT, INT>" },
    { name: "c", type: "DESCRIPTOR" },
  ],
  state: { s: { type: "ROW<i INT>" } },
  eval() {},
};`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	got = append(got, def.Output.String())
	for _, a := range def.Args {
		got = append(got, a.Type.String())
	}
	got = append(got, def.State[0].Type.String())
	want := []string{"ROW<`url` STRING, `click_count` BIGINT>", "ROW<`name` VARCHAR(5) NOT NULL, `score` INT NOT NULL>",
		"INTERVAL DAY TO SECOND", "MAP<BIGINT, INT>", "DESCRIPTOR", "ROW<`i` INT>"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("types\n got %s\nwant %s", strings.Join(got, "; "), strings.Join(want, "; "))
	}
	_, err = e.Load("bad", "bad.js", "export default {\n  output: 'STRING',\n  args: [{ name: 'x', type: 'INTT' }],\n  eval() {},\n};\n")
	if err == nil || !strings.HasPrefix(err.Error(), `bad.js:3:29: bad: argument "x": invalid type "INTT": `) {
		t.Errorf("err = %v", err)
	}
}
