package tests

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/state"
)

// TestResume_parquet: a parquet source's checkpointed position is a row
// index. A statement that fails after a checkpoint goes on, when run
// again, after the checkpointed row (mid-file); one stopped without end of
// input goes on after its last row; a file rewritten since is an error
// until positions are reset. The Parquet files are written by INSERT INTO.
func TestResume_parquet(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sum.js"), []byte(`export default {
  output: "ROW<total INT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }, { name: "failAt", type: "INT" }],
  state: { s: { default: { total: 0 } } },
  eval(ctx, { s }, { r, failAt }) {
    if (r.n === failAt) throw new Error("failing at " + r.n);
    s.total += r.n; ctx.collect({ total: s.total });
  },
};`), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := state.OpenBolt(filepath.Join(dir, "state.db"), state.BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	const table = `CREATE TABLE p (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'p.parquet', 'format' = 'parquet');
`
	write := func(values string) {
		t.Helper()
		os.Remove(filepath.Join(dir, "p.parquet"))
		// The INSERT says only what it wrote.
		if got := runWithStore(t, dir, table+"INSERT INTO p VALUES "+values+";\n", store); !strings.HasPrefix(got, "[INFO] Complete execution of the SQL update statement: ") || strings.Count(got, "\n") != 1 || !strings.Contains(got, " written to table 'p' ('p.parquet').") {
			t.Fatalf("writing the file: %s", got)
		}
	}
	run := func(prefix string, failAt int) string {
		t.Helper()
		return runWithStore(t, dir, prefix+`SET 'ptfsh.format' = 'rows';
SET 'execution.checkpointing.interval-rows' = '2';
CREATE FUNCTION sum AS 'sum.js';
`+table+"SELECT * FROM sum(TABLE p PARTITION BY name, "+strconv.Itoa(failAt)+");\n", store)
	}

	write("('a', 1), ('a', 2), ('a', 3), ('a', 4), ('a', 5)")
	got := run("", 4)
	if !strings.HasPrefix(got, "+I[a, 1]\n+I[a, 3]\n+I[a, 6]\n") || !strings.Contains(got, "failing at 4") {
		t.Fatalf("failing run:\n%s", got)
	}
	// The checkpoint after row 2 holds; rows 3 to 5 are read again.
	got = run("", 0)
	if want := "+I[a, 6]\n+I[a, 10]\n+I[a, 15]\nnote: table 'p' goes on after row 2 of 'p.parquet', where the last run stopped\n"; got != want {
		t.Fatalf("after the failure:\n%s\nwant:\n%s", got, want)
	}

	const stop = "SET 'ptfsh.end-of-input' = 'false';\n"
	write("('b', 10), ('b', 20)")
	if got, want := run(stop, 0), "+I[b, 10]\n+I[b, 30]\n"; got != want {
		t.Fatalf("stopped run:\n%s\nwant:\n%s", got, want)
	}
	if got, want := run(stop, 0), "note: table 'p' goes on after row 2 of 'p.parquet', where the last run stopped\n"; got != want {
		t.Fatalf("same file:\n%s\nwant:\n%s", got, want)
	}
	write("('b', 10), ('b', 21)")
	if got := run(stop, 0); !strings.Contains(got, "table 'p': the file 'p.parquet' changed since the last checkpoint (after row 2); SET 'state.source-positions' = 'reset'") {
		t.Fatalf("rewritten file: %q", got)
	}
	if got, want := run(stop+"SET 'state.source-positions' = 'reset';\n", 0), "+I[b, 40]\n+I[b, 61]\n"; got != want {
		t.Fatalf("after reset:\n%s\nwant:\n%s", got, want)
	}
}
