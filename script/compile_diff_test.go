package script_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/script"
	"github.com/ptfsh/ptfsh/state"
)

// diffRun is what one path (compiled or goja) made of a function and its
// input: every batch's rows or error, then the state the store holds.
type diffRun struct {
	out   []string
	state string
}

// runPath runs src over batches of rows, with compiled calls on or off,
// through the runtime's harness over store (flushed after each batch, as
// checkpoints do).
func runPath(t testing.TB, compile bool, file, src string, schema types.Schema, opts ptfop.HarnessOptions, store state.Store, batches [][]types.Row) diffRun {
	t.Helper()
	e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest, NoCompile: !compile, MaxRowsPerCall: 5, EvalTimeout: 20 * time.Second})
	defer e.Close()
	def, err := e.Load(strings.TrimSuffix(file, ".js"), file, src)
	if err != nil {
		var r diffRun
		for range batches {
			r.out = append(r.out, "load: "+err.Error())
		}
		return r
	}
	opts.Store = store
	h, err := ptfop.NewHarness(def, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var r diffRun
	for _, b := range batches {
		rows, err := h.Process(b...)
		var sb strings.Builder
		for _, row := range rows {
			sb.WriteString(row.Kind.String() + fmt.Sprint(row.Fields) + "\n")
		}
		if err != nil {
			sb.WriteString("error: " + err.Error() + "\n")
			var se ptf.SourceError
			if errorsAs(err, &se) {
				line, col, _ := se.SourceLine()
				sb.WriteString(fmt.Sprintf("line %q col %d\nstack %s\n", line, col, se.JSStack()))
			}
		}
		if err := h.Flush(); err != nil {
			sb.WriteString("flush: " + err.Error() + "\n")
		}
		r.out = append(r.out, sb.String())
	}
	r.state = dumpStore(t, store)
	return r
}

