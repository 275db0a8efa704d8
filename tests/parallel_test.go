package tests

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/state"
)

// workerNote matches the end-of-statement note that says how many workers
// a PTF call ran on; it appears only at parallelism > 1.
var workerNote = regexp.MustCompile(`(?m)^note: \S+ ran on (\d+) workers?( \(parallelism \d+\)[^\n]*)?\n`)

// fallbackNote matches the note of a call that ran on one worker, with why.
var fallbackNote = regexp.MustCompile(`(?m)^note: \S+ ran on 1 worker \(parallelism \d+\): ([^\n]*)$`)

// turnNote matches the note of a call whose workers ran some batches in
// turn ('ptfsh.parallel.workers' = 'auto' found that faster): the wall
// clock decides it, so a loaded machine may add it to any call of more
// than a few batches.
var turnNote = regexp.MustCompile(`(?m)^note: \S+: its \d+ workers took turns on one thread for \d+ of \d+ batches of rows, [^\n]*\n`)

// stripWorkerNotes removes the worker notes and counts the calls that ran
// on more than one worker.
func stripWorkerNotes(s string) (string, int) {
	n := 0
	for _, m := range workerNote.FindAllStringSubmatch(s, -1) {
		if m[1] != "1" {
			n++
		}
	}
	return turnNote.ReplaceAllString(workerNote.ReplaceAllString(s, ""), ""), n
}

// inTurn runs the workers of a parallel call one after the other on the
// statement's goroutine: the same outputs as on goroutines of their own.
// It goes before a query's first line, on that line, so that the errors'
// lines stay those of the query.
const inTurn = "SET 'ptfsh.parallel.workers' = 'in-turn'; "

// parallelismRow matches the row of SET; that shows 'parallelism.default',
// which says N at parallelism N.
var parallelismRow = regexp.MustCompile(`(?m)^(\|\s+parallelism\.default \|\s+)\d+ \|$`)

// parallelFallbacks are the reasons a call may run on one worker at a
// parallelism above 1. A call of any other shape must run on every worker,
// so that the equivalence test cannot pass by falling back to one.
var parallelFallbacks = map[string]bool{
	"a timeline":                 true,
	"it takes no table argument": true,
	"its instances cannot run apart (no isolated runtime, e.g. a built-in function)": true,
	"its table argument has no PARTITION BY":                                         true,
	"lineage":                                                                        true,
	"state TTL":                                                                      true,
	"tracing":                                                                        true,
	"updating input or output":                                                       true,
	"row semantics with state (one key for every row)":                               true,
}

// parallelShapes are scripts whose PTF calls must all run on every worker:
// event time with timers (named, unnamed, registered in onTimer), ORDER BY,
// several table arguments (by turns and by time), restored buffers.
var parallelShapes = []string{
	"examples/second_event", "examples/flights", "examples/ordered_processor",
	"examples/greeting_with_last_purchase", "examples/greeting_with_follow_up", "examples/ping_later",
	"conformance/process_order_by", "conformance/process_multi_input_order_by_restore",
	"conformance/process_named_timers", "conformance/process_late_events_restore",
	"changelog/interleave_rows_take_turns", "time/unnamed_timers", "patterns/sessionize",
}

