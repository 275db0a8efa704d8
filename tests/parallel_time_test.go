package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/state"
)

// The event-time shapes at parallelism 2 and 3 over many keys and several
// batches (parBatch is 4,096 events, and a watermark follows almost every
// row): what each worker does is compared with parallelism 1 row for row,
// so the merge of timers across workers (many keys with timers of one
// time, timers onTimer registers at or before the watermark, named timers
// replaced and cleared), ORDER BY across workers, late rows, the end of
// input, errors and the runaway guard are all checked against it.

// timedJS keeps a count per key, registers a named timer (replaced by the
// key's next row), an unnamed one on a 10 s grid (shared by many keys),
// and from onTimer a follow-up at the watermark itself (it fires in the
// same pass) or one a little later.
const timedJS = `export default {
  output: "ROW<what STRING, n INT, t BIGINT, wm BIGINT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { s: { default: { n: 0 } } },
  eval(ctx, { s }, { r }) {
    const tc = ctx.timeContext();
    s.n++;
    s.k = r.k;
    const wm = tc.currentWatermark();
    if (r.i % 7 === 0) ctx.collect({ what: "row", n: s.n, t: tc.time(), wm: wm === null ? -1 : wm });
    tc.registerOnTime("idle", tc.time() + 3000 + (r.i % 4) * 500);
    tc.registerOnTime(Math.floor(tc.time() / 10000) * 10000 + 10000);
    if (r.i % 11 === 0) tc.clearTimer("idle");
    if (r.i % 997 === 0) console.log("row", r.i, "key", r.k);
  },
  onTimer(ctx, { s }) {
    const tc = ctx.timeContext();
    const name = ctx.currentTimer();
    ctx.collect({ what: "timer " + (name ?? "grid"), n: s.n, t: tc.time(), wm: tc.currentWatermark() });
    if (name === "idle" && s.n % 3 === 0) tc.registerOnTime("again", tc.currentWatermark());
    if (name === "again" && s.n % 2 === 0) tc.registerOnTime(tc.time() + 1);
  },
};`