func dumpStore(t testing.TB, store state.Store) string {
	var sb strings.Builder
	err := store.View(func(tx state.Tx) error {
		nss, err := tx.Namespaces()
		if err != nil {
			return err
		}
		for _, ns := range nss {
			scan := func(fn func(k, v []byte) error) error { return tx.Scan(ns, nil, fn) }
			if strings.HasPrefix(ns, "state/") {
				// Value state is packed into generations: dump what they
				// hold, key by key.
				table, _, ok := ptfop.ValueEntryOf(ns, "f")
				if !ok {
					continue
				}
				scan = func(fn func(k, v []byte) error) error { return ptfop.ScanValues(tx, table, fn) }
			}
			err := scan(func(k, v []byte) error {
				if strings.HasPrefix(ns, "state/") && len(v) >= 8 {
					// A value begins with the time it was written (for
					// TTLs), which differs from run to run.
					v = v[8:]
				}
				fmt.Fprintf(&sb, "%s %x = %x\n", ns, k, v)
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// diffCase is a function and the batches of rows it is given.
type diffCase struct {
	name    string
	src     string
	schema  types.Schema
	part    []string
	args    map[string]any
	batches [][]types.Row
	more    [][]types.Row // after the state crossed over (default: clicks)
	// compiles: the function's eval compiles (the test checks it does).
	compiles bool
}

func clickSchema() types.Schema {
	str, _ := script.ParseTypeForTest("STRING")
	return types.Schema{Columns: []types.Column{
		{Name: "user_id", Type: str},
		{Name: "url", Type: str},
		{Name: "view_time", Type: types.Type{Kind: types.KindInt}},
	}}
}

func clicks(n, keys int) []types.Row {
	rows := make([]types.Row, n)
	for i := range rows {
		var vt any = int64((i * 37) % 1000)
		if i%11 == 5 {
			vt = nil
		}
		var url any = fmt.Sprintf("/p/%d", i%13)
		if i%17 == 3 {
			url = nil
		}
		rows[i] = types.NewRow(fmt.Sprintf("u%d", i%keys), url, vt)
	}
	return rows
}

func workload(t testing.TB, name string) string {
	b, err := os.ReadFile("../bench/workloads/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func diffCases(t testing.TB) []diffCase {
	cs := clickSchema()
	batches := [][]types.Row{clicks(40, 3), clicks(25, 5)}
	fn := func(state, body string) string {
		return `export default {
  output: "ROW<a STRING, b BIGINT, c DOUBLE>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: ` + state + `,
  eval(ctx, { s }, { input }) {
` + body + `
  },
};`
	}
	st := `{ s: { default: { n: 0, f: 0.5, t: "", last: null } } }`
	return []diffCase{
		{name: "A row_filter", src: workload(t, "row_filter.js"), schema: cs, args: map[string]any{"min_view_time": int64(500)}, batches: batches, compiles: true},
		{name: "B keyed_count", src: workload(t, "keyed_count.js"), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "C greeting", src: workload(t, "greeting.js"), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "delay_streak", src: example(t, "delay_streak.js"), schema: flightSchema(), part: []string{"origin"}, batches: [][]types.Row{flights(60), flights(45)}, more: [][]types.Row{flights(30)}, compiles: true},
		{name: "arrays", src: fn(`{ s: { default: { n: 0, l: [], t: "" } } }`, `
    s.n++;
    if (s.l.length > 3) s.l = [];
    s.l.push(input.view_time);
    s.l.push(s.n);
    s.t = "" + s.l + s.l.length + input.user_id.length;
    if (s.n % 4 === 0) { s.l.push(input.url); }
    ctx.collect({ a: s.t, b: s.l.length, c: s.n });`), schema: cs, part: []string{"user_id"}, batches: batches},
		{name: "arrays in collect", src: strings.Replace(fn(`{ s: { default: { n: 0, l: [] } } }`, `
    s.n++;
    if (s.l.length >= 3) s.l = [input.view_time];
    else s.l.push(s.n);
    ctx.collect({ a: input.url, b: s.n, c: s.l });`), "c DOUBLE", "c ARRAY<INT>", 1), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "emptied arrays left in place", src: fn(`{ s: { default: { n: 0, l: [], m: [] } } }`, `
    s.n++;
    if (s.n % 3 === 0) { s.l = []; } else if (s.n % 5 === 0) { s.l = []; s.l = []; s.m = []; } else { s.l.push(s.n); s.m.push(s.l.length); }
    if (s.l.length === 0) s.m = [];
    ctx.collect({ a: input.url, b: s.l.length * 100 + s.m.length, c: s.n });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "arrays emptied in place, then a bail-out", src: fn(`{ s: { default: { n: 0, l: [], m: [] } } }`, `
    s.n++;
    const before = s.l.length;
    if (s.n % 3 === 0) { s.l = []; s.l.push(-s.n); } else { s.l.push(s.n); }
    if (s.n % 7 === 0) { s.l = []; }
    let q = "";
    if (s.n % 12 === 0) q = "" + s.m; // goja's: the compiled call bails out after emptying s.l, and goja's run reads it first
    s.m.push(s.n);
    ctx.collect({ a: q, b: before * 100 + s.l.length, c: s.n });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "arrays known empty, then a push on goja", src: fn(`{ s: { default: { n: 0, l: [], m: [] } } }`, `
    s.n++;
    let q = "";
    if (s.n % 5 === 1) s.l = [];
    else if (s.n % 5 === 2) { q = "" + s.m; s.l.push(s.n); } // goja's: the compiled call bails out, and goja's run pushes
    const len = s.l.length;
    if (s.n % 5 === 4) s.l = [];
    ctx.collect({ a: q, b: len * 10 + s.l.length, c: s.n });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "emptied arrays, one let out", src: fn(`{ s: { default: { n: 0, l: [] } } }`, `
    s.n++;
    const before = s.l;
    s.l = [];
    if (s.n % 2 === 0) before.push(s.n);
    ctx.collect({ a: input.url, b: s.l.length * 10 + before.length, c: s.n });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "emptied arrays, compared", src: fn(`{ s: { default: { n: 0, l: [] } } }`, `
    s.n++;
    if (s.n % 2 === 0) s.l.push(1);
    const before = s.l;
    s.l = [];
    ctx.collect({ a: input.url, b: before === s.l ? 1 : 0, c: s.n });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "plain objects", src: fn(`{ s: { default: { n: 0, l: [], o: { k: 1 } } } }`, `
    s.n++;
    s.o.k = s.o.k * 2 + s.n;
    if (s.n === 3) s.o.extra = 1;
    if (s.n === 4) s.n = s.o.toString === undefined ? 0 : 10;
    s.l.push(s.o.k);
    ctx.collect({ a: input.url, b: s.o.k, c: s.l.length });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "Object.prototype changed", src: "Object.defineProperty(Object.prototype, 'k', { get() { return 7; }, configurable: true });\n" + fn(`{ s: { default: { n: 0, l: [], o: { j: 1 } } } }`, `
    s.n++;
    s.o.j = s.o.j + s.n;
    ctx.collect({ a: input.url, b: s.o.j, c: s.n });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "arith", src: fn(st, `
    s.n += input.view_time === null ? 1 : input.view_time % 7 - 3;
    s.f = s.f * -1.5 + s.n / 3;
    let i = 0, acc = 0;
    for (let k = 0; k < 5; k++) { if (k === 3) continue; acc += k * s.n; i++; }
    while (i > 0) { i--; if (acc > 100) break; }
    s.t = `+"`${s.n}:${s.f}:${acc}`"+`;
    s.last = input.url;
    ctx.collect({ a: s.t + "|" + input.url, b: s.n, c: s.f });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "negative zero and NaN", src: fn(st, `
    const z = 0 * -5, y = -0, m = -4 % 2, q = 0 / 0;
    s.f = z + y + m;
    s.t = "" + (1 / z) + (1 / y) + (1 / m) + q + (q === q) + (q < 1) + (q >= 1);
    ctx.collect({ a: s.t, b: s.n++, c: s.f });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "comparisons", src: fn(st, `
    const u = input.url, v = input.view_time;
    const r = [u < "/p/5", u >= "/p/1", v == null, v != undefined, v === null, u == "/p/3", v > 400 && v <= 800, !v || v];
    ctx.collect({ a: "" + r, b: v, c: null });`), schema: cs, part: []string{"user_id"}, batches: batches},
		{name: "logic", src: fn(st, `
    const u = input.url, v = input.view_time;
    const x = (u < "/p/5") + "," + (u >= "/p/1") + "," + (v == null) + "," + (u == "/p/3") + "," + (v > 400 && v <= 800) + "," + (!v || v) + "," + (u ? 1 : 2);
    ctx.collect({ a: x, b: v, c: null });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "null property (error)", src: fn(st, `
    s.n++;
    if (input.url === null) { s.last = input.url.length; }
    ctx.collect({ a: input.url, b: s.n, c: 1 });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "string into BIGINT (error)", src: fn(st, `
    s.n++;
    ctx.collect({ a: input.url, b: s.n > 2 ? input.url : s.n, c: 1 });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "misspelt column (error)", src: fn(st, `
    s.n++;
    if (s.n > 3) ctx.collect({ a: input.url, bb: s.n, c: 1 });
    else ctx.collect({ a: input.url, b: s.n, c: 1 });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "too many rows (limit)", src: fn(st, `
    s.n++;
    for (let i = 0; i < s.n; i++) ctx.collect({ a: input.url, b: i, c: 1 });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "state of another shape", src: fn(st, `
    s.n++;
    if (s.n === 2) s.extra = 1;
    ctx.collect({ a: input.url, b: s.n, c: s.extra === undefined ? 0 : 1 });`), schema: cs, part: []string{"user_id"}, batches: batches},
		{name: "unknown column (error)", src: fn(st, `
    s.n++;
    if (s.n > 2) ctx.collect({ a: input.urll, b: s.n, c: 1 });`), schema: cs, part: []string{"user_id"}, batches: batches, compiles: true},
		{name: "throw (goja)", src: fn(st, `
    s.n++;
    if (s.n > 2) throw new Error("n is " + s.n);
    ctx.collect({ a: input.url, b: s.n, c: 1 });`), schema: cs, part: []string{"user_id"}, batches: batches},
	}
}

func flightSchema() types.Schema {
	str, _ := script.ParseTypeForTest("STRING")
	ts, _ := script.ParseTypeForTest("TIMESTAMP(3)")
	return types.Schema{Columns: []types.Column{
		{Name: "date", Type: ts},
		{Name: "delay", Type: types.Type{Kind: types.KindInt}},
		{Name: "origin", Type: str},
	}}
}

func flights(n int) []types.Row {
	rows := make([]types.Row, n)
	for i := range rows {
		var d any = int64((i*53)%90 - 10)
		if i%9 == 4 {
			d = nil
		}
		rows[i] = types.NewRow(types.LocalDateTime{Millis: 1700000000000 + int64(i)*60000}, d, []string{"JFK", "LAX", "ORD"}[i%3])
	}
	return rows
}

func example(t testing.TB, name string) string {
	b, err := os.ReadFile("../examples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func errorsAs(err error, target *ptf.SourceError) bool {
	for err != nil {
		if se, ok := err.(ptf.SourceError); ok {
			*target = se
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// TestCompiledMatchesGoja runs each function on goja and compiled over
// the same rows, and wants the same rows, errors (message, position,
// stack) and state bytes; then state written by one path read by the
// other.
func TestCompiledMatchesGoja(t *testing.T) {
	for _, c := range diffCases(t) {
		t.Run(c.name, func(t *testing.T) {
			if c.compiles {
				e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest})
				def, err := e.Load("f", "f.js", c.src)
				if err != nil {
					t.Fatal(err)
				}
				if runs, _ := e.Runs(def); runs != "compiled" {
					t.Fatalf("runs: %s", runs)
				}
				e.Close()
			}
			opts := ptfop.HarnessOptions{PartitionBy: c.part, Args: c.args, UID: "f"}
			gojaStore, compStore := state.NewMem(), state.NewMem()
			want := runPath(t, false, "f.js", c.src, c.schema, opts, gojaStore, c.batches)
			got := runPath(t, true, "f.js", c.src, c.schema, opts, compStore, c.batches)
			compare(t, want, got)
			if testing.Verbose() {
				t.Logf("%s", strings.Join(got.out, "---\n"))
			}
			// Across: state each path wrote, read and extended by the other.
			more := c.more
			if more == nil {
				more = [][]types.Row{clicks(9, 4)}
			}
			want2 := runPath(t, false, "f.js", c.src, c.schema, opts, compStore, more)
			got2 := runPath(t, true, "f.js", c.src, c.schema, opts, gojaStore, more)
			compare(t, want2, got2)
		})
	}
}

func compare(t *testing.T, want, got diffRun) {
	t.Helper()
	for i := range want.out {
		if want.out[i] != got.out[i] {
			t.Errorf("batch %d:\ngoja:\n%s\ncompiled:\n%s", i, want.out[i], got.out[i])
		}
	}
	if want.state != got.state {
		t.Errorf("state:\ngoja:\n%s\ncompiled:\n%s", want.state, got.state)
	}
}
