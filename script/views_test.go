package script_test

import (
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/state"
	"github.com/ptfsh/ptfsh/state/statetest"
)

// viewSrc is a function with list state l and map state m of the given
// types, running body for each row of names (input.name, input.score).
func viewSrc(listType, mapType, body string) string {
	return `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: {
    l: { kind: "list", type: "` + listType + `" },
    m: { kind: "map", type: "` + mapType + `" },
  },
  eval(ctx, { l, m }, { input }) {
    const out = (...xs) => ctx.collect(xs.map(x => typeof x === "string" ? x : JSON.stringify(x)).join(" "));
    const err = (f) => { try { f(); return "no error"; } catch (e) { return e.name + ": " + e.message; } };
    ` + body + `
  },
};`
}

// runViews runs body over Bob 1, Bob 2, a checkpoint, Bob 3, Bob 4 on
// memory and bbolt stores, and checks both print want.
func runViews(t *testing.T, listType, mapType, body, want string) {
	t.Helper()
	for _, open := range []func(*testing.T) state.Store{statetest.OpenMem, statetest.OpenBolt} {
		e := newEvalEngine(t)
		h := harness(t, e, "f.js", viewSrc(listType, mapType, body), ptfop.HarnessOptions{Store: open(t)})
		got := process(t, h, nameRows("Bob", 1, "Bob", 2)...)
		if err := h.Flush(); err != nil {
			t.Fatal(err)
		}
		got += "\n" + process(t, h, nameRows("Bob", 3, "Bob", 4)...)
		if got != want {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	}
}

func TestListView_methods(t *testing.T) {
	tests := []struct {
		name, typ, body, want string
	}{
		{"add_size_get", "ARRAY<STRING>",
			`l.add("x" + input.score); out(l.size(), l.get(0), l.get(l.size() - 1), l.getList(), l.isEmpty());`,
			"+I[Bob, 1 x1 x1 [\"x1\"] false]\n+I[Bob, 2 x1 x2 [\"x1\",\"x2\"] false]\n" +
				"+I[Bob, 3 x1 x3 [\"x1\",\"x2\",\"x3\"] false]\n+I[Bob, 4 x1 x4 [\"x1\",\"x2\",\"x3\",\"x4\"] false]"},
		{"for_of_and_get_iterable", "ARRAY<INT>",
			`l.addAll([input.score, input.score * 10]); const a = []; for (const x of l) a.push(x); out(a, [...l.get()], Array.from(l).length);`,
			"+I[Bob, [1,10] [1,10] 2]\n+I[Bob, [1,10,2,20] [1,10,2,20] 4]\n" +
				"+I[Bob, [1,10,2,20,3,30] [1,10,2,20,3,30] 6]\n+I[Bob, [1,10,2,20,3,30,4,40] [1,10,2,20,3,30,4,40] 8]"},
		{"break_and_addAll_iterables", "ARRAY<STRING>",
			`l.addAll(new Set(["s" + input.score])); l.addAll((function* () { yield "g" + input.score; })());
			 let first; for (const x of l) { first = x; break; } out(first, l.size());`,
			"+I[Bob, s1 2]\n+I[Bob, s1 4]\n+I[Bob, s1 6]\n+I[Bob, s1 8]"},
		{"nulls_rejected", "ARRAY<STRING>",
			`out(err(() => l.add(null)), "|", err(() => l.add(undefined)), "|", err(() => l.addAll(["item0", null])), "|", l.size());`,
			strings.TrimSuffix(strings.Repeat("+I[Bob, TypeError: List views don't support null values. | TypeError: List views don't support null values. | TypeError: List views don't support null values. | 0]\n", 4), "\n")},
		{"wrong_type_and_range", "ARRAY<STRING>",
			`out(err(() => l.add(1)), "|", err(() => l.get(0)), "|", err(() => l.get(1.5)));`,
			strings.TrimSuffix(strings.Repeat("+I[Bob, TypeError: l.add: element (STRING): cannot use 1 (number) | RangeError: l.get: list index 0 out of range (size 0) | TypeError: l.get: the index must be an integer, not 1.5 (number)]\n", 4), "\n")},
		{"setList_and_clear", "ARRAY<STRING>",
			`if (input.score === 3) { l.clear(); } else { l.setList([...l.getList(), "a" + input.score]); } l.add("b" + input.score); out(l.getList());`,
			"+I[Bob, [\"a1\",\"b1\"]]\n+I[Bob, [\"a1\",\"b1\",\"a2\",\"b2\"]]\n+I[Bob, [\"b3\"]]\n+I[Bob, [\"b3\",\"a4\",\"b4\"]]"},
		{"typed_values", "ARRAY<ROW<t TIMESTAMP_LTZ(3), n BIGINT, d DECIMAL(10, 2), b BYTES>>",
			`l.add({ t: new Date(input.score * 1000), n: 9007199254740993n, d: 1.25, b: new Uint8Array([input.score]) });
			 const r = l.get(l.size() - 1); out(l.size(), r.t instanceof Date ? r.t.toISOString() : r.t, String(r.n), r.d, r.b[0]);`,
			"+I[Bob, 1 1970-01-01T00:00:01.000Z 9007199254740993 1.25 1]\n+I[Bob, 2 1970-01-01T00:00:02.000Z 9007199254740993 1.25 2]\n" +
				"+I[Bob, 3 1970-01-01T00:00:03.000Z 9007199254740993 1.25 3]\n+I[Bob, 4 1970-01-01T00:00:04.000Z 9007199254740993 1.25 4]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runViews(t, tc.typ, "MAP<STRING, INT>", tc.body, tc.want)
		})
	}
}