// TestParallelism_equivalence runs every script archive and example at
// parallelism 2 and 3 and requires the output of parallelism 1 (want.out,
// the .out files), the worker notes and SET;'s parallelism.default aside.
// A call may run on one worker only for a reason of parallelFallbacks, and
// the calls of parallelShapes must all run on every worker.
func TestParallelism_equivalence(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every script test again")
	}
	var files []string
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".txtar") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join("..", "examples", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, par := range []int{2, 3} {
		parallelCalls := 0
		fallbacks := map[string]int{}
		shapes := map[string]bool{}
		check := func(t *testing.T, name, want, got string) {
			for _, m := range fallbackNote.FindAllStringSubmatch(got, -1) {
				fallbacks[m[1]]++
				if !parallelFallbacks[m[1]] {
					t.Errorf("%s: a call ran on 1 worker at parallelism %d: %s", name, par, m[1])
				}
			}
			for _, m := range workerNote.FindAllStringSubmatch(got, -1) {
				if m[1] != "1" && m[1] != strconv.Itoa(par) {
					t.Errorf("%s: a call ran on %s workers at parallelism %d", name, m[1], par)
				}
			}
			if slices.Contains(parallelShapes, name) {
				shapes[name] = true
				if ran := workerNote.FindAllStringSubmatch(got, -1); len(ran) == 0 || fallbackNote.MatchString(got) {
					t.Errorf("%s: not every call ran on %d workers:\n%s", name, par, strings.Join(workerNote.FindAllString(got, -1), ""))
				}
			}
			got, n := stripWorkerNotes(got)
			got = parallelismRow.ReplaceAllString(got, "${1}1 |")
			parallelCalls += n
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s at parallelism %d: output differs from parallelism 1 (-want +got):\n%s", name, par, diff)
			}
		}
		t.Run(fmt.Sprintf("parallelism=%d", par), func(t *testing.T) {
			for _, file := range files {
				name := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(file), "testdata/"), ".txtar")
				t.Run(name, func(t *testing.T) {
					test, dir := extractArchive(t, file)
					want, ok := test.Want()
					if !ok {
						t.Skip("no want.out")
					}
					store := state.NewMem()
					defer store.Close()
					check(t, name, want, runScriptParallel(t, dir, "query.sql", test.Query, store, par))
				})
			}
			for _, path := range scripts {
				name := "examples/" + strings.TrimSuffix(filepath.Base(path), ".sql")
				t.Run(name, func(t *testing.T) {
					src, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					want, err := os.ReadFile(strings.TrimSuffix(path, ".sql") + ".out")
					if err != nil {
						t.Fatal(err)
					}
					dir, err := filepath.Abs(filepath.Dir(path))
					if err != nil {
						t.Fatal(err)
					}
					store := state.NewMem()
					defer store.Close()
					check(t, name, string(want), runScriptParallel(t, dir, filepath.Base(path), string(src), store, par))
				})
			}
		})
		t.Logf("parallelism %d: %d PTF calls ran on %d workers; on 1 worker: %v", par, parallelCalls, par, fallbacks)
		if parallelCalls == 0 {
			t.Errorf("parallelism %d: no PTF call ran on more than one worker: the equivalence test proves nothing", par)
		}
		for _, s := range parallelShapes {
			if !shapes[s] {
				t.Errorf("parallelism %d: no script %s", par, s)
			}
		}
	}
}