// timedScript writes fn.js and a CSV of n rows (k<key>, i, ts) over keys
// keys to a folder: times move 250 ms a row on average, one row in 13 is
// up to 4 s late. It returns the folder and the statements that declare
// the function and the table t (watermark: ts - 2 s).
func timedScript(t *testing.T, js string, n, keys int) (dir, ddl string) {
	t.Helper()
	dir = t.TempDir()
	writeTimedRows(t, filepath.Join(dir, "t.csv"), 0, n, keys)
	if err := os.WriteFile(filepath.Join(dir, "fn.js"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, `SET 'ptfsh.format' = 'rows';
CREATE FUNCTION fn AS 'fn.js';
CREATE TABLE t (k STRING, i INT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
`
}

// writeTimedRows writes rows from..to-1 of timedScript's table to path
// (appending when from > 0).
func writeTimedRows(t *testing.T, path string, from, to, keys int) {
	t.Helper()
	var b strings.Builder
	for i := from; i < to; i++ {
		ts := int64(1_767_225_600_000) + int64(i)*250
		if i%13 == 0 {
			ts -= int64(i%5) * 1000
		}
		fmt.Fprintf(&b, "k%d,%d,%d\n", (i*7919)%keys, i, ts)
	}
	flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if from > 0 {
		flag = os.O_APPEND | os.O_WRONLY
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
}

// sameAtParallelism runs query at parallelism 1, 2 and 3 over fresh
// stores, and at 2 with the workers in turn, and requires one output;
// calls calls must run on all workers and none on one (calls < 0: a
// statement that fails prints no notes; the same shape without the
// failure is checked for its workers).
func sameAtParallelism(t *testing.T, dir, query string, calls int) string {
	t.Helper()
	want := runAt(t, dir, query, 1)
	for i, par := range []int{2, 3, 2} {
		q := query
		if i == 2 {
			q = inTurn + query
		}
		got := runAt(t, dir, q, par)
		if m := fallbackNote.FindStringSubmatch(got); m != nil {
			t.Fatalf("parallelism %d: a call ran on 1 worker: %s", par, m[1])
		}
		got, n := stripWorkerNotes(got)
		if calls >= 0 && n != calls {
			t.Fatalf("parallelism %d: %d calls ran on %d workers, want %d", par, n, par, calls)
		}
		if got != want {
			t.Fatalf("parallelism %d differs from 1 (-want +got):\n%s", par, cmp.Diff(want, got))
		}
	}
	return want
}

// TestParallelism_timers: timers of many keys, at one time and in the
// same pass, with and without ORDER BY, with a cache that keeps few keys
// live (keys with timers go warm), at parallelism 1, 2 and 3.
func TestParallelism_timers(t *testing.T) {
	dir, ddl := timedScript(t, timedJS, 12_000, 150)
	for _, c := range []struct{ name, query string }{
		{"on_time", "SELECT * FROM fn(TABLE t PARTITION BY k, on_time => DESCRIPTOR(ts));\n"},
		{"order_by", "SELECT * FROM fn(TABLE t PARTITION BY k ORDER BY ts, on_time => DESCRIPTOR(ts));\n"},
		{"order_by_desc_key", "SELECT * FROM fn(TABLE t PARTITION BY k ORDER BY (ts, i DESC), on_time => DESCRIPTOR(ts));\n"},
		{"small_cache", "SET 'state.cache-size' = '7';\nSELECT * FROM fn(TABLE t PARTITION BY k ORDER BY ts, on_time => DESCRIPTOR(ts));\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && (c.name == "order_by" || c.name == "order_by_desc_key") {
				t.Skip("-short: small_cache covers ORDER BY's timers")
			}
			out := sameAtParallelism(t, dir, ddl+c.query, 1)
			for _, s := range []string{"timer idle", "timer grid", "timer again", "row 9970 key"} {
				if !strings.Contains(out, s) {
					t.Errorf("no %q in the output: the test does not exercise it", s)
				}
			}
			if c.name != "on_time" && !strings.Contains(out, "ORDER BY dropped") {
				t.Error("no late rows dropped by ORDER BY")
			}
		})
	}
}

// TestParallelism_timersError: onTimer fails at one key's grid timer, in
// a pass where other keys' timers of that time fire on other workers, and onTimer's
// runaway guard stops a pass that keeps registering timers in the past:
// the same outputs, console output and error as at parallelism 1.
func TestParallelism_timersError(t *testing.T) {
	failing := strings.Replace(timedJS, "onTimer(ctx, { s }) {", `onTimer(ctx, { s }) {
    if (ctx.timeContext().currentWatermark() > 1767226800000 && ctx.timeContext().currentWatermark() < 9e15 && ctx.currentTimer() === null && s.k === "k17") throw new Error("boom at " + ctx.timeContext().time());`, 1)
	dir, ddl := timedScript(t, failing, 12_000, 150)
	query := ddl + "SELECT * FROM fn(TABLE t PARTITION BY k, on_time => DESCRIPTOR(ts));\n"
	sameAtParallelism(t, dir, strings.Replace(query, "'2' SECOND", "'2000' SECOND", 1), 1) // the watermark never passes the failing time
	out := sameAtParallelism(t, dir, query, -1)
	if !strings.Contains(out, "boom at") {
		t.Fatalf("onTimer did not fail:\n%s", out[max(0, len(out)-500):])
	}
	runaway := strings.Replace(timedJS, `if (name === "again" && s.n % 2 === 0) tc.registerOnTime(tc.time() + 1);`,
		`if (name === "again" && tc.currentWatermark() > 1767226000000) tc.registerOnTime("again", tc.currentWatermark());`, 1)
	dir, ddl = timedScript(t, runaway, 12_000, 150)
	out = sameAtParallelism(t, dir, ddl+"SET 'ptfsh.timers.max-firings' = '40';\nSELECT * FROM fn(TABLE t PARTITION BY k, on_time => DESCRIPTOR(ts));\n", -1)
	if !strings.Contains(out, "more than 40 timers that onTimer registered fired") {
		t.Fatalf("the runaway guard did not stop the call:\n%s", out[max(0, len(out)-500):])
	}
}

// TestParallelism_twoInputs: two tables co-partitioned by key, with
// on_time (interleaved by time) and ORDER BY on one, timers of both.
func TestParallelism_twoInputs(t *testing.T) {
	js := `export default {
  output: "ROW<what STRING, n INT, t BIGINT>",
  args: [{ name: "a", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }, { name: "b", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { s: { default: { n: 0 } } },
  eval(ctx, { s }, { a, b }) {
    const tc = ctx.timeContext();
    s.n++;
    ctx.collect({ what: a ? "a" : "b", n: s.n, t: tc.time() });
    tc.registerOnTime(a ? "a" : "b", tc.time() + 2000);
  },
  onTimer(ctx, { s }) {
    ctx.collect({ what: "timer " + ctx.currentTimer(), n: s.n, t: ctx.timeContext().time() });
  },
};`
	dir, ddl := timedScript(t, js, 6_000, 60)
	writeTimedRows(t, filepath.Join(dir, "u.csv"), 0, 5_000, 45)
	ddl += `CREATE TABLE u (k STRING, i INT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'u.csv', 'format' = 'csv');
`
	sameAtParallelism(t, dir, ddl+"SELECT * FROM fn(a => TABLE t PARTITION BY k ORDER BY ts, b => TABLE u PARTITION BY k, on_time => DESCRIPTOR(ts));\n", 1)
}

// TestParallelism_timersResume stops a call with a uid without end of
// input (its timers and ORDER BY rows stay in the state file), then goes
// on with more rows, switching parallelism between the two: every pair
// prints what 1 then 1 prints.
func TestParallelism_timersResume(t *testing.T) {
	run := func(pars [2]int) string {
		dir, ddl := timedScript(t, timedJS, 6_000, 90)
		query := ddl + "SET 'ptfsh.end-of-input' = 'false';\nSELECT * FROM fn(TABLE t PARTITION BY k ORDER BY ts, on_time => DESCRIPTOR(ts), uid => 'f');\n"
		store, err := state.OpenBolt(filepath.Join(dir, "state.db"), state.BoltOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		first, _ := stripWorkerNotes(runScriptParallel(t, dir, "query.sql", query, store, pars[0]))
		writeTimedRows(t, filepath.Join(dir, "t.csv"), 6_000, 9_000, 90)
		query = strings.Replace(query, "'ptfsh.end-of-input' = 'false'", "'ptfsh.end-of-input' = 'true'", 1)
		second, _ := stripWorkerNotes(runScriptParallel(t, dir, "query.sql", query, store, pars[1]))
		return first + "----\n" + second
	}
	want := run([2]int{1, 1})
	if !strings.Contains(want, "timer again") {
		t.Fatal("no timers fired")
	}
	for _, pars := range [][2]int{{2, 1}, {1, 2}, {2, 3}} {
		if got := run(pars); got != want {
			t.Errorf("parallelism %d then %d differs from 1 then 1 (-want +got):\n%s", pars[0], pars[1], cmp.Diff(want, got))
		}
	}
}