func TestMapView_methods(t *testing.T) {
	tests := []struct {
		name, typ, body, want string
	}{
		{"put_get_contains", "MAP<STRING, INT>",
			`m.put("k" + (5 - input.score), input.score); if (input.score === 4) m.remove("k4");
			 out([...m.keys()], [...m.values()], [...m.entries()], m.get("k4"), m.contains("k4"), m.get("nope"), m.size(), m.isEmpty());`,
			`+I[Bob, ["k4"] [1] [["k4",1]] 1 true null 1 false]
+I[Bob, ["k3","k4"] [2,1] [["k3",2],["k4",1]] 1 true null 2 false]
+I[Bob, ["k2","k3","k4"] [3,2,1] [["k2",3],["k3",2],["k4",1]] 1 true null 3 false]
+I[Bob, ["k1","k2","k3"] [4,3,2] [["k1",4],["k2",3],["k3",2]] null false null 3 false]`},
		{"for_of_getMap_null_values", "MAP<STRING, INT>",
			`m.put("n" + input.score, input.score % 2 ? null : input.score); const a = []; for (const [k, v] of m) a.push(k + "=" + v);
			 const g = m.getMap(); out(a, g instanceof Map, g.size, g.get("n2") ?? "absent");`,
			`+I[Bob, ["n1=null"] true 1 absent]
+I[Bob, ["n1=null","n2=2"] true 2 2]
+I[Bob, ["n1=null","n2=2","n3=null"] true 3 2]
+I[Bob, ["n1=null","n2=2","n3=null","n4=4"] true 4 2]`},
		{"putAll_setMap_clear", "MAP<STRING, BIGINT>",
			`if (input.score === 1) m.putAll(new Map([["a", 1], ["b", 2]]));
			 if (input.score === 2) m.putAll({ c: 3 });
			 if (input.score === 3) m.setMap(new Map([["z", 26]]));
			 if (input.score === 4) { m.clear(); m.put("after", 0); }
			 out([...m.entries()]);`,
			`+I[Bob, [["a",1],["b",2]]]
+I[Bob, [["a",1],["b",2],["c",3]]]
+I[Bob, [["z",26]]]
+I[Bob, [["after",0]]]`},
		{"null_keys", "MAP<STRING, INT>",
			`out(err(() => m.put(null, 42)), "|", err(() => m.putAll(new Map([["key", 42], [null, 42]]))), "|", err(() => m.get(undefined)), "|", err(() => m.put("x", "y")), "|", m.size());`,
			strings.TrimSuffix(strings.Repeat(`+I[Bob, TypeError: Map views don't support null keys. | TypeError: Map views don't support null keys. | TypeError: Map views don't support null keys. | TypeError: m.put: value (INT): cannot use "y" (string) | 0]`+"\n", 4), "\n")},
		{"int_keys_in_order", "MAP<INT, STRING>",
			`m.put(input.score * (input.score % 2 ? -1 : 1), "v" + input.score); out([...m.keys()]);`,
			"+I[Bob, [-1]]\n+I[Bob, [-1,2]]\n+I[Bob, [-3,-1,2]]\n+I[Bob, [-3,-1,2,4]]"},
		{"iterator_closed_after_the_call", "MAP<STRING, INT>",
			`m.put("k" + input.score, 1); if (input.score === 1) globalThis.kept = m.keys(); if (input.score === 3) out(err(() => globalThis.kept.next())); else out(m.size());`,
			"+I[Bob, 1]\n+I[Bob, 2]\n+I[Bob, TypeError: an iterator of list or map state is valid only during the call that made it]\n+I[Bob, 4]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runViews(t, "ARRAY<STRING>", tc.typ, tc.body, tc.want)
		})
	}
}