// parScript writes fn.js and a CSV of n rows (key k<i mod keys>, i) to a
// temporary folder and returns it with a query over them.
func parScript(t *testing.T, js string, n, keys int) (dir, query string) {
	t.Helper()
	dir = t.TempDir()
	appendParRows(t, dir, 0, n, keys)
	if err := os.WriteFile(filepath.Join(dir, "fn.js"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, `SET 'ptfsh.format' = 'rows';
CREATE FUNCTION fn AS 'fn.js';
CREATE TABLE c (k STRING, i INT) WITH ('connector' = 'filesystem', 'path' = 'c.csv', 'format' = 'csv');
SELECT * FROM fn(TABLE c PARTITION BY k);
`
}

// appendParRows appends rows from to to-1 of parScript's CSV (key
// k<i mod keys>, i) to dir's c.csv, making it if need be.
func appendParRows(t *testing.T, dir string, from, to, keys int) {
	t.Helper()
	var b strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, "k%d,%d\n", (i*7919)%keys, i)
	}
	f, err := os.OpenFile(filepath.Join(dir, "c.csv"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// runAt runs query in dir over a fresh store at parallelism par.
func runAt(t *testing.T, dir, query string, par int) string {
	t.Helper()
	store := state.NewMem()
	defer store.Close()
	return runScriptParallel(t, dir, "query.sql", query, store, par)
}

// waitGoroutines waits until no more than n goroutines run (engines stop
// their watchdogs asynchronously) and fails if that does not happen.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for goruntime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left, want at most %d:\n%s", goruntime.NumGoroutine(), n, buf[:goruntime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestParallelism_order runs a function that emits zero, one or two rows per
// input row over several batches (parBatch is 4096 events) of many keys:
// parallelism 2 gives the output of parallelism 1 row for row, console
// output included.
func TestParallelism_order(t *testing.T) {
	dir, query := parScript(t, `export default {
  output: "ROW<n INT, i INT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { n: 0 } } },
  eval(ctx, { s }, { r }) {
    s.n++;
    if (r.i % 3 === 0) return;
    ctx.collect({ n: s.n, i: r.i });
    if (r.i % 5 === 0) ctx.collect({ n: -s.n, i: r.i });
    if (r.i % 1000 === 1) console.log("row", r.i, "of", r.k);
  },
};`, 10_000, 97)
	// A cache of 5 keys per worker makes the workers spill to the store
	// at once. In CSV and JSON the workers encode the rows they collect,
	// and the hand-out gathers their bytes (the console output between
	// them in its place).
	for _, prefix := range []string{"", "SET 'state.cache-size' = '5';\n", inTurn, "SET 'ptfsh.format' = 'csv';\n", inTurn + "SET 'ptfsh.format' = 'json';\n"} {
		want := runAt(t, dir, prefix+query, 1)
		got := runAt(t, dir, prefix+query, 2)
		got, n := stripWorkerNotes(got)
		got = parallelismRow.ReplaceAllString(got, "${1}1 |")
		if n != 1 {
			t.Fatalf("the call did not run on 2 workers:\n%s", got[max(0, len(got)-300):])
		}
		if got != want {
			t.Fatalf("%sparallelism 2 differs from 1 (-want +got):\n%s", prefix, cmp.Diff(want, got))
		}
		if !strings.Contains(want, "row 9001 of") {
			t.Fatal("console output missing")
		}
	}
}

// TestParallelism_error makes the call throw at row 5000 (one key) while the
// other worker is busy with slow rows, and again at row 6000 of another
// key: the statement stops with the message of parallelism 1 (the first
// failing row), after the same outputs, and leaves no goroutine behind.
func TestParallelism_error(t *testing.T) {
	dir, query := parScript(t, `export default {
  output: "INT",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  eval(ctx, _, { r }) {
    if (r.i === 5000) { console.log("about to fail"); ctx.collect(-1); throw new Error("boom at " + r.i); }
    if (r.i === 6000) throw new Error("late boom at " + r.i);
    if (r.i > 4000) { let x = 0; for (let j = 0; j < 3000; j++) x += j; }
    ctx.collect(r.i);
  },
};`, 8_000, 13)
	before := goruntime.NumGoroutine()
	want := runAt(t, dir, query, 1)
	if !strings.Contains(want, "boom at 5000") || !strings.Contains(want, "about to fail") {
		t.Fatalf("parallelism 1 did not fail at row 5000:\n%s", want[max(0, len(want)-500):])
	}
	for i := range 6 {
		q := query
		switch i {
		case 3:
			q = inTurn + query
		case 4:
			q = strings.Replace(query, "'rows'", "'csv'", 1)
		case 5:
			q = strings.Replace(query, "'rows'", "'json'", 1)
		}
		if i >= 4 { // the workers encode their rows: the same output, rows before the error included
			want = runAt(t, dir, q, 1)
		}
		start := time.Now()
		got, _ := stripWorkerNotes(runAt(t, dir, q, 2))
		t.Logf("parallelism 2: %v", time.Since(start))
		if got != want {
			t.Fatalf("parallelism 2 differs from 1 (-want +got):\n%s", cmp.Diff(want, got))
		}
	}
	start := time.Now()
	waitGoroutines(t, before)
	t.Logf("goroutines gone after %v", time.Since(start))
}

// TestParallelism_cancel cancels a statement whose call loops forever in one
// worker: it stops, and its goroutines with it.
func TestParallelism_cancel(t *testing.T) {
	dir, query := parScript(t, `export default {
  output: "INT",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  eval(ctx, _, { r }) {
    if (r.i === 100) for (;;) {}
    ctx.collect(r.i);
  },
};`, 1_000, 7)
	before := goruntime.NumGoroutine()
	sh, err := assembly.New(assembly.Options{Out: io.Discard, Memory: true, BaseDir: dir, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	sess := sh.Session
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sess.Exec(ctx, "", query) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("err = %v, want an interruption", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the statement did not stop after cancellation")
	}
	sh.Close()
	waitGoroutines(t, before)
}

// TestParallelism_resume keeps state across statements (no end of input) and
// switches parallelism between them: 2 then 1, and 1 then 2, give what 1
// then 1 gives, since state keys do not depend on the parallelism.
func TestParallelism_resume(t *testing.T) {
	js := `export default {
  output: "ROW<total INT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { total: 0 } } },
  eval(ctx, { s }, { r }) { s.total += r.i; ctx.collect({ total: s.total }); },
};`
	run := func(pars [2]int, prefix string) string {
		dir, query := parScript(t, js, 3_000, 11)
		query = prefix + "SET 'ptfsh.end-of-input' = 'false';\n" + query
		store, err := state.OpenBolt(filepath.Join(dir, "state.db"), state.BoltOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		first, _ := stripWorkerNotes(runScriptParallel(t, dir, "query.sql", query, store, pars[0]))
		appendParRows(t, dir, 3_000, 5_000, 11)
		second, _ := stripWorkerNotes(runScriptParallel(t, dir, "query.sql", query, store, pars[1]))
		return first + "----\n" + second
	}
	// With a cache of 3 keys the workers spill to the state file.
	for _, prefix := range []string{"", "SET 'state.cache-size' = '3';\n"} {
		want := run([2]int{1, 1}, prefix)
		for _, pars := range [][2]int{{2, 1}, {1, 2}, {2, 2}} {
			if got := run(pars, prefix); got != want {
				t.Errorf("%sparallelism %d then %d differs from 1 then 1 (-want +got):\n%s", prefix, pars[0], pars[1], cmp.Diff(want, got))
			}
		}
	}
}

// viewsFn keeps list and map state (Flink's ListView and MapView): the
// last values of its key, cut back to three past five, and a count per
// last digit, iterated in full at each call.
const viewsFn = `export default {
  output: "ROW<recent STRING, digit INT, seen INT, digits INT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: {
    recent: { kind: "list", type: "ARRAY<INT>" },
    byDigit: { kind: "map", type: "MAP<INT, INT>" },
  },
  eval(ctx, { recent, byDigit }, { r }) {
    recent.add(r.i);
    let all = recent.getList();
    if (all.length > 5) {
      recent.clear();
      recent.addAll(all.slice(-3));
      all = recent.getList();
    }
    const d = r.i % 10;
    const seen = (byDigit.contains(d) ? byDigit.get(d) : 0) + 1;
    byDigit.put(d, seen);
    if (seen % 7 === 0) byDigit.remove((d + 1) % 10);
    let digits = 0;
    for (const [k, v] of byDigit.entries()) digits += k * v;
    ctx.collect({ recent: all.join(" "), digit: d, seen, digits });
  },
};`

// TestParallelism_views runs a call with list and map state on two workers:
// it must run on both and give the output of parallelism 1, with the views
// flushed by checkpoints every 700 rows and read back from the state file
// (a cache of 3 keys a worker), and when the parallelism changes between
// two statements that hand their state on.
func TestParallelism_views(t *testing.T) {
	run := func(pars []int, prefix string, rows int) string {
		dir, query := parScript(t, viewsFn, rows, 23)
		query = prefix + "SET 'ptfsh.end-of-input' = 'false';\n" + query
		store, err := state.OpenBolt(filepath.Join(dir, "state.db"), state.BoltOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		var out strings.Builder
		for i, par := range pars {
			if i > 0 {
				appendParRows(t, dir, rows*i, rows*(i+1), 23)
				out.WriteString("----\n")
			}
			got, n := stripWorkerNotes(runScriptParallel(t, dir, "query.sql", query, store, par))
			if par > 1 && n != 1 {
				t.Fatalf("parallelism %d: the call did not run on %d workers:\n%s", par, par, got[max(0, len(got)-400):])
			}
			out.WriteString(parallelismRow.ReplaceAllString(got, "${1}1 |"))
		}
		return out.String()
	}
	// A cache of 3 keys for 23 evicts at almost every row: fewer rows
	// (still four checkpoints a run) keep the test short. With -short,
	// each case goes on at the other parallelism only (2 then 1, 1 then 2).
	for i, c := range []struct {
		prefix string
		rows   int
	}{{"", 6_000}, {"SET 'execution.checkpointing.interval-rows' = '700';\nSET 'state.cache-size' = '3';\n", 3_000}} {
		prefix := c.prefix
		want := run([]int{1, 1}, prefix, c.rows)
		if !strings.Contains(want, "+I[k") || strings.Contains(want, "rror") {
			t.Fatalf("%sparallelism 1 gave no rows or an error:\n%.600s", prefix, want)
		}
		combos := [][]int{{2, 2}, {2, 1}, {1, 2}}
		if testing.Short() {
			combos = combos[1+i : 2+i]
		}
		for _, pars := range combos {
			if got := run(pars, prefix, c.rows); got != want {
				t.Errorf("%sparallelism %v differs from 1 then 1 (-want +got):\n%s", prefix, pars, cmp.Diff(want, got))
			}
		}
	}
}

// TestParallelism_rowSemantics: a function with row semantics and no
// state, whose rows the main operator runs itself when the workers run in
// turn, prints, collects and fails as at parallelism 1, concurrent and in
// turn.
func TestParallelism_rowSemantics(t *testing.T) {
	dir, query := parScript(t, `export default {
  output: "ROW<i INT, w STRING>",
  args: [{ name: "r", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, _, { r }) {
    if (r.i % 1000 === 7) console.log("row", r.i, "wm", ctx.timeContext().currentWatermark());
    if (r.i === 9100) { ctx.collect({ i: -1, w: "lost" }); throw new Error("boom at " + r.i); }
    if (r.i % 3 !== 0) ctx.collect({ i: r.i, w: r.k });
  },
};`, 10_000, 13)
	query = strings.Replace(query, "fn(TABLE c PARTITION BY k)", "fn(TABLE c)", 1)
	want := runAt(t, dir, query, 1)
	if !strings.Contains(want, "boom at 9100") || !strings.Contains(want, "row 8007") {
		t.Fatalf("parallelism 1 did not print and fail:\n%s", want[max(0, len(want)-500):])
	}
	for _, set := range []string{"", inTurn, "SET 'ptfsh.parallel.workers' = 'concurrent'; "} {
		if got, _ := stripWorkerNotes(runAt(t, dir, set+query, 2)); got != want {
			t.Errorf("%q: parallelism 2 differs from 1 (-want +got):\n%s", set, cmp.Diff(want, got))
		}
	}
}

// TestParallelism_set sets the parallelism with Flink's option name.
func TestParallelism_set(t *testing.T) {
	dir, query := parScript(t, `export default {
  output: "INT",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  eval(ctx, _, { r }) { ctx.collect(r.i); },
};`, 10, 3)
	got := runAt(t, dir, "SET 'parallelism.default' = '2';\n"+query, 1)
	if !strings.Contains(got, "note: fn ran on 2 workers (parallelism 2)\n") {
		t.Errorf("no note of 2 workers:\n%s", got)
	}
	got = runAt(t, dir, "SET 'parallelism.default' = '0';\n", 1)
	if !strings.Contains(got, "SET 'parallelism.default' needs a whole number of at least 1, not '0'") {
		t.Errorf("SET 'parallelism.default' = '0': %s", got)
	}
	// Row semantics: the rows belong to no key and go round the workers.
	if err := os.WriteFile(filepath.Join(dir, "fn2.js"), []byte(`export default {
  output: "INT",
  args: [{ name: "r", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, _, { r }) { ctx.collect(r.i); },
};`), 0o644); err != nil {
		t.Fatal(err)
	}
	got = runAt(t, dir, "SET 'parallelism.default' = '2';\nCREATE FUNCTION fn2 AS 'fn2.js';\n"+strings.Replace(query, "fn(TABLE c PARTITION BY k)", "fn2(TABLE c)", 1), 1)
	if !strings.Contains(got, "note: fn2 ran on 2 workers (parallelism 2)\n") {
		t.Errorf("row semantics, no note of 2 workers:\n%s", got)
	}
	if want := runAt(t, dir, "CREATE FUNCTION fn2 AS 'fn2.js';\n"+strings.Replace(query, "fn(TABLE c PARTITION BY k)", "fn2(TABLE c)", 1), 1); strings.TrimSuffix(got, "note: fn2 ran on 2 workers (parallelism 2)\n") != want {
		t.Errorf("row semantics at parallelism 2 differs from 1:\n%s\nwant\n%s", got, want)
	}
	// Set semantics without PARTITION BY: one key, one worker.
	if err := os.WriteFile(filepath.Join(dir, "fn3.js"), []byte(`export default {
  output: "INT",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE", "OPTIONAL_PARTITION_BY"] }],
  eval(ctx, _, { r }) { ctx.collect(r.i); },
};`), 0o644); err != nil {
		t.Fatal(err)
	}
	got = runAt(t, dir, "SET 'parallelism.default' = '2';\nCREATE FUNCTION fn3 AS 'fn3.js';\n"+strings.Replace(query, "fn(TABLE c PARTITION BY k)", "fn3(TABLE c)", 1), 1)
	if !strings.Contains(got, "note: fn3 ran on 1 worker (parallelism 2): its table argument has no PARTITION BY\n") {
		t.Errorf("no note of the fallback:\n%s", got)
	}
}
