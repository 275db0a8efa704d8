package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/state"
)

// valueStateFn counts rows per key in value state.
const valueStateFn = `export default {
  output: "ROW<n BIGINT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { c: { default: { n: 0 } } },
  eval(ctx, { c }) { c.n++; ctx.collect({ n: c.n }); },
};`

// TestValueState_olderStateFile: a state file of an older build keeps each
// key's value state as one value in the entry's namespace itself, without
// generations: a run reads it the same, goes on from it, checkpoints on
// top of it, and SHOW STATE shows it before and after.
func TestValueState_olderStateFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.js"), []byte(valueStateFn), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := state.OpenBolt(filepath.Join(dir, "s.db"), state.BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run := func(rows string) string {
		return runWithStore(t, dir, `SET 'ptfsh.end-of-input' = 'false';
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION c AS 'c.js';
CREATE VIEW v(k) AS VALUES `+rows+`;
SELECT * FROM c(r => TABLE v PARTITION BY k, uid => 'c');
SHOW STATE FOR 'c';
`, store)
	}
	first := run("('a'), ('b'), ('a')")
	if !strings.Contains(first, "+I[a, 2]") || !strings.Contains(first, `| (a) |     c | {"n":2} |`) {
		t.Fatalf("first run:\n%s", first)
	}
	// Rewrite the state in the layout of the older build: each key's
	// stored form under the key in state/c/c, and nothing else.
	if err := store.Update(func(tx state.Tx) error {
		names, err := tx.Namespaces()
		if err != nil {
			return err
		}
		type kv struct{ k, v []byte }
		var kept []kv
		for _, ns := range names {
			table, entry, ok := ptfop.ValueEntryOf(ns, "c")
			if !ok {
				continue
			}
			if table != "state/c/c" || entry != "c" {
				t.Errorf("value state entry %q of table %q, want c of state/c/c", entry, table)
			}
			if err := ptfop.ScanValues(tx, table, func(k, v []byte) error {
				kept = append(kept, kv{bytes.Clone(k), bytes.Clone(v)})
				return nil
			}); err != nil {
				return err
			}
		}
		if len(kept) != 2 {
			t.Errorf("the store holds %d keys of value state, want 2", len(kept))
		}
		for _, ns := range names {
			if strings.HasPrefix(ns, "state/c/") {
				if err := tx.DeleteNamespace(ns); err != nil {
					return err
				}
			}
		}
		for _, e := range kept {
			if err := tx.Put("state/c/c", e.k, e.v); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	second := run("('a'), ('c'), ('b')")
	for _, want := range []string{"+I[a, 3]", "+I[c, 1]", "+I[b, 2]", `| (a) |     c | {"n":3} |`, `| (b) |     c | {"n":2} |`, `| (c) |     c | {"n":1} |`} {
		if !strings.Contains(second, want) {
			t.Errorf("the run on the older file does not print %q:\n%s", want, second)
		}
	}
	third := run("('a'), ('b')")
	for _, want := range []string{"+I[a, 4]", "+I[b, 3]", `| (a) |     c | {"n":4} |`, `| (c) |     c | {"n":1} |`} {
		if !strings.Contains(third, want) {
			t.Errorf("the run after a checkpoint on the older file does not print %q:\n%s", want, third)
		}
	}
}

// TestShowState_entryOrder: SHOW STATE lists a function's entries in the
// order of their names, whatever their kinds and however one name starts
// another ("a", "a_b", "ab"), each entry's keys in key order.
func TestShowState_entryOrder(t *testing.T) {
	dir := t.TempDir()
	fn := `export default {
  output: "ROW<n INT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { b: { default: { n: 0 } }, ab: { default: { n: 0 } }, a: { default: { n: 0 } },
           a_b: { default: { n: 0 } }, aa: { kind: "list", type: "ARRAY<INT>" } },
  eval(ctx, { b, ab, a, a_b, aa }) { a.n++; ab.n += 2; a_b.n += 3; b.n += 4; aa.add(5); },
};`
	if err := os.WriteFile(filepath.Join(dir, "f.js"), []byte(fn), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runWithStore(t, dir, `SET 'ptfsh.end-of-input' = 'false';
CREATE FUNCTION f AS 'f.js';
CREATE VIEW v(k) AS VALUES ('y'), ('x'), ('y');
SELECT * FROM f(r => TABLE v PARTITION BY k, uid => 'f');
SHOW STATE FOR 'f';
`, state.NewMem())
	var got []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Split(line, "|"); len(f) == 6 && strings.HasPrefix(strings.TrimSpace(f[1]), "(") {
			got = append(got, strings.TrimSpace(f[1])+" "+strings.TrimSpace(f[2]))
		}
	}
	want := []string{"(x) a", "(y) a", "(x) a_b", "(y) a_b", "(x) aa[0]", "(y) aa[0]", "(y) aa[1]", "(x) ab", "(y) ab", "(x) b", "(y) b"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("SHOW STATE lists\n%s\nwant\n%s\nfull output:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
	}
}