// F-ListStateFunction and F-MapStateFunction's clearState: the view is
// emptied when the call returns, and what the call adds after the clear
// is dropped too.
func TestViews_clearState(t *testing.T) {
	runViews(t, "ARRAY<STRING>", "MAP<STRING, INT>",
		`out(l.getList(), [...m.keys()]); l.add("a" + input.score); m.put("k" + input.score, 1);
		 if (input.score === 2) { ctx.clearState("l"); ctx.clearState("m"); l.add("late"); m.put("late", 1); }`,
		`+I[Bob, [] []]
+I[Bob, ["a1"] ["k1"]]
+I[Bob, [] []]
+I[Bob, ["a3"] ["k3"]]`)
}

func TestViews_stateAssignment(t *testing.T) {
	e := newEvalEngine(t)
	src := `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { l: { kind: "list", type: "ARRAY<STRING>" } },
  eval(ctx, state) { try { state.l = []; } catch (e) { ctx.collect(e.message); } },
};`
	h := harness(t, e, "f.js", src, ptfop.HarnessOptions{})
	want := "+I[Bob, cannot set state.l: it is a list view; change it with its methods (clear, add, addAll, setList)]"
	if got := process(t, h, nameRows("Bob", 1)...); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestEngine_Load_viewDeclarations(t *testing.T) {
	tests := []struct{ name, state, err string }{
		{"list_without_type", `l: { kind: "list" }`, `state entry "l": a list entry needs a type, ARRAY<T>`},
		{"map_without_type", `m: { kind: "map" }`, `state entry "m": a map entry needs a type, MAP<K, V>`},
		{"list_default", `l: { kind: "list", type: "ARRAY<INT>", default: [1] }`, `state entry "l": a list entry starts empty and takes no default`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEvalEngine(t)
			_, err := e.Load("f", "", "({ output: 'STRING', state: { "+tc.state+" }, eval() {} })")
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

// A list and a map kept by one call site are read by the next one over the
// same store (a restore).
func TestViews_restore(t *testing.T) {
	e := newEvalEngine(t)
	store := statetest.OpenBolt(t)
	src := viewSrc("ARRAY<INT>", "MAP<STRING, INT>", `l.add(input.score); m.put(input.name, l.size()); out(l.getList(), m.get(input.name));`)
	h := harness(t, e, "f.js", src, ptfop.HarnessOptions{Store: store})
	got := process(t, h, nameRows("Bob", 12, "Alice", 42)...)
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	h.Close()
	h2 := harness(t, e, "f.js", src, ptfop.HarnessOptions{Store: store})
	got += "\n" + process(t, h2, nameRows("Bob", 99, "Bob", 100, "Alice", 400)...)
	want := `+I[Bob, [12] 1]
+I[Alice, [42] 1]
+I[Bob, [12,99] 2]
+I[Bob, [12,99,100] 3]
+I[Alice, [42,400] 2]`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
